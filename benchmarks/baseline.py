"""The straightforward stage 1 that the benchmarks compare against.

One Python loop over data sets and pairs, calling SciPy once per pair, as one
would write it without thinking about speed:

- combined 5x2 cv F: ``f`` computed for the pair with NumPy (docs/method.md section
  3, written out directly), then ``scipy.stats.f.sf(f, 10, 5)``;
- k-fold cv paired t: ``scipy.stats.ttest_rel(cheaper, costlier)``.

Pairs are taken in cost order (``i < j`` prior positions, cheaper first), the
decision is multitest's: the costlier ``j`` overrides the cheaper ``i`` when
``p < alpha`` and ``j`` has the lower mean error.  Degenerate pairs follow the
documented conventions (identical errors: statistic 0, p = 1; a constant
non-zero difference: infinite statistic, p = 0), so the decisions can be
compared one to one with :func:`multitest.engine._stage1.run_pairwise_tests`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["f_test_pair", "t_test_pair", "stage1_loop", "TESTS"]


def f_test_pair(a, b):
    """Alpaydin's combined 5x2 cv F for one pair: ``(f, p)``."""
    p = (a - b).reshape(5, 2)
    p_bar = p.mean(axis=1)
    s2 = ((p - p_bar[:, None]) ** 2).sum(axis=1)
    numerator, denominator = float((p**2).sum()), float(2 * s2.sum())
    if denominator == 0:
        return (math.inf, 0.0) if numerator > 0 else (0.0, 1.0)
    f = numerator / denominator
    return f, float(stats.f.sf(f, 10, 5))


def t_test_pair(a, b):
    """Paired t over all folds for one pair (``scipy.stats.ttest_rel``): ``(t, p)``."""
    d = a - b
    if np.all(d == d[0]):   # zero variance: SciPy gives NaN; multitest's convention
        if d[0] == 0:
            return 0.0, 1.0
        return math.copysign(math.inf, d[0]), 0.0
    result = stats.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


TESTS = {"combined-5x2cv-f": f_test_pair, "kfold-t": t_test_pair}


def stage1_loop(errors, prior, test, alpha=0.05, datasets=None):
    """Every pair of the given data sets, one SciPy call per pair.

    Parameters
    ----------
    errors : ndarray, shape (S, L, F)
    prior : ndarray of int, shape (S, L)
        ``prior[s, i]`` is the algorithm at cost position ``i`` (0 = cheapest).
    test : {'combined-5x2cv-f', 'kfold-t'}
    datasets : sequence of int, optional
        Rows of ``errors`` to test (all by default).

    Returns
    -------
    statistic, pvalue : ndarray, shape (len(datasets), L (L - 1) / 2)
    override : ndarray of bool, same shape
        Pairs in the order of ``numpy.triu_indices(L, 1)`` over cost positions.
    """
    pair_test = TESTS[test]
    datasets = range(errors.shape[0]) if datasets is None else datasets
    L = errors.shape[1]
    statistic, pvalue, override = [], [], []
    for s in datasets:
        row_s, row_p, row_o = [], [], []
        for i in range(L):
            cheaper = errors[s, prior[s, i]]
            for j in range(i + 1, L):
                costlier = errors[s, prior[s, j]]
                st, p = pair_test(cheaper, costlier)
                row_s.append(st)
                row_p.append(p)
                row_o.append(p < alpha and costlier.mean() < cheaper.mean())
        statistic.append(row_s)
        pvalue.append(row_p)
        override.append(row_o)
    return np.array(statistic), np.array(pvalue), np.array(override, dtype=bool)
