"""Writing a DataFrame as CSV: the bytes of ``DataFrame.to_csv``, several times faster.

Every CSV output goes through :func:`neutralize_frame` first (:func:`write_csv` calls
it): a text cell, column name or index label that a spreadsheet would run as a formula
(``=``, ``+``, ``-``, ``@``, tab, carriage return first) gets OWASP's leading ``'``.
Numbers are never changed.  The readers of multitest remove the quote again
(:func:`multitest._format.restore_cell`); ``--raw-csv`` writes the text as it is.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pandas as pd

from .._format import neutralize_cell

__all__ = []

#: Rows turned into text at a time by :func:`write_csv` (bounds its memory).
_CSV_BATCH_ROWS = 65_536
#: Characters for which the csv module (and so pandas) quotes a field.
_CSV_SPECIAL = re.compile(r'[,"]')


def write_csv(frame, path, *, raw=False):
    """``frame.to_csv(path, index=False)``: the same bytes, several times faster for large tables.

    Text cells a spreadsheet would run are neutralised (:func:`neutralize_frame`)
    unless ``raw``.

    pandas turns every value to text one by one through :mod:`csv`; here
    each column becomes text at once (floats by their shortest ``repr``, as
    pandas writes them, NaN as an empty field and infinities as ``inf``,
    names quoted as :mod:`csv` quotes them) and the rows are joined in
    batches: 99,000 rows x 12 columns in about 0.3 s instead of 1-2 s.
    Tables of other types (dates, mixed objects, missing names) or of a single
    column go to pandas.  Small tables too are written here: pandas' ``to_csv``
    and the neutralising of every text cell cost about 2 ms a table (a run of 5
    data sets x 100 algorithms: 0.21 -> 0.16 s of CPU), and the 41 golden runs
    write the same bytes either way.
    """
    write_csv_parts([frame], path, raw=raw)


def write_csv_parts(frames, path, *, raw=False):
    """:func:`write_csv` of the rows of `frames` (DataFrames of the same columns, at least
    one) one after the other, each made and written in turn: a large table is never whole
    in memory, as a frame nor as text.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> write_csv_parts((pd.DataFrame({"a": [k], "b": [k / 4]}) for k in range(3)), path)
    >>> open(path).read().splitlines()
    ['a,b', '0,0.0', '1,0.25', '2,0.5']
    """
    with open(path, "w", encoding="utf-8", newline="") as handle:
        for k, frame in enumerate(frames):
            _write_frame(frame, handle, header=k == 0, raw=raw)


def _write_frame(frame, handle, header, raw):
    """The rows of `frame` (and its header) written to the open text file `handle`, its
    text neutralised unless `raw` (:func:`neutralize_frame`)."""
    series = [frame.iloc[:, k] for k in range(frame.shape[1])] if frame.shape[1] > 1 else []
    words = _fast_words(series, raw)
    labels = [c if raw or not isinstance(c, str) else neutralize_cell(c) for c in frame.columns]
    names = [str(c) for c in labels]
    if words is None or any("\r" in n or "\n" in n for n in names):
        (frame if raw else neutralize_frame(frame)).to_csv(handle, index=False, header=header)
        return
    if header:
        handle.write(",".join(_quoted(names)) + os.linesep)
    floats = [k for k, w in enumerate(words) if w is None]
    values = {k: series[k].to_numpy() for k in floats}
    for r0 in range(0, frame.shape[0], _CSV_BATCH_ROWS):
        rows = slice(r0, r0 + _CSV_BATCH_ROWS)
        texts = dict(zip(floats, _float_texts([values[k][rows] for k in floats])))
        columns = [texts[k] if w is None else w[rows] for k, w in enumerate(words)]
        lines = zip(*(c.tolist() for c in columns))
        handle.write(os.linesep.join(map(",".join, lines)) + os.linesep)


def _fast_words(series, raw):
    """The CSV fields of the columns that are not floats (None for the float ones; those
    are turned into text batch by batch), or None when a column is not of a type written
    here: names (text only, no line break: whether :mod:`csv` quotes a lone CR depends on
    the Python version), integers, booleans.

    Each distinct name is checked, neutralised (unless `raw`) and quoted once: a
    categorical column's are its categories; the other text columns are factorised
    together.
    """
    kinds = ["C" if isinstance(s.dtype, pd.CategoricalDtype) else s.to_numpy().dtype.kind
             for s in series]
    if not series or not all(kind in "fiubOC" for kind in kinds):
        return None
    words = [None] * len(series)
    groups = [([k], series[k].array.codes, series[k].array.categories.to_numpy(dtype=object))
              for k, kind in enumerate(kinds) if kind == "C"]
    text = [k for k, kind in enumerate(kinds) if kind == "O"]
    if text:
        try:
            codes, distinct = pd.factorize(np.concatenate([series[k].to_numpy() for k in text]))
        except TypeError:     # unhashable values: no text of ours
            return None
        groups.append((text, codes, distinct))
    for columns, codes, distinct in groups:
        if (codes < 0).any() or pd.api.types.infer_dtype(distinct, skipna=False) != "string" \
                or any("\r" in name or "\n" in name for name in distinct.tolist()):
            return None       # missing values (code -1), other objects, line breaks
        names = distinct.tolist() if raw else list(map(neutralize_cell, distinct.tolist()))
        fields = np.array(_quoted(names), dtype=object)
        sizes = np.cumsum([len(series[k]) for k in columns])[:-1]
        for k, c in zip(columns, np.split(codes, sizes)):
            words[k] = fields[c]
    for k, kind in enumerate(kinds):
        if kind in "iub":
            words[k] = _column_words(series[k].to_numpy())
    return words


def _column_words(values):
    """The CSV fields of a column of integers or booleans, as an object array."""
    if values.dtype.kind == "b":
        return np.array(["False", "True"], dtype=object)[values.view(np.uint8)]
    codes, distinct = pd.factorize(values)
    return np.array(list(map(str, distinct.tolist())), dtype=object)[codes]


def _float_texts(columns):
    """The CSV fields of float columns: NaN empty, infinities ``inf``, others their repr.

    Each distinct value is turned into text once when that halves the work
    (costs, positions and the means of rounded errors repeat across a table;
    test statistics and p-values repeat within a column; others do not).
    Distinct by bit pattern, so -0.0 keeps its sign.  Object arrays.
    """
    if not columns:
        return []
    text = _float_words(np.concatenate(columns), only_if_repeated=True)
    if text is None:
        return [_float_words(c) for c in columns]
    return np.split(text, np.cumsum([c.size for c in columns])[:-1])


def _float_words(values, only_if_repeated=False):
    """The fields of float values, each distinct one turned into text once if that pays.

    With ``only_if_repeated``, None unless at most half the finite values are distinct.
    """
    finite = np.isfinite(values)
    every = bool(finite.all())
    kept = values if every else values[finite]
    inverse, distinct = pd.factorize(kept.view(np.int64))   # by bit pattern, hashed
    if 2 * distinct.size <= inverse.size:
        words = np.array(list(map(float.__repr__, distinct.view(np.float64).tolist())),
                         dtype=object)[inverse]
    elif only_if_repeated:
        return None
    else:
        words = np.array(list(map(float.__repr__, kept.tolist())), dtype=object)
    if every:
        return words
    text = np.empty(values.shape, dtype=object)
    text[np.isnan(values)] = ""
    text[values == np.inf] = "inf"
    text[values == -np.inf] = "-inf"
    text[finite] = words
    return text


def _quoted(names):
    """Names as :mod:`csv` writes them (quoted, quotes doubled, when they hold ``,`` or ``"``)."""
    special = {n for n in set(names) if _CSV_SPECIAL.search(n)}
    if not special:
        return names
    return ['"' + n.replace('"', '""') + '"' if n in special else n for n in names]


def neutralize_frame(frame):
    """``frame`` with every text a spreadsheet would run as a formula neutralised.

    Text cells of object columns, column names and index labels that start
    with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return get OWASP's
    leading ``'`` (:func:`multitest._format.neutralize_cell`); numbers and
    other values are kept.  Each distinct text is looked at once.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when nothing needs a quote, else a copy.

    Examples
    --------
    >>> frame = pd.DataFrame({"algorithm": ["knn", "=cmd|' /C calc'!A0"], "error": [-0.5, 0.25]})
    >>> neutralize_frame(frame).to_csv(index=False).splitlines()
    ['algorithm,error', 'knn,-0.5', "'=cmd|' /C calc'!A0,0.25"]
    >>> plain = frame.iloc[:1]
    >>> neutralize_frame(plain) is plain
    True
    """
    columns = {c: _neutralized(frame[c]) for c in frame.columns if _is_text(frame[c].dtype)}
    columns = {c: v for c, v in columns.items() if v is not None}
    labels = _neutralized(frame.columns)
    index = _neutralized(frame.index) if _is_text(frame.index.dtype) else None
    if not columns and labels is None and index is None:
        return frame
    frame = frame.copy()
    for column, values in columns.items():
        frame[column] = values
    if labels is not None:
        frame.columns = pd.Index(labels, name=frame.columns.name)
    if index is not None:
        frame.index = pd.Index(index, name=frame.index.name)
    return frame


def _is_text(dtype):
    if isinstance(dtype, pd.CategoricalDtype):
        return _is_text(dtype.categories.dtype)
    return dtype == object or pd.api.types.is_string_dtype(dtype)


def _neutralized(values):
    """The values (a Series or an Index) with each text a spreadsheet would run quoted, as
    an object array, or None when none is.  Only the distinct values are looked at."""
    try:
        distinct = pd.unique(values)
    except TypeError:          # unhashable values: no text of ours
        return None
    changed = {v: neutralize_cell(v) for v in distinct if isinstance(v, str)}
    changed = {v: w for v, w in changed.items() if w != v}
    if not changed:
        return None
    return np.array([changed.get(v, v) if isinstance(v, str) else v
                     for v in values.to_numpy(dtype=object).tolist()], dtype=object)
