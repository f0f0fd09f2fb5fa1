"""Why the final order is what it is, in words (docs/method.md §4, §5).

Computation only: no rendering import.  :func:`explain_order` gives one
sentence per final position, built from the graph the order was sorted on
(the second-pass graph over several data sets, the override graph of the
data set with one); :func:`friedman_power` says, when the Friedman test does
not reject, what power it had for the observed effect and from how many data
sets the same average positions would reject; :func:`cost_unit_sentence`
states what the cost numbers are.

How the sentences are built, for algorithm ``a`` at position ``k``: the sort
puts every algorithm found significantly better than ``a`` (necessarily
costlier) before it; a cheaper algorithm before ``a`` is there because it is
cheaper and ``a`` is not significantly better than it (it may be
significantly better than ``a``: the sentence says which); a cheaper
algorithm after ``a`` is there because something costlier and still
remaining was significantly better than it; a costlier one after ``a`` is
not significantly better than ``a``.  The sentence names every algorithm of
each kind, with the number of its pair, and records each decision it states
(:class:`Comparison`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .._errors import MultitestError
from .._format import format_number, ordinal, p_equals
from ._ordering import cost_ordered_sort

__all__ = ["Explanation", "explain_order"]


@dataclass(frozen=True)
class Comparison:
    """One decision an explanation rests on: a pair and what its test said.

    Attributes
    ----------
    subject, other : str
    significant : bool
        True: ``subject`` is significantly better than ``other``; False:
        ``subject`` is not significantly better than ``other``.
    pvalue : float or None
        The number the decision was taken on (see ``evidence`` of
        :func:`explain_sort`), None when there is none.
    """

    subject: str
    other: str
    significant: bool
    pvalue: float | None


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
    comparisons : tuple of Comparison
        Every pairwise decision the reason states, in the order it states them.

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> from multitest.engine import explain_order
    >>> first = explain_order(ranking)[0]
    >>> first.position, first.algorithm
    (1, '5nn')
    """

    position: int
    algorithm: str
    reason: str
    comparisons: tuple = ()

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
            return text + (": the average positions are all equal, there is no effect to "
                           "detect.")
        return (text + f"; if the observed average positions were the true effect, the test "
                f"would have had power {self.power:.2f}, and the same average positions would "
                f"reject from {self.datasets_needed} data sets on."
                + (" Until then the final order is the cost order." if gate else ""))


def _p(p, label="p", bound=True):
    """`` (p = 0.012)`` after a comparison; nothing when there is no p-value."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    return f" ({p_equals(p, label, brief=True, bound=bound)})"


def _names(names):
    """``a``, ``a and b``, ``a, b and c``: every name, none hidden."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _in_places(matrix, costs):
    """A prior-order (L, L) matrix re-indexed by place in the order."""
    return np.asarray(matrix)[np.ix_(costs, costs)]


class _Sentence:
    """The clauses of one explanation and the comparisons they state."""

    def __init__(self, pvalues, order, better_words, label, bound):
        self.pvalues, self.order, self.words, self.label = pvalues, order, better_words, label
        self.bound = bound      # p-values print a bound below 1e-300 (format_p)
        self.parts, self.comparisons = [], []

    def p(self, q, r):
        value = self.pvalues[q, r]
        return None if math.isnan(value) else float(value)

    def compare(self, subject, other, significant):
        """Record the decision about places ``subject`` and ``other``; its `` (p = ...)``."""
        p = self.p(subject, other)
        self.comparisons.append(Comparison(subject=self.order[subject],
                                           other=self.order[other],
                                           significant=significant, pvalue=p))
        return _p(p, self.label, self.bound)

    def listed(self, places, against, subject_first, significant):
        """``x (p = ..), y (p = ..)``: each place compared with `against`, the subject of
        the comparison first or `against` (one array lookup for the group)."""
        places = np.asarray(places, dtype=int)
        others = np.full(places.size, against)
        subjects, others = (places, others) if subject_first else (others, places)
        values = self.pvalues[subjects, others].tolist()
        order = self.order
        self.comparisons += [
            Comparison(subject=order[a], other=order[b], significant=significant,
                       pvalue=None if math.isnan(p) else p)
            for a, b, p in zip(subjects.tolist(), others.tolist(), values)]
        return _names(order[q] + _p(p, self.label, self.bound)
                      for q, p in zip(places.tolist(), values))


