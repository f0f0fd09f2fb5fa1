"""Pairwise tests on the per-fold errors of two algorithms (stage 1): the built-in functions.

Every test compares the paired per-fold errors of a *cheaper* algorithm ``a``
and a *costlier* algorithm ``b`` on one data set, for many pairs at once:
``a`` and ``b`` are float arrays of shape ``(n, F)`` (``n`` pairs, ``F`` folds,
fold axis last) and a test returns a statistic and a p-value per pair.

Sign convention, everywhere: ``d = a - b`` (cheaper minus costlier). A positive
t statistic means the costlier algorithm has the lower error, and
``alternative='greater'`` is the alternative hypothesis ``mean(a - b) > 0``
("the costlier algorithm is better").

Tests live in a registry (a dict, as in numcodecs). Built-in tests are
registered with :func:`register_test`, exactly as a user's test would be;
third-party packages add tests through the entry-point group
``multitest.tests``; any function can also be used directly or through a
``"module:function"`` path. :func:`get_test` resolves all of them.

Degenerate folds never produce a warning or a NaN:

- all differences zero (identical errors): statistic 0 and p-value 1, for
  every test and every alternative;
- zero variance with a non-zero mean (the same non-zero difference on every
  fold, or on both folds of every replication for the 5x2 tests): the t-type
  statistics are ``+inf`` or ``-inf`` (sign of the mean difference) with
  p-value 0 two-sided and 0 or 1 one-sided, depending on the direction; the
  F statistic is ``inf`` with p-value 0. More generally a ratio ``0/0`` gives
  statistic 0 and p-value 1, and ``x/0`` with ``x != 0`` gives ``+-inf``.
- the Wilcoxon and sign tests are finite by construction. ``wilcoxon`` and
  ``wilcoxon-pratt`` use the exact conditional distribution
  (:mod:`multitest.stats._signed_rank`, R's ``coin`` / ``exactRankTests``);
  ``wilcoxon-scipy`` and ``sign`` follow :func:`scipy.stats.wilcoxon` and
  :func:`scipy.stats.binomtest`. The statistics and their null distributions
  are those of :mod:`multitest.stats._signed_rank` and
  :mod:`multitest.stats._distributions`, shared with the second pass.

Each test's interval (``_<test>_interval(a, b, design, level, alternative)``,
its registry entry's :attr:`~multitest.stats.PairwiseTest.interval`) is the
set of shifts it does not reject, built from the same parts as the test
(:mod:`multitest.stats._fold_intervals`).
"""


from __future__ import annotations

import numpy as np
from scipy import special

from .._errors import MultitestError
from ._distributions import _FisherF, _ratio, _ratio_test, _StudentT
from ._fold_intervals import (
    FoldInterval,
    inverted_interval,
    sign_null,
    signed_rank_null,
    t_interval,
    walsh_averages,
)
from ._signed_rank import scipy_signed_rank_test, sign_test_rows, signed_rank_test

__all__ = []


def _row_sum(x):
    """``np.sum(x, axis=1)`` of a 2-D array, the same numbers, faster for few columns.

    NumPy reduces each row with its pairwise summation, which for at most 128
    values is: eight running sums over the columns ``k, k + 8, ...``, combined
    as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the last
    ``n % 8`` values added in turn (fewer than 8 values: added in turn).  Doing
    the same additions column by column on whole arrays gives the same floats
    while avoiding NumPy's slow reduction over short rows, several times faster
    for the 5 to 10 folds of stage 1.  More than 128 columns: ``np.sum``.
    """
    n = x.shape[1]
    if n > 128 or n == 0:
        return np.sum(x, axis=1)
    return _sum_columns([x[:, k] for k in range(n)])


