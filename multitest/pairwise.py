"""Pairwise tests on the per-fold errors of two algorithms (stage 1).

Every test compares the paired per-fold errors of a *cheaper* algorithm ``a``
and a *costlier* algorithm ``b`` on one data set, for many pairs at once:
``a`` and ``b`` are float arrays of shape ``(n, F)`` (``n`` pairs, ``F`` folds,
fold axis last) and a test returns a statistic and a p-value per pair.

Sign convention, everywhere: ``d = a - b`` (cheaper minus costlier). A positive
t statistic means the costlier algorithm has the lower error, and
``alternative='greater'`` is the alternative hypothesis ``mean(a - b) > 0``
("the costlier algorithm is better").

Tests live in a registry (a dict, as in numcodecs). Built-in tests are
registered with :func:`register_test`, exactly as a user's test would be;
third-party packages add tests through the entry-point group
``multitest.tests``; any function can also be used directly or through a
``"module:function"`` path. :func:`get_test` resolves all of them.

Degenerate folds never produce a warning or a NaN:

- all differences zero (identical errors): statistic 0 and p-value 1, for
  every test and every alternative;
- zero variance with a non-zero mean (the same non-zero difference on every
  fold, or on both folds of every replication for the 5x2 tests): the t-type
  statistics are ``+inf`` or ``-inf`` (sign of the mean difference) with
  p-value 0 two-sided and 0 or 1 one-sided, depending on the direction; the
  F statistic is ``inf`` with p-value 0. More generally a ratio ``0/0`` gives
  statistic 0 and p-value 1, and ``x/0`` with ``x != 0`` gives ``+-inf``.
- the Wilcoxon and sign tests are finite by construction. ``wilcoxon`` and
  ``wilcoxon-pratt`` use the exact conditional distribution
  (:mod:`multitest.signed_rank`, R's ``coin`` / ``exactRankTests``);
  ``wilcoxon-scipy`` and ``sign`` follow :func:`scipy.stats.wilcoxon` and
  :func:`scipy.stats.binomtest`.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
from dataclasses import dataclass
from importlib import metadata
from typing import Callable

import numpy as np
from scipy import special

from multitest.errors import MultitestError, UnknownTestError
from multitest.signed_rank import signed_rank_test

__all__ = [
    "DEFAULT_TEST",
    "TestFailure",
    "ENTRY_POINT_GROUP",
    "FoldDesign",
    "PairwiseTest",
    "available_tests",
    "combined_5x2cv_f",
    "combined_5x2cv_t",
    "corrected_t",
    "get_test",
    "kfold_t",
    "paired_5x2cv_t",
    "parse_test_train_ratio",
    "register_test",
    "sign_test",
    "wilcoxon_pratt",
    "wilcoxon_scipy",
    "wilcoxon_signed_rank",
]

DEFAULT_TEST = "combined-5x2cv-f"
ENTRY_POINT_GROUP = "multitest.tests"
_ALTERNATIVES = ("two-sided", "less", "greater")


# --------------------------------------------------------------------------
# Fold design and the test wrapper
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FoldDesign:
    """How the folds of an error array were produced.

    The fold axis of every error array is replication-major:
    ``(rep 1, fold 1), (rep 1, fold 2), ..., (rep 2, fold 1), ...``.

    Parameters
    ----------
    replications : int
        Number of replications ``r`` (5 for 5x2 cv, 1 for plain k-fold cv).
    folds : int
        Number of folds ``k`` per replication (2 for 5x2 cv; 1 for random
        subsampling, one test set per replication).
    test_train_ratio : float, optional
        ``n_test / n_train`` of every split, used by the corrected resampled t
        test; None (default) means ``1 / (k - 1)``, that of k-fold cv. Any
        input :func:`parse_test_train_ratio` accepts (``"1/9"``, ``(100, 900)``).

    Raises
    ------
    MultitestError
        If either count is not a positive integer or the ratio is not a
        positive finite number.

    Examples
    --------
    >>> from multitest.pairwise import FoldDesign
    >>> design = FoldDesign(replications=5, folds=2)
    >>> design.n, design.is_5x2, str(design)
    (10, True, '5x2')
    """

    replications: int
    folds: int
    test_train_ratio: float | None = None

    def __post_init__(self):
        for field in ("replications", "folds"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise MultitestError(f"`{field}` must be a positive integer; got {value!r}")
            object.__setattr__(self, field, int(value))
        if self.test_train_ratio is not None:
            object.__setattr__(self, "test_train_ratio",
                               parse_test_train_ratio(self.test_train_ratio))

    @property
    def n(self) -> int:
        """Total number of folds, ``replications * folds``."""
        return self.replications * self.folds

    @property
    def is_5x2(self) -> bool:
        """Whether this is 5x2 cross-validation."""
        return self.replications == 5 and self.folds == 2

    def __str__(self):
        return f"{self.replications}x{self.folds}"


def parse_test_train_ratio(value):
    """``n_test / n_train`` from a number, a pair of sizes or a string.

    Parameters
    ----------
    value : float, (n_test, n_train) or str
        A positive number; two positive sizes; or a string ``"0.111"``,
        ``"1/9"`` or ``"100/900"`` (command line, YAML).

    Returns
    -------
    float

    Raises
    ------
    MultitestError
        If `value` is not one of these or not positive and finite.

    Examples
    --------
    >>> from multitest.pairwise import parse_test_train_ratio
    >>> parse_test_train_ratio("1/9") == parse_test_train_ratio((100, 900)) == 1 / 9
    True
    """
    message = (f"`test_train_ratio` must be a positive number, two sizes (n_test, n_train) "
               f"or a string like '1/9'; got {value!r}")
    parts = value.split("/") if isinstance(value, str) else (
        list(value) if isinstance(value, (tuple, list)) else [value])
    if len(parts) not in (1, 2):
        raise MultitestError(message)
    try:
        numbers = [float(part) for part in parts]
    except (TypeError, ValueError):
        raise MultitestError(message) from None
    if any(isinstance(part, bool) for part in parts) or not all(
            np.isfinite(x) and x > 0 for x in numbers):
        raise MultitestError(message)
    return numbers[0] / numbers[1] if len(numbers) == 2 else numbers[0]


@dataclass(frozen=True)
class PairwiseTest:
    """A registered pairwise test: a function plus what the registry knows of it.

    Parameters
    ----------
    name : str
        Registry name (or ``"module:function"`` path).
    func : callable
        ``func(a, b, **kwargs) -> (statistic, pvalue)``; the result may also be
        any object with ``statistic`` and ``pvalue`` attributes (a SciPy
        result). ``design`` is passed when ``func`` has a ``design`` parameter,
        ``alternative`` when it is not ``'two-sided'``.
    vectorized : bool
        If true, ``func`` takes arrays of shape ``(n, F)`` and returns arrays of
        shape ``(n,)``; otherwise it takes two 1-D arrays of shape ``(F,)`` and
        returns two scalars, and is called once per pair.
    requires_5x2 : bool
        The test is only defined for 5x2 cross-validation.
    description : str
        One line, shown by ``multitest tests``.
    supports_one_sided : bool
        ``func`` accepts an ``alternative`` keyword.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.pairwise import FoldDesign, get_test
    >>> test = get_test("kfold-t")
    >>> a = np.array([[0.20, 0.22, 0.25, 0.21, 0.24]])
    >>> b = np.array([[0.18, 0.20, 0.22, 0.20, 0.21]])
    >>> statistic, pvalue = test(a, b, FoldDesign(1, 5))
    >>> statistic.round(4), pvalue.round(4)
    (array([5.8797]), array([0.0042]))
    """

    name: str
    func: Callable
    vectorized: bool = False
    requires_5x2: bool = False
    description: str = ""
    supports_one_sided: bool = False

    @classmethod
    def from_function(cls, func, name=None, *, vectorized=None, requires_5x2=None,
                      description=None):
        """Wrap a function, reading unset flags from its attributes.

        ``vectorized`` and ``requires_5x2`` default to the function's attributes
        of the same name (``False`` when absent); ``description`` defaults to
        the first line of its docstring; ``supports_one_sided`` is true when the
        function has an ``alternative`` parameter.
        """
        if vectorized is None:
            vectorized = bool(getattr(func, "vectorized", False))
        if requires_5x2 is None:
            requires_5x2 = bool(getattr(func, "requires_5x2", False))
        if description is None:
            description = _first_line(inspect.getdoc(func))
        return cls(
            name=name if name is not None else getattr(func, "__name__", repr(func)),
            func=func,
            vectorized=vectorized,
            requires_5x2=requires_5x2,
            description=description,
            supports_one_sided=_has_parameter(func, "alternative"),
        )

    def __call__(self, a, b, design, alternative="two-sided"):
        """Run the test on ``n`` pairs.

        Parameters
        ----------
        a, b : array_like, shape (n, F)
            Per-fold errors of the cheaper (``a``) and the costlier (``b``)
            algorithm, fold axis replication-major.
        design : FoldDesign
            How the ``F`` folds were produced.
        alternative : {'two-sided', 'less', 'greater'}
            ``'greater'``: ``mean(a - b) > 0``, the costlier ``b`` has the lower
            error; ``'less'``: the reverse.

        Returns
        -------
        statistic, pvalue : ndarray, shape (n,)

        Raises
        ------
        MultitestError
            Malformed arrays, a design the test does not support, a one-sided
            alternative for a test without one, or an output of the wrong shape
            or with a NaN (or out-of-range) p-value.
        """
        a, b = _iv_errors(a, b, design)
        self._check_design(design)
        kwargs = self._kwargs(design, alternative)
        out = self._run(a, b, kwargs)
        return self._check_output(out, a.shape[0])

    def _call_unchecked(self, a, b, design, alternative="two-sided"):
        """:meth:`__call__` for arrays already known to be finite floats of shape (n, F).

        Stage 1 calls the test on millions of pairs built from validated
        results; this skips only the input checks, never the output checks.
        """
        self._check_design(design)
        kwargs = self._kwargs(design, alternative)
        out = self._run(a, b, kwargs)
        return self._check_output(out, a.shape[0])

    def _run(self, a, b, kwargs):
        """Call the function; an exception it raises becomes a :class:`TestFailure`."""
        if not self.vectorized:
            return _loop(self.func, a, b, kwargs, self.name)
        try:
            return self.func(a, b, **kwargs)
        except MultitestError:
            raise
        except Exception as exc:   # anything a user's code may raise
            raise TestFailure(self.name, exc, *_failing_pair(self.func, a, b, kwargs)) \
                from exc

    @property
    def uses_design(self):
        """Whether ``func`` takes the :class:`FoldDesign` (and so a test/train ratio)."""
        return _has_parameter(self.func, "design")

    @property
    def _difference_only(self):
        """Whether the test sees the errors only through ``a - b`` (built-in tests).

        Stage 1 then passes the differences as ``a`` and zeros as ``b``, which
        gives exactly the same numbers (``d - 0 == d``) with half the copying.
        """
        return self.func in _DIFFERENCE_ONLY

    @property
    def _thread_safe(self):
        """Whether stage 1 may run this test on several blocks at once (threads).

        True for the built-in t and F tests: NumPy and :mod:`scipy.special`
        only, which release the GIL on large arrays.  User tests run in one
        thread.
        """
        return self.func in _THREAD_SAFE

    @property
    def _decision(self):
        """``f(a, b, alpha)``: whether each p-value is below ``alpha``, for tests that
        can decide without computing most p-values (the same decisions), else None."""
        return _DECISIONS.get(self.func)

    @property
    def _fold_major(self):
        """Whether the test works on one row per fold (the 5x2 cv tests).

        Stage 1 then lays its differences out fold-major (``a.T`` contiguous),
        which the test reads without a strided copy; the numbers are the same.
        """
        return self.func in _FOLD_MAJOR

    def _check_design(self, design):
        if self.requires_5x2 and not design.is_5x2:
            raise MultitestError(
                f"pairwise test '{self.name}' needs 5x2 cross-validation "
                f"(5 replications x 2 folds); the data have {design.replications} "
                f"replication(s) x {design.folds} fold(s)"
            )

    def _kwargs(self, design, alternative):
        if alternative not in _ALTERNATIVES:
            raise MultitestError(
                f"`alternative` must be one of {', '.join(_ALTERNATIVES)}; got {alternative!r}"
            )
        kwargs = {}
        if _has_parameter(self.func, "design"):
            kwargs["design"] = design
        if alternative != "two-sided":
            if not self.supports_one_sided:
                raise MultitestError(
                    f"pairwise test '{self.name}' has no one-sided version (its function "
                    f"takes no `alternative` argument); use alternative='two-sided'"
                )
            kwargs["alternative"] = alternative
        return kwargs

    def _check_output(self, out, n):
        statistic, pvalue = _unpack(out, self.name)
        try:
            statistic = np.asarray(statistic, dtype=float)
            pvalue = np.asarray(pvalue, dtype=float)
        except (TypeError, ValueError) as exc:
            raise MultitestError(
                f"pairwise test '{self.name}' returned non-numeric output: {exc}"
            ) from None
        for what, value in (("statistic", statistic), ("p-value", pvalue)):
            if value.shape != (n,):
                raise MultitestError(
                    f"pairwise test '{self.name}' returned a {what} of shape "
                    f"{value.shape}; expected ({n},)"
                )
        _check_values(self.name, "a NaN statistic", np.isnan(statistic))
        _check_values(self.name, "a NaN p-value", np.isnan(pvalue))
        _check_values(self.name, "a p-value outside [0, 1]", (pvalue < 0) | (pvalue > 1))
        return statistic, pvalue


def _check_values(name, what, bad):
    if bad.any():
        where = np.flatnonzero(bad)
        raise MultitestError(
            f"pairwise test '{name}' returned {what} for pair {where[0]} "
            f"({where.size} of {bad.size} pairs)"
        )


def _iv_errors(a, b, design):
    if not isinstance(design, FoldDesign):
        raise MultitestError(f"`design` must be a FoldDesign; got {type(design).__name__}")
    try:
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
    except (TypeError, ValueError) as exc:
        raise MultitestError(f"`a` and `b` must be numeric arrays: {exc}") from None
    if a.ndim != 2 or a.shape != b.shape:
        raise MultitestError(
            f"`a` and `b` must be 2-D arrays (pairs, folds) of the same shape; got "
            f"{a.shape} and {b.shape} (use a[np.newaxis] for a single pair)"
        )
    if a.shape[1] != design.n:
        raise MultitestError(
            f"`a` and `b` have {a.shape[1]} folds but the design {design} has {design.n}"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise MultitestError("`a` and `b` must be finite (missing folds are not allowed)")
    return a, b


class TestFailure(MultitestError):
    """A pairwise test raised an exception (a bug or a limit of a user's test).

    Attributes
    ----------
    test : str
        The test's name.
    error : Exception
        What it raised.
    a, b : ndarray or None
        The per-fold errors of the pair it failed on, when known; see
        :meth:`located`.
    """

    __test__ = False   # not a pytest class

    def __init__(self, test, error, a=None, b=None, where=""):
        self.test, self.error, self.a, self.b = test, error, a, b
        super().__init__(f"pairwise test '{test}' failed{where}: {_one_line(error)}")

    def located(self, errors, datasets, algorithms):
        """The same failure naming the data set and the pair it happened on.

        Parameters
        ----------
        errors : ndarray, shape (S, L, F)
            The errors the test ran on; the pair is the first data set and
            two algorithms whose folds are ``a`` and ``b``.
        datasets, algorithms : sequence of str
        """
        if self.a is None:
            return self
        errors = np.asarray(errors)
        is_a = (errors == self.a).all(axis=2)
        is_b = (errors == self.b).all(axis=2)
        for s in np.flatnonzero(is_a.any(axis=1) & is_b.any(axis=1)):
            x, y = np.flatnonzero(is_a[s])[0], np.flatnonzero(is_b[s])[0]
            where = f" on data set {datasets[s]}, pair {algorithms[x]}–{algorithms[y]}"
            return TestFailure(self.test, self.error, where=where)
        return self


def _failing_pair(func, a, b, kwargs, limit=1000):
    """The folds of the first pair a vectorized test fails on alone (or nothing)."""
    for i in range(min(limit, a.shape[0])):
        try:
            func(a[i:i + 1], b[i:i + 1], **kwargs)
        except Exception:   # the failure being located
            return a[i].copy(), b[i].copy()
    return ()


def _loop(func, a, b, kwargs, name):
    statistic = np.empty(a.shape[0])
    pvalue = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        try:
            out = func(a[i], b[i], **kwargs)
        except MultitestError:
            raise
        except Exception as exc:   # anything a user's code may raise
            raise TestFailure(name, exc, a[i].copy(), b[i].copy()) from exc
        s, p = _unpack(out, name)
        try:
            statistic[i], pvalue[i] = float(s), float(p)
        except (TypeError, ValueError) as exc:
            raise MultitestError(
                f"pairwise test '{name}' must return two numbers for one pair; {exc}"
            ) from None
    return statistic, pvalue


def _unpack(out, name):
    if hasattr(out, "statistic") and hasattr(out, "pvalue"):
        return out.statistic, out.pvalue
    try:
        statistic, pvalue = out
    except (TypeError, ValueError):
        raise MultitestError(
            f"pairwise test '{name}' must return (statistic, pvalue); got "
            f"{type(out).__name__}"
        ) from None
    return statistic, pvalue


def _has_parameter(func, name):
    try:
        parameters = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters and parameters[name].kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _first_line(doc):
    return doc.strip().splitlines()[0].strip() if doc and doc.strip() else ""


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
    >>> from multitest.pairwise import register_test, get_test
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
    >>> from multitest.pairwise import get_test
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
    >>> from multitest.pairwise import available_tests
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
        _ENTRY_POINTS = {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return _ENTRY_POINTS


def _load_entry_point(name):
    entry_point = _entry_points()[name]
    try:
        obj = entry_point.load()
    except Exception as exc:  # any import-time failure of a third-party plugin
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
    except Exception as exc:  # ImportError, AttributeError, or an error in the module
        raise UnknownTestError(f"cannot load pairwise test '{path}': {_one_line(exc)}") from exc
    if isinstance(obj, PairwiseTest):
        return obj.func
    if not callable(obj):
        raise UnknownTestError(f"pairwise test '{path}' is not a function")
    return obj


def _one_line(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


# --------------------------------------------------------------------------
# p-values
# --------------------------------------------------------------------------


def _get_pvalue(statistic, distribution, alternative):
    """p-value of ``statistic`` under ``distribution`` for ``alternative``.

    ``distribution.cdf(x)`` must be ``P(X <= x)`` and ``distribution.sf(x)``
    ``P(X >= x)`` (equal to SciPy's ``sf`` for continuous distributions).
    """
    if alternative == "less":
        return distribution.cdf(statistic)
    if alternative == "greater":
        return distribution.sf(statistic)
    if hasattr(distribution, "smaller_tail"):   # one evaluation instead of two
        tails = distribution.smaller_tail(statistic)
    else:
        tails = np.minimum(distribution.cdf(statistic), distribution.sf(statistic))
    return np.minimum(2 * tails, 1.0)


class _StudentT:
    """Student's t with ``df`` degrees of freedom: ``scipy.stats.t(df)``'s tails.

    Calls :func:`scipy.special.stdtr` directly, as SciPy's ``t._cdf`` and
    ``t._sf`` do (same values, infinities included), without the per-call
    argument handling of a frozen distribution, which dominates on millions
    of pairs.
    """

    def __init__(self, df):
        self.df = df

    def cdf(self, x):
        return special.stdtr(self.df, x)

    def sf(self, x):
        return special.stdtr(self.df, -x)

    def smaller_tail(self, x):
        """``min(cdf(x), sf(x))`` in one evaluation: ``sf(|x|)``.

        ``stdtr`` is computed by symmetry (``cdf(x) = 1 - sf(x)`` for ``x > 0``),
        so this is exactly the minimum of the two (tested).
        """
        return special.stdtr(self.df, -np.abs(x))


class _StandardNormal:
    """N(0, 1): ``scipy.stats.norm``'s tails (``ndtr(x)``, ``ndtr(-x)``) directly."""

    @staticmethod
    def cdf(x):
        return special.ndtr(x)

    @staticmethod
    def sf(x):
        return special.ndtr(-x)


class _FisherF:
    """F(dfn, dfd): ``scipy.stats.f(dfn, dfd)``'s tails through :mod:`scipy.special`.

    For an even ``dfn`` (the combined 5x2 cv F test has ``dfn = 10``) the upper
    tail has a closed form, evaluated in a few array operations instead of one
    incomplete beta function per pair (more than ten times faster on millions
    of pairs).  With ``z = dfd / (dfd + dfn x)``, ``a = dfd / 2`` and an
    integer ``n = dfn / 2``, ``sf(x) = I_z(a, n)``, and for an integer second
    argument the regularized incomplete beta function is the finite sum

        I_z(a, n) = z**a * sum_{j = 0}^{n - 1} (a)_j / j! * (1 - z)**j

    (``(a)_j`` the rising factorial).  Every term is positive: no
    cancellation.  It agrees with :func:`scipy.special.fdtrc` to a few units
    in the last place (relative 2.2e-15 at most, tested), with ``sf(0) = 1``
    and ``sf(inf) = 0`` exactly.  Odd ``dfn`` and scalars: ``fdtrc``.
    """

    def __init__(self, dfn, dfd):
        self.dfn, self.dfd = dfn, dfd

    def cdf(self, x):
        return special.fdtr(self.dfn, self.dfd, x)

    def sf(self, x):
        if self.dfn % 2 or np.ndim(x) == 0:
            return special.fdtrc(self.dfn, self.dfd, x)
        a = self.dfd / 2
        coefficients = [1.0]                  # (a)_j / j!, j = 0 .. n - 1
        for j in range(1, self.dfn // 2):
            coefficients.append(coefficients[-1] * (a + j - 1) / j)
        z = np.asarray(x, dtype=float) * (self.dfn / self.dfd)
        z += 1.0
        np.reciprocal(z, out=z)               # z = dfd / (dfd + dfn x); 0 at x = inf
        w = 1.0 - z                           # 1 - z: no cancellation matters, poly >= 1
        poly = np.full_like(z, coefficients[-1])
        for c in coefficients[-2::-1]:
            poly *= w
            poly += c
        if a == 2.5:
            out = np.sqrt(z)
            out *= z
            out *= z
        else:
            out = np.power(z, a)
        out *= poly
        return out


def _ratio(numerator, denominator):
    """``numerator / denominator`` with ``x/0 = +-inf`` and ``0/0 = 0``.

    Returns the ratio and the mask of ``0/0`` entries (whose p-value is 1).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = numerator / denominator
    undefined = (numerator == 0) & (denominator == 0)
    return np.where(undefined, 0.0, ratio), undefined


def _ratio_test(numerator, scale, distribution, alternative):
    statistic, undefined = _ratio(numerator, scale)
    pvalue = _get_pvalue(statistic, distribution, alternative)
    return statistic, np.where(undefined, 1.0, pvalue)


def _row_sum(x):
    """``np.sum(x, axis=1)`` of a 2-D array, the same numbers, faster for few columns.

    NumPy reduces each row with its pairwise summation, which for at most 128
    values is: eight running sums over the columns ``k, k + 8, ...``, combined
    as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the last
    ``n % 8`` values added in turn (fewer than 8 values: added in turn).  Doing
    the same additions column by column on whole arrays gives the same floats
    while avoiding NumPy's slow reduction over short rows, several times faster
    for the 5 to 10 folds of stage 1.  More than 128 columns: ``np.sum``.
    """
    n = x.shape[1]
    if n > 128 or n == 0:
        return np.sum(x, axis=1)
    return _sum_columns([x[:, k] for k in range(n)])


def _sum_columns(columns):
    """The sum of 1 to 128 equal-shaped arrays in the order of :func:`_row_sum`, a new array."""
    n = len(columns)
    if n < 8:
        out = columns[0].copy()
        for column in columns[1:]:
            out += column
        return out
    stop = n - n % 8
    r = list(columns[:8])
    if stop > 8:                          # running sums: copies, the inputs stay untouched
        r = [column.copy() for column in r]
        for i in range(8, stop, 8):
            for k in range(8):
                r[k] += columns[i + k]
    out, left, right = r[0] + r[1], r[2] + r[3], r[4] + r[5]
    out += left
    np.add(r[6], r[7], out=left)
    right += left
    out += right
    for column in columns[stop:]:
        out += column
    return out


def _row_mean(x):
    """``np.mean(x, axis=1)`` (the sum divided by the count, as NumPy does)."""
    return _row_sum(x) / x.shape[1]


def _variance(d):
    """Sample variance (ddof=1) along the last axis, exactly 0 for constant rows.

    The steps of ``np.var(d, axis=1, ddof=1)``: mean, squared deviations,
    their sum over ``F - 1``.
    """
    constant = np.all(d == d[:, :1], axis=1)
    deviations = d - _row_mean(d)[:, None]
    deviations *= deviations
    return np.where(constant, 0.0, _row_sum(deviations) / (d.shape[1] - 1))


def _is_zero(b):
    """Whether ``b`` is stage 1's ``numpy.broadcast_to(0.0, shape)`` (one +0.0, repeated)."""
    return b.size > 0 and not any(b.strides) and b.flat[0] == 0 and not np.signbit(b.flat[0])


def _five_by_two(a, b):
    """The ten differences ``p`` as rows (fold-major, shape (10, n)) and ``sum_i s_i^2``.

    docs/method.md section 3.  One row per fold keeps every step a
    contiguous array operation (the (n, 10) layout made each of them strided);
    the operations, and so the floats, are those of the per-pair formulas.
    ``p`` may be a view of ``a``: not to be written.
    """
    if _is_zero(b) and a.T.flags.c_contiguous:     # stage 1's fold-major differences
        p = a.T                                      # d - 0 == d: no copy
    else:
        p = np.empty((a.shape[1], a.shape[0]))
        np.subtract(a.T, b.T, out=p)
    s2 = []
    for first, second in zip(p[0::2], p[1::2]):
        p_bar = first + second
        p_bar /= 2
        left, right = first - p_bar, second - p_bar
        np.square(left, out=left)
        np.square(right, out=right)
        left += right
        s2.append(left)
    return p, _sum_columns(s2)


# --------------------------------------------------------------------------
# Built-in tests (registered like any plug-in)
# --------------------------------------------------------------------------


@register_test("combined-5x2cv-f", vectorized=True, requires_5x2=True)
def combined_5x2cv_f(a, b):
    """Combined 5x2 cv F test (Alpaydin 1999); F(10, 5), upper tail.

    Parameters
    ----------
    a, b : ndarray, shape (n, 10)
        Per-fold errors of the cheaper and the costlier algorithm, 5x2 cv,
        replication-major.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``f = sum_i sum_j (p_i^(j))^2 / (2 sum_i s_i^2)`` and its upper-tail
        p-value. The test has no sign: combine it with the mean errors.
        Identical errors give ``f = 0``, ``p = 1``; ``sum s_i^2 = 0`` with a
        non-zero difference gives ``f = inf``, ``p = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.pairwise import combined_5x2cv_f
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> f, p = combined_5x2cv_f(a, b)
    >>> f.round(4), p.round(4)
    (array([2.3306]), array([0.1814]))
    """
    return _ratio_test(*_combined_f_parts(a, b), _FisherF(10, 5), "greater")


def _combined_f_parts(a, b):
    """Numerator and denominator of the combined 5x2 cv F statistic."""
    p, s2_sum = _five_by_two(a, b)
    return _sum_columns(list(np.square(p))), 2 * s2_sum


#: Half-width of the band around the critical value where the decision computes p.
_BAND = 1e-6


def _combined_f_significant(a, b, alpha):
    """``combined_5x2cv_f(a, b)[1] < alpha``, the p-value computed only near the critical value.

    The upper tail of F(10, 5) decreases with the statistic, so ``p < alpha``
    exactly when ``f`` exceeds the critical value ``c`` (``sf(c) = alpha``).
    Outside ``[c (1 - 1e-6), c (1 + 1e-6)]`` the true p-value is farther
    from ``alpha`` (relatively, about 1e-6 times the tail's elasticity) than
    the few units in the last place by which the computed one and ``c``
    can be off, so ``f > c`` decides; inside, the p-value is computed as
    :func:`combined_5x2cv_f` does (``_FisherF.sf`` works value by value:
    the same floats on a subset).  ``0/0`` (p-value 1) is never significant.
    """
    statistic, undefined = _ratio(*_combined_f_parts(a, b))
    critical = special.fdtri(10, 5, 1 - alpha)
    if not (np.isfinite(critical) and critical > 0):
        pvalue = np.where(undefined, 1.0, _FisherF(10, 5).sf(statistic))
        return pvalue < alpha
    significant = statistic > critical * (1 + _BAND)
    near = np.flatnonzero(statistic >= critical * (1 - _BAND))
    near = near[(statistic[near] <= critical * (1 + _BAND)) & ~undefined[near]]
    significant[near] = _FisherF(10, 5).sf(statistic[near]) < alpha
    return significant


@register_test("5x2cv-t", vectorized=True, requires_5x2=True)
def paired_5x2cv_t(a, b, alternative="two-sided"):
    """5x2 cv paired t test (Dietterich 1998); t with 5 df.

    Parameters
    ----------
    a, b : ndarray, shape (n, 10)
        Per-fold errors of the cheaper and the costlier algorithm, 5x2 cv,
        replication-major.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``t = p_1^(1) / sqrt(sum_i s_i^2 / 5)``: the numerator is the first fold
        of the first replication only. ``0/0`` gives ``t = 0``, ``p = 1``;
        ``x/0`` gives ``t = +-inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.pairwise import paired_5x2cv_t
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> t, p = paired_5x2cv_t(a, b)
    >>> t.round(4), p.round(4)
    (array([0.5662]), array([0.5957]))
    """
    p, s2_sum = _five_by_two(a, b)
    scale = np.sqrt(s2_sum / 5)
    return _ratio_test(p[0], scale, _StudentT(5), alternative)


@register_test("combined-5x2cv-t", vectorized=True, requires_5x2=True)
def combined_5x2cv_t(a, b, alternative="two-sided"):
    """Combined 5x2 cv t test (all ten differences); t with 5 df.

    Parameters
    ----------
    a, b : ndarray, shape (n, 10)
        Per-fold errors of the cheaper and the costlier algorithm, 5x2 cv,
        replication-major.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``t = sqrt(10) * mean(p) / sqrt(sum_i s_i^2 / 5)``. ``0/0`` gives
        ``t = 0``, ``p = 1``; ``x/0`` gives ``t = +-inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.pairwise import combined_5x2cv_t
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> t, p = combined_5x2cv_t(a, b)
    >>> t.round(4), p.round(4)
    (array([3.6349]), array([0.015]))
    """
    p, s2_sum = _five_by_two(a, b)
    numerator = np.sqrt(10) * (_sum_columns(list(p)) / 10)
    scale = np.sqrt(s2_sum / 5)
    return _ratio_test(numerator, scale, _StudentT(5), alternative)


@register_test("kfold-t", vectorized=True)
def kfold_t(a, b, alternative="two-sided"):
    """Paired t test over all folds (k-fold cv paired t); t with F - 1 df.

    Parameters
    ----------
    a, b : ndarray, shape (n, F)
        Per-fold errors of the cheaper and the costlier algorithm, ``F >= 2``.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``t = sqrt(F) * mean(d) / s_d`` as :func:`scipy.stats.ttest_rel`, which
        ignores that the folds of repeated cv overlap. Identical errors give
        ``t = 0``, ``p = 1``; a constant non-zero difference ``t = +-inf``.

    Raises
    ------
    MultitestError
        If there are fewer than two folds.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.pairwise import kfold_t
    >>> a = np.array([[0.20, 0.22, 0.25, 0.21, 0.24]])
    >>> b = np.array([[0.18, 0.20, 0.22, 0.20, 0.21]])
    >>> t, p = kfold_t(a, b, alternative="greater")
    >>> t.round(4), p.round(4)
    (array([5.8797]), array([0.0021]))
    """
    folds = _require_folds(a, 2, "kfold-t")
    d = a - b
    scale = np.sqrt(_variance(d) / folds)
    return _ratio_test(_row_mean(d), scale, _StudentT(folds - 1), alternative)


@register_test("corrected-t", vectorized=True)
def corrected_t(a, b, design, alternative="two-sided"):
    """Corrected resampled t test (Nadeau & Bengio 2003); t with J - 1 df.

    Parameters
    ----------
    a, b : ndarray, shape (n, J)
        Per-fold errors of the cheaper and the costlier algorithm, ``J`` splits.
    design : FoldDesign
        ``r`` replications of ``k`` folds, ``J = r k >= 2``. The correction uses
        ``design.test_train_ratio`` when set (random subsampling, e.g. ``r = 10``
        splits of ``k = 1`` with ratio 1/9), otherwise ``1/(k - 1)``, which
        needs ``k >= 2``.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``t = mean(d) / sqrt((1/J + n_test/n_train) s_d^2)``. Identical errors
        give ``t = 0``, ``p = 1``; a constant non-zero difference ``t = +-inf``.

    Raises
    ------
    MultitestError
        If ``J < 2``, or ``k < 2`` without a test/train ratio.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.pairwise import FoldDesign, corrected_t
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> t, p = corrected_t(a, b, FoldDesign(5, 2))
    >>> t.round(4), p.round(4)
    (array([1.0349]), array([0.3277]))
    >>> t, p = corrected_t(a, b, FoldDesign(10, 1, test_train_ratio="1/9"))
    >>> t.round(4), p.round(4)
    (array([2.3623]), array([0.0424]))
    """
    ratio = design.test_train_ratio
    if ratio is None:
        if design.folds < 2:
            raise MultitestError(
                f"pairwise test 'corrected-t' needs at least 2 folds per replication, or "
                f"a test/train ratio (test_train_ratio, --test-train-ratio) for random "
                f"subsampling; the design is {design}"
            )
        ratio = 1 / (design.folds - 1)
    folds = _require_folds(a, 2, "corrected-t")
    d = a - b
    scale = np.sqrt((1 / folds + ratio) * _variance(d))
    return _ratio_test(_row_mean(d), scale, _StudentT(folds - 1), alternative)


def _require_folds(a, minimum, name):
    if a.shape[1] < minimum:
        raise MultitestError(
            f"pairwise test '{name}' needs at least {minimum} folds; got {a.shape[1]}"
        )
    return a.shape[1]


@register_test("wilcoxon", vectorized=True)
def wilcoxon_signed_rank(a, b, alternative="two-sided"):
    """Wilcoxon signed-rank test on the folds, exact conditional (zeros dropped).

    The exact distribution of the signed-rank statistic given the observed
    mid-ranks, zero differences dropped before ranking, for up to 1000
    non-zero folds, normal approximation beyond; see
    :mod:`multitest.signed_rank`. Equal to R's
    ``exactRankTests::wilcox.exact`` and ``coin::wilcoxsign_test(distribution =
    "exact", zero.method = "Wilcoxon")``.

    Parameters
    ----------
    a, b : ndarray, shape (n, F)
        Per-fold errors of the cheaper and the costlier algorithm.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        ``min(R+, R-)`` for the two-sided test, ``R+`` (the rank sum of the
        folds where ``a > b``) for a one-sided one. Identical errors give
        statistic 0 and p-value 1.

    Examples
    --------
    Fourteen folds, five with a non-zero difference: the exact conditional
    p-value is ``2 / 2**5`` (scipy's normal approximation gives 0.0431).

    >>> import numpy as np
    >>> from multitest.pairwise import wilcoxon_signed_rank
    >>> d = np.array([[.01, .02, .03, .04, .05] + [0] * 9])
    >>> wilcoxon_signed_rank(d, np.zeros_like(d))
    (array([0.]), array([0.0625]))
    """
    return _exact_signed_rank(a - b, alternative, "wilcox")


@register_test("wilcoxon-pratt", vectorized=True)
def wilcoxon_pratt(a, b, alternative="two-sided"):
    """Wilcoxon signed-rank test on the folds, exact conditional, Pratt's zeros.

    As :func:`wilcoxon_signed_rank`, except that zero differences are ranked
    with the others and then dropped (Pratt 1959; R's
    ``coin::wilcoxsign_test(zero.method = "Pratt")``).
    """
    return _exact_signed_rank(a - b, alternative, "pratt")


def _exact_signed_rank(d, alternative, zero_method):
    r_plus, r_minus, pvalue = signed_rank_test(d, alternative, zero_method)
    return (np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus), pvalue


@register_test("wilcoxon-scipy", vectorized=True)
def wilcoxon_scipy(a, b, alternative="two-sided"):
    """Wilcoxon signed-rank test on the folds, as scipy.stats.wilcoxon.

    The result equals ``scipy.stats.wilcoxon(a[i], b[i], alternative=...)``
    with its defaults (SciPy >= 1.15): zero differences are dropped
    (``zero_method='wilcox'``); with ``F <= 50`` folds and neither zeros nor
    ties the exact null distribution is used; with zeros or ties and
    ``F <= 13`` the exact sign-flip permutation distribution; otherwise the
    normal approximation with the tie correction and no continuity correction.

    Parameters
    ----------
    a, b : ndarray, shape (n, F)
        Per-fold errors of the cheaper and the costlier algorithm.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm has the lower error.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        As SciPy: ``min(R+, R-)`` for the two-sided test, ``R+`` (the rank
        sum of the folds where ``a > b``) for a one-sided one. Identical
        errors give statistic 0 and p-value 1.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.pairwise import wilcoxon_scipy
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, -.012, .025, .035, .045]])
    >>> w, p = wilcoxon_scipy(a, b)
    >>> w, p.round(4)
    (array([4.]), array([0.0137]))
    """
    d = a - b
    ranks, tie_term = _signed_ranks(d)
    count = np.count_nonzero(d, axis=1)
    r_plus = np.sum(np.where(d > 0, ranks, 0.0), axis=1)
    r_minus = np.sum(np.where(d < 0, ranks, 0.0), axis=1)

    exact = (tie_term == 0) & (count == d.shape[1]) & (d.shape[1] <= 50)
    flips = ~exact & (d.shape[1] <= 13)
    normal = ~exact & ~flips
    pvalue = np.empty(d.shape[0])
    if exact.any():
        null = _SignedRankNull(count[exact])
        pvalue[exact] = _get_pvalue(r_plus[exact], null, alternative)
    if flips.any():
        null = _SignFlipNull(ranks[flips])
        pvalue[flips] = _get_pvalue(r_plus[flips], null, alternative)
    if normal.any():
        pvalue[normal] = _wilcoxon_normal(r_plus[normal], count[normal],
                                          tie_term[normal], alternative)
    statistic = np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus
    return statistic, pvalue


def _signed_ranks(d):
    """Average ranks of ``|d|`` among the non-zero entries (0 for zeros), and ties.

    Returns ``ranks`` of shape (n, F) and, per row, ``sum(t^3 - t)`` over the
    groups of ``t`` equal non-zero ``|d|`` (positive if and only if there are ties).
    """
    x = np.where(d == 0, np.inf, np.abs(d))  # zeros sort last: excluded from ranks
    order = np.argsort(x, axis=1, kind="stable")
    xs = np.take_along_axis(x, order, axis=1)
    n, folds = x.shape
    first = np.ones((n, folds), dtype=bool)
    first[:, 1:] = xs[:, 1:] != xs[:, :-1]
    starts = np.flatnonzero(first)  # groups of equal values, never across rows
    counts = np.diff(np.append(starts, n * folds))
    group_rank = starts % folds + 1 + (counts - 1) / 2
    sorted_ranks = np.repeat(group_rank, counts).reshape(n, folds)
    ranks = np.empty_like(sorted_ranks)
    np.put_along_axis(ranks, order, sorted_ranks, axis=1)
    ranks[d == 0] = 0.0
    t = np.where(np.isfinite(xs.ravel()[starts]), counts, 0).astype(float)
    tie_term = np.bincount(starts // folds, weights=t**3 - t, minlength=n)
    return ranks, tie_term


def _wilcoxon_normal(r_plus, count, tie_term, alternative):
    mean = count * (count + 1) / 4
    se = np.sqrt((count * (count + 1) * (2 * count + 1) - tie_term / 2) / 24)
    return _ratio_test(r_plus - mean, se, _StandardNormal, alternative)[1]


@functools.lru_cache(maxsize=None)
def _signed_rank_counts(n):
    """Cumulative counts of subsets of {1..n} by sum (exact null of R+), and 2**n."""
    counts = np.zeros(n * (n + 1) // 2 + 1, dtype=np.int64)
    counts[0] = 1
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[:-k].copy()
    return np.cumsum(counts), 2**n


class _SignedRankNull:
    """Exact null distribution of R+ for ``count`` non-zero, untied differences."""

    def __init__(self, count):
        self.count = count

    def _tail(self, k, upper):
        out = np.empty(k.shape)
        for n in np.unique(self.count):
            rows = self.count == n
            cumulative, total = _signed_rank_counts(int(n))
            kk = np.rint(k[rows]).astype(np.int64)
            if upper:  # P(R+ >= k) = 1 - P(R+ <= k - 1)
                below = np.where(kk > 0, cumulative[np.clip(kk - 1, 0, None)], 0)
                out[rows] = (total - below) / total
            else:
                out[rows] = cumulative[np.clip(kk, 0, cumulative.size - 1)] / total
        return out

    def cdf(self, k):
        return self._tail(k, upper=False)

    def sf(self, k):
        return self._tail(k, upper=True)


class _SignFlipNull:
    """Null of R+ over all 2**F sign flips of the given (tied, zero) ranks.

    Comparisons use SciPy's ``permutation_test`` tolerance (100 eps relative).
    """

    _CHUNK = 256

    def __init__(self, ranks):
        self.ranks = ranks
        folds = ranks.shape[1]
        self.signs = (np.arange(2**folds)[:, None] >> np.arange(folds)) & 1

    def _fraction(self, observed, upper):
        out = np.empty(observed.shape)
        gamma = np.abs(100 * np.finfo(float).eps * observed)
        for start in range(0, observed.size, self._CHUNK):
            rows = slice(start, start + self._CHUNK)
            null = self.ranks[rows] @ self.signs.T
            obs, tol = observed[rows, None], gamma[rows, None]
            hits = null >= obs - tol if upper else null <= obs + tol
            out[rows] = hits.mean(axis=1)
        return out

    def cdf(self, observed):
        return self._fraction(observed, upper=False)

    def sf(self, observed):
        return self._fraction(observed, upper=True)


@register_test("sign", vectorized=True)
def sign_test(a, b, alternative="two-sided"):
    """Sign test on the folds (ties dropped); binomial, as scipy.stats.binomtest.

    Parameters
    ----------
    a, b : ndarray, shape (n, F)
        Per-fold errors of the cheaper and the costlier algorithm.
    alternative : {'two-sided', 'less', 'greater'}
        ``'greater'``: the costlier algorithm wins on more folds.

    Returns
    -------
    statistic, pvalue : ndarray, shape (n,)
        The number ``k`` of folds on which the costlier algorithm has the lower
        error (``a - b > 0``) and the p-value of
        ``binomtest(k, m, 0.5, alternative)``, ``m`` the number of folds with
        a non-zero difference: tied folds are dropped. All folds tied gives
        statistic 0 and p-value 1.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.pairwise import sign_test
    >>> a = np.array([[.20, .22, .21, .25, .19, .23, .22, .20, .24, .21]])
    >>> b = a - np.array([[.01, .03, -.005, .02, .04, .015, 0, .025, .035, .045]])
    >>> k, p = sign_test(a, b)
    >>> k, p.round(4)
    (array([8.]), array([0.0391]))
    """
    d = a - b
    wins = np.count_nonzero(d > 0, axis=1).astype(float)
    trials = np.count_nonzero(d, axis=1)
    pvalue = _get_pvalue(wins, _HalfBinomial(trials), alternative)
    return wins, np.where(trials == 0, 1.0, pvalue)


class _HalfBinomial:
    """Binomial(n, 1/2) with ``sf(k) = P(X >= k)``."""

    def __init__(self, trials):
        self.trials = trials

    def cdf(self, k):
        from scipy import stats   # imported when first needed (slow to import)

        return stats.binom.cdf(k, self.trials, 0.5)

    def sf(self, k):
        from scipy import stats

        return stats.binom.sf(k - 1, self.trials, 0.5)


#: Built-in tests whose first step is ``d = a - b`` and which never look at
#: ``a`` or ``b`` otherwise (see :attr:`PairwiseTest._difference_only`).
_DIFFERENCE_ONLY = frozenset({combined_5x2cv_f, paired_5x2cv_t, combined_5x2cv_t, kfold_t,
                              corrected_t, wilcoxon_signed_rank, wilcoxon_pratt,
                              wilcoxon_scipy, sign_test})

#: Built-in tests reading the folds as rows (see :attr:`PairwiseTest._fold_major`).
_FOLD_MAJOR = frozenset({combined_5x2cv_f, paired_5x2cv_t, combined_5x2cv_t})

#: Built-in tests deciding ``p < alpha`` faster (see :attr:`PairwiseTest._decision`).
_DECISIONS = {combined_5x2cv_f: _combined_f_significant}

#: Built-in tests made of NumPy and scipy.special calls only (see
#: :attr:`PairwiseTest._thread_safe`).
_THREAD_SAFE = frozenset({combined_5x2cv_f, paired_5x2cv_t, combined_5x2cv_t, kfold_t,
                          corrected_t})

# The Bayesian correlated t-test lives in its own module; registered here like the others.
from multitest import bayesian as _bayesian  # noqa: E402  (needs the registry above)

register_test("bayes-correlated-t", vectorized=True)(_bayesian.bayes_correlated_t)
