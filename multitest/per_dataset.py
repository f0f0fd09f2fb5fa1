"""MultiTest on each data set: pairwise tests, override graph, order and ranks.

The pairwise tests of every data set run together, vectorized over pairs and
data sets (in chunks, so that memory stays bounded however many algorithms
there are).  The result of each data set is a light :class:`DataSetResult`
whose arrays are rows of the shared :class:`PairwiseTable`.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
from scipy.stats import rankdata

from .corrections import adjust_pvalues
from .ordering import SortStep, cost_ordered_sort, sort_trace

__all__ = ["DataSetResult", "PairwiseTable", "prior_positions", "run_pairwise_tests",
           "multitest_per_dataset"]

# Elements (pairs x folds) tested at once; bounds the memory of stage 1.
_CHUNK_ELEMENTS = 2_000_000


def prior_positions(keys, names):
    """Cost position of every algorithm (0 = cheapest) on each data set.

    Parameters
    ----------
    keys : ndarray, shape (levels, S, L)
        Sort keys, primary cost first, then tie-breaking profiles.
    names : sequence of str
        Algorithm names: the last tie-break.

    Returns
    -------
    prior : ndarray of int, shape (S, L)
        ``prior[s, i]`` is the algorithm at cost position ``i`` on data set ``s``.
    """
    keys = np.asarray(keys, dtype=float)
    name_rank = np.broadcast_to(np.argsort(np.argsort(np.asarray(names, dtype=object))),
                                keys.shape[1:])
    return np.lexsort((name_rank,) + tuple(keys[::-1]), axis=-1)


def cost_ties(costs, names):
    """Groups of algorithms with equal cost, each group sorted by name."""
    groups = {}
    for name, cost in zip(names, costs):
        groups.setdefault(float(cost), []).append(name)
    return tuple(tuple(sorted(g)) for g in groups.values() if len(g) > 1)


@dataclass(frozen=True, eq=False)
class PairwiseTable:
    """Every pairwise test of every data set, pairs in prior (cost) order.

    Pair ``p`` of data set ``s`` compares the algorithms at cost positions
    ``first[p] < second[p]``: ``prior[s, first[p]]`` is the cheaper.

    Attributes
    ----------
    prior : ndarray of int, shape (S, L)
    first, second : ndarray of int, shape (P,)
    statistic, pvalue, pvalue_adjusted : ndarray, shape (S, P)
        ``statistic`` is oriented cheaper minus costlier (positive t: the
        costlier has the lower error).  ``pvalue_adjusted`` is ``pvalue``
        after the within-data-set correction.
    override : ndarray of bool, shape (S, P)
        The costlier is significantly better than the cheaper.
    mean_errors : ndarray, shape (S, L)
        Mean error of each algorithm (input order).
    """

    prior: np.ndarray
    first: np.ndarray
    second: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray
    override: np.ndarray
    mean_errors: np.ndarray

    @property
    def n_tests(self):
        return self.statistic.size


def run_pairwise_tests(errors, prior, test, design, *, alpha, correction, alternative):
    """Run ``test`` on every pair of every data set.

    Parameters
    ----------
    errors : ndarray, shape (S, L, F)
    prior : ndarray of int, shape (S, L)
        From :func:`prior_positions`.
    test : multitest.pairwise.PairwiseTest
    design : multitest.pairwise.FoldDesign
    alpha : float
    correction : str
        Within-data-set correction (see :mod:`multitest.corrections`).
    alternative : {'two-sided', 'greater'}
        ``'greater'``: one-sided, "the costlier is better".

    Returns
    -------
    PairwiseTable
    """
    S, L, F = errors.shape
    first, second = np.triu_indices(L, k=1)
    statistic = np.empty((S, first.size))
    pvalue = np.empty((S, first.size))
    step = max(1, _CHUNK_ELEMENTS // max(1, first.size * F))
    for start in range(0, S, step):
        rows = slice(start, min(S, start + step))
        in_prior = np.take_along_axis(errors[rows], prior[rows, :, None], axis=1)
        cheaper = in_prior[:, first, :].reshape(-1, F)
        costlier = in_prior[:, second, :].reshape(-1, F)
        stat, p = test(cheaper, costlier, design, alternative=alternative)
        statistic[rows] = np.reshape(stat, (-1, first.size))
        pvalue[rows] = np.reshape(p, (-1, first.size))
    adjusted = pvalue if correction == "none" else adjust_pvalues(pvalue, correction, axis=-1)
    mean_errors = errors.mean(axis=2)
    mean_in_prior = np.take_along_axis(mean_errors, prior, axis=1)
    override = (adjusted < alpha) & (mean_in_prior[:, second] < mean_in_prior[:, first])
    for array in (statistic, pvalue, adjusted, override, mean_errors):
        array.setflags(write=False)
    return PairwiseTable(prior=prior, first=first, second=second, statistic=statistic,
                         pvalue=pvalue, pvalue_adjusted=adjusted, override=override,
                         mean_errors=mean_errors)


@dataclass(frozen=True, eq=False)
class DataSetResult:
    """MultiTest on one data set.

    Attributes
    ----------
    name : str
    algorithms : tuple of str
        Input order.
    costs : ndarray, shape (L,)
        Primary normalized cost of each algorithm (input order).
    prior_order : tuple of str
        Cheapest first (ties broken by the secondary profile, then by name).
    cost_ties : tuple of tuple of str
        Groups of algorithms whose primary cost is equal.
    order : tuple of str
        Best first.
    ranks : dict
        ``{algorithm: rank}``, 1 = best.  Integers after a pairwise test;
        average ranks of the values for a score matrix (``tested`` false).
    tested : bool
        Whether pairwise tests were run (False for score-matrix input).
    """

    name: str
    index: int
    algorithms: tuple
    costs: np.ndarray
    prior_order: tuple
    cost_ties: tuple
    order: tuple
    ranks: dict
    tested: bool
    table: PairwiseTable | None

    @property
    def mean_errors(self):
        """Mean error of each algorithm, ``{algorithm: float}``."""
        return dict(zip(self.algorithms, self._mean_errors().tolist()))

    def _mean_errors(self):
        return self.table.mean_errors[self.index]

    def pairs(self):
        """Every tested pair, cheaper first, as a list of dicts.

        Keys: ``a`` (cheaper), ``b`` (costlier), ``statistic``, ``pvalue``,
        ``pvalue_adjusted``, ``mean_error_a``, ``mean_error_b``, ``override``.
        """
        if not self.tested:
            return []
        t, s = self.table, self.index
        prior = t.prior[s]
        means = t.mean_errors[s]
        cheaper, costlier = prior[t.first], prior[t.second]
        return [{"a": self.algorithms[a], "b": self.algorithms[b],
                 "statistic": float(st), "pvalue": float(p), "pvalue_adjusted": float(pa),
                 "mean_error_a": float(means[a]), "mean_error_b": float(means[b]),
                 "override": bool(o)}
                for a, b, st, p, pa, o in zip(cheaper, costlier, t.statistic[s], t.pvalue[s],
                                              t.pvalue_adjusted[s], t.override[s])]

    def edges(self):
        """Override edges ``(cheaper, costlier, statistic, pvalue)``; costlier wins."""
        return [(p["a"], p["b"], p["statistic"], p["pvalue"]) for p in self.pairs()
                if p["override"]]

    def overrides(self):
        """Override matrix in prior order (see :mod:`multitest.ordering`)."""
        L = len(self.algorithms)
        out = np.zeros((L, L), dtype=bool)
        if self.tested:
            t = self.table
            out[t.first, t.second] = t.override[self.index]
        return out

    def graph(self):
        """The override graph as a :class:`networkx.DiGraph`.

        Nodes are algorithms in prior order with ``cost``, ``position``,
        ``mean_error`` and ``rank`` attributes; an edge ``i -> j`` means the
        costlier ``j`` is significantly better than the cheaper ``i``, with
        ``statistic``, ``pvalue``, ``pvalue_adjusted``, ``mean_error_from`` and
        ``mean_error_to`` attributes.
        """
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

    def _repr_svg_(self):
        # The override graph in Jupyter; rendering is imported only when asked for.
        from .render import render_override_graph, to_svg

        return to_svg(render_override_graph(self))

    def trace(self):
        """Steps of the cost-ordered sort, with algorithm names.

        Returns
        -------
        tuple of SortStep
            Whose ``remaining``, ``candidates`` and ``taken`` are names.
        """
        names = self.prior_order
        return tuple(SortStep(remaining=tuple(names[i] for i in step.remaining),
                              candidates=tuple(names[i] for i in step.candidates),
                              taken=names[step.taken])
                     for step in sort_trace(self.overrides()))


def multitest_per_dataset(results, keys, test, *, alpha, correction, alternative):
    """Run MultiTest on every data set.

    Parameters
    ----------
    results : multitest.results.Results
    keys : ndarray, shape (levels, S, L)
        Cost sort keys from :meth:`multitest.costs.CostProfile.keys`.
    test : multitest.pairwise.PairwiseTest or None
        None for a score matrix: each data set is then ordered by its values.

    Returns
    -------
    tuple of DataSetResult
    """
    names = results.algorithms
    prior = prior_positions(keys, names)
    tested = results.has_folds
    if tested:
        table = run_pairwise_tests(results.errors, prior, test, results.design, alpha=alpha,
                                   correction=correction, alternative=alternative)
    else:
        table = _untested_table(results.errors, prior)
    out = []
    for s, dataset in enumerate(results.datasets):
        positions = prior[s]
        if tested:
            overrides = np.zeros((len(names),) * 2, dtype=bool)
            overrides[table.first, table.second] = table.override[s]
            order = positions[cost_ordered_sort(overrides)]
            ranks = {names[a]: r for r, a in enumerate(order.tolist(), start=1)}
        else:
            values = table.mean_errors[s]
            average = rankdata(values)
            cost_position = np.argsort(positions)
            order = np.lexsort((cost_position, values))
            ranks = {names[a]: float(average[a]) for a in range(len(names))}
        out.append(DataSetResult(
            name=dataset, index=s, algorithms=names, costs=keys[0, s],
            prior_order=tuple(names[a] for a in positions), cost_ties=cost_ties(keys[0, s], names),
            order=tuple(names[a] for a in order), ranks=ranks, tested=tested, table=table))
    return tuple(out)


def _untested_table(errors, prior):
    mean_errors = errors.mean(axis=2)
    empty = np.empty((errors.shape[0], 0))
    return PairwiseTable(prior=prior, first=np.empty(0, int), second=np.empty(0, int),
                         statistic=empty, pvalue=empty, pvalue_adjusted=empty,
                         override=empty.astype(bool), mean_errors=mean_errors)
