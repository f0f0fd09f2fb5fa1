"""Figures of every stage (multitest.figures): DOT content, layout, files."""
import html
import itertools
import re
import shutil
import subprocess

import networkx as nx
import numpy as np
import pytest
from helpers import make_frame

from multitest import load_results, profile_from_order, rank
from multitest._errors import MultitestError
from multitest._format import format_p
from multitest.figures import (
    cd_groups,
    cd_layout,
    dataset_stems,
    figures,
    ranking_html,
    render_cd_diagram,
    render_final,
    render_override_graph,
    render_second_pass,
    render_significance_matrix,
    render_trace,
    safe_filename,
    write_figures,
)

HAS_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")

OPTDIGITS_PRIOR = ("5nn", "c45", "lnp", "mlp", "svr", "svl", "sv2", "mdt")
OPTDIGITS_ORDER = ("svr", "svl", "sv2", "5nn", "mlp", "lnp", "mdt", "c45")


@pytest.fixture(scope="module")
def ranking(example):
    return rank(example, "training_time")


def synthetic_ranking(names, means, n_datasets=12, seed=0, order=None, spread=0.015,
                      **options):
    """Errors: data-set shift + algorithm mean + (data set, algorithm) effect of sd
    ``spread`` + fold noise; the prior is ``order`` (default ``names``)."""
    rng = np.random.default_rng(seed)
    means = np.asarray(means, dtype=float)
    errors = (0.3 + rng.normal(0, 0.02, (n_datasets, 1, 1)) + means[None, :, None]
              + rng.normal(0, spread, (n_datasets, len(names), 1))
              + rng.normal(0, 0.01, (n_datasets, len(names), 10)))
    frame = make_frame(errors, datasets=[f"data set {i}" for i in range(n_datasets)],
                       algorithms=list(names))
    return rank(load_results(frame), profile_from_order(list(order or names)), **options)


@pytest.fixture(scope="module")
def with_edges():
    """Costlier algorithms clearly better: the second pass has overrides; awkward names."""
    names = ["cheap", "mid <1>", 'q"uote', "better & co", "best\\expensive", "slow"]
    r = synthetic_ranking(names, [0.0, -0.05, -0.04, -0.15, -0.2, -0.01])
    assert r.second_pass.applied and r.second_pass.edges()
    return r


def node_labels(source):
    """``{node id: label text}`` of the nodes declared in a DOT source."""
    found = re.findall(r"^\s*(\w+) \[label=<(.*)>(?=\]$| \w+=)", source, re.M)
    return {node: label for node, label in found if node not in ("graph", "node", "edge")}


def visible_edges(source):
    """``[(tail, head, attributes)]`` of the edges that are not invisible."""
    edges = re.findall(r"^\s*(\w+) -> (\w+)(?: \[(.*)\])?$", source, re.M)
    return [(a, b, attrs) for a, b, attrs in edges if "invis" not in attrs]


def plain_layout(source):
    """Node centres ``{id: (x, y)}`` from ``dot -Tplain``."""
    out = subprocess.run(["dot", "-Tplain"], input=source, capture_output=True, text=True,
                         check=True).stdout
    return {parts[1]: (float(parts[2]), float(parts[3]))
            for parts in (line.split() for line in out.splitlines()) if parts[0] == "node"}


def p_text(p):
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.2e}"


# -- stage 2: override graph ------------------------------------------------------------

