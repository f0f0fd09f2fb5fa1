"""multitest.figures._cd_diagrams: each CD diagram draws the quantity its test tested.

Everything is read back from the SVG that Graphviz draws (xml.etree): the
label texts, the x of each leader line against the ticks of the rank axis, the
bars and the critical-difference bar.
"""
import itertools
import math
import re
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import scipy.stats
from helpers import make_frame
from test_render import synthetic_ranking

from multitest import rank
from multitest.figures._graphviz import to_svg
from multitest.figures._write import write_figures
from multitest.figures._cd_diagrams import cd_diagrams
from multitest.figures._cd_diagrams import cd_source

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
_SVG = "{http://www.w3.org/2000/svg}"
#: Demšar (2006), Table 5(a): q_0.05 of the Nemenyi test, k = 2..10 algorithms.
DEMSAR_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031, 9: 3.102,
              10: 3.164}


@pytest.fixture(scope="module")
def bundled(example):
    return {method: rank(example, "training_time", second_pass=method)
            for method in ("nemenyi", "wilcoxon", "bayesian")}


@pytest.fixture(scope="module")
def wilcoxon_60():
    """8 algorithms over 60 data sets, the Wilcoxon second pass (issue 37's case)."""
    names = ["nb", "knn", "tree", "lr", "svm", "mlp", "gb", "rf"]
    return synthetic_ranking(names, [0.02, 0.03, 0.01, 0.0, -0.01, -0.02, -0.03, -0.04],
                             n_datasets=60, seed=3, second_pass="wilcoxon")


def _first_point(group):
    """``(x, y)`` where the path of an edge group starts."""
    d = group.find(f"{_SVG}path").get("d")
    x, y = re.match(r"M(-?[\d.]+),(-?[\d.]+)", d).groups()
    return float(x), float(y)


def read_cd(svg):
    """``{'labels': [(name, printed value, rank read from the leader x)], 'bars': [(first,
    last) label numbers], 'cd': CD in ranks or None, 'texts': [all texts]}``."""
    root = ET.fromstring(svg)
    groups = {g.get("id"): g for g in root.iter(f"{_SVG}g") if g.get("id")}
    ticks = sorted((int(k[5:]), _first_point(g)[0]) for k, g in groups.items()
                   if k.startswith("tick-"))
    L = len(ticks)
    x1, xL = ticks[0][1], ticks[-1][1]

    def rank_at(x):
        return 1 + (x - x1) / (xL - x1) * (L - 1)

    labels = []
    for k in range(1, L + 1):
        text = groups[f"label-{k}"].find(f"{_SVG}text").text.split()
        name, value = (text[0], text[1]) if re.fullmatch(r"[\d.]+", text[1]) else (text[1],
                                                                                    text[0])
        labels.append((name, float(value), rank_at(_first_point(groups[f"leader-{k}"])[0])))
    bars = sorted(tuple(int(v) for v in k.split("-")[1:]) for k in groups
                  if k.startswith("bar-"))
    cd = None
    if "cd-start" in groups:
        cd = rank_at(_first_point(groups["cd-end"])[0]) - rank_at(_first_point(groups["cd-start"])[0])
    texts = [t.text or "" for t in root.iter(f"{_SVG}text")]
    return {"labels": labels, "bars": bars, "cd": cd, "texts": texts}


def expected_runs(names_in_order, different):
    """Maximal runs of consecutive algorithms with no pair ``different`` (brute force)."""
    n = len(names_in_order)
    runs = [(i, j) for i in range(n) for j in range(i + 1, n)
            if not any(different(names_in_order[a], names_in_order[b])
                       for a, b in itertools.combinations(range(i, j + 1), 2))]
    return sorted((i + 1, j + 1) for i, j in runs
                  if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in runs))


def check_positions(read, expected):
    """Every algorithm printed and placed at its expected value (to the printed digits)."""
    assert sorted(name for name, *_ in read["labels"]) == sorted(expected)
    for name, printed, at in read["labels"]:
        assert printed == pytest.approx(round(expected[name], 2), abs=1e-9)
        assert at == pytest.approx(expected[name], abs=0.005)


@needs_dot
def test_nemenyi_cd_draws_average_positions_and_the_critical_difference(bundled):
    r = bundled["nemenyi"]
    sp = r.second_pass
    read = read_cd(to_svg(cd_source(cd_diagrams(r)["cd"])))
    check_positions(read, dict(zip(sp.algorithms, sp.average_positions)))
    assert read["cd"] == pytest.approx(sp.critical_difference, abs=0.01)
    order = [name for name, *_ in read["labels"]]
    index = {a: i for i, a in enumerate(sp.algorithms)}
    assert read["bars"] == expected_runs(order, lambda a, b: abs(
        sp.average_positions[index[a]] - sp.average_positions[index[b]]) >= sp.critical_difference)
    assert any(t.startswith("Average MultiTest positions, Nemenyi test") for t in read["texts"])


