"""Public names of a package re-exported from its private modules, loaded on first use.

Each subpackage lists its public names in a stub, ``__init__.pyi``, as plain re-exports
(``from ._posthoc import friedman as friedman``), which is also what type checkers and editors
read; its ``__init__.py`` attaches them (:func:`attach_stub`), in the manner of Scientific
Python's SPEC 1 lazy loading.  Nothing is imported until a name is asked for, so ``import
multitest`` stays cheap (no SciPy statistics, pandas writers or Graphviz until needed).
"""

import ast
import importlib
import sys
from pathlib import Path

__all__ = ["attach_stub", "lazy_exports"]


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
    >>> getattr_, dir_ = lazy_exports("multitest.stats", {"friedman": "._friedman"})
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


def attach_stub(package, init_file):
    """:func:`lazy_exports` of the names a package's ``__init__.pyi`` re-exports.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    init_file : str
        The package's ``__file__``; the stub is the ``.pyi`` beside it.

    Returns
    -------
    tuple
        ``(__getattr__, __dir__, __all__)``, ``__all__`` in the stub's order.
    """
    stub = ast.parse(Path(init_file).with_suffix(".pyi").read_text(encoding="utf-8"))
    exports = {alias.asname or alias.name: "." * node.level + node.module
               for node in stub.body if isinstance(node, ast.ImportFrom)
               for alias in node.names}
    return (*lazy_exports(package, exports), list(exports))