def explain_sort(order, prior_order, edges, pvalue=None, *, better_words="significantly better",
                 differs=None, better=None, evidence="p", bound=True):
    """One :class:`Explanation` per position of a cost-ordered sort.

    For algorithm ``a`` at position ``k`` the sentence states every decision
    that put it there: the costlier algorithms significantly better than
    ``a`` (placed before it); the cheaper algorithms placed before it, those
    significantly better than ``a`` and those ``a`` is not significantly
    better than (the cost order then decides); the costlier algorithms placed
    before it while an algorithm better than ``a`` was still to be placed;
    for each cheaper algorithm placed after ``a`` the costlier algorithm, ``a``
    or one after it, significantly better than it; and that no costlier
    algorithm placed after ``a`` is significantly better than ``a`` (with the
    closest one).  Every name is given, with the number of its pair.

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
    pvalue : callable or ndarray, shape (L, L), optional
        ``pvalue(a, b)``: the p-value of the pair, or None; or the p-values
        in prior order (symmetric).
    better_words : str
        How "significantly better" is said (e.g. "significantly better on
        average position").
    differs : ndarray of bool, shape (L, L), optional
        The pairs the test found different, in prior order (symmetric): a
        cheaper algorithm placed before ``a`` whose pair differs is
        significantly better than ``a``.  By default only the edges differ.
    better : ndarray of bool, shape (L, L), optional
        ``better[i, j]``: ``i`` is better than ``j`` by the test's criterion,
        significant or not, in prior order: the closest costlier algorithm
        placed after ``a`` is the better one with the smallest number.
    evidence : str, default 'p'
        What the number of a pair is called (``'adjusted p'``...).
    bound : bool, default True
        The number is a p-value: below 1e-300 it prints as ``p < 1e-300`` (an underflow);
        False for a Bayesian posterior share, printed as computed.

    Returns
    -------
    tuple of Explanation

    Examples
    --------
    >>> from multitest.engine._explain import explain_sort
    >>> why = explain_sort(["C", "A", "B"], ["A", "B", "C"], [("A", "C"), ("B", "C")])
    >>> print(why[2].sentence)
    B is 3rd: the costlier C is significantly better than B; B is not significantly better \
than the cheaper A, so the cost order puts it first.
    """
    order, prior_order = list(order), list(prior_order)
    if sorted(order) != sorted(prior_order):
        raise MultitestError("`order` and `prior_order` must hold the same algorithms")
    L = len(order)
    cost = {a: i for i, a in enumerate(prior_order)}
    costs = np.array([cost[a] for a in order], dtype=int)   # cost position of each place
    # beats[p, q]: the algorithm placed q is significantly better than the one placed p.
    if isinstance(edges, np.ndarray):
        beats = _in_places(np.asarray(edges, dtype=bool), costs)
    else:
        place = {a: i for i, a in enumerate(order)}
        beats = np.zeros((L, L), dtype=bool)
        for a, b in edges:
            beats[place[a], place[b]] = True
    in_prior = np.zeros((L, L), dtype=bool)
    in_prior[np.ix_(costs, costs)] = beats
    if not np.array_equal(cost_ordered_sort(in_prior), costs):
        raise MultitestError("`order` is not the cost-ordered sort of `prior_order` and `edges`"
                             " (docs/method.md §4): there is nothing to explain it by")
    different = beats | beats.T if differs is None else _in_places(differs, costs)
    if isinstance(pvalue, np.ndarray):
        pvalues = _in_places(np.asarray(pvalue, dtype=float), costs)
    else:
        pvalues = np.full((L, L), np.nan)
        if pvalue is not None:
            for q, a in enumerate(order):
                for r, b in enumerate(order):
                    value = pvalue(a, b) if q != r else None
                    pvalues[q, r] = np.nan if value is None else value
    closer = np.ones((L, L), dtype=bool) if better is None else _in_places(better, costs)
    cheaper = costs[None, :] < costs[:, None]     # [k, q]: the one placed q is cheaper
    # first_beater[q, k]: the first place from k on whose algorithm beats the one placed q
    first_beater = np.minimum.accumulate(np.where(beats, np.arange(L), L)[:, ::-1],
                                         axis=1)[:, ::-1]
    return tuple(_explain_place(k, order, beats, different, cheaper, closer, first_beater,
                                _Sentence(pvalues, order, better_words, evidence, bound))
                 for k in range(L))


