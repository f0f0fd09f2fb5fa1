"""The fast paths of loading and stage 1 give exactly what the simple paths give.

- ``load_results`` parses numeric columns natively and falls back to the text
  path (which names file, row and field) on anything unusual: same arrays,
  same messages.
- Stage 1 runs blocks of data sets, passes
  differences to the built-in tests, and sorts every data set at once: same
  statistics, p-values, decisions and orders as the straightforward way.
"""
import numpy as np
import pandas as pd
import pytest
from helpers import differences_on_critical, make_frame
from scipy import special, stats

from multitest import InputError, get_test, load_results, register_test
from multitest.engine import _per_dataset as per_dataset
from multitest.engine import _stage1 as stage1
from multitest.engine import cost_ordered_sort
from multitest.engine._per_dataset import prior_positions
from multitest.engine._stage1 import run_pairwise_tests
from multitest.inputs import FoldDesign
from multitest.inputs import _results as results
from multitest.stats._distributions import _FisherF, _StudentT
from multitest.stats._fold_tests import _row_sum

# -- loading ------------------------------------------------------------------------

def _text_path(monkeypatch):
    """Make load_results skip its fast paths (files and frames)."""
    for reader in ("_read_arrow", "_read_pandas"):
        monkeypatch.setattr(results, reader, lambda *args: None)
    real_load = results._load

    def text_only(*args, fast, **kwargs):
        return real_load(*args, fast=False, **kwargs)
    monkeypatch.setattr(results, "_load", text_only)


def _same(a, b):
    np.testing.assert_array_equal(a.errors, b.errors)
    assert (a.datasets, a.algorithms, a.replications, a.folds_per_replication, a.has_folds,
            a.source) == (b.datasets, b.algorithms, b.replications, b.folds_per_replication,
                          b.has_folds, b.source)


@pytest.fixture(params=["pyarrow", "pandas"])
def fast_reader(request, monkeypatch):
    """Each fast CSV path alone: pyarrow's reader, or the C reader of pandas."""
    if request.param == "pyarrow":
        pytest.importorskip("pyarrow")
        monkeypatch.setattr(results, "_read_pandas", lambda *args: None)
    else:
        monkeypatch.setattr(results, "_read_arrow", lambda *args: None)
    return request.param


@pytest.fixture
def awkward_csv(tmp_path):
    # Names with spaces around them, numeric-looking and quoted names, 17-digit values,
    # integers written as floats, an extra column, 4 replications of 3 folds.
    rng = np.random.default_rng(8)
    frame = make_frame(rng.uniform(0, 1, (3, 4, 12)), datasets=["007", " iris ", "a,b"],
                       algorithms=["1", "svm ", "knn", "c4.5"], replications=4)
    frame["replication"] = frame["replication"].astype(float)
    frame["note"] = "x"
    path = tmp_path / "awkward.csv"
    frame.to_csv(path, index=False, float_format="%.17g")
    return path


def test_fast_csv_loader_matches_the_text_path(example, awkward_csv, fast_reader, monkeypatch):
    from multitest import example_path

    fast = [load_results(example_path()), load_results(awkward_csv),
            load_results(pd.read_csv(awkward_csv))]
    _text_path(monkeypatch)
    slow = [load_results(example_path()), load_results(awkward_csv),
            load_results(pd.read_csv(awkward_csv))]
    for a, b in zip(fast, slow):
        _same(a, b)
    assert fast[1].datasets == ("007", "iris", "a,b")
    assert fast[1].algorithms == ("1", "svm", "knn", "c4.5")
    assert (fast[1].replications, fast[1].folds_per_replication) == (4, 3)


def test_clean_files_take_the_fast_path(awkward_csv, fast_reader, monkeypatch):
    def no_text_path(source):
        raise AssertionError("the text path was used")
    monkeypatch.setattr(results, "_read", no_text_path)
    assert load_results(awkward_csv).errors.shape == (3, 4, 12)


