"""Figures: the graph of every stage as a ``graphviz`` object (override graphs, sort traces,
the second pass, the critical-difference diagrams, the final order, the significance
matrix).  The figure files and the HTML report are written by
:func:`multitest.write_figures` and :func:`multitest.write_report`.

Every public name is defined in a private module, listed in ``__init__.pyi`` and
loaded on first use.
"""

from .._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
