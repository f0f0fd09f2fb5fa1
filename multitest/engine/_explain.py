"""Why the final order is what it is, in words (docs/method.md §4, §5).

Computation only: no rendering import.  :func:`explain_order` gives one
sentence per final position, built from the graph the order was sorted on
(the second-pass graph over several data sets, the override graph of the
data set with one); :func:`friedman_power` says, when the Friedman test does
not reject, what power it had for the observed effect and from how many data
sets the same average ranks would reject; :func:`cost_unit_sentence` states
what the cost numbers are.

How the sentences are built, for algorithm ``a`` at position ``k``: the sort
puts every algorithm found significantly better than ``a`` (necessarily
costlier) before it; a cheaper algorithm before ``a`` is there because it is
cheaper and ``a`` is not significantly better than it; a cheaper algorithm
after ``a`` is there because something costlier and still remaining was
significantly better than it.  The sentence names the first of each kind
that applies, with the p-value of the deciding pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._errors import MultitestError
from .._format import format_p_brief

__all__ = ["Explanation", "FriedmanPower", "explain_order", "explain_sort", "friedman_power",
           "cost_unit_sentence", "ordinal"]


@dataclass(frozen=True)
class Explanation:
    """Why one algorithm holds its final position.

    Attributes
    ----------
    position : int
        1 = best.
    algorithm : str
    reason : str
        The why, without the "a is k-th:" opening.
    """

    position: int
    algorithm: str
    reason: str

    @property
    def sentence(self):
        """``"<algorithm> is <k-th>: <reason>."``"""
        return f"{self.algorithm} is {ordinal(self.position)}: {self.reason}."


@dataclass(frozen=True)
class FriedmanPower:
    """What the Friedman test could see with the data sets it had.

    Attributes
    ----------
    n_datasets : int
    statistic : float
        Observed Friedman chi-square.
    critical_value : float
        Chi-square quantile ``1 - alpha`` with ``L - 1`` degrees of freedom.
    power : float
        Probability of rejecting if the observed average ranks were the true
        effect: noncentral chi-square tail with noncentrality equal to the
        observed statistic (the usual plug-in approximation).
    datasets_needed : int or None
        Smallest number of data sets at which the same average ranks would
        reject (the statistic grows linearly with S at fixed average ranks);
        None when all average ranks are equal (no effect to detect).
    """

    n_datasets: int
    statistic: float
    critical_value: float
    power: float
    datasets_needed: int | None

    def sentence(self, alpha, gate=True):
        """The plain warning printed when the test cannot reject (``gate``: the
        post-hoc test is then skipped, as by default)."""
        text = (f"With {self.n_datasets} data sets the Friedman test cannot reject at "
                f"alpha={alpha:g} (chi2={self.statistic:.3g}, needs {self.critical_value:.3g})")
        if self.datasets_needed is None:
            return text + ": the average ranks are all equal, there is no effect to detect."
        return (text + f"; if the observed average ranks were the true effect, the test "
                f"would have had power {self.power:.2f}, and the same average ranks would "
                f"reject from {self.datasets_needed} data sets on."
                + (" Until then the final order is the cost order." if gate else ""))


def ordinal(k):
    """``1st``, ``2nd``, ``3rd``, ``4th``, ..., ``11th``, ``21st``."""
    k = int(k)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _p(p):
    """`` (p = 0.012)`` after a comparison; nothing when there is no p-value."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    return f" (p = {format_p_brief(p)})"


def _names(names, limit=3):
    names = list(names)
    text = ", ".join(names[:limit])
    return text + (f" and {len(names) - limit} more" if len(names) > limit else "")


def explain_sort(order, prior_order, edges, pvalue=None, *, better_words="significantly better"):
    """One :class:`Explanation` per position of a cost-ordered sort.

    Parameters
    ----------
    order : sequence of str
        The sorted order, best first.
    prior_order : sequence of str
        Cheapest first.
    edges : iterable of (str, str), or ndarray of bool, shape (L, L)
        ``(cheaper, costlier)``: the costlier is significantly better; or
        the override matrix in prior order (``edges[i, j]``: the costlier
        ``j`` beats the cheaper ``i``), cheaper for many algorithms.
    pvalue : callable, optional
        ``pvalue(a, b)``: the p-value of the pair, or None.
    better_words : str
        How "significantly better" is said (e.g. "significantly better on
        average rank").

    Returns
    -------
    tuple of Explanation
    """
    order, prior_order = list(order), list(prior_order)
    if sorted(order) != sorted(prior_order):
        raise MultitestError("`order` and `prior_order` must hold the same algorithms")
    pvalue = pvalue or (lambda a, b: None)
    cost = {a: i for i, a in enumerate(prior_order)}
    costs = np.array([cost[a] for a in order])   # cost position of each place
    # beats[p, q]: the algorithm placed q is significantly better than the one placed p.
    if isinstance(edges, np.ndarray):
        beats = np.asarray(edges, dtype=bool)[np.ix_(costs, costs)]
    else:
        place = {a: i for i, a in enumerate(order)}
        beats = np.zeros((len(order), len(order)), dtype=bool)
        for a, b in edges:
            beats[place[a], place[b]] = True
    out = []
    for k, a in enumerate(order):
        parts = []
        beaten_by = [order[q] for q in np.flatnonzero(beats[k])]     # in order of place
        if beaten_by:
            b = beaten_by[0]
            parts.append(f"the costlier {_names(beaten_by)} "
                         f"{'is' if len(beaten_by) == 1 else 'are'} {better_words}"
                         f"{_p(pvalue(a, b))}")
        ahead = np.flatnonzero(costs[:k] < costs[k])       # cheaper, placed before a
        if ahead.size:
            c = order[ahead[-1]]      # the nearest one above
            more = f" (and {ahead.size - 1} more)" if ahead.size > 1 else ""
            parts.append(f"the cheaper {c}{more} comes first as {a} is not {better_words} "
                         f"than it{_p(pvalue(c, a))}")
        behind = np.flatnonzero(costs[k + 1:] < costs[k])  # cheaper, placed after a
        if behind.size:
            q = k + 1 + behind[0]
            c = order[q]
            if beats[q, k]:
                parts.append(f"it is {better_words} than the cheaper {c}{_p(pvalue(c, a))}")
            else:
                w = order[np.flatnonzero(beats[q])[0]]
                parts.append(f"the cheaper {c} comes later: the costlier {w} is {better_words} "
                             f"than it{_p(pvalue(c, w))}")
        if not parts:
            parts.append("the cheapest, and nothing is " + better_words if k == 0 else
                         "the cheapest of the rest, and nothing left is " + better_words)
        out.append(Explanation(position=k + 1, algorithm=a, reason="; ".join(parts)))
    return tuple(out)


