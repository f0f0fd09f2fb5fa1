"""MultiTest on each data set: stage 1, the override graph, the order and the ranks.

The result of each data set is a light :class:`DataSetResult` whose arrays are rows of the
shared stage-1 table (:class:`~multitest.engine.PairwiseTable`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._bayesian_stage1 import run_bayesian_tests
from ._ordering import named_trace
from ._stage1 import PairwiseTable, run_pairwise_tests

__all__ = ["DataSetResult", "multitest_per_dataset"]


def prior_positions(keys, names, groups=None):
    """Cost position of every algorithm (0 = cheapest) on each data set.

    Parameters
    ----------
    keys : ndarray, shape (levels, S, L)
        Sort keys, primary cost first, then tie-breaking profiles.
    names : sequence of str
        Algorithm names: the last tie-break.
    groups : ndarray of int, shape (S, L), optional
        Tie groups of the primary costs within a tolerance
        (:meth:`multitest.engine.CostTolerance.groups`): sorted by in place of
        the primary costs, so that a group is ordered by the secondary profile,
        then by name.

    Returns
    -------
    prior : ndarray of int, shape (S, L)
        ``prior[s, i]`` is the algorithm at cost position ``i`` on data set ``s``.
    """
    keys = np.asarray(keys, dtype=float)
    name_rank = np.broadcast_to(np.argsort(np.argsort(np.asarray(names, dtype=object))),
                                keys.shape[1:])
    primary = keys[:1] if groups is None else np.asarray(groups, dtype=float)[None]
    return np.lexsort((name_rank,) + tuple(keys[:0:-1]) + tuple(primary), axis=-1)


def cost_ties(costs, names):
    """Groups of algorithms with equal cost, each group sorted by name."""
    groups = {}
    for name, cost in zip(names, costs):
        groups.setdefault(float(cost), []).append(name)
    return tuple(tuple(sorted(g)) for g in groups.values() if len(g) > 1)


#: The columns of :meth:`DataSetResult.pair_columns` and their types.
_PAIR_COLUMNS = {"a": object, "b": object, "statistic": float, "pvalue": float,
                 "pvalue_adjusted": float, "mean_error_a": float, "mean_error_b": float,
                 "override": bool}


@dataclass(frozen=True, eq=False)
class DataSetOrders:
    """The orders and ranks of every data set of a run, as arrays shared by its
    :class:`DataSetResult` objects (which read their row on access).

    At S = 200,000 x L = 100 these are 40 MB of small integers, where a dict of ranks
    and two tuples of names per data set took about 1 GB.

    Attributes
    ----------
    costs : ndarray, shape (S, L)
        Primary normalized costs (input order).
    order : ndarray of int, shape (S, L)
        Algorithm indices best first; -1 after the ordered ones (``missing='partial'``).
    scores : ndarray of float, shape (S, L), or None
        The average ranks of a score matrix (input order, NaN for an absent
        algorithm); None after pairwise tests, where a rank is a position in ``order``.
    partial : bool
        ``missing='partial'``: the ranks of every data set list every algorithm,
        in input order, NaN for the absent ones.

    Examples
    --------
    >>> orders = DataSetOrders(costs=np.zeros((1, 3)), order=np.array([[2, 0, -1]]),
    ...                        scores=None, partial=True)
    >>> orders.rank_matrix().tolist()
    [[2.0, nan, 1.0]]
    >>> orders.ranks(0, ("a", "b", "c"))
    {'a': 2, 'b': nan, 'c': 1}
    """

    costs: np.ndarray
    order: np.ndarray
    scores: np.ndarray | None
    partial: bool

    def ordered(self, s):
        """The algorithm indices of data set ``s``, best first (a list)."""
        row = self.order[s]
        n = int(np.count_nonzero(row >= 0)) if self.partial else row.size
        return row[:n].tolist()

    def ranks(self, s, names):
        """``{algorithm: rank}`` of data set ``s`` (:attr:`DataSetResult.ranks`)."""
        if self.scores is not None:
            return dict(zip(names, self.scores[s].tolist()))
        order = [names[a] for a in self.ordered(s)]
        if not self.partial:
            return dict(zip(order, range(1, len(order) + 1)))
        ranks = dict.fromkeys(names, float("nan"))
        ranks.update(zip(order, range(1, len(order) + 1)))
        return ranks

    def rank_matrix(self, rows=slice(None), dtype=np.int64):
        """The ranks of the data sets ``rows`` (a slice; default all), ``(S, L)`` in input
        order: positions (of `dtype`; float64 with NaN for the absent algorithms under
        ``partial``) or a score matrix's ranks."""
        if self.scores is not None:
            return self.scores[rows]
        order = self.order[rows]
        if not self.partial:   # every row a permutation: one scatter (5x faster)
            ranks = np.empty(order.shape, dtype=dtype)
            np.put_along_axis(ranks, order.astype(np.intp),
                              np.arange(1, order.shape[1] + 1, dtype=dtype)[None], axis=1)
            return ranks
        ranks = np.full(order.shape, np.nan)
        at, positions = np.nonzero(order >= 0)
        ranks[at, order[at, positions]] = positions + 1
        return ranks


