"""Tests of multitest.stats._bayesian: Bayesian correlated t-test and signed-rank test with a ROPE.

References: the closed form of the correlated t-test posterior (Student t; Benavoli,
Corani, Demšar & Zaffalon, JMLR 18(77), 2017, section 3.2) through scipy.stats.t and
baycomp 1.0.3 (``CorrelatedTTest.probs``, exact; ``SignedRankTest.probs``, Monte Carlo);
and a brute-force S x S computation of the signed-rank posterior, written here.
"""
import json
import shutil

import numpy as np
import pytest
from helpers import make_frame
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from multitest import example_results, get_test, rank
from multitest._errors import MultitestError
from multitest.cli import main
from multitest.inputs import FoldDesign
from multitest.outputs._json import to_dict
from multitest.stats import BayesSettings, correlated_t
from multitest.stats._bayesian import fold_correlation
from multitest.stats._bayesian_signed_rank import (
    _signed_rank_winners,
    bayesian_posthoc,
    signed_rank,
)

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")

baycomp = pytest.importorskip("baycomp")


def _pairs(n, folds, seed, shift=0.01, spread=0.02):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.2, 0.03, (n, folds))
    b = a - rng.normal(shift, spread, (n, folds)) * rng.uniform(0.2, 2, (n, 1))
    return a, b


# ---------------------------------------------------------------- correlated t-test

@pytest.mark.parametrize("rope", [0.0, 0.005, 0.02])
@pytest.mark.parametrize("replications, folds", [(5, 2), (1, 10), (10, 10), (3, 5)])
def test_correlated_t_equals_baycomp(rope, replications, folds):
    # baycomp.CorrelatedTTest(x, y, rope, runs) has diff = y - x: pass the costlier as x.
    design = FoldDesign(replications, folds)
    a, b = _pairs(12, design.n, seed=replications * folds)
    result = correlated_t(a, b, rope=rope, design=design)
    for k in range(a.shape[0]):
        reference = baycomp.CorrelatedTTest.probs(b[k], a[k], rope=rope, runs=replications)
        if rope == 0:
            low, high = reference
            mid = 0.0
        else:
            low, mid, high = reference
        assert_allclose([result.cheaper_better[k], result.equivalent[k],
                         result.costlier_better[k]], [low, mid, high], rtol=1e-12, atol=1e-15)


def test_correlated_t_closed_form_is_the_student_t_posterior():
    # Student t with F - 1 df, location mean(d), scale sqrt((1/F + rho/(1 - rho)) s^2).
    a, b = _pairs(5, 10, seed=3)
    rope, rho = 0.01, 0.1
    result = correlated_t(a, b, rope=rope, rho=rho)
    d = a - b
    scale = np.sqrt((1 / 10 + rho / (1 - rho)) * d.var(axis=1, ddof=1))
    posterior = stats.t(9, loc=d.mean(axis=1), scale=scale)
    assert_allclose(result.costlier_better, posterior.sf(rope), rtol=1e-12)
    assert_allclose(result.cheaper_better, posterior.cdf(-rope), rtol=1e-12)
    assert_allclose(result.equivalent, posterior.cdf(rope) - posterior.cdf(-rope), rtol=1e-10)
    low, high = result.interval(0.9)
    assert_allclose(low, posterior.ppf(0.05), rtol=1e-12)
    assert_allclose(high, posterior.ppf(0.95), rtol=1e-12)


def test_correlated_t_vectorized_equals_one_pair_at_a_time():
    a, b = _pairs(7, 10, seed=5)
    together = correlated_t(a, b, rope=0.01, rho=0.5)
    for k in range(7):
        alone = correlated_t(a[k], b[k], rope=0.01, rho=0.5)
        assert alone.costlier_better[0] == together.costlier_better[k]
        assert alone.cheaper_better[0] == together.cheaper_better[k]


