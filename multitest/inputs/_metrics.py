"""Metric directions: a ``metric`` column naming each row's metric, turned into errors.

Results may mix metrics (AUC on the binary data sets, log-loss on the multiclass
ones): each row's value is turned into an error (lower is better) by the direction
of its metric.  A score whose higher values are better becomes ``1 - score`` when it
is bounded by 1 (AUC, accuracy, F1..., ``100 - score`` when given in percent; R²,
at most 1) and ``-score`` otherwise (the ``neg_*`` scorers of scikit-learn); a loss
stays as it is.  Tests and ranks stay within a data set, so data sets with different
metrics are fine; a data set mixing two metrics is refused.

Examples
--------
>>> import numpy as np
>>> from multitest.inputs import metric_errors
>>> errors, notes = metric_errors(np.array([0.9, 0.3]), np.array(["auc", "logloss"]))
>>> errors.round(2).tolist(), notes
([0.1, 0.3], ('auc: higher is better, error = 1 - auc', 'logloss: lower is better, as is'))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError, MultitestError, abbreviate

__all__ = ["MetricDirection", "METRIC_DIRECTIONS", "metric_direction", "metric_errors"]


@dataclass(frozen=True)
class MetricDirection:
    """How values of one metric become errors.

    Attributes
    ----------
    higher_is_better : bool
    bounded : bool
        A score at most 1 (or 100 in percent): the error is ``1 - score``;
        otherwise ``-score``.  Only meaningful when ``higher_is_better``.
    at_most_one : bool
        A score at most 1 with no lower bound (R²: 1 is perfect, below 0 worse
        than the mean): the error is ``1 - score``, never negative.
    """

    higher_is_better: bool
    bounded: bool = False
    at_most_one: bool = False

    def rule(self, name, percent=False):
        """The sentence stating the conversion of metric `name`."""
        if not self.higher_is_better:
            return f"{name}: lower is better, as is"
        if self.bounded or self.at_most_one:
            return f"{name}: higher is better, error = {100 if percent else 1} - {name}"
        return f"{name}: higher is better, error = -{name}"


_SCORE = MetricDirection(higher_is_better=True, bounded=True)
_LOSS = MetricDirection(higher_is_better=False)
_UNBOUNDED = MetricDirection(higher_is_better=True)
_AT_MOST_ONE = MetricDirection(higher_is_better=True, at_most_one=True)

#: Well-known metric names and their directions (scikit-learn scorer names and the
#: AutoML benchmark's names among them); lower case, ``-`` read as ``_``.
METRIC_DIRECTIONS = {
    **dict.fromkeys(("auc", "roc_auc", "roc_auc_ovr", "roc_auc_ovo", "roc_auc_ovr_weighted",
                     "roc_auc_ovo_weighted", "acc", "accuracy", "balanced_accuracy", "balacc",
                     "f1", "f1_macro", "f1_micro", "f1_weighted", "f1_samples", "precision",
                     "recall", "average_precision", "pr_auc", "top_k_accuracy"), _SCORE),
    # "score": an unnamed scikit-learn score (the estimator's score method).
    **dict.fromkeys(("matthews_corrcoef", "score"), _UNBOUNDED),
    **dict.fromkeys(("r2", "explained_variance", "d2_absolute_error_score"), _AT_MOST_ONE),
    **dict.fromkeys(("logloss", "log_loss", "rmse", "mse", "mae", "rmsle", "error", "err",
                     "error_rate", "loss", "brier", "brier_score"), _LOSS),
}

#: scikit-learn's negated losses (``neg_log_loss``, ``neg_rmse``...): higher is better.
_NEGATED_PREFIX = "neg_"


def _key(name):
    return str(name).strip().lower().replace("-", "_")


def metric_direction(name, higher_is_better=(), lower_is_better=()):
    """The :class:`MetricDirection` of metric `name`, or None when it is not known.

    Parameters
    ----------
    name : str
    higher_is_better, lower_is_better : sequence of str
        Names whose direction the user states (they win over the table).

    Examples
    --------
    >>> from multitest.inputs import metric_direction
    >>> metric_direction("neg_log_loss").higher_is_better, metric_direction("AUC").bounded
    (True, True)
    >>> metric_direction("kappa") is None
    True
    """
    key = _key(name)
    known = METRIC_DIRECTIONS.get(key)
    if key in {_key(n) for n in higher_is_better}:
        return known if known is not None and known.higher_is_better else _UNBOUNDED
    if key in {_key(n) for n in lower_is_better}:
        return _LOSS
    if known is not None:
        return known
    if key.startswith(_NEGATED_PREFIX):
        return _UNBOUNDED
    return None


def metric_errors(values, metrics, *, higher_is_better=(), lower_is_better=(), datasets=None,
                  source=None, row_offset=0, field="metric", as_errors=False):
    """Errors from values and the metric of each row, and the sentences stating the rules.

    Parameters
    ----------
    values : ndarray of float, shape (n,)
        NaN (a missing value) stays NaN.
    metrics : ndarray of str, shape (n,)
        The metric of each row.
    higher_is_better, lower_is_better : sequence of str
        Directions of metrics the table does not know (or overriding it).
    datasets : ndarray, shape (n,), optional
        Data set code of each row: a data set mixing two metrics is refused.
    source, row_offset, field
        Where the rows come from, for the messages.
    as_errors : bool, default False
        The values are errors already (a column of errors beside the name of
        the metric each measures, as TabArena's ``metric_error``): kept as they
        are whatever the metric's direction, which need not be known; the
        metrics are only checked (named, one per data set).

    Returns
    -------
    errors : ndarray of float, shape (n,)
    notes : tuple of str
        One sentence per metric, in order of first appearance (with
        ``as_errors``, the metric's name).

    Raises
    ------
    InputError
        A metric of unknown direction, an empty metric name, a bounded score
        outside [0, 1] (or [0, 100]), or a data set with two metrics; the
        message names the row.
    """
    for name in (*higher_is_better, *lower_is_better):
        if not isinstance(name, str) or not name.strip():
            raise MultitestError(f"`higher_is_better`/`lower_is_better`: metric names must be "
                                 f"non-empty texts, got {name!r}")
    both = {_key(n) for n in higher_is_better} & {_key(n) for n in lower_is_better}
    if both:
        raise MultitestError(f"metric(s) {', '.join(sorted(both))} named both higher and lower "
                             "is better")
    codes, names = _codes([_key(m) for m in metrics])
    if datasets is not None:
        _check_one_metric_per_dataset(np.asarray(datasets), codes, names, source, row_offset,
                                      field)
    errors = np.asarray(values, dtype=float).copy()
    notes = []
    for code, name in enumerate(names):
        rows = codes == code
        first = int(np.flatnonzero(rows)[0])
        if not name:
            raise InputError("empty metric name", source=source, row=first + row_offset,
                             field=field)
        if as_errors:
            notes.append(name)
            continue
        direction = metric_direction(name, higher_is_better, lower_is_better)
        if direction is None:
            raise InputError(f"metric '{abbreviate(name)}' has no known direction: say "
                             f"--higher-is-better {abbreviate(name)} (or --lower-is-better); "
                             "known: auc, accuracy, f1, r2, logloss, rmse, mae, error, neg_* "
                             "and the others of multitest.inputs.METRIC_DIRECTIONS",
                             source=source, row=first + row_offset, field=field)
        errors[rows], percent = _convert(errors[rows], direction, name, np.flatnonzero(rows),
                                         source, row_offset)
        notes.append(direction.rule(name, percent))
    return errors, tuple(notes)


def _codes(keys):
    names = list(dict.fromkeys(keys))
    index = {n: i for i, n in enumerate(names)}
    return np.array([index[k] for k in keys], dtype=np.int64), names


def _convert(values, direction, name, rows, source, row_offset):
    """``(errors, in percent)`` of the values of one metric."""
    if not direction.higher_is_better:
        return values, False
    if direction.at_most_one:
        above = np.flatnonzero(values > 1)
        if len(above):
            raise InputError(f"{name} {values[above[0]]:g} is above 1, its best",
                             source=source, row=int(rows[above[0]]) + row_offset)
        return 1 - values, False
    if not direction.bounded:
        return -values, False
    with np.errstate(invalid="ignore"):
        percent = bool(np.nanmax(values, initial=0) > 1)
        top = 100.0 if percent else 1.0
        bad = (values < 0) | (values > top)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"{name} {values[i]:g} is outside [0, {top:g}]", source=source,
                         row=int(rows[i]) + row_offset)
    return top - values, percent


def _check_one_metric_per_dataset(datasets, codes, names, source, row_offset, field):
    if len(names) < 2:
        return
    mixed = (pd.Series(codes).groupby(datasets).transform("nunique") > 1).to_numpy()
    if not mixed.any():
        return
    first = int(np.flatnonzero(mixed)[0])
    other = int(np.flatnonzero(mixed & (datasets == datasets[first])
                               & (codes != codes[first]))[0])
    raise InputError(f"data set mixes metrics '{abbreviate(names[codes[first]])}' (row "
                     f"{first + row_offset}) and '{abbreviate(names[codes[other]])}': tests "
                     "within a data set need one metric", source=source,
                     row=other + row_offset, field=field)
