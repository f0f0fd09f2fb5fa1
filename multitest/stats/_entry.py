"""A pairwise test as the registry knows it: the function and what it can do.

:class:`PairwiseTest` wraps a test function, checks its inputs and outputs and calls it on
many pairs; :class:`TestFailure` is what an exception inside a user's test becomes.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .._errors import MultitestError
from ..inputs._design import FoldDesign

__all__ = ["PairwiseTest"]

#: Every alternative a pairwise test may offer (``'two-sided'`` always).
_ALTERNATIVES = ("two-sided", "less", "greater")

#: :attr:`PairwiseTest.evidence` of a classical test: its second number is a p-value.
_P_VALUE = "p-value"


# --------------------------------------------------------------------------
# Fold design and the test wrapper
# --------------------------------------------------------------------------


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
    alternatives : tuple of str
        The alternatives ``func`` computes (a subset of ``('two-sided', 'less', 'greater')``,
        ``'two-sided'`` first); more than ``'two-sided'`` only when ``func``
        takes an ``alternative`` keyword.
    difference_only : bool
        ``func`` sees the errors only through ``a - b`` (the built-in tests):
        stage 1 then passes the differences as ``a`` and zeros as ``b``, the
        same numbers (``d - 0 == d``) with half the copying; such a test is
        deterministic, so its rows can be recomputed bit for bit.
    fold_major : bool
        ``func`` reads the folds as rows (the 5x2 cv tests): stage 1 lays its
        differences out fold-major (``a.T`` contiguous); the same numbers.
    all_pairs_decision : callable or None
        ``all_pairs_decision(x, alpha, rows, lower)``: the decisions
        ``p < alpha`` of ``func`` for every pair ``i < j`` of the algorithms of ``x``
        (shape (n, L, F)) at once, exactly, those with ``lower[j] < lower[i]``
        only (stage 1's decisions-only path; see
        :func:`multitest.stats.combined_f_significant_all_pairs`).
    interval : callable or None
        ``interval(a, b, design, level, alternative) -> FoldInterval``: the
        shifts of ``a - b`` the test does not reject at ``1 - level``, from the
        test's own statistic and design (:class:`multitest.stats.FoldInterval`),
        so that it excludes 0 exactly when the test rejects; for a Bayesian
        test the central credible interval.  None: the test has no honest
        interval (figures then show its statistic and p-value).
    bayesian : bool
        The test decides by a posterior probability and a threshold, not by a
        p-value and ``alpha``: stage 1 runs it with the run's ROPE and
        threshold (:mod:`multitest.stats._bayesian`).
    evidence : str
        What the second number ``func`` returns (the ``pvalue`` column of
        the outputs) holds: ``'p-value'``, or for a Bayesian test
        ``'1 - P(costlier practically better)'``.

    The capabilities after ``description`` are set by the registry for the
    built-in tests; a user's test gets the safe defaults (none of them, no
    interval, its alternatives read from its signature).

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats import get_test
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
    alternatives: tuple = ("two-sided",)
    difference_only: bool = False
    fold_major: bool = False
    all_pairs_decision: Callable | None = None
    interval: Callable | None = None
    bayesian: bool = False
    evidence: str = _P_VALUE

    def better_words(self, threshold=None):
        """What an override says of the costlier algorithm, in words: ``'significantly more
        accurate'``, or for a Bayesian test ``'practically more accurate with probability
        >= 0.95'`` (its ``threshold``; None: not said).

        Examples
        --------
        >>> from multitest.stats import get_test
        >>> get_test("kfold-t").better_words(0.95)
        'significantly more accurate'
        >>> get_test("bayes-correlated-t").better_words(0.9)
        'practically more accurate with probability >= 0.9'
        """
        if not self.bayesian:
            return "significantly more accurate"
        return "practically more accurate" + (
            "" if threshold is None else f" with probability >= {threshold:g}")

    def __post_init__(self):
        if self.interval is not None and not callable(self.interval):
            raise MultitestError(f"pairwise test '{self.name}': `interval` must be a function "
                                 f"or None, got {self.interval!r}")
        if self.alternatives[:1] != ("two-sided",) or not set(self.alternatives) <= set(
                _ALTERNATIVES):
            raise MultitestError(f"pairwise test '{self.name}': `alternatives` must start with "
                                 f"'two-sided' and hold only {', '.join(_ALTERNATIVES)}; got "
                                 f"{self.alternatives!r}")

    @classmethod
    def from_function(cls, func, name=None, *, vectorized=None, requires_5x2=None,
                      description=None):
        """Wrap a function, reading unset flags from its attributes.

        ``vectorized`` and ``requires_5x2`` default to the function's attributes
        of the same name (``False`` when absent); ``description`` defaults to
        the first line of its docstring; ``alternatives`` are all three when
        the function has an ``alternative`` parameter, else ``'two-sided'``.
        The other capabilities get their safe defaults.
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
            alternatives=(_ALTERNATIVES if _has_parameter(func, "alternative")
                          else _ALTERNATIVES[:1]),
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
        return self._check_output(out, a.shape[0], a, b)

    def _call_unchecked(self, a, b, design, alternative="two-sided"):
        """:meth:`__call__` for arrays already known to be finite floats of shape (n, F).

        Stage 1 calls the test on millions of pairs built from validated
        results; this skips only the input checks, never the output checks.
        """
        self._check_design(design)
        kwargs = self._kwargs(design, alternative)
        out = self._run(a, b, kwargs)
        return self._check_output(out, a.shape[0], a, b)

    def _run(self, a, b, kwargs):
        """Call the function; an exception it raises becomes a :class:`TestFailure`."""
        if not self.vectorized:
            return _loop(self.func, a, b, kwargs, self.name)
        try:
            return self.func(a, b, **kwargs)
        except MultitestError:
            raise
        except (Exception, SystemExit) as exc:   # anything a user's code may raise
            raise TestFailure(self.name, exc, *_failing_pair(self.func, a, b, kwargs)) \
                from exc

    @property
    def uses_design(self):
        """Whether ``func`` takes the :class:`FoldDesign` (and so a test/train ratio)."""
        return _has_parameter(self.func, "design")

    @property
    def supports_one_sided(self):
        """Whether ``func`` computes one-sided alternatives (see :attr:`alternatives`)."""
        return len(self.alternatives) > 1

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
            if alternative not in self.alternatives:
                raise MultitestError(
                    f"pairwise test '{self.name}' has no one-sided version (its function "
                    f"takes no `alternative` argument); use alternative='two-sided'"
                )
            kwargs["alternative"] = alternative
        return kwargs

    def _check_output(self, out, n, a, b):
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
        _check_values(self.name, "a NaN statistic", np.isnan(statistic), a, b)
        _check_values(self.name, "a NaN p-value", np.isnan(pvalue), a, b)
        _check_values(self.name, "a p-value outside [0, 1]", (pvalue < 0) | (pvalue > 1), a, b)
        return statistic, pvalue