BAD_FILES = {
    "empty value": lambda f: f.assign(error=f["error"].astype(object).where(f.index != 4, "")),
    "NA value": lambda f: f.assign(error=f["error"].astype(object).where(f.index != 4, "NA")),
    "nan value": lambda f: f.assign(error=f["error"].astype(object).where(f.index != 4, "nan")),
    "inf value": lambda f: f.assign(error=f["error"].astype(object).where(f.index != 4, "inf")),
    "huge value": lambda f: f.assign(error=f["error"].astype(object).where(f.index != 4,
                                                                            "1e400")),
    "text value": lambda f: f.assign(error=f["error"].astype(object).where(f.index != 4, "abc")),
    "fractional fold": lambda f: f.assign(fold=f["fold"].astype(float).where(f.index != 3, 1.5)),
    "text fold": lambda f: f.assign(fold=f["fold"].astype(object).where(f.index != 3, "x")),
    "empty name": lambda f: f.assign(dataset=f["dataset"].where(f.index != 6, " ")),
    "duplicate row": lambda f: pd.concat([f, f.iloc[[3]]]),
    "missing fold": lambda f: f.drop(index=7),
    "missing algorithm": lambda f: f[~((f["dataset"] == "d1") & (f["algorithm"] == "a1"))],
    "one algorithm": lambda f: f[f["algorithm"] == "a0"],
    "missing column": lambda f: f.drop(columns=["algorithm"]),
    "two value columns": lambda f: f.assign(accuracy=1.0),
    "replication without fold": lambda f: f.drop(columns=["fold"]),
    "accuracy out of range": lambda f: f.rename(columns={"error": "accuracy"}).assign(
        accuracy=lambda g: g["accuracy"].where(g.index != 5, 170.0) * 100),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_fast_loader_reports_what_the_text_path_reports(case, tmp_path, fast_reader,
                                                        monkeypatch):
    frame = BAD_FILES[case](make_frame(np.random.default_rng(0).uniform(0.1, 0.3, (2, 3, 10))))
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    messages = []
    for source in (path, frame.reset_index(drop=True)):
        with pytest.raises(InputError) as fast:
            load_results(source)
        messages.append(str(fast.value))
    _text_path(monkeypatch)
    for k, source in enumerate((path, frame.reset_index(drop=True))):
        with pytest.raises(InputError) as slow:
            load_results(source)
        assert messages[k] == str(slow.value)
    assert str(path) in messages[0]


# -- p-values and sums ------------------------------------------------------------------

def test_fisher_f_closed_form_matches_scipy():
    rng = np.random.default_rng(1)
    x = np.concatenate([10 ** rng.uniform(-8, 8, 20000), rng.gamma(1, 2, 20000),
                        [0.0, np.inf, 1e300, 5e-324]])
    for dfn, dfd in [(10, 5), (2, 3), (4, 7), (6, 1)]:
        ours, scipy_sf = _FisherF(dfn, dfd).sf(x), stats.f.sf(x, dfn, dfd)
        np.testing.assert_allclose(ours, scipy_sf, rtol=1e-14, atol=0)
        assert ours[-4] == 1.0 and ours[-3] == 0.0
    # Odd dfn: the incomplete beta function itself.
    np.testing.assert_array_equal(_FisherF(5, 10).sf(x), special.fdtrc(5, 10, x))


def test_student_t_tails_are_scipys():
    x = np.concatenate([np.random.default_rng(2).normal(0, 4, 10000),
                        [0.0, -0.0, np.inf, -np.inf, 1e-300]])
    for df in (1, 5, 9):
        t = _StudentT(df)
        np.testing.assert_array_equal(t.cdf(x), stats.t.cdf(x, df))
        np.testing.assert_array_equal(t.sf(x), stats.t.sf(x, df))
        np.testing.assert_array_equal(t.smaller_tail(x), np.minimum(t.cdf(x), t.sf(x)))


@pytest.mark.parametrize("width", [1, 2, 5, 7, 8, 9, 10, 16, 17, 30, 64, 128, 129])
def test_row_sum_is_numpys_sum(width):
    rng = np.random.default_rng(width)
    # Values of very different sizes, so that the order of the additions shows.
    x = rng.normal(0, 1, (500, width)) * 10.0 ** rng.integers(-8, 8, (500, width))
    np.testing.assert_array_equal(_row_sum(x), np.sum(x, axis=1))


def _five_by_two_previous(a, b, name, alternative):
    """The 5x2 cv tests as the previous version computed them: (n, 5, 2) layout, NumPy sums.

    Reference for the fold-major kernels: the same formulas (docs/method.md
    section 3) with ``np.sum`` over rows (which ``_row_sum`` equals bit for bit,
    test above); the distributions' tails are unchanged.
    """
    p = (a - b).reshape(a.shape[0], 5, 2)
    p_bar = (p[:, :, 0] + p[:, :, 1]) / 2
    s2 = np.sum((p[:, :, 0] - p_bar) ** 2 + (p[:, :, 1] - p_bar) ** 2, axis=1)
    if name == "combined-5x2cv-f":
        numerator, scale, tail = np.sum((p**2).reshape(-1, 10), axis=1), 2 * s2, _FisherF(10, 5)
    else:
        numerator = p[:, 0, 0] if name == "5x2cv-t" else \
            np.sqrt(10) * (np.sum(p.reshape(-1, 10), axis=1) / 10)
        scale, tail = np.sqrt(s2 / 5), _StudentT(5)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = numerator / scale
    undefined = (numerator == 0) & (scale == 0)
    statistic = np.where(undefined, 0.0, statistic)
    if name == "combined-5x2cv-f":
        pvalue = tail.sf(statistic)
    elif alternative == "greater":
        pvalue = tail.sf(statistic)
    else:
        pvalue = np.minimum(1.0, 2 * tail.smaller_tail(statistic))
    return statistic, np.where(undefined, 1.0, pvalue)


@pytest.mark.parametrize("name, alternative", [
    ("combined-5x2cv-f", "two-sided"), ("5x2cv-t", "two-sided"), ("5x2cv-t", "greater"),
    ("combined-5x2cv-t", "two-sided"), ("combined-5x2cv-t", "greater")])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_5x2_kernels_equal_previous_version(name, alternative, seed):
    # Seeded errors rounded like real ones, with identical pairs (0/0), a constant
    # difference (x/0) and signed zeros; both as (a, b) and as differences (a - b, 0)
    # the way stage 1 passes them.
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(0.2, 0.05, (3000, 10)), 4)
    b = np.round(rng.normal(0.2, 0.05, (3000, 10)), 4)
    b[:40], b[40:80], a[80:90], b[80:90] = a[:40], a[40:80] - 0.01, -0.0, 0.0
    test = get_test(name)
    design = FoldDesign(5, 2)
    zeros = np.broadcast_to(0.0, a.shape)
    for x, y in ((a, b), (a - b, zeros)):
        got = test(x, y, design, alternative=alternative)
        expected = _five_by_two_previous(x, y, name, alternative)
        for new, old in zip(got, expected):
            assert new.tobytes() == old.tobytes()


