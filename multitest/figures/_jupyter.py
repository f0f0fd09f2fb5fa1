"""Rankings, data-set results and second passes drawn inline in a notebook.

The results know nothing of drawing; the notebook's own display registry maps each result
type to its figure (:func:`install_jupyter_views`, called by ``import multitest`` inside
IPython).
"""

from __future__ import annotations

from ..engine._per_dataset import DataSetResult
from ..engine._ranking import Ranking
from ..engine._second_pass import SecondPassResult
from ._render import ranking_html, render_override_graph, render_second_pass_result, to_svg

__all__ = ["install_jupyter_views"]


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
