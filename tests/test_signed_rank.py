"""Tests of multitest.stats._signed_rank, the one signed-rank and sign-test kernel.

References, named at each test: exhaustive enumeration of the subsets of the
ranks (the null distribution of ``T+`` is that of a sum of independent
``r_i * B_i``, ``B_i`` fair coins), ``scipy.stats.rankdata``,
``scipy.stats.wilcoxon`` and ``scipy.stats.binomtest``; and the agreement of
the three users of the kernel (stage 1's fold tests, the second pass over data
sets, the Hodges--Lehmann intervals) on the same differences.
"""

import doctest
import importlib
import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

import multitest.stats._signed_rank as kernel
from multitest.stats._over_datasets import pairwise_over_datasets
from multitest.stats._fold_tests import (
    sign_test,
    wilcoxon_pratt,
    wilcoxon_scipy,
    wilcoxon_signed_rank,
)

ALTERNATIVES = ["two-sided", "less", "greater"]


def _enumerated_null(ranks):
    """Reference: T+ over all 2**n sign vectors of the given ranks (exhaustive)."""
    return np.array([sum(r for r, s in zip(ranks, signs) if s)
                     for signs in itertools.product([0, 1], repeat=len(ranks))], dtype=float)


def _enumerated_pvalue(ranks, observed, alternative):
    null = _enumerated_null(ranks)
    less = np.mean(null <= observed + 1e-9)
    greater = np.mean(null >= observed - 1e-9)
    return {"two-sided": min(1.0, 2 * min(less, greater)), "less": less,
            "greater": greater}[alternative]


@pytest.mark.parametrize("n", range(1, 11))
def test_signed_rank_untied_cdf_equals_exhaustive_enumeration(n):
    # Reference: all 2**n subsets of {1..n}; the kernel keeps t = 0 .. n (n+1) / 4.
    cdf = kernel._untied_cdf(n)
    null = _enumerated_null(range(1, n + 1))
    expected = np.array([np.mean(null <= t) for t in range(cdf.size)])
    assert_array_equal(cdf, expected)


@pytest.mark.parametrize("n", [10, 20, 49])
def test_signed_rank_untied_cdf_equals_the_counting_programme(n):
    # Reference: the integer counts of subsets of {1..n} by sum (the former
    # _signed_rank_counts of the fold tests and the Hodges-Lehmann intervals),
    # cumulated and divided by 2**n: for n < 50 every value is exact, so equal
    # to the bit (what keeps the intervals and stage 1's p-values unchanged).
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.int64)
    counts[0] = 1
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[:-k].copy()
    cdf = kernel._untied_cdf(n)
    assert_array_equal(cdf, (np.cumsum(counts) / 2**n)[:cdf.size])


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
def test_signed_rank_doubled_ranks_equal_rankdata(zero_method):
    # Reference: scipy.stats.rankdata of |d| (zeros excluded for "wilcox",
    # ranked for "pratt"), doubled, zeros then set to 0.
    rng = np.random.default_rng(1)
    d = np.round(rng.normal(size=(40, 17)), 1)
    d[3] = 0.0
    d[4, :5] = -0.0
    for row, got in zip(d, kernel._doubled_ranks(d, zero_method)):
        expected = np.zeros(row.size)
        kept = row != 0 if zero_method == "wilcox" else np.ones(row.size, dtype=bool)
        if kept.any():
            expected[kept] = 2 * stats.rankdata(np.abs(row[kept]))
        expected[row == 0] = 0
        assert_array_equal(got, expected)


def test_signed_rank_sums_equal_the_doubled_ranks():
    # Reference: T+ and the tie term from the plain ranking of _doubled_ranks.
    rng = np.random.default_rng(2)
    d = np.round(rng.normal(size=(50, 23)), 1)
    r_plus, count, tie_term = kernel._signed_rank_sums(d)
    doubled = kernel._doubled_ranks(d, "wilcox")
    assert_array_equal(r_plus, np.where(d > 0, doubled, 0).sum(axis=1) / 2)
    assert_array_equal(count, np.count_nonzero(d, axis=1))
    for row, got in zip(d, tie_term):
        _, t = np.unique(np.abs(row[row != 0]), return_counts=True)
        assert got == np.sum(t.astype(float) ** 3 - t)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_signed_rank_test_equals_exhaustive_enumeration(alternative, zero_method):
    # Reference: enumeration of the 2**m sign flips of the ranked non-zero
    # differences (ties and zeros), m <= 10.
    rng = np.random.default_rng(3)
    d = np.round(rng.uniform(-1, 1, size=(30, 10)), 1)
    _, _, pvalue = kernel.signed_rank_test(d, alternative, zero_method)
    for row, got in zip(d, pvalue):
        ranked = row if zero_method == "pratt" else row[row != 0]
        ranks = stats.rankdata(np.abs(ranked))[ranked != 0] if ranked.size else []
        observed = ranks[ranked[ranked != 0] > 0].sum() if len(ranks) else 0.0
        expected = _enumerated_pvalue(ranks, observed, alternative) if len(ranks) else 1.0
        assert_allclose(got, expected, rtol=1e-13)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("n", [8, 13, 14, 30, 50, 51, 80])
