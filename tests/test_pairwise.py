"""Tests of multitest.stats._pairwise (stage 1: pairwise tests on per-fold errors).

Every expected value comes from an independent reference named in a comment:
SciPy's own tests (ttest_rel, wilcoxon, binomtest, f.sf, t.sf), hand computation,
R (tests/fixtures/pairwise_r.R -> pairwise_r.csv), brute-force enumeration, or
the worked example of docs/method.md section 4.
"""

import itertools
import math
import subprocess
import sys
import textwrap
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from multitest._errors import MultitestError, UnknownTestError
from multitest.inputs import FoldDesign
from multitest.inputs._design import parse_test_train_ratio
from multitest.stats import PairwiseTest, available_tests, get_test, register_test
from multitest.stats._registry import DEFAULT_TEST
from multitest.stats import _fold_tests as fold_tests
from multitest.stats import _registry as registry_module
from multitest.stats._signed_rank import EXACT_MAX, _untied_cdf

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
ALTERNATIVES = ["two-sided", "less", "greater"]
FIVE_BY_TWO = FoldDesign(5, 2)
BUILTINS = {
    # name: (function, requires_5x2, supports_one_sided)
    "combined-5x2cv-f": (fold_tests.combined_5x2cv_f, True, False),
    "5x2cv-t": (fold_tests.paired_5x2cv_t, True, True),
    "combined-5x2cv-t": (fold_tests.combined_5x2cv_t, True, True),
    "kfold-t": (fold_tests.kfold_t, False, True),
    "corrected-t": (fold_tests.corrected_t, False, True),
    "wilcoxon": (fold_tests.wilcoxon_signed_rank, False, True),
    "wilcoxon-pratt": (fold_tests.wilcoxon_pratt, False, True),
    "wilcoxon-scipy": (fold_tests.wilcoxon_scipy, False, True),
    "sign": (fold_tests.sign_test, False, True),
}
T_TESTS = ["5x2cv-t", "combined-5x2cv-t", "kfold-t", "corrected-t"]
SCIPY_WILCOXON_RULES = tuple(int(x) for x in scipy.__version__.split(".")[:2]) >= (1, 15)
needs_scipy_115 = pytest.mark.skipif(
    not SCIPY_WILCOXON_RULES,
    reason="the rules of scipy.stats.wilcoxon(method='auto') reproduced are SciPy >= 1.15's")


@pytest.fixture
def registry(monkeypatch):
    """A private copy of the registry and a fresh entry-point cache, restored after."""
    monkeypatch.setattr(registry_module, "_REGISTRY", dict(registry_module._REGISTRY))
    monkeypatch.setattr(registry_module, "_ENTRY_POINTS", None)
    return registry_module._REGISTRY


@pytest.fixture
def tmp_module(tmp_path, monkeypatch):
    """Write a module into tmp_path (on sys.path); forget it after the test."""
    names = []

    def write(name, source):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        names.append(name)
        return name

    monkeypatch.syspath_prepend(str(tmp_path))
    yield write
    for name in names:
        sys.modules.pop(name, None)


def random_errors(rng, n, folds, ties=False):
    """Paired error arrays; with ``ties``, values on a 0.25 grid (many ties and zeros)."""
    if ties:
        return (rng.integers(0, 5, size=(n, folds)) / 4,
                rng.integers(0, 5, size=(n, folds)) / 4)
    a = rng.uniform(0.1, 0.3, size=(n, folds))
    return a, a - rng.normal(0.01, 0.02, size=(n, folds))


# ---------------------------------------------------------------- FoldDesign


def test_fold_design():
    design = FoldDesign(replications=5, folds=2)
    assert (design.n, design.is_5x2, str(design)) == (10, True, "5x2")
    assert FoldDesign(1, 10).n == 10 and not FoldDesign(1, 10).is_5x2
    with pytest.raises(MultitestError, match="`folds` must be a positive integer"):
        FoldDesign(5, 0)
    with pytest.raises(MultitestError, match="`replications`"):
        FoldDesign(2.5, 2)


# ---------------------------------------------------------- SciPy cross-checks


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("folds", [5, 10, 30])
@pytest.mark.parametrize("ties", [False, True])
def test_kfold_t_matches_ttest_rel(alternative, folds, ties):
    rng = np.random.default_rng(1)
    a, b = random_errors(rng, 50, folds, ties)
    d = a - b
    a, b = a[np.ptp(d, axis=1) > 0], b[np.ptp(d, axis=1) > 0]  # ttest_rel warns on constants
    t, p = get_test("kfold-t")(a, b, FoldDesign(1, folds), alternative=alternative)
    # reference: scipy.stats.ttest_rel, pair by pair
    for i in range(a.shape[0]):
        ref = stats.ttest_rel(a[i], b[i], alternative=alternative)
        assert_allclose([t[i], p[i]], [ref.statistic, ref.pvalue], rtol=1e-10)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("design", [FoldDesign(5, 2), FoldDesign(1, 10), FoldDesign(10, 10)])
