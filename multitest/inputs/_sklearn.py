"""Long tables from scikit-learn's own results: ``cv_results_`` and ``cross_validate``.

Both readers take the objects or dicts scikit-learn gives (scikit-learn itself is
never imported) and return a long :class:`pandas.DataFrame` of multitest's layout:
``dataset, algorithm, fold, score, metric`` and the costs ``fit_time`` and
``score_time`` (with ``fit_time_std`` and ``score_time_std`` from a search), so that

>>> ranking = rank(from_cv_results(search), "column:fit_time")   # doctest: +SKIP

ranks the candidates of a search by error and fitting time, the times within their
noise (``std_fit_time``) being ties.  A scikit-learn score is higher-is-better:
the ``metric`` column names it (the ``scoring`` of the search, ``accuracy``...),
and :func:`multitest.inputs.metric_errors` turns it into an error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._errors import MultitestError, abbreviate

__all__ = ["from_cv_results", "from_cross_validate"]

#: The metric of the single-metric key ``split0_test_score`` / ``test_score`` when
#: the scoring is not named: scikit-learn's scores are higher-is-better.
DEFAULT_METRIC = "score"

_SPLIT = re.compile(r"split(\d+)_test_(.+)")


def _cv_results(search):
    """The ``cv_results_`` dict of a fitted search, or the dict itself."""
    if isinstance(search, Mapping):
        return search
    try:
        return search.cv_results_
    except AttributeError:
        raise MultitestError(f"expected a fitted search (with cv_results_) or its cv_results_ "
                             f"dict, got {type(search).__name__}") from None


def _scoring_name(search, key):
    """The metric's name: the scorer's key, or the search's ``scoring`` when a text."""
    if key != DEFAULT_METRIC or isinstance(search, Mapping):
        return key
    scoring = getattr(search, "scoring", None)
    return scoring if isinstance(scoring, str) else key


def _candidate_name(params):
    text = ", ".join(f"{k}={v}" for k, v in params.items())
    return text or "default"


def _metric_key(names, metric, where):
    """The key of the scores to read (``metric`` names the only unnamed ``score`` too)."""
    if metric is not None and set(names) == {DEFAULT_METRIC}:
        return DEFAULT_METRIC
    if metric is not None:
        if metric not in names:
            raise MultitestError(f"`metric`: {where} has no scores of {metric!r}; it has "
                                 f"{', '.join(sorted(names))}")
        return metric
    if len(names) != 1:
        raise MultitestError(f"{where} holds several metrics ({', '.join(sorted(names))}); "
                             "name one with `metric`")
    return next(iter(names))


def _one_search(search, dataset, metric):
    results = _cv_results(search)
    splits = {}
    for key in results:
        match = _SPLIT.fullmatch(str(key))
        if match:
            splits.setdefault(match.group(2), []).append(int(match.group(1)))
    if "params" not in results or not splits:
        raise MultitestError("cv_results_ needs 'params' and split<i>_test_<score> keys "
                             "(a search fitted with scikit-learn)")
    key = _metric_key(splits, metric, "cv_results_")
    folds = sorted(splits[key])
    names = [_candidate_name(p) for p in results["params"]]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise MultitestError(f"two candidates are both named {abbreviate(duplicated[0])!r}")
    C, F = len(names), len(folds)
    frame = pd.DataFrame({
        "dataset": dataset, "algorithm": np.repeat(names, F), "fold": np.tile(folds, C) + 1,
        "score": np.column_stack([np.asarray(results[f"split{i}_test_{key}"], dtype=float)
                                  for i in folds]).ravel(),
        "metric": metric or _scoring_name(search, key)})
    for cost in ("fit_time", "score_time"):
        for stat, column in (("mean", cost), ("std", cost + "_std")):
            if f"{stat}_{cost}" in results:
                frame[column] = np.repeat(np.asarray(results[f"{stat}_{cost}"], dtype=float), F)
    return frame


def _named(items, datasets, what):
    """``[(data set name, item)]`` of one item, a list of items or a dict of them."""
    if isinstance(items, (list, tuple)):
        if datasets is None:
            datasets = [f"dataset {i + 1}" for i in range(len(items))]
        datasets = list(datasets)
        if len(datasets) != len(items) or len(set(datasets)) != len(datasets):
            raise MultitestError(f"`datasets`: {len(items)} {what} need as many distinct names, "
                                 f"got {datasets!r}")
        return list(zip(datasets, items))
    return list(items.items())


