"""multitest.inputs._missing and the engine under each missing-result policy.

The fixture is a small benchmark of the AutoML benchmark's shape (7 frameworks x tasks x 10
folds, a constant predictor as baseline, failed folds with an empty result), in the long
layout of ``load_results``.  Each policy is checked against ranking a file prepared by hand:
``drop`` against the complete data sets alone, ``worst`` and ``baseline:NAME`` against files
imputed by hand; ``partial`` against the Skillings-Mack statistic of the worked examples of
Skillings & Mack (1981) and Chatfield & Mander (2009) (see test_skillings_mack.py).
"""

import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from helpers import make_frame
from test_skillings_mack import METRONOME, TABLE_1

from multitest import InputError, MultitestError, load_results, rank
from multitest.cli import main
from multitest.inputs._missing import apply_missing
from multitest.stats import skillings_mack
from multitest.stats._over_datasets import pairwise_over_datasets

FRAMEWORKS = ["constantpredictor", "rf", "autogluon", "flaml", "h2o", "lightautoml", "tpot"]
ORDER = ",".join(FRAMEWORKS)   # cheapest first
TEST = "corrected-t"             # 10 folds of one replication


def _rank(source, costs=None, **options):
    return rank(source, FRAMEWORKS if costs is None else costs, test=TEST, **options)


def _benchmark(S=8, seed=0):
    """``(complete frame, frame with failed folds, failed row indices)``."""
    rng = np.random.default_rng(seed)
    skill = np.array([0.40, 0.20, 0.12, 0.14, 0.15, 0.13, 0.16])
    errors = skill[None, :, None] + rng.normal(0, 0.03, (S, len(FRAMEWORKS), 10))
    frame = make_frame(errors, algorithms=FRAMEWORKS, replications=1)
    failed = frame.index[(frame["algorithm"].isin(["h2o", "tpot"]))
                         & (frame["dataset"].isin(["d1", "d4"])) & (frame["fold"] <= 3)]
    failed = failed.append(frame.index[(frame["algorithm"] == "flaml")
                                       & (frame["dataset"] == "d6") & (frame["fold"] == 7)])
    holes = frame.copy()
    holes.loc[failed, "error"] = np.nan
    return frame, holes, failed


@pytest.fixture
def bench(tmp_path):
    frame, holes, failed = _benchmark()
    path = tmp_path / "bench.csv"
    holes.to_csv(path, index=False)   # a failed fold: an empty error field
    return frame, holes, failed, str(path)


def _same_ranking(a, b):
    assert a.final_order == b.final_order
    assert [r.order for r in a.datasets] == [r.order for r in b.datasets]
    assert a.average_positions == pytest.approx(b.average_positions)
    if a.friedman is not None:
        assert a.friedman.statistic == pytest.approx(b.friedman.statistic)


def test_error_names_the_count_the_first_cells_and_the_policies(bench):
    *_, path = bench
    with pytest.raises(InputError) as info:
        _rank(path)
    message = str(info.value)
    assert "\n" not in message and path in message and "row 112, field 'error'" in message
    assert ("13 result(s) missing in all: (d1, h2o, replication 1, fold 1), (d1, h2o, "
            "replication 1, fold 2)") in message
    assert "--missing drop|worst|baseline:NAME|partial" in message


def test_error_on_a_results_object_with_missing_cells(bench):
    *_, path = bench
    with pytest.raises(InputError, match=r"13 result\(s\) missing: \(d1, h2o, fold 1\)"):
        apply_missing(load_results(path, allow_missing=True), "error")


def test_drop_equals_ranking_the_complete_data_sets(bench):
    frame, _, _, path = bench
    ranking = _rank(path, missing="drop")
    complete = frame[~frame["dataset"].isin(["d1", "d4", "d6"])]
    _same_ranking(ranking, _rank(complete))
    assert ranking.missing.dropped == ("d1", "d4", "d6")
    assert "13 missing" in ranking.notes[0] and "3 data set(s) left out: d1, d4, d6" \
        in ranking.notes[0]


