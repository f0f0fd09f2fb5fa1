"""Tests of multitest.engine._frames: the ranking as DataFrames (Ranking.to_frame,
pairwise_frame, posthoc_frame, DataSetResult.to_frame) and print(ranking)."""
import numpy as np
import pandas as pd
import pytest
from cli_helpers import run_cli

from multitest import example_path, rank
from multitest.outputs import write_outputs
from multitest.outputs._summary import summary_text


@pytest.fixture(scope="module")
def ranking(example):
    return rank(example, "training_time", second_pass="wilcoxon")


@pytest.fixture(scope="module")
def written(ranking, tmp_path_factory):
    out = tmp_path_factory.mktemp("frames")
    write_outputs(ranking, out)
    return out


def test_to_frame_is_the_final_order_and_equals_final_order_csv(ranking, written):
    frame = ranking.to_frame()
    assert list(frame["algorithm"]) == list(ranking.final_order)
    assert list(frame["position"]) == list(range(1, 9))
    csv = pd.read_csv(written / "final_order.csv")
    pd.testing.assert_frame_equal(frame[list(csv.columns)], csv, check_exact=True)
    assert list(frame.columns) == ["position", "algorithm", "average_position",
                                   "average_error_rank", "average_cost", "cost_unit",
                                   "first_on", "reason"]


def test_to_frame_numbers_against_the_per_dataset_tables(ranking, example_frame):
    # Reference: the average positions from ranks_frame, the first places counted from
    # each data set's order, the average costs from the bundled cost table (pandas),
    # the average error ranks ranked again by pandas from the per-fold CSV.
    frame = ranking.to_frame().set_index("algorithm")
    np.testing.assert_allclose(frame["average_position"],
                               ranking.ranks_frame().mean()[frame.index], rtol=1e-12)
    firsts = pd.Series([r.order[0] for r in ranking.datasets]).value_counts()
    assert frame["first_on"].to_dict() == {a: int(firsts.get(a, 0)) for a in frame.index}
    means = example_frame.assign(error=100 - example_frame["accuracy"]).groupby(
        ["dataset", "algorithm"])["error"].mean().unstack()
    error_ranks = means.rank(axis=1).mean()
    np.testing.assert_allclose(frame["average_error_rank"], error_ranks[frame.index],
                               rtol=1e-12)
    sp = ranking.second_pass
    np.testing.assert_allclose(frame["average_cost"],
                               pd.Series(sp.average_costs, index=ranking.algorithms)[frame.index])
    assert set(frame["cost_unit"]) == {ranking.profile.unit}
    assert frame["reason"].str.len().max() < 80


def test_reason_phrase_agrees_with_the_explanations(ranking):
    for reason, explanation in zip(ranking.to_frame()["reason"], ranking.explanations):
        significant = [c for c in explanation.comparisons if c.significant]
        assert ("significant" in reason.replace("no significant", "")) == bool(significant)


def test_pairwise_frame_equals_pairwise_csv(ranking, written):
    frame = ranking.pairwise_frame()
    csv = pd.read_csv(written / "pairwise.csv")
    assert list(frame.columns) == list(csv.columns)
    pd.testing.assert_frame_equal(frame.reset_index(drop=True), csv, check_dtype=False,
                                  rtol=1e-12)
    assert {"pvalue", "pvalue_adjusted", "estimate", "ci_low", "ci_high"} <= set(frame)


def test_posthoc_frame_labels_each_pair_and_agrees_with_posthoc_csv(ranking, written):
    frame = ranking.posthoc_frame()
    assert len(frame) == 28
    assert (frame["pvalue"] >= frame["pvalue_raw"] - 1e-15).all()   # Holm adjusts upwards
    csv = pd.read_csv(written / "posthoc.csv")
    by_pair = {frozenset(p): row for p, row in zip(zip(csv["a"], csv["b"]), csv.itertuples())}
    for row in frame.itertuples():
        ref = by_pair[frozenset((row.a, row.b))]
        assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        assert row.statistic == pytest.approx(ref.statistic)
        assert row.significant == ref.significant
    # the effect columns are effect_sizes.csv's, pair by pair
    effects = pd.read_csv(written / "effect_sizes.csv")
    np.testing.assert_allclose(frame["hodges_lehmann"], effects["hodges_lehmann"])
    assert list(frame["a"]) == list(effects["a"])


def test_posthoc_frame_raw_pvalue_is_scipy_wilcoxon(ranking, example_frame):
    # Reference: scipy.stats.wilcoxon on the mean errors over the 38 data sets.
    from scipy.stats import wilcoxon

    means = example_frame.assign(error=100 - example_frame["accuracy"]).groupby(
        ["dataset", "algorithm"])["error"].mean().unstack()
    row = ranking.posthoc_frame().iloc[0]
    d = means[row.a] - means[row.b]
    assert row.pvalue_raw == pytest.approx(wilcoxon(d[d != 0]).pvalue, rel=1e-6)


def test_posthoc_frame_without_second_pass_is_empty_with_columns(example):
    single = rank(example, "training_time", datasets=["optdigits"])
    frame = single.posthoc_frame()
    assert frame.empty and list(frame.columns)[:6] == ["a", "b", "statistic", "pvalue",
                                                       "pvalue_raw", "significant"]
    assert list(single.to_frame()["algorithm"]) == list(single.final_order)


def test_dataset_frame_is_the_order_of_one_data_set(ranking, example_frame):
    result = ranking.dataset("optdigits")
    frame = result.to_frame()
    assert list(frame["algorithm"]) == list(result.order)
    rows = example_frame[example_frame["dataset"] == "optdigits"]
    means = 100 - rows.groupby("algorithm")["accuracy"].mean()
    np.testing.assert_allclose(frame["mean_error"], means[frame["algorithm"]], rtol=1e-12)
    assert frame["overrides"].sum() == frame["overridden_by"].sum() == len(result.edges())
    pairs = result.pairwise_frame()
    assert len(pairs) == 28 and pairs["override"].sum() == len(result.edges())


def test_print_ranking_prints_the_cli_summary(ranking):
    assert str(ranking) == summary_text(ranking)
    assert len(repr(ranking)) < 200 and "\n" not in repr(ranking)
    code, stdout, _ = run_cli("rank", example_path(), "--costs", "training_time",
                              "--second-pass", "wilcoxon")
    assert code == 0
    assert stdout.startswith(str(ranking))