def test_correlated_t_degenerate_folds():
    a = np.full((3, 10), 0.2)
    b = np.vstack([a[0], a[1] - 0.05, a[2] + 0.001])
    result = correlated_t(a, b, rope=0.01, rho=0.5)
    # identical: equivalent; constant 0.05 better costlier: point mass beyond the ROPE;
    # constant 0.001 worse costlier: inside the ROPE.
    assert_array_equal(result.cheaper_better, [0, 0, 0])
    assert_array_equal(result.equivalent, [1, 0, 1])
    assert_array_equal(result.costlier_better, [0, 1, 0])
    no_rope = correlated_t(a, b, rope=0.0, rho=0.5)
    assert_array_equal(no_rope.costlier_better, [0.5, 1, 0])   # as baycomp with rope 0
    assert_array_equal(no_rope.cheaper_better, [0.5, 0, 1])


def test_fold_correlation_of_designs():
    assert fold_correlation(FoldDesign(5, 2)) == 0.5
    assert fold_correlation(FoldDesign(1, 10)) == 0.1
    with pytest.raises(MultitestError, match="rho"):
        fold_correlation(FoldDesign(10, 1))


@pytest.mark.parametrize("kwargs, match", [
    ({"rope": -0.1}, "`rope`"), ({"rope": float("nan")}, "`rope`"),
    ({"rho": 1.0}, "`rho`"), ({"rho": -0.1}, "`rho`"), ({}, "`rho` or `design`")])
def test_correlated_t_validates(kwargs, match):
    a, b = _pairs(1, 10, seed=1)
    with pytest.raises(MultitestError, match=match):
        correlated_t(a, b, **kwargs)


@pytest.mark.parametrize("kwargs, match", [
    ({"threshold": 0.5}, "`threshold`"), ({"threshold": 1}, "`threshold`"),
    ({"rope": -1}, "`rope`"), ({"seed": -1}, "`seed`"), ({"samples": 0}, "`samples`")])
def test_bayes_settings_validate(kwargs, match):
    with pytest.raises(MultitestError, match=match):
        BayesSettings(**kwargs)


def test_registered_test_returns_t_and_one_minus_probability():
    test = get_test("bayes-correlated-t")
    a, b = _pairs(4, 10, seed=9)
    statistic, pvalue = test(a, b, FoldDesign(5, 2))
    result = correlated_t(a, b, rope=0.0, design=FoldDesign(5, 2))
    assert_allclose(pvalue, 1 - result.costlier_better, rtol=1e-15)
    assert_allclose(statistic, result.mean / result.scale, rtol=1e-15)


# ---------------------------------------------------------------- signed-rank test

def _brute_force_winners(z, weights, rope):
    # baycomp's algorithm: the S x S table of pair sums and the double sum per sample.
    sums = z[:, None] + z[None, :]
    above = (sums > 2 * rope) + 0.5 * (sums == 2 * rope)
    below = (-sums > 2 * rope) + 0.5 * (-sums == 2 * rope)
    right = np.einsum("si,ij,sj->s", weights, above, weights)
    left = np.einsum("si,ij,sj->s", weights, below, weights)
    thetas = np.stack([left, 1 - left - right, right], axis=1)
    top = thetas == thetas.max(axis=1, keepdims=True)
    return (top / top.sum(axis=1, keepdims=True)).sum(axis=0)


@pytest.mark.parametrize("rope", [0.0, 0.01, 0.02])
def test_signed_rank_sorted_sums_equal_brute_force(rope):
    rng = np.random.default_rng(11)
    # Rounded differences: many pair sums fall exactly on the ROPE bounds and on 0.
    z = np.concatenate([[0.0], np.round(rng.normal(0.005, 0.02, 30), 2)])
    weights = rng.dirichlet(np.r_[0.5, np.ones(30)], size=2000)
    ours = _signed_rank_winners(z, np.ascontiguousarray(weights.T), rope)
    assert_allclose(ours, _brute_force_winners(z, weights, rope), rtol=0, atol=1e-9)


