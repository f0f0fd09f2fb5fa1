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
:func:`render_second_pass`     average-cost order and the post-hoc overrides
:func:`render_final`           the final order as a chain, with the overrides
                               that produced it
=============================  ==================================================

The significance matrix of the post-hoc test is drawn by
:mod:`multitest.figures._significance`, the critical-difference diagram of the Nemenyi
stage by :mod:`multitest.figures._cd`.  Each figure chooses its drawing by size
(:func:`multitest.figures._dot._order_view`).  Rendering depends on the
engine, never the reverse.
"""

from __future__ import annotations

import numpy as np

from .._format import format_number, format_rank, p_equals
from ..engine._ordering import sort_trace
from ._dot import (
    _CANDIDATE,
    _FADED,
    _OVERRIDE,
    COLUMN_WRAP,
    ROW_LIMIT,
    _cell,
    _column_heads,
    _cost_unit_line,
    _digraph,
    _error_unit_line,
    _evidence,
    _heads,
    _how,
    _label,
    _legend,
    _order_view,
    _reduced_edges,
    format_second_pass_number,
    second_pass_number,
    _require_second_pass,
    _table_node,
    _text,
    _wrap,
    error_unit,
    mean_errors_over_datasets,
)

__all__ = ["render_override_graph", "render_trace",
           "render_second_pass", "render_second_pass_result", "render_final",
           "render_second_pass_trace"]


# -- stage 2: the override graph of one data set ------------------------------------

def render_override_graph(dataset_result, settings=None, profile=None, drawing=None,
                          test=None, unit=None):
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
    drawing : {'row', 'matrix', 'table'}, optional
        The drawing of every override graph of the run
        (:func:`~multitest.figures._dot.choose_drawing`); default: chosen for this
        data set alone.
    test : multitest.stats.PairwiseTest, optional
        The test of the run: what the number on an override is (a p-value, or a
        Bayesian test's evidence); default a p-value.
    unit : str, optional
        The unit of the run's errors (:func:`~multitest.figures._dot.error_unit`), named
        in the legend.

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> from multitest.figures import render_override_graph
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> iris = ranking.dataset("iris")
    >>> render_override_graph(iris, ranking.settings, ranking.profile).name
    'override_iris'
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
        words = "significantly more accurate" if test is None else test.better_words(
            None if settings is None else settings.min_probability)
        legend.append(f"override i &#8594; j: the costlier j is {_text(words)} than the cheaper i "
                      f"({n_edges} override{'s' if n_edges != 1 else ''})")
    else:
        legend.append("score-matrix input: no pairwise test, no overrides; order by value")
    line = _settings_line(settings if r.tested else None, profile, test)  # no test: no alpha
    if line:
        legend.append(line)
    if unit is not None and r.tested:
        legend.append(_error_unit_line(unit))
    if profile is not None:
        legend.append(_cost_unit_line(profile))
    label, bound = _evidence(test)
    if adjusted and bound:
        label = f"{settings.correction.capitalize()}-adjusted p"
    return _order_view(f"override_{r.name}", r.prior_order, info, overrides,
                       lambda: _override_edges(r, adjusted), legend, drawing, (label, bound))


def _override_edges(r, adjusted):
    """``(cheaper, costlier, p-value)`` of the overrides of one data set, from its arrays."""
    if not r.tested:
        return []
    t, s = r.table, r.index
    hit = np.flatnonzero(t.override[s])
    pvalues = (t.pvalue_adjusted if adjusted else t.pvalue)[s, hit].tolist()
    prior, names = t.prior[s], r.algorithms
    return [(names[a], names[b], p) for a, b, p in
            zip(prior[t.cheaper[hit]].tolist(), prior[t.costlier[hit]].tolist(), pvalues)]


def _settings_line(settings, profile, test=None):
    parts = []
    if settings is not None and test is not None and test.bayesian:
        parts.append(f"test {_text(settings.test)}, rope {settings.rope:g}, override when "
                     f"P(costlier practically better) &#8805; {settings.min_probability:g}")
    elif settings is not None:
        parts.append(f"test {_text(settings.test)}, &#945; = {settings.alpha:g}")
        if settings.correction != "none":
            parts.append(f"correction {_text(settings.correction)} (adjusted p on edges)")
    if profile is not None:
        parts.append(f"cost profile {_text(profile.name)}")
    return "; ".join(parts)


# -- stage 3: the sort trace ------------------------------------------------------

def _trace_graph(name, title, prior_order, overrides, how="significantly"):
    """The steps of a cost-ordered sort; ``overrides`` is the boolean matrix in prior order;
    ``how`` an override is better (``'practically'``: a Bayesian test's).

    Without an override the sort takes the cost order, and one row says so.  Up
    to :data:`ROW_LIMIT` algorithms: a grid, one row per step and one column per
    algorithm in cost order (the columns never move), naming for every
    remaining algorithm the remaining ones that beat it.  Above: a table, one
    row per step.
    """
    overrides = np.asarray(overrides, dtype=bool)
    if not overrides.any():
        return _trace_collapsed(name, title, prior_order)
    if len(prior_order) > ROW_LIMIT:
        return _trace_table(name, title, prior_order, overrides, how)
    steps = sort_trace(overrides)
    g = _digraph(name)
    head = _heads(["step"]) + _column_heads(prior_order)
    rows = [head]
    placed = {}
    for k, step in enumerate(steps, start=1):
        remaining, candidates = set(step.remaining), set(step.candidates)
        cells = [_cell(f"<B>{k}</B>", "RIGHT")]
        for i, a in enumerate(prior_order):
            if i == step.taken:
                cells.append(_cell(f'<FONT COLOR="white"><B>take #{k}</B></FONT>', "CENTER",
                                   BGCOLOR=_CANDIDATE))
            elif i in candidates:
                cells.append(_cell(f'<FONT COLOR="{_CANDIDATE}">candidate</FONT>', "CENTER"))
            elif i in remaining:
                blockers = [prior_order[j] for j in np.flatnonzero(overrides[i]).tolist()
                            if j in remaining]
                cells.append(_cell("beaten by<BR/>" + _wrap(", ".join(blockers),
                                                            COLUMN_WRAP + 4), "CENTER"))
            else:
                cells.append(_cell(f'<FONT COLOR="{_FADED}">#{placed[i]}</FONT>', "CENTER"))
        placed[step.taken] = k
        rows.append(cells)
    _table_node(g, rows, cellpadding=4, cellspacing=1)
    g.attr("graph", label=_legend([
        f"<B>{title}</B>: cost-ordered topological sort, one row per step, algorithms in "
        "cost order (cheapest left)",
        f"candidate: nothing remaining is {how} better; the cheapest candidate is "
        "taken (filled) and gets the next position;",
        f"beaten by: the remaining algorithms {how} better than it (overrides); "
        "#k: placed at step k"]))
    return g


def _trace_collapsed(name, title, prior_order):
    """The sort without an override: one row, the cost order is the order."""
    g = _digraph(name)
    ids = {a: f"n{i}" for i, a in enumerate(prior_order)}
    for k, a in enumerate(prior_order, start=1):
        g.node(ids[a], _label(f"{k}. {_wrap(a)}", bold_first=False))
    for a, b in zip(prior_order, prior_order[1:]):
        g.edge(ids[a], ids[b])
    g.attr("graph", label=_legend([
        f"<B>{title}</B>: cost-ordered topological sort without an override: every step takes "
        "the cheapest remaining algorithm,",
        f"so the order is the cost order (cheapest first; arrow: comes before), "
        f"{len(prior_order)} steps"]))
    return g


def _trace_table(name, title, prior_order, overrides, how):
    # Steps in prior positions: every candidate named.
    steps = sort_trace(overrides)
    g = _digraph(name)
    rows = [[_cell("<B>step</B>"), _cell("<B>taken</B>"), _cell("<B>remaining</B>"),
             _cell(f"<B>candidates (nothing remaining is {how} better), cheapest "
                   "first</B>")]]
    for k, step in enumerate(steps, start=1):
        cut = _wrap(", ".join(prior_order[i] for i in step.candidates), 100)
        rows.append([_cell(str(k), "RIGHT"), _cell(f"<B>{_text(prior_order[step.taken])}</B>"),
                     _cell(str(len(step.remaining)), "RIGHT"), _cell(cut)])
    _table_node(g, rows)
    g.attr("graph", label=_legend([f"<B>{title}</B>: cost-ordered topological sort, one row "
                                   "per step: the cheapest candidate is taken"]))
    return g


def render_second_pass_trace(ranking):
    """The cost-ordered sort of the second pass, one row per step.

    Like :func:`render_trace`, on the average-cost order and the post-hoc
    overrides: it shows how the final order comes out of them.

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> import multitest
    >>> from multitest.figures import render_second_pass_trace
    >>> render_second_pass_trace(multitest.rank(multitest.example_results(), "training_time")).name
    'second_pass_trace'
    """
    sp = _require_second_pass(ranking, "render_second_pass_trace")
    return _trace_graph("second_pass_trace", "second pass", sp.prior_order, sp.overrides(),
                        _how(_evidence(sp.method_entry)[1]))


def render_trace(dataset_result, test=None):
    """The topological-sort trace of one data set, one row per step.

    The columns are the algorithms in cost order; in each row the candidates
    (nothing remaining is significantly better) say so, the taken one is
    filled, the others name the remaining algorithms that beat them, and the
    algorithms already placed show their position.  Without an override, one
    row of boxes: the cost order is the order.

    Parameters
    ----------
    dataset_result : multitest.engine.DataSetResult
    test : multitest.stats.PairwiseTest, optional
        The run's test: a Bayesian test's overrides are "practically" better;
        default "significantly".

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> from multitest.figures import render_trace
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> for name in ranking.results.datasets:
    ...     print(render_trace(ranking.dataset(name)).name)
    trace_iris
    trace_wine
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
        g.attr("graph", label=_legend([f"<B>{_text(r.name)}</B>: {_BY_VALUE}"]))
        return g
    return _trace_graph(f"trace_{r.name}", _text(r.name), r.prior_order, r.overrides(),
                        _how(_evidence(test)[1]))


# -- stage 5: the second pass ------------------------------------------------------------

def render_second_pass(ranking):
    """The second-pass graph: average-cost order, post-hoc overrides.

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> from multitest.figures import render_second_pass
    >>> ranking = rank(example_results(), "training_time", datasets=["wine", "zoo"])
    >>> graph = render_second_pass(ranking)
    >>> graph.name, graph.source.count("->")
    ('second_pass', 7)
    """
    sp = _require_second_pass(ranking, "render_second_pass")
    return render_second_pass_result(sp, len(ranking.datasets), ranking.profile,
                                     mean_errors_over_datasets(ranking),
                                     error_unit(ranking.results))


def render_second_pass_result(sp, n_datasets=None, profile=None, mean_errors=None, unit=None):
    """The second-pass graph from a :class:`~multitest.engine.SecondPassResult` alone.

    Drawn by size like the override graph (:func:`render_override_graph`).  Each
    algorithm shows the quantity the test compared: its average position (Nemenyi), or
    with ``mean_errors`` (``{algorithm: mean error over the data sets}``) its mean error
    (the Wilcoxon, sign and Bayesian passes); the overrides carry the number that decided
    them, named by the correction (:func:`~multitest.figures._dot.second_pass_number`).

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> from multitest.figures import render_second_pass_result
    >>> from multitest import example_results, rank
    >>> second = rank(example_results(), "training_time").second_pass
    >>> render_second_pass_result(second, n_datasets=38).name
    'second_pass'
    """
    index = {a: i for i, a in enumerate(sp.algorithms)}
    final = {a: k for k, a in enumerate(sp.order, start=1)}
    if sp.method_entry.rank_based or mean_errors is None:
        lead, tested = "average position", {a: format_rank(sp.average_positions[index[a]])
                                            for a in sp.algorithms}
    else:
        lead, tested = "mean error", {a: format_number(mean_errors[a]) for a in sp.algorithms}
    short = {"average position": "avg position"}.get(lead, lead)
    info = {a: [(short, tested[a]), ("avg cost", format_number(sp.average_costs[index[a]])),
                ("final #", str(final[a]))] for a in sp.prior_order}
    overrides = sp.overrides()
    name, convert = second_pass_number(sp)

    def edges():
        return [(a, b, None if sp.posthoc is None else
                 convert(sp.posthoc.pvalues[index[a], index[b]])) for a, b in sp.edges()]

    over = f"&#160;over {n_datasets} data sets" if n_datasets else ""
    method = sp.method + ("" if sp.correction == "none" else f", {sp.correction} correction")
    n_edges = int(overrides.sum())
    legend = [f"<B>second pass</B>{over}: average-cost order (cheapest first); {lead} (what "
              f"the {_text(sp.method)} test compares), average cost, final position",
              f"override i &#8594; j: the post-hoc test ({_text(method)}) finds j better than the "
              f"cheaper i ({n_edges} override{'s' if n_edges != 1 else ''})",
              _text(sp.gate)]
    if sp.critical_difference is not None:
        legend.append(f"critical difference {format_rank(sp.critical_difference)}")
    if unit is not None and lead == "mean error":
        legend.append(_error_unit_line(unit))
    if profile is not None:
        legend.append(f"cost profile {_text(profile.name)}; {_cost_unit_line(profile)}")
    return _order_view("second_pass", sp.prior_order, info, overrides, edges, legend,
                       evidence=(name, not sp.method_entry.bayesian))


def render_final(ranking):
    """The final order as a chain (1 -> 2 -> ...) with the overrides that decided it drawn.

    Every black arrow means "comes before"; the boxes stand in one column, best at the
    top, so that the figure is as narrow as a box whatever the number of algorithms.  Each box leads with the statistic the
    second pass tested (average position for Nemenyi, mean error for the Wilcoxon,
    sign and Bayesian passes; the mean error with one data set).  The overrides that
    decide the order (those of the transitive reduction) are red arrows from the
    cheaper to the costlier algorithm that beat it, labelled with the number the
    decision used, named by its correction (``Holm-adjusted p = ...``, a Bayesian
    pass's ``P(practically better) = ...``).  Above :data:`ROW_LIMIT` algorithms, a
    table (:func:`_final_table`).

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> from multitest.figures import render_final
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time")
    >>> print(render_final(ranking).source.splitlines()[0])
    digraph final {
    """
    order = list(ranking.final_order)
    sp = ranking.second_pass
    if len(order) > ROW_LIMIT:
        return _final_table(ranking)
    g = _digraph("final", rankdir="TB")
    g.attr("graph", nodesep="0.3", ranksep="0.3")
    ids = {a: f"n{i}" for i, a in enumerate(order)}
    lead, lines_of = _final_box_lines(ranking)
    for position, a in enumerate(order, start=1):
        style = dict(style="rounded,filled,bold", fillcolor="#e8f1fa") if position == 1 else {}
        g.node(ids[a], _label(f"{position}. {_wrap(a)}", *lines_of(a)), width="2.2", **style)
    for a, b in zip(order, order[1:]):
        g.edge(ids[a], ids[b], weight="100", penwidth="1.4")
    entry = _final_entry(ranking)
    edges, prior, overrides, source = _final_overrides(ranking)
    legend = [f"<B>final order</B>, best first (black arrow: comes before); "
              f"boxes: {lead}"]
    if entry is None:    # one data set of a score matrix
        legend.append(_BY_VALUE)
    else:
        name = _final_number_name(ranking)
        deciding = _reduced_edges(prior, edges) if edges else []
        for a, b, number in deciding:
            g.edge(ids[a], ids[b], color=_OVERRIDE, fontcolor=_OVERRIDE, style="dashed",
                   constraint="false", label=_text(number) if number else "")
        legend.append(_final_override_line(source, edges, deciding, name, entry))
    if sp is not None and not sp.applied:
        legend.append("no post-hoc test applied: the final order is the average-cost order")
    if ranking.results.has_folds:
        legend.append(_error_unit_line(error_unit(ranking.results)))
    legend.append(_cost_unit_line(ranking.profile))
    g.attr("graph", label=_legend(legend))
    return g


def _final_box_lines(ranking):
    """``(what the boxes show, lines(algorithm))``: the statistic the second pass tested
    first (:func:`render_final`), then the average error rank and the average cost."""
    sp = ranking.second_pass
    if sp is None:
        r = ranking.datasets[0]
        index = {a: i for i, a in enumerate(r.algorithms)}
        return ("mean error, cost", lambda a: [f"mean error {format_number(r.mean_errors[a])}",
                                              f"cost {format_number(r.costs[index[a]])}"])
    index = {a: i for i, a in enumerate(sp.algorithms)}
    if sp.method_entry.rank_based:
        lead, first = "average position (what the Nemenyi test compares)", (
            lambda a: f"avg position {format_rank(sp.average_positions[index[a]])}")
    else:
        means = mean_errors_over_datasets(ranking)
        lead, first = (f"mean error over the data sets (what the {_text(sp.method)} test "
                       "compares)"), lambda a: f"mean error {format_number(means[a])}"
    return (lead + ", average error rank, average cost",
            lambda a: [first(a), f"avg error rank {format_rank(ranking.average_error_ranks[a])}",
                       f"avg cost {format_number(sp.average_costs[index[a]])}"])


def _final_overrides(ranking):
    """``(edges, prior order, override matrix, source)`` of the decisions that made the final
    order: ``edges`` as ``(cheaper, costlier, label text)``."""
    sp = ranking.second_pass
    if sp is not None:
        index = {a: i for i, a in enumerate(sp.algorithms)}
        edges = [(a, b, None if sp.posthoc is None else
                  format_second_pass_number(sp, sp.posthoc.pvalues[index[a], index[b]]))
                 for a, b in sp.edges()]
        return edges, sp.prior_order, sp.overrides(), "second pass"
    r = ranking.datasets[0]
    label, bound = _evidence(ranking.pairwise_test)
    adjusted = ranking.settings.correction != "none"
    name = f"{ranking.settings.correction.capitalize()}-adjusted p" if adjusted else label
    edges = [(a, b, p_equals(p, name, bound=bound)) for a, b, p in _override_edges(r, adjusted)]
    return edges, r.prior_order, r.overrides(), f"data set {r.name}"


def _final_number_name(ranking):
    sp = ranking.second_pass
    if sp is not None:
        return second_pass_number(sp)[0]
    correction = ranking.settings.correction
    return (f"{correction.capitalize()}-adjusted p" if correction != "none"
            else _evidence(ranking.pairwise_test)[0])


def _final_override_line(source, edges, deciding, name, entry):
    if not edges:
        return f"no override in the {_text(source)}: the order is the cost order"
    implied = len(edges) - len(deciding)
    return (f"red dashed arrow i &#8594; j: an override of the {_text(source)} that decides "
            f"the order, the costlier j {_how(_evidence(entry)[1])} better than the cheaper i, "
            f"labelled with its {_text(name)}"
            + ("" if not implied else f"; {implied} more implied by these, not drawn"))


def _final_entry(ranking):
    """The registry entry whose decisions made the final order: the second pass's, or with
    one data set its stage-1 test's (None for a score matrix)."""
    sp = ranking.second_pass
    return ranking.pairwise_test if sp is None else sp.method_entry


#: How a data set of a score matrix is ordered (no test, so no override).
_BY_VALUE = "score-matrix input, no pairwise test: ordered by value (ties by cost)"


def _final_table(ranking):
    """The final order as a table, best first: legible at any number of algorithms."""
    g = _digraph("final")
    sp = ranking.second_pass
    entry = _final_entry(ranking)
    untested = entry is None    # one data set of a score matrix: nothing "beaten by"
    # "practically better" for a Bayesian pass (a probability), "significantly" for a test
    how = _how(_evidence(entry)[1])
    rows = [_heads(["#", "algorithm", "average position", "average error rank", "average cost"]
                   + ([] if untested else [f"beaten by (costlier, {how} better)"]))]
    sorted_on = sp if sp is not None else ranking.datasets[0]
    prior = list(sorted_on.prior_order)
    overrides = np.asarray(sorted_on.overrides(), dtype=bool)          # in prior order
    blockers = {a: [prior[j] for j in np.flatnonzero(overrides[i]).tolist()]
                for i, a in enumerate(prior)}
    index = {a: i for i, a in enumerate(ranking.algorithms)}
    for position, a in enumerate(ranking.final_order, start=1):
        if sp is not None:
            i = index[a]
            rank_text = format_rank(sp.average_positions[i])
            cost_text = format_number(sp.average_costs[i])
        else:
            r = ranking.datasets[0]
            rank_text = format_number(r.ranks[a], 3)
            cost_text = format_number(r.costs[r.algorithms.index(a)])
        rows.append([_cell(str(position), "RIGHT"), _cell(f"<B>{_text(a)}</B>"),
                     _cell(rank_text, "RIGHT"),
                     _cell(format_rank(ranking.average_error_ranks[a]), "RIGHT"),
                     _cell(cost_text, "RIGHT")]
                    + ([] if untested else
                       [_cell(_wrap(", ".join(blockers[a]), 100) or "&#8211;")]))
    _table_node(g, rows)
    source = "second pass" if sp is not None else ranking.datasets[0].name
    g.attr("graph", label=_legend([
        "<B>final order</B>, best first (one row per algorithm)",
        _BY_VALUE if untested else
        f"beaten by: the costlier algorithms the {_text(source)} finds {how} better "
        "(overrides), cheapest first",
        _cost_unit_line(ranking.profile)]))
    return g
