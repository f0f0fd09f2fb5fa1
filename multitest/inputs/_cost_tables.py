"""Costs from anywhere: dicts, data frames, wide CSV tables and result columns.

Besides YAML profiles (:mod:`multitest.inputs._costs`), :func:`multitest.rank` and
``multitest rank --costs`` accept

* a dict ``{algorithm: cost}`` (one cost for every data set) or
  ``{data set: {algorithm: cost}}``;
* a :class:`pandas.Series` (index: algorithms) or a wide
  :class:`pandas.DataFrame` (rows: data sets, columns: algorithms; the data set
  names in the index or in a ``dataset`` column);
* a wide CSV table of data sets x algorithms (``*.csv``), like the bundled
  ``examples/ulas2008/training_time.csv``;
* ``column:NAME``: the mean over folds of column ``NAME`` of the results
  themselves (for instance ``fit_time`` in the ``results.csv`` written by
  ``multitest run``);
* an experiment folder written by ``multitest run``: ``multitest rank DIR
  --costs fit_time`` reads ``DIR/results.csv`` and ``DIR/costs/fit_time.yaml``.

Examples
--------
>>> from multitest.inputs import as_profile
>>> as_profile({"nb": 1, "tree": 3}).cost_matrix(["d1", "d2"], ["tree", "nb"])
array([[3., 1.],
       [3., 1.]])
"""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd

from .._errors import InputError, MultitestError
from ._automl import automl_columns, automl_frame, is_automl_file, layout_algorithm
from .._format import restore_cell
from ._costs import (MAX_COST, CostProfile, _number, _show, load_profile, profile_from_order,
                     too_large)
from ._encoding import not_utf8

__all__ = ["as_profile", "load_cost_table"]

#: ``--costs column:NAME`` takes the costs from column NAME of the results.
COLUMN_PREFIX = "column:"


def is_cost_table(costs):
    """Whether `costs` is one of the forms of this module (not a YAML profile or an order)."""
    if isinstance(costs, (dict, pd.Series, pd.DataFrame)):
        return True
    if isinstance(costs, (str, os.PathLike)):
        text = os.fspath(costs)
        return text.startswith(COLUMN_PREFIX) or text.lower().endswith(".csv")
    return False


def as_profile(costs, results=None, *, name=None, dataset="dataset", algorithm="algorithm"):
    """A :class:`~multitest.inputs.CostProfile` from any accepted form of costs.

    Parameters
    ----------
    costs : CostProfile, dict, pandas.Series, pandas.DataFrame, str or os.PathLike
        See the module documentation; other strings are YAML profiles or
        bundled names; a list or tuple is an order, cheapest first.
    results : str, os.PathLike or pandas.DataFrame, optional
        The long-format results; needed for ``column:NAME``.
    name : str, optional
        Name of the profile (default: from the source).
    dataset, algorithm : str
        The key columns of `results`, for ``column:NAME``
        (:func:`profile_from_column`).

    Raises
    ------
    MultitestError
        If the costs are malformed (the message names the file, row and field)
        or of an unsupported type.

    Examples
    --------
    >>> from multitest.inputs import as_profile
    >>> as_profile({"nb": 0.1, "svm": 2.5}).costs
    {'nb': 0.1, 'svm': 2.5}
    >>> as_profile(["nb", "svm"]).order
    ('nb', 'svm')
    """
    if isinstance(costs, CostProfile):
        return costs
    if isinstance(costs, dict):
        return profile_from_mapping(costs, name=name or "costs")
    if isinstance(costs, (pd.Series, pd.DataFrame)):
        return profile_from_frame(costs, name=name or "costs")
    if isinstance(costs, (list, tuple)):
        return profile_from_order(costs)
    if not isinstance(costs, (str, os.PathLike)):
        raise MultitestError("`costs` must be a CostProfile, a dict, a DataFrame, a path, "
                             f"'column:NAME' or an order, got {type(costs).__name__}")
    text = os.fspath(costs)
    if text.startswith(COLUMN_PREFIX):
        if results is None:
            raise MultitestError(f"`costs`: {text!r} needs the results as a CSV file or a "
                                 "DataFrame")
        return profile_from_column(results, text[len(COLUMN_PREFIX):], name=name,
                                   dataset=dataset, algorithm=algorithm)
    if text.lower().endswith(".csv"):
        return load_cost_table(text, name=name)
    return load_profile(text)


