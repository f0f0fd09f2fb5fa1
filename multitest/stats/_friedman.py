"""The Friedman test over data sets, with the Iman--Davenport refinement.

Stage 5 of Multi²Test (docs/method.md §5) compares L algorithms over S data
sets through their ranks: the Friedman test and its Iman--Davenport
refinement ask whether the algorithms differ at all. ``ranks`` is an
``(S, L)`` array: the rank of algorithm ``j`` on data set ``i``, 1 = best,
average ranks for ties; ``S >= 2`` and ``L >= 2``.

:func:`friedman_statistics` and :func:`rank_tie_terms` are the vectorized
pieces of :func:`friedman`, shared with the stability bootstrap.

References
----------
.. [1] J. Demšar, "Statistical comparisons of classifiers over multiple data
   sets", JMLR 7:1-30, 2006, §3.2.2.
.. [2] R. L. Iman and J. M. Davenport, "Approximations of the critical region
   of the Friedman statistic", Communications in Statistics A 9:571-595, 1980.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .._errors import MultitestError
from ._validation import _iv_choice, _iv_ranks

__all__ = ["FriedmanResult", "friedman"]


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman test on ranks, with the Iman--Davenport F statistic.

    Attributes
    ----------
    statistic : float
        Friedman's chi-square, tie-corrected or not according to `ties` (see
        :func:`friedman`).
    pvalue : float
        Upper tail of chi-square with `df` degrees of freedom.
    df : int
        ``L - 1``.
    iman_davenport_statistic : float
        ``F_F = (S - 1) chi2_F / (S (L - 1) - chi2_F)``; ``inf`` when every data
        set ranks the algorithms identically (``chi2_F = S (L - 1)``).
    iman_davenport_pvalue : float
        Upper tail of F with `iman_davenport_df` degrees of freedom (0 when the
        statistic is ``inf``).
    iman_davenport_df : tuple of int
        ``(L - 1, (L - 1) (S - 1))``.
    ties : str
        ``"corrected"`` (R's ``friedman.test``) or ``"uncorrected"`` (Demšar).
    all_tied : bool
        Every algorithm tied on every data set: both statistics 0, p-values 1.

    Examples
    --------
    >>> from multitest.stats import friedman
    >>> result = friedman([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]])
    >>> result.statistic, result.df
    (4.5, 2)
    """

    statistic: float
    pvalue: float
    df: int
    iman_davenport_statistic: float
    iman_davenport_pvalue: float
    iman_davenport_df: tuple[int, int]
    ties: str = "corrected"
    all_tied: bool = False


FRIEDMAN_TIES = ("corrected", "uncorrected")
"""Values of `ties` in :func:`friedman`: R's tie-corrected statistic or Demšar's."""


