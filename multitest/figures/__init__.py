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
    "install_jupyter_views": "._jupyter",
    "render_override_graph": "._render",
    "render_trace": "._render",
    "render_cd_diagram": "._render",
    "render_significance_matrix": "._render",
    "render_second_pass": "._render",
    "render_second_pass_result": "._render",
    "render_final": "._render",
    "render_second_pass_trace": "._render",
    "figures": "._render",
    "dataset_stems": "._render",
    "inline_svg": "._render",
    "write_figures": "._render",
    "to_svg": "._render",
    "render_svgs": "._render",
    "ranking_html": "._render",
    "cd_layout": "._render",
    "CDLayout": "._render",
    "cd_groups": "._render",
    "safe_filename": "._render",
    "dot_available": "._render",
    "FORMATS": "._render",
    "ROW_LIMIT": "._render",
    "ROW_EDGE_LIMIT": "._render",
    "MATRIX_LIMIT": "._render",
    "FIGURE_PAIRS_LIMIT": "._render",
    "WRAP": "._render",
    "write_report": "._report",
    "report_html": "._report",
    "PAIRWISE_ROWS_LIMIT": "._report",
    "INLINE_DATASETS_LIMIT": "._report",
    "DATASET_PAGES": "._report",
    "stability_heatmap_svg": "._stability",
    "orders_table_html": "._stability",
    "stability_html_fragment": "._stability",
    "write_stability_report": "._stability",
}

__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