def _check_values(name, what, bad, a, b):
    """A :class:`TestFailure` holding the folds of the first pair whose output is `bad`
    (named by its index here; by its data set and algorithms once located)."""
    if bad.any():
        where = np.flatnonzero(bad)
        raise TestFailure(name, None, a[where[0]].copy(), b[where[0]].copy(),
                          where=f" for pair {where[0]} ({where.size} of {bad.size} pairs)",
                          returned=what)


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

    def __init__(self, test, error, a=None, b=None, where="", returned=None):
        self.test, self.error, self.a, self.b = test, error, a, b
        self.returned = returned
        said = (f"failed{where}: {_one_line(error)}" if returned is None else
                f"returned {returned}{where}")
        super().__init__(f"pairwise test '{test}' {said}")

    def __reduce__(self):
        # Its words, for another process (a Dask worker's failure, located there): the
        # error it holds may not pickle, and the arguments are not the message.
        return MultitestError, (str(self),)

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
            return TestFailure(self.test, self.error, where=where, returned=self.returned)
        return self


def _failing_pair(func, a, b, kwargs, limit=1000):
    """The folds of the first pair a vectorized test fails on alone (or nothing)."""
    for i in range(min(limit, a.shape[0])):
        try:
            func(a[i:i + 1], b[i:i + 1], **kwargs)
        except (Exception, SystemExit):   # the failure being located
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
        except (Exception, SystemExit) as exc:   # anything a user's code may raise
            raise TestFailure(name, exc, a[i].copy(), b[i].copy()) from exc
        s, p = _unpack(out, name)
        try:
            statistic[i], pvalue[i] = float(s), float(p)
        except (TypeError, ValueError):
            raise TestFailure(name, None, a[i].copy(), b[i].copy(), where=f" for pair {i}",
                              returned=f"({_shown(s)}, {_shown(p)}), not two numbers"
                              ) from None
    return statistic, pvalue


def _shown(value, limit=40):
    """A value a test returned, in a message (at most `limit` characters)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


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


def _one_line(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
