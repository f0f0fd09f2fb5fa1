"""An input cut into the parts ranked by the tasks of ``multitest rank --workers``.

A Parquet file with several row groups gives one part per run of consecutive row groups
(of at least :data:`GROUP_ROWS` rows; row groups sharing a data set at their border are in
the same part); a CSV file gives one part per byte range of about :data:`RANGE_BYTES`,
cut at line ends.  A CSV part owns the data sets that *start* in its range: its task skips
the first rows of a data set begun in the range before and reads past its end to finish
its last data set, so that the parts hold every row once (a data set must be contiguous:
one found in two parts is refused by the client).  Each part is read by the readers and
checks of :func:`~multitest.inputs.load_results`; a bad row is named by its row in the
whole file.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass

import numpy as np

from .._errors import InputError, abbreviate
from ._arrow_tables import arrow, parquet_module, read_csv_range
from ._automl import is_automl_file
from ._cells import MAX_FOLD_NUMBER, _Fallback
from ._columns import _csv_roles
from ._results import (PARQUET_SUFFIXES, _load, _load_columns, _parquet_columns, _ValueRule,
                       input_parts, load_results)
from ._rows import _columns_named_once, _header, _raise_ragged, check_file_or_folder

__all__ = []

#: Bytes of a CSV file per part (about; the cuts fall at line ends).
RANGE_BYTES = 64 * 2 ** 20
#: Fewest rows of a part of a Parquet file of several row groups (whole row groups).
GROUP_ROWS = 2 ** 22


@dataclass(frozen=True)
class InputPart:
    """A part of an input read by one task.

    Attributes
    ----------
    path : str
        The file.
    groups : tuple of int
        Parquet: the row groups read (``()``: the whole file).
    first_row : int
        Parquet: the row of the file (counted from 1) of the first row read.
    span : tuple of int
        CSV: ``(start, stop)`` bytes whose data sets the part owns (``()``: the whole
        file; ``start`` 0: from the first row).
    """

    path: str
    groups: tuple = ()
    first_row: int = 1
    span: tuple = ()

    def where(self):
        """The part in words, for messages of its task."""
        if self.groups:
            return f"{self.path}, row groups {self.groups[0]}-{self.groups[-1]}"
        if self.span:
            return f"{self.path}, the data sets starting in bytes {self.span[0]}-{self.span[1]}"
        return self.path


def split_input(source, *, dataset="dataset", range_bytes=None, group_rows=None):
    """The parts of `source` (a file, or a folder of
    :func:`~multitest.inputs._results.input_parts`).

    Parameters
    ----------
    source : str
        A Parquet or CSV file, or a folder of them.
    dataset : str
        The column naming the data set (row groups are joined at a shared data set).
    range_bytes, group_rows : int, optional
        Size of a CSV part in bytes, smallest Parquet part in rows (default
        :data:`RANGE_BYTES`, :data:`GROUP_ROWS`).

    Returns
    -------
    list of InputPart
        In the order of the rows; empty when `source` holds no Parquet or CSV file.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> rows = "".join(f"d{s},{a},{f},0.{s}{f}\\n" for s in range(3) for a in "ab"
    ...                for f in (1, 2))
    >>> _ = open(path, "w").write("dataset,algorithm,fold,error\\n" + rows)
    >>> parts = split_input(path, range_bytes=50)
    >>> [p.span for p in parts]
    [(0, 53), (53, 89), (89, 137), (137, 173)]
    >>> loaded = [load_part(p) for p in parts]
    >>> [(r and r.datasets, rows) for r, rows in loaded]
    [(('d0',), 4), (('d1',), 4), (('d2',), 4), (None, 0)]
    >>> part_labels(parts, [rows for _, rows in loaded])[1].endswith("r.csv, rows 6-9")
    True
    """
    range_bytes = RANGE_BYTES if range_bytes is None else range_bytes
    group_rows = GROUP_ROWS if group_rows is None else group_rows
    source = os.fspath(source)
    check_file_or_folder(source)
    files = input_parts(source) if os.path.isdir(source) else \
        [source] if os.path.isfile(source) else []
    parts = []
    for path in files:
        if path.lower().endswith(PARQUET_SUFFIXES):
            parts.extend(_row_group_parts(path, dataset, group_rows))
        else:
            parts.extend(_range_parts(path, dataset, range_bytes))
    return parts


def _row_group_parts(path, dataset, group_rows):
    """Runs of consecutive row groups of at least `group_rows` rows (the last run too:
    a shorter rest joins it), never cut between two row groups whose border rows name
    the same data set (the data set column of a row group is read only at a cut)."""
    pq = parquet_module(path)
    try:
        handle = pq.ParquetFile(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"not a readable Parquet file ({abbreviate(exc)})",
                         source=path) from None
    column = {str(c).strip(): c for c in handle.schema_arrow.names}.get(dataset)
    n_groups = handle.metadata.num_row_groups
    if column is None or n_groups < 2:
        return [InputPart(path=path)]
    rows = [handle.metadata.row_group(g).num_rows for g in range(n_groups)]
    ends = {}

    def names(g):
        if g not in ends:
            ends[g] = _border_names(handle, g, column)
        return ends[g]

    parts, run, first_row, size, rest = [], [], 1, 0, sum(rows)
    for g in range(n_groups):
        if (run and size >= group_rows and rest >= group_rows
                and names(g - 1)[1] != names(g)[0]):
            parts.append(InputPart(path=path, groups=tuple(run), first_row=first_row))
            run, first_row, size = [], first_row + size, 0
        run.append(g)
        size, rest = size + rows[g], rest - rows[g]
    parts.append(InputPart(path=path, groups=tuple(run), first_row=first_row))
    return parts if len(parts) > 1 else [InputPart(path=path)]


def _border_names(handle, group, column):
    """``(first, last)`` data set of a row group (None, None: no rows)."""
    names = handle.read_row_group(group, columns=[column]).column(0)
    if len(names) == 0:
        return None, None
    return tuple(str(names[i].as_py()).strip() for i in (0, len(names) - 1))


def _range_parts(path, dataset, range_bytes):
    """Byte ranges of about `range_bytes` cut at line ends (the whole file: one range,
    a file without the data set column or holding the AutoML layout)."""
    size = os.path.getsize(path)
    n = -(-size // max(1, range_bytes))
    raw = _header(path) if n > 1 else None
    if raw is None or dataset not in raw or is_automl_file(path) or _quoted_line_end(path):
        return [InputPart(path=path)]
    cuts = _cuts(path, size, n)
    if not cuts:
        return [InputPart(path=path)]
    return [InputPart(path=path, span=span) for span in zip([0, *cuts], [*cuts, size])]


def _cuts(path, size, parts):
    """Byte offsets of the starts of parts 2, 3, ... of a file cut into `parts` parts of
    about one size, each just after a line end (none: a quote in the header line)."""
    with open(path, "rb") as handle:
        first = handle.readline()
        if b'"' in first:
            return []
        cuts = []
        for k in range(1, parts):
            handle.seek(max(size * k // parts, len(first)))
            handle.readline()               # to the next line end
            where = handle.tell()
            if where < size and (not cuts or where > cuts[-1]):
                cuts.append(where)
    return cuts


def _quoted_line_end(path, chunk_bytes=2 ** 24):
    """Whether a quoted field of the CSV file holds a line break (``\\n`` or ``\\r``).

    Cuts at line ends and the line-wise search for a data set's end hold only without
    one.  In a valid CSV file a quote is doubled inside a quoted field, so a byte is
    inside one when an odd number of quotes precede it: one pass over the file, chunks
    without a quote (``bytes.find``) skipped while outside a field.
    """
    inside = False
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_bytes):
            if not inside and b'"' not in chunk:
                continue
            data = np.frombuffer(chunk, dtype=np.uint8)
            quotes = np.flatnonzero(data == ord('"'))
            ends = np.flatnonzero((data == ord("\n")) | (data == ord("\r")))
            before = np.searchsorted(quotes, ends) + inside      # quotes before each end
            if np.any(before % 2 == 1):
                return True
            inside = (quotes.size + inside) % 2 == 1
    return False


def load_part(part, **options):
    """``(Results of the data sets of `part`, rows read)``: the readers and checks of
    :func:`~multitest.inputs.load_results` (keywords `options`) on the part's rows.

    A CSV range inside the rows of one data set (begun in a range before it) owns no
    data set: ``(None, 0)``.  The rows read are None for a whole file.

    Raises
    ------
    InputError
        As :func:`~multitest.inputs.load_results`, naming the row in the whole file; or
        the file cannot be read (naming the part).
    """
    if not (part.groups or part.span):
        return load_results(part.path, **options), None
    try:
        return _load_groups(part, options) if part.groups else _load_range(part, options)
    except OSError as exc:
        # A fault of the input (a worker's read), said as such: never left to be taken
        # for one of the output folder the run writes meanwhile.
        raise InputError(f"cannot read {abbreviate(part.where())}: {exc.strerror or exc}"
                         ) from None


def _columns_and_rule(options):
    """The ``columns`` and value rule of the readers of :func:`load_results`."""
    columns = {role: options.get(role, role) for role in
               ("dataset", "algorithm", "replication", "fold", "metric")}
    columns["value"] = options.get("value")
    rule = _ValueRule(kind=options.get("kind", "auto"),
                      higher_is_better=tuple(options.get("higher_is_better", ())),
                      lower_is_better=tuple(options.get("lower_is_better", ())))
    return columns, rule


def _load_groups(part, options):
    """A run of row groups: read whole, else (anything unusual) as a data frame
    through the checks of the text path, rows named by their row in the file."""
    pq = parquet_module(part.path)
    columns, rule = _columns_and_rule(options)
    missing_ok = options.get("allow_missing", False)
    names = [c for c in pq.read_schema(part.path).names
             if str(c).strip() in (columns["dataset"], columns["algorithm"])]
    handle = pq.ParquetFile(part.path, read_dictionary=names)
    rows = sum(handle.metadata.row_group(g).num_rows for g in part.groups)
    raw = _columns_named_once(handle.schema_arrow.names, part.path)
    try:
        return (_parquet_columns([handle], raw, part.path, columns, rule, missing_ok,
                                 row_groups=part.groups), rows)
    except (_Fallback, LookupError, InputError, ValueError, TypeError, OSError):
        pass
    try:
        frame = handle.read_row_groups(part.groups).to_pandas()
    except (OSError, ValueError) as exc:   # as one process says it (_load_parquet_files)
        raise InputError(f"not a readable Parquet file ({abbreviate(exc)})",
                         source=part.path) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    return (_load(frame, part.path, part.first_row, columns, rule, fast=False,
                  missing_ok=missing_ok), len(frame))


def _load_range(part, options):
    """The data sets starting in a byte range of a CSV file: pyarrow's reader
    (:mod:`~multitest.inputs._arrow_tables`), else (anything unusual) the text reader,
    rows named by their line in the file."""
    columns, rule = _columns_and_rule(options)
    missing_ok = options.get("allow_missing", False)
    raw = _header(part.path)
    start, stop, lines = _owned(part, list(raw).index(columns["dataset"]))
    if start == stop:
        return None, 0
    with open(part.path, "rb") as handle:
        handle.seek(start)
        data = handle.read(stop - start)    # read once, by either reader
    try:
        return _arrow_range(data, part.path, raw, columns, rule, missing_ok), lines
    except (_Fallback, LookupError, InputError, ValueError, OSError):
        pass
    with open(part.path, "rb") as handle:
        row = _count_lines(handle, 0, start) + 1
    try:
        return _text_range(data, part.path, raw, row, columns, rule, missing_ok), lines
    except InputError:
        _raise_ragged(part.path)   # a row with a field missing: say so
        raise


def _arrow_range(data, path, raw, columns, rule, missing_ok):
    """:func:`_load_columns` of the bytes `data` of a range of `path` read by pyarrow
    (``_Fallback``: not installed, or a header the fast path does not take)."""
    pa = arrow()
    roles = _csv_roles(raw, columns)
    if pa is None or roles is None:
        raise _Fallback
    try:
        numbers, names = read_csv_range(data, raw.values(), roles, MAX_FOLD_NUMBER)
    except pa.ArrowInvalid:
        raise _Fallback from None
    return _load_columns(numbers, names, raw, path, 0, columns, rule, missing_ok)


def _text_range(data, path, raw, row, columns, rule, missing_ok):
    """:func:`_load` of the bytes `data` of a range of `path` as text, the first at line
    `row`."""
    import warnings

    import pandas as pd

    source = io.BytesIO(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(source, header=None, names=list(raw), dtype=str,
                                keep_default_na=False, skipinitialspace=True,
                                index_col=False, encoding="utf-8", encoding_errors="replace")
    except (pd.errors.ParserError, pd.errors.ParserWarning, pd.errors.EmptyDataError):
        _raise_ragged(path)
        raise InputError("not a readable CSV file", source=path, row=row) from None
    return _load(frame, path, row, columns, rule, fast=False, missing_ok=missing_ok)


def _owned(part, column):
    """``(start, stop, lines)``: the bytes of the rows of the data sets starting in the
    part's range (column `column` names the data set) and their number of lines."""
    start, stop = part.span
    size = os.path.getsize(part.path)
    with open(part.path, "rb") as handle:
        data = len(handle.readline())
        start = data if start <= data else _next_data_set(handle, start, data, column)
        stop = size if stop >= size else _next_data_set(handle, stop, data, column)
        stop = max(start, stop)
        lines = _count_lines(handle, start, stop)
        handle.seek(stop - 1)
        if stop > start and handle.read(1) != b"\n":
            lines += 1      # the last line of the file, without a line end
    return start, stop, lines


