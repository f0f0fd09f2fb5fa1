"""Figures of every stage (multitest.figures): DOT content, layout, files."""
import html
import itertools
import re
import shutil
import subprocess

import networkx as nx
import numpy as np
import pytest
from helpers import make_frame, record_dot_runs

from multitest import load_results, profile_from_order, rank
from multitest._errors import MultitestError
from multitest._format import format_p
from multitest.figures import (
    render_cd_diagram,
    render_final,
    render_override_graph,
    render_second_pass,
    render_significance_matrix,
    render_trace,
)
from multitest.figures._write import write_figures
from multitest.figures._dot import ROW_EDGE_LIMIT
from multitest.figures._cd import cd_groups, cd_layout
from multitest.figures._datasets import dataset_stems, safe_filename
from multitest.figures._write import figures
from multitest.figures._jupyter import ranking_html

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
    ``spread`` + fold noise; the prior is ``order`` (default ``names``).

    Errors that would go below 0 (means far below -0.3) are all shifted by one constant,
    the smallest becoming 0.01 (errors are at least 0): the paired differences, hence the
    tests, ranks and decisions, are those of the unshifted errors."""
    rng = np.random.default_rng(seed)
    means = np.asarray(means, dtype=float)
    errors = (0.3 + rng.normal(0, 0.02, (n_datasets, 1, 1)) + means[None, :, None]
              + rng.normal(0, spread, (n_datasets, len(names), 1))
              + rng.normal(0, 0.01, (n_datasets, len(names), 10)))
    if errors.min() < 0:
        errors += 0.01 - errors.min()
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

def test_override_graph_optdigits_is_a_matrix_with_p_values(ranking):
    # 16 overrides, 9 in the transitive reduction: more than ROW_EDGE_LIMIT = 8, so
    # a matrix, rows and columns named in cost order, the p-value in each override cell.
    d = ranking.dataset("optdigits")
    assert d.prior_order == OPTDIGITS_PRIOR and d.order == OPTDIGITS_ORDER
    source = render_override_graph(d, ranking.settings, ranking.profile).source
    assert len(nx.transitive_reduction(d.graph()).edges()) == 9 > ROW_EDGE_LIMIT
    assert " -> " not in source and "matrix of the 16 overrides" in source
    header = source[source.index("<TR>"):source.index("</TR>")]
    heads = re.findall(r'VALIGN="BOTTOM"><B>(.*?)</B>', header)
    assert heads == ["#", "algorithm", "mean error", "cost", "position", *d.prior_order]
    cells = re.findall(r'BGCOLOR="#f4a582">([^<]*)<', source)
    assert sorted(cells) == sorted(p_text(p) for *_, p in d.edges())
    assert "combined-5x2cv-f" in source and "0.05" in source and "training_time" in source


def test_override_graph_row_draws_the_reduction(ranking):
    # titanic: 10 overrides, 9 reduced -> matrix; monks: 7 overrides, 6 reduced -> a row.
    d = ranking.dataset("monks")
    source = render_override_graph(d, ranking.settings, ranking.profile).source
    ids = {f"n{i}": name for i, name in enumerate(d.prior_order)}
    labels = node_labels(source)
    # Nodes declared in cost order, each with its name and mean error.
    assert list(labels) == list(ids)
    for node, name in ids.items():
        assert f"<B>{name}</B>" in labels[node]
        assert f"mean error {d.mean_errors[name]:.4g}" in labels[node]
    # Exactly the edges of the transitive reduction (reference: networkx), each
    # labelled with its p-value; the legend counts the implied ones.
    drawn = {(ids[a], ids[b]): attrs for a, b, attrs in visible_edges(source)}
    expected = {(a, b): p for a, b, _, p in d.edges()}
    reduced = set(nx.transitive_reduction(d.graph()).edges())
    assert set(drawn) == reduced and len(expected) == 7 and len(reduced) == 6
    for edge in reduced:
        assert f'label="p = {p_text(expected[edge])}"' in drawn[edge]
    assert "1 implied override not drawn" in source
    # The invisible chain pins the cost order.
    chain = re.findall(r"(\w+) -> (\w+) \[style=invis", source)
    assert chain == [(f"n{i}", f"n{i + 1}") for i in range(len(ids) - 1)]


def test_one_drawing_of_the_override_graphs_per_run(ranking, tmp_path):
    # Some data sets need the matrix: every override graph of the run is one.
    from multitest.figures._write import override_drawing

    assert override_drawing(ranking) == "matrix"
    graphs = figures(ranking)
    kinds = {"matrix of the" in g.source for stem, g in graphs.items()
             if stem.startswith("override_")}
    assert kinds == {True}
    few = rank(ranking.results, "training_time", datasets=["monks", "iris", "haberman"])
    assert override_drawing(few) == "row"
    assert all(" -> " in g.source for stem, g in figures(few).items()
               if stem.startswith("override_"))


@needs_dot
def test_override_graph_nodes_top_to_bottom_in_cost_order(ranking):
    # One column, cheapest at the top (dot's plain y grows upwards): as narrow as a box.
    d = ranking.dataset("monks")
    positions = plain_layout(render_override_graph(d, drawing="row").source)
    ys = [positions[f"n{i}"][1] for i in range(len(d.prior_order))]
    assert ys == sorted(ys, reverse=True) and len(set(ys)) == len(ys)
    assert len({positions[f"n{i}"][0] for i in range(len(d.prior_order))}) == 1


# -- stage 3: trace ------------------------------------------------------------------------

def trace_rows(source):
    """The body rows of a trace grid: ``[[cell text, ...], ...]`` (tags removed)."""
    rows = re.findall(r"<TR>(.*?)</TR>", source)[1:]
    return [[re.sub(r"<[^>]+>", " ", c).split() for c in re.findall(r"<TD[^>]*>(.*?)</TD>", row)]
            for row in rows]


def test_trace_one_row_per_step_taken_is_order(ranking):
    d = ranking.dataset("optdigits")
    source = render_trace(d).source
    rows = trace_rows(source)
    assert len(rows) == len(d.order) == len(d.trace())
    prior = list(d.prior_order)
    for k, (row, step, expected) in enumerate(zip(rows, d.trace(), d.order), start=1):
        cells = dict(zip(prior, row[1:]))
        assert row[0] == [str(k)]
        assert [a for a, c in cells.items() if c[:1] == ["take"]] == [expected]
        assert cells[expected] == ["take", f"#{k}"]
        assert sorted(a for a, c in cells.items() if c == ["candidate"]) == \
            sorted(set(step.candidates) - {expected})
        # Every remaining algorithm names the remaining ones that beat it.
        for a in set(step.remaining) - set(step.candidates):
            beaten = sorted(b for b in step.remaining if (a, b) in set(
                (x, y) for x, y, *_ in d.edges()))
            assert cells[a][:2] == ["beaten", "by"]
            assert sorted(" ".join(cells[a][2:]).split(", ")) == beaten
        for j, a in enumerate(d.order[:k - 1], start=1):
            assert cells[a] == [f"#{j}"]


def test_trace_without_overrides_is_one_row(ranking):
    d = ranking.dataset("haberman")
    assert not d.overrides().any()
    source = render_trace(d).source
    assert "<TABLE" not in source and "without an override" in source
    ids = {f"n{i}": a for i, a in enumerate(d.prior_order)}
    assert [(ids[a], ids[b]) for a, b, _ in visible_edges(source)] == \
        list(zip(d.prior_order, d.prior_order[1:]))
    assert list(d.order) == list(d.prior_order)


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
    order = sorted(range(L), key=lambda i: (sp.average_positions[i], sp.algorithms[i]))
    layout = cd_layout(sp.algorithms, sp.average_positions, sp.significant,
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
    assert "CD = 1.70" in source
    for name in sp.algorithms:
        assert f"{name}  {sp.average_positions[sp.algorithms.index(name)]:.2f}" in source or \
            f"{sp.average_positions[sp.algorithms.index(name)]:.2f}  {name}" in source
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
    r = synthetic_ranking(names, np.linspace(0.3, 0, 50), n_datasets=6, seed=1,
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
    # Rows and columns in the final order, each pair once (above the diagonal), coloured
    # by the better of the two (blue: the row's, orange: the column's), its Nemenyi p
    # printed; a cell reading 1 is left empty.
    from multitest.figures._significance import _COLUMN_BETTER, _ROW_BETTER

    sp = ranking.second_pass
    source = render_significance_matrix(ranking).source
    coloured = source.count(f'BGCOLOR="{_ROW_BETTER}"') + source.count(
        f'BGCOLOR="{_COLUMN_BETTER}"')
    assert coloured == int(sp.significant.sum()) // 2 > 0
    final = list(ranking.final_order)
    rows = re.findall(r"<TR>(.*?)</TR>", source)
    for a, b in sp.significant_pairs():
        a, b = sorted((a, b), key=final.index)           # a: the row (earlier in the order)
        i, j = sp.algorithms.index(a), sp.algorithms.index(b)
        colour = _ROW_BETTER if sp.better[i, j] else _COLUMN_BETTER
        cells = re.findall(r"<TD[^>]*>.*?</TD>", rows[1 + final.index(a)])
        assert cells[3 + final.index(b) - 1] == (
            f'<TD ALIGN="RIGHT" BGCOLOR="{colour}">{p_text(sp.posthoc.pvalues[i, j])}</TD>')
    for row in rows[1:]:
        assert ">1</TD>" not in "".join(re.findall(r"<TD[^>]*>.*?</TD>", row)[3:])
    assert "Nemenyi p" in source
    assert "rows and columns in the final order" in source


# -- stage 5: second pass and final ---------------------------------------------------------

def test_second_pass_graph(with_edges):
    sp = with_edges.second_pass
    source = render_second_pass(with_edges).source
    ids = {f"n{i}": a for i, a in enumerate(sp.prior_order)}
    labels = node_labels(source)
    assert list(labels) == list(ids)
    for node, a in ids.items():
        assert f"avg position {sp.average_positions[sp.algorithms.index(a)]:.2f}" in labels[node]
    drawn = {(ids[a], ids[b]): attrs for a, b, attrs in visible_edges(source)}
    assert set(drawn) == set(sp.edges())
    for (a, b), attrs in drawn.items():
        p = sp.posthoc.pvalues[sp.algorithms.index(a), sp.algorithms.index(b)]
        assert f"p = {p_text(p)}" in attrs
    assert "Friedman test rejects" in source and "critical difference" in source


def test_final_chain(ranking, with_edges):
    # Black arrows mean "comes before"; the deciding overrides (the transitive reduction of
    # the second pass's) are red dashed arrows, cheaper -> costlier, labelled with their
    # Nemenyi p; the boxes lead with the average position (what Nemenyi compares).
    for r in (ranking, with_edges):
        source = render_final(r).source
        ids = {f"n{i}": a for i, a in enumerate(r.final_order)}
        labels = node_labels(source)
        assert [labels[n].split("</B>")[0] for n in ids] == \
            [f"<B>{i}. {html.escape(a)}" for i, a in enumerate(r.final_order, start=1)]
        sp = r.second_pass
        for n, a in ids.items():
            assert labels[n].split("<BR/>")[1] == \
                f"avg position {sp.average_positions[sp.algorithms.index(a)]:.2f}"
        chain = [(ids[a], ids[b]) for a, b, attrs in visible_edges(source) if "dashed" not in attrs]
        assert chain == list(zip(r.final_order, r.final_order[1:]))
    assert "dashed" not in render_final(ranking).source
    sp = with_edges.second_pass
    assert len(sp.edges()) == 4
    source = render_final(with_edges).source
    ids = {a: f"n{i}" for i, a in enumerate(with_edges.final_order)}
    drawn = {(a, b): attrs for a, b, attrs in visible_edges(source) if "dashed" in attrs}
    reduced = nx.transitive_reduction(nx.DiGraph(sp.edges()))
    assert set(drawn) == {(ids[a], ids[b]) for a, b in reduced.edges()}
    for a, b in reduced.edges():
        p = sp.posthoc.pvalues[sp.algorithms.index(a), sp.algorithms.index(b)]
        assert f'label="Nemenyi p = {p_text(p)}"' in drawn[ids[a], ids[b]]
    assert "labelled with its Nemenyi p" in source
    assert "no override in the second pass" in render_final(ranking).source


def test_final_boxes_lead_with_what_a_paired_pass_tested(with_edges):
    # A Wilcoxon second pass compares mean errors: the boxes lead with the mean error
    # over the data sets (numpy's mean of the per-data-set means), the overrides carry
    # their Holm-adjusted p.
    from multitest import rank

    r = rank(with_edges.results, with_edges.profile, second_pass="wilcoxon")
    source = render_final(r).source
    labels = node_labels(source)
    for k, a in enumerate(r.final_order):
        mean = np.mean([d.mean_errors[a] for d in r.datasets])
        assert labels[f"n{k}"].split("<BR/>")[1] == f"mean error {mean:.4g}"
    assert "avg position" not in source
    dashed = [attrs for *_, attrs in visible_edges(source) if "dashed" in attrs]
    assert dashed and all('label="Holm-adjusted p = ' in attrs for attrs in dashed)


@needs_dot
def test_awkward_names_render(with_edges, tmp_path):
    assert write_figures(with_edges, tmp_path, formats=["svg"]) is None
    svg = (tmp_path / "final.svg").read_text()
    assert "best\\expensive" in svg and "better &amp; co" in svg and "mid &lt;1&gt;" in svg


def test_single_data_set(example, tmp_path):
    r = rank(example, "training_time", datasets=["optdigits"])
    assert r.second_pass is None
    assert list(figures(r)) == ["final", "pareto", "override_optdigits", "trace_optdigits",
                                "dataset_effects_optdigits"]
    final = render_final(r).source
    assert len(r.datasets[0].edges()) == 16
    assert "an override of the data set optdigits that decides the order" in final
    assert "7 more implied by these" in final and final.count('label="p = ') == 9
    with pytest.raises(MultitestError, match="at least two data sets"):
        render_cd_diagram(r)
    write_figures(r, tmp_path, formats=["svg"])
    assert {p.name for p in tmp_path.iterdir()} >= {"final.dot", "override_optdigits.dot",
                                                     "trace_optdigits.dot"}


# -- writing -------------------------------------------------------------------------------

def expected_stems(ranking):
    return {"final", "pareto", "second_pass", "second_pass_trace", "cd", "cd_errors",
            "significance", "effects_second_pass"} | {
        f"{kind}_{r.name}" for r in ranking.datasets
        for kind in ("override", "trace", "pareto", "dataset_effects")}


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
def test_write_figures_several_formats(ranking, tmp_path):
    # A subset keeps the test quick; png goes through a second renderer (cairo).
    small = rank(ranking.results, "training_time", datasets=["optdigits", "iris", "wine"])
    assert write_figures(small, tmp_path, formats=["svg", "png"]) is None
    # 8 overall figures, 4 per data set
    assert len(list(tmp_path.glob("*.png"))) == len(list(tmp_path.glob("*.svg"))) == 8 + 3 * 4
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

    from multitest.figures._jupyter import install_jupyter_views

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
    from multitest.figures import render_cd_diagram
    from multitest.figures._cd import cd_layout

    ranking = rank(example, "training_time", control="5nn")
    c = ranking.control
    sp = ranking.second_pass
    layout = cd_layout(sp.algorithms, sp.average_positions, sp.significant,
                       sp.critical_difference, control=("5nn", c.critical_difference))
    x0, x1, _ = layout.axis
    scale = (x1 - x0) / (len(sp.algorithms) - 1)
    r = ranking.average_positions["5nn"]
    low, high = max(1, r - c.critical_difference), min(8, r + c.critical_difference)
    band = layout.control_band
    assert band[0] == pytest.approx(x0 + (low - 1) * scale)
    assert band[1] == pytest.approx(x0 + (high - 1) * scale)
    source = render_cd_diagram(ranking).source
    assert "control 5nn" in source and "#f4a58299" in source
    assert cd_layout(sp.algorithms, sp.average_positions).control_band is None


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
    calls = record_dot_runs(monkeypatch)
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
    from multitest.figures._graphviz import SvgCache, render_svgs

    small = rank(ranking.results, "training_time", datasets=["haberman", "iris"])
    sources = {stem: graph.source for stem, graph in figures(small).items()}
    tiny = SvgCache(max_chars=1)
    monkeypatch.setattr(runner, "_SVG_CACHE", tiny)
    drawn = render_svgs(sources)
    assert len(tiny) == 1 and all(svg.lstrip().startswith("<?xml") for svg in drawn.values())
    cache = SvgCache()
    monkeypatch.setattr(runner, "_SVG_CACHE", cache)
    assert write_figures(small, tmp_path, formats=["svg"]) is None
    assert len(cache) == len(sources)
    monkeypatch.setattr(runner.subprocess, "run", None)        # any dot process would fail
    assert render_svgs(sources) == drawn == \
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
    from multitest.figures._dot import MATRIX_LIMIT, ROW_LIMIT

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
    prior = [override.index(f'>{k}</TD><TD ALIGN="LEFT">{a}<')
             for k, a in enumerate(r.datasets[0].prior_order, start=1)]
    assert prior == sorted(prior)
    assert ("matrix of the" in override) == (L <= MATRIX_LIMIT)


# -- resolution and the effect-size figures in every format -----------------------------------

def _png_size(path):
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@needs_dot
def test_dpi_scales_png_only(ranking, tmp_path):
    small = rank(ranking.results, "training_time", datasets=["iris", "wine"])
    assert write_figures(small, tmp_path / "a", formats=["svg", "png"]) is None
    assert write_figures(small, tmp_path / "b", formats=["svg", "png"], dpi=192) is None
    for stem in ("final", "override_iris", "cd"):
        wa, ha = _png_size(tmp_path / "a" / f"{stem}.png")
        wb, hb = _png_size(tmp_path / "b" / f"{stem}.png")
        # Graphviz draws PNG at 96 dpi by default: 192 doubles every side (+- rounding).
        assert wb == pytest.approx(2 * wa, abs=3) and hb == pytest.approx(2 * ha, abs=3)
        assert (tmp_path / "a" / f"{stem}.svg").read_text() == \
            (tmp_path / "b" / f"{stem}.svg").read_text()


def test_dpi_is_checked_on_the_command_line(tmp_path, capsys):
    from multitest import example_path
    from multitest.cli import main

    code = main(["rank", example_path(), "--costs", "training_time", "--out",
                 str(tmp_path / "out"), "--format", "png", "--dpi", "0", "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "dpi" in err[0] and ">= 1" in err[0]
    assert not (tmp_path / "out").exists()
    # 100000 dots per inch kept Graphviz on one figure for over a minute and 2.4 GB.
    code = main(["rank", example_path(), "--costs", "training_time", "--out",
                 str(tmp_path / "out"), "--format", "png", "--dpi", "100000", "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["multitest: error: `dpi` must be at most 1,200, got 100000"]
    assert not (tmp_path / "out").exists()


@needs_dot
def test_pinned_drawing_places_every_element_where_asked():
    # Reference: the coordinates given (points, y downwards); dot draws SVG in points, so
    # the distances between elements in its SVG are the distances asked for.
    import xml.etree.ElementTree as ET

    from multitest.figures._graphviz import to_svg
    from multitest.figures._pinned import PinnedDrawing

    d = PinnedDrawing("demo", 100)
    d.corners(200)
    d.line(10, 90, 190, 90, id="axis", css="axis", color="#333333")
    d.line(50, 20, 150, 60, id="arrow", dir="forward", arrowhead="vee")
    d.box(20, 30, 40, 10, "#e08214", node_id="box", css="bar")
    d.disc(100, 50, 4, "white", "#595959", 1.5, node_id="disc", css="point front")
    d.text(100, 10, "zero", 11, anchor="start", node_id="label")
    root = ET.fromstring(to_svg(d.source()))
    ns = "{http://www.w3.org/2000/svg}"
    groups = {g.get("id"): g for g in root.iter(f"{ns}g")}
    assert "axis" in groups["axis"].get("class").split()
    assert groups["disc"].get("class").split() == ["node", "point", "front"]
    start = [float(v) for v in re.findall(r"-?[\d.]+", groups["axis"].find(f"{ns}path").get("d"))]
    circle = groups["disc"].find(f"{ns}ellipse")
    # the disc stands 90 right of the axis' start and 40 above it (y downwards)
    assert float(circle.get("cx")) - start[0] == pytest.approx(90, abs=0.02)
    assert float(circle.get("cy")) - start[1] == pytest.approx(-40, abs=0.02)
    assert float(circle.get("rx")) == pytest.approx(4, abs=0.01)
    corners = [float(v) for v in re.findall(r"-?[\d.]+",
                                            groups["box"].find(f"{ns}polygon").get("points"))]
    xs, ys = corners[0::2], corners[1::2]
    assert (min(xs) - start[0], max(xs) - min(xs)) == (pytest.approx(10, abs=0.02),
                                                       pytest.approx(40, abs=0.02))
    assert (min(ys) - start[1], max(ys) - min(ys)) == (pytest.approx(-60, abs=0.02),
                                                       pytest.approx(10, abs=0.02))
    assert groups["arrow"].find(f"{ns}polygon") is not None       # its arrowhead
    text = groups["label"].find(f"{ns}text")
    assert text.text == "zero" and text.get("text-anchor") == "start"
    assert float(text.get("x")) - start[0] == pytest.approx(90, abs=1.5)
    # the picture spans the corners: 200 x 100 points and the pad
    assert float(root.get("width")[:-2]) == pytest.approx(200 + 2 * 0.15 * 72, abs=1.5)


@needs_dot
def test_effect_figures_in_every_format(ranking, tmp_path):
    small = rank(ranking.results, "training_time", datasets=["iris", "wine"])
    assert write_figures(small, tmp_path, ["svg", "png", "pdf"], dpi=72) is None
    stems = ["effects_second_pass", "dataset_effects_iris", "dataset_effects_wine",
             "pareto", "pareto_iris", "pareto_wine"]
    for stem in stems:
        assert (tmp_path / f"{stem}.pdf").read_bytes().startswith(b"%PDF")
        assert (tmp_path / f"{stem}.dot").exists()
        # The PNG has the SVG's size (points at 72 dpi = its pixels).
        width = float(re.search(r'width="(\d+)pt"', (tmp_path / f"{stem}.svg").read_text())[1])
        assert _png_size(tmp_path / f"{stem}.png")[0] == pytest.approx(width, abs=2)


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
    assert "avg position 5.00" in final and "avg error rank 2.45" in final


def test_a_bayesian_test_names_its_number_in_every_figure(example):
    # The bundled example with the Bayesian per-data-set test and second pass (golden run
    # bayes_rope): their numbers are 1 - P(...), not p-values, and a 0 is what the Monte
    # Carlo gave (no sample), never the bound of an underflowed p-value.
    from multitest import load_profile, rank
    from multitest.figures import (
        render_final,
        render_override_graph,
        render_second_pass,
        render_significance_matrix,
    )

    r = rank(example, load_profile("training_time"), test="bayes-correlated-t", rope=0.01,
             min_probability=0.9, second_pass="bayesian", bayes_seed=3)
    final = render_final(r).source
    assert 'label="P(practically better) = 1"' in final     # 1 - 0: the Monte Carlo's share
    assert "p = " not in final and "1e-300" not in final
    assert "the costlier j practically better" in final
    assert "significantly" not in final
    second = render_second_pass(r).source
    # a matrix here (more than ROW_EDGE_LIMIT reduced edges): its cells name the posterior
    assert "cells show its P(practically better)" in second and "p-value" not in second
    from multitest.figures import render_second_pass_trace, render_trace
    for trace in (render_trace(r.dataset("australian"), r.pairwise_test).source,
                  render_second_pass_trace(r).source):
        assert "nothing remaining is practically better" in trace and "significantly" not in trace
    from multitest.engine import explain_order
    words = " ".join(e.sentence for e in explain_order(r))
    assert "(none of them is more probably better)" in words
    assert "significance" not in words and "(p = " not in words
    for drawing, named in (("row", 'label="1 - P(costlier practically better) = '),
                           ("matrix", "cells show its 1 - P(costlier practically better)")):
        one = render_override_graph(r.dataset("australian"), r.settings, r.profile, drawing,
                                    test=r.pairwise_test).source
        assert named in one
        assert "p = " not in one and "p-value" not in one and "significantly" not in one
        assert "the costlier j is practically more accurate with probability &gt;= 0.9 than" in one
        assert "test bayes-correlated-t, rope 0.01, override when P(costlier practically " \
            "better) &#8805; 0.9;" in one and "&#945;" not in one
    assert "1e-300" not in render_significance_matrix(r).source