def test_baseline_equals_ranking_a_file_imputed_by_hand(bench):
    _, holes, failed, path = bench
    by_hand = holes.copy()
    for i in failed:
        row = holes.loc[i]
        by_hand.loc[i, "error"] = holes.loc[(holes["dataset"] == row["dataset"])
                                            & (holes["fold"] == row["fold"])
                                            & (holes["algorithm"] == "constantpredictor"),
                                            "error"].item()
    ranking = _rank(path, missing="baseline:constantpredictor")
    _same_ranking(ranking, _rank(by_hand))
    np.testing.assert_array_equal(ranking.results.errors, load_results(by_hand).errors)
    assert ranking.missing.n_imputed == 13
    assert "13 imputed with constantpredictor's error on the same fold" in ranking.notes[0]


def test_worst_equals_ranking_a_file_imputed_by_hand(bench):
    _, holes, failed, path = bench
    by_hand = holes.copy()
    for i in failed:
        row = holes.loc[i]
        same_fold = holes[(holes["dataset"] == row["dataset"]) & (holes["fold"] == row["fold"])]
        by_hand.loc[i, "error"] = same_fold["error"].max()   # NaN skipped: those that ran
    ranking = _rank(path, missing="worst")
    _same_ranking(ranking, _rank(by_hand))
    np.testing.assert_array_equal(ranking.results.errors, load_results(by_hand).errors)


def test_a_cell_that_cannot_be_imputed_leaves_its_data_set_out(bench):
    _, holes, failed, _ = bench
    holes.loc[(holes["dataset"] == "d6") & (holes["fold"] == 7)
              & (holes["algorithm"] == "constantpredictor"), "error"] = np.nan
    ranking = _rank(holes, missing="baseline:constantpredictor")
    assert ranking.missing.dropped == ("d6",)
    assert "d6" not in ranking.results.datasets
    assert "1 data set(s) left out: d6 (not imputable)" in ranking.notes[0]


def test_absent_rows_are_missing_results_too(bench):
    frame, _, _, _ = bench
    without = frame[~((frame["dataset"] == "d2") & (frame["algorithm"] == "rf"))]
    with pytest.raises(InputError, match=r"data set 'd2' has no results for algorithm\(s\) rf; "
                                         r"10 result\(s\) missing"):
        load_results(without)
    ranking = _rank(without, missing="drop")
    assert ranking.missing.dropped == ("d2",)


def test_partial_orders_the_complete_algorithms_of_each_data_set(bench):
    frame, _, _, path = bench
    ranking = _rank(path, missing="partial", second_pass="wilcoxon")
    d1 = ranking.dataset("d1")
    assert set(d1.order) == set(FRAMEWORKS) - {"h2o", "tpot"}
    assert np.isnan(d1.ranks["h2o"]) and np.isnan(d1.ranks["tpot"])
    # Each data set orders its complete algorithms as MultiTest on them alone would.
    alone = _rank(frame[frame["dataset"] == "d1"],
                  algorithms=[a for a in FRAMEWORKS if a not in ("h2o", "tpot")])
    assert d1.order == alone.final_order
    assert ranking.friedman is None
    gate = ranking.second_pass.gate_test
    positions = ranking.ranks_frame().to_numpy()
    assert gate.statistic == pytest.approx(skillings_mack(positions).statistic, rel=1e-12)
    assert gate.n_missing == 5 == ranking.missing.n_absent


def test_partial_on_complete_data_equals_the_friedman_gate(bench):
    frame, *_ = bench
    partial = _rank(frame, missing="partial", second_pass="wilcoxon")
    complete = _rank(frame, second_pass="wilcoxon")
    # Positions have no ties: Skillings-Mack is Friedman's chi-square (R friedman.test).
    assert partial.second_pass.gate_test.statistic == pytest.approx(
        complete.friedman.statistic, rel=1e-12)
    assert partial.final_order == complete.final_order
    np.testing.assert_array_equal(partial.second_pass.significant,
                                  complete.second_pass.significant)