def test_corrected_t_formula(alternative, design):
    rng = np.random.default_rng(2)
    a, b = random_errors(rng, 30, design.n)
    t, p = get_test("corrected-t")(a, b, design, alternative=alternative)
    # reference: Nadeau & Bengio (2003) eq. for r x k cv, n_test/n_train = 1/(k-1), with
    # plain-Python mean/variance and scipy.stats.t
    J, k = design.n, design.folds
    for i in range(a.shape[0]):
        d = [x - y for x, y in zip(a[i], b[i])]
        mean = sum(d) / J
        var = sum((x - mean) ** 2 for x in d) / (J - 1)
        t_ref = mean / math.sqrt((1 / J + 1 / (k - 1)) * var)
        p_ref = {"two-sided": 2 * stats.t.sf(abs(t_ref), J - 1),
                 "less": stats.t.cdf(t_ref, J - 1),
                 "greater": stats.t.sf(t_ref, J - 1)}[alternative]
        assert_allclose([t[i], p[i]], [t_ref, p_ref], rtol=1e-10)


def _five_by_two_reference(a, b):
    """Plain-Python p_i^(j), s_i^2 (docs/method.md section 3) for one pair."""
    p = [[a[2 * i + j] - b[2 * i + j] for j in range(2)] for i in range(5)]
    s2 = [(pi[0] - (pi[0] + pi[1]) / 2) ** 2 + (pi[1] - (pi[0] + pi[1]) / 2) ** 2 for pi in p]
    return p, s2


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_5x2_tests_match_formulas(alternative):
    rng = np.random.default_rng(3)
    a, b = random_errors(rng, 40, 10)
    f, pf = get_test("combined-5x2cv-f")(a, b, FIVE_BY_TWO)
    t1, p1 = get_test("5x2cv-t")(a, b, FIVE_BY_TWO, alternative=alternative)
    tc, pc = get_test("combined-5x2cv-t")(a, b, FIVE_BY_TWO, alternative=alternative)
    tail = {"two-sided": lambda t: 2 * stats.t.sf(abs(t), 5),
            "less": lambda t: stats.t.cdf(t, 5),
            "greater": lambda t: stats.t.sf(t, 5)}[alternative]
    for i in range(a.shape[0]):
        p, s2 = _five_by_two_reference(a[i], b[i])
        # Alpaydin (1999): f = sum p^2 / (2 sum s^2) ~ F(10, 5); scipy.stats.f.sf
        f_ref = sum(x**2 for pi in p for x in pi) / (2 * sum(s2))
        assert_allclose([f[i], pf[i]], [f_ref, stats.f.sf(f_ref, 10, 5)], rtol=1e-10)
        # Dietterich (1998): t = p_1^(1) / sqrt(sum s^2 / 5) ~ t(5); scipy.stats.t
        t_ref = p[0][0] / math.sqrt(sum(s2) / 5)
        assert_allclose([t1[i], p1[i]], [t_ref, tail(t_ref)], rtol=1e-10)
        # combined t: sqrt(10) mean(p) / sqrt(sum s^2 / 5) ~ t(5)
        t_ref = math.sqrt(10) * sum(x for pi in p for x in pi) / 10 / math.sqrt(sum(s2) / 5)
        assert_allclose([tc[i], pc[i]], [t_ref, tail(t_ref)], rtol=1e-10)


def test_5x2_tests_by_hand():
    # errors in percent; p = a - b = (2, 1), (3, 0), (1, 3), (-1, 3), (3, 1)
    a = np.array([[12, 10, 14, 11, 13, 13, 10, 12, 15, 11]], dtype=float)
    b = np.array([[10, 9, 11, 11, 12, 10, 11, 9, 12, 10]], dtype=float)
    # p_bar_i = 1.5, 1.5, 2, 1, 2
    # s_i^2  = 0.25+0.25, 2.25+2.25, 1+1, 4+4, 1+1 = 0.5, 4.5, 2, 8, 2  -> sum 17
    # sum p^2 = 4+1 + 9+0 + 1+9 + 1+9 + 9+1 = 44; sum p = 16
    f, pf = get_test("combined-5x2cv-f")(a, b, FIVE_BY_TWO)
    assert_allclose(f, [44 / (2 * 17)], rtol=1e-14)
    assert_allclose(pf, [stats.f.sf(22 / 17, 10, 5)], rtol=1e-12)  # scipy.stats.f.sf
    t1, p1 = get_test("5x2cv-t")(a, b, FIVE_BY_TWO)
    assert_allclose(t1, [2 / math.sqrt(17 / 5)], rtol=1e-14)
    assert_allclose(p1, [2 * stats.t.sf(2 / math.sqrt(3.4), 5)], rtol=1e-12)
    tc, pc = get_test("combined-5x2cv-t")(a, b, FIVE_BY_TWO, alternative="greater")
    assert_allclose(tc, [math.sqrt(10) * 1.6 / math.sqrt(3.4)], rtol=1e-14)
    assert_allclose(pc, [stats.t.sf(math.sqrt(10) * 1.6 / math.sqrt(3.4), 5)], rtol=1e-12)


def _wilcoxon_reference(a, b, alternative):
    with warnings.catch_warnings():  # scipy's own warnings are not under test
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.wilcoxon(a, b, alternative=alternative)
    pvalue = 1.0 if np.isnan(res.pvalue) else res.pvalue  # all-zero rows: our convention
    return res.statistic, pvalue


@needs_scipy_115
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("folds, rows", [(6, 40), (10, 6), (13, 2), (14, 40), (20, 40),
                                         (50, 20), (51, 20)])
@pytest.mark.parametrize("ties", [False, True])
def test_wilcoxon_matches_scipy(alternative, folds, rows, ties):
    rng = np.random.default_rng(folds)
    a, b = random_errors(rng, rows, folds, ties)
    if ties:  # one row with a single zero, one all zeros
        a[0, 0] = b[0, 0]
        a[-1] = b[-1]
    w, p = get_test("wilcoxon-scipy")(a, b, FoldDesign(1, folds), alternative=alternative)
    for i in range(rows):  # reference: scipy.stats.wilcoxon defaults, pair by pair
        assert_allclose([w[i], p[i]], _wilcoxon_reference(a[i], b[i], alternative),
                        rtol=1e-10, atol=0)


