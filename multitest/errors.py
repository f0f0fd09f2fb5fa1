"""Exceptions raised by multitest.

Every error caused by the user's input derives from :class:`MultitestError`
(itself a :class:`ValueError`), so the command-line interface can print it as a
single line and exit with status 2.
"""

__all__ = ["MultitestError", "InputError", "UnknownTestError", "abbreviate"]

#: Longest text (a name, a value) quoted whole in a message.
_QUOTE_LIMIT = 80


def abbreviate(text, limit=_QUOTE_LIMIT):
    """``text`` for a one-line message: at most about ``limit`` characters, one line.

    A 50 MB name from a broken file is shown by its start and its length.
    """
    text = str(text)
    if len(text) <= limit and "\n" not in text and "\r" not in text:
        return text
    head = text[:limit - 30].replace("\r", " ").replace("\n", " ")
    return f"{head}... ({len(text):,} characters)"


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
        self.source = source
        self.row = row
        self.field = field
        where = [str(source)] if source is not None else []
        if row is not None:
            where.append(f"row {row}")
        if field is not None:
            where.append(f"field '{abbreviate(field)}'")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class UnknownTestError(MultitestError):
    """A pairwise test name that is neither registered nor importable."""
