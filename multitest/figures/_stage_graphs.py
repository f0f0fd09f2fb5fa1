"""Graphviz figures of the stages of MultiTest and Multi²Test (docs/method.md section 7).

One function per stage returns a :mod:`graphviz` object (its ``.source`` is
the DOT text; the same input always gives the same text):

=============================  ==================================================
:func:`render_override_graph`  one data set: nodes in cost order, an edge for
                               every override of the transitive reduction
                               with its p-value
:func:`render_trace`           one data set: the cost-ordered sort, one panel
                               per step, the taken node highlighted
:func:`render_second_pass_trace`  the same sort for the second pass
:func:`render_significance_matrix`  pairwise decisions of the post-hoc test
:func:`render_second_pass`     average-cost order and the post-hoc overrides
:func:`render_final`           the final order as a chain, with the overrides
                               that produced it
=============================  ==================================================

The critical-difference diagram of the Nemenyi stage is drawn by
:mod:`multitest.figures._cd`.  Each figure chooses its drawing by size
(:func:`multitest.figures._dot._order_view`).  Rendering depends on the
engine, never the reverse.
"""

from __future__ import annotations

import numpy as np

from .._format import format_number, format_p
from ..engine._ordering import named_trace, sort_trace
from ._dot import (
    _CANDIDATE,
    _FADED,
    _OVERRIDE,
    _SIGNIFICANT,
    MATRIX_LIMIT,
    ROW_LIMIT,
    _cell,
    _cost_unit_line,
    _digraph,
    _label,
    _legend,
    _order_view,
    _require_second_pass,
    _table_node,
    _text,
    _wrap,
)

__all__ = ["render_override_graph", "render_trace", "render_significance_matrix",
           "render_second_pass", "render_second_pass_result", "render_final",
           "render_second_pass_trace"]


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
    dataset_result : multitest.engine.DataSetResult
    settings : multitest.engine.Settings, optional
        Test and alpha for the legend.
    profile : multitest.inputs.CostProfile, optional
        Cost profile name for the legend.

    Returns
    -------
    graphviz.Digraph
    """
    r = dataset_result
    cost = dict(zip(r.algorithms, np.asarray(r.costs, dtype=float).tolist()))
    means = r.mean_errors
    error_word = "mean error" if r.tested else "value"
    info = {a: [(error_word, format_number(means[a])), ("cost", format_number(cost[a])),
                ("position", format_number(r.ranks[a], 3))] for a in r.prior_order}
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


def _settings_line(settings, profile):
    parts = []
    if settings is not None:
        parts.append(f"test {_text(settings.test)}, &#945; = {settings.alpha:g}")
        if settings.correction != "none":
            parts.append(f"correction {_text(settings.correction)} (adjusted p on edges)")
    if profile is not None:
        parts.append(f"cost profile {_text(profile.name)}")
    return "; ".join(parts)


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
    dataset_result : multitest.engine.DataSetResult

    Returns
    -------
    graphviz.Digraph
    """
    r = dataset_result
    if not r.tested:
        g = _digraph(f"trace_{r.name}")
        ids = {name: f"n{i}" for i, name in enumerate(r.order)}
        for i, name in enumerate(r.order, start=1):
            g.node(ids[name], _label(f"{i}. {_text(name)}",
                                     f"value {format_number(r.mean_errors[name])}"))
        for a, b in zip(r.order, r.order[1:]):
            g.edge(ids[a], ids[b])
        g.attr("graph", label=_legend([f"<B>{_text(r.name)}</B>: score-matrix input, no "
                                       "pairwise test: ordered by value (ties by cost)"]))
        return g
    return _trace_graph(f"trace_{r.name}", _text(r.name), r.prior_order, r.overrides())


# -- stage 4: the significance matrix of the post-hoc test ----------------------------

