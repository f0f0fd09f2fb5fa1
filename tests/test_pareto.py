"""multitest.figures._pareto: the error–cost picture, read back from the SVG Graphviz draws.

Every algorithm sits at its (cost, error) within a pixel of the scale its axis
ticks give; the front is the one computed here by brute force; no two labels'
boxes intersect and no label covers a point, at 8 and at 60 algorithms.  The
elements are found by their ids in the SVG (``point:<name>``, ``label-box:<name>``,
``override:<cheaper>:<costlier>``, ``x-tick:<value>``, ...).
"""
import itertools
import math
import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from test_render import synthetic_ranking

from multitest import profile_from_order, rank
from multitest.figures._graphviz import to_svg
from multitest.figures._pareto import pareto_figures, pareto_front, pareto_layout, pareto_source

_SVG = "{http://www.w3.org/2000/svg}"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")


@pytest.fixture(scope="module")
def bundled(example):
    return rank(example, "training_time")


@pytest.fixture(scope="module")
def sixty():
    """60 algorithms over 30 data sets, costlier ones better: overrides of the Wilcoxon pass."""
    rng = np.random.default_rng(5)
    names = [f"algorithm_{k:02d}" for k in range(60)]
    means = np.linspace(0.0, -0.25, 60) + rng.normal(0, 0.03, 60)
    return synthetic_ranking(names, means, n_datasets=30, seed=5, second_pass="wilcoxon")


def front_by_brute_force(costs, errors):
    """Not dominated: no other point at most as costly and as erroneous, better in one."""
    L = len(costs)
    return [not any(costs[j] <= costs[i] and errors[j] <= errors[i]
                    and (costs[j] < costs[i] or errors[j] < errors[i]) for j in range(L))
            for i in range(L)]


def _first_point(group):
    """``(x, y)`` where the path of an edge group starts."""
    d = group.find(f".//{_SVG}path").get("d")
    return tuple(float(v) for v in re.match(r"M(-?[\d.]+),(-?[\d.]+)", d).groups())


def _bounds(polygon):
    numbers = [float(v) for v in re.split(r"[ ,]", polygon.get("points").strip())]
    xs, ys = numbers[0::2], numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def read_pareto(source):
    """What the SVG drawn by dot from ``source`` shows: ``{kind: {key: element group}}``
    for the ids ``kind:key``, and ``{class: [groups]}`` under ``'class'``."""
    root = ET.fromstring(to_svg(source))
    tags = {"class": {}}
    for g in root.iter(f"{_SVG}g"):
        kind, _, key = (g.get("id") or "").partition(":")
        if key:
            tags.setdefault(kind, {})[key] = g
        for css in (g.get("class") or "").split():
            tags["class"].setdefault(css, []).append(g)
    return tags


def texts(groups):
    return [t.text for g in groups for t in g.iter(f"{_SVG}text")]


def axis_scale(ticks, coordinate, log):
    """value -> pixel, fitted on the ticks (their value in the id, and the coordinate)."""
    values = np.array([float(v) for v in ticks])
    pixels = np.array([_first_point(g)[coordinate] for g in ticks.values()])
    values = np.log10(values) if log else values
    slope, intercept = np.polyfit(values, pixels, 1)
    return lambda v: slope * (math.log10(v) if log else v) + intercept, abs(slope)


