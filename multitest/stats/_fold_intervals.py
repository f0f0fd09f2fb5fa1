"""Intervals that match a pairwise test's decision: the shifts the test does not reject.

A pairwise test of stage 1 rejects ``d = a - b`` (cheaper minus costlier, per
fold) at level ``alpha``.  Its interval is the set of shifts ``d0`` for which
the *same* test on ``d - d0`` does not reject: the test's own statistic and
null distribution, inverted.  So the interval excludes 0 exactly when the test
rejects (a one-sided test gives a one-sided interval).

- t-type tests (:func:`t_interval`): the statistic ``(estimate - d0) / scale``
  against t, so the interval is ``estimate -+ q scale`` with the quantile
  ``q`` of the test's own distribution (closed bounds);
- rank tests (:func:`inverted_interval`): the statistic is a step function of
  ``d0`` that changes only at known breakpoints (the Walsh averages for the
  signed-rank tests, the differences themselves for the sign test); the test
  is run at every breakpoint and between every two, and the interval is the
  hull of the shifts it does not reject.  A bound is *open* when the test
  rejects at the breakpoint itself but not just inside it.  With tied ranks
  the conditional test can reject an isolated breakpoint inside the hull
  (``gaps``); :meth:`FoldInterval.contains` answers for the set itself, so it
  is the test's decision at every shift.

The test functions that build these live beside the tests in
:mod:`multitest.stats._fold_tests` (and :mod:`multitest.stats._bayesian`),
sharing their arithmetic; :attr:`multitest.stats.PairwiseTest.interval` is
one of them.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

__all__ = ["FoldInterval"]


@dataclass(frozen=True, eq=False)
class FoldInterval:
    """The interval of a pairwise test on one data set, per pair.

    Attributes
    ----------
    estimate : ndarray, shape (n,)
        The test's point estimate of the difference ``a - b`` (see
        ``estimator``).
    low, high : ndarray, shape (n,)
        Bounds of the shifts the test does not reject; ``-inf`` / ``inf`` on the
        open side of a one-sided test; NaN for both when it rejects every
        shift (the combined 5x2 cv F test when the ten differences vary more
        than their within-replication spread allows).
    low_open, high_open : ndarray of bool, shape (n,)
        The bound itself is rejected (rank tests at a breakpoint).
    level : float
        ``1 - alpha`` of the decision (after the within-data-set correction).
    achieved : ndarray, shape (n,)
        The confidence achieved: ``level`` for the t-type tests; for a rank test
        (discrete) one minus the test's own size at ``1 - level``, the
        probability that it rejects under its null distribution at a shift where
        no difference is zero and none tied (:func:`inverted_interval`); never
        below ``level``.
    alternative : str
    method : str
        What was inverted, for captions (e.g. ``'combined 5x2 cv F test'``).
    estimator : str
        What ``estimate`` is (e.g. ``'mean difference'``, ``'Hodges–Lehmann'``).
    gaps : ndarray of bool, shape (n,)
        The test rejects some shift between ``low`` and ``high`` (a rank test
        with tied ranks at a breakpoint): the shifts it does not reject are
        the hull minus isolated points.
    breakpoints, accepted : ndarray or None
        For a rank test: the sorted breakpoints ``w`` (n, K) and whether the
        test accepts below ``w_0``, at ``w_0``, between ``w_0`` and ``w_1``,
        ..., above ``w_{K-1}`` (n, 2K + 1); None for the t-type tests.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.inputs import FoldDesign
    >>> from multitest.stats import get_test
    >>> d = np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> i = get_test("kfold-t").interval(d, np.zeros_like(d), FoldDesign(1, 10), 0.95)
    >>> i.low.round(4), i.high.round(4), i.contains(0.0)
    (array([0.0069]), array([0.0337]), array([False]))
    """

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    low_open: np.ndarray
    high_open: np.ndarray
    level: float
    achieved: np.ndarray
    alternative: str
    method: str
    estimator: str
    gaps: np.ndarray
    breakpoints: np.ndarray | None = None
    accepted: np.ndarray | None = None

    def contains(self, value):
        """Whether the test does not reject the shift ``value`` (a number, or one per pair).

        Returns
        -------
        ndarray of bool, shape (n,)
        """
        value = np.asarray(value, dtype=float)
        if self.breakpoints is not None:
            w, value = self.breakpoints, value.reshape(-1, 1)
            at = (w == value).any(axis=1)
            index = 2 * (w < value).sum(axis=1) + at
            return self.accepted[np.arange(w.shape[0]), index]
        return _bounds_contain(self, value)


def t_interval(numerator, scale, distribution, level, alternative, *, unit=1.0, method,
               estimator="mean difference"):
    """The interval of a test of ``numerator / scale`` against ``distribution``.

    Parameters
    ----------
    numerator, scale : ndarray, shape (n,)
        The test's statistic is ``numerator / scale``; a shift ``d0`` of every
        difference moves ``numerator`` by ``d0 * unit`` and leaves ``scale``.
    distribution : a t distribution of :mod:`multitest.stats._distributions`
    level : float
    alternative : {'two-sided', 'less', 'greater'}
    unit : float
        ``numerator = unit * estimate`` (``sqrt(10)`` for the combined 5x2 cv t).
    method, estimator : str

    Returns
    -------
    FoldInterval
        ``(numerator -+ q scale) / unit``, ``q`` the upper ``alpha`` (one-sided)
        or ``alpha / 2`` quantile; a zero scale gives ``[estimate, estimate]``.
    """
    alpha = 1 - level
    q = distribution.isf(alpha if alternative != "two-sided" else alpha / 2)
    half = np.where(scale == 0, 0.0, q * scale)
    low, high = (numerator - half) / unit, (numerator + half) / unit
    if alternative == "greater":
        high = np.full_like(high, np.inf)
    elif alternative == "less":
        low = np.full_like(low, -np.inf)
    closed = np.zeros(low.shape, dtype=bool)
    return FoldInterval(estimate=numerator / unit, low=low, high=high, low_open=closed,
                        high_open=closed, level=level, achieved=np.full(low.shape, level),
                        alternative=alternative, method=method, estimator=estimator,
                        gaps=closed)


#: Cells (shifted rows x folds) handed to a test at once by :func:`inverted_interval`.
_CELLS = 1 << 20
#: Rows with more distinct candidate shifts than this are bisected, not run at every one.
_ALL_CANDIDATES = 513


def inverted_interval(d, pvalues, breakpoints, level, alternative, *, method, estimator,
                      null=None):
    """The shifts ``d0`` a rank test does not reject, from its breakpoints.

    Parameters
    ----------
    d : ndarray, shape (n, F)
        Differences.
    pvalues : callable
        ``pvalues(x)``: the test's p-values of the rows of ``x`` (shape (m, F)).
    breakpoints : ndarray, shape (n, K)
        Sorted per row: the shifts where the test's statistic can change; it
        is constant between two consecutive ones.
    level : float
    alternative : str
    method, estimator : str
    null : callable or None
        ``null(F)``: rows of ``F`` differences and their probabilities under the
        test's null distribution at a shift where no difference is zero and
        none tied (:func:`sign_null`, :func:`signed_rank_null`), or None (too
        many to list): the achieved confidence is then ``level``.

    Returns
    -------
    FoldInterval
        The estimate is the median of the breakpoints (the Hodges–Lehmann
        estimate for Walsh averages, the median for the differences).  When
        the test rejects 0 but the hull of the shifts it does not reject holds
        0 (a zero difference dropped at shift 0, ties: an isolated rejected
        shift), the reported bounds stop at 0, open, on the side of the
        estimate: the interval excludes 0 exactly when the test rejects, as
        :meth:`FoldInterval.contains` does.

    Notes
    -----
    The test runs once per distinct candidate: below every breakpoint, at each,
    between each two, above every one.  A row with more than
    ``_ALL_CANDIDATES`` distinct candidates (about 30 folds without ties) is
    bisected instead: from the candidate in the middle outwards to the first
    and last accepted ones, taking the accepted candidates as one run, plus
    the test at 0 itself, so that :meth:`FoldInterval.contains` is exact at 0.
    """
    n, K = breakpoints.shape
    # candidates, in increasing order: below all, w_0, (w_0 + w_1)/2, w_1, ..., above all
    candidates = np.empty((n, 2 * K + 1))
    candidates[:, 1::2] = breakpoints
    candidates[:, 2:-1:2] = (breakpoints[:, 1:] + breakpoints[:, :-1]) / 2
    spread = 1.0 + np.abs(breakpoints[:, [0, -1]])
    candidates[:, 0] = breakpoints[:, 0] - spread[:, 0]
    candidates[:, -1] = breakpoints[:, -1] + spread[:, 1]
    new = np.ones(candidates.shape, dtype=bool)
    np.not_equal(candidates[:, 1:], candidates[:, :-1], out=new[:, 1:])
    accepted = np.zeros(candidates.shape, dtype=bool)
    test = _Shifts(d, candidates, pvalues, 1 - level)
    bisect = new.sum(axis=1) > _ALL_CANDIDATES
    bisect[bisect] = _bisect(test, np.flatnonzero(bisect), accepted)
    every = np.flatnonzero(~bisect)
    rows, columns = np.nonzero(new[every])
    accepted[every[rows], columns] = test.accepts(every[rows], columns)
    # a repeated candidate takes the answer of its first copy
    first_copy = np.maximum.accumulate(np.where(new, np.arange(2 * K + 1), 0), axis=1)
    accepted = np.take_along_axis(accepted, first_copy, axis=1)
    interval = _hull(candidates, breakpoints, accepted, level, alternative, method, estimator)
    achieved = _achieved(pvalues, null, d.shape[1], level)
    return dataclasses.replace(interval, achieved=np.full(n, achieved))


def _achieved(pvalues, null, folds, level):
    """``1 -`` the probability that the test rejects at ``1 - level`` under its null."""
    listed = None if null is None else null(folds)
    if listed is None:
        return level
    rows, probabilities = listed
    size = probabilities[pvalues(rows) < 1 - level].sum()
    return float(max(level, 1 - size))


#: Folds up to which :func:`signed_rank_null` lists the untied null distribution.
_NULL_FOLDS = 50


@functools.lru_cache(maxsize=32)
def sign_null(folds):
    """The sign test's null at ``folds`` non-zero differences: ``k`` positive ones of
    ``folds``, Binomial(folds, 1/2)."""
    k = np.arange(folds + 1)
    rows = np.where(np.arange(folds) < k[:, None], 1.0, -1.0)
    return rows, _binomial_half(folds)


@functools.lru_cache(maxsize=32)
def signed_rank_null(folds):
    """The signed-rank tests' null at ``folds`` untied non-zero differences: a row
    ``+-1, +-2, ..., +-folds`` for every value ``t`` of ``T+``, with ``P(T+ = t)``;
    None beyond :data:`_NULL_FOLDS` folds (the normal approximation is then near
    its level)."""
    if folds > _NULL_FOLDS:
        return None
    total = folds * (folds + 1) // 2
    pmf = np.zeros(total + 1)
    pmf[0] = 1.0
    for k in range(1, folds + 1):     # the generating function times (1 + x^k) / 2
        pmf[k:] = 0.5 * (pmf[k:] + pmf[:-k])
        pmf[:k] *= 0.5
    ranks = np.arange(1, folds + 1, dtype=float)
    rows = -np.tile(ranks, (total + 1, 1))
    for t in range(total + 1):         # largest ranks first: a subset of 1..F summing to t
        left = t
        for r in range(folds, 0, -1):
            if r <= left:
                rows[t, r - 1] = r
                left -= r
    return rows, pmf


def _binomial_half(n):
    """Binomial(n, 1/2) probabilities, k = 0..n."""
    pmf = np.zeros(n + 1)
    pmf[0] = 1.0
    for k in range(1, n + 1):
        pmf[1:k + 1] = 0.5 * (pmf[1:k + 1] + pmf[:k])
        pmf[0] *= 0.5
    return pmf


class _Shifts:
    """The test at candidate shifts of the differences, a block of rows at a time."""

    def __init__(self, d, candidates, pvalues, alpha):
        self.d, self.candidates, self.pvalues, self.alpha = d, candidates, pvalues, alpha

    def accepts(self, rows, columns):
        """Whether the test does not reject ``d[rows] - candidates[rows, columns]``."""
        out = np.empty(rows.size, dtype=bool)
        step = max(1, _CELLS // self.d.shape[1])
        for k in range(0, rows.size, step):
            r, c = rows[k:k + step], columns[k:k + step]
            shifted = self.d[r] - self.candidates[r, c][:, None]
            out[k:k + step] = self.pvalues(shifted) >= self.alpha
        return out


def _bisect(test, rows, accepted):
    """Fill ``accepted[rows]`` by bisection; False for the rows it cannot (middle rejected).

    The bisection runs on the stretches between breakpoints (even candidates), where no
    shifted difference is zero or tied, so the test takes its fast untied path; the
    breakpoints are tested only just outside the run found, and at 0.
    """
    last = test.candidates.shape[1] - 1              # 2 K: even
    middle = np.full(rows.size, 2 * (last // 4))     # the stretch at (or below) the middle
    ok = test.accepts(rows, middle)
    rows, middle = rows[ok], middle[ok]
    bounds = []
    for end in (0, last):                # the first, then the last accepted stretch
        inner = middle.copy()
        outer = np.full(rows.size, end)
        at_end = test.accepts(rows, outer)
        inner[at_end] = end
        while True:
            live = np.flatnonzero(np.abs(inner - outer) > 2)
            if live.size == 0:
                break
            probe = (inner[live] + outer[live]) // 2
            probe -= probe % 2
            hit = test.accepts(rows[live], probe)
            inner[live[hit]] = probe[hit]
            outer[live[~hit]] = probe[~hit]
        bounds.append(inner)
    span = np.arange(last + 1)
    accepted[rows] = (span >= bounds[0][:, None]) & (span <= bounds[1][:, None])
    for outside, inside in ((bounds[0] - 1, bounds[0] > 0), (bounds[1] + 1, bounds[1] < last)):
        at = np.flatnonzero(inside)
        accepted[rows[at], outside[at]] = test.accepts(rows[at], outside[at])
    w = test.candidates[rows, 1::2]                  # the decision itself: the test at 0
    zero = 2 * (w < 0).sum(axis=1) + (w == 0).any(axis=1)
    accepted[rows, zero] = test.accepts(rows, zero)
    return ok


def _hull(candidates, breakpoints, accepted, level, alternative, method, estimator):
    """The :class:`FoldInterval` of the accepted candidates: the run of them around the
    estimate (:func:`_reported_run`), its ends open where the test rejects the bound."""
    n, size = accepted.shape
    rows = np.arange(n)
    first, last = _reported_run(breakpoints, accepted)
    none = ~accepted.any(axis=1)
    # an accepted gap (even index) is bounded by the breakpoint beside it, open
    low = np.where(first == 0, -np.inf, candidates[rows, np.maximum(first - (first % 2 == 0), 0)])
    high = np.where(last == size - 1, np.inf,
                    candidates[rows, np.minimum(last + (last % 2 == 0), size - 1)])
    low_open, high_open = first % 2 == 0, last % 2 == 0
    low[none] = high[none] = np.nan
    inside = np.arange(size)
    gaps = ((inside > first[:, None]) & (inside < last[:, None]) & ~accepted).any(axis=1)
    estimate = np.median(breakpoints, axis=1)
    interval = FoldInterval(estimate=estimate, low=low, high=high, low_open=low_open & ~none,
                            high_open=high_open & ~none, level=level,
                            achieved=np.full(n, level), alternative=alternative, method=method,
                            estimator=estimator, gaps=gaps, breakpoints=breakpoints,
                            accepted=accepted)
    # 0 rejected inside the run: the bound on the side away from the estimate stops at 0
    cut = _bounds_contain(interval, 0.0) & ~interval.contains(0.0)
    above, below = cut & (estimate >= 0), cut & (estimate < 0)
    low[above], interval.low_open[above] = 0.0, True
    high[below], interval.high_open[below] = 0.0, True
    return interval


def _reported_run(breakpoints, accepted):
    """The first and last candidate of the reported interval, per row, and where it
    must stop at 0.

    Dropping the zeros makes a rank test's decisions not monotone in the shift: at a
    shift equal to a difference, that difference is dropped, and the test may accept
    that isolated point beyond the shifts around it it rejects, or reject it between
    two open stretches it accepts.  The reported interval is the run of accepted
    stretches between breakpoints around the estimate (the middle one, or the
    accepted one nearest to it), isolated rejected breakpoints inside it included
    (``gaps``), with the breakpoints at its ends when the test accepts them; joined
    to 0 when the test accepts 0, and stopped at 0 (open) on the side away from the
    estimate when it rejects 0 inside: it excludes 0 exactly when the test rejects
    0.  Where no difference is zero or tied its bounds are those of R's exact
    intervals (order statistics).

    Returns
    -------
    first, last : ndarray of int, shape (n,)
        Candidate indices.
    """
    n, size = accepted.shape
    rows = np.arange(n)
    stretches = accepted[:, 0::2]                       # below w_0, between, above w_{K-1}
    K = breakpoints.shape[1]
    index = np.arange(K + 1)
    distance = np.where(stretches, np.abs(index - K / 2), np.inf)
    start = np.argmin(distance, axis=1)
    rejected_before = np.cumsum(~stretches, axis=1)
    run = stretches & (rejected_before == rejected_before[rows, start][:, None])
    first = 2 * np.argmax(run, axis=1)
    last = 2 * (K - np.argmax(run[:, ::-1], axis=1))
    first = np.where((first > 0) & accepted[rows, np.maximum(first - 1, 0)], first - 1, first)
    last = np.where((last < size - 1) & accepted[rows, np.minimum(last + 1, size - 1)],
                    last + 1, last)
    points = ~stretches.any(axis=1)                     # only isolated points accepted
    nearest = np.argmin(np.where(accepted, np.abs(np.arange(size) - K), size), axis=1)
    first, last = np.where(points, nearest, first), np.where(points, nearest, last)
    zero = 2 * (breakpoints < 0).sum(axis=1) + (breakpoints == 0).any(axis=1)
    at_zero = accepted[rows, zero]
    first = np.where(at_zero, np.minimum(first, zero), first)
    last = np.where(at_zero, np.maximum(last, zero), last)
    return first, last


def _bounds_contain(interval, value):
    """Whether the reported bounds (their ends open or closed) hold ``value``."""
    above = np.where(interval.low_open, interval.low < value, interval.low <= value)
    below = np.where(interval.high_open, value < interval.high, value <= interval.high)
    return above & below


def walsh_averages(d):
    """The sorted Walsh averages ``(d_i + d_j) / 2, i <= j`` of each row, shape (n, F(F+1)/2)."""
    i, j = np.triu_indices(d.shape[1])
    walsh = (d[:, i] + d[:, j]) / 2
    walsh.sort(axis=1)
    return walsh
