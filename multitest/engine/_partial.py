"""MultiTest on each data set of an incomplete table (``missing='partial'``).

Each data set orders only the algorithms with every fold on it: the data sets
with the same algorithms present are tested together, as complete results, by
:func:`~multitest.engine.multitest_per_dataset`; their tables are then put into
one stage-1 table over every algorithm (so that the outputs read one table), in
which an absent algorithm takes the last prior positions of its data set, has
no test (NaN statistic and p-value, no override), no mean error (NaN) and no
rank (NaN); each data set's ``prior_order`` names its ordered algorithms only.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._per_dataset import (DataSetOrders, DataSetResult, cost_ties, multitest_per_dataset,
                           order_array, prior_positions)

__all__ = []


def multitest_per_dataset_partial(results, keys, absent, test, **options):
    """:func:`~multitest.engine.multitest_per_dataset` when algorithms are absent.

    Parameters
    ----------
    results : multitest.inputs.Results
        NaN where a result is missing.
    keys : ndarray, shape (levels, S, L)
    absent : ndarray of bool, shape (S, L)
        The algorithms lacking a fold on each data set (at least two present).
    test : multitest.stats.PairwiseTest or None
    **options
        ``alpha``, ``correction``, ``alternative``, ``design``, ``bayes`` of
        :func:`~multitest.engine.multitest_per_dataset`.

    Returns
    -------
    tuple of DataSetResult
        Sharing one table over every algorithm; ``order`` holds the present
        algorithms only and ``ranks`` is NaN for the absent ones.

    Examples
    --------
    >>> import numpy as np
    >>> from multitest import example_results, rank
    >>> results = example_results()
    >>> frame = results.to_frame()
    >>> frame.loc[(frame["dataset"] == "iris") & (frame["algorithm"] == "mlp")
    ...           & (frame["fold"] == 1), "error"] = np.nan
    >>> ranking = rank(frame, "training_time", missing="partial", second_pass="wilcoxon")
    >>> iris = ranking.dataset("iris")
    >>> len(iris.order), "mlp" in iris.order, iris.ranks["mlp"]
    (7, False, nan)
    """
    names = results.algorithms
    S, L = absent.shape
    full_prior = prior_positions(keys, names)
    merged = _Merged(S, L)
    groups = []
    for rows in _groups(absent):
        present = np.flatnonzero(~absent[rows[0]])
        group = results.subset(datasets=[results.datasets[s] for s in rows],
                               algorithms=[names[j] for j in present])
        tolerance = options.get("tolerance")
        done = multitest_per_dataset(
            group, keys[:, rows][:, :, present], test, **dict(
                options, tolerance=None if tolerance is None else tolerance.rows(rows, present)))
        merged.add(done[0].table, rows, present, full_prior, absent)
        groups.append((rows, present, done))
    table = merged.table()
    tested = groups[0][2][0].tested
    order = order_array(S, L)
    scores = None if tested else np.full((S, L), np.nan)
    for rows, present, done in groups:
        sub = done[0].orders
        order[rows, :present.size] = present[sub.order]
        if scores is not None:
            scores[np.ix_(rows, present)] = sub.scores
    orders = DataSetOrders(costs=keys[0], order=order, scores=scores, partial=True)
    return tuple(DataSetResult(
        name=dataset, index=s, algorithms=names,
        cost_ties=cost_ties(keys[0, s][~absent[s]], [n for n, a in zip(names, absent[s])
                                                     if not a]),
        tested=tested, table=table, orders=orders)
        for s, dataset in enumerate(results.datasets))


def _groups(absent):
    """Data sets with the same algorithms absent, as lists of row indices."""
    _, inverse = np.unique(absent, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    return [np.flatnonzero(inverse == g).tolist() for g in range(inverse.max() + 1)]


class _Merged:
    """The stage-1 table over every algorithm, filled one group of data sets at a time."""

    def __init__(self, S, L):
        self.L = L
        self.cheaper, self.costlier = np.triu_indices(L, k=1)
        P = self.cheaper.size
        self.prior = np.empty((S, L), dtype=np.intp)
        self.arrays = {name: np.full((S, P), np.nan) for name in
                       ("statistic", "pvalue", "pvalue_adjusted")}
        self.arrays["override"] = np.zeros((S, P), dtype=bool)
        self.mean_errors = np.full((S, L), np.nan)
        self.prototype = None

    def add(self, table, rows, present, full_prior, absent):
        """Put the group's table (data sets `rows`, algorithms `present`) in place."""
        if self.prototype is None:
            self.prototype = table
        n = present.size
        start = np.concatenate(([0], np.cumsum(np.arange(self.L - 1, 0, -1))))
        columns = start[table.cheaper] + table.costlier - table.cheaper - 1
        for k, s in enumerate(rows):
            cheapest_absent = [j for j in full_prior[s] if absent[s, j]]
            self.prior[s] = np.concatenate([present[table.prior[k]], cheapest_absent]) \
                if n < self.L else present[table.prior[k]]
            for name, array in self.arrays.items():
                array[s, columns] = np.asarray(getattr(table, name)[k])
            self.mean_errors[s, present] = table.mean_errors[k]

    def table(self):
        fields = dict(self.arrays, prior=self.prior, cheaper=self.cheaper, costlier=self.costlier,
                      mean_errors=self.mean_errors)
        for array in fields.values():
            array.setflags(write=False)
        return dataclasses.replace(self.prototype, **fields)
