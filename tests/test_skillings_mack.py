"""multitest.stats._skillings_mack: the published worked examples, Friedman on complete data."""

import numpy as np
import pytest
from scipy.stats import friedmanchisquare, rankdata

from multitest import MultitestError
from multitest.stats import friedman, skillings_mack

nan = np.nan

# Brady's metronome data, 8 blocks x 3 (Hollander & Wolfe, Nonparametric Statistical
# Methods, Example 7.8): the worked example of Chatfield & Mander, Stata Journal 9(2), 2009,
# and of R's PMCMRplus::skillingsMackTest (docs/method.md §9):
#   library(PMCMRplus)
#   x <- cbind(c(3,1,5,2,0,0,0,0), c(5,3,4,NA,2,2,3,2), c(15,18,21,6,17,10,8,13))
#   skillingsMackTest(x)   # Skillings-Mack statistic = 13.281, df = 2, p-value = 0.001306
METRONOME = [[3, 5, 15], [1, 3, 18], [5, 4, 21], [2, nan, 6], [0, 2, 17], [0, 2, 10],
             [0, 3, 8], [0, 2, 13]]

# Skillings & Mack, Technometrics 23(2), 1981, Table 1, 9 blocks x 4 (the example of the R
# package Skillings.Mack):
#   library(Skillings.Mack); Ski.Mack(t(x))
#   # Skillings-Mack Statistic = 15.493049 , p-value = 0.001440, d.f. = 3
#   # (some_result$pValue: 0.001440296302)
TABLE_1 = [[3.2, 4.1, 3.8, 4.2], [3.1, 3.9, 3.4, 4.0], [4.3, 3.5, 4.6, 4.8],
           [3.5, 3.6, 3.9, 4.0], [3.6, 4.2, 3.7, 3.9], [4.5, 4.7, 3.7, nan],
           [nan, 4.2, 3.4, nan], [4.3, 4.6, 4.4, 4.9], [3.5, nan, 3.7, 3.9]]

# R's documentation example of friedman.test (Hollander & Wolfe, p. 140; rounding first
# base, 22 players x 3 methods):
#   friedman.test(RoundingTimes)   # Friedman chi-squared = 11.143, df = 2, p-value = 0.003805
ROUNDING_TIMES = np.array([
    5.40, 5.50, 5.55, 5.85, 5.70, 5.75, 5.20, 5.60, 5.50, 5.55, 5.50, 5.40, 5.90, 5.85, 5.70,
    5.45, 5.55, 5.60, 5.40, 5.40, 5.35, 5.45, 5.50, 5.35, 5.25, 5.15, 5.00, 5.85, 5.80, 5.70,
    5.25, 5.20, 5.10, 5.65, 5.55, 5.45, 5.60, 5.35, 5.45, 5.05, 5.00, 4.95, 5.50, 5.50, 5.40,
    5.45, 5.55, 5.50, 5.55, 5.55, 5.35, 5.45, 5.50, 5.55, 5.50, 5.45, 5.25, 5.65, 5.60, 5.40,
    5.70, 5.65, 5.55, 6.30, 6.30, 6.25]).reshape(22, 3)


def test_metronome_example():
    res = skillings_mack(METRONOME)
    assert res.statistic == pytest.approx(13.28095, abs=5e-6)
    assert res.df == 2
    assert res.pvalue == pytest.approx(0.001306, abs=5e-7)
    assert (res.n_blocks, res.n_dropped, res.n_missing) == (8, 0, 1)


def test_skillings_mack_table_1():
    res = skillings_mack(TABLE_1)
    assert res.statistic == pytest.approx(15.493049, abs=5e-7)
    assert res.df == 3
    assert res.pvalue == pytest.approx(0.001440296302, rel=1e-9)
    assert (res.n_blocks, res.n_missing) == (9, 4)


def test_ranks_give_the_same_statistic_as_values():
    ranks = rankdata(np.array(TABLE_1), axis=1, nan_policy="omit")
    assert skillings_mack(ranks).statistic == pytest.approx(15.493049, abs=5e-7)


