"""Public names of a package re-exported from its private modules, loaded on first use.

Each subpackage lists its public names in a stub, ``__init__.pyi``, as plain re-exports
(``from ._posthoc import friedman as friedman``), which is also what type checkers and editors
read; its ``__init__.py`` attaches them (:func:`attach_stub`), in the manner of Scientific
Python's SPEC 1 lazy loading.  Nothing is imported until a name is asked for, so ``import
multitest`` stays cheap (no SciPy statistics, pandas writers or Graphviz until needed).
"""

import ast
import contextlib
import gc
import importlib
import sys
from pathlib import Path

__all__ = ["LazyModule", "attach_stub", "collector_paused", "import_in_background",
           "lazy_exports"]


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


class LazyModule:
    """A module imported on the first look-up of one of its names.

    ``special = LazyModule("scipy.special")`` at the top of a module that calls
    ``special.fdtrc`` only in its functions: importing SciPy's special
    functions takes 0.3 s (NumPy's testing and f2py modules come with them),
    which ``multitest rank`` spends while it reads the results
    (:func:`import_in_background`), not before.  A name looked up is then kept
    on the instance, so later look-ups are plain attribute reads.

    Examples
    --------
    >>> math_ = LazyModule("math")
    >>> math_.sqrt(4.0)
    2.0
    """

    def __init__(self, name):
        self.__dict__["_name"] = name

    def __getattr__(self, attribute):
        value = getattr(importlib.import_module(self._name), attribute)
        self.__dict__[attribute] = value
        return value

    def __repr__(self):
        return f"<LazyModule {self._name!r}>"


def import_in_background(*names):
    """Import the modules ``names`` in a thread of their own; the thread (started).

    Imports are mostly Python code holding the GIL, but a reader that spends
    its time in pyarrow or NumPy leaves it free, and a second CPU does the
    imports meanwhile.  Python's import lock makes a module imported at the
    same time by the caller wait for this thread's import.  The thread is not
    a daemon (an interpreter never exits in the middle of an import), and an
    import that fails here fails again, and is reported, where the module is used.

    Examples
    --------
    >>> import_in_background("json").join()
    """
    import threading

    def run():
        for name in names:
            try:
                importlib.import_module(name)
            except Exception:   # noqa: BLE001 -- raised again where it is used
                return

    thread = threading.Thread(target=run, name="multitest-imports")
    thread.start()
    return thread


@contextlib.contextmanager
def collector_paused():
    """No automatic garbage collection in the block (as it was after it), for imports.

    Importing a large library (scikit-learn with SciPy and pandas: some 10^5 objects,
    none of them garbage) triggers collections that scan every object made so far,
    again and again: 0.1 s of the 1.1 s it takes to import scikit-learn's trees and
    model selection (2-CPU VM, 2026-11-24).  At the end of the block the objects made
    so far join the oldest generation without a scan (:func:`_retire_objects`): the
    first collection after it scanned them all, 40-75 ms of a run's start.

    Examples
    --------
    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        _retire_objects()
        if enabled:
            gc.enable()


def _retire_objects():
    """Move every object the collector tracks to its oldest generation, without a scan.

    Frozen for good (:func:`gc.freeze`) when some objects are frozen already (the
    command line freezes its libraries); otherwise frozen and released at once, which
    leaves them in the oldest generation, collectible by a full collection as before.
    """
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    if not frozen_before:
        gc.unfreeze()
