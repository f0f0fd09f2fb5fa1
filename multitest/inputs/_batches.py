"""Columns of a long results table gathered from Arrow record batches, one batch at a time.

pyarrow's streaming CSV reader and a Parquet file's batches give the table in
pieces of about a megabyte.  Each piece is decoded straight into arrays
allocated once for the whole file (numbers as float64, names as integer codes):
a name column of a piece is a dictionary (its distinct names, a few, and one
small integer per row), and only those few names are looked up, so no string
is made per row and no table of the whole file is ever held, nor concatenated.
Peak memory is the decoded arrays plus one piece.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__: list[str] = []     # used by the readers of multitest.inputs only

#: Room kept beyond the estimated number of rows before the arrays grow.
_SPARE = 1.02


class BatchColumns:
    """The decoded columns of a table read piece by piece.

    ``numbers[column]`` is a float64 array (or int32 for integer columns);
    ``names[column]`` is ``(codes, distinct)``: int32 codes and the distinct
    names as written, in order of first appearance (as :func:`pandas.factorize`
    gives them).  Raised ``LookupError``: a null, a column of another type or
    an integer beyond ``integer_bound`` in magnitude (the caller then reads the
    file another way).
    """

    def __init__(self, number_columns, name_columns, integer_columns=(), integer_bound=2 ** 31 - 1):
        self._numeric = {c: np.int32 if c in integer_columns else np.float64
                         for c in number_columns}
        self._integer_bound = min(integer_bound, 2 ** 31 - 1)
        self._names = {c: {} for c in name_columns}
        self.numbers, self.names, self.rows = {}, {}, 0
        self._capacity = 0

    def reserve(self, rows):
        """Allocate (or grow to) room for ``rows`` rows."""
        if rows <= self._capacity:
            return
        for column, dtype in self._numeric.items():
            self.numbers[column] = _grown(self.numbers.get(column), rows, dtype)
        for column in self._names:
            self.names[column] = _grown(self.names.get(column), rows, np.int32)
        self._capacity = rows

    def add(self, batch):
        """Decode one record batch (columns by name) into the arrays."""
        n = batch.num_rows
        if self.rows + n > self._capacity:
            self.reserve(max(self.rows + n, int(self._capacity * 1.25)))
        rows = slice(self.rows, self.rows + n)
        for column, dtype in self._numeric.items():
            self.numbers[column][rows] = _numbers(batch.column(column), dtype,
                                                  self._integer_bound)
        for column, seen in self._names.items():
            _codes(batch.column(column), seen, self.names[column][rows])
        self.rows += n

    def finish(self):
        """Trim the arrays to the rows read; ``(numbers, names)``."""
        for arrays in (self.numbers, self.names):
            for column, array in arrays.items():
                array.resize(self.rows, refcheck=False)      # in place, no copy
        names = {c: (self.names[c], tuple(seen)) for c, seen in self._names.items()}
        return self.numbers, names


def gather_batches(batches, columns, estimate_rows, integer_bound=2 ** 31 - 1):
    """Decode ``batches`` into a :class:`BatchColumns` and finish it.

    ``columns``: ``{name: 'name' | 'integer' | 'number'}``; ``estimate_rows(first)``:
    the rows to reserve once the first batch is seen (a few percent too many
    rather than too few: the arrays then never grow).

    Examples
    --------
    >>> import pyarrow as pa
    >>> batch = pa.record_batch({"dataset": ["d1", "d1", "d2"], "fold": [1, 2, 1],
    ...                          "error": [0.1, 0.2, 0.3]})
    >>> numbers, names = gather_batches([batch, batch], {"dataset": "name",
    ...                                 "fold": "integer", "error": "number"}, lambda b: 6)
    >>> names["dataset"][0].tolist(), names["dataset"][1], numbers["fold"].tolist()
    ([0, 0, 1, 0, 0, 1], ('d1', 'd2'), [1, 2, 1, 1, 2, 1])
    """
    out = BatchColumns([c for c, t in columns.items() if t != "name"],
                       [c for c, t in columns.items() if t == "name"],
                       [c for c, t in columns.items() if t == "integer"], integer_bound)
    for batch in batches:
        if out.rows == 0:
            out.reserve(int(estimate_rows(batch) * _SPARE) + batch.num_rows)
        out.add(batch)
    return out.finish()


def _grown(array, rows, dtype):
    if array is None:
        return np.empty(rows, dtype=dtype)
    array.resize(rows, refcheck=False)
    return array


def _numbers(array, dtype, bound):
    """A numeric Arrow array as ``dtype`` (LookupError: a null, not numeric, a float
    for an integer column or an integer beyond ``bound``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = array.type
    if array.null_count:
        raise LookupError("null number")
    if pa.types.is_integer(kind):
        if dtype != np.float64 and len(array):
            low, high = pc.min_max(array).values()
            if low.as_py() < -bound or high.as_py() > bound:
                raise LookupError("integer out of range")
        return array.to_numpy(zero_copy_only=False)
    if pa.types.is_floating(kind) and dtype == np.float64:
        return array.to_numpy(zero_copy_only=False)
    raise LookupError(str(kind))


def _codes(array, seen, out):
    """Write into ``out`` the codes of the names of one piece in ``seen`` (``{name:
    code}``, extended in place).

    A dictionary-encoded piece gives its distinct names and their indices; a
    plain string piece is encoded first.  Names new to ``seen`` take the next
    codes in order of first appearance in the piece.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if array.null_count:
        raise LookupError("null name")
    if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
        array = pc.dictionary_encode(array)
    elif not (pa.types.is_dictionary(array.type) and
              pa.types.is_string(array.type.value_type)):
        raise LookupError(str(array.type))
    indices = array.indices.to_numpy(zero_copy_only=False)
    if indices.size == 0:
        return
    local = array.dictionary.to_pylist()
    # Distinct names in order of first appearance: a name first appears where a run
    # of equal indices starts (a few runs per data set in a file sorted as usual).
    starts = np.flatnonzero(np.concatenate(([True], indices[1:] != indices[:-1])))
    mapping = np.empty(len(local), dtype=np.int32)
    for index in pd.unique(indices[starts]):
        mapping[index] = seen.setdefault(local[index], len(seen))
    np.take(mapping, indices, out=out, mode="clip")   # "raise" would buffer