# -- stage 1 ----------------------------------------------------------------------

def _straightforward(errors, prior, test, design, alpha, alternative="two-sided"):
    """Every pair gathered at once and tested in one call, overrides as docs/method.md says."""
    S, L, F = errors.shape
    first, second = np.triu_indices(L, k=1)
    in_prior = np.take_along_axis(errors, prior[:, :, None], axis=1)
    a, b = in_prior[:, first].reshape(-1, F), in_prior[:, second].reshape(-1, F)
    statistic, pvalue = test(a, b, design, alternative=alternative)
    means = in_prior.mean(axis=2)
    override = (pvalue.reshape(S, -1) < alpha) & (means[:, second] < means[:, first])
    return statistic.reshape(S, -1), pvalue.reshape(S, -1), override


@register_test("test-fast-paths-scalar-welch")
def _scalar_welch(a, b):
    """Welch t on the folds (a scalar custom test: not difference-only, not threaded)."""
    result = stats.ttest_ind(a, b, equal_var=False)
    return (0.0, 1.0) if np.isnan(result.pvalue) else (result.statistic, result.pvalue)


@pytest.mark.parametrize("name", ["combined-5x2cv-f", "kfold-t", "wilcoxon",
                                  "test-fast-paths-scalar-welch"])
@pytest.mark.parametrize("block", [10 ** 9, 2000, 60])   # one block; several data sets; one
def test_blocks_and_differences_change_nothing(name, block, monkeypatch):
    rng = np.random.default_rng(3)
    S, L = 7, 9
    errors = np.round(rng.uniform(0.1, 0.3, (S, L, 10)) - 0.01 * np.arange(L)[:, None], 3)
    errors[0, 1] = errors[0, 0]                # identical: statistic 0, p 1
    errors[1, 2] = errors[1, 3] - 1 / 32       # constant difference: infinite statistic
    keys = rng.permutation(np.tile(np.arange(L, dtype=float), (S, 1)).T).T[None]
    names = [f"a{j}" for j in range(L)]
    prior = prior_positions(keys, names)
    test, design = get_test(name), FoldDesign(5, 2)
    expected = _straightforward(errors, prior, test, design, 0.05)
    monkeypatch.setattr(stage1, "_BLOCK_ELEMENTS", block)
    table = run_pairwise_tests(errors, prior, test, design, alpha=0.05, correction="none",
                               alternative="two-sided")
    np.testing.assert_array_equal(table.statistic, expected[0])
    np.testing.assert_array_equal(table.pvalue, expected[1])
    np.testing.assert_array_equal(table.override, expected[2])
    assert table.pvalue_adjusted is table.pvalue


