"""Multi²Test's second pass: from per-data-set ranks to the final order.

The prior is the average normalized cost over the data sets; an edge
``i -> j`` (``i`` cheaper) is drawn when the post-hoc test says the pair
differs and ``j`` is better (lower average rank for Nemenyi, lower median
difference of mean errors for the Wilcoxon and sign tests); the same
cost-keyed sort as on one data set gives the final order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._errors import MultitestError
from .._format import p_equals
from ..stats._bayesian import BayesSettings
from ..stats._friedman import friedman
from ..stats._skillings_mack import skillings_mack
from ._ordering import cost_ordered_sort, named_trace, overrides_from_decisions
from ._per_dataset import cost_ties, prior_positions
from ._second_pass_methods import check_handles_missing, get_second_pass_method

__all__ = ["SecondPassResult", "second_pass"]


@dataclass(frozen=True, eq=False)
class SecondPassResult:
    """The second pass of Multi²Test.

    Attributes
    ----------
    method : str
        One of :data:`~multitest.engine._second_pass_methods.SECOND_PASS_METHODS`;
        :attr:`method_entry` is its entry.
    correction : str
        Family-wise correction of the post-hoc p-values (``'none'`` for a
        method that takes none, e.g. Nemenyi, simultaneous by construction).
    alpha : float
    applied : bool
        False when the Friedman gate kept the post-hoc test from running:
        then there are no edges and the final order is the average-cost order.
    gate : str
        One sentence stating the Friedman gate decision.
    algorithms : tuple of str
    average_positions, average_costs : ndarray, shape (L,)
    prior_order : tuple of str
        Average-cost order, cheapest first.
    cost_ties : tuple of tuple of str
        Groups of algorithms whose average costs are equal, or within the
        cost tolerance, each sorted by name.
    posthoc : multitest.stats.PosthocResult or None
        The post-hoc test (None when not applied).
    significant : ndarray of bool, shape (L, L)
        Pairs found different (all false when not applied).
    better : ndarray of bool, shape (L, L)
        ``better[a, b]``: ``a`` is better than ``b`` by the method's criterion.
    order : tuple of str
        The final order, best first.
    gate_test : multitest.stats.FriedmanResult or multitest.stats.SkillingsMackResult
        The test of the gate (Skillings--Mack under ``missing='partial'``).
    incomplete : bool
        ``missing='partial'``: algorithms are absent from some data sets; the
        average ranks and costs are over the data sets where each ran.

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> ranking.second_pass.method, ranking.second_pass.order[0]
    ('nemenyi', '5nn')
    """

    method: str
    correction: str
    alpha: float
    applied: bool
    gate: str
    algorithms: tuple
    average_positions: np.ndarray
    average_costs: np.ndarray
    prior_order: tuple
    cost_ties: tuple
    posthoc: object
    significant: np.ndarray
    better: np.ndarray
    order: tuple
    gate_test: object = None
    incomplete: bool = False

    @property
    def gate_name(self):
        """The gate's test, as the outputs name it."""
        return "Skillings-Mack test" if self.incomplete else "Friedman test"

    @property
    def method_entry(self):
        """The :class:`~multitest.engine.SecondPassMethod` of the run."""
        return get_second_pass_method(self.method)

    @property
    def critical_difference(self):
        return None if self.posthoc is None else self.posthoc.critical_difference

    def overrides(self):
        """Override matrix in prior order."""
        index = {a: i for i, a in enumerate(self.algorithms)}
        position_of = np.argsort([index[a] for a in self.prior_order])
        return overrides_from_decisions(position_of, self.significant, self.better)

    def edges(self):
        """Override edges ``(cheaper, costlier)`` of the second-pass graph."""
        i, j = np.nonzero(self.overrides())
        return _name_pairs(self.prior_order, i, j)

    def significant_pairs(self):
        """Pairs found different, ``[(a, b)]`` with ``a`` before ``b`` in input order."""
        i, j = np.nonzero(np.triu(self.significant, k=1))
        return _name_pairs(self.algorithms, i, j)

    def graph(self):
        """The second-pass graph as a :class:`networkx.DiGraph`."""
        import networkx as nx  # only when a graph object is asked for

        graph = nx.DiGraph(name="second pass")
        index = {a: i for i, a in enumerate(self.algorithms)}
        for position, name in enumerate(self.prior_order):
            i = index[name]
            graph.add_node(name, position=position, average_cost=float(self.average_costs[i]),
                           average_position=float(self.average_positions[i]))
        pvalues = None if self.posthoc is None else self.posthoc.pvalues
        for a, b in self.edges():
            attributes = {} if pvalues is None else {"pvalue": float(pvalues[index[a], index[b]])}
            graph.add_edge(a, b, **attributes)
        return graph

    def __repr__(self):
        # Short: the dataclass repr would print every matrix.
        return (f"SecondPassResult(method={self.method!r}, applied={self.applied}, "
                f"order={list(self.order)}, overrides={len(self.edges())})")

    def trace(self):
        """Steps of the cost-ordered sort, with algorithm names."""
        return named_trace(self.overrides(), self.prior_order)


