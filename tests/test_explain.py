"""Explanations of the order (multitest.engine._explain); transitive reduction (multitest.engine._reduction)."""
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from multitest import load_profile, profile_from_order, rank
from multitest._errors import MultitestError
from multitest.engine import cost_ordered_sort, order_by_decisions, transitive_reduction
from multitest.engine._explain import (
    cost_unit_sentence,
    explain_order,
    explain_sort,
    friedman_power,
    ordinal,
)

# -- the worked examples of docs/method.md §5 (docs/method.md §5) -----------------------------

def test_worked_example_one():
    # Prior C < A < D < B; average ranks A < B < C < D; A-C, A-D, B-D differ:
    # edges C -> A, D -> B; final order A, C, B, D (docs/method.md §5, first example).
    ranks = {"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0}
    order, edges = order_by_decisions("CADB", [("A", "C"), ("A", "D"), ("B", "D")], ranks)
    assert order == tuple("ACBD") and sorted(edges) == [("C", "A"), ("D", "B")]
    p = {frozenset("AC"): 0.01, frozenset("BD"): 0.02, frozenset("CB"): 0.6,
         frozenset("AB"): 0.3}
    why = explain_sort(order, "CADB", edges, lambda a, b: p.get(frozenset((a, b))))
    assert [e.sentence for e in why] == [
        "A is 1st: it is significantly better than the cheaper C (p = 0.01).",
        "C is 2nd: the costlier A is significantly better (p = 0.01).",
        "B is 3rd: the cheaper C (and 1 more) comes first as B is not significantly better "
        "than it (p = 0.6); it is significantly better than the cheaper D (p = 0.02).",
        "D is 4th: the costlier B is significantly better (p = 0.02); the cheaper C (and 1 "
        "more) comes first as D is not significantly better than it.",
    ]


def test_worked_example_two():
    # Prior A < B < C; ranks C < A < B; C differs from A and B: edges A -> C, B -> C,
    # final order C, A, B (docs/method.md §5, second example).
    order, edges = order_by_decisions("ABC", [("A", "C"), ("B", "C")],
                                      {"C": 1.0, "A": 2.0, "B": 3.0})
    assert order == tuple("CAB")
    why = explain_sort(order, "ABC", edges)
    assert [e.reason for e in why] == [
        "it is significantly better than the cheaper A",
        "the costlier C is significantly better",
        "the costlier C is significantly better; the cheaper A comes first as B is not "
        "significantly better than it"]


def test_every_sentence_names_the_deciding_pair_of_the_sort():
    # Property: a "significantly better" claim is an edge of the graph; a
    # "comes first as ... not significantly better" claim is a pair without an edge.
    rng = np.random.default_rng(0)
    names = [f"a{i}" for i in range(7)]
    for _ in range(50):
        matrix = np.triu(rng.random((7, 7)) < 0.3, 1)
        edges = [(names[i], names[j]) for i, j in zip(*np.nonzero(matrix))]
        order = [names[k] for k in cost_ordered_sort(matrix)]
        # The override matrix in prior order says the same as the list of edges.
        assert explain_sort(order, names, matrix) == explain_sort(order, names, edges)
        for e in explain_sort(order, names, edges):
            for claim in e.reason.split("; "):
                if claim.startswith("the costlier") and claim.endswith("significantly better"):
                    winner = claim.split()[2].rstrip(",")
                    assert (e.algorithm, winner) in edges
                if "comes first as" in claim:
                    cheaper = claim.split()[2]
                    assert (cheaper, e.algorithm) not in edges
                    assert order.index(cheaper) < order.index(e.algorithm)


def test_explain_order_bundled_example(example):
    r = rank(example, "training_time")
    why = explain_order(r)
    assert [e.algorithm for e in why] == list(r.final_order)
    assert why[0].sentence == ("5nn is 1st: the cheapest, and nothing is significantly "
                               "better on average rank.")
    # p-value of the pair, from the Nemenyi matrix of the run.
    sp = r.second_pass
    i, j = sp.algorithms.index("lnp"), sp.algorithms.index("mlp")
    assert f"(p = {sp.posthoc.pvalues[i, j]:.2g})" in why[3].reason


def test_explain_order_gate_closed_says_cost_order(example):
    r = rank(example, "training_time", datasets=["optdigits", "iris", "wine", "zoo", "car"])
    assert not r.second_pass.applied
    why = explain_order(r)
    assert all("Friedman test does not reject" in e.reason for e in why)
    assert why[0].reason.startswith("the cheapest on average")
    assert [e.algorithm for e in why] == list(r.second_pass.prior_order)


def test_explain_order_single_data_set(example):
    r = rank(example, "training_time", datasets=["optdigits"])
    why = explain_order(r)
    # docs/method.md §4: svr first; it is significantly more accurate than the cheaper 5nn.
    assert why[0].algorithm == "svr"
    assert "significantly more accurate than the cheaper" in why[0].reason


def test_ordinal():
    assert [ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


def test_explain_sort_rejects_mismatched_names():
    with pytest.raises(MultitestError, match="same algorithms"):
        explain_sort("AB", "ABC", [])


# -- Friedman power ---------------------------------------------------------------------

def test_friedman_power_matches_scipy():
    # Reference: scipy.stats.friedmanchisquare on the rank matrix, chi2.ppf and ncx2.sf.
    # Untied ranks (MultiTest ranks are positions), 6 data sets x 5 algorithms.
    rng = np.random.default_rng(4)
    ranks = np.array([rng.permutation(5) + 1 for _ in range(6)], dtype=float)
    chi2 = stats.friedmanchisquare(*ranks.T).statistic
    power = friedman_power(ranks.mean(axis=0), 6, 0.05)
    assert power.statistic == pytest.approx(chi2, rel=1e-12)
    assert power.critical_value == pytest.approx(stats.chi2.ppf(0.95, 4), rel=1e-12)
    assert power.power == pytest.approx(stats.ncx2.sf(power.critical_value, 4,
                                                      power.statistic), rel=1e-9)


def test_friedman_data_sets_needed_by_replication():
    # Reference: scipy's Friedman chi-square of the data sets replicated k times (same
    # average ranks) is k times larger: linear in S, which the count relies on.
    ranks = np.array([[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4], [3, 1, 2, 4]], dtype=float)
    S = len(ranks)
    chi2 = stats.friedmanchisquare(*ranks.T).statistic
    for k in (2, 3, 5):
        assert stats.friedmanchisquare(*np.tile(ranks, (k, 1)).T).statistic == \
            pytest.approx(k * chi2, rel=1e-12)
    critical = stats.chi2.ppf(0.99, 3)
    assert chi2 < critical
    power = friedman_power(ranks.mean(axis=0), S, 0.01)
    n = power.datasets_needed
    assert n * chi2 / S > critical >= (n - 1) * chi2 / S
    # At 8 = 2 x 4 data sets (an exact replication) scipy agrees that it rejects.
    assert n <= 8 and stats.friedmanchisquare(*np.tile(ranks, (2, 1)).T).pvalue < 0.01


def test_friedman_power_no_effect_and_validation():
    power = friedman_power([2.0, 2.0, 2.0], 4, 0.05)
    assert power.datasets_needed is None and "no effect" in power.sentence(0.05)
    with pytest.raises(MultitestError, match="alpha"):
        friedman_power([1.0, 2.0], 3, 1.5)
    with pytest.raises(MultitestError, match="two algorithms"):
        friedman_power([1.0], 3, 0.05)


def test_few_data_sets_warning_in_outputs(example):
    from multitest.outputs import summary_text, to_dict

    r = rank(example, "training_time", datasets=["optdigits", "iris", "wine", "zoo", "car"])
    doc = to_dict(r)
    assert doc["explanations"]["friedman_power"]["datasets_needed"] > 5
    assert "Warning: With 5 data sets the Friedman test cannot reject" in summary_text(r)
    assert [p["algorithm"] for p in doc["explanations"]["positions"]] == list(r.final_order)


def test_cost_unit_sentence():
    assert "normalized training time" in cost_unit_sentence(load_profile("training_time"))
    assert "positions in the given order" in cost_unit_sentence(profile_from_order(["a", "b"]))


# -- transitive reduction ------------------------------------------------------------------

@st.composite
def override_dags(draw):
    n = draw(st.integers(1, 9))
    bits = draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    return np.triu(np.array(bits, dtype=bool).reshape(n, n), 1)


@settings(max_examples=300, deadline=None)
@given(override_dags())
def test_reduction_is_networkx_and_sorts_the_same(matrix):
    reduced = transitive_reduction(matrix)
    # Reference: networkx.transitive_reduction.
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(matrix)))
    graph.add_edges_from(zip(*np.nonzero(matrix)))
    expected = np.zeros_like(matrix)
    for a, b in nx.transitive_reduction(graph).edges():
        expected[a, b] = True
    assert (reduced == expected).all()
    # The cost-keyed sort takes the same order on the reduction (docs/method.md §4).
    assert (cost_ordered_sort(reduced) == cost_ordered_sort(matrix)).all()


def test_reduction_rejects_backward_edges():
    m = np.zeros((2, 2), bool)
    m[1, 0] = True
    with pytest.raises(MultitestError, match="upper triangular"):
        transitive_reduction(m)
