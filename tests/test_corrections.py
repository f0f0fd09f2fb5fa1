"""Tests of multitest.stats._corrections (adjusted p-values as R's p.adjust)."""
import doctest
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import multitest.stats._corrections
from multitest._errors import MultitestError
from multitest.stats import adjust_all_pairs, adjust_pvalues
from multitest.stats._corrections import CORRECTIONS

FIXTURES = Path(__file__).parent / "fixtures"

# Produced by tests/fixtures/corrections_r.R (R 4.2.2, stats::p.adjust).
R_TABLE = pd.read_csv(FIXTURES / "corrections_r.csv", comment="#")
R_FAMILIES = sorted(set(R_TABLE.case[R_TABLE.quantity == "p"]))


def _r_vector(case, quantity):
    rows = R_TABLE[(R_TABLE.case == case) & (R_TABLE.quantity == quantity)].sort_values("i")
    return rows.value.to_numpy()


@pytest.mark.parametrize("method", CORRECTIONS)
@pytest.mark.parametrize("family", R_FAMILIES)
def test_corrections_match_r_p_adjust(family, method):
    # Reference: R 4.2.2 p.adjust(p, method), tests/fixtures/corrections_r.R. The
    # arithmetic is the same, so the agreement is to the last bit or two.
    p = _r_vector(family, "p")
    assert_allclose(adjust_pvalues(p, method), _r_vector(family, method), rtol=1e-14, atol=0)


def test_corrections_fixture_covers_the_edge_cases():
    # The R fixture must keep its ties, ones, zeros and tiny values.
    assert {"ties7", "ones4", "tiny7", "single1", "pair2", "equal5"} <= set(R_FAMILIES)
    tiny = _r_vector("tiny7", "p")
    assert tiny.min() == 0 and 1e-300 in tiny


def test_corrections_holm_hand_computed():
    # Holm (1979) step-down by hand: sorted .01, .03, .04 times 3, 2, 1 gives
    # .03, .06, .04, made monotone: .03, .06, .06.
    assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], "holm"), [0.03, 0.06, 0.06], rtol=1e-15)


def test_corrections_hochberg_hand_computed():
    # Hochberg (1988) step-up by hand: sorted .01, .03, .04 times 3, 2, 1 gives
    # .03, .06, .04, made monotone from the top: .03, .04, .04.
    assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], "hochberg"), [0.03, 0.04, 0.04], rtol=1e-15)


@pytest.mark.parametrize("method", CORRECTIONS)
def test_corrections_batch_axes_equal_one_family_at_a_time(method):
    rng = np.random.default_rng(7)
    p = rng.uniform(size=(4, 9, 3)) ** 3
    for axis in (0, 1, 2, -1):
        adjusted = adjust_pvalues(p, method, axis=axis)
        moved_p = np.moveaxis(p, axis, -1)
        moved_adjusted = np.moveaxis(adjusted, axis, -1)
        for index in np.ndindex(moved_p.shape[:-1]):
            assert_array_equal(moved_adjusted[index], adjust_pvalues(moved_p[index], method))


@pytest.mark.parametrize("method", CORRECTIONS)
def test_corrections_equivariant_under_permutation(method):
    rng = np.random.default_rng(11)
    p = np.round(rng.uniform(size=30) ** 2, 2)  # with ties
    perm = rng.permutation(p.size)
    assert_allclose(adjust_pvalues(p[perm], method), adjust_pvalues(p, method)[perm], rtol=1e-15)


def test_corrections_are_ordered_by_power():
    # Known ordering: p <= hommel <= hochberg <= holm <= bonferroni.
    rng = np.random.default_rng(3)
    p = rng.uniform(size=(200, 12)) ** 4
    adjusted = {m: adjust_pvalues(p, m) for m in CORRECTIONS}
    eps = 1e-15
    assert (adjusted["none"] <= adjusted["hommel"] + eps).all()
    assert (adjusted["hommel"] <= adjusted["hochberg"] + eps).all()
    assert (adjusted["hochberg"] <= adjusted["holm"] + eps).all()
    assert (adjusted["holm"] <= adjusted["bonferroni"] + eps).all()
    assert (adjusted["bonferroni"] <= 1).all()


@pytest.mark.parametrize("method", CORRECTIONS)
def test_corrections_preserve_the_order_of_p(method):
    rng = np.random.default_rng(5)
    p = rng.uniform(size=40) ** 3
    order = np.argsort(p, kind="stable")
    assert (np.diff(adjust_pvalues(p, method)[order]) >= 0).all()