def intersects(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check_picture(source, costs, errors, positions, overrides, log):
    tags = read_pareto(source)
    x_of, _ = axis_scale(tags["x-tick"], 0, log)
    y_of, _ = axis_scale(tags["y-tick"], 1, False)
    points = {name: g.find(f"{_SVG}ellipse") for name, g in tags["point"].items()}
    assert set(points) == set(costs)
    names = sorted(costs)
    front = dict(zip(names, front_by_brute_force([costs[n] for n in names],
                                                 [errors[n] for n in names])))
    for name, circle in points.items():
        # within a pixel of where the axis scale puts (cost, error)
        assert float(circle.get("cx")) == pytest.approx(x_of(costs[name]), abs=1.0)
        assert float(circle.get("cy")) == pytest.approx(y_of(errors[name]), abs=1.0)
        assert ("front" in tags["point"][name].get("class").split()) == front[name]
        assert (circle.get("fill") != "white") == front[name]
    labels = {name: texts([g])[0] for name, g in tags["label"].items()}
    assert labels == {n: f"{n} ({positions[n]})" for n in names}
    boxes = [_bounds(g.find(f"{_SVG}polygon")) for g in tags["label-box"].values()]
    assert len(boxes) == len(names)
    for a, b in itertools.combinations(boxes, 2):
        assert not intersects(a, b)
    for circle in points.values():
        cx, cy, r = (float(circle.get(k)) for k in ("cx", "cy", "rx"))
        assert not any(intersects(box, (cx - r, cy - r, cx + r, cy + r)) for box in boxes)
    drawn = {tuple(key.split(":")) for key in tags.get("override", {})}
    assert drawn == set(overrides)
    return tags


def test_pareto_front_matches_brute_force():
    rng = np.random.default_rng(0)
    for _ in range(50):
        costs, errors = rng.integers(0, 6, 12), rng.integers(0, 6, 12)   # ties included
        assert pareto_front(costs, errors).tolist() == front_by_brute_force(costs, errors)


@needs_dot
def test_bundled_pareto_places_every_algorithm(bundled):
    sp = bundled.second_pass
    svg = pareto_figures(bundled, per_dataset=False)["pareto"][0]
    costs = dict(zip(sp.algorithms, sp.average_costs))
    position = {a: k for k, a in enumerate(bundled.final_order, start=1)}
    # costs 0.75 .. 73: under two decades, a linear axis
    assert max(costs.values()) / min(costs.values()) < 100
    tags = check_picture(svg, costs, bundled.average_error_ranks, position, sp.edges(), False)
    assert "average error rank" in texts(tags["class"]["y-title"])[0]
    assert "normalized training time" in texts(tags["class"]["x-title"])[0]


@needs_dot
def test_dataset_pareto_uses_mean_errors_stage_one_overrides_and_a_log_axis(bundled):
    figures = pareto_figures(bundled)
    result = next(r for r in bundled.datasets if r.name == "car")
    index = {a: i for i, a in enumerate(result.algorithms)}
    costs = {a: result.costs[index[a]] for a in result.algorithms}
    assert max(costs.values()) / min(costs.values()) > 100     # 0.05 .. 100: log axis
    position = {a: k for k, a in enumerate(result.order, start=1)}
    overrides = [(a, b) for a, b, *_ in result.edges()]
    assert overrides
    check_picture(figures["pareto_car"][0], costs, result.mean_errors, position, overrides,
                  True)


@needs_dot
def test_sixty_algorithms_labels_never_overlap(sixty):
    sp = sixty.second_pass
    assert sp.edges()
    svg = pareto_figures(sixty, per_dataset=False)["pareto"][0]
    position = {a: k for k, a in enumerate(sixty.final_order, start=1)}
    check_picture(svg, dict(zip(sp.algorithms, sp.average_costs)), sixty.average_error_ranks,
                  position, sp.edges(), False)


@pytest.mark.parametrize("L", [8, 60])
def test_labels_of_crowded_points_never_overlap(L):
    # every point in one corner: most labels go far, with leader lines, or to the column
    rng = np.random.default_rng(L)
    names = [f"a{k}" for k in range(L)]
    costs = np.r_[rng.random(L - 1) * 0.01, 1.0]
    errors = np.r_[rng.random(L - 1) * 0.01, 1.0]
    layout = pareto_layout(names, costs + 1, errors, list(range(1, L + 1)))
    boxes = [p.box for p in layout.points]
    for a, b in itertools.combinations(boxes, 2):
        assert not intersects(a, b)
    for p in layout.points:
        assert not any(intersects(box, (p.x - 4, p.y - 4, p.x + 4, p.y + 4)) for box in boxes)
        far = math.dist((p.x, p.y), ((p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2))
        assert p.leader is not None or far < 40
    assert layout.height >= max(box[3] for box in boxes)
    assert 'id="point:a0"' in pareto_source(layout)


@needs_dot
def test_single_dataset_pareto_is_mean_error_against_cost():
    r = rank(synthetic_ranking(list("abcd"), [0, -0.1, -0.05, -0.2], n_datasets=1).results,
             profile_from_order(list("abcd")))
    figures = pareto_figures(r)
    assert set(figures) == {"pareto"}
    tags = read_pareto(figures["pareto"][0])
    assert texts(tags["class"]["y-title"]) == ["mean error"]


@needs_dot
def test_captions_none_draws_no_title_or_caption(bundled):
    svg, title, caption = pareto_figures(bundled, "none", per_dataset=False)["pareto"]
    tags = read_pareto(svg)
    assert "title" not in tags["class"] and "caption" not in tags["class"]
    drawn = " ".join(t.text or "" for t in ET.fromstring(to_svg(svg)).iter(f"{_SVG}text"))
    assert title not in drawn and not any(line in drawn for line in caption)