def _closest(candidates, k, say):
    """`` (closest: b, p = 0.072)``: the candidate with the smallest number."""
    if not candidates.size:    # a Bayesian test's criterion: the more probable direction
        return (" (none of them is better, even without significance)" if say.bound else
                " (none of them is more probably better)")
    p = say.pvalues[candidates, k]
    if not np.isfinite(p).any():
        return ""
    q = candidates[np.nanargmin(p)]
    say.compare(q, k, False)
    closest = p_equals(say.p(q, k), say.label, brief=True, bound=say.bound)
    return f" (closest: {say.order[q]}, {closest})"


def _blocked(later, blocker):
    """``(w, places)`` per blocker ``w``, in the order of its first place: each cheaper
    algorithm placed later waits for a costlier one significantly better than it and
    still to place when ``a`` was (``a`` itself when ``a`` beats it).  O(n log n).

    Examples
    --------
    >>> import numpy as np
    >>> [(w, p.tolist()) for w, p in _blocked(np.array([4, 5, 7]), np.array([6, 2, 6]))]
    [(6, [4, 7]), (2, [5])]
    """
    blockers, first, group = np.unique(blocker, return_index=True, return_inverse=True)
    members = np.split(later[np.argsort(group, kind="stable")],
                       np.cumsum(np.bincount(group, minlength=blockers.size))[:-1])
    return [(int(blockers[g]), members[g]) for g in np.argsort(first).tolist()]


def _explain_place(k, order, beats, different, cheaper, closer, first_beater, say):
    """The :class:`Explanation` of place ``k`` (see :func:`explain_sort`)."""
    a, words = order[k], say.words
    L = len(order)
    before, after = np.arange(L) < k, np.arange(L) > k
    if not cheaper[k].any() and L > 1:
        say.parts.append("the cheapest")
    beaten_by = np.flatnonzero(beats[k])
    if beaten_by.size:
        verb = "is" if beaten_by.size == 1 else "are"
        say.parts.append(f"the costlier {say.listed(beaten_by, k, True, True)} {verb} "
                         f"{words} than {a}")
    ahead = np.flatnonzero(before & cheaper[k])
    stronger = ahead[different[k, ahead]]
    if stronger.size:
        verb = "is" if stronger.size == 1 else "are"
        say.parts.append(f"the cheaper {say.listed(stronger, k, True, True)} {verb} {words} "
                         f"than {a}")
    level = ahead[~different[k, ahead]]
    if level.size:
        them = "it" if level.size == 1 else "them"
        say.parts.append(f"{a} is not {words} than the cheaper "
                         f"{say.listed(level, k, False, False)}, so the cost order puts {them} "
                         "first")
    waited = np.flatnonzero(before & ~cheaper[k] & ~beats[k])
    if waited.size:
        verb = "comes" if waited.size == 1 else "come"
        say.parts.append(f"the costlier {_names(order[q] for q in waited)} {verb} before {a} "
                         f"while an algorithm {words} than {a} was still to be placed")
    later = np.flatnonzero(after & cheaper[k])
    for w, beaten in _blocked(later, first_beater[later, k]):
        listed = say.listed(beaten, w, False, True)
        if w == k:
            say.parts.append(f"{a} is {words} than the cheaper {listed}")
        else:
            verb, them = ("comes", "it") if beaten.size == 1 else ("come", "them")
            say.parts.append(f"the cheaper {listed} {verb} later: the costlier {order[w]}, "
                             f"placed after {a}, is {words} than {them}")
    behind = np.flatnonzero(after & ~cheaper[k] & ~different[k])
    if behind.size:
        say.parts.append(f"no costlier algorithm placed after {a} is {words} than it"
                         + _closest(behind[closer[behind, k]], k, say))
    if not say.parts:
        say.parts.append("the only algorithm")
    return Explanation(position=k + 1, algorithm=a, reason="; ".join(say.parts),
                       comparisons=tuple(say.comparisons))


