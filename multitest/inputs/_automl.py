"""The result layout of the AutoML benchmark (``task, framework, fold, result, metric, ...``),
and the column naming the algorithms in TabRepo's and TabArena's (:func:`layout_algorithm`).

The benchmark's ``results.csv`` has one row per (task, framework, fold) with the score
in ``result`` (higher is better: losses are negated, as ``neg_logloss``), its name in
``metric``, the time of the fold in ``duration`` (seconds) and the error of a failed
fold in ``info``; a failed fold has an empty ``result``, read as a missing value.  Older
files name the task ``type`` instead (binary, multiclass or regression) and hold a
multiclass task's log-loss as it is (their ``logloss`` column equals ``result``): the
metric of each type is then read from the data and stated in a note
(:func:`automl_frame`).
:func:`multitest.load_results` and ``multitest rank FILE`` recognise the layout by its
header, with no option; ``--costs column:duration`` ranks by the durations.

Examples
--------
>>> import io
>>> from multitest.inputs import read_automl
>>> text = '''task,framework,fold,result,metric,duration,info
... iris,tpot,0,-0.12,neg_logloss,30.5,
... iris,tpot,1,,neg_logloss,,MemoryError
... '''
>>> read_automl(io.StringIO(text))[["dataset", "algorithm", "result", "metric"]]
  dataset algorithm result       metric
0    iris      tpot  -0.12  neg_logloss
1    iris      tpot               neg_logloss
"""

from __future__ import annotations

import csv
import os
import warnings

import numpy as np
import pandas as pd

from .._errors import InputError, abbreviate
from ._metrics import NEGATED_PREFIX, metric_direction, metric_key
from ._rows import _raise_ragged

__all__ = ["read_automl"]

#: Role of :func:`multitest.load_results` -> column of the AutoML benchmark layout.
AUTOML_COLUMNS = {"dataset": "task", "algorithm": "framework", "fold": "fold",
                  "value": "result", "metric": "metric"}

def automl_columns(columns):
    """The columns of the AutoML layout for the keywords `columns` of ``load_results``
    (``{role: column}``): :data:`AUTOML_COLUMNS`, a column named otherwise than by default
    (``--dataset-column id``) winning.

    Examples
    --------
    >>> automl_columns({"dataset": "id", "algorithm": "algorithm", "value": None})["dataset"]
    'id'
    """
    return {role: column if columns.get(role) in (None, role) else columns[role]
            for role, column in AUTOML_COLUMNS.items()}


#: The column naming the algorithms in TabRepo's and TabArena's result tables (``dataset,
#: fold, framework|method, metric_error, metric, time_train_s, ...``: errors already,
#: beside their metric), which have no ``algorithm`` column.
LAYOUT_ALGORITHMS = ("framework", "method")


def layout_algorithm(columns, algorithm="algorithm", metric="metric"):
    """``algorithm``, or the column naming the algorithms of a TabRepo or TabArena table
    (one of :data:`LAYOUT_ALGORITHMS`, beside ``metric_error`` and ``metric``) when
    ``algorithm`` is the default name and absent.

    Examples
    --------
    >>> layout_algorithm(["dataset", "fold", "framework", "metric_error", "metric"])
    'framework'
    >>> layout_algorithm(["dataset", "fold", "framework", "result", "metric"])
    'algorithm'
    """
    present = [str(c) for c in columns]
    if (algorithm != "algorithm" or algorithm in present or metric not in present
            or "metric_error" not in present):
        return algorithm
    found = [c for c in LAYOUT_ALGORITHMS if c in present]
    return found[0] if len(found) == 1 else algorithm


#: The metric of a task type, when a file has ``type`` but no ``metric`` (the benchmark's
#: defaults).  Older files hold a loss as it is in ``result`` (their column ``logloss``
#: equals it), newer ones negated (``neg_logloss``): which one is read from the data
#: (:func:`_loss_or_negation`).
TYPE_METRICS = {"binary": "auc", "multiclass": "logloss", "regression": "rmse"}


