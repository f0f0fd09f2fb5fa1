"""The result of all pairwise comparisons over data sets, shared by the post-hoc families.

:class:`PosthocResult` (with the helpers that build its matrices and the chunked
pair differences, :func:`_pair_differences`) is returned by Nemenyi's test
(:mod:`multitest.stats._nemenyi`), the pairwise tests over data sets
(:mod:`multitest.stats._over_datasets`) and the Bayesian post-hoc
(:mod:`multitest.stats._bayesian`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PosthocResult"]


@dataclass(frozen=True, eq=False)
class PosthocResult:
    """All pairwise comparisons of L algorithms over S data sets.

    Arrays are read-only. Equality is identity (the fields are arrays).

    Attributes
    ----------
    method : str
        ``"nemenyi"``, ``"wilcoxon"``, ``"wilcoxon-pratt"``, ``"wilcoxon-scipy"`` or ``"sign"``.
    correction : str
        The multiple-comparison correction applied to `raw_pvalues`; ``"none"``
        for Nemenyi, which is a simultaneous test.
    alpha : float
        Significance level of `significant`.
    statistic : numpy.ndarray
        ``(L, L)`` symmetric, diagonal 0. Nemenyi: the studentized range value
        ``q = |R_a - R_b| / sqrt(L (L+1) / (12 S))``. Wilcoxon: ``min(T+, T-)``,
        the smaller signed-rank sum (scipy's two-sided statistic). Sign test:
        ``min(wins, losses)`` over the data sets that are not tied.
    pvalues : numpy.ndarray
        ``(L, L)`` symmetric adjusted p-values, diagonal 1.
    raw_pvalues : numpy.ndarray
        ``(L, L)`` symmetric unadjusted p-values, diagonal 1 (equal to
        `pvalues` for Nemenyi).
    significant : numpy.ndarray
        ``(L, L)`` symmetric bool, diagonal False. Nemenyi:
        ``|R_a - R_b| >= critical_difference``; otherwise ``pvalues <= alpha``.
    critical_difference : float or None
        Nemenyi's critical difference of average ranks; None for the other
        methods.

    Examples
    --------
    >>> from multitest.stats import nemenyi
    >>> result = nemenyi([[1, 2, 3], [1, 3, 2], [1, 2, 3], [1, 2, 3]], alpha=0.05)
    >>> result.method, result.significant.shape
    ('nemenyi', (3, 3))
    """

    method: str
    correction: str
    alpha: float
    statistic: np.ndarray
    pvalues: np.ndarray
    raw_pvalues: np.ndarray
    significant: np.ndarray
    critical_difference: float | None


def _readonly(a):
    a.setflags(write=False)
    return a


def _symmetric(values, n, diagonal, dtype=np.float64):
    """An (n, n) matrix with `values` on both triangles (row-major pair order)."""
    out = np.full((n, n), diagonal, dtype=dtype)
    upper = np.triu_indices(n, 1)
    out[upper] = values
    out[upper[::-1]] = values
    return _readonly(out)


def _pair_differences(scores, a, b, cells):
    """Differences ``scores[:, a] - scores[:, b]`` of the pairs ``(a[k], b[k])``, in chunks.

    Yields ``(chunk, d)``: a slice of the pairs and their differences, one row
    per pair (shape ``(pairs, S)``), about `cells` values at a time, so that
    no ``(L (L - 1) / 2, S)`` array is ever held; from one contiguous row per
    algorithm.
    """
    by_algorithm = np.ascontiguousarray(scores.T)
    step = max(1, cells // max(1, scores.shape[0]))
    for start in range(0, a.size, step):
        chunk = slice(start, start + step)
        first, second = a[chunk], b[chunk]
        cuts = np.flatnonzero(first[1:] != first[:-1]) + 1
        if 4 * cuts.size > first.size:      # short runs of one first algorithm
            yield chunk, by_algorithm[first] - by_algorithm[second]
            continue
        # Runs of one first algorithm (the pairs of every pair in order): its row minus
        # the rows of its partners, one gather fewer (2.7x faster at S = 10,000).
        d = np.empty((first.size, by_algorithm.shape[1]))
        for r0, r1 in zip([0, *cuts.tolist()], [*cuts.tolist(), first.size]):
            np.subtract(by_algorithm[first[r0]], by_algorithm[second[r0:r1]], out=d[r0:r1])
        yield chunk, d