def _check_cost(value, source, row, field):
    return _number(value, "cost", source, row, field, positive=False)


def profile_from_mapping(mapping, name="costs"):
    """A profile from ``{algorithm: cost}`` or ``{data set: {algorithm: cost}}``.

    Examples
    --------
    >>> from multitest.inputs._cost_tables import profile_from_mapping
    >>> p = profile_from_mapping({"d1": {"a": 2, "b": 1}, "d2": {"a": 1, "b": 5}})
    >>> p.cost_matrix(["d2", "d1"], ["a", "b"])
    array([[1., 5.],
           [2., 1.]])
    """
    if not mapping:
        raise MultitestError("`costs`: the mapping is empty")
    source = f"cost profile '{name}'"
    nested = [isinstance(v, dict) for v in mapping.values()]
    if all(nested):
        table = {str(d): {str(a): _check_cost(v, source, None, f"{d}.{a}")
                          for a, v in row.items()} for d, row in mapping.items()}
        return CostProfile(name=name, description="per-data-set costs given as a mapping",
                           per_dataset=table)
    if any(nested):
        raise MultitestError("`costs`: a mapping must give either one cost per algorithm or "
                             "one {algorithm: cost} table per data set, not both")
    return CostProfile(name=name, description="one cost per algorithm, given as a mapping",
                       costs={str(a): _check_cost(v, source, None, str(a))
                              for a, v in mapping.items()})


def profile_from_frame(frame, name="costs", *, source="<DataFrame>", row_offset=1):
    """A profile from a Series (algorithm -> cost) or a wide DataFrame (data sets x algorithms).

    The data set names are the index, or a column named ``dataset``.  Rows are
    numbered from `row_offset` in messages (2 for a CSV file with a header).
    """
    if isinstance(frame, pd.Series):
        return profile_from_mapping(frame.to_dict(), name=name)
    if "dataset" in frame.columns:
        frame = frame.set_index("dataset")
    if frame.empty or frame.shape[1] < 1:
        raise InputError("the cost table has no data set rows or no algorithm columns",
                         source=source)
    names = [str(d).strip() for d in frame.index]
    duplicated = sorted({d for d in names if names.count(d) > 1})
    if duplicated:
        row = names.index(duplicated[0]) + row_offset + 1
        raise InputError(f"data set {duplicated[0]!r} is given twice", source=source, row=row,
                         field="dataset")
    table = {}
    for i, (dataset, values) in enumerate(zip(names, frame.itertuples(index=False))):
        row = {}
        for algorithm, value in zip(frame.columns, values):
            field = str(algorithm).strip()
            number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
            if pd.isna(number):
                raise InputError(f"cost must be a finite number, got {value!r}", source=source,
                                 row=i + row_offset, field=field)
            row[field] = _check_cost(float(number), source, i + row_offset, field)
        table[dataset] = row
    return CostProfile(name=name, description=f"per-data-set costs from {source}",
                       per_dataset=table, path=None if source.startswith("<") else source)