@pytest.mark.parametrize("table, statistic", [(TABLE_1, 15.493049), (METRONOME, 13.28095)])
def test_partial_gives_the_worked_examples_statistic(table, statistic):
    # A score matrix (one value per data set and algorithm) with missing cells: each data
    # set orders the values it has, which are the worked examples' within-block ranks.
    table = np.asarray(table, dtype=float)
    frame = pd.DataFrame([(f"block{i}", f"t{j}", table[i, j]) for i in range(len(table))
                          for j in range(table.shape[1])], columns=["dataset", "algorithm",
                                                                    "error"])
    ranking = rank(frame, [f"t{j}" for j in range(table.shape[1])], missing="partial",
                   second_pass="wilcoxon")
    gate = ranking.second_pass.gate_test
    assert gate.statistic == pytest.approx(statistic, abs=1e-5)
    assert gate.df == table.shape[1] - 1
    assert "Skillings-Mack test" in ranking.second_pass.gate


def test_pairwise_tests_over_the_data_sets_where_both_ran():
    rng = np.random.default_rng(1)
    x = rng.uniform(size=(12, 4))
    x[:, 3] += 0.5
    holes = x.copy()
    holes[[2, 5], 1] = np.nan
    both = ~np.isnan(holes[:, 1])
    for method in ("wilcoxon", "wilcoxon-pratt", "wilcoxon-scipy", "sign"):
        ours = pairwise_over_datasets(holes, method=method, correction="none")
        alone = pairwise_over_datasets(x[both][:, [0, 1]], method=method, correction="none")
        assert ours.raw_pvalues[0, 1] == alone.raw_pvalues[0, 1]
        assert ours.statistic[0, 1] == alone.statistic[0, 1]
        complete = pairwise_over_datasets(x[:, [0, 2]], method=method, correction="none")
        assert ours.raw_pvalues[0, 2] == complete.raw_pvalues[0, 1]


def test_partial_prior_is_the_average_cost_where_each_ran(bench):
    _, holes, _, _ = bench
    costs = {d: {a: float(j + 1 + (a == "tpot") * 10 * (d == "d1"))
                 for j, a in enumerate(FRAMEWORKS)} for d in holes["dataset"].unique()}
    ranking = _rank(holes, costs, missing="partial", second_pass="sign")
    tpot = FRAMEWORKS.index("tpot")
    # tpot costs 17 on d1, where it did not run, and 7 elsewhere.
    assert ranking.second_pass.average_costs[tpot] == pytest.approx(7.0)


