"""multitest.inputs._missing: what a missing result costs under each policy (issue 36,
problem 6), and an algorithm with no result anywhere (issue 40).

The file is the committed AutoML benchmark fixture (``fixtures/automl_small.csv``, 7
frameworks x 5 tasks x 10 folds, 6 failed folds on kc1 and vehicle) with TPOT failing every
fold of phoneme besides: no result and no duration on any of its 10 folds.  Its cost there
(``--costs column:duration``, the mean duration over the folds) was missing, and every policy
refused the file ("no cost on any fold").  The expected costs are computed here from the
file with pandas: the largest mean duration on phoneme (``worst``), the baseline's
(``baseline:NAME``).
"""

import json

import numpy as np
import pandas as pd
import pytest

from multitest import InputError, rank
from multitest.cli import main
from multitest.inputs import load_results, missing_costs
from multitest.inputs._missing import MISSING_COSTS, apply_missing

from test_readers import AUTOML

OPTIONS = dict(test="corrected-t", second_pass="wilcoxon")   # 10 folds of one replication
COSTS = "column:duration"
TASK, FAILED = "phoneme", "TPOT"


@pytest.fixture(scope="module")
def table():
    frame = pd.read_csv(AUTOML, keep_default_na=False, dtype=str)
    every_fold = (frame["task"] == TASK) & (frame["framework"] == FAILED)
    frame.loc[every_fold, ["result", "duration"]] = ""
    frame.loc[every_fold, "info"] = "MemoryError: out of memory"
    return frame


@pytest.fixture
def path(table, tmp_path):
    target = tmp_path / "results.csv"
    table.to_csv(target, index=False)
    return str(target)


def _mean_durations(table, task):
    """Mean duration per framework on `task` over the folds with one (pandas)."""
    rows = table[(table["task"] == task) & (table["duration"] != "")]
    return rows.assign(duration=rows["duration"].astype(float)).groupby("framework")[
        "duration"].mean()


def _cost(ranking, task, framework):
    s = ranking.results.datasets.index(task)
    return float(ranking.datasets[0].orders.costs[s, ranking.results.algorithms.index(framework)])


@pytest.mark.parametrize("policy", ["worst", "baseline:constantpredictor"])
def test_the_cost_of_a_framework_that_failed_every_fold_is_the_policys(table, path, policy):
    ranking = rank(path, COSTS, missing=policy, **OPTIONS)
    means = _mean_durations(table, TASK)
    assert FAILED not in means.index
    expected = means.max() if policy == "worst" else means["constantpredictor"]
    assert _cost(ranking, TASK, FAILED) == pytest.approx(expected, rel=1e-12)
    assert ranking.missing.costed == ((TASK, FAILED),)
    # Every other cost is the one measured.
    for framework, value in means.items():
        assert _cost(ranking, TASK, framework) == pytest.approx(value, rel=1e-12)
    noise = ranking.profile.noise_matrix([TASK], [FAILED, means.idxmax()])
    if policy == "worst":     # the costliest framework's cost, with its noise
        assert noise[0, 0] == noise[0, 1]


def test_worst_is_the_largest_cost_measured_on_the_data_set_by_hand(table, path, tmp_path):
    # The same ranking as a file whose durations are filled by hand: TPOT on phoneme takes
    # the largest mean duration there, on every fold (the same mean, no spread, as the
    # costliest framework's spread is its noise: compared through the orders, not noise).
    ranking = rank(path, COSTS, missing="worst", cost_tolerance="exact", **OPTIONS)
    filled = table.copy()
    every_fold = (filled["task"] == TASK) & (filled["framework"] == FAILED)
    filled.loc[every_fold, "duration"] = repr(float(_mean_durations(table, TASK).max()))
    by_hand = tmp_path / "by_hand.csv"
    filled.to_csv(by_hand, index=False)
    expected = rank(str(by_hand), COSTS, missing="worst", cost_tolerance="exact", **OPTIONS)
    assert ranking.final_order == expected.final_order
    assert [r.order for r in ranking.datasets] == [r.order for r in expected.datasets]
    np.testing.assert_allclose(ranking.datasets[0].orders.costs,
                               expected.datasets[0].orders.costs, rtol=1e-12)


@pytest.mark.parametrize("policy", ["drop", "worst", "baseline:constantpredictor", "partial"])
def test_every_policy_ranks_the_file_and_says_what_a_missing_result_costs(table, path, tmp_path,
                                                                         capsys, policy):
    out = tmp_path / "out"
    status = main(["rank", path, "--missing", policy, "--test", "corrected-t",
                   "--second-pass", "wilcoxon", "--out", str(out), "-q"])
    stdout, err = capsys.readouterr()
    assert status == 0, err
    result = json.loads((out / "result.json").read_text())
    rule = MISSING_COSTS["baseline:NAME" if policy.startswith("baseline:") else policy]
    rule = rule.replace("NAME", "constantpredictor")
    sentence = result["missing"]["sentence"]
    assert f"cost of a missing result: the one measured, else (no fold with a cost) {rule}" \
        in sentence
    assert result["notes"][0] == sentence and f"Note: {sentence}\n" in stdout
    costs = pd.read_csv(out / "costs.csv", index_col=0)
    means = _mean_durations(table, TASK)
    if policy == "drop":     # phoneme is left out with kc1 and vehicle: no cost needed
        assert TASK not in costs.index and result["missing"]["costs_imputed"] == []
        assert result["missing"]["datasets_dropped"] == ["kc1", TASK, "vehicle"]
        return
    assert result["missing"]["costs_imputed"] == [[TASK, FAILED]]
    expected = means["constantpredictor"] if policy.startswith("baseline:") else means.max()
    assert costs.loc[TASK, FAILED] == pytest.approx(expected, rel=1e-9)
    if policy == "partial":   # not ordered on phoneme: its cost decides nothing there
        assert FAILED not in result["datasets"][TASK]["order"]
        assert len(result["final_order"]) == 7


