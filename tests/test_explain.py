"""Explanations of the order (multitest.engine._explain); transitive reduction
(multitest.engine._reduction)."""
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from multitest import load_profile, profile_from_order, rank
from multitest._errors import MultitestError
from multitest.engine import cost_ordered_sort, transitive_reduction
from multitest.engine._second_pass import order_by_decisions
from multitest.engine._ordering import overrides_from_decisions
from multitest.engine._explain import (
    cost_unit_sentence,
    explain_order,
    explain_sort,
    friedman_power,
    ordinal,
)

# -- the worked examples of docs/method.md §5 (docs/method.md §5) -----------------------------

def _decisions(prior, significant_pairs, ranks):
    """``differs`` and ``better`` matrices in prior order from named decisions."""
    index = {a: i for i, a in enumerate(prior)}
    differs = np.zeros((len(prior),) * 2, dtype=bool)
    for a, b in significant_pairs:
        differs[index[a], index[b]] = differs[index[b], index[a]] = True
    r = np.array([ranks[a] for a in prior])
    return differs, r[:, None] < r[None, :]


def test_worked_example_one():
    # Prior C < A < D < B; average ranks A < B < C < D; A-C, A-D, B-D differ:
    # edges C -> A, D -> B; final order A, C, B, D (docs/method.md §5, first example).
    ranks = {"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0}
    pairs = [("A", "C"), ("A", "D"), ("B", "D")]
    order, edges = order_by_decisions("CADB", pairs, ranks)
    assert order == tuple("ACBD") and sorted(edges) == [("C", "A"), ("D", "B")]
    p = {frozenset("AC"): 0.01, frozenset("BD"): 0.02, frozenset("CB"): 0.6,
         frozenset("AB"): 0.3, frozenset("AD"): 0.03, frozenset("CD"): 0.4}
    differs, better = _decisions("CADB", pairs, ranks)
    why = explain_sort(order, "CADB", edges, lambda a, b: p.get(frozenset((a, b))),
                       differs=differs, better=better)
    assert [e.sentence for e in why] == [
        "A is 1st: A is significantly better than the cheaper C (p = 0.01); no costlier "
        "algorithm placed after A is significantly better than it (none of them is better, "
        "even without significance).",
        "C is 2nd: the cheapest; the costlier A (p = 0.01) is significantly better than C; no "
        "costlier algorithm placed after C is significantly better than it (closest: B, "
        "p = 0.6).",
        "B is 3rd: B is not significantly better than the cheaper A (p = 0.3) and C (p = 0.6), "
        "so the cost order puts them first; B is significantly better than the cheaper D "
        "(p = 0.02).",
        "D is 4th: the costlier B (p = 0.02) is significantly better than D; the cheaper A "
        "(p = 0.03) is significantly better than D; D is not significantly better than the "
        "cheaper C (p = 0.4), so the cost order puts it first.",
    ]


def test_worked_example_two():
    # Prior A < B < C; ranks C < A < B; C differs from A and B: edges A -> C, B -> C,
    # final order C, A, B (docs/method.md §5, second example).
    order, edges = order_by_decisions("ABC", [("A", "C"), ("B", "C")],
                                      {"C": 1.0, "A": 2.0, "B": 3.0})
    assert order == tuple("CAB")
    why = explain_sort(order, "ABC", edges)
    assert [e.reason for e in why] == [
        "C is significantly better than the cheaper A and B",
        "the cheapest; the costlier C is significantly better than A; no costlier algorithm "
        "placed after A is significantly better than it",
        "the costlier C is significantly better than B; B is not significantly better than "
        "the cheaper A, so the cost order puts it first"]


def test_a_cheaper_one_placed_later_names_the_costlier_one_it_waited_for():
    # Prior A < B < C; C beats A only: A waits for C, B is the cheapest free one: the
    # order is B, C, A.  B's sentence says A comes later because C beats it.
    p = {frozenset("AC"): 0.01}
    why = explain_sort("BCA", "ABC", [("A", "C")], lambda a, b: p.get(frozenset((a, b))))
    assert why[0].reason == (
        "the cheaper A (p = 0.01) comes later: the costlier C, placed after B, is "
        "significantly better than it; no costlier algorithm placed after B is significantly "
        "better than it")
    # C was placed before A while A waited; B, costlier than A, came first meanwhile.
    assert "the costlier B comes before A while an algorithm significantly better than A " \
        "was still to be placed" in why[2].reason


def _random_decisions(rng, L, alpha=0.05):
    """Decisions as a post-hoc test gives them: significant iff p < alpha; a direction."""
    pvalues = np.triu(rng.random((L, L)) ** 3, 1)
    pvalues = pvalues + pvalues.T + np.eye(L)
    scores = rng.permutation(L).astype(float)
    better = scores[:, None] < scores[None, :]
    return pvalues, pvalues < alpha, better


def _check_consistent(why, pvalues, differs, better, prior, alpha=0.05):
    """Every comparison agrees with the decisions and the numbers beside it."""
    index = {a: i for i, a in enumerate(prior)}
    for e in why:
        assert "more)" not in e.reason            # every name, none hidden
        for c in e.comparisons:
            i, j = index[c.subject], index[c.other]
            assert c.pvalue == pvalues[i, j]
            if c.significant:
                assert differs[i, j] and better[i, j] and c.pvalue < alpha
            else:
                assert not differs[i, j] and c.pvalue >= alpha
        # No "not significantly" clause carries a p-value below alpha.
        for clause in e.reason.split("; "):
            if " not " in clause or clause.startswith("no "):
                for text in clause.split("p = ")[1:]:
                    assert float(text.split(")")[0].split(",")[0]) >= alpha, clause


def test_every_sentence_agrees_with_the_decisions():
    # Property: over random decisions, each comparison a sentence states is the test's
    # decision (significant: p < alpha, the direction of `better`; not: p >= alpha), and
    # every algorithm cheaper than a and placed before it is named in a's sentence.
    rng = np.random.default_rng(0)
    for _ in range(200):
        L = int(rng.integers(2, 9))
        names = [f"a{i}" for i in range(L)]
        pvalues, differs, better = _random_decisions(rng, L)
        overrides = overrides_from_decisions(np.arange(L), differs, better)
        order = [names[k] for k in cost_ordered_sort(overrides)]
        why = explain_sort(order, names, overrides, pvalues, differs=differs, better=better)
        # The override matrix and the list of edges say the same.
        edges = [(names[i], names[j]) for i, j in zip(*np.nonzero(overrides))]
        assert [e.reason for e in explain_sort(order, names, edges, pvalues, differs=differs,
                                               better=better)] == [e.reason for e in why]
        _check_consistent(why, pvalues, differs, better, names)
        for k, e in enumerate(why):
            stated = {c.other if c.subject == e.algorithm else c.subject for c in e.comparisons}
            cheaper_before = {a for a in order[:k] if names.index(a) < names.index(e.algorithm)}
            assert cheaper_before <= stated


@pytest.mark.parametrize("second_pass", ["nemenyi", "wilcoxon", "sign", "bayesian"])
def test_explain_order_agrees_with_the_post_hoc_test(example, second_pass):
    r = rank(example, "training_time", second_pass=second_pass)
    sp = r.second_pass
    index = np.array([sp.algorithms.index(a) for a in sp.prior_order])
    sub = np.ix_(index, index)
    _check_consistent(explain_order(r), sp.posthoc.pvalues[sub], sp.significant[sub],
                      sp.better[sub], sp.prior_order, alpha=sp.alpha)


@pytest.mark.parametrize("test", ["combined-5x2cv-f", "5x2cv-t", "wilcoxon", "sign"])
def test_explain_order_single_data_set_agrees_with_its_tests(example, test):
    r = rank(example, "training_time", datasets=["optdigits"], test=test)
    d = r.datasets[0]
    prior = list(d.prior_order)
    L = len(prior)
    pvalues = np.ones((L, L))
    for q in d.pairs():
        i, j = prior.index(q["a"]), prior.index(q["b"])
        pvalues[i, j] = pvalues[j, i] = q["pvalue_adjusted"]
    means = np.array([d.mean_errors[a] for a in prior])
    _check_consistent(explain_order(r), pvalues, pvalues < 0.05,
                      means[:, None] < means[None, :], prior)


def test_explain_order_bundled_example(example):
    r = rank(example, "training_time")
    why = explain_order(r)
    assert [e.algorithm for e in why] == list(r.final_order)
    assert why[0].sentence.startswith("5nn is 1st: the cheapest; no costlier algorithm placed "
                                      "after 5nn is significantly better on average position")
    # The example, turned true: sv2 is 7th because the cheaper 5nn, c45 and lnp are
    # significantly better on average position (Nemenyi p-values of the run).
    sp = r.second_pass
    i, j = sp.algorithms.index("5nn"), sp.algorithms.index("sv2")
    assert why[6].algorithm == "sv2"
    assert (f"the cheaper 5nn (p = {sp.posthoc.pvalues[i, j]:.2g}), c45" in why[6].reason)
    assert "are significantly better on average position than sv2" in why[6].reason


def test_explain_order_gate_closed_says_cost_order(example):
    r = rank(example, "training_time", datasets=["optdigits", "iris", "wine", "zoo", "car"])
    assert not r.second_pass.applied
    why = explain_order(r)
    assert all("Friedman test on average positions does not reject" in e.reason for e in why)
    assert why[0].reason.startswith("the cheapest on average")
    assert [e.algorithm for e in why] == list(r.second_pass.prior_order)


def test_explain_order_single_data_set(example):
    r = rank(example, "training_time", datasets=["optdigits"])
    why = explain_order(r)
    # docs/method.md §4: svr first; it is significantly more accurate than the cheaper 5nn.
    assert why[0].algorithm == "svr"
    assert why[0].reason.startswith("svr is significantly more accurate than the cheaper 5nn")


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
    from multitest.outputs._summary import summary_text
    from multitest.outputs._json import to_dict

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


def test_explain_sort_refuses_an_order_the_sort_did_not_give():
    # Prior A < B, no edge: the sort gives A, B; B, A cannot be explained.
    with pytest.raises(MultitestError, match="not the cost-ordered sort"):
        explain_sort("BA", "AB", [])


def test_score_matrix_of_one_data_set_is_explained_by_its_values():
    frame = pd.DataFrame({"dataset": "d0", "algorithm": list("abcd"),
                          "error": [0.3, 0.1, 0.3, 0.2]})
    r = rank(frame, list("abcd"))
    assert [e.sentence for e in explain_order(r)] == [
        "b is 1st: its value 0.1 ranks 1 among the values (score-matrix input: one value per "
        "algorithm, no test is possible; equal values are ordered by cost).",
        "d is 2nd: its value 0.2 ranks 2 among the values (score-matrix input: one value per "
        "algorithm, no test is possible; equal values are ordered by cost).",
        "a is 3rd: its value 0.3 ranks 3.5 among the values (score-matrix input: one value "
        "per algorithm, no test is possible; equal values are ordered by cost).",
        "c is 4th: its value 0.3 ranks 3.5 among the values (score-matrix input: one value "
        "per algorithm, no test is possible; equal values are ordered by cost)."]


def test_explain_sort_blockers_are_the_first_costlier_beater_grouped_in_order():
    # The grouping of the cheaper algorithms placed later by the costlier one they wait
    # for, against its definition (one scan per algorithm, the O(L^3) step it replaced),
    # on random override matrices, sparse to dense.
    from multitest.engine._explain import _blocked

    rng = np.random.default_rng(3)
    for L, density in ((30, 0.1), (60, 0.5), (90, 0.9)):
        beats = rng.random((L, L)) < density
        first_beater = np.minimum.accumulate(np.where(beats, np.arange(L), L)[:, ::-1],
                                             axis=1)[:, ::-1]
        for k in range(L):
            later = np.flatnonzero(beats[:, k:].any(axis=1))
            later = later[later > k]
            brute = np.array([k if beats[q, k] else k + 1 + np.flatnonzero(beats[q, k + 1:])[0]
                              for q in later], dtype=int)
            want = [(w, later[brute == w].tolist()) for w in dict.fromkeys(brute.tolist())]
            got = [(w, places.tolist()) for w, places in _blocked(later, first_beater[later, k])]
            assert got == want