def test_override_graph_optdigits(ranking):
    d = ranking.dataset("optdigits")
    assert d.prior_order == OPTDIGITS_PRIOR and d.order == OPTDIGITS_ORDER
    source = render_override_graph(d, ranking.settings, ranking.profile).source
    ids = {f"n{i}": name for i, name in enumerate(d.prior_order)}
    labels = node_labels(source)
    # Nodes declared in cost order, each with its name and mean error.
    assert list(labels) == list(ids)
    for node, name in ids.items():
        assert f"<B>{name}</B>" in labels[node]
        assert f"mean error {d.mean_errors[name]:.4g}" in labels[node]
    # Exactly the edges of the transitive reduction (reference: networkx), each
    # labelled with its p-value; the legend counts the 16 - 9 implied ones.
    drawn = {(ids[a], ids[b]): attrs for a, b, attrs in visible_edges(source)}
    expected = {(a, b): p for a, b, _, p in d.edges()}
    reduced = set(nx.transitive_reduction(d.graph()).edges())
    assert set(drawn) == reduced and len(expected) == 16 and len(reduced) == 9
    for edge in reduced:
        assert f'label="p={p_text(expected[edge])}"' in drawn[edge]
    assert "7 implied overrides not drawn" in source
    # The invisible chain pins the cost order.
    chain = re.findall(r"(\w+) -> (\w+) \[style=invis", source)
    assert chain == [(f"n{i}", f"n{i + 1}") for i in range(len(ids) - 1)]
    # Legend: test, alpha, cost profile.
    assert "combined-5x2cv-f" in source and "0.05" in source and "training_time" in source


@needs_dot
def test_override_graph_nodes_left_to_right_in_cost_order(ranking):
    d = ranking.dataset("optdigits")
    positions = plain_layout(render_override_graph(d).source)
    xs = [positions[f"n{i}"][0] for i in range(len(d.prior_order))]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)


# -- stage 3: trace ------------------------------------------------------------------------

def test_trace_one_panel_per_step_taken_is_order(ranking):
    d = ranking.dataset("optdigits")
    source = render_trace(d).source
    panels = re.split(r"subgraph cluster_step\d+ \{", source)[1:]
    assert len(panels) == len(d.order) == len(d.trace())
    position = {a: i for i, a in enumerate(d.prior_order)}
    for k, (panel, step, expected) in enumerate(zip(panels, d.trace(), d.order), start=1):
        taken = re.findall(rf"s{k}_(\d+) \[[^\]]*style=\"rounded,filled,bold\"", panel)
        assert [d.prior_order[int(i)] for i in taken] == [expected]
        candidates = re.findall(rf"s{k}_(\d+) \[[^\]]*peripheries=2", panel)
        assert sorted(d.prior_order[int(i)] for i in candidates) == sorted(step.candidates)
        faded = re.findall(rf"s{k}_(\d+) \[[^\]]*dashed", panel)
        assert sorted(int(i) for i in faded) == sorted(position[a] for a in d.order[:k - 1])


# -- stage 4: CD diagram -----------------------------------------------------------------

def brute_force_runs(n, significant):
    ok = {(i, j) for i in range(n) for j in range(i + 1, n)
          if not any(significant[a, b] for a in range(i, j + 1) for b in range(a + 1, j + 1))}
    return sorted(tuple(range(i, j + 1)) for i, j in ok
                  if not any((a, b) != (i, j) and a <= i and j <= b for a, b in ok))


def matrix(n, pairs):
    m = np.zeros((n, n), bool)
    for a, b in pairs:
        m[a, b] = m[b, a] = True
    return m


@pytest.mark.parametrize("pairs, expected", [
    # Nemenyi-like (monotone): a-c, a-d, a-e, b-e differ.
    ([(0, 2), (0, 3), (0, 4), (1, 4)], [(0, 1), (1, 2, 3), (2, 3, 4)]),
    # Not monotone: only b-d differ.
    ([(1, 3)], [(0, 1, 2), (2, 3, 4)]),
    # Nothing differs: one run of all; everything differs: no run.
    ([], [(0, 1, 2, 3, 4)]),
    (list(itertools.combinations(range(5), 2)), []),
])
def test_cd_groups_hand_made(pairs, expected):
    assert cd_groups(range(5), matrix(5, pairs)) == expected