def _sum_columns(columns):
    """The sum of 1 to 128 equal-shaped arrays in the order of :func:`_row_sum`, a new array."""
    n = len(columns)
    if n < 8:
        out = columns[0].copy()
        for column in columns[1:]:
            out += column
        return out
    stop = n - n % 8
    r = list(columns[:8])
    if stop > 8:                          # running sums: copies, the inputs stay untouched
        r = [column.copy() for column in r]
        for i in range(8, stop, 8):
            for k in range(8):
                r[k] += columns[i + k]
    out, left, right = r[0] + r[1], r[2] + r[3], r[4] + r[5]
    out += left
    np.add(r[6], r[7], out=left)
    right += left
    out += right
    for column in columns[stop:]:
        out += column
    return out


def _row_mean(x):
    """``np.mean(x, axis=1)`` (the sum divided by the count, as NumPy does)."""
    return _row_sum(x) / x.shape[1]


def _variance(d):
    """Sample variance (ddof=1) along the last axis, exactly 0 for constant rows.

    The steps of ``np.var(d, axis=1, ddof=1)``: mean, squared deviations,
    their sum over ``F - 1``.
    """
    constant = np.all(d == d[:, :1], axis=1)
    deviations = d - _row_mean(d)[:, None]
    deviations *= deviations
    return np.where(constant, 0.0, _row_sum(deviations) / (d.shape[1] - 1))


def _is_zero(b):
    """Whether ``b`` is stage 1's ``numpy.broadcast_to(0.0, shape)`` (one +0.0, repeated)."""
    return b.size > 0 and not any(b.strides) and b.flat[0] == 0 and not np.signbit(b.flat[0])


def _five_by_two(a, b):
    """The ten differences ``p`` as rows (fold-major, shape (10, n)) and ``sum_i s_i^2``.

    docs/method.md section 3.  One row per fold keeps every step a
    contiguous array operation (the (n, 10) layout made each of them strided);
    the operations, and so the floats, are those of the per-pair formulas.
    ``p`` may be a view of ``a``: not to be written.
    """
    if _is_zero(b) and a.T.flags.c_contiguous:     # stage 1's fold-major differences
        p = a.T                                      # d - 0 == d: no copy
    else:
        p = np.empty((a.shape[1], a.shape[0]))
        np.subtract(a.T, b.T, out=p)
    s2 = []
    for first, second in zip(p[0::2], p[1::2]):
        p_bar = first + second
        p_bar /= 2
        left, right = first - p_bar, second - p_bar
        np.square(left, out=left)
        np.square(right, out=right)
        left += right
        s2.append(left)
    return p, _sum_columns(s2)


# --------------------------------------------------------------------------
# Built-in tests (registered like any plug-in)
# --------------------------------------------------------------------------


def combined_5x2cv_f(a, b):
    """Combined 5x2 cv F test (Alpaydin 1999); F(10, 5), upper tail.

    Parameters
    ----------
    a, b : ndarray, shape (n, 10)
        Per-fold errors of the cheaper and the costlier algorithm, 5x2 cv,
        replication-major.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``f = sum_i sum_j (p_i^(j))^2 / (2 sum_i s_i^2)`` and its upper-tail
        p-value. The test has no sign: combine it with the mean errors.
        Identical errors give ``f = 0``, ``p = 1``; ``sum s_i^2 = 0`` with a
        non-zero difference gives ``f = inf``, ``p = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._fold_tests import combined_5x2cv_f
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> f, p = combined_5x2cv_f(a, b)
    >>> f.round(4), p.round(4)
    (array([2.3306]), array([0.1814]))
    """
    return _ratio_test(*_combined_f_parts(a, b), _FisherF(10, 5), "greater")


def _combined_f_parts(a, b):
    """Numerator and denominator of the combined 5x2 cv F statistic."""
    p, s2_sum = _five_by_two(a, b)
    return _sum_columns(list(np.square(p))), 2 * s2_sum


