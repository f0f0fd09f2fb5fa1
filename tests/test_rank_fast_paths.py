"""Tests of the faster paths of rank (issue 20, end to end): each against an independent
reference (scipy, numpy's take_along_axis, the inverse permutation)."""
import numpy as np
import pytest
from scipy.stats import rankdata

from multitest.engine._per_dataset import DataSetOrders, _cost_ordered_sorts
from multitest.engine._stage1 import PairwiseTable, _Stage1
from multitest.inputs import FoldDesign
from multitest.stats import get_test
from multitest.stats._friedman import rank_rows, rank_tie_terms


@pytest.mark.parametrize("dtype", [np.int64, float])
def test_rank_matrix_of_complete_orders_is_the_inverse_permutation(dtype):
    # Reference: the rank of algorithm a is 1 + its place in the order (argsort of the
    # order, numpy), for every row and every slice of rows.
    rng = np.random.default_rng(3)
    order = np.argsort(rng.random((57, 13)), axis=1).astype(np.int16)
    orders = DataSetOrders(costs=np.zeros(order.shape), order=order, scores=None,
                           partial=False)
    expected = np.argsort(order, axis=1) + 1
    for rows in (slice(None), slice(5, 9), slice(50, 80), slice(3, 3)):
        got = orders.rank_matrix(rows, dtype=dtype)
        assert got.dtype == np.dtype(dtype) and np.array_equal(got, expected[rows])


def test_rank_rows_equal_rankdata_on_tied_rows_and_keep_nan_rows_as_before():
    # Reference: scipy.stats.rankdata(axis=1) (average ranks) on rows heavy with ties,
    # zeros of both signs and infinities; rows with NaN ranked as the stable sort did
    # (each NaN apart, in input order, after the numbers).
    rng = np.random.default_rng(5)
    values = rng.choice([0.1, 0.2, 0.3, -0.0, 0.0, np.inf, -np.inf], size=(200, 17))
    assert np.array_equal(rank_rows(values), rankdata(values, axis=1))
    with_nan = np.array([[np.nan, 0.5, np.nan, 0.5, 0.1]])
    assert rank_rows(with_nan).tolist() == [[4.0, 2.5, 5.0, 2.5, 1.0]]
    # tie terms: a block without ties (permutations) is all zeros; with ties, counted
    assert np.array_equal(rank_tie_terms(np.argsort(rng.random((40, 9)), axis=1) + 1.0),
                          np.zeros(40))
    assert rank_tie_terms(np.array([[1.5, 1.5, 3, 4], [1, 2, 3, 4]])).tolist() == [6.0, 0.0]


@pytest.mark.parametrize("contiguous", [True, False])
def test_errors_in_prior_order_equal_take_along_axis(contiguous):
    # Reference: numpy.take_along_axis of the errors by the prior, for any range of data
    # sets, whether the errors are one C-ordered block or a strided view.
    rng = np.random.default_rng(11)
    errors = rng.random((30, 7, 10))
    if not contiguous:
        errors = np.asfortranarray(errors)
    prior = np.argsort(rng.random((30, 7)), axis=1)
    stage = _Stage1(errors, prior, get_test("combined-5x2cv-f"), FoldDesign(5, 2),
                    correction="none", alternative="two-sided")
    for s0, s1 in ((0, 30), (4, 17), (29, 30)):
        assert np.array_equal(stage.in_prior(s0, s1),
                              np.take_along_axis(errors[s0:s1], prior[s0:s1, :, None], axis=1))


@pytest.mark.parametrize("L", [2, 9, 130])
def test_cost_ordered_sorts_take_the_cheapest_unbeaten_node(L):
    # Reference: the rule stepped one data set at a time in plain Python (take the
    # cheapest remaining node that no remaining node beats), on random acyclic graphs
    # (edges only from cheaper to costlier); L = 130 counts in int16.
    rng = np.random.default_rng(L)
    S = 6
    cheaper, costlier = np.triu_indices(L, k=1)
    override = rng.random((S, cheaper.size)) < 0.3
    table = PairwiseTable(prior=np.tile(np.arange(L), (S, 1)), cheaper=cheaper, costlier=costlier,
                          statistic=None, pvalue=None, pvalue_adjusted=None,
                          override=override, mean_errors=np.zeros((S, L)))
    got = _cost_ordered_sorts(table)
    for s in range(S):
        beats = {(int(i), int(j)) for i, j, o in zip(cheaper, costlier, override[s]) if o}
        remaining, expected = list(range(L)), []
        while remaining:
            node = next(n for n in remaining
                        if not any((n, m) in beats for m in remaining))
            expected.append(node)
            remaining.remove(node)
        assert got[s].tolist() == expected


@pytest.mark.parametrize("array", [
    np.random.default_rng(0).random((40, 7, 10)), np.array([2], dtype=np.int32),
    np.asarray(["ds1", "dataset é"], dtype=str), np.empty((0, 3)),
    np.packbits(np.random.default_rng(1).random(999) < 0.5),
    np.arange(12, dtype=np.uint16).reshape(3, 4)])
def test_npy_members_are_the_bytes_of_write_array(array, monkeypatch):
    # Reference: numpy.lib.format.write_array into a file-like object, byte for byte
    # (chunks of 64 bytes here: the data handed over in several views).
    import io

    from multitest.outputs import _pairwise_file

    monkeypatch.setattr(_pairwise_file, "_NPY_CHUNK", 64)
    ours, numpys = io.BytesIO(), io.BytesIO()
    _pairwise_file._write_npy(ours, array)
    np.lib.format.write_array(numpys, array, allow_pickle=False)
    assert ours.getvalue() == numpys.getvalue()


@pytest.mark.parametrize("cells", [1, 7, 1 << 20])
def test_pair_differences_are_the_two_gathers_bit_for_bit(cells):
    # Reference: scores[:, a] - scores[:, b] of every pair (numpy), compared by bit
    # pattern (NaN, infinities, -0.0): pairs in runs of one first algorithm (the
    # triangle, in a permuted order) and pairs in no order.
    from multitest.stats._posthoc import _pair_differences

    rng = np.random.default_rng(2)
    scores = rng.choice([0.1, 0.25, np.nan, np.inf, -0.0, 0.0, 1e-300], (23, 9))
    i, j = np.triu_indices(9, k=1)
    perm = rng.permutation(9)
    with np.errstate(invalid="ignore"):
        for a, b in ((perm[i], perm[j]), (rng.integers(0, 9, 40), rng.integers(0, 9, 40))):
            got = np.concatenate([d for _, d in _pair_differences(scores, a, b, cells)])
            expected = (scores[:, a] - scores[:, b]).T
            assert np.array_equal(got.view(np.uint64), expected.view(np.uint64))