def _next_data_set(handle, at, data, column):
    """The first line end at or after byte `at` (a line start) where the data set of the
    line before it ends."""
    if at <= data:
        return data
    name = _data_set(_line_before(handle, at), column)
    handle.seek(at)
    while True:
        where = handle.tell()
        line = handle.readline()
        if not line or _data_set(line, column) != name:
            return where


def _line_before(handle, at):
    """The line ending just before byte `at` (a line start)."""
    back = 256
    while True:
        low = max(0, at - back)
        handle.seek(low)
        chunk = handle.read(at - low)
        cut = chunk.rfind(b"\n", 0, len(chunk) - 1)
        if cut >= 0 or low == 0:
            return chunk[cut + 1:]
        back *= 4


def _data_set(line, column):
    """The data set named by a CSV line (None: no such field)."""
    fields = next(csv.reader([line.decode("utf-8", "replace").rstrip("\r\n")],
                             skipinitialspace=True), [])
    return fields[column].strip() if column < len(fields) else None


def _count_lines(handle, start, stop):
    """The line ends in bytes ``[start, stop)`` of a file."""
    handle.seek(start)
    lines, left = 0, stop - start
    while left > 0:
        chunk = handle.read(min(left, 2 ** 24))
        lines, left = lines + chunk.count(b"\n"), left - len(chunk)
    return lines