def order_by_decisions(prior_order, significant_pairs, average_positions):
    """The second-pass rule on named inputs (docs/method.md section 5, step 5).

    Parameters
    ----------
    prior_order : sequence of str
        Cheapest first.
    significant_pairs : iterable of (str, str)
        Pairs that differ.
    average_positions : dict
        ``{algorithm: average position}``, lower is better.

    Returns
    -------
    order : tuple of str
        Best first.
    edges : list of (str, str)
        ``(cheaper, costlier)`` overrides.

    Examples
    --------
    >>> from multitest.engine._second_pass import order_by_decisions
    >>> order_by_decisions("ABC", [("A", "C"), ("B", "C")], {"A": 2, "B": 3, "C": 1})
    (('C', 'A', 'B'), [('A', 'C'), ('B', 'C')])
    """
    names = tuple(prior_order)
    index = {a: i for i, a in enumerate(names)}
    missing = [a for a in names if a not in average_positions]
    if missing:
        raise MultitestError(f"`average_positions` has no position for {', '.join(missing)}")
    significant = np.zeros((len(names),) * 2, dtype=bool)
    for a, b in significant_pairs:
        significant[index[a], index[b]] = significant[index[b], index[a]] = True
    ranks = np.array([average_positions[a] for a in names], dtype=float)
    overrides = overrides_from_decisions(np.arange(len(names)), significant,
                                         ranks[:, None] < ranks[None, :])
    order = tuple(names[i] for i in cost_ordered_sort(overrides))
    i, j = np.nonzero(overrides)
    return order, [(names[a], names[b]) for a, b in zip(i, j)]


