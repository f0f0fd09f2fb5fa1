"""The building blocks of the Graphviz figures: graph style, labels, tables and orders.

Every figure of :mod:`multitest.figures` is built from these: one graph style
(:func:`_digraph`), HTML-like labels of escaped text (:func:`_label`,
:func:`_legend`, :func:`_wrap`), table nodes (:func:`_cell`, :func:`_table_node`)
and the drawing of an order with its overrides, chosen by size
(:func:`_order_view`): up to :data:`ROW_LIMIT` algorithms a row of boxes,
above a matrix, and above :data:`MATRIX_LIMIT` a table, so that every figure
stays legible and quick to draw at 1000 algorithms (docs/explanation/figures.md).
"""

from __future__ import annotations

import html
import re

import graphviz
import numpy as np

from .._errors import MultitestError
from .._format import format_p
from ..engine._reduction import transitive_reduction

__all__ = ["ROW_LIMIT", "ROW_EDGE_LIMIT", "MATRIX_LIMIT", "WRAP"]

#: Up to this many algorithms an order is drawn as a graph of boxes in one row
#: (override graphs, second pass, final order, sort traces); above it as a
#: table, which stays legible and takes ``dot`` milliseconds at any size.
ROW_LIMIT = 16

#: ... and their transitive reduction has at most this many edges (more arcs
#: over one row cannot be followed by eye): otherwise the matrix view is drawn.
ROW_EDGE_LIMIT = 24

#: Up to this many algorithms the overrides and the post-hoc decisions are
#: drawn as a matrix (one cell per pair); above it as one row per algorithm.
MATRIX_LIMIT = 100

FONT = "Helvetica,Arial,sans-serif"
_OVERRIDE = "#c0392b"      # override edges
_CANDIDATE = "#1f6fb4"     # candidates of a sort step
_FADED = "#9a9a9a"         # nodes already placed
_SIGNIFICANT = "#f4a582"   # cells of pairs found different


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


def _cost_unit_line(profile):
    """What the cost numbers on a figure are: their unit and normalization."""
    from ..engine._explain import cost_unit_sentence  # computation: no rendering imports there

    return _text(cost_unit_sentence(profile))


def _require_second_pass(ranking, function):
    if ranking.second_pass is None:
        raise MultitestError(f"`{function}` needs a ranking over at least two data sets "
                             "(ranking.second_pass is None)")
    return ranking.second_pass


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
        attrs = {} if p is None else {"xlabel": f"p={format_p(p)}"}
        g.edge(ids[a], ids[b], color=_OVERRIDE, fontcolor=_OVERRIDE, **attrs)
    hidden = _hidden_line(len(edges), len(drawn))
    g.attr("graph", label=_legend(legend + ([hidden] if hidden else [])))
    return g

