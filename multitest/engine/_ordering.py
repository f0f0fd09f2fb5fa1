"""The cost-keyed topological sort that turns an override graph into an order.

Nodes are identified by their position in the prior (cost) order, cheapest
first.  ``overrides[i, j]`` is true when the costlier ``j`` is significantly
better than the cheaper ``i`` (the edge ``i -> j``).  Repeatedly, among the
remaining nodes with no edge to a remaining node (nothing remaining is better),
the cheapest is taken; the first taken is the best.  This is
``networkx.lexicographical_topological_sort`` of the reversed graph keyed by
cost position, computed here on a boolean matrix so that it costs O(L^2) with
no graph object.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from .._errors import MultitestError

__all__ = ["cost_ordered_sort"]


@dataclass(frozen=True)
class SortStep:
    """One step of the sort.

    Attributes
    ----------
    remaining : tuple of int
        Prior positions of the nodes not yet taken, before this step.
    candidates : tuple of int
        Remaining nodes that no remaining node is better than, cheapest first.
    taken : int
        The cheapest candidate: the node placed next in the order.
    """

    remaining: tuple
    candidates: tuple
    taken: int


def _check(overrides):
    overrides = np.asarray(overrides, dtype=bool)
    if overrides.ndim != 2 or overrides.shape[0] != overrides.shape[1]:
        raise MultitestError(f"`overrides` must be a square matrix, got shape {overrides.shape}")
    if np.tril(overrides).any():
        raise MultitestError("`overrides` may only have edges from cheaper to costlier "
                             "(strictly upper triangular in prior order)")
    return overrides


def cost_ordered_sort(overrides):
    """Order the nodes, best first.

    Parameters
    ----------
    overrides : array_like of bool, shape (L, L)
        ``overrides[i, j]``: the costlier ``j`` beats the cheaper ``i``
        (``i < j`` in prior order; strictly upper triangular).

    Returns
    -------
    order : ndarray of int
        Prior positions, best first.

    Examples
    --------
    Prior A < B < C; C beats both A and B (docs/method.md section 5):

    >>> import numpy as np
    >>> from multitest.engine import cost_ordered_sort
    >>> overrides = np.zeros((3, 3), bool); overrides[0, 2] = overrides[1, 2] = True
    >>> cost_ordered_sort(overrides)
    array([2, 0, 1])
    """
    return np.array([step.taken for step in _steps(_check(overrides), record=False)])


def sort_trace(overrides):
    """The steps of :func:`cost_ordered_sort`, for drawing the sort.

    Returns
    -------
    tuple of SortStep
    """
    return tuple(_steps(_check(overrides), record=True))


def named_trace(overrides, names):
    """:func:`sort_trace` with node names: ``names[i]`` is the node at prior position ``i``."""
    return tuple(SortStep(remaining=tuple(names[i] for i in step.remaining),
                          candidates=tuple(names[i] for i in step.candidates),
                          taken=names[step.taken])
                 for step in sort_trace(overrides))


def _steps(overrides, record):
    n = overrides.shape[0]
    better_remaining = overrides.sum(axis=1)   # how many remaining nodes beat each node
    beaten_by = [np.flatnonzero(overrides[:, j]) for j in range(n)]
    heap = [i for i in range(n) if better_remaining[i] == 0]
    heapq.heapify(heap)
    remaining = set(range(n))
    while heap:
        if record:
            candidates = tuple(sorted(heap))
            snapshot = tuple(sorted(remaining))
        taken = heapq.heappop(heap)
        remaining.discard(taken)
        for i in beaten_by[taken]:
            better_remaining[i] -= 1
            if better_remaining[i] == 0:
                heapq.heappush(heap, int(i))
        yield SortStep(snapshot, candidates, taken) if record else SortStep((), (), taken)


def overrides_from_decisions(prior_positions, significant, better):
    """Override matrix in prior order from pairwise decisions.

    Parameters
    ----------
    prior_positions : array_like of int, shape (L,)
        ``prior_positions[a]`` is the cost position of algorithm ``a``.
    significant : array_like of bool, shape (L, L)
        Symmetric: the pair differs.
    better : array_like of bool, shape (L, L)
        ``better[a, b]``: ``a`` is better than ``b`` (e.g. lower average rank).

    Returns
    -------
    ndarray of bool, shape (L, L)
        ``out[i, j]`` for prior positions ``i < j``: the costlier beats the cheaper.
    """
    prior_positions = np.asarray(prior_positions)
    by_position = np.argsort(prior_positions)
    sig = np.asarray(significant, bool)[np.ix_(by_position, by_position)]
    wins = np.asarray(better, bool)[np.ix_(by_position, by_position)]
    return np.triu(sig & wins.T, k=1)
