"""Stage 1 with the Bayesian correlated t-test on every pair of every data set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._errors import MultitestError
from ..stats._bayesian import (
    POSTERIOR_EVIDENCE,
    BayesSettings,
    _posterior,
    _standardized,
    correlated_t,
    fold_correlation,
)
from ._stage1 import PairwiseTable

__all__ = []


@dataclass(frozen=True, eq=False)
class BayesianPairwiseTable(PairwiseTable):
    """Stage 1 with the Bayesian correlated t-test.

    The fields of :class:`multitest.engine.PairwiseTable`, with
    ``statistic`` the standardized posterior mean ``mean / scale``,
    ``pvalue`` and ``pvalue_adjusted`` ``1 - P(costlier practically
    better)`` (what :attr:`evidence` says) and ``override`` ``P(costlier
    practically better) >= threshold``, plus the scalars that define the
    posterior.  No other ``(S, P)`` array is kept (the memory of a classical
    test): :func:`pair_probabilities` recomputes all three probabilities of a
    data set on demand.
    """

    evidence: ClassVar[str] = POSTERIOR_EVIDENCE

    rope: float
    threshold: float
    rho: float


def pair_probabilities(errors, table, index):
    """The three probabilities of every pair of data set ``index``, in cost order.

    Parameters
    ----------
    errors : ndarray, shape (S, L, F)
    table : BayesianPairwiseTable
    index : int

    Returns
    -------
    CorrelatedTResult
        The same numbers as the stage-1 run (``costlier_better`` is
        ``1 - table.pvalue[index]``).
    """
    prior = table.prior[index]
    return correlated_t(errors[index, prior[table.cheaper]], errors[index, prior[table.costlier]],
                        rope=table.rope, rho=table.rho)


def run_bayesian_tests(errors, prior, design, bayes, correction="none"):
    """Stage 1 with :func:`correlated_t` on every pair of every data set.

    Parameters
    ----------
    errors : ndarray, shape (S, L, F)
    prior : ndarray of int, shape (S, L)
        Cost positions (see :func:`multitest.engine._per_dataset.prior_positions`).
    design : multitest.inputs.FoldDesign
    bayes : BayesSettings or None
        None: the defaults (rope 0, threshold 0.95).
    correction : str
        Must be ``'none'``: a posterior probability is not corrected.

    Returns
    -------
    BayesianPairwiseTable
    """
    if correction != "none":
        raise MultitestError(f"`correction` must be 'none' with the Bayesian correlated "
                             f"t-test (posterior probabilities are not corrected), got "
                             f"{correction!r}")
    bayes = BayesSettings() if bayes is None else bayes
    rho = fold_correlation(design)
    S, L, F = errors.shape
    cheaper, costlier = np.triu_indices(L, k=1)
    P = cheaper.size
    statistic, pvalue = np.empty((S, P)), np.empty((S, P))
    override = np.empty((S, P), dtype=bool)
    rows = max(1, (1 << 20) // max(1, P * F))
    for s0 in range(0, S, rows):
        s1 = min(S, s0 + rows)
        in_prior = np.take_along_axis(errors[s0:s1], prior[s0:s1, :, None], axis=1)
        d = (in_prior[:, cheaper] - in_prior[:, costlier]).reshape(-1, F)
        result = _posterior(d, bayes.rope, rho)
        statistic[s0:s1] = _standardized(result)[0].reshape(s1 - s0, P)
        better = result.costlier_better.reshape(s1 - s0, P)
        pvalue[s0:s1] = 1 - better
        override[s0:s1] = better >= bayes.threshold
    mean_errors = errors.mean(axis=2)
    for array in (statistic, pvalue, override, mean_errors):
        array.setflags(write=False)
    return BayesianPairwiseTable(prior=prior, cheaper=cheaper, costlier=costlier,
                                 statistic=statistic, pvalue=pvalue, pvalue_adjusted=pvalue,
                                 override=override, mean_errors=mean_errors, rope=bayes.rope,
                                 threshold=bayes.threshold, rho=rho)