def second_pass(ranks, mean_errors, keys, algorithms, *, method="nemenyi", alpha=0.05,
                correction="holm", friedman_gate=True, friedman_ties="corrected", bayes=None,
                tolerance=None, absent=None):
    """Run the Friedman test, the post-hoc test and the second-pass sort.

    Parameters
    ----------
    ranks : ndarray, shape (S, L)
        Per-data-set ranks (1 = best), S >= 2.
    mean_errors : ndarray, shape (S, L)
        Per-data-set mean errors (used by the Wilcoxon and sign tests).
    keys : ndarray, shape (levels, S, L)
        Cost sort keys; their averages over data sets give the prior.
    algorithms : sequence of str
    method : str
        One of :data:`~multitest.engine._second_pass_methods.SECOND_PASS_METHODS`.
    alpha : float
    correction : str
        Family-wise correction, for the methods that take one (Wilcoxon, sign).
    friedman_gate : bool
        Apply the post-hoc test only when the Friedman test rejects.  A
        Bayesian method (the Bayesian signed-rank test) is never gated.
    friedman_ties : {'corrected', 'uncorrected'}
        Tie correction of the Friedman statistic (see :func:`multitest.stats.friedman`).
    bayes : multitest.stats.BayesSettings, optional
        ROPE, threshold, seed and samples of the ``'bayesian'`` method.
    tolerance : multitest.engine.CostTolerance, optional
        Average costs within it are ties (default: only equal ones).
    absent : ndarray of bool, shape (S, L), optional
        ``missing='partial'``: the algorithms not ordered on each data set
        (NaN in `ranks` and `mean_errors`).  The gate is then the
        Skillings--Mack test, the average ranks and the prior are averages
        over the data sets where each algorithm ran, and the method must
        handle missing cells (:attr:`SecondPassMethod.handles_missing`).

    Returns
    -------
    gate_test : multitest.stats.FriedmanResult or multitest.stats.SkillingsMackResult
    result : SecondPassResult

    Examples
    --------
    >>> import numpy as np
    >>> from multitest.engine import second_pass
    >>> ranks = np.array([[1, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3]], dtype=float)
    >>> keys = np.array([[[1.0, 2.0, 3.0]] * 4])     # one cost level, (levels, S, L)
    >>> gate_test, result = second_pass(ranks, ranks, keys, ["a", "b", "c"])
    >>> gate_test.statistic, result.order
    (4.5, ('a', 'b', 'c'))
    """
    entry = get_second_pass_method(method)
    algorithms = tuple(algorithms)
    ranks = np.asarray(ranks, dtype=float)
    if absent is None:
        fr = friedman(ranks, ties=friedman_ties)
        average_positions = ranks.mean(axis=0)
        gate = _gate_sentence(fr, alpha, friedman_gate)
    else:
        check_handles_missing(entry)
        fr = skillings_mack(ranks)
        average_positions = np.nanmean(ranks, axis=0)
        gate = _skillings_mack_sentence(fr, alpha, friedman_gate)
    average_keys, prior = average_cost_prior(keys, algorithms, tolerance, absent)
    applied = fr.pvalue < alpha or not friedman_gate
    if entry.bayesian:
        applied, gate = True, _bayesian_gate_sentence(fr, bayes)
    posthoc, significant, better = second_pass_decisions(
        entry, ranks, mean_errors, average_positions, applied=applied, alpha=alpha,
        correction=correction, bayes=bayes)
    order = tuple(algorithms[a] for a in final_order(prior, significant, better))
    result = SecondPassResult(
        method=method, correction=correction if entry.takes_correction else "none",
        alpha=alpha,
        applied=applied, gate=gate, algorithms=algorithms, average_positions=average_positions,
        average_costs=average_keys[0], prior_order=tuple(algorithms[i] for i in prior),
        cost_ties=cost_ties(_average_tie_keys(average_keys, tolerance), algorithms),
        posthoc=posthoc, significant=significant, better=better, order=order, gate_test=fr,
        incomplete=absent is not None)
    return fr, result


def second_pass_decisions(entry, ranks, mean_errors, average_positions, *, applied, alpha,
                          correction, bayes=None, keep=True):
    """The post-hoc test of a second pass and its decisions (steps 3 and 4).

    Parameters
    ----------
    entry : multitest.engine.SecondPassMethod
    ranks, mean_errors : ndarray, shape (S, L)
    average_positions : ndarray, shape (L,)
        ``ranks.mean(axis=0)``.
    applied : bool
        Whether the post-hoc test is applied (the Friedman gate).
    alpha : float
    correction : str
        Used when ``entry.takes_correction``.
    bayes : multitest.stats.BayesSettings, optional
        Of a Bayesian method.
    keep : bool, default True
        Return the post-hoc result; False: only the decisions, through the
        method's faster ``decision`` when it has one (the stability
        bootstrap), and ``posthoc`` is then None.

    Returns
    -------
    posthoc : multitest.stats.PosthocResult or None
        None when not applied (or not kept).
    significant, better : ndarray of bool, shape (L, L)
        The pairs found different; ``better[a, b]``: ``a`` beats ``b``.
    """
    L = len(average_positions)
    posthoc = None
    if not applied:
        significant = np.zeros((L, L), dtype=bool)
    elif not keep and entry.decision is not None:
        significant = entry.decision(ranks, mean_errors, alpha=alpha, correction=correction)
    else:
        posthoc = entry.posthoc(ranks, mean_errors, alpha=alpha, correction=correction,
                                bayes=bayes)
        significant = np.asarray(posthoc.significant, dtype=bool)
    return posthoc, significant, entry.better(average_positions, mean_errors, posthoc)