def explain_order(ranking):
    """One :class:`Explanation` per final position of a ranking.

    Over several data sets the sentences come from the second pass (the
    post-hoc test on average ranks; when the Friedman gate kept it from
    running, the order is the average-cost order and each sentence says
    so); with one data set from its override graph.

    Parameters
    ----------
    ranking : multitest.engine.Ranking

    Returns
    -------
    tuple of Explanation
    """
    sp = ranking.second_pass
    if sp is None:
        r = ranking.datasets[0]
        p = {(a, b): pv for a, b, _, pv in r.edges()}
        pairs = {(q["a"], q["b"]): q["pvalue"] for q in r.pairs()}
        return explain_sort(r.order, r.prior_order, list(p),
                            lambda a, b: pairs.get((a, b), pairs.get((b, a))),
                            better_words="significantly more accurate")
    if not sp.applied:
        index = {a: i for i, a in enumerate(sp.algorithms)}
        return tuple(Explanation(position=k, algorithm=a, reason=(
            f"{'the' if k == 1 else 'the ' + ordinal(k)} cheapest on average (average cost "
            f"{sp.average_costs[index[a]]:.4g}); the {sp.gate_name} does not reject, so no "
            "post-hoc test can override the cost order"))
            for k, a in enumerate(sp.order, start=1))
    index = {a: i for i, a in enumerate(sp.algorithms)}

    def pvalue(a, b):
        return None if sp.posthoc is None else float(sp.posthoc.pvalues[index[a], index[b]])

    return explain_sort(sp.order, sp.prior_order, sp.overrides(), pvalue,
                        better_words=sp.method_entry.better_words)


def friedman_power(average_ranks, n_datasets, alpha):
    """Power of the Friedman test for the observed effect, and the data sets it needs.

    The Friedman statistic is ``12 S / (L (L + 1)) * sum_j (R_j - (L + 1) / 2)^2``
    (docs/method.md §5): at fixed average ranks ``R_j`` it is linear in the
    number of data sets ``S``.  So the same average ranks reject from
    ``ceil(S * critical / statistic)`` data sets on.  The power is the
    noncentral chi-square tail ``P(X > critical)``, ``X ~ chi2'(L - 1, lambda)``
    with ``lambda`` the observed statistic (the plug-in approximation of the
    noncentrality; it treats the observed average ranks as the truth).

    Parameters
    ----------
    average_ranks : array_like, shape (L,)
    n_datasets : int
    alpha : float

    Returns
    -------
    FriedmanPower
    """
    ranks = np.asarray(average_ranks, dtype=float)
    L, S = ranks.size, int(n_datasets)
    if L < 2 or S < 1:
        raise MultitestError("`average_ranks` needs at least two algorithms and `n_datasets` "
                             "at least one")
    if not 0 < alpha < 1:
        raise MultitestError(f"`alpha` must be in (0, 1), got {alpha}")
    statistic = 12.0 * S / (L * (L + 1)) * float(np.sum((ranks - (L + 1) / 2.0) ** 2))
    critical = float(special.chdtri(L - 1, alpha))
    power = float(1.0 - special.chndtr(critical, L - 1, statistic))
    needed = None
    if statistic > 1e-12:
        needed = max(S, math.ceil(S * critical / statistic - 1e-9))
        if needed * statistic / S <= critical:   # the boundary is not a rejection
            needed += 1
    return FriedmanPower(n_datasets=S, statistic=statistic, critical_value=critical,
                         power=power, datasets_needed=needed)


def cost_unit_sentence(profile):
    """What the cost numbers on the figures are, with their unit and normalization.

    Parameters
    ----------
    profile : multitest.inputs.CostProfile

    Returns
    -------
    str
    """
    unit = profile.unit or "no unit given"
    normalization = profile.normalization
    how = {"none": "taken as given in the profile",
           "max": "divided by the largest cost of each data set",
           "sum": "divided by the sum of the costs of each data set",
           "rank": "replaced by their cost ranks within each data set"}.get(
               normalization, f"normalized by {normalization}")
    if profile.order is not None:
        return "costs are positions in the given order (0 = cheapest), not measurements"
    return (f"costs in {unit}, {how}; over several data sets the average of these "
            "per data set costs")
