"""Figures: DOT sources of every stage, the critical-difference layout, the Graphviz runner,
the HTML report and the Jupyter view.

Every public name is defined in a private module and loaded on first use.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "pairs_figure_svg": "._bayes",
    "bayes_figures": "._bayes",
    "write_bayes_figures": "._bayes",
    "bayes_section_html": "._bayes",
    "render_cd_diagram": "._cd",
    "cd_layout": "._cd",
    "CDLayout": "._cd",
    "cd_groups": "._cd",
    "ROW_LIMIT": "._dot",
    "ROW_EDGE_LIMIT": "._dot",
    "MATRIX_LIMIT": "._dot",
    "WRAP": "._dot",
    "FORMATS": "._graphviz",
    "SvgCache": "._graphviz",
    "dot_available": "._graphviz",
    "render_svgs": "._graphviz",
    "to_svg": "._graphviz",
    "inline_svg": "._graphviz",
    "install_jupyter_views": "._jupyter",
    "ranking_html": "._jupyter",
    "write_report": "._report",
    "report_html": "._report",
    "PAIRWISE_ROWS_LIMIT": "._report",
    "INLINE_DATASETS_LIMIT": "._report",
    "DATASET_PAGES": "._report",
    "stability_heatmap_svg": "._stability",
    "orders_table_html": "._stability",
    "stability_html_fragment": "._stability",
    "write_stability_report": "._stability",
    "render_override_graph": "._stage_graphs",
    "render_trace": "._stage_graphs",
    "render_significance_matrix": "._stage_graphs",
    "render_second_pass": "._stage_graphs",
    "render_second_pass_result": "._stage_graphs",
    "render_final": "._stage_graphs",
    "render_second_pass_trace": "._stage_graphs",
    "figures": "._write",
    "dataset_stems": "._write",
    "safe_filename": "._write",
    "write_figures": "._write",
    "FIGURE_PAIRS_LIMIT": "._write",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
