"""multitest.stats._entry: what a pairwise test's registry entry says it can do."""

import dataclasses

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from multitest import MultitestError, available_tests, get_test, rank
from multitest.engine import PairwiseTable
from multitest.engine._bayesian_stage1 import BayesianPairwiseTable
from multitest.inputs import FoldDesign
from multitest.stats import PairwiseTest, combined_f_significant_all_pairs
from multitest.stats._bayesian import POSTERIOR_EVIDENCE, bayes_correlated_t
from multitest.stats import _bayesian as bayesian
from multitest.stats import _fold_tests as fold_tests

ONE_SIDED = ("two-sided", "less", "greater")
TWO_SIDED = ("two-sided",)
T_TESTS = {"vectorized": True, "difference_only": True, "bayesian": False}
FIVE_BY_TWO = {**T_TESTS, "requires_5x2": True, "fold_major": True}
RANK_TESTS = {"vectorized": True, "requires_5x2": False, "difference_only": True,
              "fold_major": False, "bayesian": False, "evidence": "p-value",
              "alternatives": ONE_SIDED}

#: Every built-in test and the capabilities its entry must carry.
BUILTINS = {
    "combined-5x2cv-f": (fold_tests.combined_5x2cv_f,
                         dict(FIVE_BY_TWO, alternatives=TWO_SIDED,
                              interval=fold_tests._combined_f_interval,
                              all_pairs_decision=combined_f_significant_all_pairs)),
    "5x2cv-t": (fold_tests.paired_5x2cv_t, dict(FIVE_BY_TWO, alternatives=ONE_SIDED,
                                                interval=fold_tests._paired_5x2_interval)),
    "combined-5x2cv-t": (fold_tests.combined_5x2cv_t, dict(
        FIVE_BY_TWO, alternatives=ONE_SIDED,
        interval=fold_tests._combined_t_interval)),
    "kfold-t": (fold_tests.kfold_t, dict(T_TESTS, requires_5x2=False, fold_major=False,
                                         interval=fold_tests._kfold_interval,
                                         alternatives=ONE_SIDED)),
    "corrected-t": (fold_tests.corrected_t, dict(T_TESTS, requires_5x2=False, fold_major=False,
                                                 interval=fold_tests._corrected_interval,
                                                 alternatives=ONE_SIDED, evidence="p-value")),
    "wilcoxon": (fold_tests.wilcoxon_signed_rank,
                 dict(RANK_TESTS, interval=fold_tests._wilcoxon_interval)),
    "wilcoxon-pratt": (fold_tests.wilcoxon_pratt,
                       dict(RANK_TESTS, interval=fold_tests._wilcoxon_pratt_interval)),
    "wilcoxon-scipy": (fold_tests.wilcoxon_scipy,
                       dict(RANK_TESTS, interval=fold_tests._wilcoxon_scipy_interval)),
    "sign": (fold_tests.sign_test, dict(RANK_TESTS, interval=fold_tests._sign_interval)),
    "bayes-correlated-t": (bayes_correlated_t, {
        "vectorized": True, "requires_5x2": False, "difference_only": False,
        "fold_major": False, "interval": bayesian._credible_interval,
        "bayesian": True, "evidence": POSTERIOR_EVIDENCE, "alternatives": TWO_SIDED}),
}


def test_every_builtin_is_listed():
    assert set(available_tests()) >= set(BUILTINS)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_entry_fields(name):
    func, expected = BUILTINS[name]
    test = get_test(name)
    assert test.func is func and test.name == name
    for field, value in expected.items():
        assert getattr(test, field) == value, field
    assert test.supports_one_sided == (test.alternatives == ONE_SIDED)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_module_path_to_a_builtin_keeps_its_capabilities(name):
    func, _ = BUILTINS[name]
    test = get_test(f"{func.__module__}:{func.__name__}")
    assert test == dataclasses.replace(get_test(name), name=test.name)