def _sign_flip_reference(d, alternative, pratt=False):
    """Brute force: R+ over all 2**m sign flips of the non-zero differences.

    Zeros are dropped before ranking, or with ``pratt`` ranked and then dropped.
    """
    if not pratt:
        d = [x for x in d if x != 0]
    kept = [(r, x) for r, x in zip(stats.rankdata(np.abs(d)), d) if x != 0]
    v = sum(r for r, x in kept if x > 0)
    null = [sum(r for (r, _), s in zip(kept, signs) if s)
            for signs in itertools.product([0, 1], repeat=len(kept))]
    less = sum(x <= v + 1e-9 for x in null) / len(null)
    greater = sum(x >= v - 1e-9 for x in null) / len(null)
    return {"two-sided": min(1.0, 2 * min(less, greater)), "less": less,
            "greater": greater}[alternative]


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("name", ["wilcoxon", "wilcoxon-scipy"])
def test_wilcoxon_with_ties_matches_brute_force(alternative, name):
    # below 14 folds the exact conditional test and scipy's permutation agree
    rng = np.random.default_rng(4)
    a, b = random_errors(rng, 60, 10, ties=True)
    _, p = get_test(name)(a, b, FIVE_BY_TWO, alternative=alternative)
    assert_allclose(p, [_sign_flip_reference(a[i] - b[i], alternative) for i in range(60)],
                    rtol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 5, 12, 20, 50])
def test_signed_rank_null_matches_brute_force(n):
    # reference: enumerate all subsets of {1..n} for small n; for larger n, the
    # symmetry and total mass of the distribution. The kernel keeps the lower
    # half, t = 0 .. n (n + 1) / 4, in probabilities (exact multiples of 2^-n).
    cdf = _untied_cdf(n)
    counts = np.diff(cdf * 2.0**n, prepend=0)
    total = n * (n + 1) // 2
    assert counts.size == total // 2 + 1
    assert_array_equal(counts, np.rint(counts))
    half = total // 2          # P(T <= half) + P(T >= half + 1) = 1, P(T >= t) = P(T <= total - t)
    assert cdf[half] + (cdf[total - half - 1] if total - half - 1 >= 0 else 0.0) == 1.0
    if n <= 12:
        sums = [sum(s) for k in range(n + 1)
                for s in itertools.combinations(range(1, n + 1), k)]
        assert_array_equal(counts, np.bincount(sums, minlength=total + 1)[:counts.size])


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("folds", [5, 10, 40])
def test_sign_matches_binomtest(alternative, folds):
    rng = np.random.default_rng(5)
    a, b = random_errors(rng, 60, folds, ties=True)
    k, p = get_test("sign")(a, b, FoldDesign(1, folds), alternative=alternative)
    for i in range(60):
        d = a[i] - b[i]
        wins, trials = int(np.sum(d > 0)), int(np.sum(d != 0))
        assert k[i] == wins
        # reference: scipy.stats.binomtest over the non-tied folds
        ref = stats.binomtest(wins, trials, 0.5, alternative=alternative).pvalue if trials else 1
        assert_allclose(p[i], ref, rtol=1e-12)


# ------------------------------------------------------------------ R fixtures

R_FIXTURE = pd.read_csv(FIXTURES / "pairwise_r.csv")


@pytest.mark.parametrize(
    "row", [r for _, r in R_FIXTURE.iterrows()],
    ids=[f"{r.case}-{r.test}-{r.alternative}" for _, r in R_FIXTURE.iterrows()])
def test_matches_r(row):
    # reference: tests/fixtures/pairwise_r.R (t.test paired, wilcox.test paired exact or
    # normal without continuity correction, binom.test, pt/pf on the 5x2 formulas)
    a = np.array(row.a.split(), dtype=float)[np.newaxis]
    b = np.array(row.b.split(), dtype=float)[np.newaxis]
    design = FoldDesign(int(row.replications), int(row.folds))
    # the fixture's Wilcoxon follows scipy's conventions (normal approximation with ties)
    name = "wilcoxon-scipy" if row.test == "wilcoxon" else row.test
    statistic, pvalue = get_test(name)(a, b, design, alternative=row.alternative)
    assert_allclose([statistic[0], pvalue[0]], [row.statistic, row.pvalue], rtol=1e-9)


def test_r_fixture_covers_every_builtin():
    # the exact Wilcoxon variants are checked against coin / exactRankTests
    # (ties_exact_r.csv, test_wilcoxon_exact_matches_r); pairwise_r.csv's
    # "wilcoxon" is R's wilcox.test, scipy's conventions
    assert set(R_FIXTURE.test) | {"wilcoxon-pratt", "wilcoxon-scipy"} == set(BUILTINS)


# The R script is run again by tests/test_r_references.py.


# ------------------------------------------------ docs/method.md section 4 worked example