@pytest.mark.parametrize("rope, shift, digits", [(0.01, 0.005, None), (0.01, 0.01, 2),
                                                 (0.005, 0.0, 3), (0.0, 0.004, None)])
def test_signed_rank_equals_baycomp_to_monte_carlo_tolerance(rope, shift, digits):
    rng = np.random.default_rng(int(rope * 1000) + digits if digits else 7)
    x = rng.normal(0.2, 0.05, 30)
    y = x - rng.normal(shift, 0.02, 30)
    if digits:
        x, y = np.round(x, digits), np.round(y, digits)
    ours = signed_rank(x, y, rope=rope, samples=50_000, seed=1)
    reference = baycomp.SignedRankTest.probs(y, x, rope=rope, nsamples=50_000, random_state=1)
    if rope == 0:
        reference = (reference[0], 0.0, reference[1])
    # Two independent samples of 50000: the standard error of a difference of
    # shares is at most sqrt(2 * 0.25 / 50000) = 0.0032; 0.015 is 4.7 of them.
    assert_allclose([ours.cheaper_better[0], ours.equivalent[0], ours.costlier_better[0]],
                    reference, atol=0.015)


def test_signed_rank_degenerate_differences():
    # All differences zero: with a ROPE everything is equivalent; without one the two
    # directions tie on every sample and share it (baycomp's argmax says "left" = 1).
    a = np.full(10, 0.2)
    with_rope = signed_rank(a, a, rope=0.01, samples=1000)
    assert (with_rope.cheaper_better[0], with_rope.equivalent[0],
            with_rope.costlier_better[0]) == (0, 1, 0)
    without = signed_rank(a, a, rope=0.0, samples=1000)
    assert (without.cheaper_better[0], without.costlier_better[0]) == (0.5, 0.5)


def test_signed_rank_is_seeded_and_vectorized():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.2, 0.05, (4, 20)), rng.normal(0.2, 0.05, (4, 20))
    together = signed_rank(a, b, rope=0.01, samples=5000, seed=4)
    again = signed_rank(a, b, rope=0.01, samples=5000, seed=4)
    assert_array_equal(together.costlier_better, again.costlier_better)
    for k in range(4):
        alone = signed_rank(a[k], b[k], rope=0.01, samples=5000, seed=4)
        assert alone.costlier_better[0] == together.costlier_better[k]
        assert alone.equivalent[0] == together.equivalent[k]
    assert_allclose(together.cheaper_better + together.equivalent + together.costlier_better, 1)


def test_bayesian_posthoc_orients_pairs():
    rng = np.random.default_rng(8)
    errors = rng.normal(0.2, 0.02, (25, 3))
    errors[:, 2] -= 0.05          # algorithm 2 clearly better than both others
    posthoc = bayesian_posthoc(errors, BayesSettings(rope=0.01, samples=4000), alpha=0.05)
    assert posthoc.better[2, 0] >= 0.95 and posthoc.better[2, 1] >= 0.95
    assert posthoc.significant[2, 0] and posthoc.significant[0, 2]
    direct = signed_rank(errors[:, 0], errors[:, 1], rope=0.01, samples=4000, seed=0)
    assert posthoc.better[1, 0] == direct.costlier_better[0]
    assert posthoc.better[0, 1] == direct.cheaper_better[0]
    assert posthoc.equivalent[0, 1] == posthoc.equivalent[1, 0] == direct.equivalent[0]
    assert_allclose(posthoc.pvalues, posthoc.pvalues.T)


# ---------------------------------------------------------------- in rank() and the CLI