def test_corrections_hommel_of_two_is_hochberg():
    # R's p.adjust: if (n == 2 && method == "hommel") method <- "hochberg".
    p = np.array([[0.03, 0.04], [0.2, 0.01]])
    assert_array_equal(adjust_pvalues(p, "hommel"), adjust_pvalues(p, "hochberg"))


@pytest.mark.parametrize("method", CORRECTIONS)
@pytest.mark.parametrize("shape", [(0,), (1,), (3, 1), (2, 0)])
def test_corrections_families_of_size_zero_or_one_unchanged(method, shape):
    p = np.full(shape, 0.3)
    out = adjust_pvalues(p, method)
    assert out.shape == shape
    assert_array_equal(out, p)


def test_corrections_do_not_modify_the_input():
    p = np.array([0.04, 0.01, 0.03])
    before = p.copy()
    for method in CORRECTIONS:
        out = adjust_pvalues(p, method)
        out[...] = 7
    assert_array_equal(p, before)


def test_corrections_registry_dispatches_every_name():
    # The tuple of names is the dispatch table's keys (no second list to drift).
    assert CORRECTIONS == ("none", "bonferroni", "holm", "hochberg", "hommel")
    assert CORRECTIONS == tuple(multitest.stats._corrections._ADJUSTERS)


def test_corrections_hommel_handles_a_large_family():
    # O(m^2) like R; a family of all pairs of 60 algorithms stays quick.
    rng = np.random.default_rng(0)
    p = rng.uniform(size=60 * 59 // 2) ** 5
    out = adjust_pvalues(p, "hommel")
    assert ((out >= p) & (out <= adjust_pvalues(p, "hochberg") + 1e-15)).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(pvalues=[0.1], method="BH"), r"`method` must be one of \('none', 'bonferroni'"),
        (dict(pvalues=[0.1], method="Holm"), "`method` must be one of"),
        (dict(pvalues=[0.1, np.nan]), "`pvalues` must not contain NaN"),
        (dict(pvalues=[0.1, -0.01]), r"`pvalues` must lie in \[0, 1\]"),
        (dict(pvalues=[1.5]), r"`pvalues` must lie in \[0, 1\]"),
        (dict(pvalues=0.3), "`pvalues` must have at least one dimension"),
        (dict(pvalues=["a", "b"]), "`pvalues` must be an array of real numbers"),
        (dict(pvalues=[[0.1, 0.2]], axis=2), r"`axis` must be in \[-2, 1\]"),
        (dict(pvalues=[0.1, 0.2], axis=0.5), "`axis` must be an integer"),
    ],
)
def test_corrections_invalid_input_raises(kwargs, message):
    with pytest.raises(MultitestError, match=message):
        adjust_pvalues(**kwargs)