def _combined_f_interval(a, b, design, level, alternative="two-sided"):
    """The shifts ``d0`` the combined 5x2 cv F test does not reject on ``p - d0``.

    ``sum_ij (p_ij - d0)^2 = 10 (d0 - mean)^2 + SS`` (``SS`` the squared
    deviations of the ten differences from their mean) and ``sum_i s_i^2``
    does not move with ``d0``, so ``f(d0) <= c`` (``c`` the critical value
    of F(10, 5)) is ``|d0 - mean| <= sqrt((2 c sum_i s_i^2 - SS) / 10)``.  When
    ``SS > 2 c sum_i s_i^2`` the test rejects every shift: no interval (NaN).
    """
    p, s2_sum = _five_by_two(a, b)
    mean = _sum_columns(list(p)) / 10
    spread = _sum_columns(list(np.square(p - mean)))
    room = _FisherF(10, 5).isf(1 - level) * (2 * s2_sum) - spread
    half = np.sqrt(np.where(room >= 0, room, np.nan) / 10)
    closed = np.zeros(mean.shape, dtype=bool)
    return FoldInterval(estimate=mean, low=mean - half, high=mean + half, low_open=closed,
                        high_open=closed, level=level, achieved=np.full(mean.shape, level),
                        alternative=alternative,
                        method="combined 5x2 cv F test", estimator="mean difference",
                        gaps=closed)


#: Half-width of the band around the critical value where the decision computes p.
_BAND = 1e-6


def _combined_f_significant(a, b, alpha):
    """``combined_5x2cv_f(a, b)[1] < alpha``, the p-value computed only near the critical value.

    The upper tail of F(10, 5) decreases with the statistic, so ``p < alpha``
    exactly when ``f`` exceeds the critical value ``c`` (``sf(c) = alpha``).
    Outside ``[c (1 - 1e-6), c (1 + 1e-6)]`` the true p-value is farther
    from ``alpha`` (relatively, about 1e-6 times the tail's elasticity) than
    the few units in the last place by which the computed one and ``c``
    can be off, so ``f > c`` decides; inside, the p-value is computed as
    :func:`combined_5x2cv_f` does (``_FisherF.sf`` works value by value:
    the same floats on a subset).  ``0/0`` (p-value 1) is never significant.
    """
    statistic, undefined = _ratio(*_combined_f_parts(a, b))
    critical = special.fdtri(10, 5, 1 - alpha)
    if not (np.isfinite(critical) and critical > 0):
        pvalue = np.where(undefined, 1.0, _FisherF(10, 5).sf(statistic))
        return pvalue < alpha
    significant = statistic > critical * (1 + _BAND)
    near = np.flatnonzero(statistic >= critical * (1 - _BAND))
    near = near[(statistic[near] <= critical * (1 + _BAND)) & ~undefined[near]]
    significant[near] = _FisherF(10, 5).sf(statistic[near]) < alpha
    return significant


def paired_5x2cv_t(a, b, alternative="two-sided"):
    """5x2 cv paired t test (Dietterich 1998); t with 5 df.

    Parameters
    ----------
    a, b : ndarray, shape (n, 10)
        Per-fold errors of the cheaper and the costlier algorithm, 5x2 cv,
        replication-major.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``t = p_1^(1) / sqrt(sum_i s_i^2 / 5)``: the numerator is the first fold
        of the first replication only. ``0/0`` gives ``t = 0``, ``p = 1``;
        ``x/0`` gives ``t = +-inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._fold_tests import paired_5x2cv_t
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> t, p = paired_5x2cv_t(a, b)
    >>> t.round(4), p.round(4)
    (array([0.5662]), array([0.5957]))
    """
    return _ratio_test(*_paired_5x2_parts(a, b), alternative)


def _paired_5x2_parts(a, b):
    """Numerator ``p_1^(1)``, scale and distribution of Dietterich's 5x2 cv t."""
    p, s2_sum = _five_by_two(a, b)
    return _five_by_two_t(p[0], s2_sum)


def _paired_5x2_interval(a, b, design, level, alternative="two-sided"):
    """``p_1^(1) -+ q sqrt(sum_i s_i^2 / 5)``: Dietterich's t estimates the difference
    by the first fold of the first replication."""
    return t_interval(*_paired_5x2_parts(a, b), level, alternative, method="5x2 cv paired t test",
                      estimator="difference on the first fold")