def test_user_test_gets_the_safe_defaults():
    def paired(a, b, alternative="two-sided"):
        return 0.0, 1.0

    def plain(a, b, design):
        return 0.0, 1.0

    for func, alternatives, uses_design in ((paired, ONE_SIDED, False),
                                            (plain, TWO_SIDED, True)):
        test = get_test(func)
        assert (test.vectorized, test.requires_5x2, test.difference_only, test.fold_major,
                test.interval, test.bayesian, test.evidence) == (False, False, False, False,
                                                                 None, False, "p-value")
        assert (test.alternatives, test.uses_design) == (alternatives, uses_design)
        assert test.all_pairs_decision is None
    bare = PairwiseTest("bare", paired)
    assert bare.alternatives == TWO_SIDED and not bare.supports_one_sided


def test_alternative_outside_the_entry_is_refused():
    test = dataclasses.replace(get_test("kfold-t"), alternatives=TWO_SIDED)
    a = np.full((1, 10), 0.2)
    with pytest.raises(MultitestError, match="no one-sided version"):
        test(a, a - 0.01, FoldDesign(1, 10), alternative="greater")


def test_entry_fields_are_checked():
    with pytest.raises(MultitestError, match="`interval` must be a function or None"):
        PairwiseTest("x", bayes_correlated_t, interval="wilcoxon")
    with pytest.raises(MultitestError, match="`alternatives` must start with 'two-sided'"):
        PairwiseTest("x", bayes_correlated_t, alternatives=("less",))


def test_stage1_table_says_what_its_pvalue_holds(example):
    results = example.subset(datasets=example.datasets[:3])
    classical = rank(results, "training_time")
    bayesian = rank(results, "training_time", test="bayes-correlated-t", rope=0.01)
    assert classical.pairwise_test is get_test("combined-5x2cv-f")
    assert bayesian.pairwise_test is get_test("bayes-correlated-t")
    table = bayesian.datasets[0].table
    assert isinstance(table, BayesianPairwiseTable) and table.rope == 0.01
    assert (PairwiseTable.evidence, table.evidence) == ("p-value", POSTERIOR_EVIDENCE)
    assert table.evidence == bayesian.pairwise_test.evidence
    assert classical.datasets[0].table.evidence == classical.pairwise_test.evidence
    # The ROPE reaches stage 1 through the settings, not through the test function.
    wider = rank(results, "training_time", test="bayes-correlated-t", rope=0.05)
    assert np.all(wider.datasets[0].table.pvalue >= table.pvalue)
    assert_array_equal(np.asarray(table.pvalue), np.asarray(table.pvalue_adjusted))



@pytest.mark.parametrize("function, bad, said", [
    ("bad_pvalue", "nan", "returned a NaN p-value"),
    ("bad_pvalue", "high", "returned a p-value outside [0, 1]"),
    ("bad_pvalue", "none", "returned (0.0, None), not two numbers"),
    ("bad_pvalue_vectorized", "nan", "returned a NaN p-value"),
    ("bad_pvalue_vectorized", "high", "returned a p-value outside [0, 1]"),
])
def test_a_bad_pvalue_of_a_custom_test_names_the_data_set_and_the_pair(
        tmp_path, capsys, monkeypatch, function, bad, said):
    # It was "returned a NaN p-value for pair 0 (1 of 6 pairs)": the index of the pair in
    # the block of pairs the test was called on, no data set, no algorithms (issue 40).
    import plugin_failing
    from helpers import make_frame

    from multitest.cli import main

    monkeypatch.setattr(plugin_failing, "BAD", bad)
    errors = np.random.default_rng(4).uniform(0.1, 0.3, (4, 4, 10))
    errors[2, 1, 3] = plugin_failing.MARK   # data set d2, algorithm a1: pairs a1–a2, a1–a3
    path = tmp_path / "results.csv"
    make_frame(errors).to_csv(path, index=False, float_format="%.17g")
    status = main(["rank", str(path), "--order", "a0,a1,a2,a3", "--test",
                   f"plugin_failing:{function}"])
    err = capsys.readouterr().err
    assert status == 2 and err == (f"multitest: error: pairwise test 'plugin_failing:"
                                   f"{function}' {said} on data set d2, pair a1–a2\n")