def _is_layout(columns):
    present = {str(c).strip() for c in columns}
    return "dataset" not in present and {"task", "framework", "fold", "result"} <= present \
        and bool({"metric", "type"} & present)


#: Characters of a file's first line read to recognise the layout.
_HEADER_LIMIT = 1 << 16


def is_automl_file(path):
    """Whether the CSV file `path` has the AutoML benchmark's header (False if unreadable)."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            header = handle.readline(_HEADER_LIMIT)
    except OSError:
        return False
    return _is_layout(next(csv.reader([header]), []))


def automl_frame(source, higher_is_better=(), lower_is_better=()):
    """``(frame, notes)``: the file as text (one row per line), with a ``metric`` column
    filled from ``type`` when it has none (stated in the notes; a loss, or its negation,
    as the data, or `lower_is_better` naming the loss or `higher_is_better` its
    negation, say)."""
    name = source if isinstance(source, str) else getattr(source, "name", "<AutoML results>")
    try:
        with warnings.catch_warnings():    # a row longer than the header: refused, not cut
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(source, dtype=str, keep_default_na=False,
                                skipinitialspace=True, index_col=False)
    except (pd.errors.ParserError, pd.errors.ParserWarning):
        if isinstance(source, (str, os.PathLike)):
            _raise_ragged(source)
        raise InputError("not a readable CSV file (a row has more fields than the header)",
                         source=name) from None
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"not a readable CSV file ({abbreviate(type(exc).__name__)})",
                         source=name) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    if not _is_layout(frame.columns):
        raise InputError("not the AutoML benchmark layout (needs task, framework, fold, result "
                         "and metric or type)", source=name, row=1)
    if "metric" not in frame.columns:
        kinds = frame["type"].str.strip().str.lower()
        unknown = ~kinds.isin(list(TYPE_METRICS))
        if unknown.any():
            i = int(unknown.to_numpy().nonzero()[0][0])
            raise InputError(f"task type {abbreviate(repr(frame['type'].iloc[i]))} is not one of "
                             f"{', '.join(TYPE_METRICS)}; add a metric column", source=name,
                             row=i + 2, field="type")
        metrics, notes = _metrics_of_types(frame, kinds, name, higher_is_better,
                                           lower_is_better)
        frame["metric"] = metrics
        return frame, notes
    return frame, ()


def _metrics_of_types(frame, kinds, name, higher_is_better, lower_is_better):
    """``(metric of each row, notes)`` of a file with a task ``type`` and no ``metric``."""
    metrics = kinds.map(TYPE_METRICS).to_numpy(dtype=object)
    said = []
    for kind in dict.fromkeys(kinds):
        rows = (kinds == kind).to_numpy()
        metric = TYPE_METRICS[kind]
        if metric_direction(metric).higher_is_better:
            said.append(f"{kind}: {metric}")
            continue
        metrics[rows], why = _loss_or_negation(frame, rows, kind, metric, name,
                                               higher_is_better, lower_is_better)
        said.append(f"{kind}: {metrics[rows][0]} ({why})")
    return metrics, ("no column 'metric': the metric of each task from its type, "
                     + "; ".join(said),)


def _loss_or_negation(frame, rows, kind, loss, name, higher_is_better, lower_is_better):
    """``(metric, why)``: whether the results of tasks of type `kind` hold `loss` or its
    negation, as the user says, or as a column named `loss` (older files) or the signs of
    the results say; InputError when they contradict one another or nothing decides."""
    negated = NEGATED_PREFIX + loss
    said = [m for m, names in ((loss, lower_is_better), (negated, higher_is_better))
            if metric_key(m) in {metric_key(n) for n in names}]
    if len(said) == 1:
        return said[0], f"said by --{'lower' if said[0] == loss else 'higher'}-is-better"
    result = _floats(frame["result"])
    where = {"source": name, "field": "result"}
    if loss in frame.columns:
        own = _floats(frame[loss])
        both = rows & np.isfinite(result) & np.isfinite(own)
        same, opposite = np.isclose(result, own), np.isclose(result, -own)
        neither = both & ~same & ~opposite
        if neither.any():
            i = int(np.flatnonzero(neither)[0])
            raise InputError(f"result {result[i]:g} of a {kind} task is neither column "
                             f"{loss} ({own[i]:g}) nor its negation: which the results hold is "
                             f"not said; add a column metric ({loss} or {negated})",
                             row=i + 2, **where)
        if both.any() and (same | ~both).all():
            return loss, f"as it is: result equals column {loss}"
        if both.any() and (opposite | ~both).all():
            return negated, f"negated: result equals minus column {loss}"
        if both.any():
            i, j = (int(np.flatnonzero(both & m & ~n)[0]) for m, n in ((same, opposite),
                                                                     (opposite, same)))
            raise InputError(f"the results of {kind} tasks equal column {loss} (row {i + 2}) "
                             f"and minus column {loss} (row {j + 2}): one sign per file; add "
                             f"a column metric ({loss} or {negated})", row=max(i, j) + 2,
                             **where)
    positive, negative = rows & (result > 0), rows & (result < 0)
    if positive.any() and negative.any():
        i, j = int(np.flatnonzero(positive)[0]), int(np.flatnonzero(negative)[0])
        raise InputError(f"the results of {kind} tasks are positive (row {i + 2}: "
                         f"{result[i]:g}) and negative (row {j + 2}: {result[j]:g}): neither "
                         f"{loss} (at least 0) nor {negated} (at most 0) throughout; add a "
                         "column metric naming each row's metric", row=max(i, j) + 2, **where)
    if positive.any():
        return loss, f"as it is: every result of a {kind} task is at least 0"
    if negative.any():
        return negated, f"negated: every result of a {kind} task is at most 0"
    raise InputError(f"no result of a {kind} task tells {loss} from its negation (each is 0 "
                     f"or missing): say --lower-is-better {loss} (the results hold {loss}) or "
                     f"--higher-is-better {negated} (they hold it negated)",
                     row=int(np.flatnonzero(rows)[0]) + 2, **where)


def _floats(column):
    """A text column as floats, NaN where not a number (the reader refuses those later)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return pd.to_numeric(column.str.strip(), errors="coerce").to_numpy(dtype=float,
                                                                           na_value=np.nan)