def test_corrections_docstring_examples_run():
    result = doctest.testmod(multitest.stats._corrections, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# ---------------------------------------------------------------------------
# Shaffer and Bergmann-Hommel (all pairwise comparisons; García & Herrera 2008)
# ---------------------------------------------------------------------------


def _pairs(k):
    return list(zip(*np.triu_indices(k, 1)))


def _partitions(items):
    """Every partition of `items` (recursive insertion, independent of the module)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _partitions(rest):
        yield [[first]] + partition
        for i in range(len(partition)):
            yield partition[:i] + [[first] + partition[i]] + partition[i + 1:]


def _exhaustive_by_partitions(k):
    pairs = _pairs(k)
    sets = set()
    for partition in _partitions(list(range(k))):
        group = {a: g for g, block in enumerate(partition) for a in block}
        members = frozenset(h for h, (a, b) in enumerate(pairs) if group[a] == group[b])
        if members:
            sets.add(members)
    return sets


def _exhaustive_by_closure(k):
    """Definition: a non-empty set of pair hypotheses is exhaustive when "a = b"
    and "b = c" in it always imply "a = c" in it (all 2^m subsets, k <= 5)."""
    pairs = _pairs(k)
    index = {pair: h for h, pair in enumerate(pairs)}
    out = set()
    for mask in range(1, 2 ** len(pairs)):
        members = {h for h in range(len(pairs)) if mask >> h & 1}
        equal = {frozenset(pairs[h]) for h in members}
        closed = all(frozenset((a, c)) in equal
                     for x in equal for y in equal if x != y and len(x & y) == 1
                     for a, c in [tuple(x ^ y)])
        if closed:
            out.add(frozenset(index[tuple(sorted(pair))] for pair in equal))
    return out


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_corrections_exhaustive_sets_are_the_transitively_closed_ones(k):
    # Reference: the definition, by brute force over every subset of hypotheses.
    assert _exhaustive_by_partitions(k) == _exhaustive_by_closure(k)
    members, sizes = multitest.stats._corrections._exhaustive_sets(k)
    module_sets = {frozenset(np.flatnonzero(row)) for row in members}
    assert module_sets == _exhaustive_by_partitions(k)
    assert_array_equal(sizes, members.sum(axis=1))


def _brute_shaffer(p, k):
    sizes = {0} | {len(s) for s in _exhaustive_by_partitions(k)}
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted, running = np.empty(m), 0.0
    for i, h in enumerate(order):               # i = 0 .. m-1; i hypotheses already false
        t = max(s for s in sizes if s <= m - i)
        running = max(running, t * p[h])
        adjusted[h] = min(1.0, running)
    return adjusted


def _brute_bergmann_hommel(p, k):
    sets = _exhaustive_by_partitions(k)
    return np.array([min(1.0, max(len(s) * min(p[j] for j in s) for s in sets if h in s))
                     for h in range(len(p))])


def test_corrections_shaffer_published_multipliers():
    # Shaffer (1986) / García & Herrera (2008), section 3.1: for k = 4 the numbers
    # of true hypotheses possible are {0, 1, 2, 3, 6}, multipliers 6, 3, 3, 3, 2, 1;
    # for k = 5, {0, 1, 2, 3, 4, 6, 10}: 10, 6, 6, 6, 6, 4, 4, 3, 2, 1.
    assert multitest.stats._corrections.shaffer_multipliers(4).tolist() == [6, 3, 3, 3, 2, 1]
    assert multitest.stats._corrections.shaffer_multipliers(5).tolist() == [10, 6, 6, 6, 6, 4, 4, 3,
                                                                     2, 1]
    assert multitest.stats._corrections.shaffer_multipliers(2).tolist() == [1]


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 7, 8])
def test_corrections_shaffer_and_bergmann_hommel_equal_brute_force(k):
    # Reference: the definitions of García & Herrera (2008), computed over an
    # independent enumeration of the exhaustive sets (partitions, above).
    rng = np.random.default_rng(k)
    m = k * (k - 1) // 2
    for p in (rng.uniform(size=m) ** 4, np.round(rng.uniform(size=m) ** 2, 2)):
        assert_allclose(adjust_all_pairs(p, k, "shaffer"), _brute_shaffer(p, k), rtol=1e-15)
        assert_allclose(adjust_all_pairs(p, k, "bergmann-hommel"), _brute_bergmann_hommel(p, k),
                        rtol=1e-15)


@pytest.mark.parametrize("k", [3, 5, 9])
def test_corrections_bergmann_hommel_below_shaffer_below_holm(k):
    # Power ordering (García & Herrera 2008): every adjusted p-value of
    # Bergmann-Hommel <= Shaffer <= Holm; Shaffer equals Holm for k = 3 only at
    # the first step (3, 1, 1 against 3, 2, 1).
    rng = np.random.default_rng(20 + k)
    p = rng.uniform(size=(30, k * (k - 1) // 2)) ** 3
    holm = adjust_pvalues(p, "holm")
    shaffer = adjust_all_pairs(p, k, "shaffer")
    bh = adjust_all_pairs(p, k, "bergmann-hommel")
    assert (shaffer <= holm + 1e-15).all() and (bh <= shaffer + 1e-15).all()
    assert_array_equal(bh[0], adjust_all_pairs(p[0], k, "bergmann-hommel"))


def test_corrections_all_pairs_passes_other_methods_to_p_adjust():
    p = np.random.default_rng(3).uniform(size=10)
    for method in CORRECTIONS:
        assert_array_equal(adjust_all_pairs(p, 5, method), adjust_pvalues(p, method))


@pytest.mark.parametrize(("args", "message"), [
    (([0.1] * 6, 4, "tukey"), "`method` must be one of"),
    (([0.1] * 5, 4, "shaffer"), "must hold the 6 pairs of 4 algorithms"),
    (([0.1] * 6, 1, "shaffer"), "`n_algorithms` must be an integer >= 2"),
    (([0.1] * 66, 12, "bergmann-hommel"), "supports at most 10 algorithms; got 12"),
    (([0.1] * 5 + [1.5], 4, "shaffer"), r"`pvalues` must lie in \[0, 1\]"),
])
def test_corrections_all_pairs_validation(args, message):
    with pytest.raises(MultitestError, match=message):
        adjust_all_pairs(*args)
