"""multitest: cost-conscious ordering of machine-learning algorithms.

MultiTest orders L algorithms on one data set by a prior preference (a cost)
that a pairwise test overrides only when a costlier algorithm is significantly
more accurate; Multi²Test combines the orders of many data sets with a
Friedman test and a post-hoc test into one final order.

The pipeline is one subpackage a stage, each importing only those before it:
:mod:`multitest.inputs` → :mod:`multitest.stats` → :mod:`multitest.engine` →
:mod:`multitest.outputs` and :mod:`multitest.figures` → :mod:`multitest.run` →
:mod:`multitest.cli`.  This namespace holds what a user needs; the writers, the
figures and :func:`stability` are loaded on first use.

>>> from multitest import rank, example_results
>>> ranking = rank(example_results(), "training_time")
>>> ranking.final_order[0]
'5nn'
"""

import sys
from importlib import resources

from ._errors import InputError, MultitestError, OutputError, UnknownTestError
from ._lazy import lazy_exports

__version__ = "0.3.0"

#: Names loaded on first use: ``import multitest`` loads neither the engine nor NumPy,
#: SciPy or pandas (``multitest run`` needs none of the engine), nor the writers,
#: Graphviz or the bootstrap.
_LAZY = {
    "rank": ".engine._ranking",
    "Ranking": ".engine._ranking",
    "load_results": ".inputs._results",
    "Results": ".inputs._results",
    "load_profile": ".inputs._costs",
    "profile_from_order": ".inputs._costs",
    "CostProfile": ".inputs._costs",
    "register_test": ".stats._registry",
    "get_test": ".stats._registry",
    "available_tests": ".stats._registry",
    "from_cv_results": ".inputs._sklearn",
    "from_cross_validate": ".inputs._sklearn",
    "read_automl": ".inputs._automl",
    "stability": ".engine._stability",
    "StabilityResult": ".engine._stability",
    "write_outputs": ".outputs._write",
    "write_report": "._writers",
    "write_figures": "._writers",
    "render_override_graph": ".figures._stage_graphs",
    "render_trace": ".figures._stage_graphs",
    "render_cd_diagram": ".figures._cd_diagrams",
    "render_second_pass": ".figures._stage_graphs",
    "render_final": ".figures._stage_graphs",
    "render_significance_matrix": ".figures._significance",
}

__all__ = ["example_results", "example_path", "MultitestError", "InputError", "OutputError",
           "UnknownTestError", *_LAZY]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


def example_path():
    """Path of the bundled report data (``accuracy.csv`` of Ulaş et al. 2008)."""
    return str(resources.files("multitest") / "data" / "ulas2008" / "accuracy.csv")


def example_results():
    """The bundled report data: 8 algorithms, 38 data sets, 5x2 cv accuracies."""
    from .inputs._results import load_results

    return load_results(example_path())


def _install_jupyter_views():
    """Inside IPython, show results as their figures (the results themselves never draw)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        from .figures._jupyter import install_jupyter_views

        install_jupyter_views(shell)


_install_jupyter_views()