@pytest.mark.parametrize("sort_elements", [1 << 24, 50])
@pytest.mark.parametrize("S, L", [(40, 12), (3, 130)])   # int8 and int16 counts
def test_all_data_sets_sorted_at_once_as_one_by_one(sort_elements, S, L, monkeypatch):
    rng = np.random.default_rng(6)
    cheaper, costlier = np.triu_indices(L, k=1)
    override = rng.random((S, cheaper.size)) < rng.uniform(0, 0.6, (S, 1))
    table = stage1.PairwiseTable(
        prior=np.tile(np.arange(L), (S, 1)), cheaper=cheaper, costlier=costlier,
        statistic=np.zeros(override.shape), pvalue=np.zeros(override.shape),
        pvalue_adjusted=np.zeros(override.shape), override=override,
        mean_errors=np.zeros((S, L)))
    monkeypatch.setattr(per_dataset, "_SORT_ELEMENTS", sort_elements)
    orders = per_dataset._cost_ordered_sorts(table)
    for s in range(S):
        matrix = np.zeros((L, L), dtype=bool)
        matrix[cheaper, costlier] = override[s]
        np.testing.assert_array_equal(orders[s], cost_ordered_sort(matrix))


def test_edges_without_building_every_pair(example):
    from multitest import rank

    for result in rank(example, "training_time").datasets:
        assert result.edges() == [(p["a"], p["b"], p["statistic"], p["pvalue"])
                                  for p in result.pairs() if p["override"]]


# -- stage 1 streamed: decisions kept, statistics recomputed on access ----------------

@pytest.mark.parametrize("name", ["combined-5x2cv-f", "5x2cv-t", "kfold-t", "wilcoxon"])
@pytest.mark.parametrize("correction", ["none", "holm"])
@pytest.mark.parametrize("block", [10 ** 9, 3 * 360, 60])   # all 11 data sets; 3; 1
def test_lazy_statistics_are_the_eager_ones_bit_for_bit(name, correction, block,
                                                        monkeypatch):
    # Reference: the same function with everything kept in memory (the eager path,
    # itself checked against the straightforward one-call computation above).
    rng = np.random.default_rng(12)
    S, L = 11, 9
    errors = np.round(rng.uniform(0.1, 0.3, (S, L, 10)) - 0.01 * np.arange(L)[:, None], 3)
    errors[0, 1] = errors[0, 0]
    keys = rng.permutation(np.tile(np.arange(L, dtype=float), (S, 1)).T).T[None]
    prior = prior_positions(keys, [f"a{j}" for j in range(L)])
    test, design = get_test(name), FoldDesign(5, 2)
    monkeypatch.setattr(stage1, "_BLOCK_ELEMENTS", block)
    eager = run_pairwise_tests(errors, prior, test, design, alpha=0.05, correction=correction,
                               alternative="two-sided")
    monkeypatch.setattr(stage1, "_EAGER_TESTS", 0)
    lazy = run_pairwise_tests(errors, prior, test, design, alpha=0.05, correction=correction,
                              alternative="two-sided")
    assert isinstance(lazy.statistic, stage1.LazyRows)
    np.testing.assert_array_equal(lazy.override, eager.override)
    for field in ("statistic", "pvalue", "pvalue_adjusted"):
        full, rows = getattr(eager, field), getattr(lazy, field)
        assert rows.shape == full.shape and rows.size == full.size
        np.testing.assert_array_equal(np.asarray(rows), full)
        for s in (0, 5, S - 1, -1, *range(S), 4, 1):    # in turn and across blocks
            np.testing.assert_array_equal(rows[s], full[s])
            np.testing.assert_array_equal(rows[s, [0, 3]], full[s, [0, 3]])
        np.testing.assert_array_equal(rows[2:7], full[2:7])
        np.testing.assert_array_equal(rows[1:4, 2], full[1:4, 2])
        np.testing.assert_array_equal(rows[[1, 3]], full[[1, 3]])
        assert not rows[3].flags.writeable
    assert (lazy.pvalue_adjusted is lazy.pvalue) == (correction == "none")


