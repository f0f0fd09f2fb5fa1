"""Walsh averages, and the Wilcoxon interval's bounds as roots of ``W(d)``, of many samples.

``W(d)``, R's centred and continuity-corrected signed-rank statistic of ``x - d``,
is a non-increasing step function of the shift ``d`` that changes value only at the
Walsh averages; the normal-approximation interval of
:func:`multitest.stats.wilcoxon_interval` is where it crosses two quantiles, found by
a binary search run on every sample at once.  The exact interval is two order
statistics (:func:`_exact_positions`).  Used by the sorted path of
:mod:`multitest.stats._effect_sizes` and by :mod:`multitest.stats._walsh_selection`.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ._signed_rank import _signed_rank_sums, _untied_cdf

__all__: list[str] = []

#: Walsh averages held at once (32 MB): by
#: :func:`multitest.stats._effect_sizes._column_intervals` and the selection's sorts.
_WALSH_ELEMENTS = 1 << 22


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


def _sorted_roots(x, walsh, zq):
    """:func:`_step_roots` of rows of sorted Walsh averages."""
    values, offsets, sizes = _distinct_sorted(walsh)
    return _step_roots(x, values, offsets, sizes, zq)


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


def _normal_intervals(x, smallest, largest, level, median_and_roots):
    """The normal-approximation branch of :func:`wilcoxon_interval`, one sample per row.

    ``smallest``, ``largest``: of each row's Walsh averages.
    ``median_and_roots(rows, zq_low, zq_high)``: the median of every row's
    Walsh averages, and where ``W - zq_low`` and ``W - zq_high`` cross zero in
    those rows (:func:`_step_roots`).  The median is the estimate except where
    ``W`` is not finite at the ends of the Walsh averages (then the midrange,
    no bounds).
    """
    m = x.shape[0]
    low, high, achieved = np.full(m, np.nan), np.full(m, np.nan), np.full(m, level)
    at_min, at_max = _w_statistics(x, smallest), _w_statistics(x, largest)
    finite = np.isfinite(at_min) & np.isfinite(at_max)
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
    a = alpha[search]
    median, low[search], high[search] = median_and_roots(
        search, special.ndtri(1 - a / 2), special.ndtri(a / 2))
    estimate = np.where(finite, median, (x.min(axis=1) + x.max(axis=1)) / 2)
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
    lo = np.zeros(x.shape[0], dtype=int)
    return values[offsets + _step_positions(x, values, offsets, zq, lo, sizes - 1)]


def _step_positions(x, values, offsets, zq, lo, hi):
    """The index (within its row) of each root found by :func:`_step_roots`, searched
    from index ``lo`` to ``hi`` of each row (changed in place)."""
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
    r_plus, nx, tie_terms = _signed_rank_sums(xd, kind="stable")
    zd = r_plus - nx * (nx + 1) / 4
    variance = nx * (nx + 1) * (2 * nx + 1) / 24 - tie_terms / 48
    with np.errstate(invalid="ignore", divide="ignore"):
        w = (zd - np.sign(zd) * 0.5) / np.sqrt(variance)
    return np.where(variance > 0, w, np.nan)

