"""Wilcoxon signed-rank and sign tests, vectorized over rows: the one kernel.

The one implementation of the signed-rank statistic and its null
distributions, and of the sign test: used by the fold tests of stage 1
(:mod:`multitest.stats._fold_tests`), the second pass over data sets
(:mod:`multitest.stats._over_datasets`) and the Hodges--Lehmann intervals
(:mod:`multitest.stats._effect_sizes`); vectorized over the rows of a
difference matrix ``d`` (one row per pair of algorithms).

- :func:`signed_rank_test`: the exact conditional test (below);
- :func:`scipy_signed_rank_test`: the same statistic with
  :func:`scipy.stats.wilcoxon`'s choice of null distribution;
- :func:`sign_test_rows`: wins against losses, binomial;
- the pieces they share: :func:`_signed_rank_sums` (``T+``, the number of
  non-zero differences and the tie term, from one sort per row),
  :func:`_doubled_ranks` (twice the mid-ranks under either zero method),
  :func:`_untied_cdf` (the exact null without ties), :func:`_tied_pvalues`
  (the exact conditional null of given ranks) and :func:`_normal_pvalues`
  (the normal approximation).

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
from ._distributions import _get_pvalue, _HalfBinomial
from ._validation import _iv_choice

__all__ = ["signed_rank_test"]

#: Largest number of non-zero differences with an exact p-value.
EXACT_MAX = 1000
#: Treatments of zero differences.
ZERO_METHODS = ("wilcox", "pratt")
_ALTERNATIVES = ("two-sided", "less", "greater")
# Blocks of rows processed together by the tied programme: about this many cells.
_BLOCK_CELLS = 2**20
# Above this many support points a row is programmed alone (slices beat gathers).
_ROW_WISE_SIZE = 2048
# scipy.stats.wilcoxon(method="auto"): exact distribution up to this many
# observations (no ties, no zeros) ...
_SCIPY_EXACT_MAX = 50
# ... and exact permutation distribution up to this many with ties or zeros.
_SCIPY_PERMUTATION_MAX = 13


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
    Fourteen folds, five of them with a non-zero difference: the
    exact conditional p-value is ``2 / 2**5``; one non-zero fold of 100 gives 1.

    >>> import numpy as np
    >>> from multitest.stats import signed_rank_test
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
        w = doubled[normal].astype(np.float64)
        pvalue[normal] = _normal_pvalues(r_plus2[normal] / 2, w.sum(axis=1) / 4,
                                         (w * w).sum(axis=1) / 16, alternative)
    return r_plus2 / 2, r_minus2 / 2, pvalue


def scipy_signed_rank_test(d, alternative="two-sided"):
    """Wilcoxon signed-rank test on each row of `d`, as :func:`scipy.stats.wilcoxon`.

    The result equals ``scipy.stats.wilcoxon(d[i], alternative=...)`` with its
    defaults (SciPy >= 1.15, ``method="auto"``): zero differences dropped
    (``zero_method="wilcox"``); with at most 50 differences, neither zeros nor
    ties, the exact null distribution; with zeros or ties and at most 13
    differences the exact sign-flip (permutation) distribution, which is the
    conditional null of :func:`signed_rank_test`; otherwise the normal
    approximation with the tie correction and no continuity correction. A row
    of zeros gives p-value 1 (SciPy: NaN beyond 13 differences).

    Parameters
    ----------
    d : ndarray, shape (n_rows, n)
        Paired differences, one test per row (finite).
    alternative : {'two-sided', 'less', 'greater'}, default: 'two-sided'
        ``'greater'``: the differences tend to be positive (large ``T+``).

    Returns
    -------
    r_plus, r_minus, pvalue : ndarray, shape (n_rows,)

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._signed_rank import scipy_signed_rank_test
    >>> d = np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> r_plus, r_minus, p = scipy_signed_rank_test(d)
    >>> r_plus, r_minus, p.round(4)
    (array([51.]), array([4.]), array([0.0137]))
    """
    r_plus, count, tie_term = _signed_rank_sums(d)
    r_minus = count * (count + 1) / 2 - r_plus
    n = d.shape[1]
    pvalue = np.ones(d.shape[0])
    live = count > 0
    untied = (tie_term == 0) & (count == n) & live
    exact = untied if n <= _SCIPY_EXACT_MAX else np.zeros_like(untied)
    flips = live & ~exact if n <= _SCIPY_PERMUTATION_MAX else np.zeros_like(untied)
    normal = live & ~exact & ~flips
    if exact.any():
        cdf = _untied_cdf(n)
        t = np.rint(r_plus[exact]).astype(np.int64)
        pvalue[exact] = _tails(lambda x: cdf[x], t, n * (n + 1) // 2, alternative)
    if flips.any():
        doubled = _doubled_ranks(d[flips], "wilcox")
        pvalue[flips] = _tied_pvalues(doubled, np.rint(2 * r_plus[flips]).astype(np.int64),
                                      doubled.sum(axis=1), alternative)
    if normal.any():
        c, ties = count[normal], tie_term[normal]
        pvalue[normal] = _normal_pvalues(r_plus[normal], c * (c + 1) / 4,
                                         (c * (c + 1) * (2 * c + 1) - ties / 2) / 24, alternative)
    return r_plus, r_minus, pvalue


def sign_test_rows(d, alternative="two-sided"):
    """Sign test on each row of `d`: wins (``d > 0``) against losses, zeros dropped.

    Parameters
    ----------
    d : ndarray, shape (n_rows, n)
        Paired differences, one test per row.
    alternative : {'two-sided', 'less', 'greater'}, default: 'two-sided'
        ``'greater'``: more positive differences than negative ones.

    Returns
    -------
    wins, losses : ndarray of int, shape (n_rows,)
        The numbers of positive and of negative differences.
    pvalue : ndarray, shape (n_rows,)
        ``scipy.stats.binomtest(wins, wins + losses, 0.5, alternative).pvalue``;
        two-sided, twice the smaller tail at `wins` (see
        :func:`sign_test_pvalues`); 1 when every difference is zero.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._signed_rank import sign_test_rows
    >>> wins, losses, p = sign_test_rows(np.array([[.01, .03, -.005, .02, .04, .015, 0, .025]]))
    >>> wins, losses, p.round(4)
    (array([6]), array([1]), array([0.125]))
    """
    wins, losses = sign_counts(d)
    return wins, losses, sign_test_pvalues(wins, wins + losses, alternative)


def sign_counts(d):
    """The numbers of positive and of negative entries of each row of `d`."""
    return (d > 0).sum(axis=1), (d < 0).sum(axis=1)


def sign_test_pvalues(wins, trials, alternative="two-sided"):
    """p-values of `wins` successes in `trials` under Binomial(trials, 1/2).

    ``'less'``: ``P(X <= wins)``; ``'greater'``: ``P(X >= wins)``; two-sided:
    ``min(1, 2 min(P(X <= wins), P(X >= wins)))``, each tail evaluated where it
    is the smaller one. No trials: p-value 1.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._signed_rank import sign_test_pvalues
    >>> sign_test_pvalues(np.array([1, 0]), np.array([8, 0]))
    array([0.0703125, 1.       ])
    """
    pvalue = _get_pvalue(wins, _HalfBinomial(trials), alternative)
    return np.where(trials == 0, 1.0, pvalue)


def _signed_rank_sums(d, kind=None):
    """Signed-rank summaries of each row of `d`, zeros dropped.

    Returns T+ (sum of the average ranks of |d| over positive d), the number
    of non-zero differences and the tie term sum(t^3 - t) over tie groups of
    non-zero |d|, as ``scipy.stats.wilcoxon(zero_method="wilcox")`` ranks them.
    Every quantity is a sum of integers and half-integers, so exact (and equal
    to the sums of :func:`_doubled_ranks`, which rank the same way).

    One sort per row: the bit pattern of |d| (a uint64 that orders as |d|
    does, with its top bit clear), shifted left, carries the sign of d in its
    lowest bit, and zeros sort first. A positive d at sorted position j
    (0-based) has rank ``j + 1 - zeros`` if untied; tie groups then move each
    of their positive members to the middle of the group, which touches the
    tied values only.  ``kind``: the sorting algorithm (:meth:`numpy.ndarray.sort`; the
    keys are integers, so every algorithm sorts them alike): ``"stable"`` merges the runs
    of a row whose ``|d|`` falls then rises, as ``d - shift`` of a sorted row does.
    """
    n_rows, n_cols = d.shape
    key = np.abs(d).view(np.uint64) << np.uint64(1)
    key |= d > 0
    key.sort(axis=1, kind=kind)
    positive = (key & 1).astype(np.float64)
    magnitude = key >> 1
    zeros = np.count_nonzero(magnitude == 0, axis=1)
    count = n_cols - zeros
    # not a matrix product: BLAS is slow here and its rounding order varies
    r_plus = np.einsum("ij,j->i", positive, np.arange(1.0, n_cols + 1))
    r_plus -= zeros * positive.sum(axis=1)
    tie_term = np.zeros(n_rows)
    # joins[:, j]: element j ties with element j - 1 (zeros are not ranked)
    joins = np.zeros((n_rows, n_cols + 1), dtype=bool)
    np.equal(magnitude[:, 1:], magnitude[:, :-1], out=joins[:, 1:n_cols])
    joins[:, 1:n_cols] &= magnitude[:, 1:] != 0
    if not joins.any():
        return r_plus, count, tie_term
    tied = np.flatnonzero(joins[:, :-1] | joins[:, 1:])  # flat positions, row-major
    group_start = np.flatnonzero(~joins[:, :-1].ravel()[tied])
    size = np.diff(group_start, append=tied.size)
    middle = tied[group_start] + (size - 1) / 2
    shift = positive.ravel()[tied] * (np.repeat(middle, size) - tied)
    # per-row sums through cumulative sums cut at the row boundaries
    row_bounds = np.arange(n_rows + 1) * n_cols
    cumulative = np.concatenate([[0.0], np.cumsum(shift)])
    r_plus += np.diff(cumulative[np.searchsorted(tied, row_bounds)])
    size = size.astype(np.float64)
    cumulative = np.concatenate([[0.0], np.cumsum(size**3 - size)])
    tie_term = np.diff(cumulative[np.searchsorted(tied[group_start], row_bounds)])
    return r_plus, count, tie_term



def _iv(d, alternative, zero_method):
    _iv_choice(alternative, "alternative", _ALTERNATIVES)
    _iv_choice(zero_method, "zero_method", ZERO_METHODS)
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 2 or not np.isfinite(d).all():
        raise MultitestError("`d` must be a two-dimensional array of finite differences")
    return d


def _doubled_ranks(d, zero_method):
    """Twice the mid-ranks of ``|d|`` per row (integers), 0 for zero differences.

    ``"wilcox"``: the zeros are ranked last and then dropped (the others get
    ranks ``1..count``); ``"pratt"``: they are ranked first with the others.
    One sort per row; a tie group covering sorted positions ``first..last``
    (0-based) has the doubled mid-rank ``first + last + 2`` (as
    :func:`scipy.stats.rankdata`, without importing :mod:`scipy.stats`).
    """
    n_rows, n_cols = d.shape
    zero = d == 0
    key = np.abs(d)
    if zero_method == "wilcox":
        key[zero] = np.inf
    order = np.argsort(key, axis=1)
    key = np.take_along_axis(key, order, axis=1)
    position = np.arange(n_cols)
    starts = np.ones((n_rows, n_cols), dtype=bool)
    np.not_equal(key[:, 1:], key[:, :-1], out=starts[:, 1:])
    ends = np.ones((n_rows, n_cols), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, position, n_cols - 1)[:, ::-1], axis=1)[:, ::-1]
    doubled = np.empty((n_rows, n_cols), dtype=np.int64)
    np.put_along_axis(doubled, order, first + last + 2, axis=1)
    doubled[zero] = 0
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


def _normal_pvalues(r_plus, mean, variance, alternative):
    """Normal approximation of ``T+`` with the given mean and variance, no continuity correction.

    The conditional mean and variance ``sum(r) / 2`` and ``sum(r^2) / 4`` of
    the non-zero ranks are, for ranks ``1..n`` with tie groups ``t``, the
    usual ``n (n + 1) / 4`` and ``(n (n + 1) (2 n + 1) - sum(t^3 - t) / 2) / 24``
    (:func:`scipy.stats.wilcoxon`'s), to the last bit: every term is exact.
    """
    z = (r_plus - mean) / np.sqrt(variance)
    if alternative == "greater":
        return special.ndtr(-z)
    if alternative == "less":
        return special.ndtr(z)
    return np.minimum(1.0, 2 * special.ndtr(-np.abs(z)))
