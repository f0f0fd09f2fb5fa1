"""engine/_ranking.py: the average error rank and the Friedman test on errors.

Reference values: tests/fixtures/friedman_errors_r.R (R 4.2.2, ``friedman.test`` on
the mean-error matrix and ``rank(ties.method = "average")``), committed as
tests/fixtures/friedman_errors_r.csv so that the tests run without R.
"""

import os

import numpy as np
import pandas as pd
import pytest

from multitest import example_results, rank
from multitest.stats import friedman
from multitest.stats._friedman import rank_rows

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "friedman_errors_r.csv")


def _reference(case):
    frame = pd.read_csv(FIXTURE, comment="#", keep_default_na=False)
    frame = frame[frame["case"] == case]
    scalars = {q: float(v) for q, n, v in zip(frame["quantity"], frame["name"], frame["value"])
               if n == ""}
    named = frame[frame["name"] != ""]
    by = {q: dict(zip(g["name"], g["value"].astype(float))) for q, g in named.groupby("quantity")}
    return scalars, by


def test_ranking_error_ranks_match_r_on_the_bundled_data():
    scalars, by = _reference("ulas2008")
    ranking = rank(example_results(), "training_time")
    expected = by["average_error_rank"]
    assert set(ranking.average_error_ranks) == set(expected)
    for name, value in expected.items():
        assert ranking.average_error_ranks[name] == pytest.approx(value, rel=1e-13)
    fe = ranking.friedman_errors
    assert fe.statistic == pytest.approx(scalars["friedman_statistic"], rel=1e-12)
    assert fe.pvalue == pytest.approx(scalars["friedman_pvalue"], rel=1e-9)
    assert fe.df == scalars["friedman_df"]
    # The numbers: svr has the best average error rank (2.45), 5nn the best position.
    assert min(ranking.average_error_ranks, key=ranking.average_error_ranks.get) == "svr"
    assert ranking.final_order[0] == "5nn"


def test_rank_rows_and_friedman_match_r_with_ties():
    scalars, by = _reference("ties")
    cells = by["mean_error"]
    datasets = sorted({k.split()[0] for k in cells}, key=lambda d: int(d[1:]))
    algorithms = sorted({k.split()[1] for k in cells})
    errors = np.array([[cells[f"{d} {a}"] for a in algorithms] for d in datasets])
    ranks = rank_rows(errors)
    average = dict(zip(algorithms, ranks.mean(axis=0)))
    for name, value in by["average_error_rank"].items():
        assert average[name] == pytest.approx(value, rel=1e-13)
    result = friedman(ranks)
    assert result.statistic == pytest.approx(scalars["friedman_statistic"], rel=1e-12)
    assert result.pvalue == pytest.approx(scalars["friedman_pvalue"], rel=1e-9)


def _identical_errors(n_datasets=6, algorithms=("knn", "tree", "svm", "rf")):
    """Every algorithm has the same error on every fold: only the costs differ."""
    rows = [{"dataset": f"d{s}", "algorithm": a, "replication": r, "fold": f,
             "error": 0.1 + 0.01 * s + 0.001 * (2 * r + f)}
            for s in range(n_datasets) for a in algorithms for r in range(1, 6)
            for f in (1, 2)]
    return pd.DataFrame(rows)


def test_identical_errors_positions_reject_but_errors_do_not_and_a_note_says_so():
    order = ["knn", "tree", "svm", "rf"]
    ranking = rank(_identical_errors(), order)
    # Positions are the cost order on every data set: chi2 = S (L - 1) = 6 * 3.
    assert ranking.friedman.statistic == pytest.approx(18.0)
    assert ranking.friedman.pvalue < 0.05
    # Errors are all tied: no information (R's friedman.test gives NaN here).
    assert ranking.friedman_errors.all_tied
    assert ranking.friedman_errors.pvalue == 1.0
    assert ranking.average_error_ranks == {a: 2.5 for a in order}
    gate = [n for n in ranking.notes if "not on average error ranks" in n]
    assert len(gate) == 1 and "p = 1" in gate[0]


def test_single_data_set_has_error_ranks_and_no_friedman_on_errors():
    ranking = rank(example_results(), "training_time", datasets=["optdigits"])
    assert ranking.friedman_errors is None
    assert sorted(ranking.average_error_ranks.values()) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0,
                                                            8.0]
