"""Pool-independent pairwise tests over data sets: Wilcoxon signed-rank and sign tests.

docs/method.md §6: every pair of algorithms is compared by a paired test over
the data sets on its per-data-set scores alone, then the ``L (L - 1) / 2``
p-values are adjusted as one family (:func:`pairwise_over_datasets`). The
tests are those of :mod:`multitest.stats._signed_rank`, shared with the fold
tests of stage 1, vectorized over the pairs.

``scores`` is an ``(S, L)`` array of per-data-set mean errors (lower is
better); results are symmetric ``(L, L)`` matrices with statistic 0, p-value 1
and "not significant" on the diagonal.

References
----------
.. [1] A. Benavoli, G. Corani and F. Mangili, "Should we really use post-hoc
   tests based on mean-ranks?", JMLR 17(5):1-10, 2016 (why these tests).
.. [2] J. Demšar (2006), JMLR 7:1-30, §3.1.3 (Wilcoxon) and §3.1.4 (sign test).
"""

from __future__ import annotations

import functools

import numpy as np

from .._progress import progress
from ._corrections import PAIRWISE_CORRECTIONS, adjust_all_pairs
from ._fold_intervals import (
    FoldInterval,
    inverted_interval,
    sign_null,
    signed_rank_null,
    walsh_averages,
)
from ._posthoc import PosthocResult, _pair_differences, _symmetric
from ._signed_rank import scipy_signed_rank_test, sign_counts, sign_test_pvalues, signed_rank_test
from ._validation import _as_2d_float, _iv_choice, _iv_probability

__all__ = ["paired_intervals"]

# Pairs are processed in chunks of about this many (pair, data set) cells, so
# that L = 300 algorithms on S = 1000 data sets never hold all 44 850 x 1000
# differences at once. 2**16 (512 kB per float64 temporary) keeps the
# temporaries in cache: 2**19 is 1.5 to 3 times slower.
_CHUNK_CELLS = 2**16


def _wilcoxon_pairs(d, zero_method="wilcox"):
    """Two-sided exact conditional Wilcoxon signed-rank test on each row of `d`.

    :func:`multitest.stats.signed_rank_test`: exact distribution given
    the mid-ranks for up to ``EXACT_MAX`` non-zero differences (cached per
    ``S`` without ties), normal approximation beyond; statistic ``min(T+, T-)``.
    """
    r_plus, r_minus, pvalues = signed_rank_test(d, "two-sided", zero_method)
    return np.minimum(r_plus, r_minus), pvalues


def _wilcoxon_pratt_pairs(d):
    return _wilcoxon_pairs(d, "pratt")


def _wilcoxon_scipy_pairs(d):
    """Two-sided Wilcoxon signed-rank test on each row of `d`, as ``scipy.stats.wilcoxon``.

    :func:`multitest.stats._signed_rank.scipy_signed_rank_test`; a row of zeros
    gives p = 1.
    """
    r_plus, r_minus, pvalues = scipy_signed_rank_test(d)
    return np.minimum(r_plus, r_minus), pvalues


def _sign_pairs(d):
    """Two-sided sign test on each row of `d`, ties (zero differences) dropped.

    Statistic ``min(wins, losses)`` and p-value ``min(1, 2 P(X <= min(wins,
    losses)))``, X ~ Binomial(wins + losses, 1/2), as
    ``scipy.stats.binomtest(wins, wins + losses).pvalue``; p = 1 when every
    difference is zero.
    """
    wins, losses = sign_counts(d)
    smaller = np.minimum(wins, losses)
    return smaller.astype(np.float64), sign_test_pvalues(smaller, wins + losses)


def _test_rows(test, d):
    """``test`` on each row of `d`; a row with NaN (a missing score) on its other entries."""
    incomplete = np.isnan(d).any(axis=1)
    if not incomplete.any():
        return test(d)
    statistic, pvalues = np.zeros(len(d)), np.ones(len(d))
    if not incomplete.all():
        statistic[~incomplete], pvalues[~incomplete] = test(d[~incomplete])
    for row in np.flatnonzero(incomplete):
        both = d[row][~np.isnan(d[row])]
        if both.size:
            (statistic[row],), (pvalues[row],) = test(both[None, :])
    return statistic, pvalues


