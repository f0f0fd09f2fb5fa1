"""Stability of the final order: bootstrap over data sets, α grid, cost profiles."""
import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from helpers import make_frame

from multitest import MultitestError, load_results, profile_from_order, rank
from multitest.engine import Settings, second_pass
from multitest.engine._stability import (
    MAX_DRAWS,
    _bootstrap_orders,
    stability,
    stability_text,
    stability_to_dict,
)
from multitest.figures._stability import (
    orders_table_html,
    stability_heatmap_svg,
    write_stability_report,
)

SVG = "{http://www.w3.org/2000/svg}"


def dominant_case(n_datasets=40, n_folds=20, seed=1):
    """D, the costliest of A < B < C < D, is far better everywhere; A, B, C tie exactly.

    On every data set the k-fold t test finds D better than each of A, B, C
    (errors 0.05 against 0.30, noise 0.01) and nothing else (A, B and C have
    identical errors: t = 0, p = 1), so MultiTest ranks D 1, A 2, B 3, C 4
    everywhere.  Every resample therefore has the same rank matrix: Friedman
    rejects, Nemenyi's CD for L = 4, S = 40 is 0.74 < 1, so D overrides A, B
    and C, and B, C (worse average ranks than A) override nothing.  The final
    order is D, A, B, C on every resample.
    """
    rng = np.random.default_rng(seed)
    shared = 0.30 + rng.normal(0, 0.01, size=(n_datasets, 1, n_folds))
    errors = np.repeat(shared, 4, axis=1)
    errors[:, 3] = 0.05 + rng.normal(0, 0.01, size=(n_datasets, n_folds))
    frame = make_frame(errors, algorithms=["A", "B", "C", "D"], replications=1)
    return load_results(frame), profile_from_order(["A", "B", "C", "D"])


def tied_case(n_datasets=12):
    """Identical errors for all five algorithms on every data set: cost order everywhere."""
    rng = np.random.default_rng(2)
    errors = np.repeat(rng.uniform(0.1, 0.4, size=(n_datasets, 1, 10)), 5, axis=1)
    frame = make_frame(errors, algorithms=["A", "B", "C", "D", "E"])
    return load_results(frame), profile_from_order(["E", "C", "A", "D", "B"])


@pytest.fixture(scope="module")
def bundled(example):
    return stability(example, "training_time", bootstrap=300, seed=0,
                     profiles=["space_complexity", "time_and_space"])


# -- cases whose answer is known ---------------------------------------------------

def test_dominant_algorithm_is_always_first():
    results, costs = dominant_case()
    reference = rank(results, costs, test="kfold-t")
    assert reference.final_order == ("D", "A", "B", "C")
    assert reference.friedman.pvalue < 0.05
    result = stability(results, costs, test="kfold-t", bootstrap=200, seed=3)
    assert result.first_probability == {"A": 0.0, "B": 0.0, "C": 0.0, "D": 1.0}
    d = result.algorithms.index("D")
    np.testing.assert_array_equal(result.position_probability[d], [1, 0, 0, 0])
    expected = np.zeros((4, 4))
    for position, name in enumerate(("D", "A", "B", "C")):
        expected[result.algorithms.index(name), position] = 1
    np.testing.assert_array_equal(result.position_probability, expected)
    assert result.reference_frequency == 1.0
    assert result.posthoc_fraction == 1.0
    assert result.order_frequencies == ((("D", "A", "B", "C"), 1.0),)


@pytest.mark.parametrize("options", [
    {}, {"second_pass": "wilcoxon"}, {"second_pass": "sign"},
    {"friedman_gate": False}, {"second_pass": "wilcoxon", "friedman_gate": False},
])
def test_identical_errors_give_the_cost_order(options):
    results, costs = tied_case()
    result = stability(results, costs, bootstrap=100, seed=5, **options)
    cost_order = ("E", "C", "A", "D", "B")
    assert result.reference_order == cost_order
    expected = np.zeros((5, 5))
    for position, name in enumerate(cost_order):
        expected[result.algorithms.index(name), position] = 1
    np.testing.assert_array_equal(result.position_probability, expected)
    assert result.first_probability["E"] == 1.0
    assert all(order == cost_order for order in result.orders_by_alpha.values())


# -- the resampling shortcut agrees with the full second pass -------------------------

