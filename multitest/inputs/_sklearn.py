"""Long tables from scikit-learn's own results: ``cv_results_`` and ``cross_validate``.

Both readers take the objects or dicts scikit-learn gives and return a long
:class:`pandas.DataFrame` of multitest's layout: ``dataset, algorithm, replication,
fold, score, metric`` and the costs ``fit_time`` and ``score_time`` (with
``fit_time_std`` and ``score_time_std`` from a search), so that

>>> ranking = rank(from_cv_results(search), "column:fit_time")   # doctest: +SKIP

ranks the candidates of a search by error and fitting time, the times within their
noise (``std_fit_time``) being ties.  The replications and folds are those of the
splitter (``search.cv``, ``cv=``; ``_sklearn_cv.split_design``),
its test/train ratio and the notes on the design in the table's ``attrs``.  The
``metric`` column names the score (the search's ``scoring``; with none, the
estimator's: accuracy or R²), which :func:`multitest.inputs._metrics.metric_errors` turns into
an error.  A value scikit-learn does not write is an :class:`~multitest.InputError`
naming the key and the candidate.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._errors import InputError, MultitestError, abbreviate
from ._design import RATIO_COLUMN, frame_attrs
from ._sklearn_cv import NOT_GIVEN, default_score_name, split_design

__all__ = ["from_cv_results", "from_cross_validate"]

#: The key of the single unnamed score (``split0_test_score`` / ``test_score``): the
#: estimator's own ``score`` (scoring None) or a scorer named by the ``scoring`` text.
DEFAULT_METRIC = "score"

_SPLIT = re.compile(r"split(\d+)_test_(.+)")


def _kind(value):
    return f"a {type(value).__name__}"


def _numbers(values, key, names, where, unit):
    """``values[key]``, one number (or None/NaN: a failed fit) per name, as floats.

    Refused, naming `key` and the `unit` (candidate, fold) at fault: not a list, a
    length other than ``len(names)`` (any length when `names` is None: folds 1, 2...),
    an item that is not a number.
    """
    shown = f"{where}[{key!r}]"
    try:
        array = np.asarray(values)
    except ValueError:   # ragged nested lists
        array = np.asarray(values, dtype=object) if isinstance(values, (list, tuple)) else None
    if array is None or isinstance(values, (str, bytes, Mapping)) or array.ndim == 0:
        raise InputError(f"{shown} must hold one number per {unit}, got {_kind(values)}")
    items = list(values)
    names = [str(i + 1) for i in range(len(items))] if names is None else names
    if len(items) != len(names):
        lacking = (f"none for {unit} {abbreviate(names[len(items)])!r}" if len(items) < len(names)
                   else f"{len(items) - len(names)} more than the {unit}s")
        raise InputError(f"{shown} has {len(items)} value(s) for {len(names)} {unit}s: "
                         f"{lacking}")
    if array.ndim == 1 and array.dtype.kind in "iuf":
        return array.astype(float)
    out = np.empty(len(items))
    for i, (name, item) in enumerate(zip(names, items)):
        if item is not None and (not isinstance(item, (numbers.Real, np.number))
                                 or isinstance(item, (bool, np.bool_))):
            raise InputError(f"{shown}, {unit} {abbreviate(name)!r}: "
                             f"{abbreviate(repr(item), 60)} is not a number")
        out[i] = np.nan if item is None else float(item)
    return out


def _candidate_names(results, where):
    params = results["params"]
    if not isinstance(params, (list, tuple, np.ndarray)):
        raise InputError(f"{where}['params'] must be a list of one dict of parameters per "
                         f"candidate, got {_kind(params)}")
    for i, p in enumerate(params):
        if not isinstance(p, Mapping):
            raise InputError(f"{where}['params'], candidate {i + 1}: {_kind(p)}, not a dict "
                             "of parameters")
    names = [", ".join(f"{k}={v}" for k, v in p.items()) or "default" for p in params]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise InputError(f"{where}['params']: two candidates are both named "
                         f"{abbreviate(duplicated[0])!r}")
    return names


def _search_facts(search):
    """``(cv_results_, cv, estimator, scoring)`` of a fitted search, or of a dict
    (whose splitter and estimator are not known)."""
    if isinstance(search, Mapping):
        return search, NOT_GIVEN, None, None
    try:
        return search.cv_results_, search.cv, search.estimator, search.scoring
    except AttributeError as exc:
        raise MultitestError(f"expected a fitted search (GridSearchCV..., with cv_results_, cv, "
                             f"estimator and scoring) or its cv_results_ dict, got "
                             f"{type(search).__name__} (no {exc.name})") from None


def _score_name(key, metric, scoring, estimator, where):
    """``(the metric's name, the note naming it)``: `metric`, the scorer's key, the
    search's ``scoring`` text, or the default score of the estimator."""
    if metric is not None:
        return metric, None
    if key != DEFAULT_METRIC:
        return key, None
    if isinstance(scoring, str):
        return scoring, None
    name = None if scoring is not None or estimator is None else default_score_name(estimator)
    if name is None:
        scorer = "its scoring" if scoring is not None else "the estimator's score"
        raise MultitestError(
            f"`metric`: {where} hold unnamed scores ('{DEFAULT_METRIC}', {scorer}): name the "
            "metric (metric='accuracy' for a classifier's score, 'r2' for a regressor's), "
            "so that it becomes an error the right way")
    what = "a classifier: accuracy" if name == "accuracy" else "a regressor: R²"
    return name, f"scoring None: the estimator's default score ({what}), read as metric {name!r}"


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


def _split_numbers(results, key, where):
    """The 0-based split numbers of the scores `key`: 0, 1, ..., none missing."""
    found = sorted(int(m.group(1)) for m in map(_SPLIT.fullmatch, map(str, results))
                   if m and m.group(2) == key)
    lacking = sorted(set(range(found[-1] + 1)) - set(found))
    if lacking:
        raise InputError(f"{where} has split{found[-1]}_test_{key} but no "
                         f"split{lacking[0]}_test_{key} (every split 0..{found[-1]} is needed)")
    return found


def _classifier(estimator):
    """Whether `estimator` is a classifier (None: not known)."""
    return None if estimator is None else default_score_name(estimator) == "accuracy"


def _one_search(search, dataset, metric, cv, where):
    """``(long table, SplitDesign, notes)`` of one search or ``cv_results_`` dict."""
    results, search_cv, estimator, scoring = _search_facts(search)
    if not isinstance(results, Mapping):
        raise InputError(f"{where} must be a dict, got {_kind(results)}")
    if cv is not NOT_GIVEN and search_cv is not NOT_GIVEN:
        raise MultitestError("`cv`: the search has its own splitter (search.cv); cv= is for "
                             "a cv_results_ dict")
    keys = {m.group(2) for m in map(_SPLIT.fullmatch, map(str, results)) if m}
    if "params" not in results or not keys:
        raise InputError(f"{where} needs 'params' and split<i>_test_<score> keys "
                         "(a search fitted with scikit-learn)")
    key = _metric_key(keys, metric, where)
    names = _candidate_names(results, where)
    splits = _split_numbers(results, key, where)
    name, named = _score_name(key, metric, scoring, estimator, where)
    given = cv if search_cv is NOT_GIVEN else search_cv
    design = split_design(given, len(splits), classifier=_classifier(estimator),
                          where="search.cv" if search_cv is not NOT_GIVEN else "cv")
    replication, fold = np.array([design.replication_and_fold(i) for i in splits]).T
    C = len(names)
    scores = np.column_stack([_numbers(results[f"split{i}_test_{key}"], f"split{i}_test_{key}",
                                       names, where, "candidate") for i in splits])
    frame = pd.DataFrame({
        "dataset": dataset, "algorithm": np.repeat(names, len(splits)),
        "replication": np.tile(replication, C), "fold": np.tile(fold, C),
        "score": scores.ravel(), "metric": name})
    for cost in ("fit_time", "score_time"):
        for stat, column in (("mean", cost), ("std", cost + "_std")):
            if f"{stat}_{cost}" in results:
                frame[column] = np.repeat(_numbers(results[f"{stat}_{cost}"], f"{stat}_{cost}",
                                                   names, where, "candidate"), len(splits))
    return frame, design, [n for n in (design.note, named) if n]


def _one_design(parts, what):
    """The design shared by the data sets of `parts` (``[(name, (frame, design, notes))]``)."""
    (first, (_, design, _)), *others = parts
    for name, (_, other, _) in others:
        if other.design != design.design:
            raise MultitestError(f"{what} of data sets {abbreviate(first)!r} ({design.design}, "
                                 f"test/train ratio {design.design.test_train_ratio}) and "
                                 f"{abbreviate(name)!r} ({other.design}, test/train ratio "
                                 f"{other.design.test_train_ratio}) differ: one design is "
                                 "needed to test within every data set alike")
    return design


def _joined(parts, what):
    """The long table of `parts`, carrying their test/train ratio and notes (attrs), the
    ratio also in a column (when not that of k folds: it survives ``to_csv``)."""
    design = _one_design(parts, what)
    frame = pd.concat([part[0] for _, part in parts], ignore_index=True)
    if design.design.test_train_ratio is not None:
        frame[RATIO_COLUMN] = design.design.test_train_ratio
    notes = dict.fromkeys(note for _, part in parts for note in part[2])
    frame.attrs = frame_attrs(design.design.test_train_ratio, notes)
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


def from_cv_results(search, datasets=None, *, metric=None, cv=NOT_GIVEN):
    """The long table of a scikit-learn search: one data set, or several.

    The fold design is the search's (``search.cv``): ``KFold(k)``,
    ``StratifiedKFold(k)`` and an integer ``k`` (scikit-learn's ``check_cv``)
    are one replication of k folds; ``RepeatedKFold`` /
    ``RepeatedStratifiedKFold`` are ``n_repeats`` replications of ``n_splits``
    folds (scikit-learn numbers the splits repeat-major: split ``i`` is
    repeat ``i // n_splits``, fold ``i % n_splits``), so that
    ``RepeatedStratifiedKFold(n_splits=2, n_repeats=5)`` is 5x2 cv and the
    default test runs on it; ``ShuffleSplit`` / ``StratifiedShuffleSplit``
    are ``n_splits`` replications of one random test set, with the
    test/train ratio of their sizes (``test_size / train_size``; k folds have
    ``1 / (k - 1)``), carried to the corrected t test in the table's
    ``attrs``.  A ``cv_results_`` dict does not know its splitter: give it as
    `cv`, else its splits are read as one replication of k folds, said in a
    note.  Every note reaches the ranking's notes.

    Parameters
    ----------
    search : search object, dict, list of them, or dict of data set to them
        A fitted ``GridSearchCV`` / ``RandomizedSearchCV`` (anything with
        ``cv_results_``, ``cv``, ``estimator`` and ``scoring``) or its
        ``cv_results_`` dict: one data set.  A list (names from `datasets`,
        else ``dataset 1``...) or a dict ``{data set: search}``: several data
        sets, with the same candidates and the same design.
    datasets : str or list of str, optional
        The data set name of one search (default ``'dataset'``), or the names
        of a list of searches.
    metric : str, optional
        The scorer to read from a search with several (``scoring`` a dict),
        or the name of its only score.  By default the search's ``scoring``
        when it is a name; with ``scoring=None`` the estimator's own score:
        ``accuracy`` for a classifier (error 1 - accuracy), ``r2`` for a
        regressor (error 1 - R²).  The unnamed score of a ``cv_results_``
        dict must be named.
    cv : int or splitter, optional
        The ``cv`` of the search that made a ``cv_results_`` dict (refused
        beside a search object, which has its own).

    Returns
    -------
    pandas.DataFrame
        ``dataset, algorithm, replication, fold, score, metric, fit_time,
        fit_time_std, score_time, score_time_std``: one row per candidate and
        split; the candidate's name is its parameters (``max_depth=3``),
        replication and fold (1-based) those of the split, the times their
        mean and standard deviation over the splits (scikit-learn's
        ``mean_fit_time`` and ``std_fit_time``).  ``attrs`` holds the test/train
        ratio and the notes on the design, which
        :func:`multitest.inputs.load_results` keeps; a ratio other than that
        of k folds (``ShuffleSplit``) is also in a ``test_train_ratio``
        column, which a CSV written by ``to_csv`` keeps.

    Raises
    ------
    InputError
        A value that is not what scikit-learn writes, naming the key and the
        candidate: ``params`` not a list of dicts, a split's scores not one
        number per candidate, a split missing among ``split0..splitN``.
    MultitestError
        Not a search or its results, several metrics and none named, an
        unnamed score, a splitter not making the splits found, data sets of
        different designs, or names not matching the searches.

    Examples
    --------
    >>> from multitest import from_cv_results
    >>> cv_results = {"params": [{"C": 1}, {"C": 10}],
    ...               "split0_test_score": [0.90, 0.80], "split1_test_score": [0.92, 0.82],
    ...               "mean_fit_time": [0.1, 0.3], "std_fit_time": [0.01, 0.02]}
    >>> frame = from_cv_results(cv_results, "iris", metric="accuracy", cv=2)
    >>> frame[["algorithm", "replication", "fold", "score", "fit_time_std"]]
      algorithm  replication  fold  score  fit_time_std
    0       C=1            1     1   0.90          0.01
    1       C=1            1     2   0.92          0.01
    2      C=10            1     1   0.80          0.02
    3      C=10            1     2   0.82          0.02
    >>> frame.attrs["multitest"]["notes"][0]
    "design 1x2 from cv = 2, as scikit-learn's check_cv reads it: StratifiedKFold for a \
classifier, KFold otherwise"
    """
    if isinstance(search, (list, tuple)) or (isinstance(search, Mapping)
                                             and "params" not in search):
        if isinstance(datasets, str):
            raise MultitestError("`datasets`: several searches need a list of names")
        return _joined([(str(name), _one_search(s, str(name), metric, cv,
                                                f"cv_results_ of data set {abbreviate(name)!r}"))
                        for name, s in _named(search, datasets, "searches")],
                       "the splitters")
    name = "dataset" if datasets is None else str(datasets)
    return _joined([(name, _one_search(search, name, metric, cv, "cv_results_"))],
                   "the splitters")


def _estimator(scores, where):
    """The first estimator ``cross_validate(..., return_estimator=True)`` kept, or None."""
    if "estimator" not in scores:
        return None
    fitted = scores["estimator"]
    if not isinstance(fitted, (list, tuple, np.ndarray)) or len(fitted) == 0:
        raise InputError(f"{where}['estimator'] must be the list of fitted estimators "
                         f"(return_estimator=True), got {_kind(fitted)}")
    return fitted[0]


def _one_algorithm(algorithm, scores, dataset, metric, where):
    """``(long table, note naming the score or None, estimator or None)`` of one
    algorithm's ``cross_validate`` dict."""
    if not isinstance(scores, Mapping):
        raise MultitestError(f"`results`: {abbreviate(algorithm)!r} must map to the dict "
                             f"cross_validate returns, got {type(scores).__name__}")
    tests = {k[len("test_"):] for k in scores if str(k).startswith("test_")}
    if not tests:
        raise MultitestError(f"{where} have no test_<score> key (the dict of "
                             "sklearn.model_selection.cross_validate)")
    key = _metric_key(tests, metric, where)
    estimator = _estimator(scores, where)
    name, named = _score_name(key, metric, None, estimator, where)
    score = _numbers(scores[f"test_{key}"], f"test_{key}", None, where, "fold")
    frame = pd.DataFrame({"dataset": dataset, "algorithm": str(algorithm), "score": score,
                          "metric": name})
    folds = [str(i + 1) for i in range(len(score))]
    for cost in ("fit_time", "score_time"):
        if cost in scores:
            frame[cost] = _numbers(scores[cost], cost, folds, where, "fold")
    return frame, named, estimator


def _one_cross_validate(results, dataset, metric, cv, of):
    """``(long table, SplitDesign, notes)`` of ``{algorithm: cross_validate(...)}``."""
    if len(results) < 2:
        raise MultitestError(f"`results`: at least 2 algorithms are needed, got {len(results)}")
    parts = [(str(a), _one_algorithm(a, s, dataset, metric,
                                     f"the results of {abbreviate(a)!r}{of}"))
             for a, s in results.items()]
    (first, (frame, _, _)), *others = parts
    for name, (other, _, _) in others:
        if len(other) != len(frame):
            raise InputError(f"the results of {abbreviate(first)!r}{of} have {len(frame)} "
                             f"folds, those of {abbreviate(name)!r} {len(other)}: every "
                             "algorithm needs the same folds (the same cv)")
    estimator = next((e for _, (_, _, e) in parts if e is not None), None)
    design = split_design(cv, len(frame), where="cv", classifier=_classifier(estimator))
    table = pd.concat([part[0] for _, part in parts], ignore_index=True)
    replication, fold = np.array([design.replication_and_fold(i)
                                  for i in range(len(frame))]).T
    table.insert(2, "replication", np.tile(replication, len(parts)))
    table.insert(3, "fold", np.tile(fold, len(parts)))
    named = [n for _, (_, n, _) in parts if n]
    return table, design, [design.note, *named]


def from_cross_validate(results, dataset="dataset", *, metric=None, cv=NOT_GIVEN):
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
        or the name of the only score ``test_score`` (e.g. ``'accuracy'``).
        An unnamed ``test_score`` needs it, unless the results kept their
        estimators (``return_estimator=True``): ``accuracy`` for a
        classifier, ``r2`` for a regressor.
    cv : int or splitter, optional
        The ``cv`` given to ``cross_validate`` (None: its default, 5 folds),
        read into replications x folds and the test/train ratio as
        :func:`from_cv_results` reads ``search.cv``; when not given, the
        design is not known: one replication of k folds, said in a note.

    Returns
    -------
    pandas.DataFrame
        ``dataset, algorithm, replication, fold, score, metric, fit_time,
        score_time``: one row per algorithm and split; rank it by the fitting
        time with ``costs="column:fit_time"`` (noise: the standard deviation
        over folds).  ``attrs`` holds the test/train ratio and the notes (the ratio
        also in a ``test_train_ratio`` column when not that of k folds).

    Raises
    ------
    InputError
        A value that is not what ``cross_validate`` writes, naming the key
        and the algorithm: a scalar or text score, a cost of another length,
        algorithms with different numbers of folds.
    MultitestError
        An unnamed score with no estimator, a `cv` not making the splits
        found, data sets of different designs.

    Examples
    --------
    >>> from multitest import from_cross_validate
    >>> out = {"nb": {"test_score": [0.9, 0.8], "fit_time": [0.01, 0.01]},
    ...        "svm": {"test_score": [0.95, 0.9], "fit_time": [0.2, 0.3]}}
    >>> from_cross_validate({"iris": out, "wine": out}, metric="accuracy", cv=2).shape
    (8, 7)
    """
    if not isinstance(results, Mapping) or not results:
        raise MultitestError("`results` must be a non-empty dict {algorithm: cross_validate(...)}"
                             " or {data set: {algorithm: cross_validate(...)}}")
    nested = all(isinstance(v, Mapping) and v and all(isinstance(w, Mapping) for w in v.values())
                 for v in results.values())
    if nested:
        return _joined([(str(name), _one_cross_validate(r, str(name), metric, cv,
                                                        f" on {abbreviate(name)!r}"))
                        for name, r in results.items()], "the folds")
    return _joined([(str(dataset), _one_cross_validate(results, str(dataset), metric, cv, ""))],
                   "the folds")