def test_partial_orders_the_others_as_without_the_framework(table, path, tmp_path):
    # Under partial the placeholder cost is not used: phoneme's order of the six others
    # is the one of the file without TPOT's rows there.
    ranking = rank(path, COSTS, missing="partial", **OPTIONS)
    without = table[~((table["task"] == TASK) & (table["framework"] == FAILED))]
    other = tmp_path / "without.csv"
    without.to_csv(other, index=False)
    expected = rank(str(other), COSTS, missing="partial", **OPTIONS)
    s = ranking.results.datasets.index(TASK)
    assert ranking.datasets[s].order == expected.datasets[s].order


def test_a_framework_with_results_but_no_cost_is_refused(table, tmp_path, capsys):
    # Its results are there, its durations empty on every fold: not a missing result.
    blank = table.copy()
    rows = (blank["task"] == "credit-g") & (blank["framework"] == "RandomForest")
    blank.loc[rows, "duration"] = ""
    path = tmp_path / "blank.csv"
    blank.to_csv(path, index=False)
    for policy in ("drop", "worst", "partial"):
        assert main(["rank", str(path), "--missing", policy, "--test", "corrected-t",
                     "--second-pass", "wilcoxon", "-q"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == (
            "multitest: error: cost profile 'duration', field 'per_dataset.credit-g': no cost "
            "measured for algorithm 'RandomForest' on data set 'credit-g' (no fold of it has "
            "one)\n")


def test_missing_costs_on_a_frame():
    # The docstring's example, with the rule spelled out: b failed both folds of d.
    frame = pd.DataFrame({"dataset": ["d"] * 6 + ["e"] * 6,
                          "algorithm": ["a", "a", "b", "b", "c", "c"] * 2,
                          "fold": [1, 2] * 6,
                          "error": [.1, .2, np.nan, np.nan, .2, .2, .1, .1, .2, .2, .3, .3],
                          "seconds": [1, 1, np.nan, np.nan, 4, 6, 1, 1, 2, 2, 3, 3]})
    from multitest.inputs._cost_tables import profile_from_column

    profile = profile_from_column(frame, "seconds")
    assert np.isnan(profile.per_dataset["d"]["b"])
    with pytest.raises(InputError, match="no cost measured for algorithm 'b' on data set 'd'"):
        profile.cost_matrix(["d"], ["a", "b", "c"])
    results = load_results(frame, allow_missing=True)
    for policy, cost in (("worst", 5.0), ("baseline:a", 1.0)):
        ranked, report = apply_missing(results, policy)
        completed, report = missing_costs(profile, ranked, report)
        assert completed.cost_matrix(["d", "e"], ["a", "b", "c"]).tolist() == [
            [1.0, cost, 5.0], [1.0, 2.0, 3.0]]
        assert report.costed == (("d", "b"),)
        # The noise of the cost it takes: c's 1.0 (seconds 4 and 6), a's 0.
        assert completed.noise["d"]["b"] == (1.0 if policy == "worst" else 0.0)


# -- an algorithm with no result on any data set (issue 40, "Also") ---------------------------

@pytest.fixture
def never_ran(table, tmp_path):
    # Its durations kept: what refuses it is the policy, not a missing cost.
    gone = table.copy()
    gone.loc[gone["framework"] == "H2OAutoML", "result"] = ""
    path = tmp_path / "never.csv"
    gone.to_csv(path, index=False)
    return str(path)


@pytest.mark.parametrize("policy, message", [
    ("worst", "missing results: policy worst: algorithm(s) H2OAutoML have no result on any "
              "data set (they would be ranked on imputed errors alone); leave them out "
              "(algorithms=..., --algorithms)"),
    ("baseline:constantpredictor", "missing results: policy baseline:constantpredictor: "
                                   "algorithm(s) H2OAutoML have no result on any data set"),
    ("partial", "missing results: policy partial: algorithm(s) H2OAutoML have no data set "
                "with every fold"),
    ("drop", "missing results: policy drop leaves no data set to rank"),
])
def test_an_algorithm_with_no_result_anywhere_is_refused(never_ran, capsys, policy, message):
    status = main(["rank", never_ran, "--missing", policy, "--test", "corrected-t",
                   "--second-pass", "wilcoxon", "-q"])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"multitest: error: {never_ran}: {message}")


def test_leaving_it_out_ranks_the_rest(never_ran):
    others = ["constantpredictor", "RandomForest", "TunedRandomForest", "autosklearn", "TPOT",
              "AutoGluon"]
    ranking = rank(never_ran, COSTS, missing="worst", algorithms=others, **OPTIONS)
    assert sorted(ranking.final_order) == sorted(others)


def test_the_readme_and_the_how_to_state_the_rule_of_the_notes():
    # README's policy table (its cost column) and docs/how-to/missing-results.md say what
    # the notes say, word for word.
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    how_to = (root / "docs" / "how-to" / "missing-results.md").read_text(encoding="utf-8")
    for policy, words in MISSING_COSTS.items():
        row = f"| `{policy}` |"
        if policy != "error":     # README's table leaves the default out
            cells = next(line for line in readme.splitlines() if line.startswith(row))
            assert cells.split(" | ")[2] == words
        cell = next(line for line in how_to.splitlines()
                    if line.startswith(row) and line.count("|") == 3).split(" | ")[1]
        assert cell.startswith(words.split(" (")[0] if policy == "partial" else words)
