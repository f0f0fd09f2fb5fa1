"""Statistics: the registry of pairwise tests on folds, corrections, Friedman and post-hoc
tests over data sets, Bayesian tests and effect sizes.

Nothing here knows of rankings, outputs or figures.

Every public name is defined in a private module, listed in ``__init__.pyi`` and
loaded on first use.
"""

from .._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
