"""The Skillings--Mack test: Friedman's test for blocks with missing cells.

The gate of Multi²Test's second pass under ``missing='partial'`` (docs/method.md §9):
each data set (block) ranks only the algorithms that ran on it, so the table of
positions has holes, and Friedman's test does not apply.  Skillings and Mack's
statistic weighs the centred ranks of each block by the number of algorithms it
observed and compares them through the covariance of the design; without missing
cells (and without ties) it is Friedman's chi-square exactly.

References
----------
.. [1] J. H. Skillings and G. A. Mack, "On the use of a Friedman-type statistic in
   balanced and unbalanced block designs", Technometrics 23(2):171-177, 1981.
.. [2] M. Chatfield and A. Mander, "The Skillings-Mack test (Friedman test when there
   are missing data)", The Stata Journal 9(2):299-305, 2009.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from .._errors import MultitestError

__all__ = ["SkillingsMackResult", "skillings_mack"]


@dataclass(frozen=True)
class SkillingsMackResult:
    """The Skillings--Mack test.

    Attributes
    ----------
    statistic : float
        ``SM = A' Sigma^- A`` (see :func:`skillings_mack`).
    pvalue : float
        Upper tail of chi-square with `df` degrees of freedom.
    df : int
        The rank of the covariance matrix: ``k - 1`` when every two algorithms
        are linked through blocks where both were observed (fewer otherwise).
    n_blocks : int
        Blocks used (those observing at least two algorithms).
    n_dropped : int
        Blocks left out because they observe fewer than two algorithms.
    n_missing : int
        Missing cells of the blocks used.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.stats import skillings_mack
    >>> result = skillings_mack([[3, 5, 15], [1, 3, 18], [5, 4, 21], [2, np.nan, 6], [0, 2, 17]])
    >>> type(result).__name__, result.df
    ('SkillingsMackResult', 2)
    """

    statistic: float
    pvalue: float
    df: int
    n_blocks: int
    n_dropped: int
    n_missing: int


def skillings_mack(values):
    """Skillings--Mack test on a blocks x treatments table with missing cells.

    Parameters
    ----------
    values : array_like, shape (n_blocks, k)
        One value per block (row; a data set) and treatment (column; an
        algorithm), NaN where missing.  Values are ranked within each block
        (ties get average ranks), so ranks themselves may be given.

    Returns
    -------
    SkillingsMackResult

    Raises
    ------
    MultitestError
        If `values` is not a two-dimensional table of at least two treatments,
        holds an infinite value, or no block observes two treatments.

    Notes
    -----
    Blocks observing fewer than two treatments are dropped.  In block ``i``
    with ``n_i`` observed treatments, ``r_ij`` is the rank of treatment ``j``
    among them and a missing cell gets ``(n_i + 1) / 2``; then::

        A_j = sum_i sqrt(12 / (n_i + 1)) (r_ij - (n_i + 1) / 2)
        Sigma_st = -lambda_st (s != t),  Sigma_ss = sum_{t != s} lambda_st
        SM = A' Sigma^- A  ~  chi2(rank Sigma)

    where ``lambda_st`` counts the blocks observing both ``s`` and ``t`` and
    ``Sigma^-`` is the Moore--Penrose inverse.  Without missing cells and ties
    ``SM`` equals Friedman's chi-square; with ties it uses the covariance of
    untied ranks, as Skillings and Mack do (the chi-square p-value is then
    conservative; Chatfield and Mander 2009).

    Examples
    --------
    Brady's metronome data (Hollander and Wolfe, Example 7.8; the worked
    example of Chatfield and Mander 2009):

    >>> import numpy as np
    >>> from multitest.stats import skillings_mack
    >>> nan = np.nan
    >>> x = [[3, 5, 15], [1, 3, 18], [5, 4, 21], [2, nan, 6], [0, 2, 17], [0, 2, 10],
    ...      [0, 3, 8], [0, 2, 13]]
    >>> res = skillings_mack(x)
    >>> round(res.statistic, 5), res.df, round(res.pvalue, 6)
    (13.28095, 2, 0.001306)
    """
    x = _iv_values(values)
    observed = ~np.isnan(x)
    counts = observed.sum(axis=1)
    kept = counts >= 2
    if not kept.any():
        raise MultitestError("`values`: no block (row) observes two treatments (columns)")
    x, observed, counts = x[kept], observed[kept], counts[kept]
    centre = (counts + 1) / 2
    ranks = _block_ranks(x, observed)
    weights = np.sqrt(12 / (counts + 1))
    a = (weights[:, None] * np.where(observed, ranks - centre[:, None], 0.0)).sum(axis=0)
    both = observed.astype(np.float64)
    together = both.T @ both                   # lambda_st (diagonal: blocks observing s)
    np.fill_diagonal(together, 0.0)
    sigma = np.diag(together.sum(axis=1)) - together
    statistic = float(a @ np.linalg.pinv(sigma, hermitian=True) @ a)
    df = int(np.linalg.matrix_rank(sigma, hermitian=True))
    return SkillingsMackResult(
        statistic=statistic, pvalue=float(special.chdtrc(df, statistic)) if df else 1.0,
        df=df, n_blocks=int(kept.sum()), n_dropped=int((~kept).sum()),
        n_missing=int((~observed).sum()))


def _iv_values(values):
    try:
        x = np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MultitestError("`values` must be an array of real numbers (NaN: missing)") \
            from exc
    if x.ndim != 2 or x.shape[1] < 2:
        raise MultitestError(f"`values` must be a two-dimensional table (blocks x treatments) "
                             f"of at least 2 treatments; got shape {x.shape}")
    if np.isinf(x).any():
        raise MultitestError("`values` must hold finite numbers or NaN (missing)")
    return x


def _block_ranks(x, observed):
    """Average ranks of the observed values within each row (missing cells: NaN)."""
    from scipy.stats import rankdata  # only when the test runs

    return rankdata(np.where(observed, x, np.nan), axis=1, nan_policy="omit")