def part_names(part, dataset="dataset"):
    """``(distinct data sets of `part` in order, rows read)``, read from the data set
    column alone (as :func:`load_part` reads the part), for the messages of a part
    :func:`load_part` refused: its names are still checked against the other parts'.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> _ = open(path, "w").write("dataset,error\\nd1,x\\nd2,y\\nd1,z\\n")
    >>> part_names(InputPart(path=path, span=(0, os.path.getsize(path))))
    (('d1', 'd2'), 3)
    """
    if part.path.lower().endswith(PARQUET_SUFFIXES):
        return _parquet_names(part, dataset)
    raw = _header(part.path)
    if raw is None or dataset not in raw:
        return (), None
    column = list(raw).index(dataset)
    whole = InputPart(path=part.path, span=(0, os.path.getsize(part.path)))
    start, stop, lines = _owned(part if part.span else whole, column)
    found = {}
    with open(part.path, "rb") as handle:
        handle.seek(start)
        while handle.tell() < stop:
            found.setdefault(_data_set(handle.readline(), column))
    found.pop(None, None)
    return tuple(found), lines if part.span else None


def _parquet_names(part, dataset):
    """:func:`part_names` of a Parquet part; ``((), None)`` when its data set column
    cannot be read (a corrupt file: the part's own error says so, naming the file)."""
    pq = parquet_module(part.path)
    try:
        handle = pq.ParquetFile(part.path)
        column = {str(c).strip(): c for c in handle.schema_arrow.names}.get(dataset)
        if column is None:
            return (), None
        groups = part.groups or range(handle.metadata.num_row_groups)
        names = handle.read_row_groups(groups, columns=[column]).column(0).to_pylist()
    except (OSError, ValueError):    # ArrowInvalid is a ValueError
        return (), None
    found = dict.fromkeys(str(n).strip() for n in names)
    return tuple(found), len(names) if part.groups else None


def part_labels(parts, lines):
    """The parts in words with the rows they hold (`lines`: rows read by each task, None
    for a whole file), for the client's messages."""
    labels, next_line = [], {}
    for part, n in zip(parts, lines):
        if part.groups:
            labels.append(f"{part.path}, rows {part.first_row}-{part.first_row + n - 1}")
        elif part.span:
            first = next_line.get(part.path, 2)
            next_line[part.path] = first + n
            labels.append(f"{part.path}, rows {first}-{first + n - 1}")
        else:
            labels.append(part.path)
    return labels
