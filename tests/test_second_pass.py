"""Tests of multitest.engine._second_pass: the second-pass rule, gate and prior."""
import numpy as np
import pytest

from multitest import MultitestError
from multitest.engine import second_pass
from multitest.engine._second_pass import order_by_decisions


def test_method_example_one():
    # docs/method.md section 5: prior C < A < D < B; average ranks A < B < C < D; Nemenyi finds
    # A-C, A-D and B-D different -> edges C -> A and D -> B; order A, C, B, D.
    order, edges = order_by_decisions("CADB", [("A", "C"), ("A", "D"), ("B", "D")],
                                      {"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0})
    assert order == ("A", "C", "B", "D")
    assert sorted(edges) == [("C", "A"), ("D", "B")]


def test_method_example_two():
    # docs/method.md section 5: prior A < B < C; ranks C < A < B; C differs from A and B.
    order, edges = order_by_decisions("ABC", [("C", "A"), ("C", "B")],
                                      {"C": 1.2, "A": 2.0, "B": 2.8})
    assert order == ("C", "A", "B")
    assert sorted(edges) == [("A", "C"), ("B", "C")]


def _keys(costs, S):
    return np.tile(np.asarray(costs, float), (1, S, 1))


def test_gate_closed_gives_the_average_cost_order():
    # Every data set ranks the algorithms identically 1..L except alternating: Friedman
    # statistic is 0 when all average ranks are equal -> no rejection.
    ranks = np.array([[1, 2, 3], [3, 2, 1]] * 5, dtype=float)
    fr, sp = second_pass(ranks, ranks, _keys([3, 1, 2], 10), ["a", "b", "c"])
    assert fr.statistic == pytest.approx(0) and not sp.applied
    assert sp.order == sp.prior_order == ("b", "c", "a")
    assert sp.edges() == [] and "not applied" in sp.gate


def test_gate_can_be_turned_off():
    # a is first on 6 of 10 data sets: Friedman does not reject at 0.05, but with the gate
    # off Nemenyi runs (and finds nothing at this sample size either).
    ranks = np.array([[1, 2, 3]] * 6 + [[3, 2, 1]] * 4, dtype=float)
    fr, sp = second_pass(ranks, ranks, _keys([3, 2, 1], 10), "abc", friedman_gate=False)
    assert fr.pvalue > 0.05 and sp.applied and sp.posthoc is not None
    assert "gate off" in sp.gate


def test_strong_winner_overrides_the_prior():
    # a always first, the most expensive: Nemenyi CD (L=3, S=20, alpha .05) = 2.343 *
    # sqrt(3*4/(6*20)) = 0.741 (Demsar 2006 Table 5a q_0.05 = 2.343); a's mean rank 1,
    # b and c 2.5 -> a differs from both and is better -> edges b -> a, c -> a.
    ranks = np.array([[1, 2, 3], [1, 3, 2]] * 10, dtype=float)
    fr, sp = second_pass(ranks, ranks, _keys([3, 1, 2], 20), "abc")
    assert sp.critical_difference == pytest.approx(2.343 * np.sqrt(12 / 120), abs=1e-3)
    assert sp.applied and sp.order == ("a", "b", "c")
    assert sorted(sp.edges()) == [("b", "a"), ("c", "a")]
    trace = sp.trace()
    assert [step.taken for step in trace] == ["a", "b", "c"]
    assert set(sp.graph().edges()) == {("b", "a"), ("c", "a")}


def test_unknown_method():
    with pytest.raises(MultitestError, match="`second_pass` must be one of nemenyi"):
        second_pass(np.ones((2, 2)), np.ones((2, 2)), _keys([1, 2], 2), "ab", method="tukey")