def load_cost_table(path, name=None):
    """Read a wide CSV cost table: a header of algorithms, one row per data set.

    The first column holds the data set names (whatever its header); rows are
    numbered as lines of the file, the header being line 1.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from multitest.inputs import load_cost_table
    >>> table = Path(tempfile.mkdtemp()) / "costs.csv"
    >>> _ = table.write_text("dataset,nb,svm\\niris,0.1,2.5\\nwine,0.2,3.0\\n", encoding="utf-8")
    >>> load_cost_table(table).per_dataset["wine"]
    {'nb': 0.2, 'svm': 3.0}
    """
    path = os.fspath(path)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except FileNotFoundError:
        raise InputError("no such file", source=path) from None
    except UnicodeDecodeError:
        raise (not_utf8(path, "cost table") or InputError(
            "not a readable CSV cost table (not UTF-8 text)", source=path)) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"not a readable CSV cost table ({type(exc).__name__})",
                         source=path) from None
    if frame.shape[1] < 2:
        raise InputError("a cost table needs a data set column and at least one algorithm "
                         "column", source=path, row=1)
    frame = frame.set_index(frame.columns[0])
    # Names a spreadsheet would run as formulas may carry OWASP's leading quote.
    frame.index = frame.index.map(restore_cell)
    frame.columns = frame.columns.map(restore_cell)
    stem = os.path.splitext(os.path.basename(path))[0]
    return profile_from_frame(frame, name=name or stem, source=path, row_offset=2)


def profile_from_column(results, column, name=None, *, dataset="dataset",
                        algorithm="algorithm"):
    """Costs from a column of long-format results: its mean over the folds.

    Parameters
    ----------
    results : str, os.PathLike or pandas.DataFrame
        Long-format results with `dataset` and `algorithm` columns.
    column : str
        The column holding a cost per fold (e.g. ``fit_time``).
    dataset, algorithm : str
        The key columns, as :func:`multitest.load_results` takes them (without
        a column ``algorithm``, the column
        :func:`multitest.inputs._automl.layout_algorithm` finds).

    Notes
    -----
    The profile's noise (:attr:`CostProfile.noise`) is the mean of column
    ``NAME_std`` when the results have one (the ``std_fit_time`` of a
    scikit-learn search, see :func:`multitest.from_cv_results`), else the
    standard deviation of the column over the folds (``ddof=0``, as
    scikit-learn's ``std_fit_time``).  An AutoML benchmark file is read by
    :func:`multitest.inputs.read_automl` (``column:duration``); a failed fold
    without a cost is left out of the mean.  An algorithm none of whose folds on a
    data set has a cost has a NaN cost there: :func:`multitest.rank` gives it the
    cost of its missing-result policy (:func:`multitest.inputs.missing_costs`), or
    refuses it when the algorithm has results there.

    Examples
    --------
    >>> import pandas as pd
    >>> from multitest.inputs._cost_tables import profile_from_column
    >>> frame = pd.DataFrame({"dataset": "d", "algorithm": ["a", "a", "b", "b"],
    ...                       "fold": [1, 2, 1, 2], "fit_time": [1.0, 3.0, 5.0, 5.0]})
    >>> profile = profile_from_column(frame, "fit_time")
    >>> profile.per_dataset, profile.noise
    ({'d': {'a': 2.0, 'b': 5.0}}, {'d': {'a': 1.0, 'b': 0.0}})
    """
    if isinstance(results, pd.DataFrame):
        frame, source, offset = results.reset_index(drop=True), "<DataFrame>", 0
    else:
        source = os.fspath(results)
        automl = is_automl_file(source)
        try:
            frame = (automl_frame(source)[0] if automl else
                     pd.read_csv(source, skipinitialspace=True))
        except FileNotFoundError:
            raise InputError("no such file", source=source) from None
        offset = 2
        if automl:    # its key columns, as load_results reads them
            keys = automl_columns({"dataset": dataset, "algorithm": algorithm})
            dataset, algorithm = keys["dataset"], keys["algorithm"]
    keys = (dataset, layout_algorithm(frame.columns, algorithm))
    missing = [c for c in (*keys, column) if c not in frame.columns]
    if missing:
        raise InputError(f"no column {missing[0]!r} for the costs; columns are "
                         f"{', '.join(map(str, frame.columns))}", source=source,
                         row=1 if offset else None, field=missing[0])
    values = _cost_column(frame, column, source, offset)
    groups = [frame[c].astype(str).str.strip().map(restore_cell) for c in keys]
    # No cost on any fold (a framework that failed every fold of a task): NaN, the
    # missing-result policy's to give (inputs.missing_costs).
    means = values.groupby(groups, sort=False).mean()
    spread_column = column + _STD_SUFFIX
    if spread_column in frame.columns:
        spread = _cost_column(frame, spread_column, source, offset).groupby(groups,
                                                                           sort=False).mean()
        how = f"the mean of column '{spread_column}'"
    else:
        spread = values.groupby(groups, sort=False).std(ddof=0)
        how = "its standard deviation over the folds"
    table, noise = {}, {}
    for (d, a), value in means.items():
        table.setdefault(d, {})[a] = float(value)
        noise.setdefault(d, {})[a] = float(np.nan_to_num(spread[d, a]))
    return CostProfile(name=name or column, description=f"mean of column '{column}' over the "
                       f"folds of {source}; noise: {how}", unit=column, per_dataset=table,
                       noise=noise)


