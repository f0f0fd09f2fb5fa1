"""The engine: stage 1 on each data set, the cost-ordered sort, the second pass over data
sets, the ranking, its explanations and its stability.

Every public name is defined in a private module, listed in ``__init__.pyi`` and
loaded on first use.
"""

from .._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