def average_cost_prior(keys, algorithms, tolerance=None, absent=None):
    """The second-pass prior: cost keys averaged over the data sets.

    Parameters
    ----------
    keys : array_like, shape (levels, S, L)
    algorithms : sequence of str
    tolerance : multitest.engine.CostTolerance, optional
        Average costs within it are ties, ordered by the secondary profile,
        then by name (:meth:`~multitest.engine.CostTolerance.average_groups`).
    absent : ndarray of bool, shape (S, L), optional
        Leave these cells out: each algorithm's cost is averaged over the data
        sets where it ran (``missing='partial'``).

    Returns
    -------
    average_keys : ndarray, shape (levels, L)
    prior : ndarray of int, shape (L,)
        The algorithm at each average-cost position, cheapest first.
    """
    keys = np.asarray(keys, dtype=float)
    if absent is None:
        average_keys = keys.mean(axis=1)
    else:
        ran = ~np.asarray(absent, dtype=bool)
        average_keys = (keys * ran).sum(axis=1) / np.maximum(ran.sum(axis=0), 1)
    groups = _average_tie_keys(average_keys, tolerance)
    return average_keys, prior_positions(average_keys[:, None, :], algorithms,
                                         groups[None])[0]


def _average_tie_keys(average_keys, tolerance=None):
    """Keys whose equal values are the ties of the average costs (the costs when exact)."""
    if tolerance is None or tolerance.exact:
        return average_keys[0]
    return tolerance.average_groups(average_keys[0])


def final_order(prior, significant, better):
    """Algorithm indices, best first, from the post-hoc decisions (step 5).

    Parameters
    ----------
    prior : ndarray of int, shape (L,)
        From :func:`average_cost_prior`.
    significant, better : ndarray of bool, shape (L, L)
        The pairs found different; ``better[a, b]``: ``a`` beats ``b``.
    """
    overrides = overrides_from_decisions(np.argsort(prior), significant, better)
    return prior[cost_ordered_sort(overrides)]


_TIES_WORDS = {"corrected": "tie-corrected", "uncorrected": "without tie correction"}


def _bayesian_gate_sentence(fr, bayes):
    bayes = BayesSettings() if bayes is None else bayes
    return (f"Friedman test chi2={fr.statistic:.4g}, {p_equals(fr.pvalue, spaced=False)} "
            "(reported, not a gate): "
            f"the Bayesian signed-rank test (rope={bayes.rope:g}) is applied to every pair; a "
            f"costlier algorithm overrides when P(practically better) >= {bayes.threshold:g}.")


def _skillings_mack_sentence(sm, alpha, friedman_gate):
    verdict = "rejects" if sm.pvalue < alpha else "does not reject"
    text = (f"Skillings-Mack test (Friedman's test with missing cells) {verdict} equal "
            f"positions at alpha={alpha:g} (SM={sm.statistic:.4g}, df {sm.df}, "
            f"{p_equals(sm.pvalue, spaced=False)}; {sm.n_blocks} data sets, "
            f"{sm.n_missing} missing cells"
            + (f", {sm.n_dropped} data set(s) with fewer than 2 algorithms not used"
               if sm.n_dropped else "") + ")")
    return text + _gate_outcome(sm.pvalue, alpha, friedman_gate)


def _gate_sentence(fr, alpha, friedman_gate):
    verdict = "rejects" if fr.pvalue < alpha else "does not reject"
    text = (f"Friedman test {verdict} equal average positions at alpha={alpha:g} "
            f"(chi2={fr.statistic:.4g} {_TIES_WORDS[fr.ties]}, "
            f"{p_equals(fr.pvalue, spaced=False)})")
    if fr.all_tied:
        text += " [all algorithms tied on every data set: no information, chi2=0, p=1]"
    return text + _gate_outcome(fr.pvalue, alpha, friedman_gate)


def _gate_outcome(pvalue, alpha, friedman_gate):
    """The end of a gate sentence: whether the post-hoc test is applied."""
    if not friedman_gate:
        return "; gate off: the post-hoc test is applied regardless."
    if pvalue < alpha:
        return ": the post-hoc test is applied."
    return ": the post-hoc test is not applied; the final order is the average-cost order."


def _name_pairs(names, i, j):
    """``[(names[i[k]], names[j[k]])]``, built column-wise (hundreds of thousands of pairs)."""
    names = np.asarray(names, dtype=object)
    return list(zip(names[i].tolist(), names[j].tolist()))
