"""A :class:`~multitest.engine.Ranking` as pandas tables: the final order, every pairwise
result of stage 1, the post-hoc comparisons of the second pass.

One builder per table, used by the result's methods (:meth:`Ranking.to_frame`,
:meth:`Ranking.pairwise_frame`, :meth:`Ranking.posthoc_frame`), by the CSV files
(:mod:`multitest.outputs`) and by the LaTeX and Markdown tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._effects import pairwise_columns, second_pass_columns

__all__ = []

#: Columns of :func:`pairwise_frame` (and of ``pairwise.csv``, before the effect sizes).
PAIRWISE_COLUMNS = ("dataset", "a", "b", "statistic", "pvalue", "pvalue_adjusted",
                    "mean_error_a", "mean_error_b", "override")

#: Columns of ``final_order.csv`` (:func:`final_order_columns`), the first of :func:`final_frame`.
FINAL_ORDER_COLUMNS = ("position", "algorithm", "average_position", "average_error_rank")

#: Columns of ``posthoc.csv`` (:func:`posthoc_columns`).
POSTHOC_COLUMNS = ("a", "b", "statistic", "pvalue", "significant")

#: The first columns of :func:`posthoc_frame`; the effect sizes over data sets follow.
POSTHOC_FRAME_COLUMNS = ("a", "b", "statistic", "pvalue", "pvalue_raw", "significant")

#: The effect columns of :func:`~multitest.engine._effects.second_pass_columns` (without a
#: second pass).
_EFFECT_COLUMNS = ("hodges_lehmann", "ci_low", "ci_high", "ci_level", "wins_a", "ties", "wins_b",
                   "superiority_b")


def first_counts(ranking):
    """On how many data sets each algorithm is first: ``{algorithm: count}``.

    Counted from the order arrays (one look-up per data set, no tuple of names per data
    set: 10,000 data sets x 100 algorithms in milliseconds).

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time")
    >>> counts = first_counts(ranking)
    >>> sum(counts.values()) == len(ranking.datasets)
    True
    >>> all(counts[a] == sum(r.order[0] == a for r in ranking.datasets) for a in counts)
    True
    """
    counts = dict.fromkeys(ranking.algorithms, 0)
    groups = {}
    for r in ranking.datasets:   # the data sets of a ranking usually share one DataSetOrders
        groups.setdefault(id(r.orders), (r.orders, r.algorithms, []))[2].append(r.index)
    for orders, names, rows in groups.values():
        found = np.bincount(orders.order[rows, 0], minlength=len(names))
        for name, count in zip(names, found.tolist()):
            counts[name] += count
    return counts


def final_order_columns(ranking):
    """The columns of ``final_order.csv`` (:data:`FINAL_ORDER_COLUMNS`), best first."""
    order = list(ranking.final_order)
    return {"position": range(1, len(order) + 1), "algorithm": order,
            "average_position": [ranking.average_positions[a] for a in order],
            "average_error_rank": [ranking.average_error_ranks[a] for a in order]}


def average_costs(ranking):
    """``{algorithm: cost}``: the average cost over the data sets (the second pass's
    prior), the cost of the one data set without a second pass."""
    sp = ranking.second_pass
    costs = sp.average_costs if sp is not None else ranking.datasets[0].costs
    return dict(zip(ranking.algorithms, np.asarray(costs, dtype=float).tolist()))


def final_frame(ranking):
    """The final table, best first (:meth:`multitest.engine.Ranking.to_frame`).

    Returns
    -------
    pandas.DataFrame
        ``position`` (1 = best), ``algorithm``, ``average_position`` (mean of the
        MultiTest positions), ``average_error_rank`` (mean rank of the mean errors),
        ``average_cost`` (normalized, in ``cost_unit``; the cost of the data set when
        there is one), ``cost_unit``, ``first_on`` (the data sets where it is first)
        and ``reason`` (why it holds its position, in a phrase; the whole sentence is
        ``ranking.explanations[position - 1].sentence``).  The first four columns are
        ``final_order.csv``.

    Examples
    --------
    >>> from multitest import rank, example_results
    >>> frame = rank(example_results(), "training_time").to_frame()
    >>> frame[["position", "algorithm", "first_on"]].head(2).to_string(index=False)
    ' position algorithm  first_on\\n        1       5nn        20\\n        2       c45         7'
    """
    costs, firsts = average_costs(ranking), first_counts(ranking)
    order = list(ranking.final_order)
    prior = _prior_positions(ranking)
    frame = pd.DataFrame(final_order_columns(ranking))
    frame["average_cost"] = [costs[a] for a in order]
    frame["cost_unit"] = ranking.profile.unit or ""
    frame["first_on"] = [firsts[a] for a in order]
    frame["reason"] = [short_reason(ranking, e, prior[e.algorithm])
                       for e in ranking.explanations]
    return frame


def _prior_positions(ranking):
    sp = ranking.second_pass
    prior = sp.prior_order if sp is not None else ranking.datasets[0].prior_order
    return {a: k for k, a in enumerate(prior, start=1)}


def short_reason(ranking, explanation, prior_position):
    """Why an algorithm holds its position, in one short phrase (the ``reason`` column).

    From the decisions the explanation rests on: the cheaper algorithms it is
    significantly (a Bayesian test: practically) better than, the algorithms better than
    it, else the cost order.
    """
    sp = ranking.second_pass
    if sp is not None and not sp.applied:
        return f"average-cost order: the {sp.gate_name} does not reject"
    if sp is None and not ranking.datasets[0].tested:
        return "ranked by its value (score matrix)"
    a = explanation.algorithm
    wins = sum(c.significant and c.subject == a for c in explanation.comparisons)
    losses = sum(c.significant and c.other == a for c in explanation.comparisons)
    bayesian = (sp.method_entry if sp is not None else ranking.pairwise_test).bayesian
    better = "practically better" if bayesian else "significantly better"
    phrases = (["the cheapest"] if prior_position == 1 else []) + (
        [f"{better} than {wins} cheaper"] if wins else []) + (
        [f"{losses} {better} than it"] if losses else [])
    if not wins and not losses:
        phrases.append("no significant difference: the cost order")
    return "; ".join(phrases)


def pairwise_frame(ranking):
    """Every pairwise result of every data set, one row per pair.

    Columns :data:`PAIRWISE_COLUMNS`: data set, ``a`` (the cheaper), ``b``,
    statistic, p-value, adjusted p-value, the two mean errors and whether
    ``b`` overrides ``a``.  Data sets in input order, pairs in cost order.
    """
    table = tested_table(ranking)
    if table is None:
        return pd.DataFrame(columns=list(PAIRWISE_COLUMNS))
    names, datasets = ranking.algorithms, [r.name for r in ranking.datasets]
    S, P = table.statistic.shape
    cheaper, costlier = table.prior[:, table.cheaper], table.prior[:, table.costlier]
    means = table.mean_errors
    rows = np.arange(S)[:, None]
    return pd.DataFrame({
        "dataset": np.repeat(np.asarray(datasets, dtype=object), P),
        "a": np.asarray(names, dtype=object)[cheaper.ravel()],
        "b": np.asarray(names, dtype=object)[costlier.ravel()],
        "statistic": table.statistic.ravel(), "pvalue": table.pvalue.ravel(),
        "pvalue_adjusted": table.pvalue_adjusted.ravel(),
        "mean_error_a": means[rows, cheaper].ravel(),
        "mean_error_b": means[rows, costlier].ravel(),
        "override": table.override.ravel()})


def tested_table(ranking):
    """The :class:`~multitest.engine.PairwiseTable` shared by the data sets.

    Its rows are the data sets, in order (as :func:`multitest.rank` builds
    them); None without pairwise tests (score-matrix input).
    """
    first = ranking.datasets[0]
    return first.table if first.tested else None


def pairwise_effects_frame(ranking, pairs=None, effects=None):
    """:func:`pairwise_frame` with the effect sizes and intervals of each pair
    (:func:`~multitest.engine._effects.pairwise_columns`): the rows of ``pairwise.csv`` and of
    :meth:`Ranking.pairwise_frame`.

    `pairs`, `effects`: the :func:`pairwise_frame` (read back from the pairwise file)
    and the :func:`~multitest.engine._effects.pairwise_columns` when the caller has them.  Under
    ``missing='partial'`` the pairs not tested are left out.
    """
    pairs = pairwise_frame(ranking) if pairs is None else pairs
    frame = pairs.assign(**(pairwise_columns(ranking) if effects is None else effects))
    if ranking.missing is not None and ranking.missing.absent is not None:
        frame = frame[frame["mean_error_a"].notna() & frame["mean_error_b"].notna()]
    return frame


def posthoc_columns(ranking):
    """The columns of ``posthoc.csv`` (:data:`POSTHOC_COLUMNS`): every pair of algorithms
    in input order, the statistic, the (adjusted) p-value and the decision of the second
    pass; empty when the post-hoc test did not run (the Friedman gate) or there is none."""
    sp = ranking.second_pass
    if sp is None or sp.posthoc is None:
        return {key: np.empty(0, dtype=object if key in ("a", "b") else float)
                for key in POSTHOC_COLUMNS}
    names = np.asarray(ranking.algorithms, dtype=object)
    i, j = np.triu_indices(len(names), k=1)
    return {"a": names[i], "b": names[j], "statistic": sp.posthoc.statistic[i, j],
            "pvalue": sp.posthoc.pvalues[i, j], "significant": sp.significant[i, j]}


def posthoc_frame(ranking):
    """The second pass's comparisons, one row per pair (:meth:`Ranking.posthoc_frame`).

    Returns
    -------
    pandas.DataFrame
        ``a`` (the cheaper on average), ``b``, ``statistic``, ``pvalue`` (adjusted by the
        post-hoc correction; Nemenyi's is simultaneous), ``pvalue_raw``,
        ``significant``, then the effect over data sets of
        :func:`~multitest.engine._effects.second_pass_columns`: ``hodges_lehmann`` (of the
        differences of mean errors ``a - b``), ``ci_low``, ``ci_high``, ``ci_level``,
        ``wins_a``, ``ties``, ``wins_b``, ``superiority_b``.  Pairs in average-cost
        order.  No row when the post-hoc test did not run; empty without a second pass.
    """
    sp = ranking.second_pass
    effects = second_pass_columns(ranking)
    if sp is None or sp.posthoc is None:
        return pd.DataFrame(columns=[*POSTHOC_FRAME_COLUMNS, *list(effects)[2:]]
                            if effects else [*POSTHOC_FRAME_COLUMNS, *_EFFECT_COLUMNS])
    index = {a: k for k, a in enumerate(ranking.algorithms)}
    a = np.array([index[x] for x in effects["a"]], dtype=np.intp)
    b = np.array([index[x] for x in effects["b"]], dtype=np.intp)
    frame = pd.DataFrame({"a": effects["a"], "b": effects["b"],
                          "statistic": sp.posthoc.statistic[a, b],
                          "pvalue": sp.posthoc.pvalues[a, b],
                          "pvalue_raw": sp.posthoc.raw_pvalues[a, b],
                          "significant": sp.significant[a, b]})
    for key, values in effects.items():
        if key not in ("a", "b"):
            frame[key] = values
    return frame


def dataset_frame(result):
    """MultiTest's order on one data set (:meth:`DataSetResult.to_frame`).

    Returns
    -------
    pandas.DataFrame
        Best first: ``position``, ``algorithm``, ``prior_position`` (1 = cheapest),
        ``cost`` (normalized), ``mean_error``, ``overrides`` (the cheaper algorithms it
        is significantly better than on this data set), ``overridden_by``.
    """
    order = list(result.order)
    prior = {a: k for k, a in enumerate(result.prior_order, start=1)}
    cost = dict(zip(result.algorithms, np.asarray(result.costs, dtype=float).tolist()))
    means = result.mean_errors
    beats = dict.fromkeys(order, 0)
    beaten = dict.fromkeys(order, 0)
    for cheaper, costlier, *_ in result.edges():
        beats[costlier] += 1
        beaten[cheaper] += 1
    return pd.DataFrame({"position": range(1, len(order) + 1), "algorithm": order,
                         "prior_position": [prior[a] for a in order],
                         "cost": [cost[a] for a in order],
                         "mean_error": [means[a] for a in order],
                         "overrides": [beats[a] for a in order],
                         "overridden_by": [beaten[a] for a in order]})
