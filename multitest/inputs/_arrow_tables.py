"""The columns of a results table read whole by pyarrow, as the arrays of the fast paths.

pyarrow reads a CSV file on every CPU (names coded while parsing) or a Parquet file's
row groups; each column then becomes one numpy array: numbers as float64 (replication
and fold numbers as int32), names as int32 codes of the distinct names in order of first
appearance (as :func:`pandas.factorize` gives them), so that no Python string is made
per row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import InputError

__all__: list[str] = []     # used by the readers of multitest.inputs only


def arrow():
    """pyarrow (with its csv and compute modules), or None when not installed."""
    try:
        import pyarrow
        import pyarrow.compute  # noqa: F401
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return None
    return pyarrow


def parquet_module(source):
    """``pyarrow.parquet``, or the InputError saying how to install it."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        pq = None
    if pq is None or arrow() is None:
        raise InputError("reading Parquet needs pyarrow: pip install 'multitest-rank[parquet]'",
                         source=source)
    return pq


def csv_types(roles):
    """pyarrow's ``column_types`` of a CSV file's columns (``{column: 'name' | 'integer' |
    'number'}``): numbers as int32 or float64, names coded as they are parsed.

    Names are coded bytes, not strings: pyarrow then checks no row for UTF-8;
    :func:`table_columns` checks the distinct names, which every row equals byte
    for byte.
    """
    import pyarrow as pa

    name = pa.dictionary(pa.int32(), pa.binary())
    return {c: name if r == "name" else pa.int32() if r == "integer" else pa.float64()
            for c, r in roles.items()}


def read_csv_columns(path, roles, integer_bound):
    """:func:`table_columns` of the `roles` columns of a CSV file (a header on line 1)
    read by pyarrow; replication and fold numbers written as floats (``1.0``) are read
    as numbers.

    Raises
    ------
    pyarrow.ArrowInvalid, LookupError
        A row pyarrow cannot parse (ragged, a bad number) or a cell the fast
        paths leave to the text path (:func:`table_columns`).
    """
    import pyarrow as pa

    try:
        return table_columns(lambda: _csv_table(path, roles), roles, integer_bound)
    except pa.ArrowInvalid:
        if "integer" not in roles.values():
            raise
    as_numbers = {c: "number" if r == "integer" else r for c, r in roles.items()}
    return table_columns(lambda: _csv_table(path, as_numbers), as_numbers, integer_bound)


def _csv_table(source, roles, read_options=None):
    """The `roles` columns of CSV `source` (a path or a pyarrow buffer reader) as a table;
    every type given: inferring one keeps the text of the column."""
    import pyarrow.csv as pcsv

    types = csv_types(roles)
    convert = pcsv.ConvertOptions(include_columns=list(types), column_types=types,
                                  strings_can_be_null=False, quoted_strings_can_be_null=False)
    return pcsv.read_csv(source, read_options=read_options, convert_options=convert)


def read_csv_range(data, column_names, roles, integer_bound):
    """:func:`table_columns` of the bytes `data` of a range of a CSV file (whole lines, no
    header: its names are `column_names`), read as :func:`read_csv_columns` reads a file."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    read = pcsv.ReadOptions(column_names=list(column_names))
    return table_columns(lambda: _csv_table(pa.BufferReader(pa.py_buffer(data)), roles, read),
                         roles, integer_bound)


def table_columns(read, roles, integer_bound):
    """``(numbers, names)`` of the `roles` columns (``{column: 'name' | 'integer' |
    'number'}``) of the pyarrow table ``read()`` gives.

    ``numbers[column]``: float64, or int32 for an integer column; ``names[column]``:
    ``(int32 codes, distinct names as written)``, names in order of first appearance.
    Each column of the table is freed once converted, and its memory given back to
    the system (pyarrow keeps it for its next table, which numpy cannot use): the
    peak is the table and one column.

    Raises
    ------
    LookupError
        A null, a column of another type, or an integer beyond `integer_bound` in
        magnitude: the caller reads the table another way.
    pyarrow.ArrowInvalid
        A name that is not UTF-8.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"dataset": ["d2", "d2", "d1"], "fold": [1, 2, 1],
    ...                   "error": [0.1, 0.2, 0.3]})
    >>> numbers, names = table_columns(lambda: table, {"dataset": "name",
    ...                                "fold": "integer", "error": "number"}, 10)
    >>> names["dataset"][0].tolist(), names["dataset"][1], numbers["fold"].tolist()
    ([0, 0, 1], ('d2', 'd1'), [1, 2, 1])
    """
    import pyarrow as pa

    table = read().select(list(roles)).unify_dictionaries()
    left = dict(zip(table.column_names, table.columns))
    del table
    numbers, names = {}, {}
    try:
        for column, role in roles.items():
            chunks = left.pop(column)
            if chunks.null_count:
                raise LookupError(f"null in {column}")
            if role == "name":
                names[column] = _name_codes(chunks)
            else:
                numbers[column] = _numbers(chunks, role, integer_bound)
            del chunks
            pa.default_memory_pool().release_unused()
    finally:
        left.clear()
        pa.default_memory_pool().release_unused()
    return numbers, names


def _name_codes(chunks):
    """``(int32 codes, names)`` of a text or dictionary column, in order of first
    appearance (a dictionary's own order may be another: a pandas categorical's)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = chunks.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)):
        raise LookupError(str(chunks.type))
    if not pa.types.is_dictionary(chunks.type):
        chunks = pc.dictionary_encode(chunks)
    coded = chunks.combine_chunks() if chunks.num_chunks != 1 else chunks.chunk(0)
    indices = coded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    distinct = coded.dictionary.cast(pa.string()).to_pylist()
    order = pd.unique(indices)
    if np.array_equal(order, np.arange(order.size)):
        return indices, tuple(distinct[:order.size])
    mapping = np.zeros(len(distinct), dtype=np.int32)
    mapping[order] = np.arange(order.size, dtype=np.int32)
    return mapping[indices], tuple(distinct[i] for i in order.tolist())


def _numbers(chunks, role, bound):
    """A numeric column as float64 (role 'number') or int32 (role 'integer'); LookupError:
    not numeric, a float for an integer column or an integer beyond `bound`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = chunks.type
    if role == "integer":
        if not pa.types.is_integer(kind):
            raise LookupError(str(kind))
        if len(chunks):
            low, high = pc.min_max(chunks).values()
            if max(-low.as_py(), high.as_py()) > min(bound, 2 ** 31 - 1):
                raise LookupError("integer out of range")
        return chunks.to_numpy().astype(np.int32, copy=False)
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        raise LookupError(str(kind))
    return chunks.to_numpy().astype(np.float64, copy=False)
