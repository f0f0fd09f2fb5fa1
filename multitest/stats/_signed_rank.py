"""Wilcoxon signed-rank test with its exact conditional null distribution.

Shared by the fold test of stage 1 (:mod:`multitest.stats`) and the
second pass over data sets (:mod:`multitest.stats._posthoc`); vectorized over the rows
of a difference matrix ``d`` (one row per pair of algorithms).

Conventions
-----------
- ``T+`` is the sum of the ranks of ``|d|`` over the positive ``d``; ties get
  mid-ranks. ``zero_method="wilcox"`` drops zero differences before ranking;
  ``"pratt"`` ranks them with the others and then drops them (Pratt 1959).
- Under the null hypothesis the signs of the non-zero differences are
  independent fair coins *given* the observed ranks (the conditional, or
  permutation, distribution; R's ``coin::wilcoxsign_test(distribution =
  "exact")`` and ``exactRankTests::wilcox.exact``). Doubled mid-ranks are
  integers, so the distribution of ``2 T+`` is counted exactly by dynamic
  programming over the ranks, in probabilities (halved at each step, so
  nothing overflows for any ``n``).
- Exact when the number of ranked differences ``n <= EXACT_MAX`` (1000): the
  non-zero ones for ``"wilcox"``, all of them for ``"pratt"``. Without ties
  (and, for ``"wilcox"``, whatever the zeros) the distribution depends on
  ``n`` only and is computed once per ``n``; a row with ties (or
  Pratt-ranked zeros) needs its own programme, ``O(n^3)`` operations (about
  1 ms at n = 100, 1 s at n = 1000).
- Beyond ``EXACT_MAX``: the normal approximation with the conditional mean
  ``sum(r) / 2`` and variance ``sum(r^2) / 4`` of the non-zero ranks ``r``,
  which is the usual tie- and zero-corrected variance, without continuity
  correction.
- ``alternative="greater"``: large ``T+`` (``d`` tends to be positive);
  ``"two-sided"``: ``min(1, 2 min(P(T+ <= t), P(T+ >= t)))``, which for this
  symmetric null equals ``P(|T+ - E T+| >= |t - E T+|)`` (coin's definition).
- All differences zero: ``T+ = 0`` and p-value 1 for every alternative.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special

from .._errors import MultitestError

__all__ = ["EXACT_MAX", "ZERO_METHODS", "signed_rank_test"]

#: Largest number of non-zero differences with an exact p-value.
EXACT_MAX = 1000
#: Treatments of zero differences.
ZERO_METHODS = ("wilcox", "pratt")
_ALTERNATIVES = ("two-sided", "less", "greater")
# Blocks of rows processed together by the tied programme: about this many cells.
_BLOCK_CELLS = 2**20
# Above this many support points a row is programmed alone (slices beat gathers).
_ROW_WISE_SIZE = 2048


def signed_rank_test(d, alternative="two-sided", zero_method="wilcox"):
    """Wilcoxon signed-rank test on each row of `d`, exact conditional p-values.

    Parameters
    ----------
    d : array_like, shape (n_rows, n)
        Paired differences, one test per row.
    alternative : {'two-sided', 'less', 'greater'}, default: 'two-sided'
        ``'greater'``: the differences tend to be positive (large ``T+``).
    zero_method : {'wilcox', 'pratt'}, default: 'wilcox'
        Zero differences dropped before ranking, or ranked and then dropped.

    Returns
    -------
    r_plus : ndarray, shape (n_rows,)
        ``T+``, the rank sum of the positive differences.
    r_minus : ndarray, shape (n_rows,)
        ``T-``, the rank sum of the negative differences.
    pvalue : ndarray, shape (n_rows,)

    Raises
    ------
    MultitestError
        If `alternative` or `zero_method` is unknown, or `d` is not a finite
        two-dimensional array.

    Examples
    --------
    Fourteen folds, five of them with a non-zero difference (issue 11): the
    exact conditional p-value is ``2 / 2**5``; one non-zero fold of 100 gives 1.

    >>> import numpy as np
    >>> from multitest.stats._signed_rank import signed_rank_test
    >>> d = np.array([[.01, .02, .03, .04, .05] + [0] * 9])
    >>> signed_rank_test(d)[2]
    array([0.0625])
    >>> signed_rank_test(np.array([[.02] + [0] * 99]))[2]
    array([1.])
    """
    d = _iv(d, alternative, zero_method)
    doubled = _doubled_ranks(d, zero_method)          # 0 for zeros
    positive = d > 0
    r_plus2 = np.where(positive, doubled, 0).sum(axis=1)
    r_minus2 = np.where(d < 0, doubled, 0).sum(axis=1)
    total2 = r_plus2 + r_minus2
    count = np.count_nonzero(d, axis=1)
    pvalue = np.ones(d.shape[0])
    # the ranks run up to the number of ranked differences: zeros count with Pratt's
    ranked = count if zero_method == "wilcox" else np.full_like(count, d.shape[1])
    exact = (count > 0) & (ranked <= EXACT_MAX)
    # Ranks 1..count exactly: ties keep the sum of the ranks but lower the sum of squares.
    squares4 = (doubled * doubled).sum(axis=1)
    untied = exact & (total2 == count * (count + 1)) & (
        3 * squares4 == 2 * count * (count + 1) * (2 * count + 1))
    for n in np.unique(count[untied]):
        rows = np.flatnonzero(untied & (count == n))
        cdf = _untied_cdf(int(n))                      # in units of 1, not 2
        pvalue[rows] = _tails(lambda x, cdf=cdf: cdf[x], r_plus2[rows] // 2,
                              total2[rows] // 2, alternative)
    tied = np.flatnonzero(exact & ~untied)
    if tied.size:
        pvalue[tied] = _tied_pvalues(doubled[tied], r_plus2[tied], total2[tied], alternative)
    normal = np.flatnonzero((count > 0) & (ranked > EXACT_MAX))
    if normal.size:
        pvalue[normal] = _normal_pvalues(doubled[normal], r_plus2[normal], alternative)
    return r_plus2 / 2, r_minus2 / 2, pvalue


def _iv(d, alternative, zero_method):
    if alternative not in _ALTERNATIVES:
        raise MultitestError(f"`alternative` must be one of {', '.join(_ALTERNATIVES)}; "
                             f"got {alternative!r}")
    if zero_method not in ZERO_METHODS:
        raise MultitestError(f"`zero_method` must be one of {', '.join(ZERO_METHODS)}; "
                             f"got {zero_method!r}")
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 2 or not np.isfinite(d).all():
        raise MultitestError("`d` must be a two-dimensional array of finite differences")
    return d


def _doubled_ranks(d, zero_method):
    """Twice the mid-ranks of ``|d|`` per row (integers), 0 for zero differences."""
    magnitude = np.abs(d)
    if zero_method == "wilcox":
        magnitude = np.where(d == 0, np.inf, magnitude)   # zeros rank last, then dropped
    from scipy.stats import rankdata   # scipy.stats costs ~1 s to import: when used

    ranks = rankdata(magnitude, axis=1)                   # mid-ranks: halves at most
    doubled = np.rint(2 * ranks).astype(np.int64)
    doubled[d == 0] = 0
    return doubled


@functools.lru_cache(maxsize=64)
def _untied_cdf(n):
    """``P(T+ <= t)`` for n untied non-zero ranks 1..n, t = 0 .. n (n+1) / 4.

    Only the lower half is kept (:func:`_tails` reads nothing above the
    centre), which halves both the work and the cache (2 MB at n = 1000).
    """
    size = n * (n + 1) // 4 + 1
    p = np.zeros(size)
    p[0] = 1.0
    for k in range(1, n + 1):   # multiply the generating function by (1 + x^k) / 2
        if k < size:
            p[k:] = 0.5 * (p[k:] + p[:-k])
        p[:k] *= 0.5
    cdf = np.cumsum(p)
    cdf.setflags(write=False)
    return cdf


def _tails(cdf_at, t, total, alternative):
    """p-values from a lower-tail function ``cdf_at(x) = P(T <= x)``, symmetric null.

    ``T`` ranges over the integers 0 .. `total` and is symmetric about
    ``total / 2``, so ``P(T >= t) = P(T <= total - t)``: both tails are read
    from the lower one, at ``x <= min(t, total - t)`` only, where the
    probabilities keep their relative accuracy (and the tied programme is
    truncated).
    """
    nearest = np.minimum(t, total - t)
    smaller = cdf_at(nearest)                              # the smaller tail
    if alternative == "two-sided":
        return np.minimum(1.0, 2 * smaller)
    if alternative == "less":     # P(T <= t) = 1 - P(T <= total - t - 1) above the centre
        direct, other = t <= total - t, total - t - 1
    else:                         # P(T >= t) = 1 - P(T <= t - 1) below the centre
        direct, other = total - t <= t, t - 1
    complement = np.where(other >= 0, 1.0 - cdf_at(np.clip(other, 0, nearest)), 1.0)
    return np.where(direct, smaller, complement)


def _tied_pvalues(doubled, r_plus2, total2, alternative):
    """Exact p-values of rows with tied (or Pratt-shifted) doubled ranks."""
    t_low = np.minimum(r_plus2, total2 - r_plus2)
    out = np.empty(len(doubled))
    order = np.argsort(-t_low, kind="stable")              # largest support first
    start = 0
    while start < order.size:
        size = int(t_low[order[start]]) + 1
        block = order[start:start + max(1, _BLOCK_CELLS // size)]
        cdf = _lower_cdf(doubled[block], size)
        row = np.arange(block.size)
        out[block] = _tails(lambda x: cdf[row, np.minimum(x, size - 1)], r_plus2[block],
                            total2[block], alternative)
        start += block.size
    return out


def _lower_cdf(weights, size):
    """``P(2 T+ <= x)`` for x = 0 .. size - 1, each row its own doubled ranks.

    The ranks are added smallest first, so that the support reached so far,
    ``sum`` of the ranks added, stays below `size` for as long as possible and
    only that part of the table is updated.
    """
    n_rows = len(weights)
    weights = np.sort(weights, axis=1)                  # zeros (dropped) first: no-ops
    reach = np.minimum(np.cumsum(weights, axis=1).max(axis=0), size - 1)
    p = np.zeros((n_rows, size))
    p[:, 0] = 1.0
    if size > _ROW_WISE_SIZE:
        for r in range(n_rows):
            row = p[r]
            tops = np.minimum(np.cumsum(weights[r]), size - 1).tolist()
            for w, top in zip(weights[r].tolist(), tops):
                if w == 0:
                    continue
                end = top + 1                           # entries above top are zero
                if w < end:
                    row[w:end] += row[:end - w]         # overlapping: numpy buffers
                row[:end] *= 0.5
        return np.cumsum(p, axis=1)
    first = int(np.argmax(weights.any(axis=0))) if weights.any() else weights.shape[1]
    for k in range(first, weights.shape[1]):      # columns of dropped zeros only: no-ops
        end = reach[k] + 1
        w = weights[:, k:k + 1]
        source = np.arange(end) - w
        shifted = np.take_along_axis(p[:, :end], np.maximum(source, 0), axis=1)
        # w = 0 (a dropped zero): shifted is p itself, unchanged
        p[:, :end] = 0.5 * (p[:, :end] + np.where(source >= 0, shifted, 0.0))
    return np.cumsum(p, axis=1)


def _normal_pvalues(doubled, r_plus2, alternative):
    """Normal approximation with the conditional mean and variance of ``T+``."""
    w = doubled.astype(np.float64)
    mean = w.sum(axis=1) / 4
    sd = np.sqrt((w * w).sum(axis=1) / 16)
    z = (r_plus2 / 2 - mean) / sd
    if alternative == "greater":
        return special.ndtr(-z)
    if alternative == "less":
        return special.ndtr(z)
    return np.minimum(1.0, 2 * special.ndtr(-np.abs(z)))
