"""Tests of multitest.engine._ranking: MultiTest and Multi²Test end to end."""
import io

import numpy as np
import pandas as pd
import pytest
from helpers import make_frame

from multitest import MultitestError, UnknownTestError, rank
from multitest.outputs._json import to_dict

# docs/method.md section 4: optdigits, "row significantly more accurate than column".
OPTDIGITS_TABLE = """
alg c45 mdt mlp lnp svl sv2 svr 5nn
c45   0   0   0   0   0   0   0   0
mdt   1   0   0   0   0   0   0   0
mlp   1   1   0   1   0   0   0   0
lnp   1   0   0   0   0   0   0   0
svl   1   1   1   1   0   0   0   1
sv2   1   1   1   1   0   0   0   1
svr   1   1   1   1   0   0   0   1
5nn   1   1   0   1   0   0   0   0
"""


@pytest.fixture(scope="module")
def optdigits(example):
    return rank(example, "training_time", datasets=["optdigits"])


def test_optdigits_pairwise_table_matches_the_report(optdigits):
    expected = pd.read_csv(io.StringIO(OPTDIGITS_TABLE), sep=r"\s+", index_col="alg")
    got = pd.DataFrame(0, index=expected.index, columns=expected.columns)
    for pair in optdigits.datasets[0].pairs():
        if pair["pvalue"] < 0.05:
            a, b = pair["a"], pair["b"]
            winner, loser = (a, b) if pair["mean_error_a"] < pair["mean_error_b"] else (b, a)
            got.loc[winner, loser] = 1
    pd.testing.assert_frame_equal(got, expected)


def test_optdigits_order_ranks_and_graph(optdigits):
    # docs/method.md section 4: order svr, svl, sv2, 5nn, mlp, lnp, mdt, c45.
    result = optdigits.datasets[0]
    order = ("svr", "svl", "sv2", "5nn", "mlp", "lnp", "mdt", "c45")
    assert result.prior_order == ("5nn", "c45", "lnp", "mlp", "svr", "svl", "sv2", "mdt")
    assert result.order == order == optdigits.final_order
    assert [result.ranks[a] for a in order] == list(range(1, 9))
    graph = result.graph()
    assert list(graph.nodes) == list(result.prior_order)
    # Edges go cheaper -> costlier only, exactly where the costlier row has a 1 above.
    assert ("5nn", "svr") in graph.edges and ("mdt", "c45") not in graph.edges
    assert ("c45", "mdt") in graph.edges and ("5nn", "mlp") not in graph.edges
    edge = graph.edges["c45", "mdt"]
    assert edge["pvalue"] < 0.05 and edge["mean_error_to"] < edge["mean_error_from"]
    assert {"statistic", "pvalue", "mean_error_from", "mean_error_to"} <= set(edge)
    assert [s.taken for s in result.trace()] == list(order)
    assert "needs at least two" in " ".join(optdigits.notes)
    assert optdigits.friedman is None and optdigits.second_pass is None


def test_flare_identical_algorithms_are_not_different(example):
    # The report's flare data: c45, svl and sv2 have identical errors on every fold.
    result = rank(example, "training_time", datasets=["flare"]).datasets[0]
    identical = {"c45", "svl", "sv2"}
    pairs = [p for p in result.pairs() if {p["a"], p["b"]} <= identical]
    assert len(pairs) == 3
    for pair in pairs:
        assert pair["pvalue"] == 1.0 and pair["statistic"] == 0.0 and not pair["override"]


def test_constant_difference_is_a_defined_override():
    # b is 1/32 better than a on every fold (dyadic values, so the difference is exactly
    # constant): zero variance, non-zero mean -> F = inf, p = 0 by definition.
    a = np.arange(10) / 64 + 0.25
    frame = make_frame(np.stack([[a, a - 1 / 32]]), algorithms=["a", "b"])
    ranking = rank(frame, ["a", "b"])
    pair = ranking.datasets[0].pairs()[0]
    assert pair["statistic"] == np.inf and pair["pvalue"] == 0.0 and pair["override"]
    assert ranking.final_order == ("b", "a")
    doc = to_dict(ranking)
    assert doc["datasets"]["d0"]["pairwise"][0]["statistic"] == "inf"