@pytest.mark.parametrize("method", ["nemenyi", "wilcoxon", "sign"])
@pytest.mark.parametrize("n_datasets", [38, 5])
@pytest.mark.parametrize("gate", [True, False])
def test_bootstrap_orders_match_second_pass(example, method, n_datasets, gate):
    results = example.subset(datasets=example.datasets[:n_datasets])
    reference = rank(results, "time_then_space")
    ranks = reference.ranks_frame().to_numpy(dtype=float)
    mean_errors = reference.datasets[0].table.mean_errors
    keys = reference.profile.keys(results.datasets, results.algorithms)
    draws = np.random.default_rng(11).integers(0, n_datasets, size=(25, n_datasets))
    settings = Settings.from_options(second_pass=method, friedman_gate=gate)   # holm: default
    orders, applied = _bootstrap_orders(ranks, mean_errors, keys, results.algorithms, draws,
                                        settings)
    for idx, order, was_applied in zip(draws, orders, applied):
        _, full = second_pass(ranks[idx], mean_errors[idx], keys[:, idx], results.algorithms,
                              method=method, alpha=0.05, correction="holm",
                              friedman_gate=gate)
        assert tuple(results.algorithms[i] for i in order) == full.order
        assert was_applied == full.applied


def test_small_pool_sees_both_gate_outcomes(example):
    results = example.subset(datasets=example.datasets[:5])
    result = stability(results, "training_time", bootstrap=200)
    assert 0 < result.posthoc_fraction < 1


# -- reproducibility and bookkeeping ---------------------------------------------------

def test_same_seed_same_result(example, bundled):
    again = stability(example, "training_time", bootstrap=300, seed=0,
                      profiles=["space_complexity", "time_and_space"])
    np.testing.assert_array_equal(again.position_probability, bundled.position_probability)
    assert again.order_frequencies == bundled.order_frequencies
    assert stability_to_dict(again) == stability_to_dict(bundled)


def test_different_seed_different_counts(example, bundled):
    other = stability(example, "training_time", bootstrap=300, seed=1, alphas=())
    assert not np.array_equal(other.position_probability, bundled.position_probability)
    assert other.reference_order == bundled.reference_order


def test_probabilities_are_distributions(bundled):
    p = bundled.position_probability
    assert p.shape == (8, 8)
    np.testing.assert_allclose(p.sum(axis=1), 1)
    np.testing.assert_allclose(p.sum(axis=0), 1)
    assert not p.flags.writeable
    counts = p * bundled.bootstrap
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    # non-trivial: some algorithm moves between positions
    assert ((p > 0) & (p < 1)).any()
    assert bundled.first_probability == {a: p[i, 0] for i, a in enumerate(bundled.algorithms)}
    assert sum(f for _, f in bundled.order_frequencies) == pytest.approx(1)
    frame = bundled.position_frame()
    assert list(frame.index) == list(bundled.reference_order)
    assert list(frame.columns) == list(range(1, 9))


def test_alpha_grid_and_profiles_match_rank(example, bundled):
    assert bundled.alphas == (0.01, 0.05, 0.10)
    assert bundled.orders_by_alpha[0.05] == rank(example, "training_time").final_order
    assert bundled.orders_by_alpha[0.01] == rank(example, "training_time",
                                                 alpha=0.01).final_order
    assert bundled.reference_order == rank(example, "training_time").final_order
    assert bundled.profiles == ("space_complexity", "time_and_space")
    assert (bundled.orders_by_profile["space_complexity"]
            == rank(example, "space_complexity").final_order)
    assert (bundled.orders_by_profile["time_and_space"]
            == rank(example, "time_and_space").final_order)


def test_rank_options_are_passed_on(example):
    result = stability(example, "training_time", bootstrap=20, alpha=0.1,
                       second_pass="wilcoxon", alphas=[0.05, 0.01, 0.05],
                       algorithms=["c45", "svl", "5nn", "mlp"])
    assert result.algorithms == ("c45", "svl", "5nn", "mlp")
    assert result.settings["alpha"] == 0.1
    assert result.settings["second_pass"] == "wilcoxon"
    assert result.settings["bootstrap"] == 20
    assert result.alphas == (0.01, 0.05)
    expected = rank(example, "training_time", alpha=0.01, second_pass="wilcoxon",
                    algorithms=["c45", "svl", "5nn", "mlp"]).final_order
    assert result.orders_by_alpha[0.01] == expected


