"""Effect sizes beside every decision (conventions in ``docs/explanation/effect-sizes.md``).

- Per data set: the interval of the chosen pairwise test, the shifts of
  ``d = a - b`` (cheaper minus costlier: positive means the costlier is
  better) it does not reject (:attr:`multitest.stats.PairwiseTest.interval`,
  :mod:`multitest.stats._fold_intervals`).  Computed on demand from the fold
  errors, never stored for a whole run.
- Over data sets: the Hodges–Lehmann median of the per-data-set differences
  of mean errors with its Wilcoxon signed-rank confidence interval, as R's
  ``wilcox.test(d, conf.int=TRUE)`` (:func:`wilcoxon_interval`), and the
  probability of superiority (:func:`over_datasets`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .._errors import MultitestError
from .._cpus import usable_cpus
from ._posthoc import _pair_differences
from ._signed_rank import sign_counts
from ._walsh import (_WALSH_ELEMENTS, _exact_positions, _normal_intervals, _sorted_roots,
                     _walsh_averages)
from ._walsh_selection import _selected_intervals
from ._validation import _iv_probability

__all__ = ["WilcoxonInterval", "PairEffects", "wilcoxon_interval", "over_datasets"]

#: Over-data-set intervals are computed when pairs x S^2 / 2 (the Walsh
#: averages of every pair) stays below this; above, they are left out (null).
OVER_DATASETS_LIMIT = 200_000_000


# --------------------------------------------------------------------------
# Over data sets: Hodges–Lehmann with the Wilcoxon interval (R's wilcox.test)
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class WilcoxonInterval:
    """Hodges–Lehmann estimate and Wilcoxon confidence interval of one sample.

    Attributes
    ----------
    estimate : float
        Median of the Walsh averages of the non-zero differences.
    low, high : float
        Interval bounds (NaN when R gives none: a single non-zero difference
        or all of them tied in absolute value with the normal approximation).
    level : float
        The level achieved (R lowers it when the requested one is not
        achievable and warns).
    exact : bool
        Exact signed-rank distribution (fewer than 50 non-zero differences,
        no ties, no zeros) or normal approximation with continuity correction.
    n : int
        Number of non-zero differences.

    Examples
    --------
    >>> from multitest.stats import wilcoxon_interval
    >>> interval = wilcoxon_interval([1.5, 2.25, -0.5, 3.125, 0.75])
    >>> type(interval).__name__, interval.estimate
    ('WilcoxonInterval', 1.5)
    """

    estimate: float
    low: float
    high: float
    level: float
    exact: bool
    n: int


def wilcoxon_interval(d, level=0.95):
    """Hodges–Lehmann estimate and interval as R's ``wilcox.test(d, conf.int=TRUE)``.

    Parameters
    ----------
    d : array_like, shape (S,)
        Paired differences.
    level : float, default 0.95

    Returns
    -------
    WilcoxonInterval

    Notes
    -----
    R's conventions, followed exactly: zero differences are dropped first
    (also from the estimate and the interval); with fewer than 50 remaining,
    no ties and no zeros the interval is that of the exact signed-rank
    distribution (order statistics of the Walsh averages), otherwise it is
    the normal approximation with continuity correction, inverted on the
    Walsh averages (R's ``uniroot`` with a vanishing tolerance: the root of
    that step function is a Walsh average), widening as R does when the
    level is not achievable.  The estimate is always the median of the Walsh
    averages (R's own estimate in the exact case; in the approximate case R
    reports the root of the centred statistic instead).  All differences zero:
    estimate 0 and interval ``[0, 0]`` (R gives NaN).

    Examples
    --------
    >>> from multitest.stats import wilcoxon_interval
    >>> w = wilcoxon_interval([1.5, 2.25, -0.5, 3.125, 0.75])
    >>> w.estimate, w.low, w.high, w.exact
    (1.5, -0.5, 3.125, True)
    """
    level = _iv_probability(level, "level")
    x = np.asarray(d, dtype=float).ravel()
    if not np.isfinite(x).all():
        raise MultitestError("`d` must be finite")
    estimate, low, high, achieved = (float(v[0]) for v in _column_intervals(x[:, None], level))
    nonzero = x[x != 0]
    n = nonzero.size
    exact = bool(0 < n < 50 and n == x.size and np.unique(np.abs(nonzero)).size == n)
    return WilcoxonInterval(estimate=estimate, low=low, high=high, level=achieved, exact=exact,
                            n=n)


# --------------------------------------------------------------------------
# The same intervals for many samples at once
# --------------------------------------------------------------------------

def _column_intervals(d, level):
    """:func:`wilcoxon_interval` of every column of ``d``, vectorized.

    Returns ``(estimate, low, high, level)`` arrays.  Samples are grouped by
    their number of non-zero differences; each group is handled in whole-array
    steps: the Walsh averages sorted per sample, the exact interval as two
    order statistics, the normal approximation as a binary search run on every
    sample at once (each step one vectorized :func:`_w_statistics`).
    """
    samples = np.ascontiguousarray(np.asarray(d, dtype=float).T)    # one sample per row
    m, S = samples.shape
    out = tuple(np.full(m, np.nan) for _ in range(4))
    nonzero = samples != 0
    counts = nonzero.sum(axis=1)
    empty = counts == 0
    for target, value in zip(out, (0.0, 0.0, 0.0, level)):
        target[empty] = value
    for n in np.unique(counts[~empty]).tolist():
        rows = np.flatnonzero(counts == n)
        step = max(1, _WALSH_ELEMENTS // (n * (n + 1) // 2 if n < _SELECT_FROM else 16 * n))
        for r0 in range(0, rows.size, step):
            group = rows[r0:r0 + step]
            x = samples[group][nonzero[group]].reshape(group.size, n)   # the non-zero values
            for target, value in zip(out, _group_intervals(x, counts[group] < S, level)):
                target[group] = value
    return out


#: From this many non-zero differences on (no exact interval, R's 50) the order
#: statistics of the Walsh averages are selected without forming them all
#: (:func:`_selected_intervals`, O(n log n) per sample); below, sorted.
_SELECT_FROM = 50


def _group_intervals(x, has_zero, level):
    """:func:`_column_intervals` of samples (rows) with the same number ``n`` of values."""
    m, n = x.shape
    if n >= _SELECT_FROM:
        return _selected_intervals(x, level)
    walsh = _walsh_averages(x)
    walsh.sort(axis=1)
    estimate = _sorted_median(walsh)
    low, high, achieved = np.empty(m), np.empty(m), np.full(m, level)
    sorted_abs = np.sort(np.abs(x), axis=1)
    ties = np.any(sorted_abs[:, 1:] == sorted_abs[:, :-1], axis=1)
    exact = ~ties & ~has_zero if n < 50 else np.zeros(m, dtype=bool)
    if exact.any():
        qu, ql, exact_level = _exact_positions(n, level)
        low[exact], high[exact] = walsh[exact, qu - 1], walsh[exact, ql]
        achieved[exact] = exact_level
    normal = ~exact
    if normal.any():
        xn, w, median = x[normal], walsh[normal], estimate[normal]
        estimate[normal], low[normal], high[normal], achieved[normal] = _normal_intervals(
            xn, w[:, 0], w[:, -1], level, lambda rows, zq_low, zq_high: (
                median, _sorted_roots(xn[rows], w[rows], zq_low),
                _sorted_roots(xn[rows], w[rows], zq_high)))
    return estimate, low, high, achieved


def _sorted_median(walsh):
    """The median of every sorted row, as :func:`numpy.median` computes it."""
    half = walsh.shape[1] // 2
    return walsh[:, half] if walsh.shape[1] % 2 else (walsh[:, half - 1] + walsh[:, half]) / 2




# --------------------------------------------------------------------------
# Every pair of algorithms over data sets
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PairEffects:
    """Effect sizes over data sets of the pairs ``(a[k], b[k])`` (algorithm indices).

    ``d = e_a - e_b`` per data set (mean errors): positive means ``b`` is better.

    Attributes
    ----------
    a, b : ndarray of int, shape (n,)
    hodges_lehmann, low, high, level : ndarray, shape (n,)
        From :func:`wilcoxon_interval`; NaN when not computed (see
        :data:`OVER_DATASETS_LIMIT` and :func:`over_datasets`).
    b_better, ties, a_better : ndarray of int, shape (n,)
        Data sets where ``b`` / neither / ``a`` has the lower mean error.
    superiority : ndarray, shape (n,)
        Probability of superiority of ``b``: ``(b_better + ties / 2) / S``.

    Examples
    --------
    >>> from multitest.stats import over_datasets
    >>> effects = over_datasets([[0.10, 0.20], [0.15, 0.20], [0.30, 0.25], [0.12, 0.18]])
    >>> type(effects).__name__, int(effects.a[0]), int(effects.b[0]), float(effects.superiority[0])
    ('PairEffects', 0, 1, 0.25)
    """

    a: np.ndarray
    b: np.ndarray
    hodges_lehmann: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: np.ndarray
    b_better: np.ndarray
    ties: np.ndarray
    a_better: np.ndarray
    superiority: np.ndarray


def over_datasets(mean_errors, pairs=None, level=0.95, intervals=True):
    """Hodges–Lehmann, Wilcoxon interval and probability of superiority of pairs.

    Parameters
    ----------
    mean_errors : array_like, shape (S, L)
    pairs : tuple of two int arrays, optional
        ``(a, b)``; default every pair ``a < b``.
    level : float, default 0.95
    intervals : bool, default True
        Compute the Hodges–Lehmann estimates and intervals (within
        :data:`OVER_DATASETS_LIMIT`); False: NaN, the counts only.

    Returns
    -------
    PairEffects

    Examples
    --------
    >>> from multitest.stats import over_datasets
    >>> effects = over_datasets([[0.10, 0.20], [0.15, 0.20], [0.30, 0.25], [0.12, 0.18]])
    >>> round(float(effects.hodges_lehmann[0]), 4), int(effects.a_better[0])
    (-0.0525, 3)
    """
    level = _iv_probability(level, "level")
    e = np.asarray(mean_errors, dtype=float)
    S, L = e.shape
    a, b = np.triu_indices(L, k=1) if pairs is None else map(np.asarray, pairs)
    b_better, a_better = np.empty(a.size, dtype=int), np.empty(a.size, dtype=int)
    hl, low, high, achieved = (np.full(a.size, np.nan) for _ in range(4))
    intervals = bool(intervals) and a.size * S * (S + 1) / 2 <= OVER_DATASETS_LIMIT
    for chunk, d in _pair_differences(e, a, b, 1 << 20):        # d: (pairs, S)
        b_better[chunk], a_better[chunk] = sign_counts(d)
        if intervals:
            hl[chunk], low[chunk], high[chunk], achieved[chunk] = _threaded_intervals(d, level)
    ties = S - b_better - a_better
    return PairEffects(a=a, b=b, hodges_lehmann=hl, low=low, high=high, level=achieved,
                       b_better=b_better, ties=ties, a_better=a_better,
                       superiority=(b_better + ties / 2) / S)


#: Pairs x data sets from which :func:`over_datasets` computes the intervals on threads,
#: each at least this many: the sorts, searches and gathers of numpy leave the GIL
#: (S = 1000 x L = 20, 190,000: 0.27 s on one thread, 0.14 s on two).
_THREAD_CELLS = 1 << 15
#: Most threads: each holds up to :data:`_WALSH_ELEMENTS` Walsh averages (32 MB) at once.
_MAX_THREADS = 4


def _threaded_intervals(d, level):
    """:func:`_column_intervals` of the pairs (rows) of ``d``, in contiguous groups of pairs
    on one thread per usable CPU (at most :data:`_MAX_THREADS`).  A pair's interval never
    depends on the other pairs of its call (the pivots change only the time), so the
    floats are those of one call."""
    parts = min(usable_cpus(), _MAX_THREADS, d.size // _THREAD_CELLS, d.shape[0])
    if parts < 2:
        return _column_intervals(d.T, level)
    cuts = np.linspace(0, d.shape[0], parts + 1).astype(int)
    with ThreadPoolExecutor(parts, thread_name_prefix="multitest-intervals") as pool:
        done = list(pool.map(lambda k: _column_intervals(d[cuts[k]:cuts[k + 1]].T, level),
                             range(parts)))
    return tuple(np.concatenate(values) for values in zip(*done))
