"""Graphviz figures of every stage of MultiTest and Multi²Test (docs/method.md section 7).

One function per stage returns a :mod:`graphviz` object (its ``.source`` is
the DOT text; the same input always gives the same text):

=============================  ==================================================
:func:`render_override_graph`  one data set: nodes in cost order, an edge for
                               every override of the transitive reduction
                               with its p-value
:func:`render_trace`           one data set: the cost-ordered sort, one panel
                               per step, the taken node highlighted
:func:`render_second_pass_trace`  the same sort for the second pass
:func:`render_cd_diagram`      the Nemenyi stage: a critical-difference diagram
                               in Demšar's style
:func:`render_significance_matrix`  pairwise decisions of the post-hoc test
:func:`render_second_pass`     average-cost order and the post-hoc overrides
:func:`render_final`           the final order as a chain, with the overrides
                               that produced it
=============================  ==================================================

:func:`write_figures` writes the DOT source of every figure and, where the
Graphviz ``dot`` program is installed, the images, one ``dot`` process per
figure (Graphviz keeps state between the graphs of one process), several at
once.  Rendering depends on the engine, never the reverse.

The drawing is chosen by size (docs/figures.md): up to :data:`ROW_LIMIT`
algorithms an order is a row of boxes; above, a matrix, and above
:data:`MATRIX_LIMIT` a table, so that every figure stays legible and quick
to draw at 1000 algorithms.
"""

from __future__ import annotations

import hashlib
import html
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import graphviz
import numpy as np

from .._errors import MultitestError
from ..engine._ordering import named_trace, sort_trace
from .._progress import progress
from ..engine._reduction import transitive_reduction

__all__ = ["render_override_graph", "render_trace", "render_cd_diagram",
           "render_significance_matrix", "render_second_pass", "render_second_pass_result",
           "render_final", "render_second_pass_trace", "figures", "dataset_stems", "inline_svg",
           "write_figures", "to_svg", "render_svgs", "ranking_html", "cd_layout", "CDLayout",
           "cd_groups", "safe_filename", "dot_available", "FORMATS", "ROW_LIMIT",
           "ROW_EDGE_LIMIT", "MATRIX_LIMIT", "FIGURE_PAIRS_LIMIT", "WRAP"]

#: Image formats :func:`write_figures` accepts (those of a standard Graphviz build).
FORMATS = ("svg", "png", "pdf")

#: Up to this many algorithms an order is drawn as a graph of boxes in one row
#: (override graphs, second pass, final order, sort traces); above it as a
#: table, which stays legible and takes ``dot`` milliseconds at any size.
ROW_LIMIT = 16

#: ... and their transitive reduction has at most this many edges (more arcs
#: over one row cannot be followed by eye): otherwise the matrix view is drawn.
ROW_EDGE_LIMIT = 24

#: Without an image format the CLI writes the per-data-set DOT sources only up
#: to this many pairwise results (S x L(L-1)/2); the overall figures always.
FIGURE_PAIRS_LIMIT = 20_000

#: Up to this many algorithms the overrides and the post-hoc decisions are
#: drawn as a matrix (one cell per pair); above it as one row per algorithm.
MATRIX_LIMIT = 100

FONT = "Helvetica,Arial,sans-serif"
_OVERRIDE = "#c0392b"      # override edges
_CANDIDATE = "#1f6fb4"     # candidates of a sort step
_FADED = "#9a9a9a"         # nodes already placed
_SIGNIFICANT = "#f4a582"   # cells of pairs found different
_MISSING_DOT = "Graphviz 'dot' not found: wrote DOT sources only"


# -- small helpers ---------------------------------------------------------------

def _text(value):
    """A name or a setting as text for an HTML-like Graphviz label."""
    return html.escape(" ".join(str(value).split()), quote=True)


#: Names longer than this are wrapped over several lines in boxes.
WRAP = 20


def _wrap(value, width=WRAP):
    """A name as escaped label text, broken after ``_ - . /`` or spaces into lines of
    at most ``width`` characters (hard breaks only for longer pieces)."""
    text = " ".join(str(value).split())
    if len(text) <= width:
        return _text(text)
    pieces = [p for p in re.split(r"(?<=[_\-./ ])", text) if p]
    lines, line = [], ""
    for piece in pieces:
        while len(piece) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(piece[:width])
            piece = piece[width:]
        if len(line) + len(piece) > width and line:
            lines.append(line)
            line = ""
        line += piece
    if line:
        lines.append(line)
    return "<BR/>".join(_text(line.rstrip()) if line.strip() else _text(line) for line in lines)


