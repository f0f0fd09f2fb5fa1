"""Every figure of a ranking, by file stem, and writing them into a folder.

:func:`figures` lists the Graphviz figures of a ranking in report order
(:mod:`multitest.figures._stage_graphs`, :mod:`multitest.figures._cd`);
:func:`write_figures` writes their DOT sources and, where the Graphviz ``dot``
program is installed, their images (:mod:`multitest.figures._graphviz`).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict

from ._cd import render_cd_diagram
from ._dot import ROW_LIMIT, choose_drawing, error_unit, reduced_edge_count
from ._graphviz import check_formats, draw_sources
from ._significance import render_significance_matrix
from ._stage_graphs import (
    render_final,
    render_override_graph,
    render_second_pass,
    render_second_pass_trace,
    render_trace,
)

__all__ = ["figures", "dataset_stems", "safe_filename", "write_figures", "override_drawing",
           "FIGURE_PAIRS_LIMIT"]

#: Without an image format the CLI writes the per-data-set DOT sources only up
#: to this many pairwise results (S x L(L-1)/2); the overall figures always.
FIGURE_PAIRS_LIMIT = 20_000


def safe_filename(name):
    """A data set name usable as part of a file name on every file system."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", str(name)).strip("._")
    return (text or "dataset")[:80]


def figures(ranking, per_dataset=True):
    """Every figure of a ranking: ``{file stem: graphviz object}``, in report order.

    Stems: ``final``, ``second_pass``, ``second_pass_trace``, ``cd``,
    ``significance`` (with at least two data sets), then ``override_<dataset>`` and
    ``trace_<dataset>`` for every data set (names made safe for file systems, made
    unique) unless ``per_dataset`` is false.  Every override graph of the run
    is drawn alike (:func:`~multitest.figures.choose_drawing` on the data set
    with the most edges in its transitive reduction).  Everything is built in this
    process (no forked process: on the shared 2-CPU machines of the benchmarks one
    process was as quick).
    """
    out = OrderedDict()
    out["final"] = render_final(ranking)
    if ranking.second_pass is not None:
        out["second_pass"] = render_second_pass(ranking)
        out["second_pass_trace"] = render_second_pass_trace(ranking)
        out["cd"] = render_cd_diagram(ranking)
        out["significance"] = render_significance_matrix(ranking)
    if not per_dataset:
        return out
    drawing = override_drawing(ranking)
    unit = error_unit(ranking.results)

    def graphs(r):
        return (render_override_graph(r, ranking.settings, ranking.profile, drawing,
                                      ranking.pairwise_test, unit),
                render_trace(r, ranking.pairwise_test))

    for stem, (override, trace) in zip(dataset_stems(ranking),
                                       map(graphs, ranking.datasets)):
        out[f"override_{stem}"] = override
        out[f"trace_{stem}"] = trace
    return out


def override_drawing(ranking):
    """The one drawing of the override graphs of a run (``'row'``, ``'matrix'`` or
    ``'table'``): rows only while no data set has more than
    :data:`~multitest.figures.ROW_EDGE_LIMIT` edges in its transitive reduction."""
    L = len(ranking.algorithms)
    most = 0
    if L <= ROW_LIMIT:
        most = max((reduced_edge_count(r.overrides()) for r in ranking.datasets if r.tested),
                   default=0)
    return choose_drawing(L, most)


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


def write_figures(ranking, out_dir, formats=("svg",), jobs=None, per_dataset=True, cache=None,
                  dpi=None, *, graphs=None):
    """Write every figure of ``ranking`` into ``out_dir``.

    The DOT source of every figure is always written (``<stem>.dot``, see
    :func:`figures` for the stems); images in each of ``formats`` are added
    where Graphviz ``dot`` is installed, several ``dot`` processes running at
    once, one for each figure.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    out_dir : str or os.PathLike
    formats : sequence of {'svg', 'png', 'pdf'}
    jobs : int, optional
        Parallel ``dot`` processes; default: the number of CPUs.
    per_dataset : bool
        Also the figures of each data set.
    cache : multitest.figures.SvgCache, optional
        Where the SVG images are kept for the report; default: the cache of
        this process.
    dpi : int, optional
        Resolution of the PNG images, dots per inch; default: Graphviz's (96).
    graphs : dict, optional
        ``figures(ranking, per_dataset=per_dataset)`` when built already (the CLI
        builds them once for the figures and the report).

    Returns
    -------
    str or None
        A one-line warning when images could not be made, else None.
    """
    formats = check_formats(formats)
    os.makedirs(out_dir, exist_ok=True)
    if graphs is None:
        graphs = figures(ranking, per_dataset=per_dataset)
    sources = {stem: graph.source for stem, graph in graphs.items()}
    return draw_sources(out_dir, sources, formats, jobs, cache, dpi)
