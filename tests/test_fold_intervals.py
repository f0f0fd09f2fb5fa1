"""multitest.stats._fold_intervals: each pairwise test's interval is the set of shifts it
does not reject, so it agrees with the test's decision on every pair.

References: ``scipy.stats.ttest_rel(...).confidence_interval()`` (paired t, two- and
one-sided); the corrected resampled t (Nadeau & Bengio 2003, eq. for r x k cv) and the
5x2 cv t intervals written out with ``scipy.stats.t.ppf``; the combined 5x2 cv F statistic
at the bounds equals ``scipy.stats.f.ppf(1 - alpha, 10, 5)``; the Wilcoxon interval on
untied data equals R 4.2.2's exact ``wilcox.test(d, conf.int = TRUE)`` (through
``wilcoxon_interval``, tested against R in ``test_effect_sizes.py``); the sign test's
order statistics from ``scipy.stats.binom``; the Bayesian credible interval from
``correlated_t(...).interval``.
"""
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from multitest import example_path, example_results, get_test, rank
from multitest.engine import dataset_effects, decision_level
from multitest.inputs import FoldDesign
from multitest.stats import available_tests, correlated_t, wilcoxon_interval

CLASSICAL = sorted(name for name, test in available_tests().items()
                   if test.interval is not None and not test.bayesian)
NS = {"svg": "http://www.w3.org/2000/svg"}


def _design(name, rng):
    if get_test(name).requires_5x2:
        return FoldDesign(5, 2)
    return [FoldDesign(1, 10), FoldDesign(3, 5), FoldDesign(2, 6, test_train_ratio="1/4"),
            FoldDesign(1, 7)][rng.integers(4)]


