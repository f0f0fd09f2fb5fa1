"""Which column of a results table holds what: the key and value columns found in a
header (with hints when one is missing), the columns the fast paths parse, and a wide
table (a column per algorithm) read as the long one of a score matrix.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import InputError, MultitestError, abbreviate
from ._automl import layout_algorithm
from ._cells import _numeric, _refuse
from ._design import RATIO_COLUMN

__all__: list[str] = []     # used by the readers of multitest.inputs only

#: Names of value columns holding errors (``metric_error``: TabArena's and TabRepo's).
_ERROR_NAMES = ("error", "err", "loss", "error_rate", "metric_error")
_ACCURACY_NAMES = ("accuracy", "acc", "score")
#: Value columns beside a ``metric`` column, in order of preference.
_METRIC_VALUE_NAMES = ("result", "value", "score")


def _one_role_per_column(columns):
    """Refuse a column named for two roles (``value='fold'``: the fold numbers as errors)."""
    roles = {}
    for role, column in columns.items():
        if column is not None and roles.setdefault(column, role) != role:
            raise MultitestError(f"`{role}`: column {abbreviate(column)!r} is already the "
                                 f"{roles[column]} column; name another column")


def _resolve_columns(present, name, columns):
    """``{role: column}`` of the input `name` (its columns `present`) from the columns asked
    for (``{role: column or None}``: dataset, algorithm, replication, fold, value, metric):
    a missing one is refused, an optional one absent is None, the value column found."""
    dataset, replication, fold, value, metric = (
        columns[role] for role in ("dataset", "replication", "fold", "value", "metric"))
    algorithm = layout_algorithm(present, columns["algorithm"], metric)
    # A replication or fold column is optional under its own name only: one named otherwise
    # was asked for (--fold-column split).
    asked = [(f, c) for f, c in (("replication", replication), ("fold", fold))
             if c not in (None, f)]
    for field, column in [("dataset", dataset), ("algorithm", algorithm), *asked]:
        if column not in present:
            raise InputError(f"missing column '{abbreviate(column)}' (the {field}); columns are "
                             f"{abbreviate(', '.join(present), 200)}{_separator_hint(present)}"
                             f"{_spelling_hint(present, column)}", source=name, field=column)
    replication = replication if replication in present else None
    fold = fold if fold in present else None
    if replication is not None and fold is None:
        raise InputError(f"column '{replication}' (replication) needs a fold column too",
                         source=name, field=replication)
    metric = metric if metric in present else None
    if value is None and metric is not None:
        value = next((c for c in present if c.lower() in _METRIC_VALUE_NAMES), None)
    if value is None:
        candidates = [c for c in present if c.lower() in _ERROR_NAMES + _ACCURACY_NAMES]
        if len(candidates) != 1:
            found = f"found {', '.join(candidates)}" if candidates else "found none"
            raise InputError("cannot tell which column holds the values (expected exactly one of "
                             f"{', '.join(_ERROR_NAMES + _ACCURACY_NAMES)}; {found}); "
                             "name it with `value`/--value", source=name)
        value = candidates[0]
    elif value not in present:
        raise InputError(f"missing value column '{abbreviate(value)}'; columns are "
                         f"{abbreviate(', '.join(present), 200)}",
                         source=name, field=value)
    return {"dataset": dataset, "algorithm": algorithm, "replication": replication,
            "fold": fold, "value": value, "metric": metric}


def _wide_columns(present, columns):
    """The algorithm columns of a wide table (a row per data set, a column per algorithm,
    as published tables are), else None: no algorithm column, a data set column, and no
    other column a long table would have (fold, replication, metric, a value name)."""
    if columns["algorithm"] in present or columns["dataset"] not in present:
        return None
    long_names = {columns["replication"], columns["fold"], columns["metric"], columns["value"],
                  RATIO_COLUMN}
    others = [c for c in present if c != columns["dataset"]]
    if len(others) < 2 or any(c in long_names or str(c).lower() in _ERROR_NAMES
                              + _ACCURACY_NAMES for c in others):
        return None
    return others


#: Names of the rows a published table adds below its data sets (compared in lower case,
#: without a final '.' or ':'); a wide table with one is refused (:func:`_melted`).
SUMMARY_ROWS = frozenset({
    "average", "avg", "mean", "median", "std", "sd", "stdev", "std. dev", "total", "sum",
    "rank", "ranks", "average rank", "avg rank", "avg. rank", "mean rank", "average ranking",
    "w/t/l", "win/tie/loss", "wins", "losses", "ties", "count", "best", "worst",
})


def _melted(frame, name, row_offset, columns, rule, algorithms, missing_ok):
    """A wide table as the long one of a score matrix (``dataset, algorithm, value``),
    every cell checked first so that a message names the row and column of the file."""
    shown = ", ".join(map(str, algorithms[:4])) + (", ..." if len(algorithms) > 4 else "")
    if rule.kind == "auto":
        raise InputError(f"no column '{columns['algorithm']}': a table with a column per "
                         f"algorithm ({abbreviate(shown)})? To read it as one value per data set "
                         "and algorithm, say what the values are: --kind error, accuracy or "
                         "accuracy-percent (load_results(..., kind=...) in Python)", source=name,
                         field=columns["algorithm"])
    text = frame[columns["dataset"]].astype(str).str.strip()
    summary = text.str.lower().str.strip(".: ").isin(SUMMARY_ROWS).to_numpy() \
        | text.str.startswith(("*", "†", "‡")).to_numpy()
    _refuse(summary, lambda i: f"{abbreviate(repr(text.iloc[i]))} looks like a summary or "
                               "a note of a published table, not a data set (its cells would "
                               "be ranked as one); remove the row, or rename the data set",
            source=name, row_offset=row_offset, field=columns["dataset"])
    values = []
    for column in algorithms:
        numbers, first_blank = _numeric(frame, column, name, row_offset, fast=False)
        if first_blank is not None and not missing_ok:
            raise InputError("missing value (NaN or empty); to rank anyway: --missing "
                             "drop|worst|baseline:NAME|partial", source=name,
                             row=first_blank, field=column)
        values.append(numbers)
    empty = (text == "").to_numpy() | frame[columns["dataset"]].isna().to_numpy()
    _refuse(empty, lambda i: "empty dataset name", source=name, row_offset=row_offset,
            field=columns["dataset"])

    def second_row(i):
        first = int(np.flatnonzero((text == text.iloc[i]).to_numpy())[0]) + row_offset
        return f"data set {abbreviate(text.iloc[i])} has a second row (also at row {first})"
    _refuse(text.duplicated().to_numpy(), second_row, source=name, row_offset=row_offset,
            field=columns["dataset"])
    S, L = len(text), len(algorithms)
    return pd.DataFrame({"dataset": np.repeat(text.to_numpy(dtype=object), L),
                         "algorithm": np.tile(np.array([str(a).strip() for a in algorithms],
                                                       dtype=object), S),
                         "value": np.column_stack(values).ravel() if S else np.empty(0)})


def _spelling_hint(present, column):
    """A hint when a column differs from the one looked for only in case, spaces, '_' or
    '-' (``Dataset``, ``data set``): key columns are matched exactly."""
    def key(name):
        return "".join(ch for ch in str(name).lower() if ch not in " _-")
    close = [c for c in present if key(c) == key(column)]
    return f" ('{abbreviate(close[0])}' is spelt otherwise: rename it '{column}')" if close else ""


def _separator_hint(present):
    """A hint when a one-column header holds another separator (a spreadsheet's export
    with ';' or tabs): multitest reads comma-separated files."""
    found = [s for s in (";", "\t", "|") if len(present) == 1 and s in present[0]]
    if not found:
        return ""
    shown = "tabs" if found[0] == "\t" else f"'{found[0]}'"
    return f" (one column: the file seems separated by {shown}; write it with commas)"


def _wanted(raw, columns):
    """``{stripped column: 'name' or 'number'}`` the fast paths parse, or None."""
    if columns["metric"] in raw:
        return None   # a metric per row: the text path
    wanted = {columns["dataset"]: "name", columns["algorithm"]: "name"}
    for role in ("replication", "fold"):
        if columns[role] in raw:
            wanted[columns[role]] = "number"
    value = columns["value"]
    if value is None:
        found = [c for c in raw if c.lower() in _ERROR_NAMES + _ACCURACY_NAMES]
        value = found[0] if len(found) == 1 else None
    if value is None or any(c not in raw for c in list(wanted) + [value]):
        return None
    wanted[value] = "number"
    if RATIO_COLUMN in raw and RATIO_COLUMN not in wanted:
        wanted[RATIO_COLUMN] = "number"
    return wanted


def _csv_roles(raw, columns):
    """``{raw column: 'name' | 'integer' | 'number'}`` the fast paths parse of a CSV file
    (replication and fold numbers as integers), or None (:func:`_wanted`)."""
    wanted = _wanted(raw, columns)
    if wanted is None:
        return None
    integers = (columns["replication"], columns["fold"])
    return {raw[c]: t if t == "name" else "integer" if c in integers else "number"
            for c, t in wanted.items()}
