"""The building blocks of the Graphviz figures: graph style, labels, tables and orders.

Every figure of :mod:`multitest.figures` is built from these: one graph style
(:func:`_digraph`), HTML-like labels of escaped text (:func:`_label`,
:func:`_legend`, :func:`_wrap`), table nodes (:func:`_cell`, :func:`_table_node`)
and the drawing of an order with its overrides, chosen by what stays readable
(:func:`choose_drawing`, :func:`_order_view`): up to :data:`ROW_LIMIT` algorithms
and :data:`ROW_EDGE_LIMIT` edges in the transitive reduction a row of boxes,
else a matrix with named columns, and above :data:`MATRIX_LIMIT` algorithms a
table, so that every figure stays legible and quick to draw at 1000 algorithms
(docs/explanation/figures.md).  The choice is made once per figure kind and run.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

import graphviz
import numpy as np

from .._errors import MultitestError
from .._format import format_p, p_equals
from ..engine._reduction import transitive_reduction

__all__ = []

#: Up to this many algorithms an order can be drawn as a graph of boxes in one row
#: (override graphs, second pass, sort traces); above it as a matrix or table,
#: which stay legible and take ``dot`` milliseconds at any size.
ROW_LIMIT = 16

#: ... and only while the transitive reduction of its overrides has at most this
#: many edges: more arcs over one row cannot be followed by eye (their labels
#: crowd the boxes), so the matrix view is drawn instead, with the p-values in
#: its cells.  The choice is made once per figure kind and run
#: (:func:`choose_drawing`): every override graph of a run is drawn alike.
ROW_EDGE_LIMIT = 6

#: Up to this many algorithms the overrides and the post-hoc decisions are
#: drawn as a matrix (one cell per pair); above it as one row per algorithm.
MATRIX_LIMIT = 16

#: Up to this many algorithms the cells of a matrix show their p-values;
#: above, the cells are coloured only (every p-value is in pairwise.csv).
MATRIX_P_LIMIT = 16

#: Column headings of a matrix are algorithm names wrapped at this many characters.
COLUMN_WRAP = 10

FONT = "Helvetica,Arial,sans-serif"
_OVERRIDE = "#c0392b"      # override edges
_CANDIDATE = "#1f6fb4"     # candidates of a sort step
_FADED = "#666666"         # nodes already placed (5.7:1 on white: legible text)
_SIGNIFICANT = "#f4a582"   # cells of pairs found different (black text on it: 10.5:1)
_OVERRIDE_CELL = _SIGNIFICANT  # cells of overrides


# -- small helpers ---------------------------------------------------------------

def _text(value):
    """A name or a setting as text for an HTML-like Graphviz label."""
    return _escaped(value) if isinstance(value, str) else _escaped(str(value))


@lru_cache(maxsize=65536)
def _escaped(text):
    """:func:`_text` of a string, remembered (the names recur in every figure of a run)."""
    return html.escape(" ".join(text.split()), quote=True)


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


#: Legend lines are broken at spaces into lines of at most this many characters.
LEGEND_WIDTH = 120

_MARKUP = re.compile(r"<[^>]*>|&#?\w+;")


def _legend(lines):
    """A left-aligned multi-line HTML-like graph label; long lines broken at spaces."""
    return "<" + "".join(f'{part}<BR ALIGN="LEFT"/>' for line in lines
                         for part in _break(line)) + ">"


def _break(line, width=LEGEND_WIDTH):
    """An HTML-like label line in pieces of at most ``width`` visible characters, broken at
    spaces outside tags (continuation lines indented)."""
    pieces, current, length = [], [], 0
    for word in re.split(r" (?![^<]*>)", line):
        visible = len(_MARKUP.sub("x", word))
        if current and length + 1 + visible > width:
            pieces.append(" ".join(current))
            current, length = ["&#160;&#160;"], 2
        current.append(word)
        length += visible + (1 if len(current) > 1 else 0)
    return pieces + [" ".join(current)]


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


def choose_drawing(n_algorithms, reduced_edges=0):
    """The drawing of every figure of one kind in a run: ``'row'``, ``'matrix'`` or ``'table'``.

    Parameters
    ----------
    n_algorithms : int
    reduced_edges : int
        The most edges the transitive reduction of one figure of the kind has
        (over the data sets of the run, for the override graphs).

    Returns
    -------
    str
        ``'row'`` up to :data:`ROW_LIMIT` algorithms and :data:`ROW_EDGE_LIMIT`
        reduced edges, else ``'matrix'`` up to :data:`MATRIX_LIMIT`
        algorithms, else ``'table'``.

    Examples
    --------
    >>> choose_drawing(8, 3), choose_drawing(8, 9), choose_drawing(150)
    ('row', 'matrix', 'table')
    """
    if n_algorithms <= ROW_LIMIT and reduced_edges <= ROW_EDGE_LIMIT:
        return "row"
    return "matrix" if n_algorithms <= MATRIX_LIMIT else "table"


def reduced_edge_count(overrides):
    """Edges of the transitive reduction of an override matrix (0 above :data:`ROW_LIMIT`
    algorithms, where no row is drawn whatever the count)."""
    overrides = np.asarray(overrides, dtype=bool)
    if overrides.shape[0] > ROW_LIMIT or not overrides.any():
        return 0
    return int(transitive_reduction(overrides).sum())


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


def _heads(headings):
    """Header cells of a table: bold, on the baseline of the header row."""
    return [_cell(f"<B>{h}</B>", VALIGN="BOTTOM") for h in headings]


def _column_heads(names):
    """Column headings of a matrix: the algorithm names, wrapped narrow, bottom-aligned."""
    return [_cell(f"<B>{_wrap(a, COLUMN_WRAP)}</B>", "CENTER", VALIGN="BOTTOM") for a in names]


def _evidence(entry):
    """What the number of an override of a test (``PairwiseTest`` or ``SecondPassMethod``)
    is called, and whether it is a p-value (printed as a bound below 1e-300).  None (a
    score matrix: no test on a data set, no number) is taken as a p-value's test."""
    return (entry.evidence, False) if entry is not None and entry.bayesian else ("p", True)


