"""The second-pass methods of Multi²Test: one table, one entry per method.

Each :class:`SecondPassMethod` says how its post-hoc test runs over the data sets, how it
orients a pair (which of two algorithms is better), whether it takes a family-wise
correction, whether it is Bayesian, and the words the outputs use for it.  The second pass
(:func:`multitest.engine.second_pass`), the stability bootstrap, the
explanations, the figures and the report ask the entry; no other module compares method
names.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .._errors import MultitestError
from ..stats._bayesian_signed_rank import bayesian_posthoc
from ..stats._nemenyi import critical_difference, nemenyi
from ..stats._over_datasets import paired_intervals, pairwise_over_datasets

__all__ = ["SecondPassMethod", "get_second_pass_method"]


@dataclass(frozen=True)
class SecondPassMethod:
    """A post-hoc test over data sets, as the second pass uses it.

    Parameters
    ----------
    name : str
        The value of ``second_pass`` (``--second-pass``).
    description : str
        One line for the documentation and the command line.
    caption : str
        What the critical-difference diagram calls the test.
    title : str
        Title of the report's section on the post-hoc test.
    better_words : str
        How an explanation says that an algorithm overrides a cheaper one.
    evidence : str
        What an explanation calls the number of a pair (``'p'``: a p-value).
    posthoc : callable
        ``posthoc(ranks, mean_errors, *, alpha, correction, bayes)``: the
        :class:`~multitest.stats.PosthocResult` of every pair, from
        the ``(S, L)`` ranks and mean errors.
    better : callable
        ``better(average_positions, mean_errors, posthoc)``: ``(L, L)`` booleans,
        ``[a, b]`` true when ``a`` is better than ``b`` by the method's
        criterion (``posthoc`` is None when the test was not applied).
    decision : callable or None
        ``decision(ranks, mean_errors, *, alpha, correction)``: the
        ``significant`` matrix of ``posthoc`` without its p-values (the same
        decisions, faster), for the stability bootstrap; None: ``posthoc``.
    takes_correction : bool
        The p-values are corrected for the family of pairs
        (``posthoc_correction``); otherwise the correction is ``'none'``.
    bayesian : bool
        Decides by posterior probabilities with the run's ROPE and
        threshold; not gated by the Friedman test.
    rank_based : bool
        Compares average ranks (Nemenyi's critical difference); otherwise the
        per-data-set mean errors.
    handles_missing : bool
        Works on an incomplete table (``missing='partial'``): each pair is
        compared over the data sets where both algorithms ran.
    interval : callable or None
        ``interval(d, alpha=alpha)``: the shifts of the differences of mean errors
        ``d`` (pairs, S) the test does not reject at each pair's ``alpha``
        (:func:`multitest.stats.paired_intervals`); None: the method's decision
        is not a test of those differences (Nemenyi's average positions, the
        Bayesian posterior), and it gives no interval of them.

    Examples
    --------
    >>> from multitest.engine import get_second_pass_method
    >>> method = get_second_pass_method("nemenyi")
    >>> method.rank_based, method.handles_missing
    (True, False)
    """

    name: str
    description: str
    caption: str
    title: str
    better_words: str
    posthoc: Callable
    better: Callable
    decision: Callable | None = None
    takes_correction: bool = False
    bayesian: bool = False
    rank_based: bool = False
    evidence: str = "p"
    handles_missing: bool = False
    interval: Callable | None = None


# -- how each method runs --------------------------------------------------------------

def _nemenyi(ranks, mean_errors, *, alpha, correction, bayes):
    return nemenyi(ranks, alpha=alpha)


#: The critical difference depends on L, S and alpha alone: once per bootstrap.
_critical_difference = functools.lru_cache(maxsize=64)(critical_difference)


def _nemenyi_decision(ranks, mean_errors, *, alpha, correction):
    """``|R_a - R_b| >= CD``: :func:`~multitest.stats.nemenyi`'s decisions."""
    n_datasets, n_algorithms = ranks.shape
    average = ranks.sum(axis=0) / n_datasets
    cd = _critical_difference(n_algorithms, n_datasets, alpha)
    return np.abs(average[:, None] - average[None, :]) >= cd


def _over_datasets(ranks, mean_errors, *, alpha, correction, bayes, method):
    return pairwise_over_datasets(mean_errors, method=method, correction=correction,
                                  alpha=alpha)


def _bayesian(ranks, mean_errors, *, alpha, correction, bayes):
    return bayesian_posthoc(mean_errors, bayes, alpha)


def _lower_average_position(average_positions, mean_errors, posthoc):
    return average_positions[:, None] < average_positions[None, :]


def _lower_median_difference(average_positions, mean_errors, posthoc):
    """The direction of a paired test over data sets: the median difference of mean
    errors, the mean difference when the median is zero."""
    # Row by row, so that no (S, L, L) array is ever held.
    # NaN (missing='partial'): over the data sets where both ran.
    mean_errors = np.asarray(mean_errors, dtype=float)
    incomplete = bool(np.isnan(mean_errors).any())
    median_of, mean_of = (np.nanmedian, np.nanmean) if incomplete else (np.median, np.mean)
    better = np.zeros((mean_errors.shape[1],) * 2, dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a pair that never met: not better
        for a in range(mean_errors.shape[1]):
            differences = mean_errors[:, [a]] - mean_errors
            median = median_of(differences, axis=0)
            better[a] = np.where(median != 0, median, mean_of(differences, axis=0)) < 0
    return better


def _more_probably_better(average_positions, mean_errors, posthoc):
    return posthoc.better > posthoc.better.T


def _paired(name, description, caption=None):
    """A paired test of the mean errors over data sets (Wilcoxon or sign)."""
    return SecondPassMethod(
        name=name, description=description, caption=caption or name,
        title=f"Post-hoc stage ({name})",
        better_words=f"significantly better ({name} test over data sets)",
        posthoc=functools.partial(_over_datasets, method=name),
        better=_lower_median_difference, takes_correction=True, handles_missing=True,
        interval=functools.partial(paired_intervals, method=name))


_METHODS = (
    SecondPassMethod(
        name="nemenyi", description="Nemenyi test: average positions differing by at least the "
        "critical difference", caption="Nemenyi test", title="Nemenyi stage",
        better_words="significantly better on average position", posthoc=_nemenyi,
        better=_lower_average_position, decision=_nemenyi_decision, rank_based=True),
    _paired("wilcoxon", "Wilcoxon signed-rank test of the mean errors (exact conditional, "
            "zeros dropped)", caption="Wilcoxon signed-rank test over data sets"),
    _paired("wilcoxon-pratt", "Wilcoxon signed-rank test of the mean errors with Pratt's "
            "zeros"),
    _paired("wilcoxon-scipy", "Wilcoxon signed-rank test of the mean errors with "
            "scipy.stats.wilcoxon's conventions"),
    _paired("sign", "sign test of the mean errors", caption="sign test over data sets"),
    SecondPassMethod(
        name="bayesian", description="Bayesian signed-rank test of the mean errors (ROPE, "
        "threshold); not gated by the Friedman test", caption="Bayesian signed-rank test",
        title="Post-hoc stage (bayesian)",
        better_words="practically better (bayesian signed-rank test over data sets)",
        posthoc=_bayesian, better=_more_probably_better, bayesian=True,
        evidence="1 - P(practically better)"),
)

#: Every second-pass method by name, in the order the command line lists them.
SECOND_PASS_METHODS = MappingProxyType({method.name: method for method in _METHODS})


def get_second_pass_method(name):
    """The :class:`SecondPassMethod` called ``name``.

    Raises
    ------
    MultitestError
        If there is none (the one-line message lists the valid names).

    Examples
    --------
    >>> from multitest.engine import get_second_pass_method
    >>> method = get_second_pass_method("wilcoxon")
    >>> method.takes_correction, method.bayesian, method.rank_based
    (True, False, False)
    """
    if isinstance(name, str) and name in SECOND_PASS_METHODS:
        return SECOND_PASS_METHODS[name]
    raise MultitestError(f"`second_pass` must be one of {', '.join(SECOND_PASS_METHODS)}, "
                         f"got {name!r}")


def check_handles_missing(method):
    """Refuse a method that needs every algorithm on every data set (``missing='partial'``).

    Raises
    ------
    MultitestError
        One line naming the methods that compare over the data sets where both ran.
    """
    if not method.handles_missing:
        users = [n for n, m in SECOND_PASS_METHODS.items() if m.handles_missing]
        raise MultitestError(f"`second_pass`: {method.name} is refused with missing='partial' "
                             "(it needs every algorithm on every data set); use "
                             f"{', '.join(users)} (over the data sets where both ran)")
