"""What the public functions return is public: the result classes a user reads, and the
lower-level entry points agreeing with :func:`multitest.rank`."""

import json
import os

import numpy as np
import pytest

from multitest import example_results, load_profile, rank, stability
from multitest.engine import (
    Explanation,
    StabilityResult,
    decision_design,
    explain_order,
    multitest_per_dataset,
)
from multitest.figures import render_cd_errors, render_second_pass_result
from multitest.inputs import FoldDesign
from multitest.outputs import RunManifest, read_listed, read_run, write_outputs
from multitest.run import AlgorithmSpec, DatasetSpec, Experiment, RunResult, load_experiment
from multitest.stats import (
    ControlResult,
    CorrelatedTResult,
    FoldInterval,
    FriedmanResult,
    PairEffects,
    PosthocResult,
    SkillingsMackResult,
    WilcoxonInterval,
    control_comparisons,
    correlated_t,
    friedman,
    get_test,
    nemenyi,
    over_datasets,
    paired_intervals,
    skillings_mack,
    wilcoxon_interval,
)

RANKS = [[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3], [1, 2, 3]]


@pytest.fixture(scope="module")
def ranking():
    return rank(example_results(), "training_time", datasets=["iris", "wine", "zoo"])


def test_the_statistics_return_their_public_result_classes():
    errors = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    d = errors - (errors - 0.02)
    assert isinstance(friedman(RANKS), FriedmanResult)
    assert isinstance(nemenyi(RANKS), PosthocResult)
    assert isinstance(control_comparisons(np.array(RANKS), control=0), ControlResult)
    assert isinstance(skillings_mack([[1, 2, np.nan], [1, 3, 2], [2, 1, 3]]), SkillingsMackResult)
    assert isinstance(correlated_t(errors[0], errors[0] - 0.02, rho=0.5), CorrelatedTResult)
    assert isinstance(over_datasets(np.array(RANKS, dtype=float)), PairEffects)
    assert isinstance(wilcoxon_interval([1.5, 2.25, -0.5, 3.125]), WilcoxonInterval)
    interval = get_test("kfold-t").interval(d, np.zeros_like(d), FoldDesign(1, 10), 0.95)
    assert isinstance(interval, FoldInterval)


def test_paired_intervals_exclude_zero_exactly_when_the_signed_rank_test_rejects():
    # Six positive differences: the exact two-sided p-value is 2 / 2**6 = 0.03125.
    d = np.array([[0.01, 0.02, 0.03, 0.04, 0.05, 0.06]] * 2)
    _, low, high, *_ = paired_intervals(d, "wilcoxon", np.array([0.05, 0.01]))
    assert low[0] > 0 and low[1] <= 0 <= high[1]


def test_multitest_per_dataset_gives_the_orders_of_rank(ranking):
    results = example_results()
    keys = load_profile("training_time").keys(results.datasets, results.algorithms)
    design = decision_design(results.design)
    per_dataset = multitest_per_dataset(results, keys, get_test("combined-5x2cv-f"), alpha=0.05,
                                        correction="none", alternative="two-sided",
                                        design=design)
    orders = {result.name: result.order for result in per_dataset}
    for name in ("iris", "wine", "zoo"):
        assert orders[name] == ranking.dataset(name).order


def test_explanations_and_stability_are_their_public_classes(ranking):
    explanations = explain_order(ranking)
    assert all(isinstance(e, Explanation) for e in explanations)
    assert [e.algorithm for e in explanations] == list(ranking.final_order)
    result = stability(example_results(), "training_time", bootstrap=5,
                       datasets=["iris", "wine", "zoo"])
    assert isinstance(result, StabilityResult)


def test_a_folder_read_back_is_its_manifest_and_its_bytes(ranking, tmp_path):
    out = tmp_path / "out"
    write_outputs(ranking, out)
    manifest = read_run(out)
    assert isinstance(manifest, RunManifest) and "result.json" in manifest.files
    listed = read_listed(out, "result.json")
    assert listed == (out / "result.json").read_bytes()
    assert json.loads(listed)["final_order"] == list(ranking.final_order)


def test_the_error_cd_diagram_and_a_second_pass_graph_name_every_algorithm(ranking):
    for graph in (render_cd_errors(ranking), render_second_pass_result(ranking.second_pass)):
        assert all(name in graph.source for name in ranking.final_order)


def test_an_experiment_file_reads_into_its_specs(tmp_path):
    path = tmp_path / "experiment.yaml"
    path.write_text("datasets:\n  - sklearn: iris\nalgorithms:\n"
                    "  nb: {estimator: sklearn.naive_bayes.GaussianNB}\n"
                    "  tree: {estimator: sklearn.tree.DecisionTreeClassifier, "
                    "params: {max_depth: 3}}\n", encoding="utf-8")
    experiment = load_experiment(os.fspath(path))
    assert isinstance(experiment, Experiment)
    assert experiment.datasets == (DatasetSpec("iris", "sklearn", "iris"),)
    assert experiment.algorithms[1] == AlgorithmSpec("tree", "sklearn.tree.DecisionTreeClassifier",
                                                     {"max_depth": 3})


def test_a_run_result_summary_states_its_counts_and_the_data_sets_left_out():
    result = RunResult(out="exp", total=8, computed=5, reused=2, failed=1, lost=0,
                       datasets_ranked=("iris",), datasets_dropped=("wine",), seconds=2.0,
                       notes=())
    summary = result.summary()
    assert summary.startswith("8 folds: 5 computed, 2 from the store, 1 failed, 0 lost")
    assert "data sets with failed folds: wine" in summary
