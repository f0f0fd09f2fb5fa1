"""Metrics: the domain and direction of each known metric, and its values turned into errors.

Results may mix metrics (AUC on the binary data sets, log-loss on the multiclass
ones): each row's value is turned into an error (lower is better) by the entry of
its metric in :data:`METRIC_DIRECTIONS`, which says which values the metric takes
(its domain: AUC within [0, 1], log-loss at least 0, ``neg_*`` at most 0...) and
how a value becomes an error (``1 - auc``, the log-loss as is, ``-neg_log_loss``,
``1 - r2``).  Every value is checked against its metric's domain before anything
is inferred from it; a bounded score may be given in percent (``100 - accuracy``),
a scale read from the whole column of the metric, one per metric in a file
(:mod:`multitest.inputs._scales`).  Tests and ranks stay within a data set, so
data sets with different metrics are fine; a data set mixing two metrics is
refused.

Examples
--------
>>> import numpy as np
>>> from multitest.inputs._metrics import metric_errors
>>> errors, notes = metric_errors(np.array([0.9, 0.3]), np.array(["auc", "logloss"]))
>>> errors.round(2).tolist()
[0.1, 0.3]
>>> for note in notes:
...     print(note)
auc: higher is better, error = 1 - auc (values within [0, 1])
logloss: lower is better, as is (values at least 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError, MultitestError, abbreviate
from ._scales import bounds_text, checked_scale

__all__ = ["metric_direction"]


@dataclass(frozen=True)
class MetricDirection:
    """A metric's domain and direction: which values it takes, and how they become errors.

    Attributes
    ----------
    higher_is_better : bool
    low, high : float
        The domain: every value within ``[low, high]`` (``-inf``/``inf``:
        unbounded on that side).
    best : float or None
        For a score (higher is better), the error is ``best - value`` (1 for AUC,
        accuracy, R²...); None: ``-value`` (a negated loss, an unnamed score).
        A loss (lower is better) is its error, as it is.
    percent : bool
        The metric may also be given in percent (``100 * [low, high]``, error
        ``100 * best - value``), a scale read from the whole column of the
        metric.
    advice : str
        Said after the bound when a value is outside the domain.
    """

    higher_is_better: bool
    low: float = -math.inf
    high: float = math.inf
    best: float | None = None
    percent: bool = False
    advice: str = ""

    @property
    def bounded(self):
        """Whether the metric is a score at most 1 (or 100 in percent): error ``1 - score``."""
        return self.percent

    def domain(self, scale=1.0):
        """``(low, high)`` of the values on `scale` (100: in percent)."""
        return self.low * scale, self.high * scale

    def error_domain(self, scale=1.0):
        """``(low, high)`` of the errors its values become (on `scale`)."""
        low, high = self.domain(scale)
        if not self.higher_is_better:
            return low, high
        top = 0.0 if self.best is None else self.best * scale
        return top - high, top - low

    def to_error(self, values, scale=1.0):
        """The errors of `values` (on `scale`)."""
        if not self.higher_is_better:
            return values
        return (0.0 if self.best is None else self.best * scale) - values

    def rule(self, name, percent=False):
        """The sentence stating the conversion of metric `name` and its domain."""
        scale = 100.0 if percent else 1.0
        if not self.higher_is_better:
            how = "lower is better, as is"
        elif self.best is None:
            how = f"higher is better, error = -{name}"
        else:
            how = f"higher is better, error = {self.best * scale:g} - {name}"
        low, high = self.domain(scale)
        if math.isinf(low) and math.isinf(high):
            return f"{name}: {how}"
        return f"{name}: {how} (values {'in percent, ' if percent else ''}" \
               f"{bounds_text(low, high)})"


#: A bounded score: within [0, 1] or in percent, error ``1 - score``.
_SCORE = MetricDirection(higher_is_better=True, low=0.0, high=1.0, best=1.0, percent=True)
#: R² and its kin: at most 1, error ``1 - r2`` (at least 0).
_R2 = MetricDirection(higher_is_better=True, high=1.0, best=1.0)
#: A correlation: within [-1, 1], error ``1 - value``.
_CORRELATION = MetricDirection(higher_is_better=True, low=-1.0, high=1.0, best=1.0)
#: A loss, or an error: at least 0, as it is.
_LOSS = MetricDirection(higher_is_better=False, low=0.0,
                        advice=" (a loss or an error is never negative)")
#: scikit-learn's negated losses (``neg_log_loss``, ``neg_rmse``...): at most 0, error ``-value``.
_NEGATED = MetricDirection(
    higher_is_better=True, high=0.0,
    advice=" (a negated loss, neg_*, is never positive: a positive value is the loss itself; "
           "name its metric without neg_)")
#: A score of unknown range (an unnamed scikit-learn ``score``, a metric the user says is
#: higher is better): error ``-value``.
_SIGNED_SCORE = MetricDirection(higher_is_better=True)
#: A metric the user says is lower is better: any sign, as it is.
_SIGNED_LOSS = MetricDirection(higher_is_better=False)

#: Well-known metric names and their domains and directions (scikit-learn scorer names and
#: the AutoML benchmark's, TabArena's and TabRepo's names among them); lower case, ``-``
#: read as ``_``.  A name starting ``neg_`` is a negated loss.
METRIC_DIRECTIONS = {
    **dict.fromkeys(("auc", "roc_auc", "roc_auc_ovr", "roc_auc_ovo", "roc_auc_ovr_weighted",
                     "roc_auc_ovo_weighted", "acc", "accuracy", "balanced_accuracy", "balacc",
                     "f1", "f1_macro", "f1_micro", "f1_weighted", "f1_samples", "f1_binary",
                     "precision", "recall", "average_precision", "pr_auc", "top_k_accuracy"),
                    _SCORE),
    **dict.fromkeys(("r2", "explained_variance", "d2_absolute_error_score"), _R2),
    "matthews_corrcoef": _CORRELATION,
    # "score": an unnamed scikit-learn score (the estimator's score method).
    "score": _SIGNED_SCORE,
    **dict.fromkeys(("logloss", "log_loss", "rmse", "mse", "mae", "rmsle", "brier",
                     "brier_score", "error", "err", "error_rate", "loss", "metric_error"), _LOSS),
}

#: scikit-learn's negated losses (``neg_log_loss``, ``neg_rmse``...): higher is better.
NEGATED_PREFIX = "neg_"


def metric_key(name):
    """A metric's name as the table spells it: stripped, lower case, ``-`` read as ``_``."""
    return str(name).strip().lower().replace("-", "_")


