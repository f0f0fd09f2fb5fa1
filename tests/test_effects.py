"""multitest.engine._effects: every interval agrees with its decision (issue 36, problem 7).

Each per-data-set and over-data-sets interval is the set of shifts the deciding test (its
statistic, zeros, ties, test/train ratio, correction and level) does not reject: it
excludes 0 exactly when the pair was found different, its open ends honoured.
References: closed forms with scipy.stats.t (t-type tests, the Bayesian posterior), R's
exact intervals (tests/fixtures/inverted_intervals_r.R) for the rank tests.
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from helpers import make_frame
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from multitest import example_results, rank
from multitest.engine._second_pass_methods import SECOND_PASS_METHODS
from multitest.engine._effects import dataset_effects, pairwise_columns, second_pass_columns
from multitest.inputs import FoldDesign
from multitest.stats import available_tests, get_test
from multitest.stats._corrections import CORRECTIONS, PAIRWISE_CORRECTIONS

FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures"


def _holds_zero(low, high, low_open, high_open):
    """Whether the written intervals (their open ends honoured) hold 0."""
    low_open, high_open = np.asarray(low_open, dtype=bool), np.asarray(high_open, dtype=bool)
    return (np.where(low_open, low < 0, low <= 0) & np.where(high_open, 0 < high, 0 <= high))


def _stage1(ranking):
    """(rejected, holds 0, override, columns) of every pair of every data set."""
    columns = pairwise_columns(ranking)
    rejected = np.concatenate([r.table.pvalue_adjusted[r.index] for r in ranking.datasets])
    rejected = rejected < ranking.settings.alpha
    override = np.concatenate([r.table.override[r.index] for r in ranking.datasets])
    holds = _holds_zero(columns["ci_low"], columns["ci_high"], columns["ci_low_open"],
                        columns["ci_high_open"])
    return rejected, holds, override, columns


def _first_pair(ranking):
    """The fold differences (cheaper - costlier) of the first pair of the first data set."""
    result = ranking.datasets[0]
    prior = result.table.prior[0]
    errors = ranking.results.errors[0]
    return errors[prior[result.table.cheaper[0]]] - errors[prior[result.table.costlier[0]]]


# --------------------------------------------------------------------------
# The reproduced defects
# --------------------------------------------------------------------------


def test_corrected_t_interval_uses_the_runs_test_train_ratio():
    # Before: the p-value used 0.25, the interval the design's 1/(k - 1) = 1: 111 of 1064
    # pairs of the bundled data significant with an interval holding 0.
    ranking = rank(example_results(), "training_time", test="corrected-t",
                   test_train_ratio=0.25)
    rejected, holds, _, columns = _stage1(ranking)
    assert rejected.sum() > 100
    assert_array_equal(rejected, ~holds)
    # the closed form: mean -+ t_{J-1, 0.975} sqrt((1/J + 0.25) s^2) (scipy.stats.t)
    d = _first_pair(ranking)
    half = stats.t.ppf(0.975, 9) * np.sqrt((1 / 10 + 0.25) * d.var(ddof=1))
    assert_allclose([columns["ci_low"][0], columns["ci_high"][0]],
                    [d.mean() - half, d.mean() + half], rtol=1e-12)


@pytest.mark.parametrize("test", ["wilcoxon", "wilcoxon-pratt", "wilcoxon-scipy", "sign"])
def test_rank_test_intervals_drop_zeros_as_their_test(test):
    # Before: zeros kept by the interval, dropped by the test: overrides with an interval
    # closed at exactly 0, and a Wilcoxon pair at p = 0.049 with an interval from -0.87.
    ranking = rank(example_results(), "training_time", test=test)
    rejected, holds, override, columns = _stage1(ranking)
    assert_array_equal(rejected, ~holds)
    at_zero = (columns["ci_low"] == 0) | (columns["ci_high"] == 0)
    assert (rejected & at_zero).sum() > 10          # the bound is 0, and open
    assert (columns["ci_low_open"] | ~(rejected & (columns["ci_low"] == 0))).all()
    # each data set's decision at 0 is the test's own
    for r in ranking.datasets:
        effects = dataset_effects(ranking, r)
        assert_array_equal(effects.contains(0.0),
                           r.table.pvalue_adjusted[r.index] >= ranking.settings.alpha)
    # ten folds with zeros and ties: the achieved confidence of a discrete interval
    assert ((columns["ci_level"] >= 0.95) & (columns["ci_level"] < 1)).all()


def test_one_replication_with_a_ratio_writes_its_intervals(tmp_path):
    # Before: ranked, then exit 2 while writing ("needs at least 2 folds per replication,
    # or a test/train ratio"): the interval was asked of the design without the ratio.
    rng = np.random.default_rng(36)
    errors = rng.normal(0.2, 0.02, (3, 4, 10)) + np.array([0, 0.01, 0.02, 0.03])[:, None]
    source = tmp_path / "r.csv"
    make_frame(errors, replications=1).to_csv(source, index=False)
    done = subprocess.run([sys.executable, "-m", "multitest.cli", "rank", str(source),
                           "--order", "a0,a1,a2,a3", "--test", "corrected-t",
                           "--test-train-ratio", "1/9", "--out", str(tmp_path / "out"), "-q"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    pairs = pd.read_csv(tmp_path / "out" / "pairwise.csv")
    first = pairs.iloc[0]
    a = errors[0, int(first["a"][1:])]
    b = errors[0, int(first["b"][1:])]
    d = a - b
    half = stats.t.ppf(0.975, 9) * np.sqrt((1 / 10 + 1 / 9) * d.var(ddof=1))
    assert_allclose([first["ci_low"], first["ci_high"]], [d.mean() - half, d.mean() + half],
                    rtol=1e-9)
    assert not pairs[["ci_low_open", "ci_high_open"]].any().any()
    assert (pairs["ci_level"] == 0.95).all()


@pytest.mark.parametrize("rope", [0.0, 0.5])
def test_bayesian_credible_interval_uses_the_decisions_rho(rope):
    # Before: the decision used rho = r / (1 + r) = 0.2, the interval rho = 1/k = 0.5.
    ranking = rank(example_results(), "training_time", test="bayes-correlated-t",
                   test_train_ratio="1/4", rope=rope)
    assert ranking.datasets[0].table.rho == pytest.approx(0.2)
    _, _, override, columns = _stage1(ranking)
    # above the ROPE (a point mass at 0 with rope 0: P = 1/2 each way, no override)
    assert_array_equal(override, columns["ci_low"] > rope)
    assert_array_equal(columns["p_cheaper_better"] >= 0.95, columns["ci_high"] < -rope)
    # the posterior: t with 9 df, scale sqrt((1/10 + 0.2/0.8) s^2); a 90% central interval
    d = _first_pair(ranking)
    half = stats.t.ppf(0.95, 9) * np.sqrt((1 / 10 + 0.25) * d.var(ddof=1))
    assert_allclose([columns["ci_low"][0], columns["ci_high"][0]],
                    [d.mean() - half, d.mean() + half], rtol=1e-12)


# --------------------------------------------------------------------------
# Every built-in test x correction x ratio (the registry enumerated)
# --------------------------------------------------------------------------


def _errors(seed, folds=10, S=3, L=5):
    """Errors with effects of several sizes, rounded to two decimals: zeros and ties."""
    rng = np.random.default_rng(seed)
    shift = np.linspace(0, 0.06, L)[rng.permutation(L)]
    return np.round(rng.normal(0.3, 0.03, (S, L, folds)) + shift[None, :, None], 2)


def _cases():
    for name, test in available_tests().items():
        if test.interval is None or test.func.__module__.split(".")[0] != "multitest":
            continue
        corrections = ("none",) if test.bayesian else CORRECTIONS
        ratios = (None, "1/4") if test.uses_design else (None,)
        alternatives = [a for a in test.alternatives if a in ("two-sided", "greater")]
        for correction in corrections:
            for ratio in ratios:
                for alternative in alternatives:
                    yield name, correction, ratio, alternative


def test_the_cases_cover_every_builtin_test_with_an_interval():
    names = {case[0] for case in _cases()}
    assert names == {n for n, t in available_tests().items() if t.interval is not None
                     and t.func.__module__.startswith("multitest.")}
    assert len(names) >= 10


@pytest.mark.parametrize("name, correction, ratio, alternative", list(_cases()))
def test_every_stage1_interval_agrees_with_its_decision(name, correction, ratio, alternative):
    test = get_test(name)
    for seed in range(3):
        frame = make_frame(_errors(seed))
        options = {"test": name, "correction": correction, "test_train_ratio": ratio}
        if not test.bayesian:
            options["alternative"] = alternative
        ranking = rank(frame, [f"a{j}" for j in range(5)], **options)
        rejected, holds, override, columns = _stage1(ranking)
        if test.bayesian:     # rope 0: the costlier overrides when the bound is above 0
            assert_array_equal(override, columns["ci_low"] > 0)
            continue
        assert_array_equal(rejected, ~holds, err_msg=f"seed {seed}")
        assert (columns["ci_level"] >= 1 - ranking.settings.alpha - 1e-12).all()
        if alternative == "greater":
            assert np.isposinf(columns["ci_high"]).all()


@pytest.mark.parametrize("name", sorted(n for n, t in available_tests().items()
                                        if t.uses_design and t.interval is not None
                                        and t.func.__module__.startswith("multitest.")))
def test_random_subsampling_intervals_agree_with_their_decision(name):
    # One replication of ten splits: only the ratio defines the test.
    for seed in range(3):
        frame = make_frame(_errors(seed), replications=1)
        ranking = rank(frame, [f"a{j}" for j in range(5)], test=name, test_train_ratio="1/9")
        rejected, holds, override, columns = _stage1(ranking)
        if get_test(name).bayesian:
            assert_array_equal(override, columns["ci_low"] > 0)
        else:
            assert_array_equal(rejected, ~holds)


def _second_pass_cases():
    for name, method in SECOND_PASS_METHODS.items():
        if method.interval is None:
            continue
        for correction in PAIRWISE_CORRECTIONS:
            yield name, correction


@pytest.mark.parametrize("method, correction", list(_second_pass_cases()))
def test_every_second_pass_interval_agrees_with_its_decision(method, correction):
    for seed in range(3):
        frame = make_frame(_errors(seed, folds=10, S=14, L=5))
        ranking = rank(frame, [f"a{j}" for j in range(5)], second_pass=method,
                       posthoc_correction=correction, friedman_gate=False)
        sp = ranking.second_pass
        columns = second_pass_columns(ranking)
        index = {a: i for i, a in enumerate(ranking.algorithms)}
        significant = np.array([sp.significant[index[a], index[b]]
                                for a, b in zip(columns["a"], columns["b"])])
        holds = _holds_zero(columns["ci_low"], columns["ci_high"], columns["ci_low_open"],
                            columns["ci_high_open"])
        assert_array_equal(significant, ~holds, err_msg=f"seed {seed}")
        assert (columns["ci_level"] >= 1 - ranking.settings.alpha).all()


def test_second_pass_methods_without_an_interval_write_none():
    assert {n for n, m in SECOND_PASS_METHODS.items() if m.interval is None} == \
        {"nemenyi", "bayesian"}
    columns = second_pass_columns(rank(example_results(), "training_time"))
    assert np.isnan(columns["ci_low"]).all() and np.isnan(columns["ci_level"]).all()
    assert np.isfinite(columns["hodges_lehmann"]).all()


# --------------------------------------------------------------------------
# Against R: the exact intervals where no difference is zero and none tied
# --------------------------------------------------------------------------


@pytest.mark.parametrize("row", list(pd.read_csv(FIXTURES / "inverted_intervals_r.csv")
                                     .itertuples()),
                         ids=lambda row: f"{row.case}-{row.level}")
def test_rank_test_intervals_equal_rs_exact_ones(row):
    # R: wilcox.test / exactRankTests::wilcox.exact (conf.int = TRUE) and the binomial
    # order statistics (tests/fixtures/inverted_intervals_r.R).  Between two breakpoints
    # no difference is zero or tied, so the bounds are R's; at a bound itself the shifted
    # differences hold a zero (dropped) or a tie, and whether it is in the set is our test's
    # answer there (R's intervals are closed by convention).
    d = np.array([float(v) for v in row.values.split(";")])[None]
    design = FoldDesign(1, d.shape[1])
    for name, low, high, achieved in (
            ("wilcoxon", row.wilcox_low, row.wilcox_high, row.wilcox_achieved),
            ("wilcoxon-pratt", row.wilcox_low, row.wilcox_high, row.wilcox_achieved),
            ("wilcoxon-scipy", row.wilcox_low, row.wilcox_high, row.wilcox_achieved),
            ("sign", row.sign_low, row.sign_high, row.sign_achieved)):
        test = get_test(name)
        interval = test.interval(d, np.zeros_like(d), design, row.level)
        assert (interval.low[0], interval.high[0]) == (low, high), name
        assert interval.achieved[0] == pytest.approx(achieved, rel=1e-12), name
        for bound, is_open in ((low, interval.low_open[0]), (high, interval.high_open[0])):
            p = test(d - bound, np.zeros_like(d), design)[1][0]
            assert is_open == (p < 1 - row.level), name
