"""multitest.stats._gram: the combined 5x2 cv F decisions of all pairs from one product.

Reference everywhere: ``combined_5x2cv_f(a, b)[1] < alpha`` pair by pair (the p-values
of the per-pair path, itself checked against SciPy's F distribution in
test_pairwise.py), compared exactly, on ordinary errors and on inputs built to break
an unguarded Gram formulation: large equal errors, constant differences, 1e-12
perturbations, identical algorithms and statistics placed on the critical value.
"""
import dataclasses

import numpy as np
import pytest
from helpers import differences_on_critical

from multitest import get_test
from multitest.engine import _stage1 as stage1
from multitest.engine._per_dataset import prior_positions
from multitest.engine._stage1 import run_pairwise_tests
from multitest.inputs import FoldDesign
from multitest.stats import _gram as gram
from multitest.stats import combined_f_significant_all_pairs
from multitest.stats._fold_tests import combined_5x2cv_f


def _per_pair(x, alpha, lower=None):
    """The reference: every pair ``i < j`` through combined_5x2cv_f, shape (n, P)."""
    n, L, _ = x.shape
    first, second = np.triu_indices(L, k=1)
    p = combined_5x2cv_f(x[:, first].reshape(-1, 10), x[:, second].reshape(-1, 10))[1]
    significant = (p < alpha).reshape(n, -1)
    if lower is not None:
        significant &= lower[:, second] < lower[:, first]
    return significant


def _on_critical(alpha, n=40, seed=30):
    """Pairs (data sets of two algorithms) whose F statistic is the critical value to
    within 50 units in the last place, and 1e-9 to 1e-4 relative either side.

    The differences are :func:`helpers.differences_on_critical`, as in test_fast_paths.py.
    """
    d = differences_on_critical(alpha, n, seed)
    b = np.full(d.shape, 0.25)
    return np.stack([b + d, b], axis=1)            # (pairs, 2 algorithms, 10)


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1, 0.5, 1e-6])
def test_decisions_on_the_critical_value_are_the_per_pair_ones(alpha):
    x = _on_critical(alpha)
    got = combined_f_significant_all_pairs(x, alpha)
    want = _per_pair(x, alpha)
    np.testing.assert_array_equal(got, want)
    # Both sides of the decision are exercised.
    assert 100 < want.sum() < want.size - 100


def _adversarial(rng):
    """Data sets of L = 8 algorithms that break an unguarded Gram product."""
    noise = rng.uniform(0.1, 0.3, (8, 8, 10))
    x = np.empty((8, 8, 10))
    x[0] = 1e6 + noise[0]                          # large equal errors, small differences
    x[1] = noise[1]
    x[1, 1] = x[1, 0] - 1 / 32                     # constant difference: f = inf
    x[1, 2] = x[1, 0]                              # identical: 0/0, p = 1
    x[1, 3:] = x[1, 0] + 2.0 ** -40                # identical up to one last place
    x[2] = 0.2 + 1e-12 * noise[2]                  # differences of 1e-12
    x[3] = np.round(noise[3], 2)                   # many ties
    x[3, 4:] = x[3, 0]
    x[4] = 1e8 * noise[4]                          # large errors and large differences
    x[5] = noise[5]
    x[5, :, 1::2] = x[5, :, 0::2]                  # both folds equal: D = 0 for every pair
    x[6] = 1e-155 * noise[6]                       # squares near and below the subnormals
    x[7] = 1e-145 * noise[7]
    return x


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.5])
@pytest.mark.parametrize("block", [10 ** 9, 20])     # all rows at once; 1 row at a time
def test_adversarial_inputs_give_the_per_pair_decisions(alpha, block, monkeypatch):
    monkeypatch.setattr(gram, "_BLOCK", block)
    x = _adversarial(np.random.default_rng(4))
    lower = x.mean(axis=2)
    np.testing.assert_array_equal(combined_f_significant_all_pairs(x, alpha),
                                  _per_pair(x, alpha))
    np.testing.assert_array_equal(combined_f_significant_all_pairs(x, alpha, lower=lower),
                                  _per_pair(x, alpha, lower))


def test_the_guard_sends_the_unsure_pairs_to_the_per_pair_path(monkeypatch):
    # Centring makes the product precise relative to the spread of the errors: large
    # equal errors and 1e-12 differences are decided by it (and correctly, above);
    # identical algorithms (0/0) and differences of 2^-40 next to a spread of 0.1 are
    # within the guard, and decided per pair.
    sent = []
    real = gram._exact

    def counted(x, s, i, j, alpha):
        sent.append(s.size)
        return real(x, s, i, j, alpha)
    monkeypatch.setattr(gram, "_exact", counted)
    x = _adversarial(np.random.default_rng(4))
    combined_f_significant_all_pairs(x[[0, 2]], 0.05)
    assert sum(sent) == 0
    combined_f_significant_all_pairs(x[1:2], 0.05)
    assert sent == [1 + 10 + 2 * 5]      # {0, 2}, {3..7} and {0, 2} x {3..7}


@pytest.mark.parametrize("rows", [(0, 7), (0, 3), (3, 7), (6, 7)])
def test_rows_select_the_pairs_of_those_first_algorithms(rows):
    rng = np.random.default_rng(5)
    x = rng.uniform(0.1, 0.3, (9, 8, 10)) - 0.02 * np.arange(8)[:, None]
    lower = x.mean(axis=2)
    first = np.triu_indices(8, k=1)[0]
    keep = (first >= rows[0]) & (first < rows[1])
    np.testing.assert_array_equal(combined_f_significant_all_pairs(x, 0.05, rows, lower),
                                  _per_pair(x, 0.05, lower)[:, keep])


@pytest.mark.parametrize("alpha", [1.0, 1e-300])   # critical value 0, or not finite
def test_alphas_without_a_critical_value_use_the_per_pair_path(alpha):
    x = _adversarial(np.random.default_rng(6))
    np.testing.assert_array_equal(combined_f_significant_all_pairs(x, alpha),
                                  _per_pair(x, alpha))


@pytest.mark.parametrize("block", [10 ** 9, 120 * 7, 1])   # data sets per call: all, 7, 1
def test_stage1_decisions_are_those_of_the_p_values(block, monkeypatch):
    # Reference: the same run without the entry's all_pairs_decision (p < alpha of the
    # p-values of every block).
    rng = np.random.default_rng(7)
    S, L = 23, 12
    errors = np.round(rng.uniform(0.1, 0.3, (S, L, 10)) - 0.01 * np.arange(L)[:, None], 3)
    errors[:8] = _adversarial(rng).repeat(2, axis=1)[:, :L]
    keys = rng.permutation(np.tile(np.arange(L, dtype=float), (S, 1)).T).T[None]
    prior = prior_positions(keys, [f"a{j}" for j in range(L)])
    test = get_test("combined-5x2cv-f")
    assert test.all_pairs_decision is combined_f_significant_all_pairs
    per_pair = dataclasses.replace(test, all_pairs_decision=None)
    monkeypatch.setattr(stage1, "_BLOCK_ELEMENTS", block)
    tables = [run_pairwise_tests(errors, prior, t, FoldDesign(5, 2), alpha=0.05,
                                 correction="none", alternative="two-sided", keep=False)
              for t in (test, per_pair)]
    np.testing.assert_array_equal(tables[0].override, tables[1].override)
    assert 0 < tables[0].override.sum() < tables[0].override.size
    # Statistics on access: recomputed by the test itself, bit for bit the same.
    np.testing.assert_array_equal(np.asarray(tables[0].pvalue), np.asarray(tables[1].pvalue))