def metric_direction(name, higher_is_better=(), lower_is_better=()):
    """The :class:`MetricDirection` of metric `name`, or None when it is not known.

    Parameters
    ----------
    name : str
    higher_is_better, lower_is_better : sequence of str
        Names whose direction the user states (they win over the table; a name
        the table does not know then takes any value).

    Examples
    --------
    >>> from multitest.inputs import metric_direction
    >>> metric_direction("neg_log_loss").higher_is_better, metric_direction("AUC").bounded
    (True, True)
    >>> metric_direction("r2").error_domain()
    (0.0, inf)
    >>> metric_direction("kappa") is None
    True
    """
    key = metric_key(name)
    known = METRIC_DIRECTIONS.get(key)
    if known is None and key.startswith(NEGATED_PREFIX):
        known = _NEGATED
    if key in {metric_key(n) for n in higher_is_better}:
        return known if known is not None and known.higher_is_better else _SIGNED_SCORE
    if key in {metric_key(n) for n in lower_is_better}:
        return known if known is not None and not known.higher_is_better else _SIGNED_LOSS
    return known


def metric_errors(values, metrics, *, higher_is_better=(), lower_is_better=(), datasets=None,
                  source=None, row_offset=0, field="metric", as_errors=False, value_field=None):
    """Errors from values and the metric of each row, and the sentences stating the rules.

    Every value is checked against its metric's domain first; a metric that may
    be given in percent is read in percent only when its whole column is (every
    value within [0, 100], some above 1, none of (0, 1]), one scale per metric.

    Parameters
    ----------
    values : ndarray of float, shape (n,)
        NaN (a missing value) stays NaN.
    metrics : ndarray of str, shape (n,)
        The metric of each row.
    higher_is_better, lower_is_better : sequence of str
        Directions of metrics the table does not know (or overriding it).
    datasets : ndarray, shape (n,), or (codes, names), optional
        Data set of each row (its name, or its code and the names of the
        codes): a data set mixing two metrics is refused, and the messages of
        two scales name the data sets.
    source, row_offset, field
        Where the rows come from, for the messages (`field`: the metric column).
    as_errors : bool, default False
        The values are errors already (a column of errors beside the name of
        the metric each measures, as TabArena's ``metric_error``): kept as they
        are whatever the metric's direction, which need not be known; they are
        checked against the errors the metric can have (``1 - roc_auc`` within
        [0, 1]) and against the value column's own name (``metric_error`` at
        least 0), and the metrics named (one per data set).
    value_field : str, optional
        The value column, named by the messages of a value outside its domain.

    Returns
    -------
    errors : ndarray of float, shape (n,)
    notes : tuple of str
        One sentence per metric, in order of first appearance (with
        ``as_errors``, the metric's name).

    Raises
    ------
    InputError
        A metric of unknown direction, an empty metric name, a value outside
        its metric's domain (an AUC above 1, a positive ``neg_log_loss``), a
        metric given in two scales, or a data set with two metrics; the
        message names the row, the field, the metric and the bound.
    """
    errors, notes, _ = metric_scales(
        values, metrics, higher_is_better=higher_is_better, lower_is_better=lower_is_better,
        datasets=datasets, source=source, row_offset=row_offset, field=field,
        as_errors=as_errors, value_field=value_field)
    return errors, notes


