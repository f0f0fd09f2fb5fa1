"""The CSV tables of a :class:`~multitest.engine.Ranking`, as DataFrames.

:func:`stage_tables` gives the table of every stage (final order, ranks,
orders, mean errors, costs, second pass, effect sizes, post-hoc decisions),
:func:`pairwise_frame` every pairwise result of every data set; both are
written by :func:`multitest.outputs._csv.write_csv`.  The tables a user also gets
from the result (``final_order.csv``, ``pairwise.csv``, ``posthoc.csv``) are
built in :mod:`multitest.engine._frames`, for both.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..engine._effects import second_pass_columns
from ..engine._frames import (
    PAIRWISE_COLUMNS,
    POSTHOC_COLUMNS,
    final_order_columns,
    pairwise_frame,
    posthoc_columns,
)

__all__ = []


def stage_tables(ranking, all_intervals=False):
    """The CSV tables of every stage: ``{file name: DataFrame}``.

    The name columns of ``orders.csv`` are categorical (its cells are algorithm names).

    ``all_intervals``: ``effect_sizes.csv`` has the intervals of every pair
    (:func:`multitest.engine._effects.second_pass_columns`).
    """
    return {name: next(iter(parts))
            for name, parts in stage_table_parts(ranking, all_intervals).items()}


def stage_table_parts(ranking, all_intervals=False, datasets=None):
    """The tables of :func:`stage_tables`, each as an iterable of DataFrames whose rows,
    one after the other, are its rows: the tables with a row per data set (ranks, orders,
    mean errors, costs) in parts of `datasets` data sets each (default: all in one part),
    made as they are written, the others whole.

    Examples
    --------
    >>> from multitest import rank, example_results
    >>> ranking = rank(example_results(), "training_time")
    >>> parts = stage_table_parts(ranking, datasets=12)
    >>> [len(part) for part in parts["ranks.csv"]], [len(part) for part in parts["orders.csv"]]
    ([12, 12, 12, 2], [24, 24, 24, 4])
    """
    algorithms = list(ranking.algorithms)
    S = len(ranking.datasets)
    step = S if datasets is None else max(1, datasets)
    rows = [slice(s0, s0 + step) for s0 in range(0, S, step)]
    datasets = ranking.results.datasets
    mean_errors = ranking.table.mean_errors
    costs = ranking.orders.costs
    tables = {
        "final_order.csv": [pd.DataFrame(final_order_columns(ranking))],
        "ranks.csv": (ranking.ranks_frame(r).reset_index() for r in rows),
        "orders.csv": _orders_parts(ranking, step),
        "mean_errors.csv": (_by_dataset(list(datasets[r]), algorithms, mean_errors[r])
                            for r in rows),
        "costs.csv": (_by_dataset(list(datasets[r]), algorithms,
                                  np.asarray(costs[r], dtype=float)) for r in rows),
    }
    sp = ranking.second_pass
    if sp is not None:
        prior_position = {a: i for i, a in enumerate(sp.prior_order, start=1)}
        final_position = {a: i for i, a in enumerate(sp.order, start=1)}
        tables["second_pass.csv"] = [pd.DataFrame({
            "algorithm": algorithms, "average_position": sp.average_positions,
            "average_error_rank": [ranking.average_error_ranks[a] for a in algorithms],
            "average_cost": sp.average_costs,
            "prior_position": [prior_position[a] for a in algorithms],
            "final_position": [final_position[a] for a in algorithms]})]
        # Made when written (result.json, written at the same time, shares the columns).
        tables["effect_sizes.csv"] = (_frame(second_pass_columns(ranking, all_intervals))
                                      for _ in range(1))
        # Without a post-hoc test (the Friedman gate kept it from running) the file is
        # there, with its header and no row, rather than silently absent.
        tables["posthoc.csv"] = [_frame(posthoc_columns(ranking)) if sp.posthoc is not None
                                 else pd.DataFrame(columns=list(POSTHOC_COLUMNS))]
    return tables


def _frame(columns):
    """A DataFrame of these arrays, names kept as objects (pandas would convert them to
    Arrow strings, only for :func:`~multitest.outputs._csv.write_csv` to convert them back)."""
    return pd.DataFrame({key: pd.Series(values, dtype=object) if values.dtype == object
                         else values for key, values in columns.items()})


def _orders_parts(ranking, step):
    """``orders.csv`` in parts of `step` data sets: per data set (sorted by name) its
    MultiTest order, then its prior order.

    The columns are categorical, made from the algorithm indices (no name is copied or
    hashed per cell): the names of a column are its categories, written once each.
    """
    datasets = ranking.results.datasets
    order, prior = ranking.orders.order, ranking.table.prior
    L = order.shape[1]
    # Index -1 (after the ordered algorithms, under missing='partial') is a blank.
    algorithms = list(ranking.algorithms)
    blank = algorithms.index("") if "" in algorithms else L
    names = pd.CategoricalDtype(algorithms + ([""] if blank == L else []))
    stages = pd.CategoricalDtype(["multitest", "prior"])
    columns = ["dataset", "stage", *(f"position_{i}" for i in range(1, L + 1))]
    by_name = np.array(sorted(range(len(datasets)), key=datasets.__getitem__), dtype=np.intp)
    for s0 in range(0, by_name.size, step):
        rows_of = by_name[s0:s0 + step]
        final = order[rows_of]
        cells = np.empty((2 * rows_of.size, L), dtype=np.intp)
        cells[0::2] = final
        cells[1::2] = np.where(final >= 0, prior[rows_of], -1)
        cells[cells < 0] = blank
        yield pd.DataFrame(dict(zip(columns, [
            pd.Categorical.from_codes(np.repeat(np.arange(rows_of.size), 2),
                                      categories=[datasets[s] for s in rows_of.tolist()]),
            pd.Categorical.from_codes(np.tile([0, 1], rows_of.size), dtype=stages),
            *(pd.Categorical.from_codes(cells[:, j], dtype=names) for j in range(L))])))


def _by_dataset(datasets, algorithms, matrix):
    frame = pd.DataFrame(matrix, columns=algorithms)
    frame.insert(0, "dataset", datasets)
    return frame
