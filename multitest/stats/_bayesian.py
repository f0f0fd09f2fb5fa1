"""Bayesian tests with a region of practical equivalence (Benavoli et al. 2017).

Benavoli, Corani, Demšar & Zaffalon, "Time for a change: a tutorial for
comparing multiple classifiers through Bayesian analysis", JMLR 18(77), 2017.

- :func:`correlated_t`: the Bayesian correlated t-test on the folds of one
  data set (stage 1).  Its posterior of the mean difference is a Student t
  (closed form, no sampling).
- :func:`signed_rank`: the Bayesian signed-rank test over data sets (second
  pass), a Dirichlet process posterior sampled by seeded Monte Carlo as
  ``baycomp.SignedRankTest`` does.

Both return the three probabilities "the cheaper is practically better",
"practically equivalent" and "the costlier is practically better".  The
difference is always ``d = a - b``, cheaper minus costlier error, so a
positive ``d`` favours the costlier algorithm; the region of practical
equivalence (ROPE) is ``[-rope, rope]`` in error units.

MultiTest's rule with these tests: the costlier overrides the cheaper only
when P(costlier practically better) >= ``threshold`` (default 0.95);
otherwise the cost decides.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._errors import MultitestError
from ._posthoc import PosthocResult

__all__ = ["BayesSettings", "CorrelatedTResult", "SignedRankResult", "BayesianPosthoc",
           "correlated_t", "signed_rank", "fold_correlation", "bayes_correlated_t", "is_bayesian",
           "with_settings", "settings_of", "bayesian_posthoc", "DEFAULT_THRESHOLD",
           "DEFAULT_SAMPLES"]

DEFAULT_THRESHOLD = 0.95
DEFAULT_SAMPLES = 50_000
# Monte Carlo elements (samples x data sets) held at once by signed_rank.
_SAMPLE_ELEMENTS = 1 << 20


@dataclass(frozen=True)
class BayesSettings:
    """The settings of the Bayesian tests of one run.

    Parameters
    ----------
    rope : float
        Half-width of the region of practical equivalence, in error units
        (0.01 = one percentage point for error rates in [0, 1]), ``>= 0``.
    threshold : float
        Minimum posterior probability for an override, in ``(0.5, 1)``.
    seed : int
        Seed of the Monte Carlo sampling of the signed-rank test.
    samples : int
        Monte Carlo samples of the signed-rank test.
    """

    rope: float = 0.0
    threshold: float = DEFAULT_THRESHOLD
    seed: int = 0
    samples: int = DEFAULT_SAMPLES

    def __post_init__(self):
        _check_rope(self.rope)
        if (not isinstance(self.threshold, numbers.Real) or isinstance(self.threshold, bool)
                or not 0.5 < float(self.threshold) < 1):
            raise MultitestError("`threshold` must be a number strictly between 0.5 and 1, "
                                 f"got {self.threshold!r}")
        for field in ("seed", "samples"):
            value = getattr(self, field)
            if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
                    or value < (0 if field == "seed" else 1)):
                kind = "non-negative" if field == "seed" else "positive"
                raise MultitestError(f"`{field}` must be a {kind} integer, got {value!r}")
        object.__setattr__(self, "rope", float(self.rope))
        object.__setattr__(self, "threshold", float(self.threshold))

    def to_dict(self):
        return {"rope": self.rope, "threshold": self.threshold, "seed": int(self.seed),
                "samples": int(self.samples)}


def _check_rope(rope):
    if (not isinstance(rope, numbers.Real) or isinstance(rope, bool)
            or not np.isfinite(rope) or rope < 0):
        raise MultitestError(f"`rope` must be a finite number >= 0, got {rope!r}")


# --------------------------------------------------------------------------
# Stage 1: the Bayesian correlated t-test
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CorrelatedTResult:
    """Posterior of the mean difference ``d = a - b`` on one data set, per pair.

    The posterior is Student t with ``df`` degrees of freedom, location
    ``mean`` and scale ``scale`` (Benavoli et al. 2017, section 3.2).

    Attributes
    ----------
    cheaper_better, equivalent, costlier_better : ndarray, shape (n,)
        ``P(d < -rope)``, ``P(-rope <= d <= rope)``, ``P(d > rope)``; they sum to 1.
    mean, scale : ndarray, shape (n,)
        Location and scale of the posterior; ``scale`` is 0 when every fold
        has the same difference (the posterior is then a point mass).
    df : int
        ``F - 1``.
    rho : float
        Correlation of the folds.
    rope : float
    """

    cheaper_better: np.ndarray
    equivalent: np.ndarray
    costlier_better: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    df: int
    rho: float
    rope: float

    def interval(self, level=0.95):
        """Central credible interval of the mean difference, ``(low, high)``."""
        from scipy import stats   # ~1 s to import: only when an interval is asked for

        q = stats.t.ppf(0.5 + level / 2, self.df)
        return self.mean - q * self.scale, self.mean + q * self.scale


def fold_correlation(design):
    """The correlation ``rho = n_test / n_total`` of a cross-validation design.

    ``1 / k`` for ``r`` replications of ``k``-fold cross-validation, so ``1/2``
    for 5x2 cv (as ``baycomp.CorrelatedTTest(..., runs=5)``; it makes the
    posterior scale that of the corrected resampled t, n_test/n_train = 1).
    A design with a test/train ratio ``r = n_test / n_train`` gives
    ``rho = r / (1 + r)`` (``1 / k`` again for ``r = 1 / (k - 1)``).

    Raises
    ------
    MultitestError
        If the design has a single fold per replication and no test/train
        ratio (no ``n_test / n_total`` can be read from it: give ``rho``).

    Examples
    --------
    >>> from multitest.inputs import FoldDesign
    >>> from multitest.stats import fold_correlation
    >>> fold_correlation(FoldDesign(1, 10, test_train_ratio="1/4"))
    0.2
    """
    if design.test_train_ratio is not None:
        return design.test_train_ratio / (1 + design.test_train_ratio)
    if design.folds < 2:
        raise MultitestError(
            f"the Bayesian correlated t-test needs at least 2 folds per replication to set "
            f"rho = n_test/n_total = 1/k; the design is {design}: give `rho` or a "
            f"test/train ratio")
    return 1.0 / design.folds


def correlated_t(a, b, *, rope=0.0, rho=None, design=None):
    """Bayesian correlated t-test of ``n`` pairs (Benavoli et al. 2017).

    Parameters
    ----------
    a, b : array_like, shape (n, F) or (F,)
        Per-fold errors of the cheaper (``a``) and the costlier (``b``)
        algorithm, the same folds, ``F >= 2``.
    rope : float, default 0
        Half-width of the region of practical equivalence (error units).
    rho : float, optional
        Correlation of the folds, ``0 <= rho < 1``.  Default: from ``design``.
    design : multitest.stats.FoldDesign, optional
        Gives ``rho = 1/k`` (see :func:`fold_correlation`); needed when
        ``rho`` is not given.

    Returns
    -------
    CorrelatedTResult

    Notes
    -----
    With ``d = a - b``, ``F`` folds, mean ``m`` and sample variance ``s^2``,
    the posterior of the mean difference is Student t with ``F - 1`` degrees
    of freedom, location ``m`` and scale ``sqrt((1/F + rho/(1 - rho)) s^2)``.
    A zero variance makes it a point mass at ``m``: the probabilities are then
    0 or 1 (exactly as ``baycomp``).

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._bayesian import correlated_t
    >>> a = np.array([.20, .22, .21, .25, .19, .23, .22, .20, .24, .21])
    >>> b = a - np.array([.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045])
    >>> r = correlated_t(a, b, rope=0.01, rho=0.5)
    >>> r.costlier_better.round(4), r.equivalent.round(4), r.cheaper_better.round(4)
    (array([0.6939]), array([0.2277]), array([0.0784]))
    """
    _check_rope(rope)
    a = np.atleast_2d(np.asarray(a, dtype=float))
    b = np.atleast_2d(np.asarray(b, dtype=float))
    if a.shape != b.shape:
        raise MultitestError(f"`a` and `b` must have the same shape, got {a.shape} and {b.shape}")
    if a.shape[1] < 2:
        raise MultitestError(f"the Bayesian correlated t-test needs at least 2 folds, "
                             f"got {a.shape[1]}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise MultitestError("`a` and `b` must be finite")
    if rho is None:
        if design is None:
            raise MultitestError("`rho` or `design` must be given")
        rho = fold_correlation(design)
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not 0 <= rho < 1:
        raise MultitestError(f"`rho` must be a number in [0, 1), got {rho!r}")
    return _posterior(a - b, float(rope), float(rho))


def _posterior(d, rope, rho):
    """:func:`correlated_t` of the fold differences ``d`` (n, F), arguments checked."""
    folds = d.shape[1]
    mean = d.mean(axis=1)
    constant = np.all(d == d[:, :1], axis=1)
    variance = np.where(constant, 0.0, d.var(axis=1, ddof=1))
    scale = np.sqrt((1 / folds + rho / (1 - rho)) * variance)
    low, high = _t_probabilities(mean, scale, folds - 1, rope)
    return CorrelatedTResult(cheaper_better=low, equivalent=1 - low - high,
                             costlier_better=high, mean=mean, scale=scale, df=folds - 1,
                             rho=rho, rope=rope)


def _t_probabilities(mean, scale, df, rope):
    """``P(d < -rope)`` and ``P(d > rope)`` under Student t posteriors.

    ``rope = 0`` is the limit of the ROPE case (the equivalence has
    probability 0); a point mass (``scale = 0``) gives indicators, and with
    ``rope = 0`` and ``mean = 0`` the two directions 1/2 each (as baycomp).
    """
    point = scale == 0
    safe = np.where(point, 1.0, scale)
    low = special.stdtr(df, (-rope - mean) / safe)
    high = special.stdtr(df, (mean - rope) / safe)
    if rope == 0:
        at_zero = point & (mean == 0)
        low = np.where(point, (mean < 0) + 0.5 * at_zero, low)
        high = np.where(point, (mean > 0) + 0.5 * at_zero, high)
    else:
        low = np.where(point, (mean < -rope).astype(float), low)
        high = np.where(point, (mean > rope).astype(float), high)
    return low, high


def bayes_correlated_t(a, b, design, rope=0.0):
    """Bayesian correlated t-test (Benavoli et al. 2017), rho = 1/k; decides by probability.

    The registry contract asks for ``(statistic, pvalue)``: the statistic is
    the standardized posterior mean ``mean / scale`` (a t value: positive
    means the costlier is better) and the "p-value" is ``1 - P(costlier
    practically better)``.  In :func:`multitest.rank` the test decides by
    ``P(costlier practically better) >= threshold`` (see
    :func:`run_bayesian_tests`).
    """
    result = correlated_t(a, b, rope=rope, design=design)
    statistic, _ = _standardized(result)
    return statistic, 1 - result.costlier_better


def _standardized(result):
    """``mean / scale`` with ``0/0 = 0`` and ``x/0 = +-inf``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = result.mean / result.scale
    undefined = (result.mean == 0) & (result.scale == 0)
    return np.where(undefined, 0.0, ratio), undefined