def read_automl(source):
    """Read an AutoML benchmark ``results.csv`` as a long table of multitest's layout.

    Parameters
    ----------
    source : str, os.PathLike or file-like
        The benchmark's results file.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset`` (the task), ``algorithm`` (the framework), ``fold``,
        ``result``, ``metric`` and every other column of the file, as text, one
        row per line of the file; an empty ``result`` is a failed fold.  A file
        without ``metric`` gets the metric of each task's ``type``, a loss or its
        negation as the data say (:func:`multitest.load_results` of the file
        states the rule in a note).
        :func:`multitest.rank` takes it with ``costs="column:duration"``.

    Raises
    ------
    InputError
        An unreadable file, a header without the layout's columns, or (without
        ``metric``) an unknown task type or results whose sign contradicts itself.

    Examples
    --------
    >>> import io
    >>> from multitest.inputs import read_automl
    >>> table = read_automl(io.StringIO(
    ...     "task,framework,fold,result,metric\\n"
    ...     "iris,RandomForest,0,0.95,acc\\n"
    ...     "iris,TunedRandomForest,0,0.96,acc\\n"))
    >>> list(table[["dataset", "algorithm", "fold", "result"]].iloc[0])
    ['iris', 'RandomForest', '0', '0.95']
    """
    source = os.fspath(source) if isinstance(source, os.PathLike) else source
    frame, _ = automl_frame(source)
    return frame.rename(columns={"task": "dataset", "framework": "algorithm"})
