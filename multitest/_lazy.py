"""Public names of a package re-exported from its private modules, loaded on first use.

Each subpackage (and the top level) lists where its public names live; nothing is imported
until a name is asked for, so ``import multitest`` stays cheap (no SciPy statistics, pandas
writers or Graphviz until they are needed).
"""

import importlib
import sys

__all__ = ["lazy_exports"]


def lazy_exports(package, exports):
    """Module ``__getattr__`` and ``__dir__`` for ``package`` re-exporting ``exports``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict of str to str
        Public name to the module (absolute, or relative to `package`) that defines it.

    Returns
    -------
    tuple of callable
        ``(__getattr__, __dir__)`` for the package's namespace.

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("multitest.stats", {"friedman": "._posthoc"})
    >>> getattr_("friedman").__name__
    'friedman'
    """

    def __getattr__(name):
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where, package), name)
        sys.modules[package].__dict__[name] = value   # later look-ups are plain
        return value

    def __dir__():
        return sorted(set(sys.modules[package].__dict__) | set(exports))

    return __getattr__, __dir__