def _five_by_two_t(numerator, s2_sum):
    """``numerator``, ``sqrt(sum_i s_i^2 / 5)`` and t with 5 df: both 5x2 cv t tests."""
    return numerator, np.sqrt(s2_sum / 5), _StudentT(5)


def combined_5x2cv_t(a, b, alternative="two-sided"):
    """Combined 5x2 cv t test (all ten differences); t with 5 df.

    The arguments are those of :func:`paired_5x2cv_t`, whose denominator it shares; the
    numerator is the mean of all ten differences instead of the first one.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``t = sqrt(10) * mean(p) / sqrt(sum_i s_i^2 / 5)``. ``0/0`` gives
        ``t = 0``, ``p = 1``; ``x/0`` gives ``t = +-inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._fold_tests import combined_5x2cv_t
    >>> errors = np.random.default_rng(0).uniform(0.1, 0.3, size=(2, 1, 10))
    >>> t, p = combined_5x2cv_t(errors[0], errors[1], alternative="greater")
    >>> t.round(4), p.round(4)
    (array([0.6161]), array([0.2824]))
    """
    return _ratio_test(*_combined_t_parts(a, b), alternative)


def _combined_t_parts(a, b):
    p, s2_sum = _five_by_two(a, b)
    return _five_by_two_t(np.sqrt(10) * (_sum_columns(list(p)) / 10), s2_sum)


def _combined_t_interval(a, b, design, level, alternative="two-sided"):
    """``mean -+ q sqrt(sum_i s_i^2 / 5) / sqrt(10)``."""
    return t_interval(*_combined_t_parts(a, b), level, alternative, unit=np.sqrt(10),
                      method="combined 5x2 cv t test")


def kfold_t(a, b, alternative="two-sided"):
    """Paired t test over all folds (k-fold cv paired t); t with F - 1 df.

    Parameters
    ----------
    a, b : ndarray, shape (n, F)
        Per-fold errors of the cheaper and the costlier algorithm, ``F >= 2``.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``t = sqrt(F) * mean(d) / s_d`` as :func:`scipy.stats.ttest_rel`, which
        ignores that the folds of repeated cv overlap. Identical errors give
        ``t = 0``, ``p = 1``; a constant non-zero difference ``t = +-inf``.

    Raises
    ------
    MultitestError
        If there are fewer than two folds.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._fold_tests import kfold_t
    >>> a = np.array([[0.20, 0.22, 0.25, 0.21, 0.24]])
    >>> b = np.array([[0.18, 0.20, 0.22, 0.20, 0.21]])
    >>> t, p = kfold_t(a, b, alternative="greater")
    >>> t.round(4), p.round(4)
    (array([5.8797]), array([0.0021]))
    """
    return _ratio_test(*_kfold_parts(a, b), alternative)


def _kfold_parts(a, b):
    folds = _require_folds(a, 2, "kfold-t")
    d = a - b
    return _row_mean(d), np.sqrt(_variance(d) / folds), _StudentT(folds - 1)


def _kfold_interval(a, b, design, level, alternative="two-sided"):
    """``mean -+ q s_d / sqrt(F)``, ``q`` from t with ``F - 1`` df."""
    return t_interval(*_kfold_parts(a, b), level, alternative, method="paired t test")