def order_array(S, L):
    """An empty ``(S, L)`` array for :attr:`DataSetOrders.order` (the smallest integer
    holding every index and -1)."""
    return np.full((S, L), -1, dtype=np.int16 if L < 2 ** 15 else np.int32)


@dataclass(frozen=True, eq=False, slots=True)
class DataSetResult:
    """MultiTest on one data set: a view of its row of the run's shared tables.

    Attributes
    ----------
    name : str
    index : int
        Its row in ``table`` and ``orders``.
    algorithms : tuple of str
        Input order.
    cost_ties : tuple of tuple of str
        Groups of algorithms whose primary costs are equal, or within the cost
        tolerance (:class:`~multitest.engine.CostTolerance`), each sorted by name.
    tested : bool
        Whether pairwise tests were run (False for score-matrix input).
    table : PairwiseTable
        The stage-1 table of every data set.
    orders : DataSetOrders
        The orders and ranks of every data set.
    costs : ndarray, shape (L,)
        Primary normalized cost of each algorithm (input order).
    prior_order : tuple of str
        Cheapest first (ties broken by the secondary profile, then by name).
        Under ``missing='partial'`` the algorithms ordered on this data set
        only; they take the first prior positions of the shared table.
    order : tuple of str
        Best first.
    ranks : dict
        ``{algorithm: rank}``, 1 = best.  Integers after a pairwise test;
        average ranks of the values for a score matrix (``tested`` false).

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> iris = ranking.dataset("iris")
    >>> iris.name, iris.prior_order[0], iris.order[0]
    ('iris', '5nn', '5nn')
    """

    name: str
    index: int
    algorithms: tuple
    cost_ties: tuple
    tested: bool
    table: PairwiseTable | None
    orders: DataSetOrders

    @property
    def costs(self):
        return self.orders.costs[self.index]

    @property
    def order(self):
        names = self.algorithms
        return tuple(names[a] for a in self.orders.ordered(self.index))

    @property
    def prior_order(self):
        names = self.algorithms
        n = len(self.orders.ordered(self.index))
        return tuple(names[a] for a in self.table.prior[self.index][:n].tolist())

    @property
    def ranks(self):
        return self.orders.ranks(self.index, self.algorithms)

    @property
    def mean_errors(self):
        """Mean error of each algorithm, ``{algorithm: float}``."""
        return dict(zip(self.algorithms, self.table.mean_errors[self.index].tolist()))

    @property
    def has_overrides(self):
        """Whether a costlier algorithm overrode a cheaper one on this data set (read from
        the decisions alone: no statistic or p-value is computed)."""
        return self.n_overrides > 0

    @property
    def n_overrides(self):
        """How many times a costlier algorithm overrode a cheaper one on this data set
        (read from the decisions alone)."""
        return int(self.table.override[self.index].sum()) if self.tested else 0

    def pairs(self):
        """Every tested pair, cheaper first, as a list of dicts (the rows of
        :meth:`pair_columns`).

        Keys: ``a`` (cheaper), ``b`` (costlier), ``statistic``, ``pvalue``,
        ``pvalue_adjusted``, ``mean_error_a``, ``mean_error_b``, ``override``.
        """
        columns = self.pair_columns()
        keys, values = list(columns), [c.tolist() for c in columns.values()]
        return [dict(zip(keys, row)) for row in zip(*values)]

    def pair_columns(self):
        """Every tested pair, cheaper first, by column: the keys of :meth:`pairs`.

        Returns
        -------
        dict of str to ndarray
            ``a``, ``b`` (names, object arrays), ``statistic``, ``pvalue``,
            ``pvalue_adjusted``, ``mean_error_a``, ``mean_error_b`` (float) and
            ``override`` (bool); empty when the data set has no pairwise test.
        """
        if not self.tested:
            return {key: np.empty(0, dtype=kind) for key, kind in _PAIR_COLUMNS.items()}
        t, s = self.table, self.index
        keep = t.costlier < len(self.prior_order)     # all but under missing='partial'
        prior = t.prior[s]
        cheaper, costlier = prior[t.cheaper[keep]], prior[t.costlier[keep]]
        names = np.asarray(self.algorithms, dtype=object)
        means = t.mean_errors[s]
        return {"a": names[cheaper], "b": names[costlier],
                "statistic": t.statistic[s][keep].astype(float),
                "pvalue": t.pvalue[s][keep].astype(float),
                "pvalue_adjusted": t.pvalue_adjusted[s][keep].astype(float),
                "mean_error_a": means[cheaper].astype(float),
                "mean_error_b": means[costlier].astype(float),
                "override": t.override[s][keep].astype(bool)}

    def to_frame(self):
        """MultiTest's order on this data set as a :class:`pandas.DataFrame`, best first.

        Columns ``position``, ``algorithm``, ``prior_position``, ``cost``,
        ``mean_error``, ``overrides``, ``overridden_by``; see
        :func:`multitest.engine._frames.dataset_frame`.

        Examples
        --------
        >>> from multitest import rank, example_results
        >>> result = rank(example_results(), "training_time").dataset("optdigits")
        >>> list(result.to_frame()["algorithm"]) == list(result.order)
        True
        """
        from ._frames import dataset_frame

        return dataset_frame(self)

    def pairwise_frame(self):
        """The pairwise tests of this data set, labelled by names: :meth:`pair_columns`
        as a :class:`pandas.DataFrame`, cheaper first."""
        import pandas as pd

        return pd.DataFrame(self.pair_columns())

    def edges(self):
        """Override edges ``(cheaper, costlier, statistic, pvalue)``; costlier wins."""
        if not self.tested:
            return []
        t, s = self.table, self.index
        hit = np.flatnonzero(t.override[s])
        prior = t.prior[s]
        names = self.algorithms
        return [(names[a], names[b], st, p) for a, b, st, p in
                zip(prior[t.cheaper[hit]].tolist(), prior[t.costlier[hit]].tolist(),
                    t.statistic[s, hit].tolist(), t.pvalue[s, hit].tolist())]

    def overrides(self):
        """Override matrix in prior order (see :mod:`multitest.engine._ordering`)."""
        n = len(self.prior_order)   # the algorithms ordered on this data set
        out = np.zeros((n, n), dtype=bool)
        if self.tested:
            t = self.table
            tested = t.costlier < n
            out[t.cheaper[tested], t.costlier[tested]] = t.override[self.index][tested]
        return out

    def graph(self):
        """The override graph as a :class:`networkx.DiGraph`.

        Nodes are algorithms in prior order with ``cost``, ``position``,
        ``mean_error`` and ``rank`` attributes; an edge ``i -> j`` means the
        costlier ``j`` is significantly better than the cheaper ``i``, with
        ``statistic``, ``pvalue``, ``pvalue_adjusted``, ``mean_error_from`` and
        ``mean_error_to`` attributes.
        """
        import networkx as nx  # only when a graph object is asked for

        graph = nx.DiGraph(name=self.name)
        cost = dict(zip(self.algorithms, self.costs.tolist()))
        means = self.mean_errors
        for position, name in enumerate(self.prior_order):
            graph.add_node(name, position=position, cost=cost[name], mean_error=means[name],
                           rank=self.ranks[name])
        for pair in self.pairs():
            if pair["override"]:
                graph.add_edge(pair["a"], pair["b"], statistic=pair["statistic"],
                               pvalue=pair["pvalue"], pvalue_adjusted=pair["pvalue_adjusted"],
                               mean_error_from=pair["mean_error_a"],
                               mean_error_to=pair["mean_error_b"])
        return graph

    def __repr__(self):
        # Short: the dataclass repr would print the arrays of every data set.
        return (f"DataSetResult(name={self.name!r}, order={list(self.order)}, "
                f"prior_order={list(self.prior_order)}, overrides={self.n_overrides})")

    def trace(self):
        """Steps of the cost-ordered sort, with algorithm names.

        Returns
        -------
        tuple of SortStep
            Whose ``remaining``, ``candidates`` and ``taken`` are names.
        """
        return named_trace(self.overrides(), self.prior_order)