def test_text_and_dict(bundled):
    text = stability_text(bundled)
    for name in bundled.algorithms:
        assert name in text
    assert "alpha=0.01" in text and "space_complexity" in text
    assert "300 bootstrap resamples of the 38 data sets" in text
    doc = json.loads(json.dumps(stability_to_dict(bundled)))
    assert doc["reference_order"] == list(bundled.reference_order)
    assert doc["orders_by_alpha"]["0.05"] == list(bundled.orders_by_alpha[0.05])
    assert doc["orders_by_profile"]["space_complexity"] == list(
        bundled.orders_by_profile["space_complexity"])
    for row in doc["position_probability"].values():
        assert sum(row) == pytest.approx(1)
    assert len(stability_to_dict(bundled, top_orders=2)["order_frequencies"]) == 2


# -- rendering -----------------------------------------------------------------------

def test_heatmap_svg(bundled):
    svg = stability_heatmap_svg(bundled)
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    rects = root.findall(f".//{SVG}rect")
    assert len(rects) == 8 * 8
    assert all(r.get("class").startswith("cell") for r in rects)
    labels = {"".join(t.itertext()) for t in root.iter(SVG + "text")}
    for name in bundled.algorithms:
        assert any(name in label for label in labels)
    # shading grows with the probability
    first = bundled.reference_order[0]
    assert bundled.first_probability[first] > 0.5
    fills = [r.get("fill") for r in rects]
    assert "#ffffff" in fills


def test_heatmap_text_contrast(bundled, tmp_path):
    # Every number on every shade at 4.5:1 or more (WCAG 2.1 AA; reference values of
    # the contrast function in test_render_layout.test_contrast_reference_values).
    from test_render_layout import low_contrast_texts

    path = tmp_path / "heatmap.svg"
    path.write_text(stability_heatmap_svg(bundled), encoding="utf-8")
    assert low_contrast_texts(path) == []


def test_heatmap_many_long_names():
    names = [f"algorithm <{i}> & a very long descriptive name number {i:02d} of the pool"
             for i in range(50)]
    rng = np.random.default_rng(4)
    errors = rng.uniform(0.1, 0.5, size=(6, 50, 10))
    results = load_results(make_frame(errors, algorithms=names))
    result = stability(results, profile_from_order(names), bootstrap=10, alphas=())
    svg = stability_heatmap_svg(result)
    root = ET.fromstring(svg)
    assert len(root.findall(f".//{SVG}rect")) == 50 * 50
    for name in names:
        assert name in svg.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    assert float(root.get("width")) < 2500


def test_orders_table_html(bundled):
    table = orders_table_html(bundled)
    root = ET.fromstring(table)
    header = [th.text for th in root.find("thead").iter("th")]
    assert header[1].startswith("reference")
    assert "alpha=0.01" in header and "space_complexity" in header
    body = root.find("tbody").findall("tr")
    assert len(body) == 8
    assert [tr.findall("td")[0].text for tr in body] == list(bundled.reference_order)


def test_report_is_self_contained_and_atomic(bundled, tmp_path):
    target = tmp_path / "stability.html"
    target.write_text("old")
    written = write_stability_report(bundled, target)
    assert written == str(target)
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert "src=" not in page and "href=" not in page and "@import" not in page
    assert os.listdir(tmp_path) == ["stability.html"]


# -- invalid parameters ----------------------------------------------------------------

@pytest.mark.parametrize("options, parameter", [
    ({"bootstrap": 0}, "bootstrap"),
    ({"bootstrap": 2.5}, "bootstrap"),
    ({"bootstrap": True}, "bootstrap"),
    ({"n_bootstrap": 5}, "n_bootstrap"),     # the old keyword (issue 38): no alias
    ({"seed": -1}, "seed"),
    ({"seed": "x"}, "seed"),
    ({"alphas": (0.05, 1.0)}, "alphas"),
    ({"alphas": (0,)}, "alphas"),
    ({"alphas": ["a"]}, "alphas"),
    ({"alphas": None}, "alphas"),
    ({"profiles": 3}, "profiles"),
    ({"profiles": ["training_time", "training_time"]}, "profiles"),
    ({"alpha": 2}, "alpha"),
    ({"datasets": ["optdigits"]}, "results"),
    ({"bogus": 1}, "bogus"),
])
def test_bad_parameters(example, options, parameter):
    with pytest.raises(MultitestError, match=f"`{parameter}`"):
        stability(example, "training_time", bootstrap=options.pop("bootstrap", 5),
                  **options)


