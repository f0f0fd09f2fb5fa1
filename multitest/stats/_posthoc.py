"""Tests over many data sets: Friedman, Nemenyi, pairwise tests, control comparisons.

Stage 5 of Multi²Test (docs/method.md §5) compares L algorithms over S data sets
through their ranks: the Friedman test and its Iman--Davenport refinement ask
whether the algorithms differ at all, the Nemenyi test finds the pairs that do.
docs/method.md §6 adds pool-independent alternatives: Wilcoxon signed-rank and sign
tests over data sets with a multiple-comparison correction
(:func:`pairwise_over_datasets`), and comparisons with a control
(:func:`control_comparisons`).

Conventions
-----------
- ``ranks`` is an ``(S, L)`` array: the rank of algorithm ``j`` on data set
  ``i``, 1 = best, average ranks for ties. ``S >= 2`` and ``L >= 2``.
- ``scores`` is an ``(S, L)`` array of per-data-set mean errors (lower is
  better).
- Pairwise results are symmetric ``(L, L)`` matrices: statistic 0, p-value 1
  and "not significant" on the diagonal.
- Nemenyi and Bonferroni--Dunn decide by the critical difference,
  ``|R_a - R_b| >= CD``; every other decision is ``adjusted p <= alpha``. The two
  agree up to rounding (a difference of exactly CD has p-value alpha).

References
----------
.. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data
   sets", JMLR 7:1-30, 2006.
.. [2] A. Benavoli, G. Corani and F. Mangili, "Should we really use post-hoc
   tests based on mean-ranks?", JMLR 17(5):1-10, 2016.
"""

import functools
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import special

from ._corrections import PAIRWISE_CORRECTIONS, adjust_all_pairs, adjust_pvalues
from .._errors import MultitestError
from .._progress import progress
from ._signed_rank import signed_rank_test

__all__ = [
    "CONTROL_METHODS",
    "PAIRWISE_METHODS",
    "ControlResult",
    "FRIEDMAN_TIES",
    "FriedmanResult",
    "PosthocResult",
    "control_comparisons",
    "critical_difference",
    "friedman",
    "nemenyi",
    "pairwise_over_datasets",
]

# Pairs are processed in chunks of about this many (pair, data set) cells, so
# that L = 300 algorithms on S = 1000 data sets never hold all 44 850 x 1000
# differences at once. 2**16 (512 kB per float64 temporary) keeps the
# temporaries in cache: 2**19 is 1.5 to 3 times slower.
_CHUNK_CELLS = 2**16

