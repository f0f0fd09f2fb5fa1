"""Every figure of a ranking, by file stem, and writing them into a folder.

:func:`figures` lists the Graphviz figures of a ranking in report order
(:mod:`multitest.figures._stage_graphs`, :mod:`multitest.figures._cd`);
:func:`write_figures` writes their DOT sources and, where the Graphviz ``dot``
program is installed, their images (:mod:`multitest.figures._graphviz`).
"""

from __future__ import annotations

import html
import os
import re
from collections import OrderedDict

import graphviz

from ._bayes import bayes_figures
from ._cd_diagrams import cd_diagrams, cd_source
from ._datasets import drawn_datasets
from ._dot import ROW_LIMIT, choose_drawing, error_unit, reduced_edge_count
from ._graphviz import check_formats, draw_sources
from ._pareto import pareto_figures
from ._significance import render_significance_matrix
from ._stage_graphs import (
    render_final,
    render_override_graph,
    render_second_pass,
    render_second_pass_trace,
    render_trace,
)

__all__ = []

#: Without an image format the CLI writes the per-data-set DOT sources only up
#: to this many pairwise results (S x L(L-1)/2); the overall figures always.
FIGURE_PAIRS_LIMIT = 20_000


def figures(ranking, per_dataset=True, captions="inside", figures_for=None):
    """Every figure of a ranking: ``{file stem: graphviz object}``, in report order.

    Stems: ``final``, ``pareto`` (the error–cost picture), ``second_pass``,
    ``second_pass_trace``, ``cd`` (not with a Bayesian second pass), ``cd_errors``,
    ``significance`` and ``effects_second_pass`` (with at least two data sets),
    then for every data set drawn ``override_<dataset>``, ``trace_<dataset>``,
    ``pareto_<dataset>`` and ``dataset_effects_<dataset>`` (names made safe for
    file systems, made unique) unless ``per_dataset`` is false.  Graphs that need
    a layout are DOT for ``dot``; the pictures placed by hand (CD diagrams,
    error–cost pictures, effect sizes) pinned DOT (:mod:`multitest.figures._pinned`).
    Every override graph of the run is drawn alike
    (:func:`~multitest.figures._dot.choose_drawing` on the data set with the most edges
    in its transitive reduction).  ``captions='none'``: the figures without their
    title and caption (:func:`graph_captions` reads them).  ``figures_for``: the
    data sets whose figures are drawn (:func:`drawn_datasets`; default every one up
    to 50).
    """
    out = OrderedDict()
    out["final"] = render_final(ranking)
    placed = _placed({**pareto_figures(ranking, captions, per_dataset, figures_for),
                      **bayes_figures(ranking, captions, per_dataset, figures_for)}, captions)
    out["pareto"] = placed["pareto"]
    if ranking.second_pass is not None:
        out["second_pass"] = render_second_pass(ranking)
        out["second_pass_trace"] = render_second_pass_trace(ranking)
        for stem, diagram in cd_diagrams(ranking, captions).items():
            out[stem] = _placed({stem: (cd_source(diagram), diagram.title, diagram.caption)},
                                captions)[stem]
        out["significance"] = render_significance_matrix(ranking)
    if "effects_second_pass" in placed:
        out["effects_second_pass"] = placed["effects_second_pass"]
    if not per_dataset:
        return _beside(out, captions)
    drawing = override_drawing(ranking)
    unit = error_unit(ranking.results)
    for result, stem in drawn_datasets(ranking, figures_for):
        out[f"override_{stem}"] = render_override_graph(result, ranking.settings,
                                                        ranking.profile, drawing,
                                                        ranking.pairwise_test, unit)
        out[f"trace_{stem}"] = render_trace(result, ranking.pairwise_test)
        out.update((key, placed[key]) for key in (f"pareto_{stem}", f"dataset_effects_{stem}")
                   if key in placed)
    return _beside(out, captions)


# -- captions beside the figures (captions='none') ---------------------------------------

_GRAPH_LABEL = "\tgraph [label=<"
_CAPTION_COMMENT = "// caption: "
_BR = re.compile(r"<BR[^>]*>")
_TAG = re.compile(r"<[^>]*>")