def _p(value):
    """A p-value as printed on figures: 3 significant digits."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    return f"{value:.3g}" if value >= 1e-3 else f"{value:.2e}"


def _num(value, digits=4):
    value = float(value)
    return f"{value:.{digits}g}"


def _label(*lines, bold_first=True):
    """An HTML-like label of escaped lines, the first in bold."""
    parts = [f"<B>{lines[0]}</B>" if bold_first else lines[0]] + list(lines[1:])
    return "<" + "<BR/>".join(parts) + ">"


def _legend(lines):
    """A left-aligned multi-line HTML-like graph label."""
    return "<" + "".join(f'{line}<BR ALIGN="LEFT"/>' for line in lines) + ">"


def _graph_name(name):
    """A graph name that is valid DOT whatever the data set is called (e.g. ``a\\``)."""
    return re.sub(r'[\\"]', "_", str(name))


def _digraph(name, rankdir="LR"):
    g = graphviz.Digraph(name=_graph_name(name))
    g.attr("graph", rankdir=rankdir, fontname=FONT, fontsize="11", labelloc="b",
           labeljust="l", nodesep="0.3", ranksep="0.45", bgcolor="white", pad="0.2")
    g.attr("node", shape="box", style="rounded", fontname=FONT, fontsize="11", margin="0.08,0.04")
    g.attr("edge", fontname=FONT, fontsize="9", arrowsize="0.7")
    return g


def _settings_line(settings, profile):
    parts = []
    if settings is not None:
        parts.append(f"test {_text(settings.test)}, &#945; = {settings.alpha:g}")
        if settings.correction != "none":
            parts.append(f"correction {_text(settings.correction)} (adjusted p on edges)")
    if profile is not None:
        parts.append(f"cost profile {_text(profile.name)}")
    return "; ".join(parts)


# -- drawing an order: a row of boxes, a matrix or a table, by size ------------------------

def _reduced_edges(prior_order, edges):
    """``edges`` (``(cheaper, costlier, p)``) kept by the transitive reduction, in input order."""
    position = {a: i for i, a in enumerate(prior_order)}
    matrix = np.zeros((len(prior_order), len(prior_order)), dtype=bool)
    for a, b, _ in edges:
        matrix[position[a], position[b]] = True
    kept = transitive_reduction(matrix)
    return [(a, b, p) for a, b, p in edges if kept[position[a], position[b]]]


def _hidden_line(n_edges, n_drawn):
    hidden = n_edges - n_drawn
    if hidden == 0:
        return None
    return (f"{hidden} implied override{'s' if hidden != 1 else ''} not drawn (i &#8594; k "
            "follows from i &#8594; j &#8594; k; same order): every override is in the tables")


def _cell(text, align="LEFT", **attrs):
    extra = "".join(f' {k.upper()}="{v}"' for k, v in attrs.items())
    return f'<TD ALIGN="{align}"{extra}>{text}</TD>'


def _table_node(g, rows, cellpadding=2, cellspacing=0, border=0):
    """One plain node holding an HTML table of ``rows`` (lists of ``<TD>`` strings)."""
    g.attr("node", shape="plaintext", fontsize="10")
    body = "".join("<TR>" + "".join(row) + "</TR>" for row in rows)
    g.node("table", f'<<TABLE BORDER="{border}" CELLBORDER="0" CELLSPACING="{cellspacing}" '
           f'CELLPADDING="{cellpadding}">{body}</TABLE>>')


def _order_view(name, prior_order, info, overrides, edges, legend):
    """An order of algorithms and the overrides between them, drawn by size.

    Parameters
    ----------
    name : str
        Graph name.
    prior_order : sequence of str
        Cheapest first.
    info : dict
        ``{algorithm: [(heading, text), ...]}``: what each node or row shows.
    overrides : ndarray of bool, shape (L, L)
        The override matrix in prior order (see :mod:`multitest.engine._ordering`).
    edges : callable
        Returns the overrides as ``[(cheaper, costlier, p-value or None)]``;
        called only for the row of boxes (at most :data:`ROW_LIMIT` algorithms).
    legend : list of str
        Lines under the figure; a line on the drawing is added.

    Up to :data:`ROW_LIMIT` algorithms and :data:`ROW_EDGE_LIMIT` edges in
    the transitive reduction: boxes in one row, cheapest left, and the edges
    of the reduction (the legend counts the hidden ones).  Otherwise, up to
    :data:`MATRIX_LIMIT` algorithms: a matrix, a row per cheaper and a
    column per costlier algorithm.  Above: a table, one row per algorithm
    with the costlier algorithms that beat it.
    """
    L = len(prior_order)
    if L <= ROW_LIMIT:
        listed = edges()
        drawn = _reduced_edges(prior_order, listed)
        if len(drawn) <= ROW_EDGE_LIMIT:
            return _order_row(name, prior_order, info, listed, drawn, legend)
    overrides = np.asarray(overrides, dtype=bool)
    n_edges = int(overrides.sum())
    g = _digraph(name)
    headings = [h for h, _ in next(iter(info.values()))]
    head = [_cell("<B>#</B>"), _cell("<B>algorithm</B>")] + [_cell(f"<B>{h}</B>")
                                                               for h in headings]
    if L <= MATRIX_LIMIT:
        # Bare cells (the table's padding sizes them): 9 bytes each, L^2 of them.
        red, empty = f'<TD BGCOLOR="{_OVERRIDE}"></TD>', "<TD></TD>"
        diagonal = '<TD BGCOLOR="#eeeeee"></TD>'
        rows = [head + [_cell(f"<B>{k}</B>", "CENTER") for k in range(1, L + 1)]]
        for i, a in enumerate(prior_order):
            cells = [_cell(str(i + 1), "RIGHT"), _cell(_text(a))]
            cells += [_cell(text, "RIGHT") for _, text in info[a]]
            cells += [red if hit else empty for hit in overrides[i].tolist()]
            cells[len(head) + i] = diagonal
            rows.append(cells)
        drawing = (f"matrix of the {n_edges} overrides: the cell in row i, column j is red when "
                   "the costlier j (column) is significantly better than the cheaper i (row); "
                   "rows and columns in cost order (cheapest first)")
    else:
        rows = [head + [_cell("<B>beaten by (cost positions of costlier algorithms)</B>")]]
        for i, a in enumerate(prior_order):
            won = (np.flatnonzero(overrides[i]) + 1).tolist()
            text = ", ".join(map(str, won[:12])) + (f" &#8230; ({len(won)} in all)"
                                                     if len(won) > 12 else "")
            rows.append([_cell(str(i + 1), "RIGHT"), _cell(_text(a))]
                        + [_cell(t, "RIGHT") for _, t in info[a]] + [_cell(text or "&#8211;")])
        drawing = (f"one row per algorithm in cost order (cheapest first), with the costlier "
                   f"algorithms that beat it ({n_edges} overrides)")
    _table_node(g, rows, cellpadding=5 if L <= MATRIX_LIMIT else 2,
                cellspacing=1 if L <= MATRIX_LIMIT else 0)
    g.attr("graph", label=_legend(legend[:1] + [drawing] + legend[1:]))
    return g


def _order_row(name, prior_order, info, edges, drawn, legend):
    # Top to bottom with every node on one rank: one row whatever the edges
    # (with rankdir=LR the spans of long edges push nodes up and down).
    g = _digraph(name, rankdir="TB")
    # p-values as external labels: placed after the layout, next to their
    # arcs, instead of a band of label nodes that widens the row.
    g.attr("graph", forcelabels="true", nodesep="0.4")
    ids = {a: f"n{i}" for i, a in enumerate(prior_order)}
    with g.subgraph(name="row") as row:
        row.attr(rank="same")
        for a in prior_order:
            row.node(ids[a], _label(_wrap(a), *(f"{h} {t}" for h, t in info[a])))
    # Invisible chain pinning the cost order left to right.
    for a, b in zip(prior_order, prior_order[1:]):
        g.edge(ids[a], ids[b], style="invis", weight="10")
    for a, b, p in drawn:
        attrs = {} if p is None else {"xlabel": f"p={_p(p)}"}
        g.edge(ids[a], ids[b], color=_OVERRIDE, fontcolor=_OVERRIDE, **attrs)
    hidden = _hidden_line(len(edges), len(drawn))
    g.attr("graph", label=_legend(legend + ([hidden] if hidden else [])))
    return g


# -- stage 2: the override graph of one data set ------------------------------------

def render_override_graph(dataset_result, settings=None, profile=None):
    """The override graph of one data set.

    Algorithms stand in cost order (cheapest first) with their mean error,
    cost and rank; an override (the costlier ``j`` is significantly more
    accurate than the cheaper ``i``) is an edge ``i -> j`` labelled with its
    p-value.  Up to :data:`ROW_LIMIT` algorithms the graph is drawn in one
    row with the edges of its transitive reduction (the legend says how many
    implied edges are not drawn; the sort gives the same order on it); above,
    as a matrix or a table (see :func:`_order_view`).

    Parameters
    ----------
    dataset_result : multitest.engine._per_dataset.DataSetResult
    settings : multitest.engine._ranking.Settings, optional
        Test and alpha for the legend.
    profile : multitest.inputs._costs.CostProfile, optional
        Cost profile name for the legend.

    Returns
    -------
    graphviz.Digraph
    """
    r = dataset_result
    cost = dict(zip(r.algorithms, np.asarray(r.costs, dtype=float).tolist()))
    means = r.mean_errors
    error_word = "mean error" if r.tested else "value"
    info = {a: [(error_word, _num(means[a])), ("cost", _num(cost[a])),
                ("rank", _num(r.ranks[a], 3))] for a in r.prior_order}
    adjusted = settings is not None and settings.correction != "none"
    overrides = r.overrides()
    n_edges = int(overrides.sum())
    legend = [f"<B>{_text(r.name)}</B>: override graph (stage 2), cost order (cheapest first)"]
    if r.tested:
        legend.append(f"override i &#8594; j: the costlier j is significantly more accurate "
                      f"than the cheaper i ({n_edges} override{'s' if n_edges != 1 else ''})")
    else:
        legend.append("score-matrix input: no pairwise test, no overrides; order by value")
    line = _settings_line(settings, profile)
    if line:
        legend.append(line)
    if profile is not None:
        legend.append(_cost_unit_line(profile))
    return _order_view(f"override_{r.name}", r.prior_order, info, overrides,
                       lambda: _override_edges(r, adjusted), legend)


def _override_edges(r, adjusted):
    """``(cheaper, costlier, p-value)`` of the overrides of one data set, from its arrays."""
    if not r.tested:
        return []
    t, s = r.table, r.index
    hit = np.flatnonzero(t.override[s])
    pvalues = (t.pvalue_adjusted if adjusted else t.pvalue)[s, hit].tolist()
    prior, names = t.prior[s], r.algorithms
    return [(names[a], names[b], p) for a, b, p in
            zip(prior[t.first[hit]].tolist(), prior[t.second[hit]].tolist(), pvalues)]


def _cost_unit_line(profile):
    """What the cost numbers on a figure are: their unit and normalization."""
    from ..engine._explain import cost_unit_sentence   # computation: no rendering imports there

    return _text(cost_unit_sentence(profile))


# -- stage 3: the sort trace ------------------------------------------------------

def _trace_graph(name, title, prior_order, overrides):
    """Panels of a cost-ordered sort; ``overrides`` is the boolean matrix in prior order.

    Above :data:`ROW_LIMIT` algorithms the steps are rows of a table instead.
    """
    if len(prior_order) > ROW_LIMIT:
        return _trace_table(name, title, prior_order, overrides)
    steps = named_trace(overrides, prior_order)
    g = _digraph(name, rankdir="TB")
    g.attr("graph", ranksep="0.35", nodesep="0.18", newrank="true")
    position = {a: i for i, a in enumerate(prior_order)}
    placed = {}
    first_ids = []
    for k, step in enumerate(steps, start=1):
        remaining = set(step.remaining)
        candidates = set(step.candidates)
        ids = {a: f"s{k}_{position[a]}" for a in prior_order}
        first_ids.append(ids[prior_order[0]])
        with g.subgraph(name=f"cluster_step{k}") as panel:
            panel.attr(label=_legend([f"<B>step {k}: take {_text(step.taken)}</B>",
                                      "candidates " + ", ".join(map(_text, step.candidates))]),
                       labeljust="l", labelloc="t", style="rounded", color="#bbbbbb",
                       fontsize="10")
            with panel.subgraph(name=f"step{k}_row") as row:
                row.attr(rank="same")
                for a in prior_order:
                    if a == step.taken:
                        row.node(ids[a], _label(_wrap(a)),
                                 style="rounded,filled,bold", fillcolor=_CANDIDATE,
                                 fontcolor="white", color=_CANDIDATE, penwidth="2",
                                 peripheries="2")
                    elif a in candidates:
                        row.node(ids[a], _label(_wrap(a)), color=_CANDIDATE,
                                 fontcolor=_CANDIDATE, peripheries="2", penwidth="1.5")
                    elif a in remaining:
                        i = position[a]
                        beaten = sum(overrides[i, position[b]] for b in step.remaining)
                        row.node(ids[a], _label(_wrap(a), f"beaten by {beaten}",
                                                bold_first=False))
                    else:
                        row.node(ids[a], _label(f"{_wrap(a)} #{placed[a]}", bold_first=False),
                                 style="rounded,dashed", color=_FADED, fontcolor=_FADED)
                for a, b in zip(prior_order, prior_order[1:]):
                    row.edge(ids[a], ids[b], style="invis")
        placed[step.taken] = k
    for a, b in zip(first_ids, first_ids[1:]):
        g.edge(a, b, style="invis", weight="20")
    legend = [f"<B>{title}</B>: cost-ordered topological sort, one panel per step",
              "candidates (double blue outline): remaining algorithms that no remaining "
              "algorithm is significantly better than;",
              "the cheapest candidate is taken (filled); grey dashed: already placed (#position);",
              "beaten by k: k remaining algorithms are significantly better (override edges)"]
    g.attr("graph", label=_legend(legend))
    return g



def _trace_table(name, title, prior_order, overrides):
    # Steps in prior positions: only the candidates shown are named.
    steps = sort_trace(overrides)
    g = _digraph(name)
    rows = [[_cell("<B>step</B>"), _cell("<B>taken</B>"), _cell("<B>remaining</B>"),
             _cell("<B>candidates (nothing remaining is significantly better), cheapest "
                   "first</B>")]]
    for k, step in enumerate(steps, start=1):
        n = len(step.candidates)
        cut = ", ".join(_text(prior_order[i]) for i in step.candidates[:10])
        if n > 10:
            cut += f" &#8230; ({n} in all)"
        rows.append([_cell(str(k), "RIGHT"), _cell(f"<B>{_text(prior_order[step.taken])}</B>"),
                     _cell(str(len(step.remaining)), "RIGHT"), _cell(cut)])
    _table_node(g, rows)
    g.attr("graph", label=_legend([f"<B>{title}</B>: cost-ordered topological sort, one row "
                                   "per step: the cheapest candidate is taken"]))
    return g


def render_second_pass_trace(ranking):
    """The cost-ordered sort of the second pass, one panel (or table row) per step.

    Like :func:`render_trace`, on the average-cost order and the post-hoc
    overrides: it shows how the final order comes out of them.

    Returns
    -------
    graphviz.Digraph
    """
    sp = _require_second_pass(ranking, "render_second_pass_trace")
    return _trace_graph("second_pass_trace", "second pass", sp.prior_order, sp.overrides())


def render_trace(dataset_result):
    """The topological-sort trace of one data set, one panel (cluster) per step.

    In each panel the algorithms stand in cost order; the candidates (nothing
    remaining is significantly better) have a double blue outline, the taken
    one is filled, the algorithms already placed are grey and dashed.

    Parameters
    ----------
    dataset_result : multitest.engine._per_dataset.DataSetResult

    Returns
    -------
    graphviz.Digraph
    """
    r = dataset_result
    if not r.tested:
        g = _digraph(f"trace_{r.name}")
        ids = {name: f"n{i}" for i, name in enumerate(r.order)}
        for i, name in enumerate(r.order, start=1):
            g.node(ids[name], _label(f"{i}. {_text(name)}", f"value {_num(r.mean_errors[name])}"))
        for a, b in zip(r.order, r.order[1:]):
            g.edge(ids[a], ids[b])
        g.attr("graph", label=_legend([f"<B>{_text(r.name)}</B>: score-matrix input, no "
                                       "pairwise test: ordered by value (ties by cost)"]))
        return g
    return _trace_graph(f"trace_{r.name}", _text(r.name), r.prior_order, r.overrides())


# -- stage 4: CD diagram and significance matrix ---------------------------------------

def cd_groups(order, significant):
    """Maximal runs of consecutive algorithms (in rank order) not found different.

    Parameters
    ----------
    order : sequence of int
        Algorithm indices by increasing average rank.
    significant : array_like of bool, shape (L, L)
        Symmetric: the pair was found different.

    Returns
    -------
    list of tuple of int
        Each run (of at least two algorithms) as indices in ``order``
        (positions), maximal: no run is contained in another.  A run covers
        positions ``i..j`` only if no pair inside it was found different.
    """
    order = np.asarray(list(order), dtype=int)
    n = order.size
    if n == 0:
        return []
    sig = np.asarray(significant, dtype=bool)[np.ix_(order, order)]
    # latest[j]: the last position k < j found different from j (-1: none).
    earlier = np.triu(sig, k=1)
    has = earlier.any(axis=0)
    latest = np.where(has, n - 1 - np.argmax(earlier[::-1], axis=0), -1)
    # A run from i extends to j while every latest[k] (i < k <= j) is below i;
    # end[i] is non-decreasing in i, so one forward sweep finds them all.
    runs = []
    last_end = -1
    j = 0
    for i in range(n):
        j = max(j, i)
        while j + 1 < n and latest[j + 1] < i:
            j += 1
        if j > last_end and j > i:
            runs.append(tuple(range(i, j + 1)))
        last_end = max(last_end, j)
    return runs


@dataclass(frozen=True)
class CDLabel:
    """One algorithm on the CD diagram (points, y downwards)."""

    name: str
    rank: float
    x: float           # where the leader line meets the axis
    y: float           # centre line of the label's row (the leader line)
    side: str          # 'left' or 'right'
    text: str
    box: tuple         # (x0, y0, x1, y1) of the text


@dataclass(frozen=True)
class CDLayout:
    """Coordinates of a critical-difference diagram, in points, y downwards."""

    width: float
    height: float
    axis: tuple        # (x0, x1, y)
    ticks: tuple       # ((rank, x), ...)
    tick_labels: tuple # ((text, x), ...)
    labels: tuple      # CDLabel, best first
    bars: tuple        # ((names, x0, x1, y), ...)
    cd_bar: tuple | None  # (x0, x1, y) or None
    control_band: tuple | None  # (x0, x1, y): one CD either side of the control, or None
    fontsize: float
    row: float


def _text_width(text, fontsize):
    """A generous estimate of the width of ``text`` in a sans-serif font."""
    wide = sum(ch in "MWmw@%" or ch.isupper() for ch in text)
    narrow = sum(ch in "iljtf.,:;'|!()[] 1" for ch in text)
    return fontsize * (0.62 * (len(text) - wide - narrow) + 0.9 * wide + 0.38 * narrow)


def cd_layout(names, average_ranks, significant=None, critical_difference=None, *,
              control=None, fontsize=12.0):
    """Place a critical-difference diagram (Demšar 2006, figure 1).

    The axis runs over ranks 1..L, best (rank 1) on the left.  The better
    half of the algorithms is labelled on the left, the worse half on the
    right, one label per row with leader lines that never cross; thick bars
    join the maximal runs of algorithms not found different (:func:`cd_groups`).

    Parameters
    ----------
    names : sequence of str
    average_ranks : sequence of float
    significant : array_like of bool, shape (L, L), optional
        Pairs found different; None draws no bars (no post-hoc test).
    critical_difference : float, optional
        Drawn as a bar above the axis.
    control : tuple (name, critical difference), optional
        Shade the band of one critical difference either side of this
        algorithm (comparisons with a control, Bonferroni–Dunn).
    fontsize : float

    Returns
    -------
    CDLayout
    """
    names = [str(n) for n in names]
    ranks = np.asarray(average_ranks, dtype=float)
    L = len(names)
    if L < 1 or ranks.shape != (L,):
        raise MultitestError("`average_ranks` must have one rank per name")
    order = sorted(range(L), key=lambda i: (ranks[i], names[i]))
    row = fontsize * 1.6
    gap = 8.0
    axis_width = float(min(900.0, max(360.0, 22.0 * (L - 1))))
    scale = axis_width / max(L - 1, 1)
    n_left = (L + 1) // 2
    texts = {}
    for position, i in enumerate(order):
        rank_text = f"{ranks[i]:.2f}"
        texts[i] = (f"{names[i]}  {rank_text}" if position < n_left
                    else f"{rank_text}  {names[i]}")
    left_width = max([_text_width(texts[i], fontsize) for i in order[:n_left]] + [0.0])
    right_width = max([_text_width(texts[i], fontsize) for i in order[n_left:]] + [0.0])
    margin = 10.0
    x0 = margin + left_width + gap + 12.0
    x1 = x0 + axis_width
    top = margin + (2.6 * fontsize if critical_difference is not None else 0.0)
    y_axis = top + 1.6 * fontsize
    # Tick labels: every rank, or every k-th when ranks are crowded.
    step = max(1, math.ceil(24.0 / scale))
    ticks = tuple((float(k), x0 + (k - 1) * scale) for k in range(1, L + 1))
    labelled = list(range(1, L + 1, step))
    if labelled[-1] != L:
        if (L - labelled[-1]) * scale < 24.0:
            labelled.pop()
        labelled.append(L)
    tick_labels = tuple((str(k), x0 + (k - 1) * scale) for k in labelled)
    # Bars of the maximal runs, packed greedily into rows.
    bars = []
    if significant is not None:
        rows_end = []
        for run in cd_groups(order, significant):
            members = [order[p] for p in run]
            bx0 = x0 + (ranks[members[0]] - 1) * scale - 4.0
            bx1 = x0 + (ranks[members[-1]] - 1) * scale + 4.0
            for k, end in enumerate(rows_end):
                if end + 6.0 < bx0:
                    rows_end[k] = bx1
                    break
            else:
                k = len(rows_end)
                rows_end.append(bx1)
            bars.append((tuple(names[m] for m in members), bx0, bx1, k))
        n_bar_rows = len(rows_end)
    else:
        n_bar_rows = 0
    bar_top = y_axis + 12.0
    bar_pitch = 8.0
    bars = tuple((members, bx0, bx1, bar_top + k * bar_pitch) for members, bx0, bx1, k in bars)
    first_row = bar_top + n_bar_rows * bar_pitch + row * 0.8
    labels = []
    for position, i in enumerate(order):
        x = x0 + (ranks[i] - 1) * scale
        w = _text_width(texts[i], fontsize)
        if position < n_left:
            y = first_row + position * row
            tx = x0 - gap - 12.0
            box = (tx - w, y - fontsize * 0.6, tx, y + fontsize * 0.6)
            side = "left"
        else:
            y = first_row + (L - 1 - position) * row
            tx = x1 + gap + 12.0
            box = (tx, y - fontsize * 0.6, tx + w, y + fontsize * 0.6)
            side = "right"
        labels.append(CDLabel(name=names[i], rank=float(ranks[i]), x=x, y=y, side=side,
                              text=texts[i], box=box))
    n_rows = max(n_left, L - n_left)
    height = first_row + (n_rows - 1) * row + fontsize + margin
    width = x1 + gap + 12.0 + right_width + margin
    cd_bar = None
    if critical_difference is not None and np.isfinite(critical_difference):
        length = min(float(critical_difference) * scale, axis_width)
        cd_bar = (x0, x0 + length, margin + 1.6 * fontsize)
    control_band = None
    if control is not None:
        name, cd_control = control
        rank_c = ranks[names.index(str(name))]
        low, high = max(1.0, rank_c - cd_control), min(float(L), rank_c + cd_control)
        control_band = (x0 + (low - 1) * scale, x0 + (high - 1) * scale, y_axis)
    return CDLayout(width=width, height=height, axis=(x0, x1, y_axis), ticks=ticks,
                    tick_labels=tick_labels, labels=tuple(labels), bars=bars, cd_bar=cd_bar,
                    control_band=control_band, fontsize=fontsize, row=row)


def _dot_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _PinnedDot:
    """DOT text with every node pinned (neato, positions in points, y upwards)."""

    def __init__(self, name, height):
        self.height = height
        self.lines = [f"digraph {_dot_string(name)} {{",
                      "graph [layout=neato, inputscale=72, notranslate=true, splines=false, "
                      "outputorder=edgesfirst, bgcolor=white, pad=0.15]",
                      f'node [shape=none, width=0, height=0, fixedsize=shape, label="", '
                      f'margin=0, fontname="{FONT}"]',
                      "edge [dir=none, arrowhead=none, penwidth=1]"]
        self.count = 0

    def point(self, x, y):
        self.count += 1
        node = f"p{self.count}"
        self.lines.append(f'{node} [pos="{x:.2f},{self.height - y:.2f}!"]')
        return node

    def line(self, xa, ya, xb, yb, **attrs):
        a, b = self.point(xa, ya), self.point(xb, yb)
        extra = "".join(f", {k}={_dot_string(str(v))}" for k, v in attrs.items())
        self.lines.append(f"{a} -> {b} [{extra[2:]}]" if extra else f"{a} -> {b}")

    def text(self, x, y, text, fontsize, anchor="middle", width=None, color=None):
        """Plain ``text`` centred vertically on ``y``, anchored at ``x``.

        The node is as wide as the estimated text; ``\\l`` / ``\\r``
        justification puts the text edge exactly at ``x`` whatever the font.
        """
        self.count += 1
        node = f"t{self.count}"
        w = (width if width is not None else _text_width(text, fontsize)) + 2.0
        cx = {"middle": x, "end": x - w / 2, "start": x + w / 2}[anchor]
        escaped = text.replace("\\", "\\\\").replace('"', '\\"')
        label = escaped + {"middle": "", "end": "\\r", "start": "\\l"}[anchor]
        cy = self.height - y
        color_attr = f', fontcolor="{color}"' if color else ""
        self.lines.append(f'{node} [pos="{cx:.2f},{cy:.2f}!", width={w / 72:.4f}, '
                          f'height={fontsize * 1.25 / 72:.4f}, fontsize={fontsize:g}, '
                          f'label="{label}"{color_attr}]')

    def source(self):
        return "\n".join(self.lines + ["}"]) + "\n"


def _cd_caption(sp, n_datasets):
    """Plain-text lines under the CD diagram."""
    method = sp.method_entry.caption
    lines = [f"average ranks over {n_datasets} data sets (1 = best, on the left)"]
    if not sp.applied:
        lines.append(f"Friedman test does not reject at \u03b1 = {sp.alpha:g}: no post-hoc test "
                     "applied, no groups drawn")
        return lines
    text = f"{method}, \u03b1 = {sp.alpha:g}"
    if sp.correction != "none":
        text += f", {sp.correction} correction"
    if sp.critical_difference is not None:
        text += f", critical difference CD = {sp.critical_difference:.3f}"
    lines.append(text)
    lines.append("thick bars join algorithms not found different (maximal runs in rank order)")
    return lines


def render_cd_diagram(ranking):
    """The Nemenyi stage as a critical-difference diagram (Demšar 2006).

    An axis of average ranks 1..L (best left), the critical difference as a
    bar above it, every algorithm labelled on its own row (better half left,
    worse half right) and thick bars joining the maximal runs of algorithms
    not found different.  With the Friedman gate closed only the ranks are
    drawn, and the caption says no post-hoc test was applied.

    Parameters
    ----------
    ranking : multitest.engine._ranking.Ranking
        With at least two data sets.

    Returns
    -------
    graphviz.Source
        DOT for ``neato`` with every position pinned (the ``layout``
        attribute is in the source, so ``dot -Tsvg`` draws it too).
    """
    sp = _require_second_pass(ranking, "render_cd_diagram")
    significant = sp.significant if sp.applied else None
    cd = sp.critical_difference if sp.applied else None
    caption = _cd_caption(sp, len(ranking.datasets))
    control = None
    if ranking.control is not None:
        c = ranking.control
        name = sp.algorithms[c.control]
        control = (name, float(c.critical_difference))
        differ = [sp.algorithms[i] for i in np.flatnonzero(c.significant)]
        caption.append(f"shaded: one Bonferroni\u2013Dunn CD = {c.critical_difference:.3f} "
                       f"either side of the control {name}; {c.method} finds "
                       f"{', '.join(differ) or 'none'} different from it")
    layout = cd_layout(sp.algorithms, sp.average_ranks, significant, cd, control=control)
    return graphviz.Source(_cd_source(layout, caption))


def _cd_source(layout, caption):
    fs = layout.fontsize
    caption_height = (len(caption) + 0.5) * fs * 1.3
    height = layout.height + caption_height
    d = _PinnedDot("cd", height)
    x0, x1, y = layout.axis
    if layout.control_band is not None:
        bx0, bx1, by = layout.control_band
        d.line(bx0, by, bx1, by, penwidth="10", color="#f4a58299")
    d.line(x0, y, x1, y, penwidth="1.2")
    labelled = {x for _, x in layout.tick_labels}
    for _, x in layout.ticks:
        d.line(x, y - (5 if x in labelled else 3), x, y, penwidth="1")
    for text, x in layout.tick_labels:
        d.text(x, y - 12, text, fs * 0.85)
    if layout.cd_bar is not None:
        cx0, cx1, cy = layout.cd_bar
        d.line(cx0, cy, cx1, cy, penwidth="1.5")
        d.line(cx0, cy - 4, cx0, cy + 4, penwidth="1.5")
        d.line(cx1, cy - 4, cx1, cy + 4, penwidth="1.5")
        d.text((cx0 + cx1) / 2, cy - 10, "CD", fs * 0.9)
    for label in layout.labels:
        edge = label.box[2] + 4 if label.side == "left" else label.box[0] - 4
        corner = d.point(label.x, label.y)
        top = d.point(label.x, y)
        end = d.point(edge, label.y)
        d.lines.append(f"{top} -> {corner}")
        d.lines.append(f"{corner} -> {end}")
        anchor = "end" if label.side == "left" else "start"
        tx = label.box[2] if label.side == "left" else label.box[0]
        d.text(tx, label.y, label.text, fs, anchor=anchor, width=label.box[2] - label.box[0])
    for _, bx0, bx1, by in layout.bars:
        d.line(bx0, by, bx1, by, penwidth="4", color="#333333")
    for k, line in enumerate(caption):
        d.text(10.0, layout.height + (k + 0.8) * fs * 1.3, line, fs * 0.85, anchor="start",
               color="#333333")
    return d.source()


def _require_second_pass(ranking, function):
    if ranking.second_pass is None:
        raise MultitestError(f"`{function}` needs a ranking over at least two data sets "
                             "(ranking.second_pass is None)")
    return ranking.second_pass


def render_significance_matrix(ranking):
    """Pairwise decisions of the post-hoc test as a table (algorithms by average rank).

    A coloured cell is a pair found different; cells show the (adjusted)
    p-value for up to 20 algorithms.

    Returns
    -------
    graphviz.Digraph
    """
    sp = _require_second_pass(ranking, "render_significance_matrix")
    L = len(sp.algorithms)
    order = sorted(range(L), key=lambda i: (sp.average_ranks[i], sp.algorithms[i]))
    if L > MATRIX_LIMIT:
        return _significance_list(sp, order)
    if L > 20:
        return _significance_cells(sp, order)
    show_p = sp.posthoc is not None and L <= 20
    rows = ['<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">',
            '<TR><TD BORDER="0"></TD>'
            + "".join(f'<TD BORDER="0"><B>{k}</B></TD>' for k in range(1, L + 1)) + "</TR>"]
    for a_pos, a in enumerate(order, start=1):
        cells = [f'<TD BORDER="0" ALIGN="LEFT"><B>{a_pos}</B>&#160;{_text(sp.algorithms[a])} '
                 f'({sp.average_ranks[a]:.2f})</TD>']
        for b in order:
            if a == b:
                cells.append('<TD BGCOLOR="#dddddd"> </TD>')
                continue
            text = _p(sp.posthoc.pvalues[a, b]) if show_p else " "
            if not sp.applied:
                text = "&#8211;"
            color = _SIGNIFICANT if sp.significant[a, b] else "white"
            cells.append(f'<TD BGCOLOR="{color}">{text}</TD>')
        rows.append("<TR>" + "".join(cells) + "</TR>")
    rows.append("</TABLE>")
    g = _digraph("significance")
    g.attr("node", shape="plaintext", fontsize="9")
    g.node("matrix", "<" + "".join(rows) + ">")
    legend = [f"<B>post-hoc significance matrix</B>&#160;({_text(sp.method)}), rows and "
              "columns by average rank (1 = best)"]
    if sp.applied:
        legend.append(f"coloured: pair found different at &#945; = {sp.alpha:g}"
                      + ("; cells show p-values" if show_p else ""))
    else:
        legend.append("Friedman test does not reject: no post-hoc test applied")
    g.attr("graph", label=_legend(legend))
    return g


def _significance_caption(sp, drawing):
    legend = [f"<B>post-hoc significance</B>&#160;({_text(sp.method)}), algorithms by average "
              "rank (1 = best)", drawing]
    if not sp.applied:
        legend.append("Friedman test does not reject: no post-hoc test applied")
    return _legend(legend)


def _significance_cells(sp, order):
    """The decisions as a matrix of small cells (no p-values): 21..MATRIX_LIMIT algorithms."""
    L = len(order)
    coloured, empty = f'<TD BGCOLOR="{_SIGNIFICANT}"></TD>', "<TD></TD>"
    diagonal = '<TD BGCOLOR="#dddddd"></TD>'
    rows = [[_cell("<B>#</B>"), _cell("<B>algorithm (average rank)</B>")]
            + [_cell(f"<B>{k}</B>", "CENTER") for k in range(1, L + 1)]]
    for a_pos, a in enumerate(order, start=1):
        cells = [_cell(str(a_pos), "RIGHT"),
                 _cell(f"{_text(sp.algorithms[a])} ({sp.average_ranks[a]:.2f})")]
        cells += [coloured if hit else empty for hit in sp.significant[a, order].tolist()]
        cells[2 + a_pos - 1] = diagonal
        rows.append(cells)
    g = _digraph("significance")
    _table_node(g, rows, cellpadding=5, cellspacing=1)
    g.attr("graph", label=_significance_caption(
        sp, f"coloured cell: pair found different at &#945; = {sp.alpha:g}"))
    return g


def _significance_list(sp, order):
    """The decisions as one row per algorithm: above MATRIX_LIMIT algorithms."""
    rows = [[_cell("<B>#</B>"), _cell("<B>algorithm</B>"), _cell("<B>average rank</B>"),
             _cell("<B>found different from</B>"),
             _cell("<B>not different from (positions by rank)</B>")]]
    # Rows and columns by rank position: the "not different" positions of each row.
    same = ~np.asarray(sp.significant, dtype=bool)[np.ix_(order, order)]
    np.fill_diagonal(same, False)
    count = same.sum(axis=1)
    first = np.argmax(same, axis=1) + 1
    last = len(order) - np.argmax(same[:, ::-1], axis=1)
    for k, a in enumerate(order):
        span = f"{first[k]}&#8211;{last[k]}" if count[k] else "&#8211;"
        rows.append([_cell(str(k + 1), "RIGHT"), _cell(_text(sp.algorithms[a])),
                     _cell(f"{sp.average_ranks[a]:.2f}", "RIGHT"),
                     _cell(str(len(order) - 1 - int(count[k])), "RIGHT"),
                     _cell(f"{count[k]}: {span}")])
    g = _digraph("significance")
    _table_node(g, rows)
    g.attr("graph", label=_significance_caption(
        sp, f"one row per algorithm: how many others were found different at "
            f"&#945; = {sp.alpha:g}"))
    return g


# -- stage 5: the second pass ------------------------------------------------------------

def render_second_pass(ranking):
    """The second-pass graph: average-cost order, post-hoc overrides.

    Returns
    -------
    graphviz.Digraph
    """
    sp = _require_second_pass(ranking, "render_second_pass")
    return render_second_pass_result(sp, len(ranking.datasets), ranking.profile)


def render_second_pass_result(sp, n_datasets=None, profile=None):
    """The second-pass graph from a :class:`~multitest.engine._second_pass.SecondPassResult` alone.

    Drawn by size like the override graph (:func:`render_override_graph`).

    Returns
    -------
    graphviz.Digraph
    """
    index = {a: i for i, a in enumerate(sp.algorithms)}
    final = {a: k for k, a in enumerate(sp.order, start=1)}
    info = {a: [("rank", f"{sp.average_ranks[index[a]]:.3f}"),
                ("cost", _num(sp.average_costs[index[a]])),
                ("final #", str(final[a]))] for a in sp.prior_order}
    overrides = sp.overrides()

    def edges():
        return [(a, b, None if sp.posthoc is None else sp.posthoc.pvalues[index[a], index[b]])
                for a, b in sp.edges()]

    over = f"&#160;over {n_datasets} data sets" if n_datasets else ""
    method = sp.method + ("" if sp.correction == "none" else f", {sp.correction} correction")
    n_edges = int(overrides.sum())
    legend = [f"<B>second pass</B>{over}: average-cost order (cheapest first);"
              " average rank, average cost, final position",
              f"override i &#8594; j: the post-hoc test ({_text(method)}) finds j better than the "
              f"cheaper i ({n_edges} override{'s' if n_edges != 1 else ''})",
              _text(sp.gate)]
    if sp.critical_difference is not None:
        legend.append(f"critical difference {sp.critical_difference:.3f}")
    if profile is not None:
        legend.append(f"cost profile {_text(profile.name)}; {_cost_unit_line(profile)}")
    return _order_view("second_pass", sp.prior_order, info, overrides, edges, legend)


def render_final(ranking):
    """The final order as a chain (1 -> 2 -> ...), with the overrides that shaped it.

    The chain edges are solid; the overrides of the second pass (of the data
    set with a single data set) are dashed and coloured, from the cheaper
    algorithm to the costlier one that beat it.

    Returns
    -------
    graphviz.Digraph
    """
    order = list(ranking.final_order)
    sp = ranking.second_pass
    if len(order) > ROW_LIMIT:
        return _final_table(ranking)
    g = _digraph("final")
    ids = {a: f"n{i}" for i, a in enumerate(order)}
    for position, a in enumerate(order, start=1):
        lines = [f"{position}. {_wrap(a)}"]
        if sp is not None:
            i = sp.algorithms.index(a)
            lines += [f"rank {sp.average_ranks[i]:.3f}", f"cost {_num(sp.average_costs[i])}"]
        else:
            r = ranking.datasets[0]
            lines += [f"error {_num(r.mean_errors[a])}"]
        style = dict(style="rounded,filled,bold", fillcolor="#e8f1fa") if position == 1 else {}
        g.node(ids[a], _label(*lines), **style)
    for a, b in zip(order, order[1:]):
        g.edge(ids[a], ids[b], weight="10", penwidth="1.4")
    if sp is not None:
        index = {a: i for i, a in enumerate(sp.algorithms)}
        edges = [(a, b, None if sp.posthoc is None else sp.posthoc.pvalues[index[a], index[b]])
                 for a, b in sp.edges()]
        source = "second pass"
    else:
        edges = [(a, b, p) for a, b, _, p in ranking.datasets[0].edges()]
        source = ranking.datasets[0].name
    for a, b, p in edges:
        attrs = {"label": f"p={_p(p)}"} if p is not None else {}
        g.edge(ids[a], ids[b], style="dashed", color=_OVERRIDE, fontcolor=_OVERRIDE,
               constraint="false", **attrs)
    legend = ["<B>final order</B>, best first; nodes: "
              + ("average rank, average cost" if sp is not None else "mean error"),
              f"dashed red: overrides from the {_text(source)} (costlier algorithm significantly "
              f"better than the cheaper): {len(edges)}"]
    if sp is not None and not sp.applied:
        legend.append("no post-hoc test applied: the final order is the average-cost order")
    legend.append(_cost_unit_line(ranking.profile))
    g.attr("graph", label=_legend(legend))
    return g


def _final_table(ranking):
    """The final order as a table, best first: legible at any number of algorithms."""
    g = _digraph("final")
    rows = [[_cell("<B>#</B>"), _cell("<B>algorithm</B>"), _cell("<B>average rank</B>"),
             _cell("<B>average cost</B>"), _cell("<B>beats (cheaper)</B>"),
             _cell("<B>beaten by (costlier)</B>")]]
    sp = ranking.second_pass
    sorted_on = sp if sp is not None else ranking.datasets[0]
    overrides = sorted_on.overrides()          # in prior order
    wins = dict(zip(sorted_on.prior_order, overrides.sum(axis=0).tolist()))
    losses = dict(zip(sorted_on.prior_order, overrides.sum(axis=1).tolist()))
    index = {a: i for i, a in enumerate(ranking.algorithms)}
    for position, a in enumerate(ranking.final_order, start=1):
        if sp is not None:
            i = index[a]
            rank_text, cost_text = f"{sp.average_ranks[i]:.3f}", _num(sp.average_costs[i])
        else:
            r = ranking.datasets[0]
            rank_text, cost_text = _num(r.ranks[a], 3), _num(r.costs[r.algorithms.index(a)])
        rows.append([_cell(str(position), "RIGHT"), _cell(f"<B>{_text(a)}</B>"),
                     _cell(rank_text, "RIGHT"), _cell(cost_text, "RIGHT"),
                     _cell(str(wins[a]), "RIGHT"), _cell(str(losses[a]), "RIGHT")])
    _table_node(g, rows)
    source = "second pass" if sp is not None else ranking.datasets[0].name
    g.attr("graph", label=_legend([
        "<B>final order</B>, best first (one row per algorithm)",
        f"beats / beaten by: overrides of the {_text(source)} won against cheaper and lost "
        "against costlier algorithms (significantly better, costlier)",
        _cost_unit_line(ranking.profile)]))
    return g


# -- writing ----------------------------------------------------------------------------------

def safe_filename(name):
    """A data set name usable as part of a file name on every file system."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._")
    return (text or "dataset")[:80]