def is_bayesian(test):
    """Whether a :class:`~multitest.stats.PairwiseTest` decides by probability."""
    func = getattr(test, "func", None)
    return func is bayes_correlated_t or isinstance(func, _WithSettings)


@dataclass(frozen=True)
class _WithSettings:
    """:func:`bayes_correlated_t` carrying the ROPE and threshold of one run."""

    bayes: BayesSettings

    def __call__(self, a, b, design):
        return bayes_correlated_t(a, b, design, rope=self.bayes.rope)


def with_settings(test, bayes):
    """The registered Bayesian test with the run's settings attached.

    :func:`multitest.engine._per_dataset.multitest_per_dataset` reads them from the
    test (see :func:`settings_of`); the name and flags are unchanged.
    """
    return dataclasses.replace(test, func=_WithSettings(bayes))


def settings_of(test):
    """The :class:`BayesSettings` of a test from :func:`with_settings` (defaults otherwise)."""
    func = getattr(test, "func", None)
    return func.bayes if isinstance(func, _WithSettings) else BayesSettings()


# --------------------------------------------------------------------------
# Second pass: the Bayesian signed-rank test
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SignedRankResult:
    """Bayesian signed-rank test of ``n`` pairs over data sets.

    Attributes
    ----------
    cheaper_better, equivalent, costlier_better : ndarray, shape (n,)
        Share of the Monte Carlo samples of the Dirichlet process posterior in
        which the region "d < -rope", "|d| <= rope" or "d > rope" is the most
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

    A :class:`multitest.stats._posthoc.PosthocResult` (so that every output shows
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
