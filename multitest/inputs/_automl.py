"""The result layout of the AutoML benchmark (``task, framework, fold, result, metric, ...``),
and the column naming the algorithms in TabRepo's and TabArena's (:func:`layout_algorithm`).

The benchmark's ``results.csv`` has one row per (task, framework, fold) with the score
in ``result`` (higher is better: losses are negated, as ``neg_logloss``), its name in
``metric`` (older files name the task ``type`` instead: binary, multiclass or
regression), the time of the fold in ``duration`` (seconds) and the error of a failed
fold in ``info``; a failed fold has an empty ``result``, read as a missing value.
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

import pandas as pd

from .._errors import InputError, abbreviate
from ._rows import _raise_ragged

__all__ = ["AUTOML_COLUMNS", "automl_columns", "is_automl_file", "read_automl",
           "layout_algorithm"]

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


#: The metric of a task type, when a file has ``type`` but no ``metric`` (the
#: benchmark's defaults, losses negated).
TYPE_METRICS = {"binary": "auc", "multiclass": "neg_logloss", "regression": "neg_rmse"}


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


def automl_frame(source):
    """The file as text (one row per line), with a ``metric`` column filled from ``type``."""
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
        frame["metric"] = kinds.map(TYPE_METRICS)
    return frame


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
        row per line of the file; an empty ``result`` is a failed fold.
        :func:`multitest.rank` takes it with ``costs="column:duration"``.

    Raises
    ------
    InputError
        An unreadable file, or a header without the layout's columns.
    """
    source = os.fspath(source) if isinstance(source, os.PathLike) else source
    frame = automl_frame(source)
    return frame.rename(columns={"task": "dataset", "framework": "algorithm"})