def test_lazy_rows_read_in_turn_are_computed_a_block_at_a_time(monkeypatch):
    # Every row of a lazy table read in turn (as the per-data-set figures of a large
    # run read them): one computation per block of _BLOCK_ELEMENTS pairs x folds (here
    # 4 data sets of 6 pairs), not one per data set; the last block is kept.
    S, L = 10, 4
    errors = np.random.default_rng(3).uniform(0.1, 0.3, (S, L, 10))
    prior = np.tile(np.arange(L), (S, 1))
    monkeypatch.setattr(stage1, "_EAGER_TESTS", 0)
    monkeypatch.setattr(stage1, "_BLOCK_ELEMENTS", 4 * 6 * 10)
    table = run_pairwise_tests(errors, prior, get_test("combined-5x2cv-f"), FoldDesign(5, 2),
                               alpha=0.05, correction="none", alternative="two-sided")
    calls = []
    block = stage1._Stage1.block
    monkeypatch.setattr(stage1._Stage1, "block",
                        lambda self, s0, s1: calls.append((s0, s1)) or block(self, s0, s1))
    for s in range(S):
        table.pvalue[s]
        table.statistic[s]
    table.pvalue[9]
    assert calls == [(0, 4), (4, 8), (8, 10)]


def test_lazy_rows_start_where_the_outputs_stop_listing_every_pair():
    # Statistics and p-values are kept while result.json, pairwise.csv and the
    # per-data-set figures list every one of them; above, only the decisions.
    from multitest.figures._write import FIGURE_PAIRS_LIMIT
    from multitest.outputs._json import INLINE_PAIRS_LIMIT

    assert stage1._EAGER_TESTS == INLINE_PAIRS_LIMIT == FIGURE_PAIRS_LIMIT == 20_000


def test_custom_tests_keep_their_statistics(monkeypatch):
    # A user's test may not be deterministic: its results are never recomputed.
    monkeypatch.setattr(stage1, "_EAGER_TESTS", 0)
    errors = np.random.default_rng(2).uniform(0.1, 0.3, (3, 4, 10))
    prior = np.tile(np.arange(4), (3, 1))
    table = run_pairwise_tests(errors, prior, get_test("test-fast-paths-scalar-welch"),
                               FoldDesign(5, 2), alpha=0.05, correction="none",
                               alternative="two-sided")
    assert isinstance(table.statistic, np.ndarray)


def test_ranking_results_are_the_same_when_streamed(example, monkeypatch):
    from multitest import rank

    eager = rank(example, "training_time")
    monkeypatch.setattr(stage1, "_EAGER_TESTS", 0)
    monkeypatch.setattr(stage1, "_BLOCK_ELEMENTS", 50)     # a data set per block
    lazy = rank(example, "training_time")
    assert lazy.final_order == eager.final_order
    for e, z in zip(eager.datasets, lazy.datasets):
        assert z.order == e.order and z.pairs() == e.pairs() and z.edges() == e.edges()