def test_cd_groups_match_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        upper = np.triu(rng.random((n, n)) < rng.random(), 1)
        sig = upper | upper.T
        assert cd_groups(range(n), sig) == brute_force_runs(n, sig)


def test_cd_diagram_bars_are_the_maximal_runs(ranking):
    sp = ranking.second_pass
    L = len(sp.algorithms)
    order = sorted(range(L), key=lambda i: (sp.average_ranks[i], sp.algorithms[i]))
    layout = cd_layout(sp.algorithms, sp.average_ranks, sp.significant,
                       sp.critical_difference)
    groups = [set(members) for members, *_ in layout.bars]
    reordered = sp.significant[np.ix_(order, order)]
    expected = [{sp.algorithms[order[p]] for p in run}
                for run in brute_force_runs(L, reordered)]
    assert groups == expected
    for group in groups:  # no pair inside a bar was found different
        for a, b in itertools.combinations(group, 2):
            assert not sp.significant[sp.algorithms.index(a), sp.algorithms.index(b)]
    source = render_cd_diagram(ranking).source
    assert source.count('penwidth="4"') == len(groups) == 4
    assert "CD = 1.703" in source
    for name in sp.algorithms:
        assert f"{name}  {sp.average_ranks[sp.algorithms.index(name)]:.2f}" in source or \
            f"{sp.average_ranks[sp.algorithms.index(name)]:.2f}  {name}" in source
    # The CD bar is CD rank units long.
    x0, x1, _ = layout.axis
    cx0, cx1, _ = layout.cd_bar
    assert cx1 - cx0 == pytest.approx(sp.critical_difference * (x1 - x0) / (L - 1))


def boxes_overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("L", [2, 3, 8, 25, 50])
def test_cd_labels_never_overlap(L):
    rng = np.random.default_rng(L)
    names = [f"algorithm {k} " + "with a long name " * int(rng.integers(0, 4)) + "W" * (k % 7)
             for k in range(L)]
    ranks = rng.uniform(1, L, L)
    ranks[:3] = ranks[0]   # ties
    upper = np.triu(rng.random((L, L)) < 0.3, 1)
    layout = cd_layout(names, ranks, upper | upper.T, 2.5)
    boxes = [label.box for label in layout.labels]
    for a, b in itertools.combinations(boxes, 2):
        assert not boxes_overlap(a, b)
    x0, x1, y_axis = layout.axis
    for label in layout.labels:
        left, top, right, bottom = label.box
        # Outside the axis span, below the bars, on the leader line's row.
        assert right < x0 if label.side == "left" else left > x1
        assert top > max([y for *_, y in layout.bars] + [y_axis])
        assert top < label.y < bottom
        assert 0 <= left and right <= layout.width and bottom <= layout.height
    # One label per row and side; leader lines do not cross (rows follow ranks).
    for side in ("left", "right"):
        rows = [(lab.x, lab.y) for lab in layout.labels if lab.side == side]
        assert len({y for _, y in rows}) == len(rows)
        for (xa, ya), (xb, yb) in itertools.permutations(rows, 2):
            # The label closer to its side's edge has the shorter leader line.
            if (xa < xb) if side == "left" else (xa > xb):
                assert ya < yb
    # Every tick label fits between its neighbours.
    xs = [x for _, x in layout.tick_labels]
    assert min(np.diff(xs), default=99) >= 20


def test_cd_diagram_of_50_algorithms_renders(tmp_path):
    names = [f"a fairly long algorithm name number {k}" for k in range(50)]
    r = synthetic_ranking(names, np.linspace(0, -0.3, 50), n_datasets=6, seed=1,
                          order=names[::-1])
    source = render_cd_diagram(r).source
    assert source.count("\\r\"") == 25 and source.count("\\l\"") >= 25
    if HAS_DOT:
        assert write_figures(r, tmp_path, formats=["svg"]) is None
        assert (tmp_path / "cd.svg").stat().st_size > 0