@needs_dot
@pytest.mark.parametrize("which", ["bundled", "wilcoxon_60"])
def test_wilcoxon_cd_draws_error_ranks_and_cliques_of_adjusted_p(which, bundled, request):
    r = bundled["wilcoxon"] if which == "bundled" else request.getfixturevalue(which)
    sp = r.second_pass
    read = read_cd(to_svg(cd_source(cd_diagrams(r)["cd"])))
    check_positions(read, r.average_error_ranks)
    assert read["cd"] is None
    index = {a: i for i, a in enumerate(sp.algorithms)}
    adjusted = sp.posthoc.pvalues
    order = [name for name, *_ in read["labels"]]
    # A clique joins algorithms whose adjusted p-values (Holm) are all >= alpha.
    assert read["bars"] == expected_runs(
        order, lambda a, b: adjusted[index[a], index[b]] < sp.alpha)
    title = next(t for t in read["texts"] if t.startswith("Average error ranks"))
    assert "Wilcoxon signed-rank test" in title and "holm correction" in title
    assert not any("critical difference" in t.lower() or "positions" in t for t in read["texts"])


def test_wilcoxon_60_puts_rf_first_as_its_test_finds(wilcoxon_60):
    # issue 37: the diagram of positions put nb first while the test finds rf better
    r = wilcoxon_60
    diagram = cd_diagrams(r)["cd"]
    assert diagram.layout.labels[0].name == r.final_order[0] == "rf"


@needs_dot
@pytest.mark.parametrize("method", ["nemenyi", "wilcoxon", "bayesian"])
def test_cd_errors_is_demsar_diagram_of_error_ranks(method, bundled):
    r = bundled[method]
    read = read_cd(to_svg(cd_source(cd_diagrams(r)["cd_errors"])))
    check_positions(read, r.average_error_ranks)
    k, N = len(r.algorithms), len(r.datasets)
    # CD = q_alpha sqrt(k (k+1) / (6 N)), q from Demšar's table and from scipy
    q_scipy = scipy.stats.studentized_range.ppf(0.95, k, np.inf) / math.sqrt(2)
    assert q_scipy == pytest.approx(DEMSAR_Q05[k], abs=5e-4)
    cd = DEMSAR_Q05[k] * math.sqrt(k * (k + 1) / (6 * N))
    assert read["cd"] == pytest.approx(cd, abs=0.01)
    assert any(f"CD = {cd:.2f}" in t for t in read["texts"])
    order = [name for name, *_ in read["labels"]]
    assert read["bars"] == expected_runs(order, lambda a, b: abs(
        r.average_error_ranks[a] - r.average_error_ranks[b]) >= q_scipy * math.sqrt(
        k * (k + 1) / (6 * N)))


@needs_dot
def test_bayesian_pass_draws_no_critical_difference(bundled, tmp_path):
    r = bundled["bayesian"]
    assert set(cd_diagrams(r)) == {"cd_errors"}
    assert write_figures(r, tmp_path, formats=["svg"], per_dataset=False) is None
    assert not (tmp_path / "cd.svg").exists()
    from multitest.figures._report import report_html

    html = report_html(r)
    posthoc = html[html.index('<section id="posthoc">'):html.index('<section id="friedman">')]
    # the only critical difference is the one of cd_errors (Nemenyi on error ranks)
    outside = re.sub(r'<figure id="fig-cd_errors">.*?</figure>', "", posthoc, flags=re.S)
    assert "critical" not in outside.lower() and "CD" not in re.sub(r"<[^>]*>", "", outside)
    assert 'href="#fig-effects_second_pass"' in posthoc
    assert "Critical-difference diagram" not in html


def test_cd_captions_none_draws_no_title_or_caption(bundled):
    r = bundled["nemenyi"]
    for stem, diagram in cd_diagrams(r, "none").items():
        source = cd_source(diagram)
        drawn = re.findall(r'label="([^"]*)"', source)
        for line in (diagram.title, *diagram.caption):
            assert line.replace('"', '\\"') not in drawn
        assert diagram.height == diagram.layout.height


def test_incomplete_table_draws_error_ranks_without_a_test():
    rng = np.random.default_rng(0)
    errors = 0.2 + rng.normal(0, 0.03, (6, 4, 10))
    errors[0, 3] = np.nan            # d failed every fold of the first data set
    r = rank(make_frame(errors, algorithms=list("abcd")), list("abcd"), missing="partial",
             second_pass="wilcoxon")
    diagram = cd_diagrams(r)["cd_errors"]
    assert diagram.layout.cd_bar is None and diagram.layout.bars == ()
    assert "no Friedman or Nemenyi test" in " ".join(diagram.caption)
