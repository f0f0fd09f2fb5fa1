"""The registry of pairwise tests: built-in, registered, plug-in and ``module:function``.

Tests live in a registry (a dict, as in numcodecs). Built-in tests are registered with
:func:`register_test`, exactly as a user's test would be; third-party packages add tests
through the entry-point group ``multitest.tests``; any function can also be used directly or
through a ``"module:function"`` path. :func:`get_test` resolves all of them.
"""

from __future__ import annotations

import dataclasses
import importlib

from .._errors import MultitestError, UnknownTestError
from ._bayesian import POSTERIOR_EVIDENCE, _credible_interval, bayes_correlated_t
from ._entry import PairwiseTest, _one_line
from ._fold_tests import (
    _combined_f_interval,
    _combined_t_interval,
    _corrected_interval,
    _kfold_interval,
    _paired_5x2_interval,
    _sign_interval,
    _wilcoxon_interval,
    _wilcoxon_pratt_interval,
    _wilcoxon_scipy_interval,
    combined_5x2cv_f,
    combined_5x2cv_t,
    corrected_t,
    kfold_t,
    paired_5x2cv_t,
    sign_test,
    wilcoxon_pratt,
    wilcoxon_scipy,
    wilcoxon_signed_rank,
)
from ._gram import combined_f_significant_all_pairs

__all__ = ["available_tests", "get_test", "register_test"]

DEFAULT_TEST = "combined-5x2cv-f"
ENTRY_POINT_GROUP = "multitest.tests"


# --------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------

_REGISTRY: dict[str, PairwiseTest] = {}
_ENTRY_POINTS: dict | None = None  # name -> importlib.metadata.EntryPoint, read lazily


def register_test(name=None, *, vectorized=False, requires_5x2=False, description=None):
    """Register a pairwise test under a name (a decorator).

    Parameters
    ----------
    name : str, optional
        Registry name; defaults to the function's ``__name__``. Must not contain
        ``':'`` (reserved for ``"module:function"`` paths).
    vectorized : bool, default False
        The function takes arrays of shape ``(n, F)`` (pairs, folds) and returns
        two arrays of shape ``(n,)``; otherwise it takes two 1-D arrays of
        shape ``(F,)`` and returns two numbers.
    requires_5x2 : bool, default False
        The test is only defined for 5x2 cross-validation.
    description : str, optional
        One line for ``multitest tests``; defaults to the docstring's first line.

    Returns
    -------
    decorator
        Registers the function and returns it unchanged. ``@register_test``
        without parentheses also works.

    Raises
    ------
    MultitestError
        If the name is taken by another function. Registering again a function
        with the same module and qualified name (a re-import, a re-run notebook
        cell) replaces the old entry.

    Examples
    --------
    >>> from scipy import stats
    >>> from multitest.stats import register_test, get_test
    >>> @register_test("doc-welch-t")
    ... def welch_t(a, b, alternative="two-sided"):
    ...     '''Welch t test on the folds (ignores the pairing).'''
    ...     return stats.ttest_ind(a, b, equal_var=False, alternative=alternative)
    >>> get_test("doc-welch-t").description
    'Welch t test on the folds (ignores the pairing).'
    """
    if callable(name):  # used as @register_test without parentheses
        return register_test()(name)

    def decorator(func):
        key = name if name is not None else func.__name__
        if not isinstance(key, str) or not key or ":" in key:
            raise MultitestError(
                f"a pairwise test name must be a non-empty string without ':'; got {key!r}"
            )
        old = _REGISTRY.get(key)
        if old is not None and _identity(old.func) != _identity(func):
            raise MultitestError(
                f"pairwise test '{key}' is already registered (by {_describe(old.func)})"
            )
        _REGISTRY[key] = PairwiseTest.from_function(
            func, key, vectorized=vectorized, requires_5x2=requires_5x2,
            description=description)
        return func

    return decorator


def _identity(func):
    return (getattr(func, "__module__", None), getattr(func, "__qualname__", id(func)))


def _describe(func):
    module, qualname = _identity(func)
    return f"{module}.{qualname}" if module else repr(func)


def get_test(name):
    """Resolve a pairwise test.

    Parameters
    ----------
    name : str, callable or PairwiseTest
        - a :class:`PairwiseTest`: returned as is;
        - a callable: wrapped; scalar unless it has an attribute
          ``vectorized = True`` (``requires_5x2`` is honoured likewise); a
          function registered with :func:`register_test` keeps its flags;
        - a registered name, e.g. ``"combined-5x2cv-f"``;
        - the name of an entry point in the group ``multitest.tests`` (loaded
          the first time it is asked for);
        - a ``"module:function"`` path, imported with :mod:`importlib`.

    Returns
    -------
    PairwiseTest

    Raises
    ------
    UnknownTestError
        If the name is unknown (the message lists the valid names), or the
        entry point or ``module:function`` path cannot be imported.

    Examples
    --------
    >>> from multitest.stats import get_test
    >>> get_test("combined-5x2cv-f").requires_5x2
    True
    >>> get_test("scipy.stats:ttest_rel").name
    'scipy.stats:ttest_rel'
    """
    if isinstance(name, PairwiseTest):
        return name
    if callable(name):
        return _wrap(name)
    if not isinstance(name, str):
        raise UnknownTestError(
            "a pairwise test must be a name, a 'module:function' path or a function; "
            f"got {type(name).__name__}"
        )
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in _entry_points():
        return _load_entry_point(name)
    if ":" in name:
        return _wrap(_import_path(name), name)
    valid = sorted(set(_REGISTRY) | set(_entry_points()))
    raise UnknownTestError(
        f"unknown pairwise test '{name}'; valid names: {', '.join(valid)} "
        "(or a 'module:function' path)"
    )