def test_signed_rank_scipy_variant_equals_scipy_wilcoxon(n, alternative):
    # Reference: scipy.stats.wilcoxon with its defaults (method="auto"), each of
    # its three branches (exact, permutation, normal) on untied, tied and
    # zero-holding rows.
    rng = np.random.default_rng(n)
    d = rng.normal(size=(12, n))
    d[4:8] = np.round(d[4:8], 1)
    d[8:, ::3] = 0.0
    r_plus, r_minus, pvalue = kernel.scipy_signed_rank_test(d, alternative)
    for i, row in enumerate(d):
        expected = stats.wilcoxon(row, alternative=alternative)
        statistic = min(r_plus[i], r_minus[i]) if alternative == "two-sided" else r_plus[i]
        assert statistic == expected.statistic
        assert_allclose(pvalue[i], expected.pvalue, rtol=1e-12)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_signed_rank_sign_test_equals_binomtest(alternative):
    # Reference: scipy.stats.binomtest(wins, wins + losses).
    rng = np.random.default_rng(5)
    d = np.round(rng.uniform(-1, 1, size=(40, 25)), 1)
    d[0] = 0.0
    wins, losses, pvalue = kernel.sign_test_rows(d, alternative)
    assert pvalue[0] == 1.0
    for w, l, got in zip(wins[1:], losses[1:], pvalue[1:]):
        assert_allclose(got, stats.binomtest(w, w + l, 0.5, alternative).pvalue, rtol=1e-13)


@pytest.mark.parametrize(("method", "fold_test"), [
    ("wilcoxon", wilcoxon_signed_rank), ("wilcoxon-pratt", wilcoxon_pratt),
    ("wilcoxon-scipy", wilcoxon_scipy)])
@pytest.mark.parametrize("n_datasets", [6, 13, 20, 60])
def test_signed_rank_second_pass_and_fold_test_agree(method, fold_test, n_datasets):
    # Reference: the fold test of stage 1 on the same differences; both go
    # through the kernel, so the two-sided p-values and statistics are equal.
    rng = np.random.default_rng(n_datasets)
    scores = np.round(rng.uniform(0.1, 0.3, size=(n_datasets, 6)), 2)
    res = pairwise_over_datasets(scores, method, correction="none")
    a, b = np.triu_indices(6, 1)
    statistic, pvalue = fold_test(scores[:, a].T, scores[:, b].T)
    assert_array_equal(res.raw_pvalues[a, b], pvalue)
    assert_array_equal(res.statistic[a, b], statistic)


def test_signed_rank_second_pass_and_fold_sign_tests_agree():
    # Reference: the fold sign test on the same differences. The second pass
    # reports min(wins, losses) and reads the lower tail there; stage 1 reads
    # the upper tail at wins when wins > losses: the same p-value up to the
    # rounding of the binomial tails, to the bit when wins <= losses.
    rng = np.random.default_rng(9)
    scores = np.round(rng.uniform(0.1, 0.3, size=(40, 8)), 2)
    res = pairwise_over_datasets(scores, "sign", correction="none")
    a, b = np.triu_indices(8, 1)
    wins, pvalue = sign_test(scores[:, a].T, scores[:, b].T)
    assert_allclose(res.raw_pvalues[a, b], pvalue, rtol=1e-13)
    losses = np.count_nonzero(scores[:, a] < scores[:, b], axis=0)
    lower = wins <= losses
    assert_array_equal(res.raw_pvalues[a, b][lower], pvalue[lower])
    assert_array_equal(res.statistic[a, b], np.minimum(wins, losses))


@pytest.mark.parametrize("module", ["_signed_rank", "_fold_tests", "_effect_sizes"])
def test_signed_rank_docstring_examples_run(module):
    # the kernel and its users in stage 1 and the effect sizes
    result = doctest.testmod(importlib.import_module(f"multitest.stats.{module}"),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