def test_cd_diagram_gate_closed():
    names = ["a", "b", "c", "d"]
    # Large (data set, algorithm) effects: random per-data-set orders, Friedman does not reject.
    r = synthetic_ranking(names, [0, 0, 0, 0], n_datasets=6, seed=2, spread=0.1)
    assert not r.second_pass.applied
    source = render_cd_diagram(r).source
    assert "no post-hoc test applied" in source and 'penwidth="4"' not in source
    for name in names:
        assert re.search(rf'"(\d\.\d\d  {name}|{name}  \d\.\d\d)\\[lr]"', source)
    assert "no post-hoc test applied" in render_significance_matrix(r).source
    assert r.final_order == r.second_pass.prior_order
    assert "the final order is the average-cost order" in render_final(r).source


def test_significance_matrix(ranking):
    sp = ranking.second_pass
    source = render_significance_matrix(ranking).source
    assert source.count('BGCOLOR="#f4a582"') == int(sp.significant.sum())
    for a, b in sp.significant_pairs():
        p = sp.posthoc.pvalues[sp.algorithms.index(a), sp.algorithms.index(b)]
        assert f'BGCOLOR="#f4a582">{p_text(p)}<' in source


# -- stage 5: second pass and final ---------------------------------------------------------

def test_second_pass_graph(with_edges):
    sp = with_edges.second_pass
    source = render_second_pass(with_edges).source
    ids = {f"n{i}": a for i, a in enumerate(sp.prior_order)}
    labels = node_labels(source)
    assert list(labels) == list(ids)
    for node, a in ids.items():
        assert f"avg position {sp.average_ranks[sp.algorithms.index(a)]:.3f}" in labels[node]
    drawn = {(ids[a], ids[b]): attrs for a, b, attrs in visible_edges(source)}
    assert set(drawn) == set(sp.edges())
    for (a, b), attrs in drawn.items():
        p = sp.posthoc.pvalues[sp.algorithms.index(a), sp.algorithms.index(b)]
        assert f"p={p_text(p)}" in attrs
    assert "Friedman test rejects" in source and "critical difference" in source


def test_final_chain(ranking, with_edges):
    for r in (ranking, with_edges):
        source = render_final(r).source
        ids = {f"n{i}": a for i, a in enumerate(r.final_order)}
        labels = node_labels(source)
        assert [labels[n].split("</B>")[0] for n in ids] == \
            [f"<B>{i}. {html.escape(a)}" for i, a in enumerate(r.final_order, start=1)]
        edges = visible_edges(source)
        chain = [(ids[a], ids[b]) for a, b, attrs in edges if "dashed" not in attrs]
        assert chain == list(zip(r.final_order, r.final_order[1:]))
        dashed = {(ids[a], ids[b]) for a, b, attrs in edges if "dashed" in attrs}
        assert dashed == set(r.second_pass.edges())
    assert len(with_edges.second_pass.edges()) == 4


@needs_dot
def test_awkward_names_render(with_edges, tmp_path):
    assert write_figures(with_edges, tmp_path, formats=["svg"]) is None
    svg = (tmp_path / "final.svg").read_text()
    assert "best\\expensive" in svg and "better &amp; co" in svg and "mid &lt;1&gt;" in svg


def test_single_data_set(example, tmp_path):
    r = rank(example, "training_time", datasets=["optdigits"])
    assert r.second_pass is None
    assert list(figures(r)) == ["final", "override_optdigits", "trace_optdigits"]
    dashed = [e for e in visible_edges(render_final(r).source) if "dashed" in e[2]]
    assert len(dashed) == len(r.datasets[0].edges()) == 16
    with pytest.raises(MultitestError, match="at least two data sets"):
        render_cd_diagram(r)
    write_figures(r, tmp_path, formats=["svg"])
    assert {p.name for p in tmp_path.iterdir()} >= {"final.dot", "override_optdigits.dot",
                                                     "trace_optdigits.dot"}