def test_rank_overrides_exactly_when_probability_reaches_threshold():
    results = example_results()
    for threshold in (0.9, 0.99):
        ranking = rank(results, "training_time", test="bayes-correlated-t", rope=0.5,
                       min_probability=threshold, datasets=["optdigits", "iris", "wine"])
        for r in ranking.datasets:
            errors = results.errors[results.datasets.index(r.name)]
            for pair in r.pairs():
                a, b = (r.algorithms.index(pair["a"]), r.algorithms.index(pair["b"]))
                reference = correlated_t(errors[a], errors[b], rope=0.5,
                                         design=results.design)
                assert pair["pvalue"] == pytest.approx(1 - reference.costlier_better[0],
                                                       abs=1e-14)
                assert pair["override"] == (reference.costlier_better[0] >= threshold)
    doc = to_dict(ranking)
    pairs = doc["datasets"]["optdigits"]["pairwise"]
    for p in pairs:
        total = p["p_cheaper_better"] + p["p_equivalent"] + p["p_costlier_better"]
        assert total == pytest.approx(1, abs=1e-12)
        # Recomputed on demand: the same number as the stored 1 - pvalue, bit for bit.
        assert p["pvalue"] == 1 - p["p_costlier_better"]
    assert all(e["p_costlier_better"] >= 0.99 for e in doc["datasets"]["optdigits"]["edges"])
    assert doc["settings"]["rope"] == 0.5 and doc["settings"]["min_probability"] == 0.99
    assert doc["effect_sizes"]["rho"] == 0.5        # 5x2 cv: n_test / n_total
    assert any("rho = n_test/n_total = 0.5" in note for note in ranking.notes)


def test_bayesian_second_pass_is_not_gated_and_decides_by_probability():
    errors = np.random.default_rng(4).normal(0.2, 0.01, (12, 3, 10))
    errors[:, 1] -= 0.03          # the costlier a1 is better on every data set
    ranking = rank(make_frame(errors), ["a0", "a1", "a2"], second_pass="bayesian", rope=0.01,
                   bayes_seed=3)
    sp = ranking.second_pass
    assert sp.method == "bayesian" and sp.applied and "not a gate" in sp.gate
    assert ("a0", "a1") in sp.edges() and ranking.final_order[0] == "a1"
    doc = to_dict(ranking)
    rows = {(r["a"], r["b"]): r for r in doc["second_pass"]["effect_sizes"]}
    assert rows[("a0", "a1")]["p_b_better"] >= 0.95
    assert doc["settings"]["bayes_seed"] == 3