def metric_scales(values, metrics, *, higher_is_better=(), lower_is_better=(), datasets=None,
                  source=None, row_offset=0, field="metric", as_errors=False, value_field=None):
    """:func:`metric_errors`, and the scale read of each metric that may be given in percent:
    ``(errors, notes, ((metric, scale), ...))``, `scale` 1 or 100."""
    for name in (*higher_is_better, *lower_is_better):
        if not isinstance(name, str) or not name.strip():
            raise MultitestError(f"`higher_is_better`/`lower_is_better`: metric names must be "
                                 f"non-empty texts, got {name!r}")
    both = {metric_key(n) for n in higher_is_better} & {metric_key(n) for n in lower_is_better}
    if both:
        raise MultitestError(f"metric(s) {', '.join(sorted(both))} named both higher and lower "
                             "is better")
    codes, names = _codes([metric_key(m) for m in metrics])
    labels, dataset_names = datasets if isinstance(datasets, tuple) else (datasets, None)
    labels = None if labels is None else np.asarray(labels)
    if labels is not None:
        _check_one_metric_per_dataset(labels, codes, names, source, row_offset, field)
    errors = np.asarray(values, dtype=float).copy()
    where = {"source": source, "row_offset": row_offset, "field": value_field}
    notes, scales = [], []
    for code, name in enumerate(names):
        rows = np.flatnonzero(codes == code)
        if not name:
            raise InputError("empty metric name", source=source, row=int(rows[0]) + row_offset,
                             field=field)
        direction = metric_direction(name, higher_is_better, lower_is_better)
        part = None if labels is None else (
            labels[rows] if dataset_names is None else (labels[rows], dataset_names))
        if as_errors:
            _check_errors(errors[rows], direction, name, value_field, part, rows, where,
                          lower_is_better)
            notes.append(name)
            continue
        if direction is None:
            raise InputError(f"metric '{abbreviate(name)}' has no known direction: say "
                             f"--higher-is-better {abbreviate(name)} (or --lower-is-better); "
                             "known: auc, accuracy, f1, r2, logloss, rmse, mae, error, neg_* "
                             "and the others of multitest.inputs._metrics.METRIC_DIRECTIONS",
                             source=source, row=int(rows[0]) + row_offset, field=field)
        scale = checked_scale(errors[rows], direction, name, part, rows, **where)
        errors[rows] = direction.to_error(errors[rows], scale)
        notes.append(direction.rule(name, percent=scale != 1))
        if direction.percent:
            scales.append((name, scale))
    return errors, tuple(notes), tuple(scales)


