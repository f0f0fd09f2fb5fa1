"""Where a text input stops being UTF-8: the one line naming file and row.

pandas' and Python's decoders report a byte position within the piece they were
decoding (``'utf-8' codec can't decode byte 0xe9 in position 1``), which points
nowhere in the file; :func:`not_utf8` finds the first undecodable byte of the
file and its line.
"""

from __future__ import annotations

import codecs

from .._errors import InputError
from .._format import ordinal

__all__: list[str] = []     # used by the readers of multitest.inputs only

_BLOCK = 1 << 20


def not_utf8(path, what="CSV file"):
    """The :class:`~multitest.InputError` of a file that is not UTF-8 text, naming the row
    (line, the header being 1) and byte of its first undecodable byte; None when the whole
    file decodes (the caller's error was another).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(path, "wb").write("dataset,error\\nd1,0.1\\nd\\xe9,0.2\\n".encode("latin-1"))
    >>> error = not_utf8(path)
    >>> error.row, error.message
    (3, 'not UTF-8 text (byte 0xe9, the 23rd of the file); save the CSV file as UTF-8')
    """
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    offset, lines = 0, 1
    try:
        with open(path, "rb") as handle:
            while block := handle.read(_BLOCK):
                try:
                    decoder.decode(block)
                except UnicodeDecodeError as exc:
                    return _error(path, what, block, exc, offset, lines)
                offset, lines = offset + len(block), lines + block.count(b"\n")
            decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:     # the file ends inside a character
        return _error(path, what, exc.object, exc, offset - len(exc.object), lines)
    except OSError:
        return None
    return None


def _error(path, what, block, exc, offset, lines):
    # exc.start counts from the bytes the decoder held back from the last block too
    start = max(0, exc.start - (len(exc.object) - len(block)))
    byte = exc.object[exc.start]
    where = offset + start + 1
    row = lines + block[:start].count(b"\n")
    return InputError(f"not UTF-8 text (byte 0x{byte:02x}, the {ordinal(where)} of the file); "
                      f"save the {what} as UTF-8", source=path, row=row)
