"""Tests of multitest.engine._ordering: the cost-keyed topological sort and its trace."""
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from multitest import MultitestError
from multitest.engine import cost_ordered_sort
from multitest.engine._ordering import overrides_from_decisions, sort_trace

# docs/method.md section 4, optdigits: prior 5nn < c45 < lnp < mlp < svr < svl < sv2 < mdt and the
# table "row significantly more accurate than column"; only rows costlier than the column
# become edges (column -> row).
PRIOR = ["5nn", "c45", "lnp", "mlp", "svr", "svl", "sv2", "mdt"]
BETTER = {"mdt": ["c45"], "mlp": ["c45", "mdt", "lnp"], "lnp": ["c45"],
          "svl": ["c45", "mdt", "mlp", "lnp", "5nn"], "sv2": ["c45", "mdt", "mlp", "lnp", "5nn"],
          "svr": ["c45", "mdt", "mlp", "lnp", "5nn"], "5nn": ["c45", "mdt", "lnp"]}


def optdigits_overrides():
    position = {a: i for i, a in enumerate(PRIOR)}
    overrides = np.zeros((8, 8), dtype=bool)
    for row, beaten in BETTER.items():
        for column in beaten:
            if position[row] > position[column]:
                overrides[position[column], position[row]] = True
    return overrides


def test_optdigits_order_and_steps():
    overrides = optdigits_overrides()
    order = [PRIOR[i] for i in cost_ordered_sort(overrides)]
    assert order == ["svr", "svl", "sv2", "5nn", "mlp", "lnp", "mdt", "c45"]
    steps = sort_trace(overrides)
    named = [([PRIOR[i] for i in s.candidates], PRIOR[s.taken]) for s in steps]
    # docs/method.md: "the sinks are svl, sv2, svr and mdt, and svr is the cheapest of them; then
    # svl; then sv2; then 5nn, mlp and mdt are sinks and 5nn is cheapest; ..."
    assert named[0] == (["svr", "svl", "sv2", "mdt"], "svr")
    assert named[3] == (["5nn", "mlp", "mdt"], "5nn")
    assert named[5] == (["lnp", "mdt"], "lnp")
    assert [t for _, t in named] == order
    assert len(steps[0].remaining) == 8 and len(steps[-1].remaining) == 1


def test_agrees_with_networkx_lexicographical_topological_sort():
    overrides = optdigits_overrides()
    graph = nx.DiGraph()
    graph.add_nodes_from(range(8))
    graph.add_edges_from(zip(*np.nonzero(overrides)))
    reference = list(nx.lexicographical_topological_sort(graph.reverse(), key=lambda n: n))
    assert cost_ordered_sort(overrides).tolist() == reference


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.booleans(), min_size=n * n, max_size=n * n))))
def test_random_dags_match_networkx(case):
    n, bits = case
    overrides = np.triu(np.array(bits).reshape(n, n), k=1)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(zip(*np.nonzero(overrides)))
    reference = list(nx.lexicographical_topological_sort(graph.reverse(), key=lambda x: x))
    assert cost_ordered_sort(overrides).tolist() == reference


def test_no_edges_gives_the_prior():
    assert cost_ordered_sort(np.zeros((4, 4), bool)).tolist() == [0, 1, 2, 3]


def test_rejects_edges_against_the_cost_order():
    overrides = np.zeros((3, 3), bool)
    overrides[2, 0] = True
    with pytest.raises(MultitestError, match="cheaper to costlier"):
        cost_ordered_sort(overrides)
    with pytest.raises(MultitestError, match="square"):
        cost_ordered_sort(np.zeros((2, 3), bool))


def test_overrides_from_decisions_uses_positions():
    # Algorithms x, y, z with prior z < x < y; z differs from y and y is better.
    significant = np.zeros((3, 3), bool)
    significant[1, 2] = significant[2, 1] = True
    better = np.zeros((3, 3), bool)
    better[1, 2] = True
    out = overrides_from_decisions([1, 2, 0], significant, better)
    expected = np.zeros((3, 3), bool)
    expected[0, 2] = True   # position 0 (z) -> position 2 (y)
    np.testing.assert_array_equal(out, expected)
