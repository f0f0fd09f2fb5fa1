"""Tail functions of the distributions the tests refer to, one implementation each.

- Student's t, the standard normal and Fisher's F (:class:`_StudentT`,
  :class:`_StandardNormal`, :class:`_FisherF`) and the binomial with ``p = 1/2``
  (:class:`_HalfBinomial`), with :func:`_get_pvalue` turning a statistic into
  the p-value of an alternative, and the ratio statistics of the t and F
  tests with their degenerate cases (:func:`_ratio`, :func:`_ratio_test`);
  used by the fold tests of stage 1 and the sign tests.
- The studentized range with infinite degrees of freedom
  (:func:`_studentized_range_sf`, :func:`_studentized_range_isf`), used by
  Nemenyi's test and critical difference.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special

__all__: list[str] = []


def _get_pvalue(statistic, distribution, alternative):
    """p-value of ``statistic`` under ``distribution`` for ``alternative``.

    ``distribution.cdf(x)`` must be ``P(X <= x)``, ``distribution.sf(x)``
    ``P(X >= x)`` (equal to SciPy's ``sf`` for continuous distributions) and
    ``distribution.smaller_tail(x)`` ``min(cdf(x), sf(x))``.
    """
    if alternative == "less":
        return distribution.cdf(statistic)
    if alternative == "greater":
        return distribution.sf(statistic)
    return np.minimum(2 * distribution.smaller_tail(statistic), 1.0)


class _Tails:
    """Base of the distributions: the smaller tail as the minimum of the two."""

    def smaller_tail(self, x):
        return np.minimum(self.cdf(x), self.sf(x))


class _StudentT(_Tails):
    """Student's t with ``df`` degrees of freedom: ``scipy.stats.t(df)``'s tails.

    Calls :func:`scipy.special.stdtr` directly, as SciPy's ``t._cdf`` and
    ``t._sf`` do (same values, infinities included), without the per-call
    argument handling of a frozen distribution, which dominates on millions
    of pairs.
    """

    def __init__(self, df):
        self.df = df

    def cdf(self, x):
        return special.stdtr(self.df, x)

    def sf(self, x):
        return special.stdtr(self.df, -x)

    def isf(self, q):
        """The upper ``q`` quantile (``sf(isf(q)) = q``), by symmetry for precision."""
        return -special.stdtrit(self.df, q)

    def smaller_tail(self, x):
        """``min(cdf(x), sf(x))`` in one evaluation: ``sf(|x|)``.

        ``stdtr`` is computed by symmetry (``cdf(x) = 1 - sf(x)`` for ``x > 0``),
        so this is exactly the minimum of the two (tested).
        """
        return special.stdtr(self.df, -np.abs(x))


class _StandardNormal(_Tails):
    """N(0, 1): ``scipy.stats.norm``'s tails (``ndtr(x)``, ``ndtr(-x)``) directly."""

    @staticmethod
    def cdf(x):
        return special.ndtr(x)

    @staticmethod
    def sf(x):
        return special.ndtr(-x)


class _FisherF(_Tails):
    """F(dfn, dfd): ``scipy.stats.f(dfn, dfd)``'s tails through :mod:`scipy.special`.

    For an even ``dfn`` (the combined 5x2 cv F test has ``dfn = 10``) the upper
    tail has a closed form, evaluated in a few array operations instead of one
    incomplete beta function per pair (more than ten times faster on millions
    of pairs).  With ``z = dfd / (dfd + dfn x)``, ``a = dfd / 2`` and an
    integer ``n = dfn / 2``, ``sf(x) = I_z(a, n)``, and for an integer second
    argument the regularized incomplete beta function is the finite sum

        I_z(a, n) = z**a * sum_{j = 0}^{n - 1} (a)_j / j! * (1 - z)**j

    (``(a)_j`` the rising factorial).  Every term is positive: no
    cancellation.  It agrees with :func:`scipy.special.fdtrc` to a few units
    in the last place (relative 2.2e-15 at most, tested), with ``sf(0) = 1``
    and ``sf(inf) = 0`` exactly.  Odd ``dfn`` and scalars: ``fdtrc``.
    """

    def __init__(self, dfn, dfd):
        self.dfn, self.dfd = dfn, dfd

    def cdf(self, x):
        return special.fdtr(self.dfn, self.dfd, x)

    def isf(self, q):
        """The upper ``q`` quantile (``sf(isf(q)) = q``)."""
        return special.fdtri(self.dfn, self.dfd, 1 - q)

    def sf(self, x):
        if self.dfn % 2 or np.ndim(x) == 0:
            return special.fdtrc(self.dfn, self.dfd, x)
        a = self.dfd / 2
        coefficients = [1.0]                  # (a)_j / j!, j = 0 .. n - 1
        for j in range(1, self.dfn // 2):
            coefficients.append(coefficients[-1] * (a + j - 1) / j)
        z = np.asarray(x, dtype=float) * (self.dfn / self.dfd)
        z += 1.0
        np.reciprocal(z, out=z)               # z = dfd / (dfd + dfn x); 0 at x = inf
        w = 1.0 - z                           # 1 - z: no cancellation matters, poly >= 1
        poly = np.full_like(z, coefficients[-1])
        for c in coefficients[-2::-1]:
            poly *= w
            poly += c
        if a == 2.5:
            out = np.sqrt(z)
            out *= z
            out *= z
        else:
            out = np.power(z, a)
        out *= poly
        return out


def _ratio(numerator, denominator):
    """``numerator / denominator`` with ``x/0 = +-inf`` and ``0/0 = 0``.

    Returns the ratio and the mask of ``0/0`` entries (whose p-value is 1).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = numerator / denominator
    undefined = (numerator == 0) & (denominator == 0)
    return np.where(undefined, 0.0, ratio), undefined


def _ratio_test(numerator, scale, distribution, alternative):
    statistic, undefined = _ratio(numerator, scale)
    pvalue = _get_pvalue(statistic, distribution, alternative)
    return statistic, np.where(undefined, 1.0, pvalue)


class _HalfBinomial(_Tails):
    """Binomial(n, 1/2) with ``sf(k) = P(X >= k)``, ``n`` per entry (`trials`)."""

    def __init__(self, trials):
        self.trials = np.asarray(trials)

    def cdf(self, k):
        return _binom().cdf(k, self.trials, 0.5)

    def sf(self, k):
        return _binom().sf(k - 1, self.trials, 0.5)

    def smaller_tail(self, k):
        """``min(cdf(k), sf(k))``, evaluating one tail per entry.

        Below the centre (``k <= n - k``) the lower tail is the smaller one, above
        it the upper tail; at the centre both are at least 1/2, so the two-sided
        p-value is 1 whichever is taken (tested against the minimum of both).
        """
        lower = k <= self.trials - k
        if lower.all():               # the second pass orients every row this way
            return self.cdf(k)
        k, trials = np.broadcast_arrays(k, self.trials)
        out = np.empty(k.shape)
        out[lower] = _binom().cdf(k[lower], trials[lower], 0.5)
        upper = ~lower
        out[upper] = _binom().sf(k[upper] - 1, trials[upper], 0.5)
        return out


def _binom():
    """:data:`scipy.stats.binom`, imported when first needed (scipy.stats is slow to import)."""
    from scipy import stats

    return stats.binom


# ---------------------------------------------------------------------------
# Upper tail of the studentized range with infinite degrees of freedom
# ---------------------------------------------------------------------------
#
# For the range Q of k independent standard normals, with z the largest of them,
#
#     P(Q > q) = k ∫ φ(z) Φ(z)^(k-1) [1 - (1 - Φ(z - q) / Φ(z))^(k-1)] dz,
#
# the complement of scipy's k ∫ φ(z) [Φ(z) - Φ(z - q)]^(k-1) dz (because
# k ∫ φ Φ^(k-1) = 1) written with positive terms only, so that the far tail
# keeps its relative accuracy instead of being 1 minus a number close to 1.
# The integral is a Gauss--Legendre rule on a window that holds the integrand
# (_sr_log_sf_quadrature). Nemenyi needs it at tens of thousands of distinct q
# (L = 300: 44 850 pairs), so log P is interpolated in q: Chebyshev
# interpolants of degree _SR_DEGREE on panels [i w, (i+1) w) of width
# _SR_PANEL, built by the quadrature at their nodes for the panels that hold a
# q. A q falls in the same panel whatever the other q are, so its p-value does
# not depend on them. Against 40-digit mpmath values, k = 2..1000 and q up to
# where P underflows: absolute error at most 1.3e-15, relative error at most
# 2.5e-13 (that of exp(log P) with log P near -600; tests/test_posthoc.py).
# scipy's sf is 1 minus an integral with epsabs = 1e-11: within 1e-10 of
# p = 1 it is off by up to a few 1e-12, elsewhere it agrees to ~1e-13.

_SR_NODES = 128  # Gauss--Legendre nodes in z (k = 1000 needs about 120)
_SR_PANEL = 0.5
_SR_DEGREE = 16
# log of half the smallest subnormal: P(Q > q) below it rounds to 0.
_LOG_UNDERFLOW = np.log(2.0) * -1075
_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


@functools.lru_cache(maxsize=None)
def _gauss_legendre(n):
    """Gauss--Legendre nodes and weights on [-1, 1], correctly rounded.

    numpy's ``leggauss`` weights are off by up to 1e-14 relative; three Newton
    steps on the Legendre recurrence in extended precision fix that.
    """
    x = np.polynomial.legendre.leggauss(n)[0].astype(np.longdouble)

    def legendre_and_derivative(x):
        previous, current = np.ones_like(x), x.copy()
        for j in range(2, n + 1):
            previous, current = current, ((2 * j - 1) * x * current - (j - 1) * previous) / j
        return current, n * (x * current - previous) / (x * x - 1)

    for _ in range(3):
        value, derivative = legendre_and_derivative(x)
        x = x - value / derivative
    _, derivative = legendre_and_derivative(x)
    weights = 2 / ((1 - x * x) * derivative * derivative)
    return x.astype(np.float64), weights.astype(np.float64)


def _sr_log_bound(q, k):
    """log of the Bonferroni bound k (k - 1) Φ(-q / sqrt(2)) >= P(Q > q)."""
    return np.log(k * (k - 1.0)) + special.log_ndtr(-q / np.sqrt(2))


def _sr_log_sf_quadrature(q, k):
    """log P(Q > q) for q > 0 (1-D array) and k means, by quadrature in z."""
    n = k - 1
    x, w = _gauss_legendre(_SR_NODES)
    q = q[:, None]
    # Window: below `lower_k` the integrand holds at most 1e-20 of P (it is at
    # most k φ Φ(z)^(k-1) Φ(z - q)); it is concentrated around z = q / 2 (the
    # product φ(z) Φ(z - q)) or, for small q, around the largest of k normals,
    # about sqrt(2 log k); 7.5 on either side leaves out less than e^-56.
    lower_k = special.ndtri(np.exp((np.log(1e-20) - np.log(k)) / k))
    centre = np.maximum(q / 2, np.sqrt(2 * np.log(k)))
    lower = np.maximum(lower_k, q / 2 - 7.5)
    upper = centre + 7.5
    half = (upper - lower) / 2
    z = lower + half * (x + 1)
    log_phi_z = special.log_ndtr(z)
    log_ratio = special.log_ndtr(z - q) - log_phi_z  # log(Φ(z - q) / Φ(z)) < 0
    ratio = np.exp(log_ratio)
    with np.errstate(divide="ignore"):  # ratio == 1 (z - q and z far right): log1p -> -inf
        log_bracket = np.log(-np.expm1(n * np.log1p(-ratio)))
    # 1 - (1 - r)^n = n r (1 + O(n r)) once r underflows
    log_bracket = np.where(log_ratio < -700, np.log(n) + log_ratio, log_bracket)
    terms = (
        np.log(k) - z * z / 2 - _LOG_SQRT_2PI + n * log_phi_z + log_bracket
        + np.log(w * half)
    )
    largest = terms.max(axis=1, keepdims=True)
    return (largest + np.log(np.exp(terms - largest).sum(axis=1, keepdims=True)))[:, 0]


def _sr_log_sf(q, k):
    """log P(Q > q) by panel-wise Chebyshev interpolation, q > 0 (1-D array)."""
    panel = np.floor(q / _SR_PANEL).astype(np.intp)
    panels, which = np.unique(panel, return_inverse=True)
    degree = _SR_DEGREE
    theta = np.pi * (np.arange(degree + 1) + 0.5) / (degree + 1)
    left = panels[:, None] * _SR_PANEL
    nodes = left + _SR_PANEL * (np.cos(theta) + 1) / 2
    # Interpolate log P minus its Bonferroni bound where the bound is below 1
    # (the tail): what is left is of order 1, so log P keeps ~1e-16 relative.
    tail = (_sr_log_bound(left, k) < 0).astype(np.float64)
    values = _sr_log_sf_quadrature(nodes.ravel(), k).reshape(nodes.shape)
    values -= tail * _sr_log_bound(nodes, k)
    # Chebyshev coefficients from values at the Chebyshev points (a DCT).
    # Row by row (not a matrix product, whose rounding depends on the shape),
    # so that a panel's interpolant does not depend on the other panels.
    basis = np.cos(np.outer(np.arange(degree + 1), theta)) * (2 / (degree + 1))
    basis[0] /= 2
    c = np.stack([(values * row).sum(axis=1) for row in basis], axis=1)[which]
    t = 2 * (q - left[which, 0]) / _SR_PANEL - 1
    b1 = np.zeros_like(q)
    b2 = np.zeros_like(q)
    for j in range(degree, 0, -1):  # Clenshaw
        b1, b2 = 2 * t * b1 - b2 + c[:, j], b1
    return t * b1 - b2 + c[:, 0] + tail[which, 0] * _sr_log_bound(q, k)


def _studentized_range_sf(q, n_means):
    """P(Q > q) for the studentized range of `n_means` means, infinite df.

    Agrees with ``scipy.stats.studentized_range.sf(q, n_means, np.inf)`` to
    scipy's own accuracy (1e-13 absolute, a few 1e-12 within 1e-10 of 1,
    where scipy's ``epsabs=1e-11`` shows) and is exact to about 1e-15
    absolute and 3e-13 relative; 0 where P underflows, 1 at q = 0. About 20
    ms for 45 000 distinct q (scipy: 2 to 4 s).
    """
    q = np.asarray(q, dtype=np.float64)
    out = np.ones(q.shape)
    positive = q > 0
    out[positive] = 0.0
    live = positive & (_sr_log_bound(q, n_means) >= _LOG_UNDERFLOW)
    if live.any():
        out[live] = np.minimum(1.0, np.exp(_sr_log_sf(q[live], n_means)))
    return out



def _studentized_range_isf(alpha, n_means):
    """The q with ``P(Q > q) = alpha`` (infinite df): :func:`_studentized_range_sf` inverted.

    The sf decreases in q: a bracket is refined on a grid of 33 points per
    round until it is as narrow as the floating-point spacing allows.
    """
    low, high = 0.0, 4.0
    while _studentized_range_sf(np.array([high]), n_means)[0] > alpha:
        low, high = high, 2 * high
    while high - low > 4 * np.spacing(high):
        grid = np.linspace(low, high, 33)
        above = _studentized_range_sf(grid, n_means) > alpha
        last = int(np.flatnonzero(above)[-1])
        low, high = grid[last], grid[min(last + 1, 32)]
    return (low + high) / 2