def _differences(rng, n, folds):
    """Fold differences of ``n`` pairs: half on a grid of 1/20 (ties and zeros), half not."""
    grid = np.round(rng.normal(0.5, 2, (n // 2, folds))) / 20
    smooth = rng.normal(rng.normal(0, 0.02, (n - n // 2, 1)), 0.02, (n - n // 2, folds))
    return np.vstack([grid, smooth])


def _pvalue(test, d, design, alternative):
    return test(d, np.zeros_like(d), design, alternative)[1]


# ---------------------------------------------------------------- the property

@pytest.mark.parametrize("name", CLASSICAL)
def test_interval_is_the_set_of_shifts_the_test_does_not_reject(name):
    # Random data, designs, levels and alternatives: at 0, at random shifts and at every
    # breakpoint of a rank test, the interval contains the shift exactly when the test
    # on the shifted differences does not reject.
    test = get_test(name)
    rng = np.random.default_rng(sum(map(ord, name)))
    checked = rejected = 0
    for _ in range(12):
        design = _design(name, rng)
        alternative = test.alternatives[rng.integers(len(test.alternatives))]
        alpha = float(rng.choice([0.01, 0.05, 0.1, 0.2, 0.3]))
        d = _differences(rng, 40, design.n)
        interval = test.interval(d, np.zeros_like(d), design, 1 - alpha, alternative)
        at_zero = _pvalue(test, d, design, alternative) >= alpha
        assert_array_equal(interval.contains(0.0), at_zero)
        shifts = list(rng.normal(0, 0.05, (6, 1)))
        if interval.breakpoints is not None:     # each pair at its own breakpoints
            w = interval.breakpoints
            shifts += [w[np.arange(w.shape[0]), rng.integers(w.shape[1], size=w.shape[0]), None]
                       for _ in range(6)]
        for shift in shifts:
            assert_array_equal(interval.contains(shift[:, 0] if shift.size > 1 else shift[0]),
                               _pvalue(test, d - shift, design, alternative) >= alpha)
        checked += d.shape[0]
        rejected += int((~at_zero).sum())
        assert np.all(np.isnan(interval.low) | (interval.low <= interval.high))
    assert checked == 480 and 0 < rejected < checked     # both decisions were exercised


@pytest.mark.parametrize("name", ["wilcoxon", "wilcoxon-pratt", "wilcoxon-scipy", "sign"])
def test_bisected_rows_give_the_bounds_of_the_full_evaluation(name, monkeypatch):
    # Rows with many candidates are bisected: the same bounds as running the test at
    # every candidate wherever the accepted shifts are one run, and the decision at 0
    # exactly, for random designs with ties and zeros (forced on small designs here,
    # and on 40 and 60 folds where it is the default).
    from multitest.stats import _fold_intervals

    test = get_test(name)
    rng = np.random.default_rng(7)
    for folds in (8, 12):
        d = _differences(rng, 60, folds)
        design = FoldDesign(1, folds)
        full = test.interval(d, np.zeros_like(d), design, 0.9, "two-sided")
        with monkeypatch.context() as patch:
            patch.setattr(_fold_intervals, "_ALL_CANDIDATES", 0)
            bisected = test.interval(d, np.zeros_like(d), design, 0.9, "two-sided")
        one_run = ~full.gaps
        assert one_run.sum() > 40
        assert_array_equal(bisected.low[one_run], full.low[one_run])
        assert_array_equal(bisected.high[one_run], full.high[one_run])
        assert_array_equal(bisected.contains(0.0), full.contains(0.0))
    for folds in (40, 60):
        d = _differences(rng, 10, folds)
        interval = test.interval(d, np.zeros_like(d), FoldDesign(1, folds), 0.95, "two-sided")
        assert_array_equal(interval.contains(0.0),
                           _pvalue(test, d, FoldDesign(1, folds), "two-sided") >= 0.05)


@pytest.mark.parametrize("name, correction, alternative", [
    (name, correction, alternative) for name in CLASSICAL
    for correction, alternative in (("none", "two-sided"), ("holm", "two-sided"),
                                    ("bonferroni", "two-sided"), ("hochberg", "two-sided"),
                                    ("hommel", "two-sided"), ("none", "greater"))
    if alternative in get_test(name).alternatives])
def test_intervals_agree_with_the_decisions_of_a_ranking(name, correction, alternative):
    # Every pair of the bundled data (4 data sets with a correction): the interval at the
    # level of the run's decisions excludes 0 exactly when the corrected p-value is below
    # alpha, so every override has 0 outside its interval.
    datasets = None if correction == "none" else ["bupa", "monks", "pendigits", "wine"]
    ranking = rank(example_results(), "training_time", test=name, correction=correction,
                   alternative=alternative, alpha=0.1, datasets=datasets)
    for result in ranking.datasets:
        effects = dataset_effects(ranking, result)
        table, s = result.table, result.index
        rejected = np.asarray(table.pvalue_adjusted[s]) < 0.1
        assert_array_equal(~effects.contains(0.0), rejected)
        override = table.override[s]
        assert np.all(~effects.contains(0.0)[override])
        if correction == "none":
            assert decision_level(ranking, result) == pytest.approx(0.9)


def test_t_intervals_have_no_override_outside_their_side():
    # The tests whose statistic has the sign of the mean difference: override exactly
    # when the (closed) interval lies right of 0; the F test rejects every shift
    # (NaN bounds) only when it rejects 0.
    for name in ("kfold-t", "corrected-t", "combined-5x2cv-t", "combined-5x2cv-f"):
        ranking = rank(example_results(), "training_time", test=name)
        empty = 0
        for result in ranking.datasets:
            effects = dataset_effects(ranking, result)
            override = result.table.override[result.index]
            nan = np.isnan(effects.low)
            assert_array_equal((effects.low > 0)[~nan], override[~nan])
            assert np.all(~effects.contains(0.0)[nan])
            empty += int(nan.sum())
        assert (name == "combined-5x2cv-f") == (empty > 0)


def test_bayesian_interval_decides_as_the_posterior():
    # Override exactly when the credible interval at 2 * min_probability - 1 lies right of
    # the ROPE; the interval is the posterior's central credible interval.
    for rope, threshold in ((0.0, 0.95), (1.0, 0.9), (0.5, 0.99)):
        ranking = rank(example_results(), "training_time", test="bayes-correlated-t",
                       rope=rope, min_probability=threshold)
        for result in ranking.datasets:
            effects = dataset_effects(ranking, result)
            assert effects.level == pytest.approx(2 * threshold - 1)
            assert_array_equal(effects.low > rope, result.table.override[result.index])
        errors, table = ranking.results.errors[0], result.table
        prior = table.prior[0]
        low, high = correlated_t(errors[prior[table.cheaper]], errors[prior[table.costlier]],
                                 design=ranking.results.design).interval(2 * threshold - 1)
        effects = dataset_effects(ranking, ranking.datasets[0])
        assert_allclose(effects.low, low, rtol=1e-12)
        assert_allclose(effects.high, high, rtol=1e-12)


# ---------------------------------------------------------------- reference values

def _pair_sample(seed, n, folds):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.2, 0.03, (n, folds))
    return a, a - rng.normal(0.01, 0.02, (n, folds))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_kfold_interval_equals_scipy(alternative):
    a, b = _pair_sample(1, 6, 10)
    interval = get_test("kfold-t").interval(a, b, FoldDesign(1, 10), 0.9, alternative)
    for k in range(6):
        ci = stats.ttest_rel(a[k], b[k], alternative=alternative).confidence_interval(0.9)
        assert_allclose([interval.low[k], interval.high[k]], [ci.low, ci.high], rtol=1e-12)


@pytest.mark.parametrize("design", [FoldDesign(5, 2), FoldDesign(10, 1, test_train_ratio="1/9"),
                                    FoldDesign(2, 5, test_train_ratio="1/2")])
def test_corrected_interval_uses_the_test_train_ratio(design):
    # Nadeau & Bengio: mean +- t_{J-1} sqrt((1/J + n_test/n_train) s^2), the ratio of the
    # design (1/(k-1) without one).
    a, b = _pair_sample(2, 5, design.n)
    d = a - b
    ratio = design.test_train_ratio or 1 / (design.folds - 1)
    half = stats.t.ppf(0.975, design.n - 1) * np.sqrt(
        (1 / design.n + ratio) * d.var(axis=1, ddof=1))
    interval = get_test("corrected-t").interval(a, b, design, 0.95, "two-sided")
    assert_allclose(interval.low, d.mean(axis=1) - half, rtol=1e-12)
    assert_allclose(interval.high, d.mean(axis=1) + half, rtol=1e-12)


def test_five_by_two_t_intervals_by_hand():
    # Dietterich: p_1^(1) +- t_5 sqrt(sum s_i^2 / 5); combined: mean(p) +- t_5
    # sqrt(sum s_i^2 / 5) / sqrt(10).  s_i^2 undivided (METHOD.md section 3).
    a, b = _pair_sample(3, 4, 10)
    p = (a - b).reshape(4, 5, 2)
    s2 = ((p - p.mean(axis=2, keepdims=True)) ** 2).sum(axis=2).sum(axis=1)
    q = stats.t.ppf(0.975, 5) * np.sqrt(s2 / 5)
    design = FoldDesign(5, 2)
    paired = get_test("5x2cv-t").interval(a, b, design, 0.95, "two-sided")
    assert_allclose([paired.low, paired.high], [p[:, 0, 0] - q, p[:, 0, 0] + q], rtol=1e-12)
    combined = get_test("combined-5x2cv-t").interval(a, b, design, 0.95, "two-sided")
    mean = p.mean(axis=(1, 2))
    assert_allclose([combined.low, combined.high],
                    [mean - q / np.sqrt(10), mean + q / np.sqrt(10)], rtol=1e-12)


def test_combined_f_interval_bounds_are_where_f_reaches_its_critical_value():
    a, b = _pair_sample(4, 20, 10)
    test = get_test("combined-5x2cv-f")
    interval = test.interval(a, b, FoldDesign(5, 2), 0.95, "two-sided")
    critical = stats.f.ppf(0.95, 10, 5)
    p = (a - b).reshape(20, 5, 2)
    s2 = ((p - p.mean(axis=2, keepdims=True)) ** 2).sum(axis=(1, 2))
    live = ~np.isnan(interval.low)
    assert 0 < live.sum() < 20        # both kinds occur in this sample
    for bound in (interval.low, interval.high):
        f = ((p - bound[:, None, None]) ** 2).sum(axis=(1, 2)) / (2 * s2)
        assert_allclose(f[live], critical, rtol=1e-9)
    # No bound: even the best shift (the mean) leaves f above the critical value.
    f_best = ((p - p.mean(axis=(1, 2))[:, None, None]) ** 2).sum(axis=(1, 2)) / (2 * s2)
    assert_array_equal(f_best > critical, ~live)


def test_wilcoxon_interval_on_untied_data_equals_r():
    # No ties, no zeros, fewer than 50 values: between breakpoints the test is the exact
    # untied one, so the accepted gaps span R's exact wilcox.test(d, conf.int = TRUE)
    # interval (wilcoxon_interval, checked against R).  At a breakpoint equal to a
    # difference, "wilcox" zeros drop it and may accept an isolated shift beyond (then
    # the hull is wider and `gaps` says so); Pratt's zeros do not: its hull is R's.
    rng = np.random.default_rng(5)
    d = rng.normal(0.01, 0.02, (8, 10))
    for name in ("wilcoxon", "wilcoxon-pratt", "wilcoxon-scipy"):
        interval = get_test(name).interval(d, np.zeros_like(d), FoldDesign(1, 10), 0.95,
                                           "two-sided")
        w, gap = interval.breakpoints, interval.accepted[:, 2:-1:2]   # (w_k, w_k+1)
        for k in range(8):
            r = wilcoxon_interval(d[k], 0.95)
            inside = np.flatnonzero(gap[k])
            assert (w[k, inside[0]], w[k, inside[-1] + 1]) == (r.low, r.high)
            assert interval.estimate[k] == r.estimate
            wider = (interval.low[k], interval.high[k]) != (r.low, r.high)
            assert wider == bool(interval.gaps[k]) and not (wider and name == "wilcoxon-pratt")


def test_sign_interval_is_the_order_statistics_of_the_binomial():
    # The shifts with at least j* differences on each side, j* the smallest j with
    # 2 P(Bin(n, 1/2) <= j) >= alpha: [d_(j*), d_(n + 1 - j*)] (1-based order statistics).
    rng = np.random.default_rng(6)
    for n, alpha in ((10, 0.05), (15, 0.1), (20, 0.01)):
        d = rng.normal(0, 1, (5, n))
        interval = get_test("sign").interval(d, np.zeros_like(d), FoldDesign(1, n), 1 - alpha,
                                             "two-sided")
        j = int(np.argmax(2 * stats.binom.cdf(np.arange(n), n, 0.5) >= alpha))
        ordered = np.sort(d, axis=1)
        assert_array_equal(interval.low, ordered[:, j - 1])
        assert_array_equal(interval.high, ordered[:, n - j])
        assert_array_equal(interval.estimate, np.median(d, axis=1))


def test_degenerate_folds():
    # Identical errors: the point 0 (not rejected); a constant non-zero difference: the
    # point itself (rejected at 0) for the t tests.
    a = np.full((2, 10), 0.2)
    b = np.vstack([a[0], a[1] - 0.01])
    for name in ("kfold-t", "corrected-t", "combined-5x2cv-t", "5x2cv-t"):
        interval = get_test(name).interval(a, b, FoldDesign(5, 2), 0.95, "two-sided")
        assert_allclose(interval.low, [0, 0.01], atol=1e-15)
        assert_array_equal(interval.low, interval.high)
        assert_array_equal(interval.contains(0.0), [True, False])
    for name in CLASSICAL:
        interval = get_test(name).interval(a, b, FoldDesign(5, 2), 0.95, "two-sided")
        assert_array_equal(interval.contains(0.0),
                           get_test(name)(a, b, FoldDesign(5, 2))[1] >= 0.05)


def test_a_test_without_an_interval_gets_none():
    def paired(a, b, alternative="two-sided"):
        return stats.ttest_rel(a, b, alternative=alternative)

    ranking = rank(example_results(), "training_time", test=paired,
                   datasets=["iris", "wine"])
    assert ranking.pairwise_test.interval is None
    assert dataset_effects(ranking, ranking.datasets[0]) is None


# ---------------------------------------------------------------- figures

def _main(argv):
    """``multitest.cli.main``, restoring the process-wide quiet flag ``-q`` sets."""
    from multitest._progress import is_quiet, set_quiet
    from multitest.cli import main

    quiet = is_quiet()
    try:
        return main(argv)
    finally:
        set_quiet(quiet)


def _figure(path):
    """``({id: group}, {class: [groups]})`` of a figure's SVG (drawn by dot)."""
    root = ET.parse(path).getroot()
    ids, classes = {}, {}
    for g in root.iter(f"{{{NS['svg']}}}g"):
        ids[g.get("id")] = g
        for css in (g.get("class") or "").split():
            classes.setdefault(css, []).append(g)
    return root, ids, classes


def _texts(groups):
    return " ".join(t.text or "" for g in groups for t in g.iter(f"{{{NS['svg']}}}text"))


def _decision(mark):
    """The decision of an estimate's mark: its class ``estimate <decision>``."""
    return mark.get("class").split()[-1]


def _fill(mark):
    return next(shape.get("fill") for shape in mark if shape.get("fill"))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_every_mark_shows_its_decision(tmp_path):
    # Through the command line: the per-data-set figures of the default test and of
    # Wilcoxon; every pair has one mark whose decision is the one of pairwise.csv and
    # whose meaning is in the legend; no mark is drawn in one colour for all decisions.
    for test, out in (("combined-5x2cv-f", tmp_path / "f"), ("wilcoxon", tmp_path / "w")):
        assert _main(["rank", example_path(), "--costs", "training_time", "--test", test,
                     "--datasets", "bupa,australian,pendigits", "--out", str(out),
                     "--format", "svg", "-q"]) == 0
        pairwise = pd.read_csv(out / "pairwise.csv")
        for name in ("bupa", "australian", "pendigits"):
            root, ids, classes = _figure(out / f"dataset_effects_{name}.svg")
            marks = {key[len("estimate:"):]: g for key, g in ids.items()
                     if key and key.startswith("estimate:")}
            rows = pairwise[pairwise["dataset"] == name]
            assert len(marks) == len(rows) == 28
            legend = {key[len("legend:"):] for key in ids if key and key.startswith("legend:")}
            for row in rows.itertuples():
                mark = marks[f"{row.a}|{row.b}"]
                expected = ("override" if row.override else "reverse"
                            if row.pvalue_adjusted < 0.05 else "none")
                assert _decision(mark) == expected
                assert expected in legend
            fills = {_fill(m) for m in marks.values()}
            assert len(fills) == len({_decision(m) for m in marks.values()})
            text = " ".join(t.text or "" for t in root.iter(f"{{{NS['svg']}}}text"))
            assert f"{test}" in text and "excludes 0 exactly when the test rejects" in text


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_over_datasets_caption_names_the_deciding_test(tmp_path):
    out = tmp_path / "out"
    assert _main(["rank", example_path(), "--costs", "training_time", "--out",
                 str(out), "--format", "svg", "-q"]) == 0
    _, ids, classes = _figure(out / "effects_second_pass.svg")
    captions = _texts(classes["caption"])
    assert "decision of the Nemenyi test on average positions" in captions
    # Nemenyi decides on average positions: no interval of the mean errors agrees with it
    assert "no interval (the Nemenyi test does not test a difference of mean errors)" in captions
    sizes = pd.read_csv(out / "effect_sizes.csv")
    assert sizes["ci_low"].isna().all()
    marks = [g for key, g in ids.items() if key and key.startswith("estimate:")]
    assert len(marks) == len(sizes) == 28
    assert {_decision(m) for m in marks} <= {"override", "reverse", "none"}


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_over_datasets_caption_counts_the_deciding_tests_intervals(tmp_path):
    out = tmp_path / "out"
    assert _main(["rank", example_path(), "--costs", "training_time", "--second-pass",
                  "wilcoxon", "--out", str(out), "--format", "svg", "-q"]) == 0
    _, ids, classes = _figure(out / "effects_second_pass.svg")
    captions = _texts(classes["caption"])
    assert "the Wilcoxon signed-rank test over data sets does not reject" in captions
    sizes = pd.read_csv(out / "effect_sizes.csv")
    holds = (np.where(sizes["ci_low_open"], sizes["ci_low"] < 0, sizes["ci_low"] <= 0)
             & np.where(sizes["ci_high_open"], sizes["ci_high"] > 0, sizes["ci_high"] >= 0))
    assert f"{int((~holds).sum())} of {len(sizes)} exclude 0" in captions
    different = pd.read_csv(out / "posthoc.csv")["significant"]
    assert int((~holds).sum()) == int(different.sum()) > 0