def friedman(ranks, ties="corrected"):
    """Friedman test and Iman--Davenport statistic from a rank matrix.

    Parameters
    ----------
    ranks : array_like, shape (S, L)
        Rank of algorithm ``j`` on data set ``i`` (1 = best; average ranks for
        ties), ``S >= 2``, ``L >= 2``.
    ties : {'corrected', 'uncorrected'}, default: 'corrected'
        ``"corrected"``: the statistic divided by the tie correction, equal to
        R's ``friedman.test``; ``"uncorrected"``: Demšar's (2006) formula from
        the average ranks alone (his printed numbers). Without ties both agree.

    Returns
    -------
    FriedmanResult

    Raises
    ------
    MultitestError
        If `ranks` is not an ``(S, L)`` matrix whose rows are rankings of ``L``
        algorithms, or `ties` is unknown.

    Notes
    -----
    With ``T_j`` the rank sum of algorithm ``j`` and ``t`` the sizes of the
    groups of equal ranks within each row (data set)::

        chi2_F = 12 sum_j (T_j - S (L+1)/2)^2 / (S L (L+1) - sum (t^3 - t) / (L - 1))
        F_F = (S - 1) chi2_F / (S (L - 1) - chi2_F)                ~ F(L - 1, (L-1)(S-1))

    ``chi2_F ~ chi2(L - 1)``; ``ties="uncorrected"`` drops the ``sum (t^3 - t)``
    term, which gives docs/method.md §5's ``12 S / (L (L+1)) [sum R_j^2 - L (L+1)^2 / 4]``.
    A data set on which every algorithm ties then still counts in ``S``, so it
    shrinks the statistic; corrected, it carries no information, as it should.
    Iman--Davenport is computed from the chosen ``chi2_F``. The arithmetic is
    exact for integer and half-integer ranks up to the final division.
    Degenerate cases, without warnings:

    - every data set ranks the algorithms the same way: ``chi2_F = S (L - 1)``,
      the Iman--Davenport denominator is 0, ``F_F = inf`` and its p-value 0;
    - all algorithms tied on every data set: no information at all; both
      statistics are 0 and both p-values 1 (``"corrected"`` would be 0/0),
      and :attr:`FriedmanResult.all_tied` is true.

    Examples
    --------
    >>> from multitest.stats import friedman
    >>> res = friedman([[1, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 3]])
    >>> float(res.statistic), res.df, res.iman_davenport_df
    (4.5, 2, (2, 6))
    >>> round(res.pvalue, 4), round(res.iman_davenport_pvalue, 4)
    (0.1054, 0.0837)
    >>> tied = [[1.5, 1.5, 3]] * 4 + [[2, 2, 2]] * 4
    >>> round(friedman(tied).statistic, 4), round(friedman(tied, "uncorrected").statistic, 4)
    (8.0, 3.0)
    """
    r = _iv_ranks(ranks)
    ties = _iv_choice(ties, "ties", FRIEDMAN_TIES)
    n_datasets, n_algorithms = r.shape
    all_ties = float(rank_tie_terms(r).sum())
    tie_term = all_ties if ties == "corrected" else 0.0
    statistic, id_statistic = (
        float(x[0]) for x in friedman_statistics(r.sum(axis=0)[None, :], n_datasets,
                                                  np.array([tie_term])))
    df = n_algorithms - 1
    id_df = (df, df * (n_datasets - 1))
    if np.isinf(id_statistic):
        id_pvalue = 0.0
    else:
        id_pvalue = float(special.fdtrc(*id_df, id_statistic))
    return FriedmanResult(
        statistic=statistic,
        pvalue=float(special.chdtrc(df, statistic)),
        df=df,
        iman_davenport_statistic=id_statistic,
        iman_davenport_pvalue=id_pvalue,
        iman_davenport_df=id_df,
        ties=ties,
        all_tied=bool(all_ties == n_datasets * (n_algorithms**3 - n_algorithms)),
    )


