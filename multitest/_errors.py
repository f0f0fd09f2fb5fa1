"""Exceptions raised by multitest.

Every error caused by the user's input derives from :class:`MultitestError`
(itself a :class:`ValueError`), so the command-line interface can print it as a
single line and exit with status 2.
"""

__all__ = ["MultitestError", "InputError", "UnknownTestError", "OutputError", "abbreviate",
           "one_line"]


class MultitestError(ValueError):
    """Base class of every error caused by the user's input or settings."""


class InputError(MultitestError):
    """A results file, data frame or cost profile is malformed.

    Parameters
    ----------
    message : str
        What is wrong.
    source : str, optional
        The file (or ``"<DataFrame>"``) the problem was found in.
    row : int, optional
        The 1-based line of the file (header is line 1) or row of the frame.
    field : str, optional
        The column or YAML key concerned.
    """

    def __init__(self, message, *, source=None, row=None, field=None):
        self.message = message
        self.source = source
        self.row = row
        self.field = field
        where = [abbreviate(source)] if source is not None else []
        if row is not None:
            where.append(f"row {row}")
        if field is not None:
            where.append(f"field '{abbreviate(field)}'")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class UnknownTestError(MultitestError):
    """A pairwise test name that is neither registered nor importable."""


class OutputError(MultitestError):
    """An output folder cannot be written (locked, taken by a user's file, full, ...)."""

    def __init__(self, message, *, source=None):
        super().__init__(f"{abbreviate(source)}: {message}" if source is not None else message)


#: Longest name echoed in a message; longer ones keep their two ends.
NAME_LIMIT = 200


def abbreviate(text, limit=NAME_LIMIT):
    """``text`` if at most ``limit`` characters, else its two ends and its length.

    Examples
    --------
    >>> abbreviate("x" * 1000, 20)
    'xxxxxxxxxx…xxxxx (1000 characters)'
    """
    text = str(text)
    if len(text) <= limit:
        return text
    head, tail = limit // 2, limit // 4
    return f"{text[:head]}…{text[-tail:]} ({len(text)} characters)"


def one_line(message, limit=5 * NAME_LIMIT):
    """A message as one line of at most about ``limit`` characters.

    Line breaks become spaces, every word longer than :data:`NAME_LIMIT` is
    abbreviated, and the whole is abbreviated to ``limit``.
    """
    words = " ".join(str(message).split()).split(" ")
    return abbreviate(" ".join(abbreviate(w) for w in words), limit)
