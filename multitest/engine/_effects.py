"""Effect sizes of a ranking, by column, for the outputs and figures (computed on demand)."""

from __future__ import annotations

import weakref

import numpy as np

from ..stats._effect_sizes import fold_mean_difference, over_datasets

__all__ = ["dataset_effects", "pairwise_columns", "second_pass_columns", "second_pass_rows"]


def dataset_effects(ranking, result):
    """:func:`fold_mean_difference` of every pair of one data set, in ``result.pairs()`` order.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    result : multitest.engine.DataSetResult

    Returns
    -------
    MeanDifference or None
        None for a score matrix (no folds).
    """
    if not result.tested:
        return None
    table = result.table
    prior = table.prior[result.index]
    errors = ranking.results.errors[result.index]
    return fold_mean_difference(errors[prior[table.first]], errors[prior[table.second]],
                                ranking.pairwise_test.interval, ranking.results.design,
                                level=1 - ranking.settings.alpha)


# --------------------------------------------------------------------------
# Columns for the outputs (small runs; computed on demand from the ranking)
# --------------------------------------------------------------------------


def pairwise_columns(ranking, results=None):
    """Effect-size (and Bayesian probability) columns of stage 1, per pair.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    results : sequence of DataSetResult, optional
        Default every data set; rows in data-set order, pairs in cost order
        (the rows of ``pairwise.csv`` and of ``result.pairs()``).

    Returns
    -------
    dict of str to ndarray
        ``mean_difference``, ``ci_low``, ``ci_high`` (mean of cheaper minus
        costlier error and its interval at ``1 - alpha``); with the Bayesian
        correlated t-test also ``p_cheaper_better``, ``p_equivalent``,
        ``p_costlier_better``.  Empty for a score matrix.
    """
    results = ranking.datasets if results is None else results
    tested = [r for r in results if r.tested]
    if not tested:
        return {}
    effects = [dataset_effects(ranking, r) for r in tested]
    columns = {"mean_difference": np.concatenate([e.estimate for e in effects]),
               "ci_low": np.concatenate([e.low for e in effects]),
               "ci_high": np.concatenate([e.high for e in effects])}
    table = tested[0].table
    if ranking.pairwise_test.bayesian:     # a BayesianPairwiseTable
        from ._bayesian_stage1 import pair_probabilities

        posteriors = [pair_probabilities(ranking.results.errors, table, r.index) for r in tested]
        columns["p_cheaper_better"] = np.concatenate([p.cheaper_better for p in posteriors])
        columns["p_equivalent"] = np.concatenate([p.equivalent for p in posteriors])
        columns["p_costlier_better"] = np.concatenate([p.costlier_better for p in posteriors])
    return columns


def second_pass_columns(ranking):
    """Effect sizes over data sets of every pair, in the second-pass prior order, by column.

    ``a`` is the cheaper by average cost, ``b`` the costlier;
    ``d = e_a - e_b`` per data set (mean errors), positive: ``b`` is better.

    Returns
    -------
    dict of str to ndarray
        Keys ``a``, ``b`` (names), ``hodges_lehmann``, ``ci_low``, ``ci_high``,
        ``ci_level`` (achieved; NaN when not computed), ``wins_a``, ``ties``,
        ``wins_b``, ``superiority_b``; with the Bayesian second pass also
        ``p_a_better``, ``p_equivalent``, ``p_b_better``.  Empty without a
        second pass.  Read-only: computed once per ranking and shared.
    """
    sp = ranking.second_pass
    if sp is None:
        return {}
    if ranking not in _SECOND_PASS_COLUMNS:   # JSON, CSV, figure and report share them
        columns = _second_pass_columns(ranking, sp)
        for values in columns.values():
            values.setflags(write=False)
        _SECOND_PASS_COLUMNS[ranking] = columns
    return dict(_SECOND_PASS_COLUMNS[ranking])


_SECOND_PASS_COLUMNS = weakref.WeakKeyDictionary()


def second_pass_rows(ranking):
    """:func:`second_pass_columns` as one dict per pair (NaN as None), for JSON.

    Returns
    -------
    list of dict
        Empty without a second pass.
    """
    columns = second_pass_columns(ranking)
    bounds = ("hodges_lehmann", "ci_low", "ci_high", "ci_level")    # NaN: not computed
    lists = {key: _finite_list(values) if key in bounds else values.tolist()
             for key, values in columns.items()}
    keys = list(lists)
    return [dict(zip(keys, values)) for values in zip(*lists.values())]


def _second_pass_columns(ranking, sp):
    names = list(ranking.algorithms)
    index = {a: i for i, a in enumerate(names)}
    order = np.array([index[a] for a in sp.prior_order])
    i, j = np.triu_indices(len(names), k=1)
    a, b = order[i], order[j]
    effects = over_datasets(ranking.datasets[0].table.mean_errors, (a, b),
                            level=1 - ranking.settings.alpha)
    names = np.asarray(names, dtype=object)
    columns = {"a": names[a], "b": names[b], "hodges_lehmann": effects.hodges_lehmann,
               "ci_low": effects.low, "ci_high": effects.high, "ci_level": effects.level,
               "wins_a": effects.a_better, "ties": effects.ties, "wins_b": effects.b_better,
               "superiority_b": np.asarray(effects.superiority, dtype=float)}
    if sp.method_entry.bayesian and sp.posthoc is not None:
        columns.update(p_a_better=np.asarray(sp.posthoc.better[a, b], dtype=float),
                       p_equivalent=np.asarray(sp.posthoc.equivalent[a, b], dtype=float),
                       p_b_better=np.asarray(sp.posthoc.better[b, a], dtype=float))
    return columns


def _finite_list(values):
    """The values as Python floats, None for NaN and infinities."""
    values = np.asarray(values, dtype=float)
    out = values.tolist()
    for k in np.flatnonzero(~np.isfinite(values)).tolist():
        out[k] = None
    return out
