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

from dataclasses import dataclass

import numpy as np

from .._errors import MultitestError
from .._lazy import LazyModule
from ._posthoc import _pair_differences
from ._signed_rank import _signed_rank_sums, _untied_cdf, sign_counts
from ._validation import _iv_probability

special = LazyModule("scipy.special")   # imported on first use

__all__ = ["WilcoxonInterval", "PairEffects", "wilcoxon_interval", "over_datasets",
           "OVER_DATASETS_LIMIT"]

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

#: Walsh averages held at once by :func:`_column_intervals` (32 MB).
_WALSH_ELEMENTS = 1 << 22


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
        step = max(1, _WALSH_ELEMENTS // (n * (n + 1) // 2))
        for r0 in range(0, rows.size, step):
            group = rows[r0:r0 + step]
            x = samples[group][nonzero[group]].reshape(group.size, n)   # the non-zero values
            for target, value in zip(out, _group_intervals(x, counts[group] < S, level)):
                target[group] = value
    return out


#: From this many non-zero differences on (no exact interval, R's 50) the Walsh
#: averages are partitioned around the ranks needed instead of sorted.
_PARTITION_FROM = 50


def _group_intervals(x, has_zero, level):
    """:func:`_column_intervals` of samples (rows) with the same number ``n`` of values."""
    m, n = x.shape
    walsh = _walsh_averages(x)
    if n >= _PARTITION_FROM:
        return _partitioned_intervals(x, walsh, level)
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
        xn, w = x[normal], walsh[normal]
        estimate[normal], low[normal], high[normal], achieved[normal] = _normal_intervals(
            xn, w[:, 0], w[:, -1], estimate[normal], level,
            lambda rows, zq: _sorted_roots(xn[rows], w[rows], zq))
    return estimate, low, high, achieved


def _walsh_averages(x):
    """``(x[:, i] + x[:, j]) / 2`` for every ``i <= j`` in ``np.triu_indices`` order, one
    slice per ``i`` (a gather by index arrays took 15 times longer)."""
    m, n = x.shape
    walsh = np.empty((m, n * (n + 1) // 2))
    start = 0
    for i in range(n):
        np.add(x[:, i:i + 1], x[:, i:], out=walsh[:, start:start + n - i])
        start += n - i
    walsh /= 2
    return walsh


def _sorted_median(walsh):
    """The median of every sorted row, as :func:`numpy.median` computes it."""
    half = walsh.shape[1] // 2
    return walsh[:, half] if walsh.shape[1] % 2 else (walsh[:, half - 1] + walsh[:, half]) / 2


def _sorted_roots(x, walsh, zq):
    """:func:`_step_roots` of rows of sorted Walsh averages."""
    values, offsets, sizes = _distinct_sorted(walsh)
    return _step_roots(x, values, offsets, sizes, zq)


def _partitioned_intervals(x, walsh, level):
    """:func:`_group_intervals` of ``n >= 50`` values per row (normal approximation only)
    without sorting the Walsh averages: the same numbers in O(n^2) per row.

    :func:`numpy.partition` puts the order statistics needed at their sorted
    places: the median and a window around the rank where each bound is
    expected (``N / 2 -+ z sd`` of the ``N`` Walsh averages, ``T+`` counting the
    Walsh averages above the shift); the window alone is sorted and searched as
    :func:`_step_roots` searches the whole row.  A root that falls on a window
    edge (ties, a widened level) is searched again in the fully sorted row.
    """
    m, n = x.shape
    N = walsh.shape[1]
    half = N // 2
    sd = np.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    alpha = 1 - level       # the quantiles as _normal_intervals computes them
    quantiles = (special.ndtri(1 - alpha / 2), special.ndtri(alpha / 2))
    margin = 16 + int(sd / 8)
    windows = {}
    for zq in quantiles:
        centre = int(round(N / 2 - zq * sd))
        windows[zq] = (max(0, centre - margin), min(N - 1, centre + margin))
    kth = sorted({0, N - 1, half - 1, half, *(k for w in windows.values() for k in w)})
    walsh.partition(kth, axis=1)      # in place: the fallback sorts the same values
    median = _sorted_median(walsh)    # its places are those of the sorted rows

    def roots(rows, zq):
        out = np.full(rows.size, np.nan)
        found = np.zeros(rows.size, dtype=bool)
        for key, (start, stop) in windows.items():
            use = np.flatnonzero(zq == key)
            if use.size == 0:
                continue
            values, offsets, sizes = _distinct_sorted(
                np.sort(walsh[rows[use], start:stop + 1], axis=1))
            at = _step_positions(x[rows[use]], values, offsets, sizes, zq[use])
            inside = (at > 0) & (at < sizes - 1)     # the crossing strictly inside the window
            out[use[inside]] = values[offsets + at][inside]
            found[use[inside]] = True
        rest = np.flatnonzero(~found)
        if rest.size:
            out[rest] = _sorted_roots(x[rows[rest]], np.sort(walsh[rows[rest]], axis=1), zq[rest])
        return out

    return _normal_intervals(x, walsh[:, 0], walsh[:, -1], median, level, roots)


def _exact_positions(n, level):
    """Order statistics ``(qu, ql)`` of the exact interval (``qu`` 1-based) and the level."""
    alpha = 1 - level
    # P(V <= q) for q up to the centre, where P >= 1/2 > alpha / 2: all the search needs
    cdf = _untied_cdf(n)
    # R's qsignrank(alpha/2, n): the smallest q with P(V <= q) >= alpha/2.
    qu = max(1, int(np.searchsorted(cdf, alpha / 2 - 10 * np.finfo(float).eps)))
    ql = n * (n + 1) // 2 - qu
    achieved = 2 * cdf[qu - 1]     # 2 psignrank(qu - 1, n)
    if achieved - alpha > alpha / 2:
        level = 1 - float(f"{achieved:.2g}")
    return qu, ql, level


def _normal_intervals(x, smallest, largest, median, level, roots):
    """The normal-approximation branch of :func:`wilcoxon_interval`, one sample per row.

    ``smallest``, ``largest``, ``median``: of each row's Walsh averages; the
    median is the estimate except where ``W`` is not finite at the ends of
    the Walsh averages (then the midrange, no bounds).  ``roots(rows, zq)``:
    where ``W - zq`` crosses zero in those rows (:func:`_step_roots`).
    """
    m = x.shape[0]
    low, high, achieved = np.full(m, np.nan), np.full(m, np.nan), np.full(m, level)
    at_min, at_max = _w_statistics(x, smallest), _w_statistics(x, largest)
    finite = np.isfinite(at_min) & np.isfinite(at_max)
    estimate = np.where(finite, median, (x.min(axis=1) + x.max(axis=1)) / 2)
    achieved[~finite] = 0.0
    alpha = np.full(m, 1 - level)
    widen = finite.copy()
    while True:    # R widens the interval (doubles alpha) while it is not achievable
        widen &= (at_min - special.ndtri(1 - alpha / 2) < 0) | (
            at_max - special.ndtri(alpha / 2) > 0)
        if not widen.any():
            break
        alpha[widen] *= 2
        widen &= alpha < 1
    adjust = finite & ((alpha >= 1) | (1 - level < alpha * 0.75))
    achieved[adjust] = 1 - np.minimum(1.0, alpha[adjust])
    whole = finite & (alpha >= 1)
    low[whole] = high[whole] = np.median(x[whole], axis=1)
    search = np.flatnonzero(finite & (alpha < 1))
    if search.size:
        a = alpha[search]
        low[search] = roots(search, special.ndtri(1 - a / 2))
        high[search] = roots(search, special.ndtri(a / 2))
    return estimate, low, high, achieved


def _distinct_sorted(walsh):
    """The distinct values of each sorted row, concatenated, with each row's offset and count."""
    new = np.ones(walsh.shape, dtype=bool)
    np.not_equal(walsh[:, 1:], walsh[:, :-1], out=new[:, 1:])
    sizes = new.sum(axis=1)
    offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return walsh[new], offsets, sizes


def _step_roots(x, values, offsets, sizes, zq):
    """Where each row's non-increasing step function ``W(d) - zq`` crosses zero.

    ``W`` is constant between consecutive distinct Walsh averages; the root is
    the Walsh average at which the value on its right is first below zero: a
    binary search over the intervals ``(values[k], values[k + 1])`` of each row
    (``sizes`` distinct values from ``offsets``), run on all rows at once.
    """
    return values[offsets + _step_positions(x, values, offsets, sizes, zq)]


def _step_positions(x, values, offsets, sizes, zq):
    """The index (within its row) of each root found by :func:`_step_roots`."""
    lo, hi = np.zeros(x.shape[0], dtype=int), sizes - 1
    while True:
        active = np.flatnonzero(lo < hi)
        if active.size == 0:
            return lo
        mid = (lo[active] + hi[active]) // 2
        at = offsets[active] + mid
        below = _w_statistics(x[active], (values[at] + values[at + 1]) / 2) - zq[active] < 0
        hi[active] = np.where(below, mid, hi[active])
        lo[active] = np.where(below, lo[active], mid + 1)


def _w_statistics(x, shift):
    """R's ``W(d)`` of every row of ``x`` at its own ``shift``: the centred, tie- and
    continuity-corrected signed-rank statistic (NaN where its variance is 0).

    ``T+``, the number of non-zero differences and the tie term from
    :func:`multitest.stats._signed_rank._signed_rank_sums` (ranks of
    ``|x - shift|`` among the non-zero differences, ties averaged): every rank
    is a multiple of 1/2, so every sum is exact.
    """
    xd = x - shift[:, None]
    r_plus, nx, tie_terms = _signed_rank_sums(xd)
    zd = r_plus - nx * (nx + 1) / 4
    variance = nx * (nx + 1) * (2 * nx + 1) / 24 - tie_terms / 48
    with np.errstate(invalid="ignore", divide="ignore"):
        w = (zd - np.sign(zd) * 0.5) / np.sqrt(variance)
    return np.where(variance > 0, w, np.nan)


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
            hl[chunk], low[chunk], high[chunk], achieved[chunk] = _column_intervals(d.T, level)
    ties = S - b_better - a_better
    return PairEffects(a=a, b=b, hodges_lehmann=hl, low=low, high=high, level=achieved,
                       b_better=b_better, ties=ties, a_better=a_better,
                       superiority=(b_better + ties / 2) / S)