def test_more_draws_than_fit_at_once_are_refused(example):
    # 10^8 resamples of the report's 38 data sets asked NumPy for 28 GiB of draws: a
    # MemoryError traceback.  The limit counts resamples x data sets.
    n = MAX_DRAWS // example.n_datasets + 1
    with pytest.raises(MultitestError, match=f"`bootstrap`: {n:,} resamples "
                       f"of {example.n_datasets} data sets are {n * example.n_datasets:,} draws"):
        stability(example, "training_time", bootstrap=n)


def test_stability_text_aligns_on_the_printed_names():
    # Names with control characters are printed escaped (4-6 characters each) and CJK names
    # take two columns a character: the right-aligned "ref" column ends at the same printed
    # column on every row of the position table, and nothing raw reaches the terminal.
    import re

    from multitest._format import printed_width

    names = ["knn", "red\x1b[31m", "evil\u202eflip", "\u6c7a\u5b9a\u6728", "bell\x07"]
    errors = 0.2 + 0.01 * np.arange(5)[None, :, None] + np.zeros((4, 5, 10))
    result = stability(load_results(make_frame(errors, algorithms=names)),
                       profile_from_order(names), bootstrap=10, alphas=())
    text = stability_text(result)
    lines = text.splitlines()
    first = lines.index(next(line for line in lines if line.startswith("algorithm")))
    end_of_ref = printed_width(lines[first][:lines[first].index("ref") + 3])
    for position, line in enumerate(lines[first + 2:first + 2 + len(names)], start=1):
        ref = re.search(rf"\s{position}\s", line)      # the first cell after the name
        assert printed_width(line[:ref.end() - 1]) == end_of_ref, line
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text


def test_stability_text_names_what_decided_each_stage(example):
    # It printed "Test bayes-correlated-t, alpha=0.05, correction none": alpha and the
    # correction are the second pass's here, the Bayesian test decides by probability.
    result = stability(example, "training_time", bootstrap=5, alphas=(),
                       test="bayes-correlated-t")
    assert ("Cost profile training_time; test bayes-correlated-t (override when P(costlier "
            "practically better) >= 0.95, rope 0); second pass nemenyi at alpha 0.05."
            in stability_text(result).splitlines())


def test_bootstrap_seed_does_not_overwrite_the_bayes_seed(example):
    # stability() recorded dict(settings.to_dict(), seed=seed): the bootstrap seed took the
    # place of the Bayesian signed-rank test's seed in the settings (issue 38).  The two are
    # now `seed` (the resamples') and `bayes_seed` (the reference analysis's).
    result = stability(example, "training_time", bootstrap=20, seed=7, alphas=(),
                       test="bayes-correlated-t", rope=0.5, min_probability=0.9)
    reference = rank(example, "training_time", test="bayes-correlated-t", rope=0.5,
                     min_probability=0.9)
    assert reference.settings.bayes_seed == 0 and result.seed == 7
    assert result.settings == dict(reference.settings.to_dict(), bootstrap=20, seed=7,
                                   n_datasets=example.n_datasets,
                                   n_algorithms=example.n_algorithms)
    assert result.settings["bayes_seed"] == 0 and result.settings["min_probability"] == 0.9
    assert result.reference_order == reference.final_order
    # Another bootstrap seed draws other resamples, the reference analysis is the same one.
    other = stability(example, "training_time", bootstrap=20, seed=8, alphas=(),
                      test="bayes-correlated-t", rope=0.5, min_probability=0.9)
    assert {k: v for k, v in other.settings.items() if k != "seed"} == \
        {k: v for k, v in result.settings.items() if k != "seed"}
    assert stability_to_dict(result)["settings"]["bayes_seed"] == 0
    # The Bayes seed seeds the Bayesian second pass only, which the bootstrap refuses.
    with pytest.raises(MultitestError, match="^`bayes_seed` does not apply to the stability"):
        stability(example, "training_time", bootstrap=5, bayes_seed=3)