def figures(ranking, per_dataset=True):
    """Every figure of a ranking: ``{file stem: graphviz object}``, in report order.

    Stems: ``final``, ``second_pass``, ``second_pass_trace``, ``cd``,
    ``significance`` (with at least two data sets), then ``override_<dataset>`` and
    ``trace_<dataset>`` for every data set (names made safe for file systems, made
    unique) unless ``per_dataset`` is false.
    """
    out = OrderedDict()
    out["final"] = render_final(ranking)
    if ranking.second_pass is not None:
        out["second_pass"] = render_second_pass(ranking)
        out["second_pass_trace"] = render_second_pass_trace(ranking)
        out["cd"] = render_cd_diagram(ranking)
        out["significance"] = render_significance_matrix(ranking)
    for r, stem in zip(ranking.datasets if per_dataset else (), dataset_stems(ranking)):
        out[f"override_{stem}"] = render_override_graph(r, ranking.settings, ranking.profile)
        out[f"trace_{stem}"] = render_trace(r)
    return out


def dataset_stems(ranking):
    """File-name stem of every data set (safe and unique), in data set order."""
    stems, seen = [], set()
    for r in ranking.datasets:
        stem = base = safe_filename(r.name)
        k = 2
        while stem.lower() in seen:
            stem, k = f"{base}_{k}", k + 1
        seen.add(stem.lower())
        stems.append(stem)
    return stems