def available_tests():
    """All registered tests, entry points included, sorted by name.

    Returns
    -------
    dict of str to PairwiseTest

    Raises
    ------
    UnknownTestError
        If an installed entry point cannot be loaded.

    Examples
    --------
    >>> from multitest.stats import available_tests
    >>> "wilcoxon" in available_tests()
    True
    """
    for name in _entry_points():
        if name not in _REGISTRY:
            _load_entry_point(name)
    return dict(sorted(_REGISTRY.items()))


def _wrap(func, name=None):
    """A PairwiseTest for a function: its registry entry if it has one."""
    for test in _REGISTRY.values():
        if test.func is func:
            return test if name is None else dataclasses.replace(test, name=name)
    return PairwiseTest.from_function(func, name)


def _entry_points():
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        from importlib import metadata   # 10 ms to import: only when a name is not built in

        _ENTRY_POINTS = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return _ENTRY_POINTS


def _load_entry_point(name):
    entry_point = _entry_points()[name]
    try:
        obj = entry_point.load()
    except (Exception, SystemExit) as exc:  # any failure of a plugin's import
        raise UnknownTestError(
            f"cannot load pairwise test '{name}' from entry point "
            f"'{entry_point.value}': {_one_line(exc)}"
        ) from exc
    if isinstance(obj, PairwiseTest):
        test = dataclasses.replace(obj, name=name)
    elif callable(obj):
        test = _wrap(obj, name)
    else:
        raise UnknownTestError(
            f"entry point '{name}' ({entry_point.value}) is not a function or PairwiseTest"
        )
    _REGISTRY[name] = test
    return test


def _import_path(path):
    module_name, _, attr = path.partition(":")
    try:
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (Exception, SystemExit) as exc:  # ImportError, AttributeError, the module's
        raise UnknownTestError(f"cannot load pairwise test '{path}': {_one_line(exc)}") from exc
    if isinstance(obj, PairwiseTest):
        return obj.func
    if not callable(obj):
        raise UnknownTestError(f"pairwise test '{path}' is not a function")
    return obj


# --------------------------------------------------------------------------
# Built-in tests (registered like any plug-in)
# --------------------------------------------------------------------------

#: What the built-in tests can do, beyond what their signatures say (see the
#: attributes of :class:`PairwiseTest`).  All see the errors only through ``a - b``;
#: each interval inverts its own test (:mod:`multitest.stats._fold_intervals`).
_DIFFERENCE_TEST = dict(vectorized=True, difference_only=True)
_FIVE_BY_TWO = dict(_DIFFERENCE_TEST, requires_5x2=True, fold_major=True)
_BUILTINS = (
    ("combined-5x2cv-f", combined_5x2cv_f,
     dict(_FIVE_BY_TWO, interval=_combined_f_interval,
          all_pairs_decision=combined_f_significant_all_pairs)),
    ("5x2cv-t", paired_5x2cv_t, dict(_FIVE_BY_TWO, interval=_paired_5x2_interval)),
    ("combined-5x2cv-t", combined_5x2cv_t, dict(_FIVE_BY_TWO, interval=_combined_t_interval)),
    ("kfold-t", kfold_t, dict(_DIFFERENCE_TEST, interval=_kfold_interval)),
    ("corrected-t", corrected_t, dict(_DIFFERENCE_TEST, interval=_corrected_interval)),
    ("wilcoxon", wilcoxon_signed_rank, dict(_DIFFERENCE_TEST, interval=_wilcoxon_interval)),
    ("wilcoxon-pratt", wilcoxon_pratt, dict(_DIFFERENCE_TEST, interval=_wilcoxon_pratt_interval)),
    ("wilcoxon-scipy", wilcoxon_scipy, dict(_DIFFERENCE_TEST, interval=_wilcoxon_scipy_interval)),
    ("sign", sign_test, dict(_DIFFERENCE_TEST, interval=_sign_interval)),
    ("bayes-correlated-t", bayes_correlated_t,
     dict(vectorized=True, interval=_credible_interval, bayesian=True,
          evidence=POSTERIOR_EVIDENCE)),
)
for _name, _func, _capabilities in _BUILTINS:
    _REGISTRY[_name] = dataclasses.replace(PairwiseTest.from_function(_func, _name),
                                           **_capabilities)