def test_identical_errors_give_the_cost_order():
    errors = np.tile(np.linspace(0.1, 0.2, 10), (3, 4, 1))
    ranking = rank(make_frame(errors), ["a2", "a0", "a3", "a1"])
    assert ranking.final_order == ("a2", "a0", "a3", "a1")
    assert all(r.order == ("a2", "a0", "a3", "a1") for r in ranking.datasets)


def test_full_bundled_run_and_json_schema(example):
    ranking = rank(example, "training_time")
    doc = to_dict(ranking)
    assert doc["final_order"] == list(ranking.final_order)
    assert sorted(doc["final_order"]) == sorted(example.algorithms)
    assert set(doc["friedman"]) >= {"statistic", "pvalue", "iman_davenport_statistic",
                                    "iman_davenport_pvalue", "rejected"}
    assert set(doc["second_pass"]) >= {"method", "critical_difference", "significant",
                                       "pvalues", "prior_order", "average_costs", "edges"}
    assert len(doc["second_pass"]["pvalues"]) == 28
    optdigits = doc["datasets"]["optdigits"]
    assert set(optdigits) >= {"order", "ranks", "prior_order", "edges", "pairwise"}
    assert len(optdigits["pairwise"]) == 28
    assert set(optdigits["pairwise"][0]) >= {"a", "b", "statistic", "pvalue", "mean_error_a",
                                             "mean_error_b"}
    assert set(optdigits["edges"][0]) == {"from", "to", "statistic", "pvalue", "mean_difference",
                                          "estimate", "ci_low", "ci_high", "ci_low_open",
                                          "ci_high_open", "ci_level"}
    assert set(doc["settings"]) >= {"test", "alpha", "correction", "costs", "friedman_gate"}
    # Average ranks are the mean of the per-data-set ranks.
    ranks = np.array([[r.ranks[a] for a in example.algorithms] for r in ranking.datasets])
    np.testing.assert_allclose(list(doc["average_positions"].values()), ranks.mean(axis=0))


def test_friedman_statistic_against_scipy(example):
    from scipy.stats import friedmanchisquare

    ranking = rank(example, "space_complexity")
    ranks = ranking.ranks_frame().to_numpy()
    reference = friedmanchisquare(*ranks.T)   # no ties within a data set: same statistic
    assert ranking.friedman.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert ranking.friedman.pvalue == pytest.approx(reference.pvalue, rel=1e-9)


def test_corrections_reduce_overrides(example):
    counts = {c: int(rank(example, "training_time", correction=c).datasets[0].table
                     .override.sum()) for c in ("none", "holm", "bonferroni")}
    assert counts["bonferroni"] <= counts["holm"] <= counts["none"]
    assert counts["bonferroni"] < counts["none"]


def test_other_tests_and_one_sided(example):
    base = rank(example, "training_time", test="combined-5x2cv-t")
    one_sided = rank(example, "training_time", test="combined-5x2cv-t", alternative="greater")
    n_two = int(base.datasets[0].table.override.sum())
    n_one = int(one_sided.datasets[0].table.override.sum())
    assert n_one >= n_two   # one-sided p is half the two-sided p in the tested direction


def test_score_matrix_input():
    frame = pd.DataFrame({"dataset": np.repeat(["d1", "d2", "d3"], 3),
                          "algorithm": ["a", "b", "c"] * 3,
                          "error": [0.1, 0.2, 0.2, 0.3, 0.1, 0.2, 0.1, 0.3, 0.2]})
    ranking = rank(frame, ["c", "b", "a"])
    assert ranking.datasets[0].ranks == {"a": 1.0, "b": 2.5, "c": 2.5}   # ties: average ranks
    assert ranking.datasets[0].order == ("a", "c", "b")   # tie broken by cost: c cheaper
    assert ranking.settings.test == "none (score matrix)"
    assert any("no per-data-set test was possible" in n for n in ranking.notes)
    assert ranking.average_positions["a"] == pytest.approx((1 + 3 + 1) / 3)
    columns = ranking.datasets[0].pair_columns()    # no pairwise test: no pair
    assert ranking.datasets[0].pairs() == [] and all(c.size == 0 for c in columns.values())
    assert columns["a"].dtype == object and columns["override"].dtype == bool


