"""Experiments: the experiment file and the runner that measures it into an experiment folder.

Needs the ``run`` extra (scikit-learn, Dask) when an experiment is run.

Every public name is defined in a private module, listed in ``__init__.pyi`` and
loaded on first use.
"""

from .._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