@pytest.mark.parametrize("shape", [(2, 2), (7, 5), (30, 8)])
def test_equals_friedman_on_complete_data_without_ties(shape):
    values = np.random.default_rng(sum(shape)).normal(size=shape)
    res = skillings_mack(values)
    reference = friedmanchisquare(*values.T) if shape[1] > 2 else None
    ours = friedman(rankdata(values, axis=1))
    assert res.statistic == pytest.approx(ours.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ours.pvalue, rel=1e-9)
    assert res.df == shape[1] - 1
    if reference is not None:   # scipy needs three groups
        assert res.statistic == pytest.approx(reference.statistic, rel=1e-12)


def test_with_ties_on_complete_data_it_is_the_uncorrected_friedman():
    # The tie-corrected Friedman statistic is R's 11.143 (p 0.003805); Skillings-Mack uses
    # the covariance of untied ranks, i.e. Demsar's uncorrected statistic.
    ranks = rankdata(ROUNDING_TIMES, axis=1)
    assert friedman(ranks).statistic == pytest.approx(11.142857, abs=5e-7)
    assert friedman(ranks).pvalue == pytest.approx(0.003805, abs=5e-7)
    assert skillings_mack(ROUNDING_TIMES).statistic == pytest.approx(
        friedman(ranks, "uncorrected").statistic, rel=1e-12)


def test_generalised_inverse_equals_dropping_one_treatment():
    # docs/method.md §9: invert Sigma after dropping one algorithm: the same value.
    x = np.array(TABLE_1)
    observed = ~np.isnan(x)
    n = observed.sum(axis=1)
    r = rankdata(x, axis=1, nan_policy="omit")
    a = np.nansum(np.sqrt(12 / (n + 1))[:, None] * (r - (n[:, None] + 1) / 2), axis=0)
    lam = observed.T.astype(float) @ observed.astype(float)
    np.fill_diagonal(lam, 0)
    sigma = np.diag(lam.sum(axis=1)) - lam
    dropped = a[:-1] @ np.linalg.solve(sigma[:-1, :-1], a[:-1])
    assert skillings_mack(x).statistic == pytest.approx(dropped, rel=1e-12)


def test_blocks_with_one_observation_are_dropped():
    x = np.vstack([TABLE_1, [[nan, 3.0, nan, nan]], [[nan] * 4]])
    res = skillings_mack(x)
    assert res.n_dropped == 2
    assert res.statistic == pytest.approx(15.493049, abs=5e-7)


def test_disconnected_design_has_fewer_degrees_of_freedom():
    # Algorithms {0, 1} and {2, 3} never meet: two separate comparisons, df 2 (not 3).
    x = [[1, 2, nan, nan], [1, 2, nan, nan], [nan, nan, 2, 1], [nan, nan, 1, 2]]
    assert skillings_mack(x).df == 2


@pytest.mark.parametrize("bad", [[[1], [2]], [[1, nan], [nan, 2]], [[1, np.inf], [1, 2]],
                                 [1, 2, 3], "x"])
def test_refuses_bad_tables(bad):
    with pytest.raises(MultitestError, match="`values`"):
        skillings_mack(bad)


def _r_tables():
    """The tables and the reference values of fixtures/skillings_mack_r.R (base R)."""
    from pathlib import Path

    import pandas as pd

    here = Path(__file__).parent / "fixtures"
    data = pd.read_csv(here / "skillings_mack_r_data.csv")
    tables = {}
    for name, rows in data.groupby("example", sort=False):
        table = np.full((rows["block"].max(), rows["treatment"].max()), np.nan)
        table[rows["block"] - 1, rows["treatment"] - 1] = rows["value"]
        tables[name] = table
    return tables, pd.read_csv(here / "skillings_mack_r.csv")


@pytest.mark.parametrize("row", list(_r_tables()[1].itertuples()),
                         ids=lambda r: f"{r.example}-{r.test}")
def test_matches_r(row):
    # Reference: fixtures/skillings_mack_r.R -- Skillings-Mack written out in base R from
    # the 1981 paper (reproducing Table 1's 15.493049 and the metronome's 13.281) and R's
    # friedman.test (tie-corrected) on the complete tables.
    table = _r_tables()[0][row.example]
    if row.test == "skillings_mack":
        res = skillings_mack(table)
    else:
        res = friedman(rankdata(table, axis=1))
    assert res.statistic == pytest.approx(row.statistic, rel=1e-12)
    assert res.df == row.df
    assert res.pvalue == pytest.approx(row.pvalue, rel=1e-9)
