"""The significance matrix of the post-hoc test (docs/explanation/figures.md).

:func:`render_significance_matrix` draws the decisions of the second pass's post-hoc
test as a triangle in the final order, each pair once, coloured by the better
algorithm; above :data:`~multitest.figures._dot.MATRIX_LIMIT` algorithms, as one row per
algorithm.
"""

from __future__ import annotations

import numpy as np

from .._format import format_number, format_p, format_rank
from ._dot import (
    _SIGNIFICANT,
    MATRIX_LIMIT,
    MATRIX_P_LIMIT,
    _cell,
    _column_heads,
    _digraph,
    _heads,
    _legend,
    _require_second_pass,
    _table_node,
    _text,
    mean_errors_over_datasets,
    second_pass_number,
)

__all__ = ["render_significance_matrix"]


#: Cells of a pair found different, by which of the two is better: the row's algorithm
#: (blue) or the column's (orange); black text on either at 7:1 or more.
_ROW_BETTER, _COLUMN_BETTER = "#92c5de", _SIGNIFICANT


def render_significance_matrix(ranking):
    """Pairwise decisions of the post-hoc test, with their direction, in the final order.

    Up to :data:`MATRIX_LIMIT` algorithms a triangle: rows and columns in the final
    order (best first), one cell per pair above the diagonal, coloured when the pair
    was found different, blue when the row's algorithm is the better one, orange when
    the column's is (by the test's own criterion, ``second_pass.better``).  Up to
    :data:`MATRIX_P_LIMIT` algorithms each cell shows the number the decision used,
    named in the legend by its correction (``Holm-adjusted p``, Nemenyi's ``p``), or
    for a Bayesian pass the posterior probability that the better one is practically
    better, with its threshold; a cell reading ``1`` is left empty.  Above, one row per
    algorithm.

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> from multitest.figures import render_significance_matrix
    >>> matrix = render_significance_matrix(rank(example_results(), "training_time"))
    >>> matrix.name, "rankdir=LR" in matrix.source
    ('significance', True)
    """
    sp = _require_second_pass(ranking, "render_significance_matrix")
    L = len(sp.algorithms)
    index = {a: i for i, a in enumerate(sp.algorithms)}
    order = [index[a] for a in ranking.final_order]
    if L > MATRIX_LIMIT:
        return _significance_list(sp, order)
    show = sp.posthoc is not None and sp.applied and L <= MATRIX_P_LIMIT
    name, convert = second_pass_number(sp)
    bayesian = sp.method_entry.bayesian
    names = [sp.algorithms[a] for a in order]
    lead = "avg position" if sp.method_entry.rank_based else "mean error"
    means = None if sp.method_entry.rank_based else mean_errors_over_datasets(ranking)
    rows = [_heads(["final #", "algorithm", lead]) + _column_heads(names[1:])]
    for row, a in enumerate(order):
        value = (format_rank(sp.average_positions[a]) if means is None
                 else format_number(means[sp.algorithms[a]]))
        cells = [_cell(str(row + 1), "RIGHT"), _cell(_text(sp.algorithms[a])),
                 _cell(value, "RIGHT")]
        for column, b in enumerate(order[1:], start=1):
            if column <= row:
                cells.append("<TD></TD>")
            elif not sp.applied:
                cells.append(_cell("&#8211;", "CENTER"))
            else:
                cells.append(_significance_cell(sp, a, b, show, convert, bayesian))
        rows.append(cells)
    rows = rows[:-1]            # the last algorithm has no pair to its right
    g = _digraph("significance")
    _table_node(g, rows, cellpadding=4, cellspacing=1)
    if bayesian:
        number = (f"cells: P(the better one is practically better), drawn coloured from "
                  f"{ranking.settings.min_probability:g} (the threshold)")
    else:
        number = (f"cells: the {_text(name)}, coloured at &#8804; {sp.alpha:g}"
                  if not sp.method_entry.rank_based else
                  f"cells: the {_text(name)}; coloured: the average positions differ by the "
                  f"critical difference or more (&#945; = {sp.alpha:g})")
    drawing = ("blue: the row&#8217;s algorithm is better; orange: the column&#8217;s is; "
               "white: not found different" + (f"; {number}; cells reading 1 left empty"
                                                 if show else ""))
    g.attr("graph", label=_significance_caption(sp, drawing))
    return g


def _significance_cell(sp, a, b, show, convert, bayesian):
    """The cell of the pair (row ``a``, column ``b``) of :func:`render_significance_matrix`."""
    hit = bool(sp.significant[a, b])
    colour = (_ROW_BETTER if sp.better[a, b] else _COLUMN_BETTER) if hit else "white"
    if not show:
        return f'<TD BGCOLOR="{colour}"></TD>'
    value = convert(sp.posthoc.pvalues[a, b])
    text = f"{value:.3g}" if bayesian else format_p(value)
    if text == "1" and not hit:
        return "<TD></TD>"
    return _cell(_text(text), "RIGHT", BGCOLOR=colour)


def _significance_caption(sp, drawing):
    legend = [f"<B>post-hoc significance</B>&#160;({_text(sp.method)}), rows and columns in the "
              "final order (1 = best), each pair once", drawing]
    if not sp.applied:
        legend.append("Friedman test does not reject: no post-hoc test applied")
    return _legend(legend)


def _significance_list(sp, order):
    """The decisions as one row per algorithm: above MATRIX_LIMIT algorithms."""
    rows = [[_cell("<B>final #</B>"), _cell("<B>algorithm</B>"), _cell("<B>average position</B>"),
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
                     _cell(format_rank(sp.average_positions[a]), "RIGHT"),
                     _cell(str(len(order) - 1 - int(count[k])), "RIGHT"),
                     _cell(f"{count[k]}: {span}")])
    g = _digraph("significance")
    _table_node(g, rows)
    g.attr("graph", label=_significance_caption(
        sp, f"one row per algorithm: how many others were found different at "
            f"&#945; = {sp.alpha:g}"))
    return g