def corrected_t(a, b, design, alternative="two-sided"):
    """Corrected resampled t test (Nadeau & Bengio 2003); t with J - 1 df.

    Parameters
    ----------
    a, b : ndarray, shape (n, J)
        Per-fold errors of the cheaper and the costlier algorithm, ``J`` splits.
    design : FoldDesign
        ``r`` replications of ``k`` folds, ``J = r k >= 2``. The correction uses
        ``design.test_train_ratio`` when set (random subsampling, e.g. ``r = 10``
        splits of ``k = 1`` with ratio 1/9), otherwise ``1/(k - 1)``, which
        needs ``k >= 2``.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``t = mean(d) / sqrt((1/J + n_test/n_train) s_d^2)``. Identical errors
        give ``t = 0``, ``p = 1``; a constant non-zero difference ``t = +-inf``.

    Raises
    ------
    MultitestError
        If ``J < 2``, or ``k < 2`` without a test/train ratio.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.inputs import FoldDesign
    >>> from multitest.stats._fold_tests import corrected_t
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> t, p = corrected_t(a, b, FoldDesign(5, 2))
    >>> t.round(4), p.round(4)
    (array([1.0349]), array([0.3277]))
    >>> t, p = corrected_t(a, b, FoldDesign(10, 1, test_train_ratio="1/9"))
    >>> t.round(4), p.round(4)
    (array([2.3623]), array([0.0424]))
    """
    return _ratio_test(*_corrected_parts(a, b, design), alternative)


def _corrected_parts(a, b, design):
    ratio = design.test_train_ratio
    if ratio is None:
        if design.folds < 2:
            raise MultitestError(
                f"pairwise test 'corrected-t' needs at least 2 folds per replication, or "
                f"a test/train ratio (test_train_ratio, --test-train-ratio) for random "
                f"subsampling; the design is {design}"
            )
        ratio = 1 / (design.folds - 1)
    folds = _require_folds(a, 2, "corrected-t")
    d = a - b
    return _row_mean(d), np.sqrt((1 / folds + ratio) * _variance(d)), _StudentT(folds - 1)


def _corrected_interval(a, b, design, level, alternative="two-sided"):
    """``mean -+ q sqrt((1/J + n_test/n_train) s_d^2)``, the design's test/train ratio."""
    return t_interval(*_corrected_parts(a, b, design), level, alternative,
                      method="corrected resampled t test")


def _require_folds(a, minimum, name):
    if a.shape[1] < minimum:
        raise MultitestError(
            f"pairwise test '{name}' needs at least {minimum} folds; got {a.shape[1]}"
        )
    return a.shape[1]


def wilcoxon_signed_rank(a, b, alternative="two-sided"):
    """Wilcoxon signed-rank test on the folds, exact conditional (zeros dropped).

    The exact distribution of the signed-rank statistic given the observed
    mid-ranks, zero differences dropped before ranking, for up to 1000
    non-zero folds, normal approximation beyond; see
    :mod:`multitest.stats._signed_rank`. Equal to R's
    ``exactRankTests::wilcox.exact`` and ``coin::wilcoxsign_test(distribution =
    "exact", zero.method = "Wilcoxon")``.

    Parameters
    ----------
    a, b : ndarray, shape (n, F)
        Per-fold errors of the cheaper and the costlier algorithm.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``min(R+, R-)`` for the two-sided test, ``R+`` (the rank sum of the
        folds where ``a > b``) for a one-sided one. Identical errors give
        statistic 0 and p-value 1.

    Examples
    --------
    Fourteen folds, five with a non-zero difference: the exact conditional
    p-value is ``2 / 2**5`` (scipy's normal approximation gives 0.0431).

    >>> import numpy as np
    >>> from multitest.stats._fold_tests import wilcoxon_signed_rank
    >>> d = np.array([[.01, .02, .03, .04, .05] + [0] * 9])
    >>> wilcoxon_signed_rank(d, np.zeros_like(d))
    (array([0.]), array([0.0625]))
    """
    return _exact_signed_rank(a - b, alternative, "wilcox")


def wilcoxon_pratt(a, b, alternative="two-sided"):
    """Wilcoxon signed-rank test on the folds, exact conditional, Pratt's zeros.

    As :func:`wilcoxon_signed_rank`, except that zero differences are ranked
    with the others and then dropped (Pratt 1959; R's
    ``coin::wilcoxsign_test(zero.method = "Pratt")``).
    """
    return _exact_signed_rank(a - b, alternative, "pratt")