@pytest.mark.parametrize("options, message", [
    ({"missing": "partial"}, "nemenyi is refused with missing='partial'"),
    ({"missing": "partial", "second_pass": "bayesian"}, "bayesian is refused"),
    ({"missing": "partial", "second_pass": "sign", "control": "rf"}, "`control`"),
    ({"missing": "baseline:knn"}, "baseline 'knn' is not an algorithm"),
    ({"missing": "mean"}, "`missing` must be one of error, drop, worst, baseline:NAME, partial"),
    ({"missing": "baseline:"}, "`missing` must be one of"),
])
def test_refused_with_one_line(bench, options, message):
    *_, path = bench
    with pytest.raises(MultitestError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _rank(path, **options)


def test_partial_refuses_an_algorithm_that_never_completed(bench):
    _, holes, _, _ = bench
    holes.loc[(holes["algorithm"] == "rf") & (holes["fold"] == 1), "error"] = np.nan
    with pytest.raises(InputError, match=r"algorithm\(s\) rf have no data set with every fold"):
        _rank(holes, missing="partial", second_pass="sign")


@pytest.mark.parametrize("policy", ["drop", "worst", "baseline:constantpredictor", "partial"])
def test_cli_states_the_policy_in_every_output(bench, tmp_path, capsys, policy):
    *_, path = bench
    out = tmp_path / "out"
    extra = ["--second-pass", "wilcoxon"] if policy == "partial" else []
    status = main(["rank", path, "--order", ORDER, "--test", TEST, "--missing", policy,
                   "--out", str(out)] + extra)
    printed = capsys.readouterr().out
    assert status == 0
    assert f"Note: missing results: policy {policy}; 13 missing" in printed
    doc = json.loads((out / "result.json").read_text())
    assert doc["missing"]["policy"] == policy and doc["missing"]["n_missing"] == 13
    assert doc["notes"][0] == doc["missing"]["sentence"]
    if policy == "partial":
        assert doc["missing"]["skillings_mack"]["df"] == len(FRAMEWORKS) - 1
        assert doc["friedman"] is None
        assert doc["datasets"]["d1"]["ranks"]["h2o"] is None
        orders = pd.read_csv(out / "orders.csv", keep_default_na=False)
        assert (orders.loc[orders["dataset"] == "d1", "position_7"] == "").all()
        # Only the pairs tested: d1 orders 5 algorithms (10 pairs), the others 7 or 6.
        pairs = pd.read_csv(out / "pairwise.csv")
        assert (pairs["dataset"] == "d1").sum() == 10 == len(doc["datasets"]["d1"]["pairwise"])
        assert pairs["statistic"].notna().all()
        assert len(pairs) == sum(len(d["pairwise"]) for d in doc["datasets"].values())


def test_partial_figures_and_report_name_the_skillings_mack_gate(bench, tmp_path):
    *_, path = bench
    if shutil.which("dot") is None:
        pytest.skip("Graphviz 'dot' is needed for the SVG figures")
    out = tmp_path / "out"
    assert main(["rank", path, "--order", ORDER, "--test", TEST, "--missing",
                 "partial", "--second-pass", "wilcoxon", "--out", str(out), "--format", "svg",
                 "--report"]) == 0
    # the Wilcoxon second pass tested mean errors: the diagram draws error ranks
    import xml.etree.ElementTree as ET

    words = " ".join(" ".join(t.text or "" for t in ET.parse(out / "cd.svg").getroot().iter(
        "{http://www.w3.org/2000/svg}text")).split())
    assert "average error ranks (rank of the mean error on each data set, 1 = lowest) over " \
           "the data sets where each ran (8 data sets, missing='partial'" in words
    # d1 orders the 5 algorithms with every fold; its figures draw no other node.
    override = re.sub(r"<[^>]+>", "", (out / "override_d1.svg").read_text())
    assert "h2o" not in override and "tpot" not in override and "autogluon" in override
    report = (out / "report.html").read_text()
    assert "<h2>Skillings–Mack test and gate</h2>" in report
    assert "A single data set" not in report


def test_cli_default_is_the_one_line_error(bench, capsys):
    *_, path = bench
    status = main(["rank", path, "--order", ORDER, "--test", TEST])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "13 result(s) missing" in err


def test_stability_applies_the_policy_before_resampling(bench):
    from multitest import stability

    frame, holes, _, _ = bench
    dropped = stability(holes, FRAMEWORKS, test=TEST, missing="drop", bootstrap=50)
    complete = stability(frame[~frame["dataset"].isin(["d1", "d4", "d6"])], FRAMEWORKS,
                         test=TEST, bootstrap=50)
    assert dropped.reference_order == complete.reference_order
    np.testing.assert_array_equal(dropped.position_frame().to_numpy(),
                                  complete.position_frame().to_numpy())
    with pytest.raises(MultitestError, match="^`missing`: the stability bootstrap needs"):
        stability(holes, FRAMEWORKS, test=TEST, missing="partial", second_pass="sign")


def test_pair_columns_under_partial_are_the_pairs_of_the_complete_algorithms(bench):
    # pair_columns() (which pairs() lists row by row) against the pairwise table of the
    # outputs, built from the run's arrays by other code: under 'partial' each data set
    # lists the pairs of its complete algorithms only, in the table's order.
    from multitest.outputs._tables import pairwise_frame

    *_, path = bench
    ranking = _rank(path, missing="partial", second_pass="wilcoxon")
    frame = pairwise_frame(ranking)
    frame = frame[frame["mean_error_a"].notna() & frame["mean_error_b"].notna()]
    for r in ranking.datasets:
        columns = r.pair_columns()
        expected = frame[frame["dataset"] == r.name]
        assert len(expected) == columns["a"].size > 0
        for key, values in columns.items():
            assert values.tolist() == expected[key].tolist(), (r.name, key)
        assert r.pairs() == [dict(zip(columns, row))
                             for row in zip(*(c.tolist() for c in columns.values()))]
    d1 = ranking.dataset("d1").pair_columns()
    assert {"h2o", "tpot"}.isdisjoint({*d1["a"], *d1["b"]}) and d1["a"].size == 10   # 5 x 4 / 2