def explain_order(ranking):
    """One :class:`Explanation` per final position of a ranking.

    Over several data sets the sentences come from the second pass (the
    post-hoc test on average positions; when the Friedman gate kept it from
    running, the order is the average-cost order and each sentence says
    so); with one data set from its pairwise tests.

    Parameters
    ----------
    ranking : multitest.engine.Ranking

    Returns
    -------
    tuple of Explanation

    Examples
    --------
    >>> from multitest import rank, example_results
    >>> ranking = rank(example_results(), ["c45", "svr"], datasets=["optdigits"],
    ...                algorithms=["c45", "svr"])
    >>> print(explain_order(ranking)[1].sentence)
    c45 is 2nd: the cheapest; the costlier svr (p = 6.6e-06) is significantly more \
accurate than c45.
    """
    sp = ranking.second_pass
    if sp is None:
        return _explain_dataset(ranking)
    if not sp.applied:
        index = {a: i for i, a in enumerate(sp.algorithms)}
        return tuple(Explanation(position=k, algorithm=a, reason=(
            f"{'the' if k == 1 else 'the ' + ordinal(k)} cheapest on average (average cost "
            f"{sp.average_costs[index[a]]:.4g}); the {sp.gate_name} on average positions does "
            "not reject, so no post-hoc test can override the cost order"))
            for k, a in enumerate(sp.order, start=1))
    index = np.array([sp.algorithms.index(a) for a in sp.prior_order])
    entry = sp.method_entry
    pvalues = None if sp.posthoc is None else sp.posthoc.pvalues[np.ix_(index, index)]
    return explain_sort(sp.order, sp.prior_order, sp.overrides(), pvalues,
                        better_words=entry.better_words,
                        differs=sp.significant[np.ix_(index, index)],
                        better=sp.better[np.ix_(index, index)],
                        evidence=_evidence(entry.evidence, sp.correction),
                        bound=not entry.bayesian)


def _evidence(label, correction):
    """What the number beside a comparison is: ``'adjusted p'`` after a correction."""
    return f"adjusted {label}" if label == "p" and correction != "none" else label


def _explain_dataset(ranking):
    """The explanations of a single data set, from its pairwise tests."""
    r = ranking.datasets[0]
    if not r.tested:
        return tuple(Explanation(position=k, algorithm=a, reason=(
            f"its value {format_number(r.mean_errors[a])} ranks {r.ranks[a]:g} among the "
            "values (score-matrix input: one value per algorithm, no test is possible; equal "
            "values are ordered by cost)")) for k, a in enumerate(r.order, start=1))
    t, s = r.table, r.index
    L = len(r.algorithms)
    pvalues = np.full((L, L), np.nan)
    pvalues[t.cheaper, t.costlier] = pvalues[t.costlier, t.cheaper] = t.pvalue_adjusted[s]
    means = t.mean_errors[s][list(t.prior[s])]       # in prior order
    better = means[:, None] < means[None, :]
    test = ranking.pairwise_test
    words = test.better_words(ranking.settings.min_probability)
    if test.bayesian:      # its number is not a p-value, and only says "costlier better"
        return explain_sort(r.order, r.prior_order, r.overrides(), pvalues,
                            better_words=words, better=better, evidence=test.evidence,
                            bound=False)
    differs = pvalues < ranking.settings.alpha
    return explain_sort(r.order, r.prior_order, r.overrides(), pvalues, better_words=words,
                        differs=differs, better=better,
                        evidence=_evidence("p", ranking.settings.correction))


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