# -- writing -------------------------------------------------------------------------------

def expected_stems(ranking):
    return {"final", "second_pass", "second_pass_trace", "cd", "significance"} | {
        f"{kind}_{r.name}" for r in ranking.datasets for kind in ("override", "trace")}


@needs_dot
def test_write_figures_files(ranking, tmp_path):
    assert write_figures(ranking, tmp_path, formats=["svg"]) is None
    stems = expected_stems(ranking)
    assert {p.name for p in tmp_path.iterdir()} == \
        {f"{s}.{ext}" for s in stems for ext in ("dot", "svg")}
    for stem in stems:
        svg = (tmp_path / f"{stem}.svg").read_text()
        assert svg.lstrip().startswith("<?xml") and "</svg>" in svg


def test_write_figures_without_dot(ranking, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert shutil.which("dot") is None
    warning = write_figures(ranking, tmp_path / "out", formats=["svg", "png"])
    assert warning == "Graphviz 'dot' not found: wrote DOT sources only"
    assert {p.name for p in (tmp_path / "out").iterdir()} == \
        {f"{s}.dot" for s in expected_stems(ranking)}


def test_write_figures_dot_only_and_bad_format(ranking, tmp_path):
    assert write_figures(ranking, tmp_path, formats=[]) is None
    assert all(p.suffix == ".dot" for p in tmp_path.iterdir())
    with pytest.raises(MultitestError, match="`formats`"):
        write_figures(ranking, tmp_path, formats=["gif"])


@needs_dot
def test_write_figures_several_formats_and_jobs(ranking, tmp_path):
    # A subset keeps the test quick; png goes through a second renderer (cairo).
    small = rank(ranking.results, "training_time", datasets=["optdigits", "iris", "wine"])
    assert write_figures(small, tmp_path, formats=["svg", "png"], jobs=2) is None
    assert len(list(tmp_path.glob("*.png"))) == len(list(tmp_path.glob("*.svg"))) == 5 + 6
    assert (tmp_path / "override_optdigits.png").read_bytes().startswith(b"\x89PNG")
    assert not list(tmp_path.glob("*.dot.*"))


def test_dot_is_deterministic(example, ranking):
    again = rank(example, "training_time")
    first = {k: g.source for k, g in figures(ranking).items()}
    second = {k: g.source for k, g in figures(again).items()}
    assert first == second


def test_file_names_are_safe_and_unique():
    assert safe_filename("a/b:c*?d") == "a_b_c_d"
    assert safe_filename("../..") == "dataset"
    assert safe_filename("données ü") == "donn_es"
    assert len(safe_filename("x" * 500)) <= 80

    class R:
        def __init__(self, name):
            self.name = name

    class Fake:
        datasets = [R("a b"), R("a_b"), R("A-B"), R("a/b")]

    stems = dataset_stems(Fake())
    assert stems == ["a_b", "a_b_2", "A-B", "a_b_3"]
    assert len({s.lower() for s in stems}) == len(stems)


class _Formatter(dict):
    def for_type(self, cls, view):
        self[cls] = view


@needs_dot
def test_jupyter_views(ranking):
    from types import SimpleNamespace

    from multitest.figures import install_jupyter_views

    formatters = {"text/html": _Formatter(), "image/svg+xml": _Formatter()}
    install_jupyter_views(SimpleNamespace(display_formatter=SimpleNamespace(
        formatters=formatters)))
    d = ranking.dataset("optdigits")
    svg = formatters["image/svg+xml"]
    assert svg[type(d)](d).lstrip().startswith("<?xml")
    assert "second pass" in svg[type(ranking.second_pass)](ranking.second_pass)
    page = formatters["text/html"][type(ranking)](ranking)
    assert "<svg" in page and "http://" not in page
    assert page.index("1. 5nn") < page.index("2. c45")
    assert ranking_html(ranking) == page


def test_score_matrix_input(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(0)
    rows = [(f"d{s}", a, rng.random()) for s in range(5) for a in "abcd"]
    results = load_results(pd.DataFrame(rows, columns=["dataset", "algorithm", "error"]),
                           replication=None, fold=None)
    r = rank(results, list("abcd"))
    d = r.datasets[0]
    assert visible_edges(render_override_graph(d).source) == []
    trace = render_trace(d).source
    assert "no pairwise test" in trace
    ids = {f"n{i}": a for i, a in enumerate(d.order)}
    assert [(ids[a], ids[b]) for a, b, _ in visible_edges(trace)] == \
        list(zip(d.order, d.order[1:]))
    assert write_figures(r, tmp_path, formats=[]) is None


def test_cd_diagram_shows_the_control_band(example):
    # Band of one Bonferroni-Dunn CD either side of the control (Demsar 2006, figure 2).
    from multitest import rank
    from multitest.figures import cd_layout, render_cd_diagram

    ranking = rank(example, "training_time", control="5nn")
    c = ranking.control
    sp = ranking.second_pass
    layout = cd_layout(sp.algorithms, sp.average_ranks, sp.significant,
                       sp.critical_difference, control=("5nn", c.critical_difference))
    x0, x1, _ = layout.axis
    scale = (x1 - x0) / (len(sp.algorithms) - 1)
    r = ranking.average_ranks["5nn"]
    low, high = max(1, r - c.critical_difference), min(8, r + c.critical_difference)
    band = layout.control_band
    assert band[0] == pytest.approx(x0 + (low - 1) * scale)
    assert band[1] == pytest.approx(x0 + (high - 1) * scale)
    source = render_cd_diagram(ranking).source
    assert "control 5nn" in source and "#f4a58299" in source
    assert cd_layout(sp.algorithms, sp.average_ranks).control_band is None


# -- small things: reprs, awkward data set names, Graphviz warnings ----------------------------

def test_results_have_short_reprs(ranking):
    text = repr(ranking.dataset("optdigits"))
    assert text.startswith("DataSetResult(name='optdigits', order=['svr', 'svl'")
    assert "overrides=16" in text and len(text) < 300 and "array" not in text
    text = repr(ranking.second_pass)
    assert text.startswith("SecondPassResult(method='nemenyi'") and len(text) < 300


@needs_dot
def test_data_set_name_ending_in_backslash_is_valid_dot(tmp_path):
    names = ["a", "b", "c"]
    rng = np.random.default_rng(0)
    frame = make_frame(rng.normal(0.3, 0.01, (2, 3, 10)), datasets=["ends\\", 'quote"d'],
                       algorithms=names)
    r = rank(load_results(frame), profile_from_order(names))
    for stem, graph in figures(r).items():
        done = subprocess.run(["dot", "-Tsvg"], input=graph.source, capture_output=True,
                              text=True)
        assert done.returncode == 0 and "syntax error" not in done.stderr, (stem, done.stderr)


@needs_dot
@pytest.mark.parametrize("L", [3, 8, 40])
def test_cd_diagram_draws_without_graphviz_warnings(L):
    # Jupyter shows dot's standard error: "size too small for label" must not be there.
    names = [f"a rather long algorithm name {i}" for i in range(L)]
    r = synthetic_ranking(names, np.linspace(0, -0.2, L), n_datasets=10, seed=L)
    done = subprocess.run(["dot", "-Tsvg"], input=render_cd_diagram(r).source,
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""


@needs_dot
def test_one_dot_process_per_figure(ranking, tmp_path, monkeypatch):
    # The CD diagram sets layout=neato; a figure drawn after it in the same process
    # used to inherit it.  Every file gets its own process.
    import multitest.figures._graphviz as runner

    calls = []
    real = subprocess.run

    def spy(command, *args, **kwargs):
        calls.append(command)
        return real(command, *args, **kwargs)

    monkeypatch.setattr(runner.subprocess, "run", spy)
    small = rank(ranking.results, "training_time", datasets=["haberman", "iris"])
    assert write_figures(small, tmp_path, formats=["svg"]) is None
    dot_files = [[part for part in c if part.endswith(".dot")] for c in calls]
    assert all(len(files) == 1 for files in dot_files)
    assert sorted(f[0] for f in dot_files) == sorted(f"{s}.dot" for s in figures(small))


@needs_dot
def test_the_report_reuses_the_svg_drawn_by_write_figures(ranking, tmp_path, monkeypatch):
    # write_figures keeps every SVG in the cache; render_svgs then runs no dot at all.
    # A cache bounded below one figure keeps only the newest, and still returns them all.
    import multitest.figures._graphviz as runner
    from multitest.figures import SvgCache, render_svgs

    small = rank(ranking.results, "training_time", datasets=["haberman", "iris"])
    sources = {stem: graph.source for stem, graph in figures(small).items()}
    tiny = SvgCache(max_chars=1)
    drawn = render_svgs(sources, cache=tiny)
    assert len(tiny) == 1 and all(svg.lstrip().startswith("<?xml") for svg in drawn.values())
    cache = SvgCache()
    assert write_figures(small, tmp_path, formats=["svg"], cache=cache) is None
    assert len(cache) == len(sources)
    monkeypatch.setattr(runner.subprocess, "run", None)        # any dot process would fail
    assert render_svgs(sources, cache=cache) == drawn == \
        {stem: (tmp_path / f"{stem}.svg").read_text(encoding="utf-8") for stem in sources}


def test_cd_groups_at_a_thousand_algorithms():
    # Reference: the definition (maximal runs with no pair inside found different),
    # checked run by run on a Nemenyi-like band matrix: |i - j| >= 7 differ.
    n = 1000
    i, j = np.indices((n, n))
    significant = np.abs(i - j) >= 7
    runs = cd_groups(range(n), significant)
    assert runs == [tuple(range(k, k + 7)) for k in range(n - 6)]


@pytest.mark.parametrize("L", [20, 60, 150])
def test_large_orders_are_tables_in_order(L):
    from multitest.figures import MATRIX_LIMIT, ROW_LIMIT

    names = [f"alg{i:03d}" for i in range(L)]
    r = synthetic_ranking(names, np.linspace(0, -0.2, L), n_datasets=6, seed=1)
    assert L > ROW_LIMIT
    for graph in (render_final(r), render_second_pass(r), render_significance_matrix(r),
                  render_override_graph(r.datasets[0])):
        source = graph.source
        assert source.count("<TABLE") == 1 and " -> " not in source
    final = render_final(r).source
    positions = [final.index(f"<B>{a}</B>") for a in r.final_order]
    assert positions == sorted(positions)
    override = render_override_graph(r.datasets[0]).source
    prior = [override.index(f">{a}<") for a in r.datasets[0].prior_order]
    assert prior == sorted(prior)
    assert ("matrix of the" in override) == (L <= MATRIX_LIMIT)


@needs_dot
def test_figure_words_name_positions_and_error_ranks(ranking, tmp_path):
    # What is read back from the SVGs says what was computed: average positions on the CD
    # axis, the best average error rank beside them (svr 2.447: R, friedman_errors_r.csv),
    # and both averages on the final figure.
    assert write_figures(ranking, tmp_path, formats=["svg"], per_dataset=False) is None
    cd = html.unescape((tmp_path / "cd.svg").read_text())
    assert "average MultiTest positions over 38 data sets" in cd
    assert "best average error rank svr (2.45)" in cd
    assert f"Friedman on error ranks p = {format_p(ranking.friedman_errors.pvalue)}" in cd
    assert "average ranks" not in cd
    final = (tmp_path / "final.svg").read_text()
    assert "avg position 5.000" in final and "avg error rank 2.447" in final