def rank_rows(values, rtol=0.0):
    """Rank each row of `values`, 1 = smallest, equal values sharing their average rank.

    The ranks of the mean errors of each data set (the Friedman test on errors,
    the average error rank); with ``rtol=0``, ``scipy.stats.rankdata(values,
    axis=1)`` without importing :mod:`scipy.stats`.

    Parameters
    ----------
    values : array_like, shape (S, L)
    rtol : float, default 0
        Neighbours in sorted order that differ by at most ``rtol`` times the
        larger magnitude count as equal: means of the same numbers summed in
        another order differ in the last bits (17.432 and 17.431999999999995).

    Returns
    -------
    ndarray of float, shape (S, L)

    Examples
    --------
    >>> from multitest.stats._friedman import rank_rows
    >>> rank_rows([[0.3, 0.1, 0.2], [0.2, 0.2, 0.1]])
    array([[3. , 1. , 2. ],
           [2.5, 2.5, 1. ]])
    >>> rank_rows([[17.432, 17.431999999999995, 1.0]], rtol=1e-12)
    array([[2.5, 2.5, 1. ]])
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 2:
        raise MultitestError(f"`values` must be a 2-d array (rows ranked), got shape {v.shape}")
    out = np.empty(v.shape)
    # Rows are independent: in blocks, so that the temporaries stay small (S = 200,000).
    step = max(1, _RANK_BLOCK_CELLS // max(1, v.shape[1]))
    for r0 in range(0, v.shape[0], step):
        out[r0:r0 + step] = _rank_block(v[r0:r0 + step], rtol)
    return out


#: Cells ranked at a time by :func:`rank_rows`.
_RANK_BLOCK_CELLS = 1 << 20


def _rank_block(v, rtol):
    n_rows, n_cols = v.shape
    # Equal values get the same average rank whatever their order: a stable sort (4x
    # slower on rows of floats) only where NaNs, each ranked apart, keep their order.
    order = np.argsort(v, axis=1, kind="stable" if np.isnan(v).any() else None)
    ordered = np.take_along_axis(v, order, axis=1)
    starts = np.ones((n_rows, n_cols), dtype=bool)
    low, high = ordered[:, :-1], ordered[:, 1:]
    with np.errstate(invalid="ignore"):
        close = (high - low <= rtol * np.maximum(np.abs(low), np.abs(high))) & np.isfinite(high)
    starts[:, 1:] = ~((high == low) | close)                # a group never spans two rows
    flat = starts.ravel()
    first = np.flatnonzero(flat)
    size = np.diff(np.append(first, flat.size))
    average = (first % n_cols) + (size + 1) / 2.0         # mean of ranks first+1..first+size
    out = np.empty((n_rows, n_cols))
    np.put_along_axis(out, order, average[np.cumsum(flat) - 1].reshape(n_rows, n_cols), axis=1)
    return out


def rank_tie_terms(ranks):
    """``sum (t^3 - t)`` over the groups of ``t`` equal ranks of each row.

    Parameters
    ----------
    ranks : ndarray, shape (S, L)
        One ranking per row (average ranks for ties).

    Returns
    -------
    ndarray, shape (S,)
        The tie term of each row, 0 for a row without ties.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._friedman import rank_tie_terms
    >>> rank_tie_terms(np.array([[1, 2, 3], [1.5, 1.5, 3], [2, 2, 2]]))
    array([ 0.,  6., 24.])
    """
    ranks = np.asarray(ranks)
    out = np.empty(ranks.shape[0])
    # Rows are independent: in blocks, as rank_rows, so that the sorted copy and the group
    # sizes stay small (S = 200,000); each row's sum adds the same terms in the same order.
    step = max(1, _RANK_BLOCK_CELLS // max(1, ranks.shape[1]))
    for r0 in range(0, ranks.shape[0], step):
        out[r0:r0 + step] = _tie_terms_block(ranks[r0:r0 + step])
    return out


def _tie_terms_block(ranks):
    r = np.sort(ranks, axis=1)
    n_rows, n_cols = r.shape
    starts = np.ones((n_rows, n_cols), dtype=bool)
    starts[:, 1:] = r[:, 1:] != r[:, :-1]
    if starts.all():    # no ties (MultiTest's positions): every term is 0
        return np.zeros(n_rows)
    flat = np.flatnonzero(starts)
    size = np.diff(np.append(flat, r.size)).astype(np.float64)
    return np.bincount(flat // n_cols, weights=size**3 - size, minlength=n_rows)


def friedman_statistics(sums, n_datasets, tie_terms):
    """Friedman chi-square and Iman--Davenport F, vectorized over rows of `sums`.

    Shared by :func:`friedman` and the stability bootstrap, so both agree to
    the bit.

    Parameters
    ----------
    sums : ndarray, shape (B, L)
        Column rank sums ``T_j`` of B rank matrices with `n_datasets` rows each.
    n_datasets : int
        S, the number of rows of each rank matrix.
    tie_terms : ndarray, shape (B,)
        The total ``sum (t^3 - t)`` of each matrix (:func:`rank_tie_terms`
        summed), 0 for the uncorrected statistic.

    Returns
    -------
    chi2, iman_davenport : ndarray, shape (B,)
        As :attr:`FriedmanResult.statistic` and
        :attr:`FriedmanResult.iman_davenport_statistic`.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats._friedman import friedman_statistics
    >>> ranks = np.array([[1, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 3]])
    >>> chi2, f = friedman_statistics(ranks.sum(axis=0)[None, :], 4, np.zeros(1))
    >>> chi2, f.round(4)
    (array([4.5]), array([3.8571]))
    """
    n_algorithms = sums.shape[1]
    centred = sums - n_datasets * (n_algorithms + 1) / 2
    spread12 = 12 * (centred * centred).sum(axis=1)   # 12 sum_j (T_j - S (L+1)/2)^2
    # denominator * (L - 1) = S L (L^2 - 1) - ties; residual = S (L - 1) denominator - spread12
    scaled_denominator = n_datasets * n_algorithms * (n_algorithms**2 - 1) - tie_terms
    residual = n_datasets * scaled_denominator - spread12
    informative = scaled_denominator > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = np.where(informative, (n_algorithms - 1) * spread12 / scaled_denominator, 0.0)
        id_statistic = np.where(residual > 0, (n_datasets - 1) * spread12 / residual, np.inf)
    id_statistic = np.where(informative, id_statistic, 0.0)
    return chi2, id_statistic