def dot_available():
    """Whether the Graphviz ``dot`` program is on the path."""
    return shutil.which("dot") is not None


def _run_dot(folder, file, formats):
    """Render one file in ``folder`` with a ``dot`` process of its own; None or an error.

    One process per file: Graphviz keeps state from one graph to the next in
    one process (a ``layout=neato`` of the CD diagram stays for the graphs
    after it), so every figure gets a fresh engine.
    """
    command = [shutil.which("dot") or "dot"] + [f"-T{f}" for f in formats] + ["-O", file]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    if done.returncode == 0:
        return None
    return (file, (done.stderr.strip().splitlines() or ["failed"])[-1])


def _render_folder(folder, stems, formats, jobs):
    """Run ``dot`` on ``folder/<stem>.dot``, writing ``<stem>.<format>``; return failures."""
    files = [f"{stem}.dot" for stem in stems]
    # Bigger graphs first so that the workers end together.
    sizes = {f: os.path.getsize(os.path.join(folder, f)) for f in files}
    files.sort(key=lambda f: -sizes[f])
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(files)))
    failures = []
    with progress(len(files), "drawing figures") as bar, \
            ThreadPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(lambda f: _run_dot(folder, f, formats), files):
            bar.update(1, failed=result is not None)
            if result is not None:
                failures.append(result)
    failed = {f for f, _ in failures}
    for f in files:
        if f in failed:
            continue
        for fmt in formats:
            os.replace(os.path.join(folder, f"{f}.{fmt}"),
                       os.path.join(folder, f"{f[:-4]}.{fmt}"))
    return failures


