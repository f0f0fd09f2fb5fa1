"""Post-hoc tests on average ranks: Nemenyi's test, its critical difference, control comparisons.

Stage 5 of Multi²Test (docs/method.md §5): after the Friedman test, the
Nemenyi test finds the pairs of algorithms whose average ranks differ by at
least the critical difference; docs/method.md §6 adds the comparisons of every
algorithm with a control (:func:`control_comparisons`, Demšar §3.2.2).

Conventions
-----------
- ``ranks`` is an ``(S, L)`` array: the rank of algorithm ``j`` on data set
  ``i``, 1 = best, average ranks for ties. ``S >= 2`` and ``L >= 2``.
- Pairwise results are symmetric ``(L, L)`` matrices: statistic 0, p-value 1
  and "not significant" on the diagonal.
- Nemenyi and Bonferroni--Dunn decide by the critical difference,
  ``|R_a - R_b| >= CD``; the step-wise control comparisons by
  ``adjusted p <= alpha``. The two agree up to rounding (a difference of
  exactly CD has p-value alpha).

References
----------
.. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data
   sets", JMLR 7:1-30, 2006.
.. [2] A. Benavoli, G. Corani and F. Mangili, "Should we really use post-hoc
   tests based on mean-ranks?", JMLR 17(5):1-10, 2016.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._errors import MultitestError
from ._corrections import adjust_pvalues
from ._distributions import _studentized_range_isf, _studentized_range_sf
from ._posthoc import PosthocResult, _readonly, _symmetric
from ._validation import _iv_choice, _iv_count, _iv_probability, _iv_ranks

__all__ = ["ControlResult", "control_comparisons", "critical_difference", "nemenyi"]


@dataclass(frozen=True, eq=False)
class ControlResult:
    """Comparisons of every algorithm with a control algorithm.

    Arrays have one entry per algorithm (length L) and are read-only; the
    control's own entry is ``statistic 0``, ``p-value 1`` and not significant.

    Attributes
    ----------
    control : int
        Index of the control algorithm (column of `ranks`).
    method : str
        ``"bonferroni-dunn"``, ``"holm"``, ``"hochberg"`` or ``"hommel"``.
    alpha : float
        Significance level of `significant`.
    statistic : numpy.ndarray
        ``z = (R_i - R_control) / sqrt(L (L+1) / (6 S))``; positive when
        algorithm ``i`` has a worse (higher) average rank than the control.
    raw_pvalues : numpy.ndarray
        Two-sided normal p-values of `statistic`.
    pvalues : numpy.ndarray
        p-values adjusted over the ``L - 1`` comparisons (Bonferroni--Dunn:
        ``min(1, (L - 1) p)``).
    significant : numpy.ndarray
        Bonferroni--Dunn: ``|R_i - R_control| >= critical_difference``;
        otherwise ``pvalues <= alpha``.
    critical_difference : float
        The Bonferroni--Dunn critical difference
        ``z_{1 - alpha / (2 (L - 1))} sqrt(L (L+1) / (6 S))``, whatever `method`.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats import control_comparisons
    >>> result = control_comparisons(np.array([[1, 2, 3, 4]] * 8 + [[2, 1, 4, 3]] * 4), control=0)
    >>> type(result).__name__, result.significant.tolist()
    ('ControlResult', [False, False, True, True])
    """

    control: int
    method: str
    alpha: float
    statistic: np.ndarray
    raw_pvalues: np.ndarray
    pvalues: np.ndarray
    significant: np.ndarray
    critical_difference: float


def _rank_standard_error(n_algorithms, n_datasets):
    """Standard error of a difference of two average ranks, sqrt(L(L+1)/(6S))."""
    return np.sqrt(n_algorithms * (n_algorithms + 1) / (6 * n_datasets))


def critical_difference(n_algorithms, n_datasets, alpha=0.05):
    """Nemenyi's critical difference of average ranks.

    Parameters
    ----------
    n_algorithms : int
        Number of algorithms L (at least 2).
    n_datasets : int
        Number of data sets S (at least 1).
    alpha : float, default: 0.05
        Significance level, in (0, 1).

    Returns
    -------
    float
        ``CD = q_alpha sqrt(L (L+1) / (6 S))`` with
        ``q_alpha = studentized_range.ppf(1 - alpha, L, inf) / sqrt(2)``.

    Raises
    ------
    MultitestError
        If a count is not an integer large enough or `alpha` is not in (0, 1).

    Notes
    -----
    The quantile is computed, so there is no table limit on L or alpha
    (Demšar's Table 5a stops at L = 10 and alpha in {0.05, 0.10}).

    Examples
    --------
    >>> from multitest.stats import critical_difference
    >>> round(critical_difference(8, 38), 4)  # q_0.05 = 3.031 for L = 8
    1.7032
    """
    n_algorithms = _iv_count(n_algorithms, "n_algorithms", 2)
    n_datasets = _iv_count(n_datasets, "n_datasets", 1)
    alpha = _iv_probability(alpha)
    q_alpha = _studentized_range_isf(alpha, n_algorithms) / np.sqrt(2)
    return float(q_alpha * _rank_standard_error(n_algorithms, n_datasets))


def nemenyi(ranks, alpha=0.05):
    """Nemenyi test: all pairs of algorithms by their average ranks.

    Parameters
    ----------
    ranks : array_like, shape (S, L)
        Rank of algorithm ``j`` on data set ``i`` (1 = best), ``S, L >= 2``.
    alpha : float, default: 0.05
        Significance level, in (0, 1).

    Returns
    -------
    PosthocResult
        ``method="nemenyi"``, ``correction="none"``; `statistic` holds
        ``q = |R_a - R_b| / sqrt(L (L+1) / (12 S))`` and `pvalues` its
        studentized-range upper tail (L means, infinite df); `significant` is
        ``|R_a - R_b| >= critical_difference``.

    Raises
    ------
    MultitestError
        If `ranks` or `alpha` is invalid.

    See Also
    --------
    critical_difference, pairwise_over_datasets

    Notes
    -----
    ``q`` is ``sqrt(2)`` times Demšar's ``|R_a - R_b| / sqrt(L (L+1) / (6 S))``,
    so a difference of exactly the critical difference has p-value alpha.
    The decision between two algorithms depends on the other algorithms in the
    pool through their ranks (Benavoli et al. 2016); see
    :func:`pairwise_over_datasets` for pool-independent tests.

    The p-values are those of ``scipy.stats.studentized_range.sf(q, L,
    np.inf)``, computed by a vectorized quadrature that is exact to about
    1e-15 (scipy's own integration is good to 1e-13, to a few 1e-12 within
    1e-10 of p = 1) and keeps its relative accuracy in the far tail, where
    scipy returns about 1e-16; a p-value below the smallest double is 0.
    L = 300 (44 850 pairs) takes about 0.05 s.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats import nemenyi
    >>> ranks = np.array([[1, 2, 3]] * 9 + [[2, 1, 3]])
    >>> res = nemenyi(ranks)
    >>> round(res.critical_difference, 3)
    1.048
    >>> res.significant
    array([[False, False,  True],
           [False, False,  True],
           [ True,  True, False]])
    """
    r = _iv_ranks(ranks)
    alpha = _iv_probability(alpha)
    n_datasets, n_algorithms = r.shape
    mean_ranks = r.sum(axis=0) / n_datasets
    a, b = np.triu_indices(n_algorithms, 1)
    difference = np.abs(mean_ranks[a] - mean_ranks[b])
    q = difference / (_rank_standard_error(n_algorithms, n_datasets) / np.sqrt(2))
    pvalues = _symmetric(_studentized_range_sf(q, n_algorithms), n_algorithms, 1.0)
    cd = critical_difference(n_algorithms, n_datasets, alpha)
    return PosthocResult(
        method="nemenyi",
        correction="none",
        alpha=alpha,
        statistic=_symmetric(q, n_algorithms, 0.0),
        pvalues=pvalues,
        raw_pvalues=pvalues,
        significant=_symmetric(difference >= cd, n_algorithms, False, dtype=bool),
        critical_difference=cd,
    )


_CONTROL_CORRECTIONS = {
    "bonferroni-dunn": "bonferroni",
    "holm": "holm",
    "hochberg": "hochberg",
    "hommel": "hommel",
}

CONTROL_METHODS = tuple(_CONTROL_CORRECTIONS)
"""Names accepted by :func:`control_comparisons`."""


def control_comparisons(ranks, control, method="bonferroni-dunn", alpha=0.05):
    """Compare every algorithm with a control by average ranks (Demšar §3.2.2).

    Parameters
    ----------
    ranks : array_like, shape (S, L)
        Rank of algorithm ``j`` on data set ``i`` (1 = best), ``S, L >= 2``.
    control : int
        Index of the control algorithm (a column of `ranks`; negative indices
        count from the end).
    method : {'bonferroni-dunn', 'holm', 'hochberg', 'hommel'}, default: 'bonferroni-dunn'
        How the ``L - 1`` two-sided normal p-values are adjusted: Bonferroni
        (``min(1, (L - 1) p)``) or a step-wise procedure of
        :func:`multitest.stats.adjust_pvalues`.
    alpha : float, default: 0.05
        Significance level, in (0, 1).

    Returns
    -------
    ControlResult
        For ``"bonferroni-dunn"`` `significant` is
        ``|R_i - R_control| >= critical_difference``; for the others
        ``adjusted p <= alpha``. The control's entry is z = 0, p = 1, not
        significant.

    Raises
    ------
    MultitestError
        If an argument is invalid.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats import control_comparisons
    >>> ranks = np.array([[1, 2, 3, 4]] * 8 + [[2, 1, 4, 3]] * 4)
    >>> res = control_comparisons(ranks, control=0)
    >>> round(res.critical_difference, 3)
    1.262
    >>> res.significant
    array([False, False,  True,  True])
    """
    r = _iv_ranks(ranks)
    n_datasets, n_algorithms = r.shape
    if isinstance(control, bool) or not isinstance(control, numbers.Integral):
        raise MultitestError(f"`control` must be an integer index; got {control!r}.")
    if not -n_algorithms <= control < n_algorithms:
        raise MultitestError(
            f"`control` must be in [{-n_algorithms}, {n_algorithms - 1}] for "
            f"{n_algorithms} algorithms; got {control}."
        )
    control = int(control) % n_algorithms
    correction = _CONTROL_CORRECTIONS[_iv_choice(method, "method", CONTROL_METHODS)]
    alpha = _iv_probability(alpha)

    se = _rank_standard_error(n_algorithms, n_datasets)
    mean_ranks = r.sum(axis=0) / n_datasets
    difference = mean_ranks - mean_ranks[control]
    z = difference / se
    raw = 2 * special.ndtr(-np.abs(z))
    others = np.arange(n_algorithms) != control
    adjusted = np.ones(n_algorithms)
    adjusted[others] = adjust_pvalues(raw[others], correction)
    raw[control] = 1.0
    cd = float(special.ndtri(1 - alpha / (2 * (n_algorithms - 1))) * se)
    if method == "bonferroni-dunn":
        significant = np.abs(difference) >= cd
    else:
        significant = adjusted <= alpha
    significant &= others
    return ControlResult(
        control=control,
        method=method,
        alpha=alpha,
        statistic=_readonly(z),
        raw_pvalues=_readonly(raw),
        pvalues=_readonly(adjusted),
        significant=_readonly(significant),
        critical_difference=cd,
    )