def _beside(graphs, captions):
    """``graphs`` as they are, or (``captions='none'``) each graph's label (its legend)
    taken out of the drawing and kept as ``// caption:`` comments of its DOT source
    (:func:`graph_captions` reads them)."""
    if captions == "inside":
        return graphs
    out = OrderedDict()
    for stem, graph in graphs.items():
        if isinstance(graph, graphviz.Source):   # placed by hand: its caption already out
            out[stem] = graph
            continue
        body = graph.body
        labels = [line for line in body if line.startswith(_GRAPH_LABEL)]
        if not labels:
            out[stem] = graph
            continue
        stripped = graph.copy()
        stripped.body = [line for line in body if not line.startswith(_GRAPH_LABEL)]
        lines = [text for line in labels for text in _plain_lines(line)]
        stripped.body[:0] = [f"\t{_CAPTION_COMMENT}{text}\n" for text in lines]
        out[stem] = stripped
    return out


def _plain_lines(label_line):
    """The visible text of an HTML-like graph label, one string per line."""
    label = label_line[len(_GRAPH_LABEL):].rsplit(">]", 1)[0]
    lines = (html.unescape(_TAG.sub("", part)).replace("\xa0", " ").strip()
             for part in _BR.split(label))
    return [line for line in lines if line]


def _placed(drawn, captions):
    """``{stem: graphviz.Source}`` of figures placed by hand (``{stem: (DOT, title,
    caption lines)}``); with ``captions='none'`` their title and caption as ``// caption:``
    comments (drawn inside otherwise)."""
    return OrderedDict((stem, graphviz.Source(source if captions == "inside" else
                                              _caption_comments(source, (title, *caption))))
                       for stem, (source, title, caption) in drawn.items())


def _caption_comments(source, lines):
    """``source`` (DOT) with ``lines`` as ``// caption:`` comments after its first line."""
    head, rest = source.split("\n", 1)
    return head + "\n" + "".join(f"{_CAPTION_COMMENT}{line}\n" for line in lines) + rest


def graph_captions(graphs):
    """``{stem: caption lines}`` of the graphs drawn with ``captions='none'``."""
    out = {}
    for stem, graph in graphs.items():
        lines = [line.strip()[len(_CAPTION_COMMENT):] for line in graph.source.splitlines()
                 if line.strip().startswith(_CAPTION_COMMENT)]
        if lines:
            out[stem] = lines
    return out


def override_drawing(ranking):
    """The one drawing of the override graphs of a run (``'row'``, ``'matrix'`` or
    ``'table'``): rows only while no data set has more than
    :data:`~multitest.figures._dot.ROW_EDGE_LIMIT` edges in its transitive reduction."""
    L = len(ranking.algorithms)
    most = 0
    if L <= ROW_LIMIT:
        most = max((reduced_edge_count(r.overrides()) for r in ranking.datasets if r.tested),
                   default=0)
    return choose_drawing(L, most)


def write_figures(ranking, out_dir, formats=("svg",), per_dataset=True, dpi=None, *,
                  graphs=None, figures_for=None):
    """Write every figure of ``ranking`` into ``out_dir``.

    The DOT source of every figure is always written (``<stem>.dot``, see
    :func:`figures` for the stems); images in each of ``formats`` are added
    where Graphviz ``dot`` is installed, one ``dot`` process a figure, as many at
    once as there are CPUs; the SVG images are kept for the report (the cache of this
    process).

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    out_dir : str or os.PathLike
    formats : sequence of {'svg', 'png', 'pdf'}
    per_dataset : bool
        Also the figures of each data set.
    dpi : int, optional
        Resolution of the PNG images, dots per inch; default: Graphviz's (96).
    graphs : dict, optional
        ``figures(ranking, per_dataset=per_dataset)`` when built already (the CLI
        builds them once for the figures and the report).
    figures_for : 'all' or sequence of str, optional
        The data sets whose figures are drawn (:func:`drawn_datasets`).

    Returns
    -------
    str or None
        A one-line warning when images could not be made, else None.
    """
    formats = check_formats(formats)
    os.makedirs(out_dir, exist_ok=True)
    if graphs is None:
        graphs = figures(ranking, per_dataset=per_dataset, figures_for=figures_for)
    sources = {stem: graph.source for stem, graph in graphs.items()}
    return draw_sources(out_dir, sources, formats, dpi)