# SVG text of DOT sources rendered in this process, so that the report
# reuses the images of write_figures (all of them: a run of 1000 data sets
# has 2000 figures).  Bounded in characters; keyed by a hash of the DOT.
_SVG_CACHE = OrderedDict()
_SVG_CACHE_CHARS = 400_000_000
_cached_chars = 0


def _key(source):
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _remember(source, svg):
    global _cached_chars
    key = _key(source)
    old = _SVG_CACHE.pop(key, None)
    _cached_chars += len(svg) - (len(old) if old is not None else 0)
    _SVG_CACHE[key] = svg
    while _cached_chars > _SVG_CACHE_CHARS and len(_SVG_CACHE) > 1:
        _cached_chars -= len(_SVG_CACHE.popitem(last=False)[1])


def _check_formats(formats):
    formats = [f.lower() for f in formats]
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise MultitestError(f"`formats`: unknown format {', '.join(bad)}; formats are "
                             f"{', '.join(FORMATS)}")
    return list(dict.fromkeys(formats))


def write_figures(ranking, out_dir, formats=("svg",), jobs=None, per_dataset=True):
    """Write every figure of ``ranking`` into ``out_dir``.

    The DOT source of every figure is always written (``<stem>.dot``, see
    :func:`figures` for the stems); images in each of ``formats`` are added
    where Graphviz ``dot`` is installed, several ``dot`` processes running at
    once.

    Parameters
    ----------
    ranking : multitest.engine._ranking.Ranking
    out_dir : str or os.PathLike
    formats : sequence of {'svg', 'png', 'pdf'}
    jobs : int, optional
        Parallel ``dot`` processes; default: the number of CPUs.

    Returns
    -------
    str or None
        A one-line warning when images could not be made, else None.
    """
    formats = _check_formats(formats)
    os.makedirs(out_dir, exist_ok=True)
    graphs = figures(ranking, per_dataset=per_dataset)
    sources = {stem: graph.source for stem, graph in graphs.items()}
    for stem, source in sources.items():
        with open(os.path.join(out_dir, f"{stem}.dot"), "w", encoding="utf-8") as handle:
            handle.write(source)
    if not formats:
        return None
    if not dot_available():
        return _MISSING_DOT
    failures = _render_folder(out_dir, list(sources), formats, jobs)
    if "svg" in formats:
        failed = {f[:-4] for f, _ in failures}
        for stem, source in sources.items():
            if stem not in failed:
                with open(os.path.join(out_dir, f"{stem}.svg"), encoding="utf-8") as handle:
                    _remember(source, handle.read())
    if failures:
        f, message = failures[0]
        return (f"Graphviz 'dot' failed on {len(failures)} figure(s), e.g. {f}: {message}")
    return None


