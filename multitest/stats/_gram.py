"""The combined 5x2 cv F decisions of every pair of algorithms at once, from one Gram product.

For a pair ``(i, j)`` with fold differences ``d = x_i - x_j`` the combined F
statistic is ``f = N / D`` with ``N = d . d`` and ``D = sum_r (d_2r - d_2r+1)^2``
(:func:`~multitest.stats._fold_tests.combined_5x2cv_f`), both quadratic forms of ``d``.  So
``N - c D = d' A d`` with the 10 x 10 matrix ``A = I - c W W'`` (``W`` the five
within-replication differences) and, expanded,
``N - c D = q_i + q_j - 2 x_i' A x_j`` with ``q_i = x_i' A x_i``: the sign of
``N - c D`` (``p < alpha`` exactly when ``f > c``, the critical value) for all
``L (L - 1) / 2`` pairs of a data set comes from one ``L x L`` matrix product.

The expansion loses precision when the errors are large and their differences
small, so every decision is guarded: the errors are first centred over the
algorithms (``d`` does not change), and a pair is decided here only when
``N - c D`` is farther from 0 than a bound on the rounding of the product *plus*
the band of :func:`~multitest.stats._fold_tests._combined_f_significant` (where
that function computes the p-value).  Every other pair (identical errors, ties
with the critical value within the band, errors whose spread drowns the
differences) is decided by ``_combined_f_significant`` itself, on its
differences computed as stage 1 computes them: the decisions are those of the
per-pair path, exactly.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special

from ._fold_tests import _BAND, _combined_f_significant

__all__ = ["combined_f_significant_all_pairs"]

#: Bound on the rounding of ``N - c D`` through the Gram product, relative to
#: ``(1 + c) (|x_i|^2 + |x_j|^2)`` of the centred errors: the products and sums of
#: 10 terms, the centring and the last additions are each a few units of 2^-53
#: per term (about 1e-14 in all); 1e-12 leaves a factor of 100.
_ROUNDING = 1e-12
#: Floor of the guard: products of errors below about 1e-150 lose their relative
#: precision (subnormal numbers); every pair of such errors is decided per pair.
_UNDERFLOW = 1e-290
#: Products computed at once (8 MB): rows of a data set, or several data sets.
_BLOCK = 1 << 20


def combined_f_significant_all_pairs(x, alpha, rows=None, lower=None):
    """Whether the combined 5x2 cv F p-value of each pair ``i < j`` is below ``alpha``.

    Parameters
    ----------
    x : ndarray, shape (n, L, 10)
        Per-fold errors of ``L`` algorithms on each of ``n`` data sets, 5x2 cv,
        replication-major; pair ``(i, j)`` is ``a = x[:, i]``, ``b = x[:, j]``.
    alpha : float
    rows : tuple of int, optional
        ``(i0, i1)``: only the pairs whose first algorithm is ``i0 <= i < i1``
        (default: every pair).
    lower : ndarray, shape (n, L), optional
        When given, only the pairs with ``lower[:, j] < lower[:, i]`` are
        decided, the others are False: stage 1 passes the mean errors, and a
        pair is an override only when the costlier ``j`` has the lower one.

    Returns
    -------
    ndarray of bool, shape (n, pairs)
        Pairs in the order ``(i, j)``, ``i`` then ``j > i`` (that of
        :func:`numpy.triu_indices` with ``k=1``): the decisions of
        ``combined_5x2cv_f(a, b)[1] < alpha``, exactly (and with ``lower``).

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._fold_tests import combined_5x2cv_f
    >>> x = np.random.default_rng(0).uniform(0.2, 0.25, (2, 6, 10))
    >>> x[:, 5] -= 0.1                                # one clearly better algorithm
    >>> first, second = np.triu_indices(6, k=1)
    >>> p = combined_5x2cv_f(x[:, first].reshape(-1, 10), x[:, second].reshape(-1, 10))[1]
    >>> got = combined_f_significant_all_pairs(x, 0.05)
    >>> bool(np.array_equal(got, (p < 0.05).reshape(2, -1)))
    True
    >>> bool(got[:, second == 5].all()), int(got[:, second < 5].sum())
    (True, 1)
    """
    n, L, F = x.shape
    i0, i1 = (0, L - 1) if rows is None else rows
    critical = float(special.fdtri(10, 5, 1 - alpha))
    if not (np.isfinite(critical) and critical > 0) or n == 0 or i1 <= i0:
        first, second, _ = _pairs(L, i0, i1)
        s = np.arange(n).repeat(first.size)
        significant = _exact(x, s, np.tile(first, n), np.tile(second, n), alpha)
        significant = significant.reshape(n, first.size)
        if lower is not None:
            significant &= lower[:, second] < lower[:, first]
        return significant
    left, right, margin = _extended(x, critical)
    # The bound of a data set below which none of its pairs is significant (4 max margin).
    floor = -4 * margin.max(axis=1)[:, None, None]
    out = []
    step = max(1, _BLOCK // max(1, n * L))
    for r0 in range(i0, i1, step):     # rows of at most about _BLOCK products
        out.append(_decide(x, left, right, (margin, floor), (r0, min(i1, r0 + step)), alpha,
                           lower))
    return out[0] if len(out) == 1 else np.concatenate(out, axis=1)


def _decide(x, left, right, margins, rows, alpha, lower):
    """The decisions of the pairs of ``rows`` (see combined_f_significant_all_pairs);
    `margins`: the margin of each algorithm and the floor of each data set."""
    n, L, _ = x.shape
    i0, i1 = rows
    margin, floor = margins
    first, second, index = _pairs(L, i0, i1)
    # A lower bound of N - c D with the band and the rounding taken off: decided here
    # when above 0 (significant) or below -2 (margin_i + margin_j) (not); between, the
    # bound of a data set (4 max margin) picks the few to check.
    excess = left[:, i0:i1] @ right[:, i0 + 1:].transpose(0, 2, 1)
    decided = excess > 0
    unsure = excess >= floor
    if lower is not None:
        better = lower[:, None, i0 + 1:] < lower[:, i0:i1, None]
        decided &= better
        unsure &= better
    significant = np.take(decided.reshape(n, -1).view(np.uint8), index, axis=1).view(bool)
    unsure ^= decided                     # the doubtful ones (decided implies unsure)
    doubtful = np.flatnonzero(unsure)     # one flat search: 3-d nonzero is 2x slower
    if doubtful.size:
        s, r, c = np.unravel_index(doubtful, unsure.shape)
        keep = c >= r                                  # pairs j > i only
        s, r, c = s[keep], r[keep], c[keep]
        i, j = r + i0, c + i0 + 1
        check = excess[s, r, c] >= -2 * (margin[s, i] + margin[s, j])
        s, i, j = s[check], i[check], j[check]
        if s.size:
            # Place of pair (i, j) among the pairs of rows i0:i1.
            p = (i - i0) * (L - 1) - ((i - i0) * (i + i0 - 1)) // 2 + (j - i - 1)
            significant[s, p] = _exact(x, s, i, j, alpha)
    return significant


def _extended(x, critical):
    """The centred errors extended by two columns, ``left`` and ``right`` (n, L, F + 2),
    and per algorithm half the width of the guard, ``margin`` (n, L).

    ``N - c D = q_i + q_j - x_i' (2 A) x_j`` and ``left_i . right_j`` is that
    minus ``margin_i + margin_j``: ``[x_i, q_i - margin_i, 1] . [-(2 A) x_j, 1,
    q_j - margin_j]``, one product for every pair.
    """
    n, L, F = x.shape
    centred = x - np.einsum("slf->sf", x)[:, None, :] / L
    within = centred[..., 0::2] - centred[..., 1::2]            # (n, L, 5)
    norm = np.einsum("slf,slf->sl", centred, centred)
    spread = np.einsum("slf,slf->sl", within, within)
    margin = _ROUNDING * (1 + critical) * norm + 4 * _BAND * critical * spread + _UNDERFLOW
    left = np.empty((n, L, F + 2))
    left[..., :F] = centred
    left[..., F] = norm - critical * spread - margin
    left[..., F + 1] = 1.0
    right = np.empty_like(left)
    np.matmul(centred, -2 * (np.eye(F) - critical * _within_outer(F)), out=right[..., :F])
    right[..., F] = 1.0
    right[..., F + 1] = left[..., F]
    return left, right, margin


@functools.lru_cache(maxsize=64)
def _pairs(L, i0, i1):
    """``(first, second, index)`` of the pairs ``i0 <= i < i1``, ``j > i``; ``index``
    their place in an array of rows ``i0:i1`` and columns ``i0 + 1:L``."""
    rows = np.arange(i0, i1)
    counts = L - 1 - rows
    first = np.repeat(rows, counts)
    offsets = np.cumsum(counts) - counts
    second = np.arange(first.size) - np.repeat(offsets, counts) + first + 1
    index = (first - i0) * (L - i0 - 1) + (second - i0 - 1)
    for array in (first, second, index):
        array.setflags(write=False)
    return first, second, index


def _within_outer(F):
    """``W W'``: ``W[:, r]`` the difference of the two folds of replication ``r``."""
    within = np.zeros((F, F // 2))
    replication = np.arange(F // 2)
    within[2 * replication, replication] = 1.0
    within[2 * replication + 1, replication] = -1.0
    return within @ within.T


def _exact(x, s, i, j, alpha):
    """The per-pair decisions of pairs ``(s, i, j)``, differences laid out as stage 1's."""
    d = np.ascontiguousarray((x[s, i] - x[s, j]).T).T           # (pairs, 10), fold-major
    return _combined_f_significant(d, np.broadcast_to(0.0, d.shape), alpha)