def test_optdigits_worked_example():
    # docs/method.md section 4: "row significantly more accurate than column", combined 5x2 cv
    # F test at alpha = 0.05 (significant = p < 0.05 and the row has the lower mean error)
    names = ["c45", "mdt", "mlp", "lnp", "svl", "sv2", "svr", "5nn"]
    expected = np.array([
        [0, 0, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 0, 1],
        [1, 1, 1, 1, 0, 0, 0, 1],
        [1, 1, 1, 1, 0, 0, 0, 1],
        [1, 1, 0, 1, 0, 0, 0, 0],
    ])
    path = resources.files("multitest") / "data" / "ulas2008" / "accuracy.csv"
    frame = pd.read_csv(path).query("dataset == 'optdigits'")
    frame = frame.sort_values(["algorithm", "replication", "fold"])
    errors = {name: 100 - g["accuracy"].to_numpy() for name, g in frame.groupby("algorithm")}
    pairs = [(r, c) for r in names for c in names if r != c]
    a = np.array([errors[c] for _, c in pairs])  # column plays "cheaper"
    b = np.array([errors[r] for r, _ in pairs])  # row plays "costlier"
    _, p = get_test(DEFAULT_TEST)(a, b, FIVE_BY_TWO)
    better = (p < 0.05) & ((a - b).mean(axis=1) > 0)
    table = np.zeros((8, 8), dtype=int)
    for (r, c), flag in zip(pairs, better):
        table[names.index(r), names.index(c)] = flag
    assert_array_equal(table, expected)


# ------------------------------------------------------------ degenerate input


def _all_builtin_calls():
    for name, (_, _, one_sided) in BUILTINS.items():
        for alternative in ALTERNATIVES if one_sided else ["two-sided"]:
            yield name, alternative


@pytest.mark.parametrize("name, alternative, design", [
    (name, alternative, design)
    for name, alternative in _all_builtin_calls()
    for design in [FIVE_BY_TWO, FoldDesign(1, 10), FoldDesign(2, 10)]
    if design.is_5x2 or not BUILTINS[name][1]])
def test_identical_errors(name, alternative, design):
    test = get_test(name)
    a = np.random.default_rng(6).uniform(size=(3, design.n))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        statistic, pvalue = test(a, a.copy(), design, alternative=alternative)
    # convention (module docstring): all differences zero -> statistic 0, p-value 1
    assert_array_equal(statistic, 0.0)
    assert_array_equal(pvalue, 1.0)


