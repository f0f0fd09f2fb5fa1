"""Rankings, data-set results and second passes drawn inline in a notebook.

The results know nothing of drawing; the notebook's own display registry maps each result
type to its figure (:func:`install_jupyter_views`, called by ``import multitest`` inside
IPython): a ranking as :func:`ranking_html`, a data set as its override graph, a second
pass as its graph.
"""

from __future__ import annotations

from .._format import escape_html, format_number, format_rank
from ..engine._per_dataset import DataSetResult
from ..engine._ranking import Ranking
from ..engine._second_pass import SecondPassResult
from ._graphviz import inline_svg, to_svg
from ._stage_graphs import render_final, render_override_graph, render_second_pass_result

__all__ = []


def install_jupyter_views(shell):
    """Register the figures of the result types with an IPython shell's display formatters.

    Parameters
    ----------
    shell : IPython.core.interactiveshell.InteractiveShell
        The running shell (``IPython.get_ipython()``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> class Formatter(dict):
    ...     def for_type(self, cls, view):
    ...         self[cls.__name__] = view
    >>> formatters = {"text/html": Formatter(), "image/svg+xml": Formatter()}
    >>> install_jupyter_views(SimpleNamespace(
    ...     display_formatter=SimpleNamespace(formatters=formatters)))
    >>> sorted(formatters["text/html"]), sorted(formatters["image/svg+xml"])
    (['Ranking'], ['DataSetResult', 'SecondPassResult'])
    """
    formatters = shell.display_formatter.formatters
    formatters["text/html"].for_type(Ranking, ranking_html)
    formatters["image/svg+xml"].for_type(DataSetResult, _dataset_svg)
    formatters["image/svg+xml"].for_type(SecondPassResult, _second_pass_svg)


def _dataset_svg(result):
    return to_svg(render_override_graph(result))


def _second_pass_svg(result):
    return to_svg(render_second_pass_result(result))


def ranking_html(ranking):
    """HTML for Jupyter: the final graph and a table of the final order."""
    sp = ranking.second_pass
    svg = to_svg(render_final(ranking))
    figure = (inline_svg(svg) if svg is not None else
              "<pre>" + escape_html(render_final(ranking).source) + "</pre>")
    rows = []
    for position, a in enumerate(ranking.final_order, start=1):
        cost = ""
        if sp is not None:
            cost = format_number(sp.average_costs[sp.algorithms.index(a)])
        rows.append(f"<tr><td>{position}</td><td>{escape_html(a)}</td>"
                    f"<td>{format_rank(ranking.average_positions[a])}</td>"
                    f"<td>{format_rank(ranking.average_error_ranks[a])}</td><td>{cost}</td></tr>")
    s = ranking.settings
    notes = "".join(f"<li>{escape_html(n)}</li>" for n in ranking.notes)
    return (f"<div><p><b>Final order</b> ({len(ranking.datasets)} data set(s); costs "
            f"{escape_html(s.costs)}; {escape_html(s.decision_rules(second_pass=sp is not None))})"
            "</p>"
            f"{figure}<table><thead><tr><th>position</th><th>algorithm</th>"
            "<th>average position</th><th>average error rank</th>"
            f"<th>average cost</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<ul>{notes}</ul></div>")