_PAIRWISE_TESTS = {"wilcoxon": _wilcoxon_pairs, "wilcoxon-pratt": _wilcoxon_pratt_pairs,
                   "wilcoxon-scipy": _wilcoxon_scipy_pairs, "sign": _sign_pairs}

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
        p-values.  NaN: the algorithm did not run on that data set; each pair
        is then tested over the data sets where both ran (statistic 0 and
        p-value 1 when there is none).
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
        :func:`multitest.stats.adjust_all_pairs`; ``'bergmann-hommel'``
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
    >>> from multitest.stats._over_datasets import pairwise_over_datasets
    >>> rng = np.random.default_rng(0)
    >>> errors = rng.uniform(0.1, 0.3, size=(12, 3))
    >>> errors[:, 2] += 0.2                   # algorithm 2 is always worse
    >>> res = pairwise_over_datasets(errors, method="sign")
    >>> float(res.raw_pvalues[0, 2]), float(res.pvalues[0, 2])  # Holm over 3 pairs
    (0.00048828125, 0.00146484375)
    >>> res.significant[:, 2]
    array([ True,  True, False])
    """
    x = _as_2d_float(scores, "scores", allow_nan=True)
    test = _PAIRWISE_TESTS[_iv_choice(method, "method", PAIRWISE_METHODS)]
    correction = _iv_choice(correction, "correction", PAIRWISE_CORRECTIONS)
    alpha = _iv_probability(alpha)
    n_datasets, n_algorithms = x.shape
    if np.isnan(x).any():   # missing scores: each pair over the data sets where both ran
        test = functools.partial(_test_rows, test)
    a, b = np.triu_indices(n_algorithms, 1)
    statistic = np.empty(a.size)
    raw = np.empty(a.size)
    # exact Wilcoxon p-values of tied pairs over ~1000 data sets take ~1 s each
    with progress(a.size, f"{method} over data sets") as bar:
        for chunk, differences in _pair_differences(x, a, b, _CHUNK_CELLS):
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


#: Breakpoints (pairs x Walsh averages) inverted at once by :func:`paired_intervals`.
_INTERVAL_CELLS = 1 << 21


def paired_intervals(d, method, alpha):
    """The shifts of each row's differences the test of ``method`` does not reject.

    The interval that agrees with the decision over data sets: the same test as
    :func:`pairwise_over_datasets` (its statistic, its zeros and ties: a
    difference equal to the shift is a zero, dropped as the test drops it),
    two-sided, inverted at each pair's level ``alpha`` (that of the correction,
    :func:`multitest.stats.agreeing_alpha`) by
    :func:`multitest.stats._fold_intervals.inverted_interval`: it excludes 0
    exactly when the raw p-value is below ``alpha``.

    Parameters
    ----------
    d : ndarray, shape (n, S)
        Differences of mean errors per pair (rows) and data set; NaN: the pair
        did not meet on that data set (the row is then inverted over the others).
    method : {'wilcoxon', 'wilcoxon-pratt', 'wilcoxon-scipy', 'sign'}
    alpha : ndarray, shape (n,)

    Returns
    -------
    estimate, low, high, low_open, high_open, achieved : ndarray, shape (n,)
        The estimate is the median of the Walsh averages (Wilcoxon, zeros kept)
        or of the differences (sign test); NaN bounds for a row with no data set.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats import paired_intervals
    >>> d = np.array([[0.01, 0.02, 0.03, 0.04, 0.05, 0.06]])
    >>> estimate, low, high, *_ = paired_intervals(d, "wilcoxon", np.array([0.05]))
    >>> float(estimate[0]), bool(low[0] > 0)
    (0.035, True)
    """
    test = _PAIRWISE_TESTS[method]
    sign = method == "sign"
    n = d.shape[0]
    out = [np.full(n, np.nan) for _ in range(3)] + [np.zeros(n, dtype=bool) for _ in range(2)]
    out.append(np.full(n, np.nan))
    incomplete = np.isnan(d).any(axis=1)
    groups = [(np.flatnonzero(~incomplete & (alpha == level)), None)
              for level in np.unique(alpha[~incomplete])]
    groups += [(np.array([row]), ~np.isnan(d[row])) for row in np.flatnonzero(incomplete)]
    for rows, kept in groups:
        x = d[rows] if kept is None else d[rows][:, kept]
        if x.shape[1] == 0:
            continue
        size = x.shape[1] if sign else x.shape[1] * (x.shape[1] + 1) // 2
        step = max(1, _INTERVAL_CELLS // size)
        for k in range(0, rows.size, step):
            chunk, part = rows[k:k + step], x[k:k + step]
            breakpoints = np.sort(part, axis=1) if sign else walsh_averages(part)
            interval = inverted_interval(
                part, lambda y: test(y)[1], breakpoints, 1 - float(alpha[chunk[0]]),
                "two-sided", method=f"{method} test over data sets",
                estimator="median difference" if sign else "Hodges–Lehmann",
                null=sign_null if sign else signed_rank_null)
            for target, value in zip(out, _columns(interval)):
                target[chunk] = value
    return tuple(out)


def _columns(interval: FoldInterval):
    return (interval.estimate, interval.low, interval.high, interval.low_open,
            interval.high_open, interval.achieved)