def multitest_per_dataset(results, keys, test, *, alpha, correction, alternative, design=None,
                          bayes=None, tolerance=None):
    """Run MultiTest on every data set.

    Parameters
    ----------
    results : multitest.inputs.Results
    keys : ndarray, shape (levels, S, L)
        Cost sort keys from :meth:`multitest.inputs.CostProfile.keys`.
    test : multitest.stats.PairwiseTest or None
        None for a score matrix: each data set is then ordered by its values.
    design : multitest.inputs.FoldDesign, optional
        Overrides ``results.design`` (e.g. with a test/train ratio).
    bayes : multitest.stats.BayesSettings, optional
        ROPE and threshold of a Bayesian test (``test.bayesian``; default
        rope 0, threshold 0.95); unused by the other tests.
    tolerance : multitest.engine.CostTolerance, optional
        Costs within it are ties (default: only equal costs).

    Returns
    -------
    tuple of DataSetResult

    Examples
    --------
    >>> from multitest import example_results, load_profile
    >>> from multitest.engine import multitest_per_dataset
    >>> from multitest.stats import get_test
    >>> results = example_results()
    >>> keys = load_profile("training_time").keys(results.datasets, results.algorithms)
    >>> per_dataset = multitest_per_dataset(results, keys, get_test("combined-5x2cv-f"),
    ...                                     alpha=0.05, correction="none",
    ...                                     alternative="two-sided")
    >>> per_dataset[0].name, per_dataset[0].order[0]
    ('australian', '5nn')
    """
    names = results.algorithms
    groups = None if tolerance is None or tolerance.exact else tolerance.groups(keys[0])
    prior = prior_positions(keys, names, groups)
    tie_keys = keys[0] if groups is None else groups
    tested = results.has_folds
    if tested:
        design = results.design if design is None else design
        table = (run_bayesian_tests(results.errors, prior, design, bayes, correction)
                 if test.bayesian else
                 run_pairwise_tests(results.errors, prior, test, design, alpha=alpha,
                                    correction=correction, alternative=alternative))
        # Best first, as algorithm indices: the sort of each data set, all at once.
        order = order_array(*prior.shape)
        order[:] = np.take_along_axis(prior, _cost_ordered_sorts(table), axis=1)
        shared = DataSetOrders(costs=keys[0], order=order, scores=None, partial=False)
    else:
        table = _untested_table(results.errors, prior)
        shared = _score_orders(keys[0], table.mean_errors, prior)
    ties = _tied_rows(tie_keys)
    return tuple(DataSetResult(
        name=dataset, index=s, algorithms=names,
        cost_ties=cost_ties(tie_keys[s], names) if ties[s] else (),
        tested=tested, table=table, orders=shared)
        for s, dataset in enumerate(results.datasets))


