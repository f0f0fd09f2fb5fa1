"""The cells of a results table checked and decoded: numbers, names, fold numbers.

Each check names the file, row and field of the first bad cell
(:class:`~multitest.InputError`); the fast paths (``fast=True``: columns already
typed by a reader) raise :class:`_Fallback` for the text path to find and name it.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .._errors import InputError, abbreviate
from .._format import restore_cell

__all__: list[str] = []     # used by the readers of multitest.inputs only

#: Largest magnitude of a value: squares of differences of larger ones overflow.
MAX_ABS_VALUE = 1e100
#: Largest magnitude of a replication or fold number.
MAX_FOLD_NUMBER = 10 ** 9


def _is_number_dtype(dtype):
    """Float or integer (not boolean): values the fast path takes as they are."""
    return (pd.api.types.is_float_dtype(dtype) or pd.api.types.is_integer_dtype(dtype)) \
        and not pd.api.types.is_bool_dtype(dtype)


class _Fallback(Exception):
    """The fast path met something it leaves to the text path (and its messages)."""


def _first_bad(mask, row_offset):
    """Row of the first offending entry: a file line (header = 1) or a frame position."""
    return int(np.flatnonzero(mask)[0]) + row_offset


def _numeric(frame, column, name, row_offset, fast):
    """``(values, first blank row)``: NaN for an empty or NaN value, whose first row is given."""
    raw = frame[column]
    if fast:
        if not _is_number_dtype(raw.dtype):
            raise _Fallback
        return _fast_values(raw.to_numpy(dtype=float)), None
    as_text = raw.astype(str).str.strip()
    missing = (as_text.isin(["", "nan", "NaN", "NA", "N/A", "null", "None"]).to_numpy()
               | raw.isna().to_numpy())
    first_blank = _first_bad(missing, row_offset) if missing.any() else None
    numbers = np.where(missing, np.nan, _to_floats(as_text))
    where = {"source": name, "row_offset": row_offset, "field": column}
    _refuse(~np.isfinite(numbers) & ~missing,
            lambda i: f"not a finite number: {abbreviate(repr(as_text.iloc[i]))}"
                      f"{_cell_hint(as_text.iloc[i])}", **where)
    _refuse(np.abs(numbers) > MAX_ABS_VALUE,
            lambda i: f"value {abbreviate(as_text.iloc[i])} is too large: the tests square "
                      f"differences of values, which overflows beyond {MAX_ABS_VALUE:g}", **where)
    return numbers, first_blank


#: A number followed by what published tables add to it.
_DECORATED = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*(?P<rest>.+)")


def _cell_hint(text):
    """What to do with a number as tables print it (``80%``, ``80.1 ± 1.2``, ``0.85*``)."""
    found = _DECORATED.fullmatch(text)
    rest = found["rest"].strip() if found else ""
    if rest == "%":
        return (" (a percentage sign: write the number alone; accuracies in percent are "
                "--kind accuracy-percent)")
    if rest.startswith(("±", "+-", "+/-", "(")):
        return (" (a mean and its deviation: write one number per cell, the mean; a file "
                "of the results of every fold is better)")
    if rest and set(rest) <= set("*†‡§¶^"):
        return " (a mark of the table, such as * or †: write the number alone)"
    return ""


def _refuse(bad, message, *, source, row_offset, field):
    """Raise the :class:`InputError` ``message(i)`` of the first bad row ``i``, if any."""
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(message(i), source=source, row=i + row_offset, field=field)


def _to_floats(text):
    """Text to float64, NaN where it is not a number (no overflow warning: 1e999 is inf)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return pd.to_numeric(text, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _within(numbers, bound):
    """Whether every number is finite and at most ``bound`` in magnitude (NaN: no)."""
    return numbers.size == 0 or bool(numbers.min() >= -bound and numbers.max() <= bound)


def _fast_values(numbers):
    """Values the fast paths accept as they are; anything else goes to the text path."""
    if not _within(numbers, MAX_ABS_VALUE):
        raise _Fallback
    return numbers


def _fast_integers(numbers):
    """Replication or fold numbers of the fast paths, as int64 (else the text path)."""
    if not _within(numbers, MAX_FOLD_NUMBER):
        raise _Fallback
    integers = numbers.astype(np.int64)
    if not np.array_equal(integers, numbers):
        raise _Fallback
    return integers


def _names(column, fast):
    """``(codes, names)`` of a name column: stripped names in order of first appearance.

    Factorizes the raw values first and strips only the distinct ones, so that
    a million rows cost one hash pass.  The fast path gives up (``_Fallback``)
    on a value that is not a string or is empty once stripped.
    """
    if fast:
        if not pd.api.types.is_string_dtype(column.dtype):   # object or str columns
            raise _Fallback
        codes, uniques = pd.factorize(column.to_numpy(dtype=object))
        if (len(uniques) and codes.min() < 0) or not all(isinstance(u, str) for u in uniques):
            raise _Fallback
    else:
        codes, uniques = pd.factorize(column.to_numpy(dtype=object), use_na_sentinel=False)
    return _strip_names(codes, uniques, check=fast)


def _strip_names(codes, uniques, check=True):
    """Codes of the stripped names (merging names equal once stripped) and the names.

    A name written with OWASP's leading ``'`` by a CSV output of multitest is
    read without it (:func:`multitest._format.restore_cell`).  With ``check``,
    a name empty once stripped makes the fast path give up.
    """
    stripped = [restore_cell(str(u).strip()) for u in uniques]
    if check and "" in stripped:
        raise _Fallback
    merged, names = pd.factorize(np.asarray(stripped, dtype=object))
    return merged[codes] if len(names) < len(stripped) else codes, tuple(names)


def _key_columns(frame, columns, name, row_offset, fast):
    keys = {}
    for role in ("dataset", "algorithm"):
        if not fast:
            text = frame[columns[role]].astype(str).str.strip()
            empty = (text == "").to_numpy() | frame[columns[role]].isna().to_numpy()
            if empty.any():
                raise InputError(f"empty {role} name", source=name, field=columns[role],
                                 row=_first_bad(empty, row_offset))
            keys[role] = _names(text, fast)
        else:
            keys[role] = _names(frame[columns[role]], fast)
    for role in ("replication", "fold"):
        column = columns[role]
        if column is None:
            keys[role] = None
            continue
        if fast:
            if not _is_number_dtype(frame[column].dtype):
                raise _Fallback
            keys[role] = _fast_integers(frame[column].to_numpy(dtype=float))
            continue
        text = frame[column].astype(str).str.strip()
        numbers = _to_floats(text)
        where = {"source": name, "row_offset": row_offset, "field": column}
        _refuse(~np.isfinite(numbers) | (numbers != np.round(numbers)),
                lambda i: f"{role} must be an integer, got {abbreviate(repr(text.iloc[i]))}",
                **where)
        _refuse(np.abs(numbers) > MAX_FOLD_NUMBER,
                lambda i: f"{role} {abbreviate(text.iloc[i])} is out of range (at most "
                          f"{MAX_FOLD_NUMBER:,} in magnitude)", **where)
        keys[role] = numbers.astype(np.int64)
    return keys
