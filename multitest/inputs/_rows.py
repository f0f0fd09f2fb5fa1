"""A results file read row by row with :mod:`csv`: its header, where a reader that stopped at
a bad row finds which row it was, and the first row whose number of fields differs from the
header's; what a results path may be; and the text path, which reads every field as text.
"""

from __future__ import annotations

import contextlib
import csv
import os
import stat
import sys
import warnings

import pandas as pd

from .._errors import InputError, abbreviate
from ._encoding import not_utf8

__all__: list[str] = []     # used by the readers of multitest.inputs only


def check_file_or_folder(name):
    """Refuse a results path that is neither a regular file nor a folder: a FIFO (a pipe, a
    shell's ``<(...)``) cannot be read twice and may wait for ever for a writer, a device
    (``/dev/zero``) may never end.  A missing path is left to the readers' own message."""
    try:
        mode = os.stat(name).st_mode
    except (OSError, ValueError):
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError("not a regular file (a pipe, a device or a socket): save the results "
                         "in a file and give its path", source=name)


#: Longest header line of a CSV file read (bytes): a file of NUL bytes (no line end)
#: read as CSV took 10.6 GB for 1 GB, then a MemoryError (issue 40).
HEADER_LINE_BYTES = 4 * 2 ** 20


def check_header_line(name):
    """Refuse a CSV file whose first line is longer than :data:`HEADER_LINE_BYTES`: one
    line naming the file, before a reader holds the line (a missing or unreadable file
    is left to the readers' own message)."""
    try:
        with open(name, "rb") as handle:
            line = handle.readline(HEADER_LINE_BYTES + 1)
    except (OSError, ValueError):
        return
    if len(line) > HEADER_LINE_BYTES:
        raise InputError(f"the header is longer than {HEADER_LINE_BYTES // 2 ** 20} MB: "
                         "not a CSV table of results", source=name, row=1)


@contextlib.contextmanager
def _csv_rows(name, **options):
    """:func:`csv.reader` of a file, with no limit on the length of a field."""
    limit = csv.field_size_limit(sys.maxsize)
    try:
        with open(name, newline="", encoding="utf-8-sig", errors="replace") as handle:
            yield csv.reader(handle, **options)
    finally:
        csv.field_size_limit(limit)


def _raise_ragged(name):
    """Raise the error of the first row whose field count differs from the header's."""
    try:
        with _csv_rows(name, skipinitialspace=True) as reader:
            header = [c.strip() for c in next(reader, [])]
            for fields in reader:
                if fields and len(fields) != len(header):
                    break
            else:
                return
    except (OSError, csv.Error):
        return
    n, m = len(fields), len(header)
    if n > m:
        raise InputError(f"{n} fields under a {m}-column header: the value after "
                         f"'{abbreviate(header[-1])}' has no column (a decimal comma, as in "
                         "0,2884? write 0.2884 or quote the field)", source=name,
                         row=reader.line_num, field=header[-1])
    raise InputError(f"{n} fields under a {m}-column header: no value for "
                     f"'{abbreviate(header[n])}'", source=name, row=reader.line_num,
                     field=header[n])


def _header(name):
    """``{stripped name: raw name}`` of the header line, or None (no header, or blank names
    given twice, as trailing commas make); InputError if a name is given twice, or the line
    is too long (:func:`~multitest.inputs._rows.check_header_line`)."""
    check_header_line(name)
    with _csv_rows(name) as reader:
        header = next(reader, None)
    if not header:
        return None
    raw = _columns_named_once(header, name, row=1)
    return raw if len(raw) == len(header) else None


def _columns_named_once(names, source, row=None):
    """``{stripped name: name}`` of a header (`row` 1) or a Parquet schema (no row);
    InputError if a name is given twice (blank names, of trailing commas, may be)."""
    raw = {}
    for number, column in enumerate(names, 1):
        stripped = str(column).strip()
        if stripped and stripped in raw:
            first = 1 + [str(c).strip() for c in names].index(stripped)
            where = "header" if row is not None else "schema"
            raise InputError(f"column '{abbreviate(stripped)}' is named twice in the {where} "
                             f"(columns {first} and {number}): which one holds the data is "
                             "not said; name each column once", source=source, row=row,
                             field=stripped)
        raw[stripped] = column
    return raw


def _read(name):
    """The text path: every field as text, exactly as written."""
    try:
        _header(name)     # a name given twice: refused, not renamed by pandas
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(name, dtype=str, keep_default_na=False, skipinitialspace=True,
                                index_col=False)
    except FileNotFoundError:
        raise InputError("no such file", source=name) from None
    except (pd.errors.ParserError, pd.errors.ParserWarning):
        _raise_ragged(name)
        raise InputError("not a readable CSV file", source=name) from None
    except UnicodeDecodeError:
        raise (not_utf8(name) or InputError("not a readable CSV file (not UTF-8 text)",
                                            source=name)) from None
    except pd.errors.EmptyDataError as exc:
        detail = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise InputError(f"not a readable CSV file ({abbreviate(detail)})", source=name) \
            from None
    frame.columns = [str(c).strip() for c in frame.columns]
    # Line numbers in messages count the header as line 1.
    return frame, name, 2