def test_cli_bayesian_options(tmp_path, capsys):
    errors = np.random.default_rng(5).normal(0.2, 0.01, (6, 3, 10))
    errors[:, 2] -= 0.02
    path = tmp_path / "results.csv"
    make_frame(errors).to_csv(path, index=False)
    out = tmp_path / "out"
    status = main(["rank", str(path), "--order", "a0,a1,a2", "--test", "bayes-correlated-t",
                   "--rope", "0.005", "--min-probability", "0.9", "--second-pass", "bayesian",
                   "--bayes-seed", "7", "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    doc = json.loads((out / "result.json").read_text())
    assert doc["settings"]["min_probability"] == 0.9 and doc["settings"]["bayes_seed"] == 7
    assert "p_costlier_better" in (out / "pairwise.csv").read_text().splitlines()[0]
    for argv, match in ((["--rope", "-1"], "`rope`"),
                        (["--min-probability", "0.2"], "`min_probability`"),
                        (["--correction", "holm"], "`correction`")):
        capsys.readouterr()
        status = main(["rank", str(path), "--order", "a0,a1,a2", "--test",
                       "bayes-correlated-t", *argv])
        err = capsys.readouterr().err
        assert status == 2 and match in err and len(err.strip().splitlines()) == 1
    # The old spelling of --min-probability is gone (issue 38: one name, no alias).
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        main(["rank", str(path), "--order", "a0,a1,a2", "--test", "bayes-correlated-t",
              "--threshold", "0.9"])
    assert stop.value.code == 2 and capsys.readouterr().err == (
        "multitest: error: unrecognized arguments: --threshold 0.9 (see multitest --help)\n")


# ---------------------------------------------------------------- figure and report

@needs_dot
def test_probability_figure_draws_what_it_says(tmp_path):
    import re
    import xml.etree.ElementTree as ET

    from multitest.figures._graphviz import to_svg
    from multitest.figures._write import write_figures
    from multitest.figures._report import report_html
    from multitest.figures._bayes import bayes_figures

    results = example_results()
    ranking = rank(results, "training_time", test="bayes-correlated-t", rope=1.0,
                   second_pass="bayesian", datasets=["optdigits", "iris", "wine", "vote"])
    figures = bayes_figures(ranking)
    assert set(figures) == {"effects_second_pass", "dataset_effects_optdigits",
                            "dataset_effects_iris", "dataset_effects_wine",
                            "dataset_effects_vote"}
    # Read back from the SVG that dot draws: each element found by its id.
    svg = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(to_svg(figures["dataset_effects_optdigits"][0]))
    groups = {g.get("id"): g for g in root.iter(f"{svg}g") if g.get("id")}

    def ends(group):
        """x of the first and last point of an edge's path."""
        numbers = [float(v) for v in re.findall(r"-?[\d.]+", group.find(f".//{svg}path").get("d"))]
        return numbers[0], numbers[-2]

    # The threshold lines stand at shares 0.05 and 0.95 of the bar: the scale share -> x.
    t = ranking.settings.min_probability
    x_low, x_high = ends(groups["threshold-costlier"])[0], ends(groups["threshold-cheaper"])[0]
    def x_of(share):
        return x_low + (share - (1 - t)) / (2 * t - 1) * (x_high - x_low)

    columns = {(p["a"], p["b"]): p for p in to_dict(ranking)["datasets"]["optdigits"]["pairwise"]}
    assert len(columns) == 28
    for (a, b), row in columns.items():
        shares = [row["p_cheaper_better"], row["p_equivalent"], row["p_costlier_better"]]
        start = 0.0
        for key, share in zip(("cheaper", "equivalent", "costlier"), shares):
            part = groups.get(f"p-{key}:{a}|{b}")
            assert (part is not None) == (share > 0)
            if part is not None:
                # Each part begins where the one before ends: its length is its probability.
                x0, x1 = ends(part)
                assert x0 == pytest.approx(x_of(start), abs=0.02)
                assert x1 == pytest.approx(min(x_of(start + share) + 0.5, x_of(1.0)), abs=0.02)
            start += share
    # Estimates lie inside their intervals, in drawn coordinates.
    for pair in (f"{a}|{b}" for a, b in columns):
        mark = groups[f"estimate:{pair}"]
        shape = mark.find(f"{svg}ellipse")
        if shape is not None:
            x = float(shape.get("cx"))
        else:       # a square: the middle of its corners
            xs = [float(v) for v in re.findall(r"-?[\d.]+",
                                                mark.find(f"{svg}polygon").get("points"))[0::2]]
            x = (min(xs) + max(xs)) / 2
        low, high = sorted(ends(groups[f"interval:{pair}"]))
        assert low - 0.01 <= x <= high + 0.01
    write_figures(ranking, tmp_path, formats=["svg"])
    assert all((tmp_path / f"{stem}.svg").exists() and (tmp_path / f"{stem}.dot").exists()
               for stem in figures)
    page = report_html(ranking)
    assert 'id="effect-sizes"' in page and "http://" not in page.split("<body>")[1]


def test_docstring_examples():
    import doctest

    import multitest.stats._bayesian

    result = doctest.testmod(multitest.stats._bayesian, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_stability_refuses_the_bayesian_second_pass():
    from multitest import stability

    with pytest.raises(MultitestError, match="`second_pass`: the stability bootstrap"):
        stability(example_results(), "training_time", bootstrap=2, second_pass="bayesian")