def _score_orders(costs, values, prior):
    """The :class:`DataSetOrders` of a score matrix: each data set ordered by its values
    (equal values cheaper first), ranked by them (ties averaged)."""
    from scipy.stats import rankdata  # score matrices only

    S, L = values.shape
    order = order_array(S, L)
    for s in range(S):
        cost_position = np.argsort(prior[s])
        order[s] = np.lexsort((cost_position, values[s]))
    return DataSetOrders(costs=costs, order=order, scores=rankdata(values, axis=1),
                         partial=False)


def _tied_rows(costs):
    """Which data sets have two algorithms of equal primary cost (shape (S,))."""
    ordered = np.sort(np.asarray(costs, dtype=float), axis=1)
    return (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)


#: Bound on the override matrices held at once by :func:`_cost_ordered_sorts`.
_SORT_ELEMENTS = 1 << 24


def _cost_ordered_sorts(table):
    """:func:`multitest.engine.cost_ordered_sort` of every data set, vectorized.

    Returns
    -------
    ndarray of int, shape (S, L)
        Prior positions, best first, for each data set.

    Notes
    -----
    The same rule as the heap of :func:`~multitest.engine.cost_ordered_sort`,
    stepped for all data sets together: at each step, take on every data set
    the cheapest remaining node that no remaining node beats, and discount
    the nodes it beats.  ``L`` steps of ``O(S L)`` array work instead of a
    Python loop over data sets and nodes.
    """
    S, L = table.prior.shape
    out = np.empty((S, L), dtype=np.intp)
    # Counts of remaining better nodes fit a small integer (fewer bytes per step);
    # a taken node gets -1, which no later step lowers to 0 (nothing remaining beats it).
    count = np.int8 if L < 127 else np.int16 if L < 32767 else np.int32
    rows = max(1, _SORT_ELEMENTS // (2 * L * L * np.dtype(count).itemsize))
    for s0 in range(0, S, rows):
        _sort_block(table.override, out, count, s0, min(S, s0 + rows))
    return out


def _sort_block(override, out, count, s0, s1):
    """:func:`_cost_ordered_sorts` of the data sets ``s0:s1`` into ``out``."""
    n, L = s1 - s0, out.shape[1]
    start = np.concatenate(([0], np.cumsum(np.arange(L - 1, 0, -1))))
    # The decisions as the counts' integers (True is 1; for one-byte counts a view, whose
    # rows are then copied, not cast), summed and copied as such.
    override = override[s0:s1].view(np.uint8)
    override = override.view(count) if np.dtype(count).itemsize == 1 else override.astype(count)
    # beaten[s, i, j]: the costlier j beats the cheaper i (edge i -> j); the
    # pairs of each cheaper i are contiguous (np.triu_indices order): row copies.
    beaten = np.zeros((n, L, L), dtype=count)
    for i in range(L - 1):
        beaten[:, i, i + 1:] = override[:, start[i]:start[i + 1]]
    better_remaining = np.zeros((n, L), dtype=count)
    if L > 1:   # each cheaper node's pairs summed at once
        better_remaining[:, :-1] = np.add.reduceat(override, start[:-1], axis=1, dtype=count)
    # beats[s * L + j]: the nodes j beats, one contiguous row to take per step.
    beats = np.ascontiguousarray(beaten.transpose(0, 2, 1)).reshape(n * L, L)
    del beaten
    rows_of = np.arange(0, n * L, L)
    flat = better_remaining.reshape(-1)
    free = np.empty((n, L), dtype=bool)
    for step in range(L):
        np.equal(better_remaining, 0, out=free)
        pick = free.argmax(axis=1)   # the cheapest free node (acyclic: one exists)
        out[s0:s1, step] = pick
        taken = rows_of + pick
        better_remaining -= beats.take(taken, axis=0)
        flat[taken] = -1


def _untested_table(errors, prior):
    mean_errors = errors.mean(axis=2)
    empty = np.empty((errors.shape[0], 0))
    return PairwiseTable(prior=prior, cheaper=np.empty(0, int), costlier=np.empty(0, int),
                         statistic=empty, pvalue=empty, pvalue_adjusted=empty,
                         override=empty.astype(bool), mean_errors=mean_errors)
