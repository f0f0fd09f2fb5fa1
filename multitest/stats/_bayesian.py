"""Bayesian tests with a region of practical equivalence (Benavoli et al. 2017).

Benavoli, Corani, Demšar & Zaffalon, "Time for a change: a tutorial for
comparing multiple classifiers through Bayesian analysis", JMLR 18(77), 2017.

- :func:`correlated_t`: the Bayesian correlated t-test on the folds of one
  data set (stage 1).  Its posterior of the mean difference is a Student t
  (closed form, no sampling).
- :func:`~multitest.stats._bayesian_signed_rank.signed_rank`: the Bayesian
  signed-rank test over data sets (second pass, its own module so that the
  stage-1 registry does not load the second pass), a Dirichlet process
  posterior sampled by seeded Monte Carlo as ``baycomp.SignedRankTest`` does.

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

import numbers
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._errors import MultitestError
from ._distributions import _StudentT
from ._fold_intervals import t_interval

__all__ = ["BayesSettings", "CorrelatedTResult", "correlated_t"]

DEFAULT_THRESHOLD = 0.95
#: Monte Carlo samples of the Bayesian signed-rank test (second pass).
DEFAULT_SAMPLES = 50_000
#: What the second number of :func:`bayes_correlated_t` (its "p-value") holds.
POSTERIOR_EVIDENCE = "1 - P(costlier practically better)"


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

    Examples
    --------
    >>> from multitest.stats import BayesSettings
    >>> settings = BayesSettings(rope=0.01, samples=10_000)
    >>> settings.rope, settings.threshold, settings.samples
    (0.01, 0.95, 10000)
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

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats import correlated_t
    >>> a = np.array([.20, .22, .21, .25, .19, .23, .22, .20, .24, .21])
    >>> result = correlated_t(a, a - 0.02, rope=0.01, rho=0.5)
    >>> type(result).__name__, bool(result.costlier_better[0] > 0.9)
    ('CorrelatedTResult', True)
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
        q = _StudentT(self.df).isf((1 - level) / 2)
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
    >>> from multitest.stats._bayesian import fold_correlation
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
    design : multitest.inputs.FoldDesign, optional
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
    >>> from multitest.stats import correlated_t
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
    practically better)`` (:data:`POSTERIOR_EVIDENCE`).  Its registry entry
    says it is Bayesian: :func:`multitest.rank` then runs
    :func:`multitest.engine._bayesian_stage1.run_bayesian_tests` with the run's ROPE, and
    decides by ``P(costlier practically better) >= threshold``.
    """
    result = correlated_t(a, b, rope=rope, design=design)
    statistic, _ = _standardized(result)
    return statistic, 1 - result.costlier_better


def _credible_interval(a, b, design, level, alternative="two-sided"):
    """Central credible interval of the posterior of :func:`bayes_correlated_t`.

    At ``level = 2 threshold - 1`` it decides as the test: its lower bound is
    above ``rope`` exactly when ``P(costlier practically better) >= threshold``
    (up to a bound equal to ``rope``); ``rho`` from the design, as the test.
    """
    result = correlated_t(a, b, design=design)
    return t_interval(result.mean, result.scale, _StudentT(result.df), level, alternative,
                      method="posterior of the Bayesian correlated t-test",
                      estimator="posterior mean")


def _standardized(result):
    """``mean / scale`` with ``0/0 = 0`` and ``x/0 = +-inf``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = result.mean / result.scale
    undefined = (result.mean == 0) & (result.scale == 0)
    return np.where(undefined, 0.0, ratio), undefined
