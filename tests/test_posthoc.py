"""Tests of the post-hoc families: multitest.stats._friedman, _nemenyi and _over_datasets,
and the studentized range of multitest.stats._distributions."""
import dataclasses
import doctest
import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import special, stats

import multitest.stats._distributions
import multitest.stats._friedman
import multitest.stats._nemenyi
import multitest.stats._over_datasets
import multitest.stats._signed_rank
from multitest._errors import MultitestError
from multitest.cli import main
from multitest.stats import adjust_all_pairs, friedman
from multitest.stats._corrections import PAIRWISE_CORRECTIONS
from multitest.stats._over_datasets import PAIRWISE_METHODS, pairwise_over_datasets
from multitest.stats._nemenyi import (
    CONTROL_METHODS,
    control_comparisons,
    critical_difference,
    nemenyi,
)

FIXTURES = Path(__file__).parent / "fixtures"
# Produced by tests/fixtures/posthoc_r.R and corrections_r.R (R 4.2.2).
R_POSTHOC = pd.read_csv(FIXTURES / "posthoc_r.csv", comment="#")
R_CORRECTIONS = pd.read_csv(FIXTURES / "corrections_r.csv", comment="#")

# Tolerances against R where R and scipy compute differently:
# - ptukey (R: Copenhaver-Holland Gauss-Legendre quadrature) against
#   scipy.stats.studentized_range.sf (adaptive integration): about 1e-9
#   relative for p > 1e-8, and both have an absolute floor near 1e-13.
PTUKEY = dict(rtol=1e-7, atol=1e-12)
# - qtukey: R stops its secant iteration at eps = 1e-4 on the probability
#   scale; observed agreement with scipy's ppf is 6e-8 relative.
QTUKEY = dict(rtol=2e-7, atol=0)
# Everything else (chi2, F, normal, binomial, exact Wilcoxon) agrees to a few ulp.
EXACT = dict(rtol=1e-12, atol=0)

# Demšar (2006), Table 5a: critical values q_alpha for the two-tailed Nemenyi
# test (studentized range / sqrt(2)), k = 2..10 algorithms.
DEMSAR_5A = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}
# Demšar (2006), Table 5b: critical values for the two-tailed Bonferroni-Dunn
# test, k = 2..10. The printed 2.724 for k = 9, alpha = 0.05 is a misprint:
# z_{1 - 0.05/16} = 2.7344 (the neighbours 2.690 and 2.773 are right), so the
# test checks 2.734 there.
DEMSAR_5B = {
    0.05: [1.960, 2.241, 2.394, 2.498, 2.576, 2.638, 2.690, 2.734, 2.773],
    0.10: [1.645, 1.960, 2.128, 2.241, 2.326, 2.394, 2.450, 2.498, 2.539],
}
# Demšar (2006), Table 6: ranks of C4.5, C4.5+m, C4.5+cf, C4.5+m+cf on 14
# data sets. The Friedman statistic depends only on the column sums, which
# reproduce the printed average ranks 3.143, 2.000, 2.893, 1.964.
DEMSAR_TABLE_6 = np.array([
    [4, 3, 2, 1], [1, 2, 3, 4], [4, 1, 2, 3], [4, 1, 3, 2], [4, 2, 3, 1],
    [1, 2.5, 4, 2.5], [3, 2, 4, 1], [2.5, 2.5, 4, 1], [4, 3, 2, 1],
    [2.5, 2.5, 2.5, 2.5], [4, 2.5, 1, 2.5], [3, 2, 4, 1], [4, 1, 2, 3], [3, 1, 4, 2],
])


def _r_value(table, case, quantity):
    rows = table[(table.case == case) & (table.quantity == quantity)]
    assert len(rows) == 1, (case, quantity)
    return float(rows.value.iloc[0])


def _r_matrix(table, case, quantity, shape):
    rows = table[(table.case == case) & (table.quantity == quantity)]
    out = np.full(shape, np.nan)
    out[rows.i.to_numpy(), rows.j.to_numpy()] = rows.value.to_numpy()
    return out


def _r_input(table, case, quantity):
    rows = table[(table.case == case) & (table.quantity == quantity)]
    return _r_matrix(table, case, quantity, (rows.i.max() + 1, rows.j.max() + 1))


def _r_vector(table, case, quantity, length):
    rows = table[(table.case == case) & (table.quantity == quantity)]
    out = np.full(length, np.nan)
    out[rows.i.to_numpy()] = rows.value.to_numpy()
    return out


def _random_ranks(rng, n_datasets, n_algorithms, spread=1.0):
    means = np.linspace(0, spread, n_algorithms)
    return stats.rankdata(rng.normal(means, 1, size=(n_datasets, n_algorithms)), axis=1)


def _benavoli_errors():
    # Benavoli, Corani & Mangili (2016), section 2: accuracies of A..E on 20
    # data sets, the first ten then the last ten; errors = 100 - accuracy.
    first = np.array([50, 80, 55, 60, 65])
    last = np.array([80, 50, 45, 85, 90])
    return 100.0 - np.vstack([np.tile(first, (10, 1)), np.tile(last, (10, 1))])


R_RANK_CASES = ["ranks_12x5", "ranks_38x8", "ranks_6x3"]
R_SCORE_CASES = sorted({c for c in R_POSTHOC.case if c.startswith("scores")})
R_CONTROL_CASES = ["control_14x6", "control_40x9"]


# ---------------------------------------------------------------------------
# Friedman
# ---------------------------------------------------------------------------


def _friedman_matches_r(table, case):
    """Friedman's chi2 and p-value of the case's rank matrix, checked against R's (to 1e-12)."""
    res = friedman(_r_input(table, case, "rank"))
    assert_allclose(res.statistic, _r_value(table, case, "friedman_statistic"), **EXACT)
    assert_allclose(res.pvalue, _r_value(table, case, "friedman_pvalue"), **EXACT)
    return res


@pytest.mark.parametrize("case", R_RANK_CASES)
def test_posthoc_friedman_matches_r(case):
    # Reference: R friedman.test(ranks) and pf() for Iman-Davenport (posthoc_r.R).
    res = _friedman_matches_r(R_POSTHOC, case)
    assert res.df == _r_value(R_POSTHOC, case, "friedman_df")
    assert_allclose(res.iman_davenport_statistic,
                    _r_value(R_POSTHOC, case, "iman_davenport_statistic"), **EXACT)
    assert_allclose(res.iman_davenport_pvalue,
                    _r_value(R_POSTHOC, case, "iman_davenport_pvalue"), rtol=1e-10)
    S, L = _r_input(R_POSTHOC, case, "rank").shape
    assert res.iman_davenport_df == (L - 1, (L - 1) * (S - 1))


@pytest.mark.parametrize(("n_datasets", "n_algorithms"), [(2, 3), (5, 3), (30, 8), (200, 20)])
def test_posthoc_friedman_equals_scipy_without_ties(n_datasets, n_algorithms):
    # Reference: scipy.stats.friedmanchisquare on the raw scores (no ties, so its
    # tie correction is void and the statistic is Demšar's chi2_F; scipy needs L >= 3).
    rng = np.random.default_rng(n_datasets)
    scores = rng.normal(np.linspace(0, 0.5, n_algorithms), 1, size=(n_datasets, n_algorithms))
    expected = stats.friedmanchisquare(*scores.T)
    res = friedman(stats.rankdata(scores, axis=1))
    assert_allclose(res.statistic, expected.statistic, **EXACT)
    assert_allclose(res.pvalue, expected.pvalue, **EXACT)


