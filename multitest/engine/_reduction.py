"""Transitive reduction of an override graph (docs/method.md §3 and §7).

An override graph is a DAG whose edges all run from a cheaper to a costlier
algorithm (strictly upper triangular in prior order).  Its transitive
reduction keeps an edge ``i -> j`` only when no longer path leads from ``i``
to ``j``; it has the same reachability, so the cost-ordered topological sort
takes the same order on it (a remaining node has an edge to a remaining node
exactly when it has a path to one).  The figures draw the reduction and say
how many implied edges they hide.
"""

from __future__ import annotations

import numpy as np

from ._ordering import _check as check_overrides  # the sort's own validation

__all__ = ["transitive_reduction"]


def transitive_reduction(overrides):
    """The transitive reduction of an override matrix in prior order.

    Parameters
    ----------
    overrides : array_like of bool, shape (L, L)
        ``overrides[i, j]``: the costlier ``j`` beats the cheaper ``i``;
        strictly upper triangular.

    Returns
    -------
    ndarray of bool, shape (L, L)
        The edges of ``overrides`` not implied by a longer path.

    Examples
    --------
    A -> B -> C and A -> C: the edge A -> C is implied.

    >>> import numpy as np
    >>> m = np.zeros((3, 3), bool); m[0, 1] = m[1, 2] = m[0, 2] = True
    >>> transitive_reduction(m).astype(int)
    array([[0, 1, 0],
           [0, 0, 1],
           [0, 0, 0]])
    """
    adjacency = check_overrides(overrides)
    n = adjacency.shape[0]
    reach = np.zeros_like(adjacency)      # reach[i, j]: a path of length >= 1 from i to j
    reduced = np.zeros_like(adjacency)
    for i in range(n - 1, -1, -1):        # successors of i are costlier: already done
        successors = np.flatnonzero(adjacency[i])
        if successors.size == 0:
            continue
        beyond = reach[successors].any(axis=0)    # reached through a successor
        reduced[i] = adjacency[i] & ~beyond
        reach[i] = adjacency[i] | beyond
    return reduced