#: Column ``NAME_std`` beside a cost column ``NAME``: the noise of its values.
_STD_SUFFIX = "_std"


def _cost_column(frame, column, source, offset):
    """The numbers of a cost column: finite and >= 0; empty (a failed fold) is left out."""
    text = frame[column].astype(str).str.strip()
    values = pd.to_numeric(frame[column], errors="coerce")
    # pandas 3 keeps a NaN of a number column NaN through astype(str): empty as well
    empty = frame[column].isna() | text.isin(["", "nan", "NaN"])
    bad = (values.isna() & ~empty) | values.abs().eq(float("inf")) | values.lt(0)
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        shown = _show(frame[column].iloc[i])
        raise InputError(f"cost must be a finite number >= 0, got {shown}",
                         source=source, row=i + offset, field=column)
    if (huge := values.gt(MAX_COST)).any():
        i = int(huge.to_numpy().nonzero()[0][0])
        raise InputError(too_large("cost", _show(frame[column].iloc[i])), source=source,
                         row=i + offset, field=column)
    return values


def experiment_folder(path, costs=None):
    """Inputs of ``multitest rank DIR`` on a folder written by ``multitest run``.

    Returns ``(results_csv, costs, notes)``: the results file, the cost
    profile with a bare name (``fit_time``) resolved to ``DIR/costs/NAME.yaml``
    when that file exists, and the notes of the run (the data sets with failed
    folds, which are empty errors of the results: ``--missing`` decides).

    Raises
    ------
    InputError
        If the folder holds no results (no finished run).
    """
    results = os.path.join(path, "results.csv")
    provenance = os.path.join(path, "provenance.json")
    if not os.path.isfile(results):
        raise InputError("not an experiment folder with results (no results.csv): run "
                         "`multitest run EXPERIMENT.yaml --out DIR` first", source=path)
    notes = []
    if os.path.isfile(provenance):
        try:
            with open(provenance, encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError, RecursionError) as exc:   # ValueError: not JSON, UTF-8
            raise InputError(f"unreadable provenance of a multitest run ({type(exc).__name__}); "
                             "move it away to rank the results without its notes",
                             source=provenance) from None
        found = record.get("notes") if isinstance(record, dict) else None
        notes = [n for n in found if isinstance(n, str)] if isinstance(found, list) else []
    return results, experiment_costs(path, costs), notes


def experiment_costs(path, costs):
    """A bare profile name (``fit_time``) of the experiment folder `path` as the path of
    ``DIR/costs/NAME.yaml`` when that file exists; anything else unchanged.

    The same resolution for ``--costs`` of ``multitest rank`` and each of
    ``--profiles`` of ``multitest stability``.
    """
    if isinstance(costs, str) and os.sep not in costs and not costs.startswith(COLUMN_PREFIX):
        candidate = os.path.join(path, "costs", costs if costs.endswith(".yaml")
                                 else costs + ".yaml")
        if os.path.isfile(candidate):
            return candidate
    return costs