def render_svgs(sources, jobs=None):
    """SVG text of DOT sources, rendered in parallel.

    Parameters
    ----------
    sources : dict
        ``{key: DOT text}``.

    Returns
    -------
    dict or None
        ``{key: SVG text or None when dot failed}``; None when ``dot`` is
        not installed.
    """
    if not dot_available():
        return None
    out = {key: _SVG_CACHE.get(_key(source)) for key, source in sources.items()}
    missing = [key for key, svg in out.items() if svg is None]
    if missing:
        with tempfile.TemporaryDirectory(prefix="multitest-dot-") as folder:
            stems = {key: f"g{k}" for k, key in enumerate(missing)}
            for key in missing:
                with open(os.path.join(folder, f"{stems[key]}.dot"), "w",
                          encoding="utf-8") as handle:
                    handle.write(sources[key])
            failures = _render_folder(folder, list(stems.values()), ["svg"], jobs)
            failed = {f[:-4] for f, _ in failures}
            for key in missing:
                if stems[key] in failed:
                    continue
                with open(os.path.join(folder, f"{stems[key]}.svg"), encoding="utf-8") as handle:
                    out[key] = handle.read()
                _remember(sources[key], out[key])
    return out


def to_svg(graph):
    """SVG text of one graph (:mod:`graphviz` object or DOT text), or None without ``dot``."""
    source = graph if isinstance(graph, str) else graph.source
    svgs = render_svgs({"g": source}, jobs=1)
    return None if svgs is None else svgs["g"]