def _exact_signed_rank(d, alternative, zero_method):
    return _fold_statistic(*signed_rank_test(d, alternative, zero_method), alternative)


def _wilcoxon_interval(a, b, design, level, alternative="two-sided"):
    """Hodges–Lehmann estimate, the shifts :func:`wilcoxon_signed_rank` does not reject."""
    return _signed_rank_interval(a - b, level, alternative, "wilcox")


def _wilcoxon_pratt_interval(a, b, design, level, alternative="two-sided"):
    """Hodges–Lehmann estimate, the shifts :func:`wilcoxon_pratt` does not reject."""
    return _signed_rank_interval(a - b, level, alternative, "pratt")


def _signed_rank_interval(d, level, alternative, zero_method):
    return inverted_interval(
        d, lambda x: signed_rank_test(x, alternative, zero_method)[2], walsh_averages(d),
        level, alternative, method=f"Wilcoxon signed-rank test ({zero_method} zeros)",
        estimator="Hodges–Lehmann", null=signed_rank_null)


def _fold_statistic(r_plus, r_minus, pvalue, alternative):
    """SciPy's statistic: ``min(R+, R-)`` two-sided, ``R+`` one-sided; with the p-value."""
    return (np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus), pvalue


def wilcoxon_scipy(a, b, alternative="two-sided"):
    """Wilcoxon signed-rank test on the folds, as scipy.stats.wilcoxon.

    The result equals ``scipy.stats.wilcoxon(a[i], b[i], alternative=...)``
    with its defaults (SciPy >= 1.15): zero differences are dropped
    (``zero_method='wilcox'``); with ``F <= 50`` folds and neither zeros nor
    ties the exact null distribution is used; with zeros or ties and
    ``F <= 13`` the exact sign-flip permutation distribution; otherwise the
    normal approximation with the tie correction and no continuity correction.
    The arguments and the statistic are those of :func:`wilcoxon_signed_rank`.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._fold_tests import wilcoxon_scipy
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> w, p = wilcoxon_scipy(a, b)
    >>> w, p.round(4)
    (array([4.]), array([0.0137]))
    """
    return _fold_statistic(*scipy_signed_rank_test(a - b, alternative), alternative)


def _wilcoxon_scipy_interval(a, b, design, level, alternative="two-sided"):
    """Hodges–Lehmann estimate, the shifts :func:`wilcoxon_scipy` does not reject."""
    d = a - b
    return inverted_interval(d, lambda x: scipy_signed_rank_test(x, alternative)[2],
                             walsh_averages(d), level, alternative,
                             method="Wilcoxon signed-rank test (SciPy)",
                             estimator="Hodges–Lehmann", null=signed_rank_null)


def sign_test(a, b, alternative="two-sided"):
    """Sign test on the folds (ties dropped); binomial, as scipy.stats.binomtest.

    Parameters
    ----------
    a, b : ndarray, shape (n, F)
        Per-fold errors of the cheaper and the costlier algorithm.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm wins on more folds.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        The number ``k`` of folds on which the costlier algorithm has the lower
        error (``a - b > 0``) and the p-value of
        ``binomtest(k, m, 0.5, alternative)``, ``m`` the number of folds with
        a non-zero difference: tied folds are dropped. All folds tied gives
        statistic 0 and p-value 1.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._fold_tests import sign_test
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, 0, .025, .035, .045]])
    >>> k, p = sign_test(a, b)
    >>> k, p.round(4)
    (array([8.]), array([0.0391]))
    """
    wins, _, pvalue = sign_test_rows(a - b, alternative)
    return wins.astype(float), pvalue


def _sign_interval(a, b, design, level, alternative="two-sided"):
    """Median difference, the shifts :func:`sign_test` does not reject (order statistics)."""
    d = a - b
    return inverted_interval(d, lambda x: sign_test_rows(x, alternative)[2], np.sort(d, axis=1),
                             level, alternative, method="sign test", estimator="median difference",
                             null=sign_null)