def test_posthoc_friedman_demsar_worked_example():
    # Demšar (2006), section 3.2.4: chi2_F = 9.28 and F_F = 3.69 for the four
    # C4.5 variants on 14 data sets (Table 6); F(3, 39) critical value 2.85.
    # Table 6 has tied ranks and Demšar does not correct for them.
    res = friedman(DEMSAR_TABLE_6, ties="uncorrected")
    assert_allclose(DEMSAR_TABLE_6.mean(axis=0), [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert round(res.statistic, 2) == 9.28
    assert round(res.iman_davenport_statistic, 2) == 3.69
    assert res.iman_davenport_df == (3, 39)
    assert round(stats.f.ppf(0.95, 3, 39), 2) == 2.85
    assert res.iman_davenport_pvalue < 0.05
    assert res.ties == "uncorrected"


def test_posthoc_friedman_uncorrected_is_demsars_formula():
    # docs/method.md §5: chi2_F = 12 S / (L (L+1)) [sum R_j^2 - L (L+1)^2 / 4], no tie
    # correction, so it is below R's / scipy's tie-corrected statistic.
    S, L = DEMSAR_TABLE_6.shape
    R = DEMSAR_TABLE_6.mean(axis=0)
    chi2 = 12 * S / (L * (L + 1)) * (np.sum(R**2) - L * (L + 1) ** 2 / 4)
    res = friedman(DEMSAR_TABLE_6, ties="uncorrected")
    assert_allclose(res.statistic, chi2, **EXACT)
    assert_allclose(res.iman_davenport_statistic, (S - 1) * chi2 / (S * (L - 1) - chi2), **EXACT)
    assert res.statistic < friedman(DEMSAR_TABLE_6).statistic


def test_posthoc_friedman_corrected_is_the_default_and_equals_scipy():
    # Reference: scipy.stats.friedmanchisquare (tie-corrected, as R's friedman.test)
    # on Demšar's Table 6; Iman-Davenport from the corrected statistic.
    expected = stats.friedmanchisquare(*DEMSAR_TABLE_6.T)
    res = friedman(DEMSAR_TABLE_6)
    assert res.ties == "corrected" and not res.all_tied
    assert_allclose([res.statistic, res.pvalue], [expected.statistic, expected.pvalue], **EXACT)
    S, L = DEMSAR_TABLE_6.shape
    chi2 = expected.statistic
    assert_allclose(res.iman_davenport_statistic, (S - 1) * chi2 / (S * (L - 1) - chi2), **EXACT)
    assert_allclose(res.iman_davenport_pvalue,
                    stats.f.sf(res.iman_davenport_statistic, L - 1, (L - 1) * (S - 1)),
                    rtol=1e-12)


R_TIES = pd.read_csv(FIXTURES / "ties_exact_r.csv", comment="#")
R_FRIEDMAN_TIES_CASES = sorted(c for c in set(R_TIES.case) if c.startswith("friedman"))


@pytest.mark.parametrize("case", R_FRIEDMAN_TIES_CASES)
def test_posthoc_friedman_ties_match_r(case):
    # Reference: R 4.2.2 friedman.test on rank matrices with ties
    # (tests/fixtures/ties_exact_r.R), to 1e-12.
    _friedman_matches_r(R_TIES, case)


def test_posthoc_friedman_issue_example_tied_data_sets_carry_no_information():
    # Issue 11: 8 data sets x 4 algorithms, accuracies [90, 85, 80, 75] x 4 and
    # [80, 80, 80, 80] x 4. R friedman.test: chi2 = 12, p = 0.00738 (as the 4
    # informative data sets alone); uncorrected (Demšar): 6, p = 0.1116.
    ranks = stats.rankdata(-np.array([[90, 85, 80, 75]] * 4 + [[80] * 4] * 4), axis=1)
    res = friedman(ranks)
    assert_allclose([res.statistic, res.pvalue], [12.0, 0.0073831605053597711], **EXACT)
    informative = friedman(ranks[:4])
    assert_allclose(res.statistic, informative.statistic, **EXACT)
    old = friedman(ranks, ties="uncorrected")
    assert_allclose([old.statistic, round(old.pvalue, 4)], [6.0, 0.1116], **EXACT)


# Benavoli, Corani & Mangili's 54 data sets (baycomp's docs data, tests/fixtures/
# benavoli2016_means.csv) with C1, C2, C4, C5 = nbc, aode, j48, j48gr. Reference:
# R 4.2.2 friedman.test (tests/fixtures/benavoli2016_r.R). Issue 11 quotes
# chi2 = 8.1255 / 7.4333 for this example; the data gives 19.923 / 18.706 (see
# docs/explanation/statistics.md), so the tests pin R's values on the data itself.
BENAVOLI_MEANS = pd.read_csv(FIXTURES / "benavoli2016_means.csv", comment="#")
BENAVOLI_ALGORITHMS = ["nbc", "aode", "j48", "j48gr"]
R_BENAVOLI = pd.read_csv(FIXTURES / "benavoli2016_r.csv").set_index("quantity").value


def _benavoli_ranks():
    return stats.rankdata(-BENAVOLI_MEANS[BENAVOLI_ALGORITHMS].to_numpy(), axis=1)


def test_posthoc_friedman_benavoli_example_has_ties():
    # 54 data sets (credit listed twice in baycomp's file); two data sets tie
    # all four classifiers, 13 tie a pair: sum(t^3 - t) = 2 * 60 + 13 * 6 = 198.
    ranks = _benavoli_ranks()
    assert ranks.shape == (R_BENAVOLI["S"], R_BENAVOLI["L"]) == (54, 4)
    tie_sum = sum(((c ** 3) - c).sum() for c in
                  (np.unique(row, return_counts=True)[1] for row in ranks))
    assert tie_sum == R_BENAVOLI["tie_sum"] == 198
    assert_allclose(ranks.mean(axis=0),
                    R_BENAVOLI[[f"mean_rank_{a}" for a in BENAVOLI_ALGORITHMS]], **EXACT)


@pytest.mark.parametrize(("ties", "printed"), [
    ("corrected", (19.923, 0.0001761)),     # R's friedman.test printout
    ("uncorrected", (18.706, 0.0003145)),   # Demšar's formula from the mean ranks
])
def test_posthoc_friedman_benavoli_example_matches_r(ties, printed):
    res = friedman(_benavoli_ranks(), ties=ties)
    assert_allclose([res.statistic, res.pvalue],
                    [R_BENAVOLI[f"chi2_{ties}"], R_BENAVOLI[f"p_{ties}"]], **EXACT)
    assert (round(res.statistic, 3), float(f"{res.pvalue:.4g}")) == printed
    assert res.pvalue < 0.05 and res.ties == ties
    # Iman-Davenport from the chosen chi2 (Demšar 2006, eq. after Friedman's).
    S, L = 54, 4
    f_f = (S - 1) * res.statistic / (S * (L - 1) - res.statistic)
    assert_allclose(res.iman_davenport_statistic, f_f, **EXACT)


@pytest.mark.parametrize("ties", [None, "uncorrected"])
def test_posthoc_friedman_benavoli_example_through_rank(tmp_path, capsys, ties):
    # The fixture as a score matrix through `multitest rank`; result.json's
    # friedman block must carry R's numbers and open the gate at alpha = 0.05.
    long = BENAVOLI_MEANS.melt(id_vars="dataset", value_vars=BENAVOLI_ALGORITHMS,
                               var_name="algorithm", value_name="accuracy")
    path = tmp_path / "benavoli.csv"
    long.to_csv(path, index=False)
    out_dir = tmp_path / "out"
    argv = ["rank", str(path), "--order", ",".join(BENAVOLI_ALGORITHMS), "--out", str(out_dir)]
    if ties:
        argv += ["--friedman-ties", ties]
    status = main(argv)
    _, err = capsys.readouterr()
    assert status == 0, err
    block = json.loads((out_dir / "result.json").read_text())["friedman"]
    expected = ties or "corrected"
    assert block["ties"] == expected
    assert_allclose([block["statistic"], block["pvalue"]],
                    [R_BENAVOLI[f"chi2_{expected}"], R_BENAVOLI[f"p_{expected}"]], **EXACT)
    assert block["rejected"] is True


def test_posthoc_friedman_rejects_unknown_ties():
    with pytest.raises(MultitestError, match="`ties` must be one of"):
        friedman(DEMSAR_TABLE_6, ties="average")


@pytest.mark.parametrize(("n_datasets", "n_algorithms"), [(2, 2), (7, 5), (1000, 300)])
def test_posthoc_friedman_identical_rankings_are_degenerate(n_datasets, n_algorithms):
    # Every data set ranks alike: chi2_F = S (L - 1), the Iman-Davenport
    # denominator is 0, F_F = inf with p-value 0, and no warning.
    rng = np.random.default_rng(1)
    ranks = np.tile(rng.permutation(n_algorithms) + 1.0, (n_datasets, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = friedman(ranks)
    assert res.statistic == n_datasets * (n_algorithms - 1)
    assert res.iman_davenport_statistic == np.inf
    assert res.iman_davenport_pvalue == 0.0
    assert res.pvalue == stats.chi2.sf(n_datasets * (n_algorithms - 1), n_algorithms - 1)


@pytest.mark.parametrize("ties", ["corrected", "uncorrected"])
def test_posthoc_friedman_all_tied_is_degenerate(ties):
    # All algorithms tied on every data set: chi2_F = F_F = 0, both p-values 1
    # (the corrected statistic would be 0/0), flagged as all_tied.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = friedman(np.full((6, 4), 2.5), ties=ties)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
    assert (res.iman_davenport_statistic, res.iman_davenport_pvalue) == (0.0, 1.0)
    assert res.all_tied


def test_posthoc_friedman_balanced_rankings_give_zero():
    # Two data sets with reversed rankings: average ranks all equal.
    res = friedman([[1, 2, 3, 4], [4, 3, 2, 1]])
    assert res.statistic == 0.0 and res.pvalue == 1.0


def test_posthoc_friedman_result_is_frozen():
    res = friedman(DEMSAR_TABLE_6)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.statistic = 0.0
    assert res == friedman(DEMSAR_TABLE_6)


BAD_RANKS = [
    ([1, 2, 3], "`ranks` must be two-dimensional"),
    ([[1, 2, 3]], "at least 2 data sets"),
    ([[1], [1]], "at least 2 data sets"),
    ([[1, 2], [2, np.nan]], "finite"),
    ([[1, 2], [0, 3]], r"`ranks` must lie in \[1, 2\]"),
    ([[1, 2, 3], [1, 1, 3]], "every row of `ranks` must be a ranking"),
    ([["a", "b"], ["c", "d"]], "`ranks` must be an array of real numbers"),
]


@pytest.mark.parametrize(("ranks", "message"), BAD_RANKS)
@pytest.mark.parametrize("function", [friedman, nemenyi, lambda r: control_comparisons(r, 0)])
def test_posthoc_invalid_ranks_raise(function, ranks, message):
    with pytest.raises(MultitestError, match=message):
        function(ranks)


# ---------------------------------------------------------------------------
# Nemenyi
# ---------------------------------------------------------------------------


def _q_alpha(n_algorithms, alpha):
    # q_alpha from the critical difference: CD / sqrt(L (L+1) / (6 S)), S = 1.
    scale = np.sqrt(n_algorithms * (n_algorithms + 1) / 6)
    return critical_difference(n_algorithms, 1, alpha) / scale


def test_posthoc_nemenyi_q_for_eight_algorithms():
    # docs/method.md §5 and Demšar (2006) Table 5a: k = 8, alpha = 0.05 gives 3.031.
    assert round(_q_alpha(8, 0.05), 3) == 3.031


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_posthoc_nemenyi_q_matches_demsar_table_5a(alpha):
    # Demšar (2006) Table 5a (three decimals, themselves rounded from studentized
    # range tables before dividing by sqrt(2), hence atol 1e-3).
    computed = [_q_alpha(k, alpha) for k in range(2, 11)]
    assert_allclose(computed, DEMSAR_5A[alpha], rtol=0, atol=1e-3)


def test_posthoc_nemenyi_q_matches_r_qtukey():
    # Reference: R qtukey(1 - alpha, L, Inf) / sqrt(2) for L = 2..20, 30, 50.
    rows = R_POSTHOC[R_POSTHOC.case == "qtukey"]
    assert len(rows) == 63
    for row in rows.itertuples():
        alpha = float(row.quantity.removeprefix("q_"))
        assert_allclose(_q_alpha(row.i, alpha), row.value, **QTUKEY)


@pytest.mark.parametrize("case", R_RANK_CASES)
def test_posthoc_nemenyi_matches_r(case):
    # Reference: q = |R_a - R_b| / sqrt(L (L+1) / (12 S)), ptukey(q, L, Inf,
    # lower.tail = FALSE), CD from qtukey (posthoc_r.R).
    ranks = _r_input(R_POSTHOC, case, "rank")
    S, L = ranks.shape
    upper = np.triu_indices(L, 1)
    res = nemenyi(ranks)
    expected_q = _r_matrix(R_POSTHOC, case, "nemenyi_q", (L, L))[upper]
    expected_p = _r_matrix(R_POSTHOC, case, "nemenyi_pvalue", (L, L))[upper]
    assert_allclose(res.statistic[upper], expected_q, **EXACT)
    assert_allclose(res.pvalues[upper], expected_p, **PTUKEY)
    for alpha in (0.01, 0.05, 0.10):
        expected = _r_value(R_POSTHOC, case, f"nemenyi_cd_{alpha:.2f}")
        assert_allclose(critical_difference(L, S, alpha), expected, **QTUKEY)
        assert_allclose(nemenyi(ranks, alpha).critical_difference, expected, **QTUKEY)


@pytest.mark.parametrize(("n_algorithms", "alpha"), [(2, 0.05), (5, 0.05), (8, 0.05), (8, 0.01),
                                                     (30, 0.2), (300, 0.05)])
def test_posthoc_nemenyi_p_equals_alpha_at_the_critical_difference(n_algorithms, alpha):
    # Consistency of the decision with the p-value: q at |R_a - R_b| = CD is the
    # (1 - alpha) quantile of the studentized range.
    n_datasets = 17
    cd = critical_difference(n_algorithms, n_datasets, alpha)
    q = cd / np.sqrt(n_algorithms * (n_algorithms + 1) / (12 * n_datasets))
    assert_allclose(stats.studentized_range.sf(q, n_algorithms, np.inf), alpha, rtol=1e-8)


def test_posthoc_nemenyi_decision_agrees_with_pvalues():
    rng = np.random.default_rng(2)
    for n_datasets, n_algorithms in [(10, 4), (38, 8), (25, 12)]:
        ranks = _random_ranks(rng, n_datasets, n_algorithms, spread=2.0)
        res = nemenyi(ranks)
        R = ranks.mean(axis=0)
        difference = np.abs(R[:, None] - R[None, :])
        off_diagonal = ~np.eye(n_algorithms, dtype=bool)
        assert_array_equal(res.significant, (difference >= res.critical_difference) & off_diagonal)
        clear = np.abs(difference - res.critical_difference) > 1e-9
        assert_array_equal(res.significant[clear], (res.pvalues <= res.alpha)[clear])


def test_posthoc_nemenyi_result_layout():
    rng = np.random.default_rng(4)
    res = nemenyi(_random_ranks(rng, 20, 6, spread=2.0), alpha=0.1)
    assert (res.method, res.correction, res.alpha) == ("nemenyi", "none", 0.1)
    for matrix in (res.statistic, res.pvalues, res.raw_pvalues, res.significant):
        assert matrix.shape == (6, 6)
        assert_array_equal(matrix, matrix.T)
        assert not matrix.flags.writeable
    assert_array_equal(np.diag(res.statistic), 0)
    assert_array_equal(np.diag(res.pvalues), 1)
    assert not np.diag(res.significant).any()
    assert res.significant.dtype == bool
    assert_array_equal(res.pvalues, res.raw_pvalues)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.alpha = 0.5


def test_posthoc_nemenyi_large_pool_has_no_table_limit():
    # L = 300 algorithms on S = 1000 data sets (beyond every published table).
    rng = np.random.default_rng(5)
    ranks = _random_ranks(rng, 1000, 300, spread=3.0)
    res = nemenyi(ranks, alpha=0.01)
    assert res.critical_difference > 0 and res.significant.any()
    assert ((res.pvalues >= 0) & (res.pvalues <= 1)).all()
    # p = 0 only where the true p-value is below the smallest double: there
    # even the Bonferroni bound L (L - 1) Phi(-q / sqrt(2)) is below 2^-1075.
    q = res.statistic[res.pvalues == 0]
    assert q.size > 0
    assert (np.log(300 * 299) + stats.norm.logcdf(-q / np.sqrt(2)) < -1075 * np.log(2)).all()


def test_posthoc_nemenyi_demsar_worked_example():
    # Demšar (2006), section 3.2.4: CD = 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25 at
    # alpha = 0.05, and CD = 2.291 sqrt(...) = 1.12 at alpha = 0.10. With the
    # printed average ranks (largest difference 3.143 - 1.964 = 1.179) no pair
    # differs at 0.05; at 0.10 C4.5 differs from C4.5+m (1.143) and C4.5+m+cf.
    res05 = nemenyi(DEMSAR_TABLE_6, alpha=0.05)
    res10 = nemenyi(DEMSAR_TABLE_6, alpha=0.10)
    assert round(res05.critical_difference, 2) == 1.25
    assert round(res10.critical_difference, 2) == 1.12
    assert not res05.significant.any()
    expected = np.zeros((4, 4), dtype=bool)
    expected[0, [1, 3]] = expected[[1, 3], 0] = True
    assert_array_equal(res10.significant, expected)


def test_posthoc_benavoli_example_nemenyi_vs_pool_independent_tests():
    # Benavoli, Corani & Mangili (2016), section 2: A and B have mean ranks 4 and
    # 2.5 (difference 1.5 >= CD = 2.728 * 0.5 = 1.364), so Nemenyi declares them
    # different, although A beats B on ten data sets and B beats A on the other
    # ten by the same margin: Wilcoxon and sign tests give p = 1.
    errors = _benavoli_errors()
    ranks = stats.rankdata(errors, axis=1)
    mean_ranks = ranks.mean(axis=0)
    assert_array_equal(mean_ranks, [4.0, 2.5, 4.5, 2.5, 1.5])
    assert mean_ranks[0] - mean_ranks[1] == 1.5
    assert nemenyi(ranks, alpha=0.05).significant[0, 1]
    for method in PAIRWISE_METHODS:
        res = pairwise_over_datasets(errors, method=method, correction="holm", alpha=0.05)
        assert res.raw_pvalues[0, 1] == 1.0
        assert res.pvalues[0, 1] == 1.0
        assert not res.significant[0, 1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1, 10), "`n_algorithms` must be an integer >= 2"),
        ((2.0, 10), "`n_algorithms` must be an integer >= 2"),
        ((True, 10), "`n_algorithms` must be an integer >= 2"),
        ((5, 0), "`n_datasets` must be an integer >= 1"),
        ((5, 10, 0.0), r"`alpha` must be in \(0, 1\)"),
        ((5, 10, 1.0), r"`alpha` must be in \(0, 1\)"),
        ((5, 10, np.nan), r"`alpha` must be in \(0, 1\)"),
        ((5, 10, "0.05"), r"`alpha` must be a number in \(0, 1\)"),
    ],
)
def test_posthoc_critical_difference_invalid_input_raises(args, message):
    with pytest.raises(MultitestError, match=message):
        critical_difference(*args)


def test_posthoc_nemenyi_invalid_alpha_raises():
    with pytest.raises(MultitestError, match="`alpha`"):
        nemenyi(DEMSAR_TABLE_6, alpha=1.5)


# ---------------------------------------------------------------------------
# Upper tail of the studentized range (infinite df), the Nemenyi p-value
# ---------------------------------------------------------------------------

sr_sf = multitest.stats._distributions._studentized_range_sf

# P(Q > q) for the range Q of k standard normals, mpmath 1.4.1 at 40 digits:
#
#   import mpmath as mp
#   mp.mp.dps = 40
#   def sf(q, k):
#       q = mp.mpf(q); n = k - 1
#       def g(z):
#           P = mp.ncdf(z)
#           return k * mp.npdf(z) * P**n * -mp.expm1(n * mp.log1p(-mp.ncdf(z - q) / P))
#       c = max(q / 2, mp.sqrt(2 * mp.log(k)))
#       return mp.quad(g, mp.linspace(-12, c + 12, int((c + 24) * 4) + 1),
#                      method="gauss-legendre")
#
# (k = 2 checks it: 2 Phi(-q / sqrt(2)) to 1e-38 relative.) Rows k, columns q.
MPMATH_Q = [0.1, 1.0, 3.0, 5.0, 6.5, 8.0, 12.0, 20.0, 40.0, 50.0]
MPMATH_SF = {
    2: [0.9436280222029834, 0.4795001221869535, 0.033894853524689274, 0.0004069520174449589,
        4.302779463675122e-06, 1.541725790028002e-08, 2.1519736712498913e-17,
        2.088487583762545e-45, 5.395865611607901e-176, 8.300172571196523e-274],
    3: [0.9972471806248685, 0.7592873587706612, 0.085542571654958, 0.0011839912309870209,
        1.2832505710229833e-05, 4.6214387129336174e-08, 6.455916377569021e-17,
        6.265462751287632e-45, 1.6187596834823703e-175, 2.4900517713589567e-273],
    5: [0.9999943491718828, 0.9549548551886442, 0.21087650496353783, 0.00373027380519444,
        4.2294833619822225e-05, 1.5380313803521567e-07, 2.1519690365049885e-16,
        2.0884875837625431e-44, 5.395865611607901e-175, 8.300172571196522e-273],
    10: [0.9999999999991942, 0.9994801305445359, 0.5121840739708066, 0.014857437887783707,
         0.0001854466775941478, 6.89462222084389e-07, 9.683825946252486e-16,
         9.398194126931434e-44, 2.4281395252235556e-174, 3.735077657038435e-272],
    30: [1.0, 0.9999999999958873, 0.9562261448912256, 0.09938163939116011,
         0.0016462201110551988, 6.572635521572507e-06, 9.360897997877906e-15,
         9.084920989367009e-43, 2.347201541049437e-173, 3.610575068470487e-271],
    100: [1.0, 1.0, 0.9999966401783993, 0.47854770644698746, 0.015211262782642086,
          7.191934654943737e-05, 1.0651529960162111e-13, 1.0338013539624352e-41,
          2.670953477745911e-172, 4.108585422742279e-270],
    300: [1.0, 1.0, 1.0, 0.9342883045039813, 0.09378664770294631, 0.000601521802281094,
          9.64960801335269e-13, 9.36686681317434e-41, 2.4200457268061435e-171,
          3.7226273981816404e-269],
    1000: [1.0, 1.0, 1.0, 0.9999819133929037, 0.44924685585029256, 0.005616562076031942,
           1.0742062898916158e-11, 1.0431995480891407e-39, 2.6952348729981464e-170,
           4.1459361993126633e-268],
}


@pytest.mark.parametrize("k", sorted(MPMATH_SF))
def test_posthoc_studentized_range_sf_matches_mpmath(k):
    # Observed: 1.3e-15 absolute and 2.5e-13 relative at worst over k = 2..1000
    # and q = 0.01..55 (the relative error is that of exp(log P), log P ~ -600).
    assert_allclose(sr_sf(np.array(MPMATH_Q), k), MPMATH_SF[k], rtol=5e-13, atol=1e-14)


def test_posthoc_studentized_range_sf_two_means_is_a_normal_tail():
    # k = 2: the range is |Z1 - Z2| ~ sqrt(2) |Z|, so P(Q > q) = erfc(q / 2),
    # down to 1e-300.
    q = np.concatenate([np.geomspace(1e-8, 1, 50), np.linspace(1, 52, 400)])
    assert_allclose(sr_sf(q, 2), special.erfc(q / 2), rtol=5e-13, atol=0)


@pytest.mark.parametrize("k", [2, 3, 4, 6, 9, 14, 22, 35, 57, 92, 150, 250, 420, 700, 1000])
def test_posthoc_studentized_range_sf_matches_scipy(k):
    # Reference: scipy.stats.studentized_range.sf(q, k, inf), which is 1 minus
    # an adaptive integral of the CDF with epsabs = 1e-11: it is accurate to
    # ~1e-13 except within ~1e-10 of p = 1, where it is off by up to its
    # epsabs for k >= 200 (k = 700, q = 4.1273332925966315: mpmath
    # 0.9999999999943011, ours ...43013, scipy 0.9999999999993776), and its
    # tail floors at ~1e-16 instead of decaying.
    rng = np.random.default_rng(k)
    q = np.concatenate([np.linspace(0.05, 12, 60), rng.uniform(0, 12, 20)])
    expected = stats.studentized_range.sf(q, k, np.inf)
    computed = sr_sf(q, k)
    away_from_one = expected < 1 - 1e-10
    assert_allclose(computed[away_from_one], expected[away_from_one], rtol=0, atol=1e-12)
    assert_allclose(computed, expected, rtol=0, atol=1e-11)


def test_posthoc_studentized_range_sf_edges():
    # q = 0 is p = 1 exactly; beyond the underflow of the Bonferroni bound
    # k (k-1) Phi(-q / sqrt(2)) < 2^-1075 it is 0 exactly, without warnings.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = sr_sf(np.array([0.0, 1e-300, 1e-12, 55.0, 200.0, 1e300, np.inf]), 7)
    assert_array_equal(p, [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    assert sr_sf(np.array([0.0]), 1000)[0] == 1.0


def test_posthoc_studentized_range_sf_does_not_depend_on_the_other_q():
    # A q gets the same interpolating panel whatever else is asked, so a
    # p-value is bit-identical alone and in a batch.
    rng = np.random.default_rng(31)
    q = rng.uniform(0, 40, 300)
    batch = sr_sf(q, 40)
    alone = np.array([sr_sf(q[i : i + 1], 40)[0] for i in range(0, 300, 7)])
    assert_array_equal(batch[::7], alone)
    assert_array_equal(sr_sf(np.concatenate([q, q[::-1]]), 40),
                       np.concatenate([batch, batch[::-1]]))


@pytest.mark.parametrize("k", [2, 12, 300, 1000])
def test_posthoc_studentized_range_sf_is_smooth_across_panels(k):
    # Interpolants of neighbouring panels meet: no step at the panel edges
    # beyond the interpolation error, and P decreases with q.
    edges = np.arange(1, 100) * multitest.stats._distributions._SR_PANEL
    below = sr_sf(np.nextafter(edges, 0), k)
    above = sr_sf(edges, k)
    assert_allclose(below, above, rtol=1e-12, atol=1e-15)
    q = np.linspace(0, 30, 3001)
    p = sr_sf(q, k)
    assert (np.diff(p) <= 1e-15 * p[:-1]).all()


def test_posthoc_studentized_range_sf_matches_direct_quadrature():
    # The interpolation adds nothing visible to the quadrature it interpolates.
    rng = np.random.default_rng(32)
    for k in (3, 50, 1000):
        q = rng.uniform(0.01, 45, 200)
        direct = np.exp(multitest.stats._distributions._sr_log_sf_quadrature(q, k))
        assert_allclose(sr_sf(q, k), direct, rtol=2e-13, atol=1e-15)


@pytest.mark.parametrize("n", [2, 5, 20, 64, 128])
def test_posthoc_gauss_legendre_rule_is_exact_for_polynomials(n):
    # An n-point rule integrates x^j over [-1, 1] exactly for j < 2n: 2 / (j+1)
    # for even j, 0 for odd j; nodes symmetric.
    x, w = multitest.stats._distributions._gauss_legendre(n)
    for j in range(0, min(2 * n, 40)):
        expected = 2 / (j + 1) if j % 2 == 0 else 0.0
        assert abs(np.sum(w * x**j) - expected) <= 4e-16 * np.sqrt(n)
    assert_allclose(x, -x[::-1], rtol=0, atol=1e-16)


def test_posthoc_nemenyi_large_pool_agrees_with_scipy():
    # L = 120 on S = 500: every distinct q against scipy, within scipy's own
    # accuracy (see test_posthoc_studentized_range_sf_matches_scipy).
    rng = np.random.default_rng(33)
    ranks = _random_ranks(rng, 500, 120, spread=2.0)
    res = nemenyi(ranks)
    upper = np.triu_indices(120, 1)
    q, inverse = np.unique(res.statistic[upper], return_inverse=True)
    expected = stats.studentized_range.sf(q, 120, np.inf)[inverse]
    assert_allclose(res.pvalues[upper], expected, rtol=0, atol=2e-12)


# ---------------------------------------------------------------------------
# Wilcoxon and sign tests over data sets
# ---------------------------------------------------------------------------


def _scores(rng, n_datasets, n_algorithms, kind):
    x = rng.uniform(size=(n_datasets, n_algorithms))
    x[:, 0] -= 0.1
    if kind == "ties":
        x = np.round(x, 1)
    elif kind == "zeros":
        x[rng.uniform(size=x.shape) < 0.3] = 0.5  # equal scores: zero differences
    return x


@pytest.mark.parametrize("kind", ["continuous", "ties", "zeros"])
@pytest.mark.parametrize("n_datasets", [2, 5, 10, 13, 14, 30, 50, 51, 120])
def test_posthoc_wilcoxon_equals_scipy_per_pair(n_datasets, kind):
    # Reference: scipy.stats.wilcoxon(x, y) with its defaults, pair by pair.
    # S <= 50 without ties/zeros is exact, S <= 13 with ties/zeros is the exact
    # permutation distribution, the rest is the normal approximation.
    rng = np.random.default_rng(n_datasets)
    # scipy's permutation test is slow: fewer pairs for S = 10..13
    n_algorithms = 6 if n_datasets < 10 or n_datasets > 13 else 3
    scores = _scores(rng, n_datasets, n_algorithms, kind)
    res = pairwise_over_datasets(scores, "wilcoxon-scipy", correction="none")
    for a, b in zip(*np.triu_indices(n_algorithms, 1)):
        if (scores[:, a] == scores[:, b]).all():
            continue  # scipy returns NaN (S > 13) or 1; see the all-zero test
        expected = stats.wilcoxon(scores[:, a], scores[:, b])
        assert res.statistic[a, b] == expected.statistic
        assert_allclose(res.raw_pvalues[a, b], expected.pvalue, **EXACT)


@pytest.mark.parametrize("kind", ["continuous", "ties", "zeros"])
@pytest.mark.parametrize("n_datasets", [2, 7, 25, 120])
def test_posthoc_sign_test_equals_scipy_binomtest(n_datasets, kind):
    # Reference: scipy.stats.binomtest(wins, wins + losses, 0.5), ties dropped.
    rng = np.random.default_rng(100 + n_datasets)
    scores = _scores(rng, n_datasets, 5, kind)
    res = pairwise_over_datasets(scores, "sign", correction="none")
    for a, b in zip(*np.triu_indices(5, 1)):
        wins = int((scores[:, a] > scores[:, b]).sum())
        losses = int((scores[:, a] < scores[:, b]).sum())
        expected = stats.binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
        assert res.statistic[a, b] == min(wins, losses)
        assert_allclose(res.raw_pvalues[a, b], expected, **EXACT)


@pytest.mark.parametrize(("method", "fixture"), [("wilcoxon-scipy", "wilcoxon"),
                                                  ("sign", "sign")])
@pytest.mark.parametrize("case", R_SCORE_CASES)
def test_posthoc_pairwise_matches_r(case, method, fixture):
    # Reference (posthoc_r.R): wilcox.test(x, y, paired = TRUE, exact = TRUE) for
    # the exact case, wilcox.test(..., exact = FALSE, correct = FALSE) for the
    # normal one, enumeration of the 2^n sign flips for the permutation one;
    # binom.test(wins, wins + losses) for the sign test; p.adjust for holm/hommel.
    scores = _r_input(R_POSTHOC, case, "score")
    L = scores.shape[1]
    upper = np.triu_indices(L, 1)
    for correction in ("holm", "hommel"):
        res = pairwise_over_datasets(scores, method, correction=correction)
        expected = _r_matrix(R_POSTHOC, case, f"{fixture}_statistic", (L, L))[upper]
        assert_array_equal(res.statistic[upper], expected)
        expected = _r_matrix(R_POSTHOC, case, f"{fixture}_pvalue", (L, L))[upper]
        assert_allclose(res.raw_pvalues[upper], expected, **EXACT)
        expected = _r_matrix(R_POSTHOC, case, f"{fixture}_{correction}", (L, L))[upper]
        assert_allclose(res.pvalues[upper], expected, **EXACT)


def test_posthoc_pairwise_r_fixture_covers_every_wilcoxon_regime():
    # S = 10/13 with ties (permutation), 14 with ties (normal), 10/30/50 without
    # ties (exact), 51 and 80 (normal).
    assert {"scores_10x4_ties", "scores_13x4_ties", "scores_14x4_ties", "scores_10x4",
            "scores_50x3", "scores_51x3", "scores_80x4_ties"} <= set(R_SCORE_CASES)


@pytest.mark.parametrize("n_datasets", [5, 20, 80])
@pytest.mark.parametrize("method", PAIRWISE_METHODS)
def test_posthoc_pairwise_all_equal_pair_gives_p_one(method, n_datasets):
    # A pair with equal scores everywhere: statistic 0, p = 1, no warning
    # (scipy.stats.wilcoxon returns NaN for S > 13).
    rng = np.random.default_rng(0)
    scores = rng.uniform(size=(n_datasets, 3))
    scores[:, 1] = scores[:, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = pairwise_over_datasets(scores, method)
    assert res.statistic[0, 1] == 0.0
    assert res.raw_pvalues[0, 1] == 1.0


@pytest.mark.parametrize("correction", PAIRWISE_CORRECTIONS)
@pytest.mark.parametrize("method", PAIRWISE_METHODS)
def test_posthoc_pairwise_corrects_over_the_family_of_all_pairs(method, correction):
    rng = np.random.default_rng(9)
    scores = _scores(rng, 16, 7, "ties")
    res = pairwise_over_datasets(scores, method, correction=correction, alpha=0.1)
    upper = np.triu_indices(7, 1)
    assert res.correction == correction and res.method == method
    assert res.critical_difference is None
    assert_array_equal(res.pvalues[upper], adjust_all_pairs(res.raw_pvalues[upper], 7, correction))
    assert_array_equal(res.significant, (res.pvalues <= 0.1) & ~np.eye(7, dtype=bool))
    for matrix in (res.statistic, res.pvalues, res.raw_pvalues, res.significant):
        assert_array_equal(matrix, matrix.T)
        assert not matrix.flags.writeable


def test_posthoc_pairwise_significance_includes_p_equal_to_alpha():
    # Convention: significant when adjusted p <= alpha. Sign test, 6 wins of 6:
    # p = 2 / 64 = 0.03125 exactly.
    scores = np.column_stack([np.arange(6.0), np.arange(6.0) + 1])
    res = pairwise_over_datasets(scores, "sign", correction="none", alpha=0.03125)
    assert res.raw_pvalues[0, 1] == 0.03125
    assert res.significant[0, 1]


def test_posthoc_pairwise_is_invariant_to_orientation():
    # Two-sided tests: accuracies (1 - error) give the same p-values as errors.
    # Scores on a binary grid (multiples of 1/8), so that their differences are
    # exact and the ties among |d| are the same both ways (ties are exact
    # floating-point equality, as in R and scipy).
    rng = np.random.default_rng(12)
    errors = np.round(rng.uniform(size=(12, 5)) * 8) / 8
    for method in PAIRWISE_METHODS:
        a = pairwise_over_datasets(errors, method)
        b = pairwise_over_datasets(1 - errors, method)
        assert_allclose(a.pvalues, b.pvalues, **EXACT)


def test_posthoc_pairwise_chunks_do_not_change_results(monkeypatch):
    rng = np.random.default_rng(13)
    scores = _scores(rng, 11, 9, "ties")
    whole = {m: pairwise_over_datasets(scores, m) for m in PAIRWISE_METHODS}
    monkeypatch.setattr(multitest.stats._over_datasets, "_CHUNK_CELLS", 25)  # two pairs per chunk
    for method in PAIRWISE_METHODS:
        chunked = pairwise_over_datasets(scores, method)
        assert_array_equal(chunked.pvalues, whole[method].pvalues)
        assert_array_equal(chunked.statistic, whole[method].statistic)


def _signed_ranks_by_rankdata(d):
    # Plain reference: rank |d| of the non-zero differences with rankdata.
    r_plus, count, tie_term = [], [], []
    for row in d:
        nonzero = row[row != 0]
        ranks = stats.rankdata(np.abs(nonzero))
        r_plus.append(ranks[nonzero > 0].sum())
        count.append(nonzero.size)
        _, sizes = np.unique(np.abs(nonzero), return_counts=True)
        tie_term.append(float(np.sum(sizes**3 - sizes)))
    return np.array(r_plus), np.array(count), np.array(tie_term)


@pytest.mark.parametrize("decimals", [None, 3, 1, 0])
def test_posthoc_signed_ranks_equal_a_plain_ranking(decimals):
    # One sort of sign-tagged bit patterns, then tie groups: T+, the count of
    # non-zero differences and sum(t^3 - t), exactly as rankdata gives them,
    # with zeros (also -0.0), all-zero rows, all-tied rows, subnormals and
    # magnitudes of every exponent (|d| >= 2 sets the exponent's top bit).
    rng = np.random.default_rng(34)
    d = rng.normal(0, 1, size=(60, 37))
    if decimals is not None:
        d = np.round(d, decimals)
    d[rng.uniform(size=d.shape) < 0.1] = 0.0
    d[3] = 0.0
    d[4] = -0.0
    d[5] = np.where(np.arange(37) % 2, 0.5, -0.5)
    d[6, :3] = [5e-324, -5e-324, 1e-310]
    d[7, :6] = [1e300, -1e300, 3.0, -2.0, 2.0, -1e-300]
    for got, expected in zip(multitest.stats._signed_rank._signed_rank_sums(d),
                             _signed_ranks_by_rankdata(d)):
        assert_array_equal(got, expected)


def test_posthoc_signed_rank_matrix_equals_rankdata():
    rng = np.random.default_rng(35)
    d = np.round(rng.normal(0, 1, size=(20, 11)), 1)
    rank = multitest.stats._signed_rank._doubled_ranks(d, "wilcox") / 2
    for row, got in zip(d, rank):
        expected = np.zeros(row.size)
        expected[row != 0] = stats.rankdata(np.abs(row[row != 0]))
        assert_array_equal(got, expected)


def test_posthoc_wilcoxon_many_datasets_with_ties_equals_scipy():
    # S = 1000 rounded errors (ties and zeros), normal approximation.
    rng = np.random.default_rng(36)
    scores = np.round(rng.uniform(0.1, 0.4, size=(1000, 12)) + np.linspace(0, 0.02, 12), 3)
    res = pairwise_over_datasets(scores, "wilcoxon-scipy", correction="none")
    for a, b in zip(*np.triu_indices(12, 1)):
        expected = stats.wilcoxon(scores[:, a], scores[:, b])
        assert res.statistic[a, b] == expected.statistic
        assert_allclose(res.raw_pvalues[a, b], expected.pvalue, **EXACT)


@pytest.mark.parametrize("case", sorted(c for c in set(R_TIES.case) if c.startswith("wilcoxon")))
def test_posthoc_wilcoxon_exact_matches_r(case):
    # Reference: exactRankTests::wilcox.exact(d, 0, paired = TRUE) (zeros dropped)
    # and coin::wilcoxsign_test(zero.method = "Pratt"), two-sided, R 4.2.2
    # (tests/fixtures/ties_exact_r.R): the second pass on scores (d, 0).
    rows = R_TIES[(R_TIES.case == case) & (R_TIES.quantity == "difference")]
    d = rows.sort_values("i").value.to_numpy(dtype=float)
    scores = np.column_stack([d, np.zeros_like(d)])
    for method, quantity in (("wilcoxon", "exact_two.sided"),
                             ("wilcoxon-pratt", "coin_pratt_two.sided")):
        res = pairwise_over_datasets(scores, method, correction="none")
        assert_allclose(res.raw_pvalues[0, 1], _r_value(R_TIES, case, quantity), **EXACT)


def test_posthoc_wilcoxon_exact_issue_example_and_scipy_mode():
    # Issue 11: 14 data sets, 5 non-zero differences .01 ... .05: exact
    # conditional p = 0.0625; scipy's method="auto" (normal beyond 13): 0.0431.
    d = np.array([.01, .02, .03, .04, .05] + [0] * 9)
    scores = np.column_stack([d, np.zeros_like(d)])
    exact = pairwise_over_datasets(scores, "wilcoxon", correction="none")
    assert exact.raw_pvalues[0, 1] == 0.0625 and exact.statistic[0, 1] == 0.0
    scipy_mode = pairwise_over_datasets(scores, "wilcoxon-scipy", correction="none")
    assert_allclose(scipy_mode.raw_pvalues[0, 1], stats.wilcoxon(d).pvalue, **EXACT)


def test_posthoc_wilcoxon_exact_equals_sign_flip_enumeration():
    # Reference: all 2^m sign flips of the non-zero differences (m <= 11),
    # rounded scores (ties and zeros), every pair.
    rng = np.random.default_rng(37)
    scores = np.round(rng.uniform(size=(11, 5)), 1)
    res = pairwise_over_datasets(scores, "wilcoxon", correction="none")
    for a, b in zip(*np.triu_indices(5, 1)):
        d = scores[:, a] - scores[:, b]
        d = d[d != 0]
        ranks = stats.rankdata(np.abs(d))
        observed = ranks[d > 0].sum()
        null = np.array([ranks[np.array(signs, dtype=bool)].sum()
                         for signs in itertools.product([0, 1], repeat=d.size)])
        expected = min(1.0, 2 * min(np.mean(null <= observed + 1e-9),
                                    np.mean(null >= observed - 1e-9)))
        assert_allclose(res.raw_pvalues[a, b], expected, **EXACT)


def test_posthoc_wilcoxon_permutation_blocks_do_not_change_results(monkeypatch):
    # the exact conditional programme of the kernel, all rows at once or one at a time
    kernel = multitest.stats._signed_rank
    rng = np.random.default_rng(15)
    d = np.round(rng.uniform(-1, 1, size=(9, 8)), 1)
    doubled = kernel._doubled_ranks(d, "wilcox")
    r_plus2 = np.rint(2 * kernel._signed_rank_sums(d)[0]).astype(np.int64)
    whole = kernel._tied_pvalues(doubled, r_plus2, doubled.sum(axis=1), "two-sided")
    monkeypatch.setattr(kernel, "_BLOCK_CELLS", 1)
    assert_array_equal(kernel._tied_pvalues(doubled, r_plus2, doubled.sum(axis=1), "two-sided"),
                       whole)


def test_posthoc_pairwise_large_pool_is_vectorized():
    # L = 60 algorithms (1770 pairs) on S = 400 data sets, normal approximation.
    rng = np.random.default_rng(14)
    scores = np.round(rng.uniform(size=(400, 60)), 2)
    res = pairwise_over_datasets(scores, "wilcoxon-scipy")
    assert res.pvalues.shape == (60, 60)
    expected = stats.wilcoxon(scores[:, 3], scores[:, 41])
    assert_allclose(res.raw_pvalues[3, 41], expected.pvalue, **EXACT)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(method="t-test"), r"`method` must be one of \('wilcoxon', 'wilcoxon-pratt'"),
        (dict(correction="BH"), r"`correction` must be one of \('none', 'bonferroni'"),
        (dict(alpha=0), r"`alpha` must be in \(0, 1\)"),
        (dict(scores=[0.1, 0.2]), "`scores` must be two-dimensional"),
        (dict(scores=[[0.1, 0.2]]), "at least 2 data sets"),
        (dict(scores=[[0.1, np.inf], [0.2, 0.3]]), "`scores` must contain only finite numbers"),
    ],
)
def test_posthoc_pairwise_invalid_input_raises(kwargs, message):
    arguments = dict(scores=[[0.1, 0.2], [0.3, 0.1]]) | kwargs
    with pytest.raises(MultitestError, match=message):
        pairwise_over_datasets(**arguments)


# ---------------------------------------------------------------------------
# Comparisons with a control
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("method", CONTROL_METHODS)
@pytest.mark.parametrize("case", R_CONTROL_CASES)
def test_posthoc_control_comparisons_match_r(case, method):
    # Reference (corrections_r.R): z = (R_i - R_c) / sqrt(L (L+1) / (6 S)),
    # 2 * pnorm(-abs(z)), p.adjust over the L - 1 comparisons, and the
    # Bonferroni-Dunn CD qnorm(1 - alpha / (2 (L - 1))) * sqrt(L (L+1) / (6 S)).
    ranks = _r_input(R_CORRECTIONS, case, "rank")
    S, L = ranks.shape
    control = int(_r_value(R_CORRECTIONS, case, "control"))
    others = np.arange(L) != control
    r_method = "bonferroni" if method == "bonferroni-dunn" else method
    for alpha in (0.01, 0.05, 0.10):
        res = control_comparisons(ranks, control, method=method, alpha=alpha)
        for field, quantity in [("statistic", "z"), ("raw_pvalues", "p_raw"),
                                ("pvalues", f"p_{r_method}")]:
            expected = _r_vector(R_CORRECTIONS, case, quantity, L)[others]
            assert_allclose(getattr(res, field)[others], expected, **EXACT)
        expected_cd = _r_value(R_CORRECTIONS, case, f"cd_bonferroni_dunn_{alpha:.2f}")
        assert_allclose(res.critical_difference, expected_cd, **EXACT)


def test_posthoc_control_r_fixture_has_significant_and_non_significant_entries():
    raw = _r_vector(R_CORRECTIONS, "control_40x9", "p_holm", 9)
    assert np.nanmin(raw) < 0.01 and np.nanmax(raw) > 0.05


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_posthoc_bonferroni_dunn_matches_demsar_table_5b(alpha):
    # Demšar (2006) Table 5b, k = 2..10 (2.734 for the misprinted 2.724).
    computed = []
    for k in range(2, 11):
        ranks = np.tile(np.arange(1.0, k + 1), (6, 1))  # S = 6
        cd = control_comparisons(ranks, 0, alpha=alpha).critical_difference
        computed.append(cd / np.sqrt(k * (k + 1) / 36))
    assert_allclose(computed, DEMSAR_5B[alpha], rtol=0, atol=5e-4)


def test_posthoc_bonferroni_dunn_eight_algorithms():
    # Demšar (2006) Table 5b: k = 8, alpha = 0.05 gives 2.690.
    ranks = np.tile(np.arange(1.0, 9), (5, 1))
    cd = control_comparisons(ranks, 2).critical_difference
    assert round(cd / np.sqrt(8 * 9 / 30), 3) == 2.690


@pytest.mark.parametrize("method", CONTROL_METHODS)
def test_posthoc_control_comparisons_conventions(method):
    rng = np.random.default_rng(21)
    ranks = _random_ranks(rng, 30, 7, spread=2.5)
    res = control_comparisons(ranks, control=-2, method=method, alpha=0.1)
    assert res.control == 5 and res.method == method and res.alpha == 0.1
    assert (res.statistic[5], res.raw_pvalues[5], res.pvalues[5]) == (0.0, 1.0, 1.0)
    assert not res.significant[5]
    R = ranks.mean(axis=0)
    assert_allclose(res.statistic, (R - R[5]) / np.sqrt(7 * 8 / (6 * 30)), **EXACT)
    if method == "bonferroni-dunn":
        assert_array_equal(res.significant, np.abs(R - R[5]) >= res.critical_difference)
        expected = np.where(np.arange(7) == 5, 1.0, np.minimum(1, 6 * res.raw_pvalues))
        assert_allclose(res.pvalues, expected, **EXACT)
    else:
        assert_array_equal(res.significant, (res.pvalues <= 0.1) & (np.arange(7) != 5))
    for array in (res.statistic, res.raw_pvalues, res.pvalues, res.significant):
        assert array.shape == (7,) and not array.flags.writeable


def test_posthoc_control_bonferroni_dunn_decision_agrees_with_pvalues():
    rng = np.random.default_rng(22)
    for _ in range(20):
        ranks = _random_ranks(rng, 25, 6, spread=2.0)
        res = control_comparisons(ranks, 0)
        R = ranks.mean(axis=0)
        clear = np.abs(np.abs(R - R[0]) - res.critical_difference) > 1e-9
        by_pvalue = (res.pvalues <= 0.05) & (np.arange(6) != 0)
        assert_array_equal(res.significant[clear], by_pvalue[clear])


def test_posthoc_holm_against_control_is_at_least_as_powerful():
    rng = np.random.default_rng(23)
    for _ in range(20):
        ranks = _random_ranks(rng, 20, 6, spread=2.0)
        dunn = control_comparisons(ranks, 0, "bonferroni-dunn")
        holm = control_comparisons(ranks, 0, "holm")
        assert (holm.pvalues <= dunn.pvalues + 1e-15).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(control=4), r"`control` must be in \[-4, 3\]"),
        (dict(control=-5), r"`control` must be in \[-4, 3\]"),
        (dict(control=1.0), "`control` must be an integer index"),
        (dict(control=True), "`control` must be an integer index"),
        (dict(control=0, method="nemenyi"), r"`method` must be one of \('bonferroni-dunn', 'holm'"),
        (dict(control=0, alpha=-0.1), r"`alpha` must be in \(0, 1\)"),
    ],
)
def test_posthoc_control_invalid_input_raises(kwargs, message):
    with pytest.raises(MultitestError, match=message):
        control_comparisons(DEMSAR_TABLE_6, **kwargs)


@pytest.mark.parametrize("module", ["_friedman", "_nemenyi", "_over_datasets", "_signed_rank"])
def test_posthoc_docstring_examples_run(module):
    result = doctest.testmod(getattr(multitest.stats, module),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("block_cells", [7, 1 << 20])
def test_posthoc_rank_tie_terms_in_blocks_are_the_counted_groups(monkeypatch, block_cells):
    # Reference: sum (t^3 - t) over the groups of equal ranks of each row, counted with
    # collections.Counter; rows are cut into blocks of `block_cells` cells (one row per
    # block at 7 cells), which must not change a row's sum by a bit.
    from collections import Counter

    from multitest.stats import _friedman

    monkeypatch.setattr(_friedman, "_RANK_BLOCK_CELLS", block_cells)
    rng = np.random.default_rng(11)
    ranks = _friedman.rank_rows(np.round(rng.uniform(size=(301, 9)), 1))
    expected = [sum(float(t) ** 3 - t for t in Counter(row.tolist()).values()) for row in ranks]
    assert _friedman.rank_tie_terms(ranks).tolist() == expected