@pytest.mark.parametrize("replications", [5, 1])
def test_rows_in_the_usual_order_give_the_general_cube(replications, monkeypatch):
    # The usual layout is reshaped instead of scattered: the same Results as the
    # general path (index arithmetic, duplicate and completeness checks).
    rng = np.random.default_rng(9)
    frame = make_frame(rng.uniform(0.1, 0.3, (4, 5, 10)), replications=replications)
    if replications == 1:
        frame = frame.drop(columns=["replication"])
    grid = load_results(frame)
    monkeypatch.setattr(results, "_grid", lambda *args: None)
    _same(grid, load_results(frame))
    # Folds out of order within a block: not the usual layout, still the same cube.
    swapped = frame.copy()
    swapped.iloc[[0, 1]] = swapped.iloc[[1, 0]].to_numpy()
    general = load_results(swapped)
    monkeypatch.undo()
    _same(load_results(swapped), general)


@pytest.mark.parametrize("name, alternative", [
    ("combined-5x2cv-f", "two-sided"), ("5x2cv-t", "two-sided"), ("5x2cv-t", "greater"),
    ("combined-5x2cv-t", "two-sided"), ("combined-5x2cv-t", "greater")])
@pytest.mark.parametrize("block", [10 ** 9, 3000, 60])   # one block; several; one data set
def test_5x2_blocks_kept_or_recomputed_change_nothing(name, alternative, block, monkeypatch):
    # Reference: every pair gathered and tested in one call (_straightforward).  The
    # fold-major blocks of the 5x2 cv tests, kept or recomputed, must give the same
    # floats bit for bit, infinities and 0/0 included.
    rng = np.random.default_rng(21)
    S, L = 37, 9
    errors = np.round(rng.uniform(0.1, 0.3, (S, L, 10)) - 0.01 * np.arange(L)[:, None], 3)
    errors[0, 1] = errors[0, 0]                # identical: statistic 0, p 1
    errors[5, 2] = errors[5, 3] - 1 / 32       # constant difference: infinite statistic
    errors[36, 8] = errors[36, 0]
    keys = rng.permutation(np.tile(np.arange(L, dtype=float), (S, 1)).T).T[None]
    prior = prior_positions(keys, [f"a{j}" for j in range(L)])
    test, design = get_test(name), FoldDesign(5, 2)
    expected = _straightforward(errors, prior, test, design, 0.05, alternative)
    monkeypatch.setattr(stage1, "_BLOCK_ELEMENTS", block)
    for keep in (True, False):
        table = run_pairwise_tests(errors, prior, test, design, alpha=0.05,
                                   correction="none", alternative=alternative, keep=keep)
        np.testing.assert_array_equal(table.override, expected[2])
        for got, want in zip((table.statistic, table.pvalue), expected[:2]):
            assert np.asarray(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1, 0.5, 1e-6])
def test_f_decisions_near_the_critical_value_are_the_p_values(alpha):
    # Reference: combined_5x2cv_f's own p-values, p < alpha.  Statistics placed at and
    # around the critical value: adding t to both folds of a replication leaves the
    # variances alone and makes f a quadratic in t, solved for f = critical exactly,
    # then t moved by up to 50 units in the last place and by 1e-9 to 1e-4 relative.
    from multitest.stats._fold_tests import (
        _BAND,
        _combined_f_significant,
        combined_5x2cv_f,
    )

    critical = special.fdtri(10, 5, 1 - alpha)
    d = differences_on_critical(alpha)
    d = np.vstack([d, np.zeros((3, 10)), np.full((2, 10), 0.25)])   # 0/0 and x/0
    zeros = np.broadcast_to(0.0, d.shape)
    statistic, pvalue = combined_5x2cv_f(d, zeros)
    got = _combined_f_significant(d, zeros, alpha)
    np.testing.assert_array_equal(got, pvalue < alpha)
    near = np.abs(statistic / critical - 1) <= _BAND
    # The band is exercised, on both sides of the decision, and so is the shortcut.
    assert (near & got).sum() > 100 and (near & ~got).sum() > 100
    assert (~near & got).any() and (~near & ~got).any()