@pytest.mark.parametrize("name", T_TESTS)
@pytest.mark.parametrize("sign", [1, -1])
def test_constant_difference_t_tests(name, sign):
    a = np.full((2, 10), 0.25)
    b = a - sign * np.array([[0.125], [0.5]])  # same non-zero difference on every fold
    test = get_test(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t, p2 = test(a, b, FIVE_BY_TWO)
        _, pg = test(a, b, FIVE_BY_TWO, alternative="greater")
        _, pl = test(a, b, FIVE_BY_TWO, alternative="less")
    # convention: zero variance, non-zero mean -> t = +-inf, p = 0 two-sided,
    # 0 in the direction of the difference and 1 against it
    assert_array_equal(t, sign * np.inf)
    assert_array_equal(p2, 0.0)
    assert_array_equal(pg, 0.0 if sign > 0 else 1.0)
    assert_array_equal(pl, 1.0 if sign > 0 else 0.0)


def test_constant_difference_f_test():
    a = np.full((1, 10), 0.25)
    # equal folds within each replication, different across replications: sum s^2 = 0
    b = a - np.repeat([0.125, 0.25, 0.5, 0.0, 0.125], 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f, p = get_test("combined-5x2cv-f")(a, b, FIVE_BY_TWO)
    assert_array_equal(f, np.inf)
    assert_array_equal(p, 0.0)


def test_5x2cv_t_zero_numerator_and_variance():
    # p_1^(1) = 0 and sum s^2 = 0 but other replications differ: 0/0 -> t = 0, p = 1
    a = np.full((1, 10), 0.25)
    b = a - np.repeat([0.0, 0.25, 0.5, 0.25, 0.125], 2)
    t, p = get_test("5x2cv-t")(a, b, FIVE_BY_TWO, alternative="greater")
    assert_array_equal([t[0], p[0]], [0.0, 1.0])


@pytest.mark.parametrize("name", ["wilcoxon", "wilcoxon-pratt", "wilcoxon-scipy", "sign"])
def test_constant_difference_rank_tests(name):
    a = np.full((1, 10), 0.25)
    b = a - 0.125
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        statistic, pvalue = get_test(name)(a, b, FIVE_BY_TWO, alternative="greater")
    # references: scipy.stats.wilcoxon(a, b, alternative='greater') -> (55, 1/1024)
    # (ties: all ten |d| equal, exact sign flips); binomtest(10, 10, alternative='greater')
    # -> 1/1024
    expected = {"sign": 10.0}.get(name, 55.0)
    assert_allclose([statistic[0], pvalue[0]], [expected, 1 / 1024], rtol=1e-12)


def test_no_runtime_warning_on_mixed_batch():
    rng = np.random.default_rng(7)
    a, b = random_errors(rng, 200, 10, ties=True)
    a[:20] = b[:20]  # identical
    b[20:40] = a[20:40] - 0.25  # constant difference
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name, alternative in _all_builtin_calls():
            statistic, pvalue = get_test(name)(a, b, FIVE_BY_TWO, alternative=alternative)
            assert not np.isnan(statistic).any() and np.isfinite(pvalue).all()


# -------------------------------------------------------------- symmetry (hypothesis)

errors_5x2 = hnp.arrays(np.float64, (3, 10), elements=st.integers(0, 8).map(lambda x: x / 8))


@settings(max_examples=40, deadline=None)
@given(a=errors_5x2, b=errors_5x2)
def test_swap_negates_t_and_keeps_two_sided_p(a, b):
    for name in T_TESTS:
        test = get_test(name)
        t_ab, p_ab = test(a, b, FIVE_BY_TWO)
        t_ba, p_ba = test(b, a, FIVE_BY_TWO)
        assert_array_equal(t_ba, -t_ab)
        assert_allclose(p_ba, p_ab, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(a=errors_5x2, b=errors_5x2)
def test_greater_is_less_swapped(a, b):
    for name, (_, _, one_sided) in BUILTINS.items():
        if one_sided:
            test = get_test(name)
            _, greater = test(a, b, FIVE_BY_TWO, alternative="greater")
            _, less = test(b, a, FIVE_BY_TWO, alternative="less")
            assert_allclose(greater, less, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(a=errors_5x2, b=errors_5x2)
def test_two_sided_rank_tests_symmetric(a, b):
    for name in ["combined-5x2cv-f", "wilcoxon", "wilcoxon-pratt", "wilcoxon-scipy"]:
        assert_allclose(get_test(name)(a, b, FIVE_BY_TWO), get_test(name)(b, a, FIVE_BY_TWO),
                        rtol=1e-12)
    k_ab, p_ab = get_test("sign")(a, b, FIVE_BY_TWO)
    k_ba, p_ba = get_test("sign")(b, a, FIVE_BY_TWO)
    assert_array_equal(k_ab + k_ba, np.count_nonzero(a - b, axis=1))
    assert_allclose(p_ab, p_ba, rtol=1e-12)


# -------------------------------------------------------------------- registry


def test_every_builtin_is_registered():
    tests = available_tests()
    assert list(tests) == sorted(tests)
    assert DEFAULT_TEST == "combined-5x2cv-f" and DEFAULT_TEST in tests
    for name, (func, requires_5x2, one_sided) in BUILTINS.items():
        test = tests[name]
        assert isinstance(test, PairwiseTest) and test is get_test(name)
        assert test.func is func and test.vectorized
        assert (test.requires_5x2, test.supports_one_sided) == (requires_5x2, one_sided)
        assert test.description and "\n" not in test.description


def test_unknown_name_lists_valid_names():
    with pytest.raises(UnknownTestError) as info:
        get_test("no-such-test")
    message = str(info.value)
    assert "'no-such-test'" in message and "\n" not in message
    for name in BUILTINS:
        assert name in message


def test_get_test_rejects_non_names():
    with pytest.raises(UnknownTestError, match="got int"):
        get_test(3)


def test_register_decorator(registry):
    @register_test("my-test", description="Mine.")
    def my_test(a, b):
        """Ignored docstring."""
        return stats.ttest_rel(a, b)

    assert my_test.__name__ == "my_test"  # returned unchanged
    test = get_test("my-test")
    assert (test.func, test.vectorized, test.description) == (my_test, False, "Mine.")
    assert "my-test" in available_tests()

    @register_test
    def bare(a, b):
        """First line.

        More.
        """
        return 0.0, 1.0

    assert get_test("bare").description == "First line."
    # the same function object resolves to its registry entry (keeps the flags)
    assert get_test(my_test) is test


def test_register_duplicate_name(registry):
    with pytest.raises(MultitestError, match="'kfold-t' is already registered"):
        register_test("kfold-t")(lambda a, b: (0.0, 1.0))
    with pytest.raises(MultitestError, match="without ':'"):
        register_test("a:b")(lambda a, b: (0.0, 1.0))


def test_register_again_same_definition(registry):
    # re-running the same definition (a re-import, a notebook cell) replaces the entry
    for _ in range(2):
        @register_test("again")
        def again(a, b):
            return 0.0, 1.0
    assert get_test("again").func is again


def test_decorator_cleanup_leaves_registry_alone():
    # runs after test_register_decorator: the registry fixture restored the original
    assert "my-test" not in registry_module._REGISTRY


def test_module_function_path(registry, tmp_module):
    tmp_module("mt_tmp_tests", """
        from scipy import stats

        def paired_t(a, b, alternative="two-sided"):
            '''Paired t via scipy.'''
            return stats.ttest_rel(a, b, alternative=alternative)

        def fast_t(a, b):
            return stats.ttest_rel(a, b, axis=1)
        fast_t.vectorized = True
        fast_t.requires_5x2 = True
        """)
    rng = np.random.default_rng(8)
    a, b = random_errors(rng, 5, 10)
    test = get_test("mt_tmp_tests:paired_t")
    assert (test.name, test.vectorized, test.supports_one_sided) == (
        "mt_tmp_tests:paired_t", False, True)
    assert_allclose(test(a, b, FIVE_BY_TWO, alternative="less"),
                    get_test("kfold-t")(a, b, FIVE_BY_TWO, alternative="less"), rtol=1e-12)
    fast = get_test("mt_tmp_tests:fast_t")
    assert fast.vectorized and fast.requires_5x2
    assert_allclose(fast(a, b, FIVE_BY_TWO), get_test("kfold-t")(a, b, FIVE_BY_TWO), rtol=1e-12)


def test_module_function_path_errors(tmp_module):
    tmp_module("mt_tmp_broken", "import no_such_module_xyz\n")
    with pytest.raises(UnknownTestError, match="'mt_tmp_broken:f'.*ModuleNotFoundError"):
        get_test("mt_tmp_broken:f")
    with pytest.raises(UnknownTestError, match="'math:no_such'.*AttributeError") as info:
        get_test("math:no_such")
    assert "\n" not in str(info.value)
    with pytest.raises(UnknownTestError, match="not a function"):
        get_test("math:pi")


def _fake_distribution(root, name, entry_points):
    info = root / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[multitest.tests]\n" + entry_points)


def test_entry_point_plugin(registry, tmp_module, tmp_path):
    tmp_module("mt_fake_plugin", """
        import numpy as np

        def fake_sign(a, b, alternative="two-sided"):
            '''A plugin test.'''
            return float(np.sum(np.asarray(a) > np.asarray(b))), 0.5
        """)
    _fake_distribution(tmp_path, "mt_fake_plugin", "fake-sign = mt_fake_plugin:fake_sign\n")
    assert registry_module._ENTRY_POINTS is None  # not read until an unknown name is asked for
    with pytest.raises(UnknownTestError, match="fake-sign"):  # listed among valid names
        get_test("still-unknown")
    test = get_test("fake-sign")
    assert (test.name, test.description, test.supports_one_sided) == (
        "fake-sign", "A plugin test.", True)
    a = np.array([[1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10]])
    assert_array_equal(test(a, a[:, ::-1], FIVE_BY_TWO), ([5.0], [0.5]))
    assert "fake-sign" in available_tests()


def test_broken_entry_point(registry, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _fake_distribution(tmp_path, "mt_broken_plugin", "broken = mt_no_such_module:f\n")
    with pytest.raises(UnknownTestError, match="'broken'.*mt_no_such_module:f"):
        get_test("broken")
    with pytest.raises(UnknownTestError, match="'broken'"):
        available_tests()


def test_entry_point_does_not_shadow_builtin(registry, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _fake_distribution(tmp_path, "mt_shadow_plugin", "kfold-t = mt_no_such_module:f\n")
    assert get_test("kfold-t").func is fold_tests.kfold_t
    assert available_tests()["kfold-t"].func is fold_tests.kfold_t


# ------------------------------------------------------ custom tests and validation


def test_scalar_function_matches_vectorized_builtin():
    def scipy_t(a, b, alternative="two-sided"):
        return stats.ttest_rel(a, b, alternative=alternative)

    def scipy_wilcoxon(a, b, alternative="two-sided"):
        return stats.wilcoxon(a, b, alternative=alternative)

    def plain_tuple(a, b):  # two numbers, not a SciPy result
        res = stats.ttest_rel(a, b)
        return float(res.statistic), float(res.pvalue)

    rng = np.random.default_rng(9)
    a, b = random_errors(rng, 20, 10)
    for alternative in ALTERNATIVES:
        assert_allclose(get_test(scipy_t)(a, b, FIVE_BY_TWO, alternative),
                        get_test("kfold-t")(a, b, FIVE_BY_TWO, alternative), rtol=1e-12)
        assert_allclose(get_test(scipy_wilcoxon)(a, b, FIVE_BY_TWO, alternative),
                        get_test("wilcoxon-scipy")(a, b, FIVE_BY_TWO, alternative), rtol=1e-12)
    scalar = get_test(plain_tuple)
    assert not scalar.vectorized and not scalar.supports_one_sided
    assert_allclose(scalar(a, b, FIVE_BY_TWO), get_test("kfold-t")(a, b, FIVE_BY_TWO),
                    rtol=1e-12)


def test_design_passed_only_when_asked():
    seen = []

    def with_design(a, b, design):
        seen.append(design)
        return 0.0, 1.0

    a = np.zeros((2, 10))
    get_test(with_design)(a, a, FoldDesign(2, 5))
    assert seen == [FoldDesign(2, 5)] * 2
    get_test(lambda a, b: (0.0, 1.0))(a, a, FoldDesign(2, 5))  # no design: not passed


@pytest.mark.parametrize("name", ["combined-5x2cv-f", "5x2cv-t", "combined-5x2cv-t"])
def test_5x2_test_on_10_fold_design(name):
    a = np.zeros((1, 10))
    with pytest.raises(MultitestError) as info:
        get_test(name)(a, a, FoldDesign(1, 10))
    message = str(info.value)
    assert f"'{name}'" in message and "1 replication(s) x 10 fold(s)" in message
    assert "\n" not in message


def test_corrected_t_needs_two_folds_per_replication():
    a = np.zeros((1, 5))
    with pytest.raises(MultitestError, match="at least 2 folds per replication"):
        get_test("corrected-t")(a, a, FoldDesign(5, 1))


def test_custom_test_returning_nan():
    def nan_test(a, b):
        return 0.0, float("nan")

    a = np.zeros((3, 10))
    with pytest.raises(MultitestError, match="'nan_test' returned a NaN p-value for pair 0"):
        get_test(nan_test)(a, a, FIVE_BY_TWO)


@pytest.mark.parametrize("output, match", [
    ((np.zeros(2), np.ones(2)), r"shape \(2,\); expected \(3,\)"),
    ((np.zeros(3), np.full(3, 1.5)), r"outside \[0, 1\]"),
    ((np.full(3, np.nan), np.ones(3)), "NaN statistic"),
    (None, r"must return \(statistic, pvalue\)"),
])
def test_custom_vectorized_output_checked(output, match):
    def bad(a, b):
        return output
    bad.vectorized = True

    a = np.zeros((3, 10))
    with pytest.raises(MultitestError, match=match):
        get_test(bad)(a, a, FIVE_BY_TWO)


def test_alternative_validation():
    a = np.zeros((1, 10))
    with pytest.raises(MultitestError, match="has no one-sided version"):
        get_test("combined-5x2cv-f")(a, a, FIVE_BY_TWO, alternative="greater")
    with pytest.raises(MultitestError, match="`alternative` must be one of"):
        get_test("kfold-t")(a, a, FIVE_BY_TWO, alternative="bigger")


@pytest.mark.parametrize("a, b, design, match", [
    (np.zeros(10), np.zeros(10), FIVE_BY_TWO, "2-D arrays"),
    (np.zeros((2, 10)), np.zeros((3, 10)), FIVE_BY_TWO, "same shape"),
    (np.zeros((2, 8)), np.zeros((2, 8)), FIVE_BY_TWO, "8 folds but the design 5x2 has 10"),
    (np.full((1, 10), np.nan), np.zeros((1, 10)), FIVE_BY_TWO, "must be finite"),
    (np.zeros((1, 10)), np.zeros((1, 10)), (5, 2), "must be a FoldDesign"),
])
def test_input_validation(a, b, design, match):
    with pytest.raises(MultitestError, match=match):
        get_test("sign")(a, b, design)


# ------------------------------------------------------------------ the example


def test_custom_test_example_runs():
    script = ROOT / "examples" / "custom_test.py"
    done = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", str(script)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "paired-permutation" in done.stdout
    assert any(ch.isdigit() for ch in done.stdout)


def test_custom_test_example_by_path(registry, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.delitem(sys.modules, "custom_test", raising=False)
    try:
        test = get_test("custom_test:paired_permutation")
        assert test.name == "custom_test:paired_permutation" and test.supports_one_sided
        assert get_test("paired-permutation").func is test.func  # registered on import
        # reference: the exact permutation p-value of 10 positive differences is
        # 2 * 1/1024 two-sided (only the identity and the all-flipped are as extreme)
        a = np.arange(1.0, 11.0)[np.newaxis]
        _, p = test(a, a - 1, FIVE_BY_TWO)
        assert_allclose(p, [2 / 1024])
    finally:
        sys.modules.pop("custom_test", None)


# ------------------------------------------- exact conditional Wilcoxon (issue 11)

R_EXACT = pd.read_csv(FIXTURES / "ties_exact_r.csv", comment="#")
R_EXACT_CASES = sorted(c for c in set(R_EXACT.case) if c.startswith("wilcoxon"))
R_ALTERNATIVE = {"two-sided": "two.sided", "less": "less", "greater": "greater"}


def _r_differences(case):
    rows = R_EXACT[(R_EXACT.case == case) & (R_EXACT.quantity == "difference")]
    return rows.sort_values("i").value.to_numpy(dtype=float)[np.newaxis]


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("case", R_EXACT_CASES)
@pytest.mark.parametrize(("name", "references"), [
    ("wilcoxon", ["exact", "coin_wilcoxon"]), ("wilcoxon-pratt", ["coin_pratt"])])
def test_wilcoxon_exact_matches_r(case, alternative, name, references):
    # reference: tests/fixtures/ties_exact_r.R, R 4.2.2:
    # exactRankTests::wilcox.exact(d, 0, paired = TRUE, exact = TRUE) and
    # coin::wilcoxsign_test(d ~ 0, distribution = "exact", zero.method = ...)
    d = _r_differences(case)
    _, p = get_test(name)(d, np.zeros_like(d), FoldDesign(1, d.shape[1]), alternative)
    for reference in references:
        quantity = f"{reference}_{R_ALTERNATIVE[alternative]}"
        expected = R_EXACT[(R_EXACT.case == case) & (R_EXACT.quantity == quantity)].value
        assert_allclose(p[0], float(expected.iloc[0]), rtol=1e-12)


def test_wilcoxon_issue_examples():
    # Issue 11: 14 folds with 5 non-zero differences .01 ... .05: exact conditional
    # p = 2 / 2**5 = 0.0625 (scipy's normal approximation: 0.0431); one non-zero fold
    # out of 100: p = 1 (scipy: 0.317).
    d = np.array([[.01, .02, .03, .04, .05] + [0] * 9])
    zeros = np.zeros_like(d)
    for name in ("wilcoxon", "wilcoxon-pratt"):
        assert get_test(name)(d, zeros, FoldDesign(1, 14))[1][0] == 0.0625
    assert_allclose(get_test("wilcoxon-scipy")(d, zeros, FoldDesign(1, 14))[1], [0.0431],
                    atol=5e-5)
    one = np.array([[.02] + [0] * 99])
    assert get_test("wilcoxon")(one, np.zeros_like(one), FoldDesign(1, 100))[1][0] == 1.0


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_exact_matches_brute_force_on_many_rows(alternative):
    # reference: enumeration of all 2**m sign flips (m <= 12 non-zero folds),
    # rows with ties, zeros, both and neither, in one call
    rng = np.random.default_rng(11)
    d = np.round(rng.normal(0.1, 1.0, (80, 12)), 1)
    d[:20] = rng.normal(0.1, 1.0, (20, 12))          # untied rows
    d[20:30, :4] = 0.0                                # zeros, untied otherwise
    zeros = np.zeros_like(d)
    design = FoldDesign(1, 12)
    _, p = get_test("wilcoxon")(d, zeros, design, alternative)
    assert_allclose(p, [_sign_flip_reference(row, alternative) for row in d], rtol=1e-12)
    _, p = get_test("wilcoxon-pratt")(d, zeros, design, alternative)
    assert_allclose(p, [_sign_flip_reference(row, alternative, pratt=True) for row in d],
                    rtol=1e-12)


def test_wilcoxon_exact_far_tail_keeps_relative_accuracy():
    # 300 positive untied differences: P(T+ = max) = 2**-300 exactly (one
    # configuration of the signs); with one tie the same holds.
    d = np.arange(1.0, 301.0)[np.newaxis]
    _, p = fold_tests.wilcoxon_signed_rank(d, np.zeros_like(d), alternative="greater")
    assert_allclose(p, [2.0**-300], rtol=1e-12)
    d[0, 1] = d[0, 0]
    _, p = fold_tests.wilcoxon_signed_rank(d, np.zeros_like(d), alternative="greater")
    assert_allclose(p, [2.0**-300], rtol=1e-12)


def test_wilcoxon_normal_approximation_beyond_exact_limit():
    # reference: scipy.stats.wilcoxon(method="approx", correction=False) uses the
    # same tie-corrected normal approximation with zeros dropped
    rng = np.random.default_rng(5)
    n = EXACT_MAX + 50
    d = np.round(rng.normal(0.05, 1.0, (3, n)), 2)
    d[1, :10] = 0.0
    for alternative in ALTERNATIVES:
        _, p = get_test("wilcoxon")(d, np.zeros_like(d), FoldDesign(1, n), alternative)
        expected = [stats.wilcoxon(row, alternative=alternative, method="approx",
                                   correction=False).pvalue for row in d]
        assert_allclose(p, expected, rtol=1e-10)


def test_wilcoxon_exact_limit_is_exact():
    # at n = EXACT_MAX without ties the exact distribution is used: one
    # negative difference of rank 1 gives P(T+ >= max - 1) = 2 / 2**n
    d = np.arange(1.0, EXACT_MAX + 1)[np.newaxis]
    d[0, 0] = -1.0
    _, p = fold_tests.wilcoxon_signed_rank(d, np.zeros_like(d), alternative="greater")
    assert_allclose(p, [2.0 * 2.0**-EXACT_MAX], rtol=1e-10)


# ------------------------------------------------ corrected-t test/train ratio (issue 11)


@pytest.mark.parametrize(("value", "expected"), [
    ("1/9", 1 / 9), ("100/900", 1 / 9), ((100, 900), 1 / 9), ([1, 4], 0.25), (0.25, 0.25),
    ("0.25", 0.25), (np.float64(0.5), 0.5)])
def test_parse_test_train_ratio(value, expected):
    assert parse_test_train_ratio(value) == expected


@pytest.mark.parametrize("value", ["1/0", "0", "-1/9", "x", "1/2/3", (1, 2, 3), True, "nan",
                                   float("inf"), None, [1, "a"]])
def test_parse_test_train_ratio_rejects(value):
    with pytest.raises(MultitestError, match="`test_train_ratio` must be"):
        parse_test_train_ratio(value)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_corrected_t_ratio_matches_hand_computation(alternative):
    # Reference: Nadeau & Bengio (2003), t = mean(d) / sqrt((1/J + n_test/n_train) s^2)
    # with J - 1 df, computed with numpy and scipy.stats.t; 10 x 1 random subsampling
    # with 10 % test sets, and the k-fold default 1/(k - 1) given explicitly.
    rng = np.random.default_rng(21)
    a, b = random_errors(rng, 8, 10)
    d = a - b
    for design, ratio in ((FoldDesign(10, 1, test_train_ratio="1/9"), 1 / 9),
                          (FoldDesign(2, 5, test_train_ratio=(200, 800)), 0.25),
                          (FoldDesign(2, 5), 0.25)):
        t, p = fold_tests.corrected_t(a, b, design, alternative=alternative)
        expected = d.mean(axis=1) / np.sqrt((1 / 10 + ratio) * d.var(axis=1, ddof=1))
        assert_allclose(t, expected, rtol=1e-12)
        tail = {"two-sided": 2 * stats.t.sf(np.abs(expected), 9),
                "greater": stats.t.sf(expected, 9), "less": stats.t.cdf(expected, 9)}
        assert_allclose(p, tail[alternative], rtol=1e-10)


def test_corrected_t_one_fold_needs_a_ratio():
    a = np.full((1, 10), 0.2)
    with pytest.raises(MultitestError, match="test/train ratio"):
        fold_tests.corrected_t(a, a - 0.01, FoldDesign(10, 1))


def test_wilcoxon_pratt_counts_zeros_towards_the_exact_limit():
    # Pratt ranks the zeros too, so n = all differences: beyond EXACT_MAX the
    # normal approximation with the conditional moments of the non-zero ranks
    # (mean sum(r)/2, variance sum(r^2)/4), computed here by hand.
    n = EXACT_MAX + 10
    d = np.zeros((1, n))
    d[0, :5] = [.01, .02, .03, .04, .05]
    _, p = fold_tests.wilcoxon_pratt(d, np.zeros_like(d), alternative="greater")
    ranks = np.arange(n - 4, n + 1, dtype=float)       # zeros take ranks 1 .. n - 5
    z = (ranks.sum() - ranks.sum() / 2) / np.sqrt((ranks**2).sum() / 4)
    assert_allclose(p, [stats.norm.sf(z)], rtol=1e-12)
    _, p = fold_tests.wilcoxon_signed_rank(d, np.zeros_like(d), alternative="greater")
    assert p[0] == 2.0**-5                             # exact: 5 non-zero differences