def test_benavoli_example_nemenyi_versus_wilcoxon_and_sign():
    # Benavoli, Corani & Mangili (2016): 20 data sets; accuracies A 50 then 80, B 80 then 50,
    # C 55 then 45, D 60 then 85, E 65 then 90 (first ten, last ten).
    accuracy = {"A": (50, 80), "B": (80, 50), "C": (55, 45), "D": (60, 85), "E": (65, 90)}
    frame = pd.DataFrame([(f"d{i}", a, v[i >= 10]) for i in range(20)
                          for a, v in accuracy.items()],
                         columns=["dataset", "algorithm", "accuracy"])
    order = ["A", "B", "C", "D", "E"]
    nemenyi = rank(frame, order)
    # A: ranks 5 then 3 (mean 4); B: 1 then 4 (mean 2.5).
    assert nemenyi.average_positions["A"] - nemenyi.average_positions["B"] == pytest.approx(1.5)
    assert ("A", "B") in nemenyi.second_pass.significant_pairs()
    for method in ("wilcoxon", "sign"):
        other = rank(frame, order, second_pass=method)
        i, j = 0, 1
        assert other.second_pass.posthoc.pvalues[i, j] == 1.0
        assert other.second_pass.posthoc.raw_pvalues[i, j] == 1.0
        assert ("A", "B") not in other.second_pass.significant_pairs()
        assert other.second_pass.correction == "holm"


def test_control_comparisons(example):
    ranking = rank(example, "training_time", control="5nn")
    c = ranking.control
    assert ranking.algorithms[c.control] == "5nn" and not c.significant[c.control]
    doc = to_dict(ranking)
    assert doc["control"]["control"] == "5nn" and len(doc["control"]["comparisons"]) == 7


@pytest.mark.parametrize("kwargs, message", [
    ({"alpha": 0}, "`alpha` must be a number strictly between 0 and 1"),
    ({"alpha": "0.05"}, "`alpha`"),
    ({"correction": "fdr"}, "`correction` must be one of none, bonferroni, holm"),
    ({"second_pass": "tukey"}, "`second_pass` must be one of"),
    ({"control": "knn"}, "`control`: unknown algorithm 'knn'"),
    ({"algorithms": ["svr"]}, "at least 2 algorithms"),
    ({"datasets": ["optdigit"]}, "unknown name.*optdigit.*valid names"),
    ({"alternative": "greater"}, "`alternative`: test 'combined-5x2cv-f' has no one-sided"),
])
def test_bad_settings(example, kwargs, message):
    with pytest.raises(MultitestError, match=message):
        rank(example, "training_time", **kwargs)


def test_unknown_test_lists_valid_names(example):
    with pytest.raises(UnknownTestError, match="combined-5x2cv-f"):
        rank(example, "training_time", test="combined-5x2-f")


def test_5x2_test_on_10_fold_data():
    errors = np.random.default_rng(1).uniform(0.1, 0.2, (2, 3, 10))
    frame = make_frame(errors, replications=1)
    with pytest.raises(MultitestError, match="needs 5x2 cross-validation.*1 replication"):
        rank(frame, ["a0", "a1", "a2"])
    assert rank(frame, ["a0", "a1", "a2"], test="kfold-t").final_order


def test_cost_names_without_results_get_a_note(example):
    order = ["5nn", "c45", "lnp", "mlp", "mdt", "svl", "sv2", "svr", "knn", "rf"]
    ranking = rank(example, order)
    assert ("the cost profile 'order' names algorithm(s) without results, not used: knn, rf"
            in ranking.notes)
    # Every name used: no note; a selection of algorithms leaves the others out on purpose.
    assert not any("without results" in n for n in rank(example, order[:8]).notes)
    assert not any("without results" in n
                   for n in rank(example, "training_time", algorithms=["5nn", "svr"]).notes)