def _how(is_p):
    """How an override is better: ``'significantly'`` (its number a p-value below alpha) or
    ``'practically'`` (a Bayesian test's posterior probability)."""
    return "significantly" if is_p else "practically"


def _order_view(name, prior_order, info, overrides, edges, legend, drawing=None,
                evidence=("p", True)):
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
        called for the row of boxes and the matrix (at most
        :data:`MATRIX_LIMIT` algorithms).
    legend : list of str
        Lines under the figure; a line on the drawing is added.
    drawing : {'row', 'matrix', 'table'}, optional
        Chosen for every figure of the kind in a run (:func:`choose_drawing`);
        default: chosen for this figure alone.
    evidence : (str, bool), default ("p", True)
        What the number of an override is called, and whether it is a p-value
        (printed as a bound below 1e-300, :func:`~multitest._format.format_p`);
        a Bayesian test's is ``(its evidence, False)``.

    A row: boxes in one row, cheapest left, and the edges of the transitive
    reduction labelled with their p-values (the legend counts the hidden
    ones).  A matrix: a row per cheaper and a column per costlier algorithm,
    both named, the p-value in every override cell.  A table: one row per
    algorithm with the costlier algorithms that beat it.
    """
    L = len(prior_order)
    overrides = np.asarray(overrides, dtype=bool)
    if drawing is None:
        drawing = choose_drawing(L, reduced_edge_count(overrides))
    if drawing == "row":
        listed = edges()
        return _order_row(name, prior_order, info, listed,
                          _reduced_edges(prior_order, listed), legend, evidence)
    n_edges = int(overrides.sum())
    g = _digraph(name)
    headings = ["#", "algorithm"] + [h for h, _ in next(iter(info.values()))]
    head = _heads(headings)
    if drawing == "matrix":
        rows, drawing_line = _override_matrix(prior_order, info, overrides, edges, head,
                                              evidence)
    else:
        rows = [head + [_cell("<B>beaten by (costlier algorithms, cheapest first)</B>")]]
        for i, a in enumerate(prior_order):
            won = np.flatnonzero(overrides[i]).tolist()
            text = _wrap(", ".join(prior_order[j] for j in won), 100)
            rows.append([_cell(str(i + 1), "RIGHT"), _cell(_text(a))]
                        + [_cell(t, "RIGHT") for _, t in info[a]] + [_cell(text or "&#8211;")])
        drawing_line = (f"one row per algorithm in cost order (cheapest first), with the "
                        f"costlier algorithms that beat it ({n_edges} overrides)")
    _table_node(g, rows, cellpadding=5 if drawing == "matrix" else 2,
                cellspacing=1 if drawing == "matrix" else 0)
    g.attr("graph", label=_legend(legend[:1] + [drawing_line] + legend[1:]))
    return g


def _override_matrix(prior_order, info, overrides, edges, head, evidence):
    """Rows of the override matrix and the line saying how to read it."""
    L = len(prior_order)
    label, bound = evidence
    show_p = L <= MATRIX_P_LIMIT
    pvalues = {(a, b): p for a, b, p in edges()} if show_p else {}
    red, empty = f'<TD BGCOLOR="{_OVERRIDE_CELL}"></TD>', "<TD></TD>"
    diagonal = '<TD BGCOLOR="#eeeeee"></TD>'
    p_cell = _cell("{}", "RIGHT", BGCOLOR=_OVERRIDE_CELL)   # a template, filled per cell
    rows = [head + _column_heads(prior_order)]
    for i, a in enumerate(prior_order):
        cells = [_cell(str(i + 1), "RIGHT"), _cell(_text(a))]
        cells += [_cell(text, "RIGHT") for _, text in info[a]]
        for j, hit in enumerate(overrides[i].tolist()):
            p = pvalues.get((a, prior_order[j])) if hit else None
            cells.append(diagonal if i == j else p_cell.format(_text(format_p(p, bound)))
                         if p is not None else red if hit else empty)
        rows.append(cells)
    n_edges = int(overrides.sum())
    line = (f"matrix of the {n_edges} overrides: the cell in row i, column j is coloured when "
            f"the costlier j (column) is {_how(bound)} better "
            "than the cheaper i (row)"
            + (f"; cells show its {_text('p-value' if label == 'p' else label)}"
               if show_p and pvalues else "")
            + "; rows and columns in cost order (cheapest first)")
    return rows, line


def _order_row(name, prior_order, info, edges, drawn, legend, evidence):
    # One column of boxes, cheapest at the top (as narrow as a box: it fits any page),
    # the overrides as arcs beside it, each labelled on its arc with its number.
    g = _digraph(name, rankdir="TB")
    g.attr("graph", nodesep="0.3", ranksep="0.3")
    ids = {a: f"n{i}" for i, a in enumerate(prior_order)}
    for a in prior_order:
        g.node(ids[a], _label(_wrap(a), *(f"{h} {t}" for h, t in info[a])), width="2.2")
    # An invisible chain pins the cost order top to bottom.
    for a, b in zip(prior_order, prior_order[1:]):
        g.edge(ids[a], ids[b], style="invis", weight="100")
    label, bound = evidence
    for a, b, p in drawn:
        attrs = {} if p is None else {"label": _text(p_equals(p, label, bound=bound))}
        g.edge(ids[a], ids[b], color=_OVERRIDE, fontcolor=_OVERRIDE, constraint="false",
               **attrs)
    hidden = _hidden_line(len(edges), len(drawn))
    g.attr("graph", label=_legend(legend + ([hidden] if hidden else [])))
    return g


# -- what a second pass tested, and what its numbers are called ----------------------------

def second_pass_number(sp):
    """``(name, convert)``: what the number of a second-pass pair is called on a figure, and
    how to get it from ``sp.posthoc.pvalues`` — the adjusted p named by its correction
    (``'Holm-adjusted p'``, Nemenyi's own ``'Nemenyi p'``), or for a Bayesian pass the
    posterior ``P(practically better)``, ``1 -`` the stored share.

    Examples
    --------
    >>> from types import SimpleNamespace as N
    >>> sp = N(method_entry=N(bayesian=False, rank_based=False), correction="holm", method="wilcoxon")
    >>> second_pass_number(sp)[0]
    'Holm-adjusted p'
    """
    entry = sp.method_entry
    if entry.bayesian:
        return "P(practically better)", lambda share: 1.0 - share
    if sp.correction != "none":
        return f"{sp.correction.capitalize()}-adjusted p", float
    return ("Nemenyi p" if entry.rank_based else "p"), float


def format_second_pass_number(sp, value):
    """The number of a pair as :func:`second_pass_number` names it, printed."""
    name, convert = second_pass_number(sp)
    if sp.method_entry.bayesian:
        return f"{name} = {convert(value):.3g}"
    return p_equals(convert(value), name)


def error_unit(results):
    """The unit of the errors of ``results`` (:class:`~multitest.inputs.Results`):
    ``'percentage points'`` when an error exceeds 1 (accuracies or errors given in
    percent), else ``'fractions of 1'``.

    Examples
    --------
    >>> from multitest import example_results
    >>> error_unit(example_results())      # Ulas et al.'s errors are in percent
    'percentage points'
    >>> from types import SimpleNamespace as N      # what it reads: the range of the errors
    >>> error_unit(N(error_range=(3.5, 12.0))), error_unit(N(error_range=None))
    ('percentage points', 'fractions of 1')
    """
    extremes = results.error_range
    return "percentage points" if extremes is not None and extremes[1] > 1 else \
        "fractions of 1"


def _error_unit_line(unit):
    """The legend line naming the unit of the errors drawn (the report states the rule)."""
    return (f"errors in {unit}" + (" (100 &#8722; accuracy in percent)"
                                   if unit == "percentage points" else
                                   " (1 &#8722; accuracy, 1 &#8722; AUC, or errors as given)"))


def mean_errors_over_datasets(ranking):
    """``{algorithm: mean over the data sets of its mean error}``: what the Wilcoxon, sign
    and Bayesian second passes compare, pair by pair."""
    # The run's (S, L) table, columns in input order (NaN where missing): what each data
    # set's mean_errors gives, without a dict per data set (200,000 of them on a cluster).
    return dict(zip(ranking.algorithms,
                    np.nanmean(ranking.table.mean_errors, axis=0).tolist()))
