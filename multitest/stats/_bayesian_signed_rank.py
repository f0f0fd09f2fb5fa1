"""The Bayesian signed-rank test over data sets, with a region of practical equivalence.

Benavoli, Corani, Demšar & Zaffalon, "Time for a change: a tutorial for
comparing multiple classifiers through Bayesian analysis", JMLR 18(77), 2017.

The second-pass counterpart of :mod:`multitest.stats._bayesian` (the
correlated t-test of stage 1, and the settings both share): a Dirichlet
process posterior sampled by seeded Monte Carlo as ``baycomp.SignedRankTest``
does, returning the three probabilities "the cheaper is practically better",
"practically equivalent" and "the costlier is practically better" of
``d = a - b`` (cheaper minus costlier error).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._errors import MultitestError
from ._bayesian import DEFAULT_SAMPLES, BayesSettings, _check_rope
from ._posthoc import PosthocResult

__all__ = []

# Monte Carlo elements (samples x data sets) held at once by signed_rank.
_SAMPLE_ELEMENTS = 1 << 20


@dataclass(frozen=True, eq=False)
class SignedRankResult:
    """Bayesian signed-rank test of ``n`` pairs over data sets.

    Attributes
    ----------
    cheaper_better, equivalent, costlier_better : ndarray, shape (n,)
        Share of the Monte Carlo samples of the Dirichlet process posterior in
        which the region ``d < -rope``, ``|d| <= rope`` or ``d > rope`` is the most
        probable (as ``baycomp``'s ``probs()``); they sum to 1.
    rope : float
    samples : int
    seed : int
    prior_strength : float
        Weight of the pseudo-observation at 0 (0.5, as baycomp).
    """

    cheaper_better: np.ndarray
    equivalent: np.ndarray
    costlier_better: np.ndarray
    rope: float
    samples: int
    seed: int
    prior_strength: float


def signed_rank(a, b, *, rope=0.0, samples=DEFAULT_SAMPLES, seed=0, prior_strength=0.5):
    """Bayesian signed-rank test (Benavoli et al. 2014, 2017) of ``n`` pairs.

    Parameters
    ----------
    a, b : array_like, shape (n, S) or (S,)
        Mean errors of the cheaper (``a``) and the costlier (``b``) algorithm
        on ``S`` data sets.
    rope : float, default 0
        Half-width of the region of practical equivalence (error units).
    samples : int, default 50000
        Monte Carlo samples of the posterior.
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng`.  The same Dirichlet weights
        serve every pair (common random numbers).
    prior_strength : float, default 0.5
        Weight of the prior pseudo-observation ``d = 0``.

    Returns
    -------
    SignedRankResult

    Notes
    -----
    ``z = (0, d_1, ..., d_S)`` with ``d = a - b``; a posterior sample is a
    weight vector ``w ~ Dirichlet(prior_strength, 1, ..., 1)`` and
    ``theta_right = sum_ij w_i w_j H(z_i + z_j - 2 rope)``,
    ``theta_left = sum_ij w_i w_j H(-z_i - z_j - 2 rope)`` (``H`` the
    Heaviside step with ``H(0) = 1/2``), ``theta_rope = 1 - theta_left -
    theta_right``.  The double sum is computed per sample in ``O(S)`` from
    the cumulative weights in the order of ``z`` (the bounds depend only on
    ``z``, found once), not as an ``S x S`` product.  ``rope = 0``: the
    pairs with ``z_i + z_j = 0`` count half to each side and the equivalence
    region is empty, as baycomp's test without a ROPE.
    """
    _check_rope(rope)
    a = np.atleast_2d(np.asarray(a, dtype=float))
    b = np.atleast_2d(np.asarray(b, dtype=float))
    if a.shape != b.shape:
        raise MultitestError(f"`a` and `b` must have the same shape, got {a.shape} and {b.shape}")
    if isinstance(samples, bool) or not isinstance(samples, numbers.Integral) or samples < 1:
        raise MultitestError(f"`samples` must be a positive integer, got {samples!r}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise MultitestError("`a` and `b` must be finite")
    n, S = a.shape
    return _signed_rank(lambda p: a[p] - b[p], n, S, rope=float(rope), samples=int(samples),
                        seed=int(seed), prior_strength=float(prior_strength))


def _signed_rank(difference, n, S, *, rope, samples, seed, prior_strength):
    """:func:`signed_rank` of ``n`` pairs whose differences ``difference(p)`` gives.

    One pair's differences at a time: memory stays O(samples x S) per chunk
    of samples, whatever the number of pairs.
    """
    alpha = np.ones(S + 1)
    alpha[0] = prior_strength
    rng = np.random.default_rng(seed)
    wins = np.zeros((n, 3))
    chunk = max(1, _SAMPLE_ELEMENTS // (S + 1))
    for start in range(0, samples, chunk):
        weights = np.ascontiguousarray(rng.dirichlet(alpha, size=min(chunk, samples - start)).T)
        for p in range(n):
            z = np.concatenate(([0.0], difference(p)))
            wins[p] += _signed_rank_winners(z, weights, rope)
    share = wins / samples
    return SignedRankResult(cheaper_better=share[:, 0], equivalent=share[:, 1],
                            costlier_better=share[:, 2], rope=rope, samples=samples,
                            seed=seed, prior_strength=prior_strength)


def _signed_rank_winners(z, weights, rope):
    """How often (left, rope, right) is the most probable region, summed over the samples.

    ``weights`` has shape ``(S + 1, samples)``: data sets on the first axis,
    so that the cumulative sums and gathers run over whole contiguous rows.
    """
    order = np.argsort(z, kind="stable")
    zs = z[order]
    w = weights[order]
    # cum[k] = total weight of the k smallest z, for every sample.
    cum = np.zeros((w.shape[0] + 1, w.shape[1]))
    np.cumsum(w, axis=0, out=cum[1:])
    above = _weight_beyond(zs, w, cum, 2 * rope, upper=True)
    below = _weight_beyond(zs, w, cum, 2 * rope, upper=False)
    thetas = np.stack([below, 1 - below - above, above])
    # Exact ties between regions (degenerate data: all differences zero and
    # rope 0) are shared equally; baycomp's argmax would give them to "left".
    top = thetas == thetas.max(axis=0)
    return (top / top.sum(axis=0)).sum(axis=1)


def _weight_beyond(zs, w, cum, bound, upper):
    """``sum_ij w_i w_j H(+-(z_i + z_j) - bound)`` for every sample (z sorted)."""
    start, stop = _pair_bounds(zs, bound, upper)
    # j in [start, stop) are exactly at the bound (half weight); beyond them,
    # full weight: j >= stop for the upper side, j < start for the lower one.
    beyond = cum[-1] - cum[stop] if upper else cum[start]
    if np.any(start != stop):
        beyond += 0.5 * (cum[stop] - cum[start])
    beyond *= w
    return beyond.sum(axis=0)


def _pair_bounds(zs, bound, upper):
    """For each ``i``, the range ``[start, stop)`` of sorted ``j`` with ``+-(z_i + z_j) == bound``.

    ``upper``: ``j >= stop`` have ``z_i + z_j > bound``; otherwise ``j < start``
    have ``-(z_i + z_j) > bound``.  The comparisons are made on the computed
    sums ``z_i + z_j`` themselves (float addition is monotone), so the
    classification is exactly that of the ``S x S`` table of sums baycomp builds.
    """
    if upper:
        return (_first_true(zs, lambda i, j: zs[i] + zs[j] >= bound),
                _first_true(zs, lambda i, j: zs[i] + zs[j] > bound))
    return (_first_true(zs, lambda i, j: -(zs[i] + zs[j]) <= bound),
            _first_true(zs, lambda i, j: -(zs[i] + zs[j]) < bound))


def _first_true(zs, predicate):
    """For each ``i``, the first ``j`` (0..m) where ``predicate(i, j)`` holds.

    The predicate is monotone in ``j`` (false then true) because ``zs`` is
    sorted; a vectorized binary search over all ``i`` at once.
    """
    m = zs.size
    i = np.arange(m)
    low = np.zeros(m, dtype=np.intp)
    high = np.full(m, m, dtype=np.intp)
    while np.any(low < high):
        mid = (low + high) // 2
        active = low < high
        ok = np.zeros(m, dtype=bool)
        ok[active] = predicate(i[active], mid[active])
        high = np.where(active & ok, mid, high)
        low = np.where(active & ~ok, mid + 1, low)
    return low


@dataclass(frozen=True, eq=False)
class BayesianPosthoc(PosthocResult):
    """The Bayesian signed-rank test of every pair of algorithms over data sets.

    A :class:`multitest.stats.PosthocResult` (so that every output shows
    it) with ``method='bayesian'``; ``(L, L)`` arrays, diagonal: probabilities
    0, ``pvalues`` 1.

    Attributes
    ----------
    better : ndarray, shape (L, L)
        ``better[a, b]`` = P(``a`` practically better than ``b``).
    equivalent : ndarray, shape (L, L)
        Symmetric: P(practically equivalent).
    statistic : ndarray, shape (L, L)
        Equal to ``better``.
    pvalues, raw_pvalues : ndarray, shape (L, L)
        Symmetric ``1 - max(better[a, b], better[b, a])``: the posterior
        probability that the more probable winner is not practically better.
    significant : ndarray of bool, shape (L, L)
        ``max(better[a, b], better[b, a]) >= threshold``.
    """

    better: np.ndarray
    equivalent: np.ndarray
    rope: float
    threshold: float
    samples: int
    seed: int


def bayesian_posthoc(mean_errors, bayes, alpha):
    """:func:`signed_rank` on every pair of algorithms (columns of ``mean_errors``).

    Parameters
    ----------
    mean_errors : ndarray, shape (S, L)
    bayes : BayesSettings or None
    alpha : float
        Kept for the record (the decision uses ``bayes.threshold``).

    Returns
    -------
    BayesianPosthoc
    """
    bayes = BayesSettings() if bayes is None else bayes
    mean_errors = np.asarray(mean_errors, dtype=float)
    L = mean_errors.shape[1]
    i, j = np.triu_indices(L, k=1)
    result = _signed_rank(lambda p: mean_errors[:, i[p]] - mean_errors[:, j[p]], i.size,
                          mean_errors.shape[0], rope=bayes.rope, samples=int(bayes.samples),
                          seed=int(bayes.seed), prior_strength=0.5)
    better = np.zeros((L, L))
    equivalent = np.zeros((L, L))
    # d = e_i - e_j > rope: j (the "costlier" slot) is better.
    better[j, i] = result.costlier_better
    better[i, j] = result.cheaper_better
    equivalent[i, j] = equivalent[j, i] = result.equivalent
    top = np.maximum(better, better.T)
    pvalues = 1 - top
    np.fill_diagonal(pvalues, 1.0)
    significant = top >= bayes.threshold
    np.fill_diagonal(significant, False)
    for array in (better, equivalent, pvalues, significant):
        array.setflags(write=False)
    return BayesianPosthoc(method="bayesian", correction="none", alpha=float(alpha),
                           statistic=better, pvalues=pvalues, raw_pvalues=pvalues,
                           significant=significant, critical_difference=None, better=better,
                           equivalent=equivalent, rope=bayes.rope, threshold=bayes.threshold,
                           samples=bayes.samples, seed=bayes.seed)