# scipy.stats.wilcoxon(method="auto"): exact distribution up to this many
# observations (no ties, no zeros) ...
_WILCOXON_EXACT_MAX = 50
# ... and exact permutation distribution up to this many with ties or zeros.
_WILCOXON_PERMUTATION_MAX = 13


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman test on ranks, with the Iman--Davenport F statistic.

    Attributes
    ----------
    statistic : float
        Friedman's chi-square, tie-corrected or not according to `ties` (see
        :func:`friedman`).
    pvalue : float
        Upper tail of chi-square with `df` degrees of freedom.
    df : int
        ``L - 1``.
    iman_davenport_statistic : float
        ``F_F = (S - 1) chi2_F / (S (L - 1) - chi2_F)``; ``inf`` when every data
        set ranks the algorithms identically (``chi2_F = S (L - 1)``).
    iman_davenport_pvalue : float
        Upper tail of F with `iman_davenport_df` degrees of freedom (0 when the
        statistic is ``inf``).
    iman_davenport_df : tuple of int
        ``(L - 1, (L - 1) (S - 1))``.
    ties : str
        ``"corrected"`` (R's ``friedman.test``) or ``"uncorrected"`` (Demšar).
    all_tied : bool
        Every algorithm tied on every data set: both statistics 0, p-values 1.
    """

    statistic: float
    pvalue: float
    df: int
    iman_davenport_statistic: float
    iman_davenport_pvalue: float
    iman_davenport_df: tuple[int, int]
    ties: str = "corrected"
    all_tied: bool = False


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
    """

    method: str
    correction: str
    alpha: float
    statistic: np.ndarray
    pvalues: np.ndarray
    raw_pvalues: np.ndarray
    significant: np.ndarray
    critical_difference: float | None


@dataclass(frozen=True, eq=False)
class ControlResult:
    """Comparisons of every algorithm with a control algorithm.

    Arrays have one entry per algorithm (length L) and are read-only; the
    control's own entry is ``statistic 0``, ``p-value 1`` and not significant.

    Attributes
    ----------
    control : int
        Index of the control algorithm (column of `ranks`).
    method : str
        ``"bonferroni-dunn"``, ``"holm"``, ``"hochberg"`` or ``"hommel"``.
    alpha : float
        Significance level of `significant`.
    statistic : numpy.ndarray
        ``z = (R_i - R_control) / sqrt(L (L+1) / (6 S))``; positive when
        algorithm ``i`` has a worse (higher) average rank than the control.
    raw_pvalues : numpy.ndarray
        Two-sided normal p-values of `statistic`.
    pvalues : numpy.ndarray
        p-values adjusted over the ``L - 1`` comparisons (Bonferroni--Dunn:
        ``min(1, (L - 1) p)``).
    significant : numpy.ndarray
        Bonferroni--Dunn: ``|R_i - R_control| >= critical_difference``;
        otherwise ``pvalues <= alpha``.
    critical_difference : float
        The Bonferroni--Dunn critical difference
        ``z_{1 - alpha / (2 (L - 1))} sqrt(L (L+1) / (6 S))``, whatever `method`.
    """

    control: int
    method: str
    alpha: float
    statistic: np.ndarray
    raw_pvalues: np.ndarray
    pvalues: np.ndarray
    significant: np.ndarray
    critical_difference: float


# ---------------------------------------------------------------------------
# Input validation
# ---------------------------------------------------------------------------


def _as_2d_float(x, name):
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MultitestError(f"`{name}` must be an array of real numbers.") from exc
    if a.ndim != 2:
        raise MultitestError(
            f"`{name}` must be two-dimensional (data sets x algorithms); "
            f"got {a.ndim} dimension(s)."
        )
    n_datasets, n_algorithms = a.shape
    if n_datasets < 2 or n_algorithms < 2:
        raise MultitestError(
            f"`{name}` must have at least 2 data sets (rows) and 2 algorithms "
            f"(columns); got shape {a.shape}."
        )
    if not np.isfinite(a).all():
        raise MultitestError(f"`{name}` must contain only finite numbers.")
    return a


def _iv_ranks(ranks):
    r = _as_2d_float(ranks, "ranks")
    n_algorithms = r.shape[1]
    if ((r < 1) | (r > n_algorithms)).any():
        raise MultitestError(
            f"`ranks` must lie in [1, {n_algorithms}] (1 = best of "
            f"{n_algorithms} algorithms)."
        )
    expected = n_algorithms * (n_algorithms + 1) / 2
    if not np.allclose(r.sum(axis=1), expected, rtol=0, atol=1e-9 * expected):
        raise MultitestError(
            f"every row of `ranks` must be a ranking of the {n_algorithms} "
            f"algorithms (ranks summing to {expected:g}; ties as average ranks)."
        )
    return r


def _iv_alpha(alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise MultitestError(f"`alpha` must be a number in (0, 1); got {alpha!r}.")
    alpha = float(alpha)
    if not 0 < alpha < 1:
        raise MultitestError(f"`alpha` must be in (0, 1); got {alpha!r}.")
    return alpha


def _iv_count(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise MultitestError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    if value < minimum:
        raise MultitestError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def _iv_choice(value, name, allowed):
    if value not in allowed:
        raise MultitestError(f"`{name}` must be one of {tuple(allowed)}; got {value!r}.")
    return value


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


# ---------------------------------------------------------------------------
# Friedman
# ---------------------------------------------------------------------------


FRIEDMAN_TIES = ("corrected", "uncorrected")
"""Values of `ties` in :func:`friedman`: R's tie-corrected statistic or Demšar's."""


def friedman(ranks, ties="corrected"):
    """Friedman test and Iman--Davenport statistic from a rank matrix.

    Parameters
    ----------
    ranks : array_like, shape (S, L)
        Rank of algorithm ``j`` on data set ``i`` (1 = best; average ranks for
        ties), ``S >= 2``, ``L >= 2``.
    ties : {'corrected', 'uncorrected'}, default: 'corrected'
        ``"corrected"``: the statistic divided by the tie correction, equal to
        R's ``friedman.test``; ``"uncorrected"``: Demšar's (2006) formula from
        the average ranks alone (his printed numbers). Without ties both agree.

    Returns
    -------
    FriedmanResult

    Raises
    ------
    MultitestError
        If `ranks` is not an ``(S, L)`` matrix whose rows are rankings of ``L``
        algorithms, or `ties` is unknown.

    Notes
    -----
    With ``T_j`` the rank sum of algorithm ``j`` and ``t`` the sizes of the
    groups of equal ranks within each row (data set)::

        chi2_F = 12 sum_j (T_j - S (L+1)/2)^2 / (S L (L+1) - sum (t^3 - t) / (L - 1))
        F_F = (S - 1) chi2_F / (S (L - 1) - chi2_F)                ~ F(L - 1, (L-1)(S-1))

    ``chi2_F ~ chi2(L - 1)``; ``ties="uncorrected"`` drops the ``sum (t^3 - t)``
    term, which gives docs/method.md §5's ``12 S / (L (L+1)) [sum R_j^2 - L (L+1)^2 / 4]``.
    A data set on which every algorithm ties then still counts in ``S``, so it
    shrinks the statistic; corrected, it carries no information, as it should.
    Iman--Davenport is computed from the chosen ``chi2_F``. The arithmetic is
    exact for integer and half-integer ranks up to the final division.
    Degenerate cases, without warnings:

    - every data set ranks the algorithms the same way: ``chi2_F = S (L - 1)``,
      the Iman--Davenport denominator is 0, ``F_F = inf`` and its p-value 0;
    - all algorithms tied on every data set: no information at all; both
      statistics are 0 and both p-values 1 (``"corrected"`` would be 0/0),
      and :attr:`FriedmanResult.all_tied` is true.

    Examples
    --------
    >>> from multitest.stats._posthoc import friedman
    >>> res = friedman([[1, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 3]])
    >>> float(res.statistic), res.df, res.iman_davenport_df
    (4.5, 2, (2, 6))
    >>> round(res.pvalue, 4), round(res.iman_davenport_pvalue, 4)
    (0.1054, 0.0837)
    >>> tied = [[1.5, 1.5, 3]] * 4 + [[2, 2, 2]] * 4
    >>> round(friedman(tied).statistic, 4), round(friedman(tied, "uncorrected").statistic, 4)
    (8.0, 3.0)
    """
    r = _iv_ranks(ranks)
    ties = _iv_choice(ties, "ties", FRIEDMAN_TIES)
    n_datasets, n_algorithms = r.shape
    all_ties = float(_rank_tie_terms(r).sum())
    tie_term = all_ties if ties == "corrected" else 0.0
    statistic, id_statistic = (
        float(x[0]) for x in _friedman_statistics(r.sum(axis=0)[None, :], n_datasets,
                                                  np.array([tie_term])))
    df = n_algorithms - 1
    id_df = (df, df * (n_datasets - 1))
    if np.isinf(id_statistic):
        id_pvalue = 0.0
    else:
        id_pvalue = float(special.fdtrc(*id_df, id_statistic))
    return FriedmanResult(
        statistic=statistic,
        pvalue=float(special.chdtrc(df, statistic)),
        df=df,
        iman_davenport_statistic=id_statistic,
        iman_davenport_pvalue=id_pvalue,
        iman_davenport_df=id_df,
        ties=ties,
        all_tied=bool(all_ties == n_datasets * (n_algorithms**3 - n_algorithms)),
    )


def _rank_tie_terms(ranks):
    """``sum (t^3 - t)`` over the groups of equal ranks of each row, shape (S,)."""
    r = np.sort(ranks, axis=1)
    n_rows, n_cols = r.shape
    starts = np.ones((n_rows, n_cols), dtype=bool)
    starts[:, 1:] = r[:, 1:] != r[:, :-1]
    flat = np.flatnonzero(starts)
    size = np.diff(np.append(flat, r.size)).astype(np.float64)
    return np.bincount(flat // n_cols, weights=size**3 - size, minlength=n_rows)


def _friedman_statistics(sums, n_datasets, tie_terms):
    """Friedman chi-square and Iman--Davenport F, vectorized over rows of `sums`.

    `sums` (B, L) holds column rank sums, `tie_terms` (B,) the total
    ``sum (t^3 - t)`` (0 for the uncorrected statistic). Shared by
    :func:`friedman` and the stability bootstrap, so both agree to the bit.
    """
    n_algorithms = sums.shape[1]
    centred = sums - n_datasets * (n_algorithms + 1) / 2
    spread12 = 12 * (centred * centred).sum(axis=1)   # 12 sum_j (T_j - S (L+1)/2)^2
    # denominator * (L - 1) = S L (L^2 - 1) - ties; residual = S (L - 1) denominator - spread12
    scaled_denominator = n_datasets * n_algorithms * (n_algorithms**2 - 1) - tie_terms
    residual = n_datasets * scaled_denominator - spread12
    informative = scaled_denominator > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = np.where(informative, (n_algorithms - 1) * spread12 / scaled_denominator, 0.0)
        id_statistic = np.where(residual > 0, (n_datasets - 1) * spread12 / residual, np.inf)
    id_statistic = np.where(informative, id_statistic, 0.0)
    return chi2, id_statistic


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


# ---------------------------------------------------------------------------
# Nemenyi
# ---------------------------------------------------------------------------


def _rank_standard_error(n_algorithms, n_datasets):
    """Standard error of a difference of two average ranks, sqrt(L(L+1)/(6S))."""
    return np.sqrt(n_algorithms * (n_algorithms + 1) / (6 * n_datasets))


def critical_difference(n_algorithms, n_datasets, alpha=0.05):
    """Nemenyi's critical difference of average ranks.

    Parameters
    ----------
    n_algorithms : int
        Number of algorithms L (at least 2).
    n_datasets : int
        Number of data sets S (at least 1).
    alpha : float, default: 0.05
        Significance level, in (0, 1).

    Returns
    -------
    float
        ``CD = q_alpha sqrt(L (L+1) / (6 S))`` with
        ``q_alpha = studentized_range.ppf(1 - alpha, L, inf) / sqrt(2)``.

    Raises
    ------
    MultitestError
        If a count is not an integer large enough or `alpha` is not in (0, 1).

    Notes
    -----
    The quantile is computed, so there is no table limit on L or alpha
    (Demšar's Table 5a stops at L = 10 and alpha in {0.05, 0.10}).

    Examples
    --------
    >>> from multitest.stats._posthoc import critical_difference
    >>> round(critical_difference(8, 38), 4)  # q_0.05 = 3.031 for L = 8
    1.7032
    """
    n_algorithms = _iv_count(n_algorithms, "n_algorithms", 2)
    n_datasets = _iv_count(n_datasets, "n_datasets", 1)
    alpha = _iv_alpha(alpha)
    q_alpha = _studentized_range_isf(alpha, n_algorithms) / np.sqrt(2)
    return float(q_alpha * _rank_standard_error(n_algorithms, n_datasets))


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


def nemenyi(ranks, alpha=0.05):
    """Nemenyi test: all pairs of algorithms by their average ranks.

    Parameters
    ----------
    ranks : array_like, shape (S, L)
        Rank of algorithm ``j`` on data set ``i`` (1 = best), ``S, L >= 2``.
    alpha : float, default: 0.05
        Significance level, in (0, 1).

    Returns
    -------
    PosthocResult
        ``method="nemenyi"``, ``correction="none"``; `statistic` holds
        ``q = |R_a - R_b| / sqrt(L (L+1) / (12 S))`` and `pvalues` its
        studentized-range upper tail (L means, infinite df); `significant` is
        ``|R_a - R_b| >= critical_difference``.

    Raises
    ------
    MultitestError
        If `ranks` or `alpha` is invalid.

    See Also
    --------
    critical_difference, pairwise_over_datasets

    Notes
    -----
    ``q`` is ``sqrt(2)`` times Demšar's ``|R_a - R_b| / sqrt(L (L+1) / (6 S))``,
    so a difference of exactly the critical difference has p-value alpha.
    The decision between two algorithms depends on the other algorithms in the
    pool through their ranks (Benavoli et al. 2016); see
    :func:`pairwise_over_datasets` for pool-independent tests.

    The p-values are those of ``scipy.stats.studentized_range.sf(q, L,
    np.inf)``, computed by a vectorized quadrature that is exact to about
    1e-15 (scipy's own integration is good to 1e-13, to a few 1e-12 within
    1e-10 of p = 1) and keeps its relative accuracy in the far tail, where
    scipy returns about 1e-16; a p-value below the smallest double is 0.
    L = 300 (44 850 pairs) takes about 0.05 s.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._posthoc import nemenyi
    >>> ranks = np.array([[1, 2, 3]] * 9 + [[2, 1, 3]])
    >>> res = nemenyi(ranks)
    >>> round(res.critical_difference, 3)
    1.048
    >>> res.significant
    array([[False, False,  True],
           [False, False,  True],
           [ True,  True, False]])
    """
    r = _iv_ranks(ranks)
    alpha = _iv_alpha(alpha)
    n_datasets, n_algorithms = r.shape
    mean_ranks = r.sum(axis=0) / n_datasets
    a, b = np.triu_indices(n_algorithms, 1)
    difference = np.abs(mean_ranks[a] - mean_ranks[b])
    q = difference / (_rank_standard_error(n_algorithms, n_datasets) / np.sqrt(2))
    pvalues = _symmetric(_studentized_range_sf(q, n_algorithms), n_algorithms, 1.0)
    cd = critical_difference(n_algorithms, n_datasets, alpha)
    return PosthocResult(
        method="nemenyi",
        correction="none",
        alpha=alpha,
        statistic=_symmetric(q, n_algorithms, 0.0),
        pvalues=pvalues,
        raw_pvalues=pvalues,
        significant=_symmetric(difference >= cd, n_algorithms, False, dtype=bool),
        critical_difference=cd,
    )


# ---------------------------------------------------------------------------
# Wilcoxon signed-rank and sign tests over data sets, vectorized over pairs
# ---------------------------------------------------------------------------


def _signed_ranks(d):
    """Signed-rank summaries of each row of `d`, zeros dropped.

    Returns T+ (sum of the average ranks of |d| over positive d), the number
    of non-zero differences and the tie term sum(t^3 - t) over tie groups of
    non-zero |d|, as ``scipy.stats.wilcoxon(zero_method="wilcox")`` ranks them.
    Every quantity is a sum of integers and half-integers, so exact.

    One sort per row: the bit pattern of |d| (a uint64 that orders as |d|
    does, with its top bit clear), shifted left, carries the sign of d in its
    lowest bit, and zeros sort first. A positive d at sorted position j
    (0-based) has rank ``j + 1 - zeros`` if untied; tie groups then move each
    of their positive members to the middle of the group, which touches the
    tied values only.
    """
    n_rows, n_cols = d.shape
    key = np.abs(d).view(np.uint64) << np.uint64(1)
    key |= d > 0
    key.sort(axis=1)
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


def _signed_rank_matrix(d):
    """Average ranks of |d| within each row, zeros dropped (rank 0)."""
    n_rows, n_cols = d.shape
    nonzero = d != 0
    count = nonzero.sum(axis=1)
    key = np.where(nonzero, np.abs(d), np.inf)  # zeros sort last and are masked
    order = np.argsort(key, axis=1)
    key = np.take_along_axis(key, order, axis=1)
    valid = np.arange(n_cols) < count[:, None]
    position = np.broadcast_to(np.arange(n_cols), (n_rows, n_cols))
    starts = np.ones((n_rows, n_cols), dtype=bool)
    starts[:, 1:] = key[:, 1:] != key[:, :-1]
    ends = np.ones((n_rows, n_cols), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.minimum.accumulate(
        np.where(ends, position, n_cols - 1)[:, ::-1], axis=1
    )[:, ::-1]
    rank = np.empty((n_rows, n_cols))
    np.put_along_axis(rank, order, np.where(valid, (first + last) / 2 + 1, 0.0), axis=1)
    return rank


@functools.lru_cache(maxsize=None)
def _signed_rank_cdf(n):
    """Exact null CDF counts of T+ for n untied non-zero ranks (index = T+)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for k in range(1, n + 1):  # counts stay below 2**50: exact in float64
        counts[k:] = counts[k:] + counts[:-k].copy()
    cdf = np.cumsum(counts)
    cdf.setflags(write=False)
    return cdf


def _two_sided_from_cdf(cdf, t):
    """``min(1, 2 min(P(T <= t), P(T >= t)))`` for integer observed values `t`.

    `cdf` holds cumulative null counts indexed by the value of T, either one
    row shared by all observations or one row per observation.
    """
    cdf = np.broadcast_to(cdf, (t.size, cdf.shape[-1]))
    at_most = np.take_along_axis(cdf, t[:, None], axis=1)[:, 0]
    below = np.take_along_axis(cdf, np.maximum(t - 1, 0)[:, None], axis=1)[:, 0]
    below = np.where(t > 0, below, 0.0)
    total = cdf[:, -1]
    return np.minimum(1.0, 2 * np.minimum(at_most, total - below) / total)


def _wilcoxon_exact(r_plus, n):
    """Exact p-values without ties or zeros: every row has n untied ranks."""
    return _two_sided_from_cdf(_signed_rank_cdf(n), np.rint(r_plus).astype(np.intp))


def _wilcoxon_permutation(rank, r_plus, block=4096):
    """Exact sign-flip (permutation) p-values of T+ with tied ranks or zeros.

    Doubled ranks are integers, so the null distribution of 2 T+ is counted
    exactly by a dynamic programme over the data sets, `block` rows at a time.
    """
    weights = np.rint(2 * rank).astype(np.intp)  # zero for dropped zeros
    observed = np.rint(2 * r_plus).astype(np.intp)
    pvalues = np.empty(len(weights))
    for start in range(0, len(weights), block):
        rows = slice(start, start + block)
        w = weights[rows]
        size = int(w.sum(axis=1).max()) + 1
        counts = np.zeros((len(w), size))
        counts[:, 0] = 1.0
        column = np.arange(size)
        for k in range(w.shape[1]):  # at most 13 data sets
            source = column - w[:, k : k + 1]
            shifted = np.take_along_axis(counts, np.maximum(source, 0), axis=1)
            counts += np.where(source >= 0, shifted, 0.0)
        pvalues[rows] = _two_sided_from_cdf(np.cumsum(counts, axis=1), observed[rows])
    return pvalues


def _wilcoxon_normal(r_plus, count, tie_term):
    """Normal approximation (no continuity correction), tie-corrected variance."""
    n = count.astype(np.float64)
    mean = n * (n + 1) * 0.25
    variance = (n * (n + 1) * (2 * n + 1) - tie_term / 2) / 24
    defined = count > 0
    z = np.zeros_like(mean)
    z[defined] = (r_plus[defined] - mean[defined]) / np.sqrt(variance[defined])
    return np.where(defined, 2 * special.ndtr(-np.abs(z)), 1.0)


def _wilcoxon_pairs(d):
    """Two-sided Wilcoxon signed-rank test on each row of `d` (pairs x data sets).

    Same statistic and p-value as ``scipy.stats.wilcoxon(x, y)`` with its
    defaults (``zero_method="wilcox"``, ``correction=False``,
    ``method="auto"``), except that a row of zeros gives p = 1.
    """
    n_datasets = d.shape[1]
    r_plus, count, tie_term = _signed_ranks(d)
    r_minus = count * (count + 1) / 2 - r_plus
    pvalues = np.ones(d.shape[0])

    # scipy's method="auto": S > 50 normal; otherwise exact without ties or
    # zeros, else permutation (S <= 13) or normal (S > 13).
    none = np.zeros(d.shape[0], dtype=bool)
    untied = (tie_term == 0) & (count == n_datasets)
    if n_datasets > _WILCOXON_EXACT_MAX:
        exact, permutation, normal = none, none, ~none
    elif n_datasets > _WILCOXON_PERMUTATION_MAX:
        exact, permutation, normal = untied, none, ~untied
    else:
        exact, permutation, normal = untied, ~untied, none
    if exact.any():
        pvalues[exact] = _wilcoxon_exact(r_plus[exact], n_datasets)
    if permutation.any():
        rank = _signed_rank_matrix(d[permutation])
        pvalues[permutation] = _wilcoxon_permutation(rank, r_plus[permutation])
    if normal.any():
        pvalues[normal] = _wilcoxon_normal(r_plus[normal], count[normal], tie_term[normal])
    return np.minimum(r_plus, r_minus), pvalues


def _sign_pairs(d):
    """Two-sided sign test on each row of `d`, ties (zero differences) dropped.

    Same p-value as ``scipy.stats.binomtest(wins, wins + losses).pvalue``;
    p = 1 when every difference is zero.
    """
    wins = (d > 0).sum(axis=1)
    losses = (d < 0).sum(axis=1)
    smaller = np.minimum(wins, losses)
    from scipy import stats   # binom: the sign test only

    pvalues = np.minimum(1.0, 2 * stats.binom.cdf(smaller, wins + losses, 0.5))
    return smaller.astype(np.float64), pvalues


def _wilcoxon_exact_pairs(d, zero_method="wilcox"):
    """Two-sided exact conditional Wilcoxon signed-rank test on each row of `d`.

    :func:`multitest.stats._signed_rank.signed_rank_test`: exact distribution given
    the mid-ranks for up to ``EXACT_MAX`` non-zero differences (cached per
    ``S`` without ties), normal approximation beyond; statistic ``min(T+, T-)``.
    """
    r_plus, r_minus, pvalues = signed_rank_test(d, "two-sided", zero_method)
    return np.minimum(r_plus, r_minus), pvalues


def _wilcoxon_pratt_pairs(d):
    return _wilcoxon_exact_pairs(d, "pratt")


_PAIRWISE_TESTS = {"wilcoxon": _wilcoxon_exact_pairs, "wilcoxon-pratt": _wilcoxon_pratt_pairs,
                   "wilcoxon-scipy": _wilcoxon_pairs, "sign": _sign_pairs}

PAIRWISE_METHODS = tuple(_PAIRWISE_TESTS)
"""Names of the tests accepted by :func:`pairwise_over_datasets`."""


def pairwise_over_datasets(scores, method="wilcoxon", correction="holm", alpha=0.05):
    """Pool-independent pairwise tests over data sets, with a correction.

    Every pair of algorithms is compared by a paired test over the data sets on
    its per-data-set scores alone (so the decision does not depend on the other
    algorithms, unlike Nemenyi's), then the ``L (L - 1) / 2`` p-values are
    adjusted as one family.

    Parameters
    ----------
    scores : array_like, shape (S, L)
        Per-data-set mean error of each algorithm (lower is better),
        ``S, L >= 2``. The tests are two-sided, so accuracies give the same
        p-values.
    method : {'wilcoxon', 'wilcoxon-pratt', 'wilcoxon-scipy', 'sign'}, default: 'wilcoxon'
        ``"wilcoxon"``: Wilcoxon signed-rank test on the differences with the
        exact conditional distribution given the mid-ranks, zero differences
        dropped, for up to 1000 non-zero differences (normal approximation
        beyond; :mod:`multitest.stats._signed_rank`, equal to R's
        ``exactRankTests::wilcox.exact``); ``"wilcoxon-pratt"``: the same with
        Pratt's treatment of zeros (ranked, then dropped).
        ``"wilcoxon-scipy"``: exactly as ``scipy.stats.wilcoxon`` with its
        defaults: zero differences dropped
        (``zero_method="wilcox"``); exact null distribution when
        ``S <= 50`` and there are no ties or zeros; exact sign-flip
        distribution of the tied ranks when ``S <= 13`` and there are ties or
        zeros; otherwise the normal approximation with tie-corrected variance
        and no continuity correction. ``"sign"``: two-sided binomial test of
        wins against losses, tied data sets dropped.
    correction : {'none', 'bonferroni', 'holm', 'hochberg', 'hommel', 'shaffer', \
'bergmann-hommel'}, default: 'holm'
        Applied to the family of all pairs (see
        :func:`multitest.stats._corrections.adjust_all_pairs`; ``'bergmann-hommel'``
        for at most 10 algorithms).
    alpha : float, default: 0.05
        Significance level, in (0, 1).

    Returns
    -------
    PosthocResult
        `significant` is ``adjusted p <= alpha``; `critical_difference` is None.

    Raises
    ------
    MultitestError
        If an argument is invalid.

    Notes
    -----
    A pair whose scores are equal on every data set gets statistic 0 and
    p-value 1 under both tests (``scipy.stats.wilcoxon`` returns NaN there when
    ``S > 13``). Pairs are processed in vectorized chunks.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._posthoc import pairwise_over_datasets
    >>> rng = np.random.default_rng(0)
    >>> errors = rng.uniform(0.1, 0.3, size=(12, 3))
    >>> errors[:, 2] += 0.2                   # algorithm 2 is always worse
    >>> res = pairwise_over_datasets(errors, method="sign")
    >>> float(res.raw_pvalues[0, 2]), float(res.pvalues[0, 2])  # Holm over 3 pairs
    (0.00048828125, 0.00146484375)
    >>> res.significant[:, 2]
    array([ True,  True, False])
    """
    x = _as_2d_float(scores, "scores")
    test = _PAIRWISE_TESTS[_iv_choice(method, "method", PAIRWISE_METHODS)]
    correction = _iv_choice(correction, "correction", PAIRWISE_CORRECTIONS)
    alpha = _iv_alpha(alpha)
    n_datasets, n_algorithms = x.shape
    a, b = np.triu_indices(n_algorithms, 1)
    statistic = np.empty(a.size)
    raw = np.empty(a.size)
    by_algorithm = np.ascontiguousarray(x.T)
    step = max(1, _CHUNK_CELLS // n_datasets)
    # exact Wilcoxon p-values of tied pairs over ~1000 data sets take ~1 s each
    with progress(a.size, f"{method} over data sets") as bar:
        for start in range(0, a.size, step):
            chunk = slice(start, start + step)
            differences = by_algorithm[a[chunk]] - by_algorithm[b[chunk]]
            statistic[chunk], raw[chunk] = test(differences)
            bar.update(differences.shape[0])
    adjusted = adjust_all_pairs(raw, n_algorithms, correction)
    return PosthocResult(
        method=method,
        correction=correction,
        alpha=alpha,
        statistic=_symmetric(statistic, n_algorithms, 0.0),
        pvalues=_symmetric(adjusted, n_algorithms, 1.0),
        raw_pvalues=_symmetric(raw, n_algorithms, 1.0),
        significant=_symmetric(adjusted <= alpha, n_algorithms, False, dtype=bool),
        critical_difference=None,
    )


# ---------------------------------------------------------------------------
# Comparisons with a control
# ---------------------------------------------------------------------------

_CONTROL_CORRECTIONS = {
    "bonferroni-dunn": "bonferroni",
    "holm": "holm",
    "hochberg": "hochberg",
    "hommel": "hommel",
}

CONTROL_METHODS = tuple(_CONTROL_CORRECTIONS)
"""Names accepted by :func:`control_comparisons`."""


def control_comparisons(ranks, control, method="bonferroni-dunn", alpha=0.05):
    """Compare every algorithm with a control by average ranks (Demšar §3.2.2).

    Parameters
    ----------
    ranks : array_like, shape (S, L)
        Rank of algorithm ``j`` on data set ``i`` (1 = best), ``S, L >= 2``.
    control : int
        Index of the control algorithm (a column of `ranks`; negative indices
        count from the end).
    method : {'bonferroni-dunn', 'holm', 'hochberg', 'hommel'}, default: 'bonferroni-dunn'
        How the ``L - 1`` two-sided normal p-values are adjusted: Bonferroni
        (``min(1, (L - 1) p)``) or a step-wise procedure of
        :func:`multitest.stats._corrections.adjust_pvalues`.
    alpha : float, default: 0.05
        Significance level, in (0, 1).

    Returns
    -------
    ControlResult
        For ``"bonferroni-dunn"`` `significant` is
        ``|R_i - R_control| >= critical_difference``; for the others
        ``adjusted p <= alpha``. The control's entry is z = 0, p = 1, not
        significant.

    Raises
    ------
    MultitestError
        If an argument is invalid.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._posthoc import control_comparisons
    >>> ranks = np.array([[1, 2, 3, 4]] * 8 + [[2, 1, 4, 3]] * 4)
    >>> res = control_comparisons(ranks, control=0)
    >>> round(res.critical_difference, 3)
    1.262
    >>> res.significant
    array([False, False,  True,  True])
    """
    r = _iv_ranks(ranks)
    n_datasets, n_algorithms = r.shape
    if isinstance(control, bool) or not isinstance(control, numbers.Integral):
        raise MultitestError(f"`control` must be an integer index; got {control!r}.")
    if not -n_algorithms <= control < n_algorithms:
        raise MultitestError(
            f"`control` must be in [{-n_algorithms}, {n_algorithms - 1}] for "
            f"{n_algorithms} algorithms; got {control}."
        )
    control = int(control) % n_algorithms
    correction = _CONTROL_CORRECTIONS[_iv_choice(method, "method", CONTROL_METHODS)]
    alpha = _iv_alpha(alpha)

    se = _rank_standard_error(n_algorithms, n_datasets)
    mean_ranks = r.sum(axis=0) / n_datasets
    difference = mean_ranks - mean_ranks[control]
    z = difference / se
    raw = 2 * special.ndtr(-np.abs(z))
    others = np.arange(n_algorithms) != control
    adjusted = np.ones(n_algorithms)
    adjusted[others] = adjust_pvalues(raw[others], correction)
    raw[control] = 1.0
    cd = float(special.ndtri(1 - alpha / (2 * (n_algorithms - 1))) * se)
    if method == "bonferroni-dunn":
        significant = np.abs(difference) >= cd
    else:
        significant = adjusted <= alpha
    significant &= others
    return ControlResult(
        control=control,
        method=method,
        alpha=alpha,
        statistic=_readonly(z),
        raw_pvalues=_readonly(raw),
        pvalues=_readonly(adjusted),
        significant=_readonly(significant),
        critical_difference=cd,
    )