def from_cv_results(search, datasets=None, *, metric=None):
    """The long table of a scikit-learn search: one data set, or several.

    Parameters
    ----------
    search : search object, dict, list of them, or dict of data set to them
        A fitted ``GridSearchCV`` / ``RandomizedSearchCV`` (anything with
        ``cv_results_``) or its ``cv_results_`` dict: one data set.  A list
        (names from `datasets`, else ``dataset 1``...) or a dict ``{data
        set: search}``: several data sets, with the same candidates.
    datasets : str or list of str, optional
        The data set name of one search (default ``'dataset'``), or the names
        of a list of searches.
    metric : str, optional
        The scorer to read from a search with several (``scoring`` a dict),
        or the name of its only score (default: the search's ``scoring``
        when it is a name, else ``'score'``, taken as higher-is-better).

    Returns
    -------
    pandas.DataFrame
        ``dataset, algorithm, fold, score, metric, fit_time, fit_time_std,
        score_time, score_time_std``: one row per candidate and split; the
        candidate's name is its parameters (``max_depth=3``), the folds are
        the splits (1-based), the times their mean and standard deviation over
        the splits (scikit-learn's ``mean_fit_time`` and ``std_fit_time``).

    Raises
    ------
    MultitestError
        Not a search or its results, several metrics and none named, two
        candidates with the same parameters, or names not matching the searches.

    Examples
    --------
    >>> from multitest import from_cv_results, rank
    >>> cv_results = {"params": [{"C": 1}, {"C": 10}],
    ...               "split0_test_score": [0.90, 0.80], "split1_test_score": [0.92, 0.82],
    ...               "mean_fit_time": [0.1, 0.3], "std_fit_time": [0.01, 0.02]}
    >>> from_cv_results(cv_results, "iris")[["algorithm", "fold", "score", "fit_time_std"]]
      algorithm  fold  score  fit_time_std
    0       C=1     1   0.90          0.01
    1       C=1     2   0.92          0.01
    2      C=10     1   0.80          0.02
    3      C=10     2   0.82          0.02
    """
    if isinstance(search, (list, tuple)) or (isinstance(search, Mapping)
                                             and "params" not in search):
        if isinstance(datasets, str):
            raise MultitestError("`datasets`: several searches need a list of names")
        return pd.concat([_one_search(s, str(name), metric)
                          for name, s in _named(search, datasets, "searches")],
                         ignore_index=True)
    return _one_search(search, "dataset" if datasets is None else str(datasets), metric)


def _one_cross_validate(results, dataset, metric):
    frames = []
    for algorithm, scores in results.items():
        if not isinstance(scores, Mapping):
            raise MultitestError(f"`results`: {abbreviate(algorithm)!r} must map to the dict "
                                 f"cross_validate returns, got {type(scores).__name__}")
        tests = {k[len("test_"):] for k in scores if str(k).startswith("test_")}
        if not tests:
            raise MultitestError(f"the results of {abbreviate(algorithm)!r} have no test_<score> "
                                 "key (the dict of sklearn.model_selection.cross_validate)")
        key = _metric_key(tests, metric, f"the results of {abbreviate(algorithm)!r}")
        score = np.asarray(scores[f"test_{key}"], dtype=float)
        frame = pd.DataFrame({"dataset": dataset, "algorithm": str(algorithm),
                              "fold": np.arange(1, len(score) + 1), "score": score,
                              "metric": metric or key})
        for cost in ("fit_time", "score_time"):
            if cost in scores:
                frame[cost] = np.asarray(scores[cost], dtype=float)
        frames.append(frame)
    if len(frames) < 2:
        raise MultitestError(f"`results`: at least 2 algorithms are needed, got {len(frames)}")
    return pd.concat(frames, ignore_index=True)


def from_cross_validate(results, dataset="dataset", *, metric=None):
    """The long table of ``cross_validate`` results: one data set, or several.

    Parameters
    ----------
    results : dict
        ``{algorithm: cross_validate(...)}`` for one data set, or ``{data set:
        {algorithm: cross_validate(...)}}`` for several.  Give every
        algorithm the same folds (the same ``cv`` splitter or integer).
    dataset : str
        The name of a single data set.
    metric : str, optional
        The scorer to read when ``scoring`` named several (``test_<metric>``),
        or the name of the only score ``test_score`` (e.g. ``'accuracy'``;
        default ``'score'``, taken as higher-is-better: error = -score).

    Returns
    -------
    pandas.DataFrame
        ``dataset, algorithm, fold, score, metric, fit_time, score_time``:
        one row per algorithm and fold; rank it by the fitting time with
        ``costs="column:fit_time"`` (noise: the standard deviation over folds).

    Examples
    --------
    >>> from multitest import from_cross_validate
    >>> out = {"nb": {"test_score": [0.9, 0.8], "fit_time": [0.01, 0.01]},
    ...        "svm": {"test_score": [0.95, 0.9], "fit_time": [0.2, 0.3]}}
    >>> from_cross_validate({"iris": out, "wine": out}).shape
    (8, 6)
    """
    if not isinstance(results, Mapping) or not results:
        raise MultitestError("`results` must be a non-empty dict {algorithm: cross_validate(...)}"
                             " or {data set: {algorithm: cross_validate(...)}}")
    nested = all(isinstance(v, Mapping) and v and all(isinstance(w, Mapping) for w in v.values())
                 for v in results.values())
    if nested:
        return pd.concat([_one_cross_validate(r, str(name), metric)
                          for name, r in results.items()], ignore_index=True)
    return _one_cross_validate(results, str(dataset), metric)