def render_significance_matrix(ranking):
    """Pairwise decisions of the post-hoc test as a table (algorithms by average position).

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
            text = format_p(sp.posthoc.pvalues[a, b]) if show_p else " "
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
              "columns by average position (1 = best)"]
    if sp.applied:
        legend.append(f"coloured: pair found different at &#945; = {sp.alpha:g}"
                      + ("; cells show p-values" if show_p else ""))
    else:
        legend.append("Friedman test does not reject: no post-hoc test applied")
    g.attr("graph", label=_legend(legend))
    return g


def _significance_caption(sp, drawing):
    legend = [f"<B>post-hoc significance</B>&#160;({_text(sp.method)}), algorithms by average "
              "position (1 = best)", drawing]
    if not sp.applied:
        legend.append("Friedman test does not reject: no post-hoc test applied")
    return _legend(legend)


def _significance_cells(sp, order):
    """The decisions as a matrix of small cells (no p-values): 21..MATRIX_LIMIT algorithms."""
    L = len(order)
    coloured, empty = f'<TD BGCOLOR="{_SIGNIFICANT}"></TD>', "<TD></TD>"
    diagonal = '<TD BGCOLOR="#dddddd"></TD>'
    rows = [[_cell("<B>#</B>"), _cell("<B>algorithm (average position)</B>")]
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
    rows = [[_cell("<B>#</B>"), _cell("<B>algorithm</B>"), _cell("<B>average position</B>"),
             _cell("<B>found different from</B>"),
             _cell("<B>not different from (positions in this table)</B>")]]
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
    """The second-pass graph from a :class:`~multitest.engine.SecondPassResult` alone.

    Drawn by size like the override graph (:func:`render_override_graph`).

    Returns
    -------
    graphviz.Digraph
    """
    index = {a: i for i, a in enumerate(sp.algorithms)}
    final = {a: k for k, a in enumerate(sp.order, start=1)}
    info = {a: [("avg position", f"{sp.average_ranks[index[a]]:.3f}"),
                ("cost", format_number(sp.average_costs[index[a]])),
                ("final #", str(final[a]))] for a in sp.prior_order}
    overrides = sp.overrides()

    def edges():
        return [(a, b, None if sp.posthoc is None else sp.posthoc.pvalues[index[a], index[b]])
                for a, b in sp.edges()]

    over = f"&#160;over {n_datasets} data sets" if n_datasets else ""
    method = sp.method + ("" if sp.correction == "none" else f", {sp.correction} correction")
    n_edges = int(overrides.sum())
    legend = [f"<B>second pass</B>{over}: average-cost order (cheapest first);"
              " average position, average cost, final position",
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
            lines += [f"avg position {sp.average_ranks[i]:.3f}",
                      f"avg error rank {ranking.average_error_ranks[a]:.3f}",
                      f"cost {format_number(sp.average_costs[i])}"]
        else:
            r = ranking.datasets[0]
            lines += [f"error {format_number(r.mean_errors[a])}"]
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
        attrs = {"label": f"p={format_p(p)}"} if p is not None else {}
        g.edge(ids[a], ids[b], style="dashed", color=_OVERRIDE, fontcolor=_OVERRIDE,
               constraint="false", **attrs)
    legend = ["<B>final order</B>, best first; nodes: "
              + ("average position, average error rank, average cost" if sp is not None
                 else "mean error"),
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
    rows = [[_cell("<B>#</B>"), _cell("<B>algorithm</B>"), _cell("<B>average position</B>"),
             _cell("<B>average error rank</B>"),
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
            rank_text, cost_text = f"{sp.average_ranks[i]:.3f}", format_number(sp.average_costs[i])
        else:
            r = ranking.datasets[0]
            rank_text = format_number(r.ranks[a], 3)
            cost_text = format_number(r.costs[r.algorithms.index(a)])
        rows.append([_cell(str(position), "RIGHT"), _cell(f"<B>{_text(a)}</B>"),
                     _cell(rank_text, "RIGHT"),
                     _cell(f"{ranking.average_error_ranks[a]:.3f}", "RIGHT"),
                     _cell(cost_text, "RIGHT"),
                     _cell(str(wins[a]), "RIGHT"), _cell(str(losses[a]), "RIGHT")])
    _table_node(g, rows)
    source = "second pass" if sp is not None else ranking.datasets[0].name
    g.attr("graph", label=_legend([
        "<B>final order</B>, best first (one row per algorithm)",
        f"beats / beaten by: overrides of the {_text(source)} won against cheaper and lost "
        "against costlier algorithms (significantly better, costlier)",
        _cost_unit_line(ranking.profile)]))
    return g