def column_errors(values, kind, column, *, datasets=None, lower_is_better=(), source=None,
                  row_offset=0):
    """``(errors, notes, scales)`` of a value column without a metric column, by its `kind`
    (`scales`: ``(('accuracy', scale),)`` of accuracies, scale 1 or 100).

    ``'accuracy'`` is a bounded score (within [0, 1], or in percent when the
    whole column is: stated in a note), ``'accuracy-percent'`` one in percent;
    ``'error'`` is kept as it is, checked to be at least 0 when the column is
    named as errors (``error``, ``loss``, ``metric_error``...) unless the user
    says it is a signed quantity (`lower_is_better` naming the column).
    """
    rows = np.arange(len(values))
    where = {"source": source, "row_offset": row_offset, "field": column}
    if kind == "error":
        declared = metric_key(column) in {metric_key(n) for n in lower_is_better}
        known = METRIC_DIRECTIONS.get(metric_key(column))
        if known is not None and not known.higher_is_better and not declared:
            checked_scale(values, known, column, datasets, rows, **where,
                          hint=_signed_hint(column, source))
        return values, (), ()
    if kind == "accuracy-percent":
        if values.size and np.nanmax(values) <= 1:
            raise InputError("kind accuracy-percent, but every value is at most 1: these are "
                             "accuracies between 0 and 1, not percentages (use kind accuracy)",
                             source=source, field=column)
        scale = checked_scale(values, _SCORE, "accuracy", datasets, rows, **where, scale=100.0)
    else:
        scale = checked_scale(values, _SCORE, "accuracy", datasets, rows, **where)
    note = (f"column '{column}' holds accuracies "
            + ("in percent (within [0, 100]), error = 100 - accuracy" if scale != 1 else
               "within [0, 1], error = 1 - accuracy"))
    return _SCORE.to_error(values, scale), (note,), (("accuracy", scale),)


def _check_errors(errors, direction, name, value_field, datasets, rows, where,
                  lower_is_better):
    """Check errors of metric `name` kept as they are (``as_errors``): against the errors
    the metric can have, and against the domain of the value column's own name unless
    `lower_is_better` names it (a signed quantity)."""
    if direction is not None:
        # Errors in fractions only (as TabArena and TabRepo write them): an error below 1 %
        # is common, so fractions among percentages cannot be told from a mistyped value.
        low, high = direction.error_domain()
        errors_of = MetricDirection(higher_is_better=False, low=low, high=high)
        checked_scale(errors, errors_of, f"{value_field or 'error'} of {name}", datasets, rows,
                      **where)
    signed = value_field is None or metric_key(value_field) in {metric_key(n)
                                                                for n in lower_is_better}
    own = None if signed else METRIC_DIRECTIONS.get(metric_key(value_field))
    if own is not None and not own.higher_is_better:
        checked_scale(errors, own, f"{value_field} of {name}", datasets, rows, **where,
                      hint=_signed_hint(value_field, where["source"]))


def _signed_hint(column, source):
    """How to declare `column` a signed quantity: the option of the command line, or for a
    data frame (only the API reads one) the keyword of :func:`load_results`, which
    :func:`multitest.rank` calls with its defaults."""
    if source == "<DataFrame>":
        return (f"; if it is a signed quantity, read it with load_results(..., "
                f"lower_is_better=({str(column)!r},))")
    return f"; if it is a signed quantity, say --lower-is-better {abbreviate(column)}"


def _codes(keys):
    names = list(dict.fromkeys(keys))
    index = {n: i for i, n in enumerate(names)}
    return np.array([index[k] for k in keys], dtype=np.int64), names


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