_SVG_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_NAMESPACES = re.compile(r'\s+xmlns(:xlink)?="[^"]*"')
_COMMENTS = re.compile(r"<!--.*?-->", re.S)


def inline_svg(svg):
    """SVG text ready to be inlined in HTML: no prolog, comments or namespace URLs."""
    svg = _SVG_PROLOG.sub("", svg, count=1)
    svg = _COMMENTS.sub("", svg)
    return _NAMESPACES.sub("", svg).strip()


def ranking_html(ranking):
    """HTML for Jupyter: the final graph and a table of the final order."""
    sp = ranking.second_pass
    svg = to_svg(render_final(ranking))
    figure = (inline_svg(svg) if svg is not None else
              "<pre>" + html.escape(render_final(ranking).source) + "</pre>")
    rows = []
    for position, a in enumerate(ranking.final_order, start=1):
        cost = ""
        if sp is not None:
            cost = _num(sp.average_costs[sp.algorithms.index(a)])
        rows.append(f"<tr><td>{position}</td><td>{html.escape(a)}</td>"
                    f"<td>{ranking.average_ranks[a]:.3f}</td><td>{cost}</td></tr>")
    s = ranking.settings
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in ranking.notes)
    return (f"<div><p><b>Final order</b> ({len(ranking.datasets)} data set(s); test "
            f"{html.escape(s.test)}, &alpha; = {s.alpha:g}, costs {html.escape(s.costs)})</p>"
            f"{figure}<table><thead><tr><th>rank</th><th>algorithm</th><th>average rank</th>"
            f"<th>average cost</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<ul>{notes}</ul></div>")
