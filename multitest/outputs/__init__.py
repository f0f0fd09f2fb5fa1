"""Outputs: an output folder written as one transaction (result.json, the CSV tables, the
pairwise file) and read back (the run's manifest, a listed file, the pairwise table).

Every public name is defined in a private module, listed in ``__init__.pyi`` and
loaded on first use.
"""

from .._lazy import attach_stub

__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
