"""Tests of multitest.stats._distributions (the tail functions; the studentized range is
tested with Nemenyi in tests/test_posthoc.py) and multitest.stats._validation."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from scipy import special, stats

from multitest._errors import MultitestError
from multitest.stats._distributions import (
    _FisherF,
    _get_pvalue,
    _HalfBinomial,
    _ratio_test,
    _StandardNormal,
    _StudentT,
)
from multitest.stats._validation import _iv_probability


def test_distributions_half_binomial_smaller_tail_is_the_minimum_of_both():
    # Reference: min(binom.cdf(k), binom.sf(k - 1)) of scipy, every k of every
    # n <= 400: evaluating only the smaller tail gives the same floats.
    n = np.concatenate([np.full(m + 1, m) for m in range(401)])
    k = np.concatenate([np.arange(m + 1) for m in range(401)])
    null = _HalfBinomial(n)
    expected = np.minimum(stats.binom.cdf(k, n, 0.5), stats.binom.sf(k - 1, n, 0.5))
    assert_array_equal(null.smaller_tail(k.astype(float)), expected)
    lower = k <= n - k
    assert_array_equal(_HalfBinomial(n[lower]).smaller_tail(k[lower]), expected[lower])


@pytest.mark.parametrize("distribution", [_StudentT(4), _StandardNormal(), _FisherF(10, 5)])
def test_distributions_two_sided_pvalue_is_twice_the_smaller_tail(distribution):
    # Reference: scipy's t, norm and f: cdf and sf; two-sided min(1, 2 min(cdf, sf)).
    x = np.array([-np.inf, -3.0, -0.5, 0.0, 0.25, 2.0, 40.0, np.inf])
    if isinstance(distribution, _FisherF):
        x = x[x >= 0]                        # F statistics are not negative
    expected = np.minimum(1.0, 2 * np.minimum(distribution.cdf(x), distribution.sf(x)))
    assert_array_equal(_get_pvalue(x, distribution, "two-sided"), expected)
    assert_array_equal(_get_pvalue(x, distribution, "less"), distribution.cdf(x))
    assert_array_equal(_get_pvalue(x, distribution, "greater"), distribution.sf(x))
    assert_array_equal(_StandardNormal.cdf(x), special.ndtr(x))


def test_distributions_ratio_test_degenerate_cases():
    # 0/0: statistic 0 and p-value 1; x/0: +-inf, p-value 0 two-sided.
    statistic, pvalue = _ratio_test(np.array([0.0, 1.0, -1.0]), np.zeros(3), _StudentT(3),
                                    "two-sided")
    assert_array_equal(statistic, [0.0, np.inf, -np.inf])
    assert_array_equal(pvalue, [1.0, 0.0, 0.0])


@pytest.mark.parametrize(("value", "message"), [
    (0, r"`level` must be in \(0, 1\)"), (1.0, r"`level` must be in \(0, 1\)"),
    (np.nan, r"`level` must be in \(0, 1\)"), ("0.9", r"`level` must be a number in \(0, 1\)"),
    (True, r"`level` must be a number in \(0, 1\)")])
def test_validation_probability_rejects(value, message):
    with pytest.raises(MultitestError, match=message):
        _iv_probability(value, "level")
    assert _iv_probability(np.float32(0.5)) == 0.5
