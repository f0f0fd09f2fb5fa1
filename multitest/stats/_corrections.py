"""Multiple-comparison corrections: adjusted p-values identical to R's ``p.adjust``.

A *family* is a one-dimensional slice of p-values along one axis; every other
axis is a batch dimension, so thousands of families (one per data set, one per
bootstrap replicate, ...) are adjusted in one call without a Python loop over
families.

The methods and the names they go by are those of R's ``p.adjust``:

``none``
    The p-values unchanged.
``bonferroni``
    ``min(1, m p)`` for a family of ``m`` p-values.
``holm``
    Holm's (1979) step-down procedure.
``hochberg``
    Hochberg's (1988) step-up procedure (valid under independence or positive
    dependence).
``hommel``
    Hommel's (1988) procedure, with R's algorithm (closed testing with Simes
    tests), which costs ``O(m**2)`` operations per family.

Two more procedures are defined for the family of *all pairwise comparisons*
of ``k`` algorithms only, where the logical relations between the hypotheses
("a = b" and "b = c" imply "a = c") allow more power (García & Herrera, JMLR
9:2677-2694, 2008); :func:`adjust_all_pairs` applies them, and every method
above:

``shaffer``
    Shaffer's (1986) static procedure: Holm's step-down with ``m - i + 1``
    replaced by the largest number of hypotheses that can be true when ``i - 1``
    are false.
``bergmann-hommel``
    Bergmann and Hommel's (1988) procedure: a hypothesis is rejected when
    every *exhaustive* set of hypotheses containing it (the pairs within the
    groups of a partition of the algorithms) is rejected by Bonferroni. It
    enumerates the Bell(k) partitions, so it is limited to
    ``k <= BERGMANN_HOMMEL_MAX`` (10: 115 975 sets, about 0.1 s).

Bonferroni--Dunn comparisons against a control live in
:func:`multitest.stats.control_comparisons`, which adjusts with this module.
"""

import functools
import operator

import numpy as np

from .._errors import MultitestError
from ._validation import _iv_choice, _iv_count

__all__ = ["adjust_all_pairs", "adjust_pvalues", "agreeing_alpha"]


def _none(p):
    return p.copy()


def _bonferroni(p):
    m = p.shape[-1]
    return np.minimum(1.0, m * p)


def _holm(p):
    # R: pmin(1, cummax((n - i + 1) * p[o]))[ro]
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    p_sorted = np.take_along_axis(p, order, axis=-1)
    factor = np.arange(m, 0, -1, dtype=np.float64)
    adjusted = np.minimum(1.0, np.maximum.accumulate(factor * p_sorted, axis=-1))
    return _unsort(adjusted, order)


def _hochberg(p):
    # R: pmin(1, cummin((n + 1 - i) * p[o]))[ro], o = order(p, decreasing = TRUE)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")[..., ::-1]
    p_sorted = np.take_along_axis(p, order, axis=-1)
    factor = np.arange(1, m + 1, dtype=np.float64)
    adjusted = np.minimum(1.0, np.minimum.accumulate(factor * p_sorted, axis=-1))
    return _unsort(adjusted, order)


def _hommel(p):
    # A line-by-line, vectorized translation of R's p.adjust(method = "hommel").
    m = p.shape[-1]
    if m == 2:  # R: if (n == 2 && method == "hommel") method <- "hochberg"
        return _hochberg(p)
    order = np.argsort(p, axis=-1, kind="stable")
    ps = np.take_along_axis(p, order, axis=-1)
    i = np.arange(1, m + 1, dtype=np.float64)
    start = np.min(m * ps / i, axis=-1, keepdims=True)
    q = np.repeat(start, m, axis=-1)
    pa = q.copy()
    for k in range(m - 1, 1, -1):  # R: for (m in (n-1):2); i1 = 1..n-k+1, i2 = rest
        split = m - k + 1
        q1 = np.min(k * ps[:, split:] / np.arange(2, k + 1), axis=-1, keepdims=True)
        q[:, :split] = np.minimum(k * ps[:, :split], q1)
        q[:, split:] = q[:, split - 1 : split]
        np.maximum(pa, q, out=pa)
    return _unsort(np.maximum(pa, ps), order)


def _unsort(values, order):
    out = np.empty_like(values)
    np.put_along_axis(out, order, values, axis=-1)
    return out


_ADJUSTERS = {
    "none": _none,
    "bonferroni": _bonferroni,
    "holm": _holm,
    "hochberg": _hochberg,
    "hommel": _hommel,
}

CORRECTIONS = tuple(_ADJUSTERS)
"""Names accepted by :func:`adjust_pvalues`, as in R's ``p.adjust``."""


def _iv_adjust(pvalues, method, axis):
    _iv_choice(method, "method", CORRECTIONS)
    try:
        p = np.asarray(pvalues, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MultitestError("`pvalues` must be an array of real numbers.") from exc
    if p.ndim == 0:
        raise MultitestError("`pvalues` must have at least one dimension.")
    try:
        axis = operator.index(axis)
    except TypeError as exc:
        raise MultitestError(f"`axis` must be an integer; got {axis!r}.") from exc
    if not -p.ndim <= axis < p.ndim:
        raise MultitestError(
            f"`axis` must be in [{-p.ndim}, {p.ndim - 1}] for `pvalues` with "
            f"{p.ndim} dimension(s); got {axis}."
        )
    if np.isnan(p).any():
        raise MultitestError("`pvalues` must not contain NaN.")
    if ((p < 0) | (p > 1)).any():
        raise MultitestError("`pvalues` must lie in [0, 1].")
    return p, axis


def adjust_pvalues(pvalues, method="holm", axis=-1):
    """Adjust p-values for multiple comparisons exactly as R's ``p.adjust``.

    Parameters
    ----------
    pvalues : array_like
        Unadjusted p-values in ``[0, 1]``, without NaN. Each one-dimensional
        slice along `axis` is one family.
    method : {'none', 'bonferroni', 'holm', 'hochberg', 'hommel'}, default: 'holm'
        The correction (see the module documentation and :data:`CORRECTIONS`).
    axis : int, default: -1
        The axis along which the families lie; other axes are batch axes.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values (float64), same shape as `pvalues`. Families of size
        0 or 1 are returned unchanged.

    Raises
    ------
    MultitestError
        If `method` is unknown, `axis` is out of range, or `pvalues` is not a
        non-scalar array of numbers in ``[0, 1]``.

    Notes
    -----
    Ties among p-values get the same adjusted value. As in R, Hommel's method
    on a family of two is Hochberg's method.

    Examples
    --------
    >>> from multitest.stats import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03], method="holm")
    array([0.03, 0.06, 0.06])
    >>> adjust_pvalues([[0.01, 0.04], [0.5, 0.2]], method="bonferroni")
    array([[0.02, 0.08],
           [1.  , 0.4 ]])
    """
    p, axis = _iv_adjust(pvalues, method, axis)
    moved = np.moveaxis(p, axis, -1)
    m = moved.shape[-1]
    if m <= 1:
        return p.copy()
    families = moved.reshape(-1, m)
    adjusted = _ADJUSTERS[method](families).reshape(moved.shape)
    return np.moveaxis(adjusted, -1, axis)


# ---------------------------------------------------------------------------
# All pairwise comparisons: Shaffer and Bergmann--Hommel
# ---------------------------------------------------------------------------

#: Largest number of algorithms for ``bergmann-hommel`` (Bell(10) = 115 975 sets).
BERGMANN_HOMMEL_MAX = 10


@functools.lru_cache(maxsize=None)
def _true_hypothesis_counts(k):
    """Shaffer's S(k) as a bit set: bit s is set when s hypotheses can be true.

    S(0) = S(1) = {0}; S(k) = union over j = 1..k of {C(j, 2) + x : x in S(k - j)}
    (the first j algorithms equal, the others partitioned freely).
    """
    if k <= 1:
        return 1
    bits = 0
    for j in range(1, k + 1):
        bits |= _true_hypothesis_counts(k - j) << (j * (j - 1) // 2)
    return bits


def shaffer_multipliers(n_algorithms):
    """Shaffer's multipliers ``t_1 >= ... >= t_m`` for all pairs of `n_algorithms`.

    ``t_i`` is the largest number of hypotheses that can be true when ``i - 1``
    are false: the largest ``s`` in S(k) with ``s <= m - i + 1``.

    Examples
    --------
    >>> from multitest.stats._corrections import shaffer_multipliers
    >>> shaffer_multipliers(4).tolist()
    [6, 3, 3, 3, 2, 1]
    """
    k = operator.index(n_algorithms)
    m = k * (k - 1) // 2
    bits = _true_hypothesis_counts(k)
    possible = np.array([s for s in range(m + 1) if bits >> s & 1])
    remaining = m - np.arange(m)                       # m - i + 1 for i = 1..m
    return possible[np.searchsorted(possible, remaining, side="right") - 1]


def _shaffer(p, k):
    order = np.argsort(p, axis=-1, kind="stable")
    p_sorted = np.take_along_axis(p, order, axis=-1)
    factor = shaffer_multipliers(k).astype(np.float64)
    adjusted = np.minimum(1.0, np.maximum.accumulate(factor * p_sorted, axis=-1))
    return _unsort(adjusted, order)


@functools.lru_cache(maxsize=4)
def _exhaustive_sets(k):
    """Every exhaustive set of pairwise hypotheses of k algorithms.

    One per partition of the algorithms with a group of two or more: the
    pairs within its groups. Returns the membership matrix (sets x pairs,
    pairs in ``numpy.triu_indices(k, 1)`` order) and the set sizes.
    """
    labels = np.zeros((1, 1), dtype=np.int8)          # restricted growth strings
    for _ in range(1, k):
        top = labels.max(axis=1) + 2                   # a new element joins 0..max+1
        rows = np.repeat(labels, top, axis=0)
        new = np.concatenate([np.arange(t) for t in top]).astype(np.int8)
        labels = np.column_stack([rows, new])
    a, b = np.triu_indices(k, 1)
    members = labels[:, a] == labels[:, b]
    sizes = members.sum(axis=1)
    keep = sizes > 0
    members, sizes = members[keep], sizes[keep]
    members.setflags(write=False)
    return members, sizes


def _bergmann_hommel(p, k):
    if k > BERGMANN_HOMMEL_MAX:
        raise MultitestError(
            f"`correction` 'bergmann-hommel' enumerates every exhaustive set of hypotheses "
            f"and supports at most {BERGMANN_HOMMEL_MAX} algorithms; got {k}. Use 'shaffer'.")
    members, sizes = _exhaustive_sets(k)
    adjusted = np.empty_like(p)
    for row in range(p.shape[0]):
        # |I| min_{j in I} p_j for every exhaustive set I, then the largest over the sets
        # holding each hypothesis
        smallest = np.where(members, p[row], np.inf).min(axis=1)
        value = sizes * smallest
        adjusted[row] = [value[members[:, h]].max() for h in range(p.shape[1])]
    return np.minimum(1.0, adjusted)


_PAIR_ADJUSTERS = {"shaffer": _shaffer, "bergmann-hommel": _bergmann_hommel}

PAIRWISE_CORRECTIONS = CORRECTIONS + tuple(_PAIR_ADJUSTERS)
"""Names accepted by :func:`adjust_all_pairs`: every correction plus the two
that use the logical structure of all pairwise comparisons."""


def adjust_all_pairs(pvalues, n_algorithms, method="holm"):
    """Adjust the p-values of all pairwise comparisons of `n_algorithms`.

    Parameters
    ----------
    pvalues : array_like, shape (..., m)
        Unadjusted p-values of the ``m = k (k - 1) / 2`` pairs, in the order of
        ``numpy.triu_indices(k, 1)`` (row-major upper triangle); leading axes
        are batch axes.
    n_algorithms : int
        ``k >= 2``.
    method : str, default: 'holm'
        One of :data:`PAIRWISE_CORRECTIONS`: a method of
        :func:`adjust_pvalues`, ``'shaffer'`` or ``'bergmann-hommel'``.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape.

    Raises
    ------
    MultitestError
        If `method` is unknown, the last axis is not ``k (k - 1) / 2`` long,
        the p-values are invalid, or ``'bergmann-hommel'`` is asked for more
        than :data:`BERGMANN_HOMMEL_MAX` algorithms.

    Notes
    -----
    Adjusted p-values as García & Herrera (2008, section 3.1) define them:
    Shaffer, ``min(1, max_{j <= i} t_j p_(j))``; Bergmann--Hommel,
    ``min(1, max {|I| min_{j in I} p_j : I exhaustive, i in I})``. Shaffer is
    never above Holm, Bergmann--Hommel never above Shaffer.

    Examples
    --------
    >>> from multitest.stats import adjust_all_pairs
    >>> p = [0.001, 0.01, 0.02, 0.03, 0.2, 0.5]      # k = 4 algorithms
    >>> adjust_all_pairs(p, 4, "holm").round(3).tolist()
    [0.006, 0.05, 0.08, 0.09, 0.4, 0.5]
    >>> adjust_all_pairs(p, 4, "shaffer").round(3).tolist()
    [0.006, 0.03, 0.06, 0.09, 0.4, 0.5]
    """
    _iv_choice(method, "method", PAIRWISE_CORRECTIONS)
    k = _iv_count(n_algorithms, "n_algorithms", 2)
    if method in _ADJUSTERS:
        return adjust_pvalues(pvalues, method)
    p, _ = _iv_adjust(pvalues, "none", -1)
    m = k * (k - 1) // 2
    if p.shape[-1] != m:
        raise MultitestError(f"`pvalues` must hold the {m} pairs of {k} algorithms along the "
                             f"last axis; got {p.shape[-1]}.")
    families = p.reshape(-1, m)
    return _PAIR_ADJUSTERS[method](families, k).reshape(p.shape)


def agreeing_alpha(pvalues, adjusted, rejected, alpha, correction):
    """The level of each raw p-value at which its test decides as the corrected family did.

    A correction decides by adjusted p-values; an interval that agrees with its
    decision inverts the raw test at a level ``alpha'`` such that
    ``p < alpha'`` exactly when the pair was rejected.  One level for the whole
    family when there is one: ``alpha`` without a correction, Bonferroni's
    ``alpha / m``, for the step-wise corrections the step at which the procedure
    stopped, ``alpha / (m - r)`` (``r`` rejected: Holm's and Hochberg's level at
    the first pair not rejected), else the first ``alpha / j`` that separates the
    rejected p-values from the others, else the smallest p-value not rejected.
    When no single level separates them (a correction not monotone in the raw
    p-values), each pair gets its own, ``alpha p / p_adjusted`` (the pair's
    share of the adjustment; just above ``p`` for a pair rejected at
    ``p_adjusted = alpha``).

    Parameters
    ----------
    pvalues, adjusted : array_like, shape (m,)
        Raw and adjusted p-values of the family.
    rejected : array_like of bool, shape (m,)
        The decisions (``adjusted < alpha``, or ``<=`` as the caller decides).
    alpha : float
    correction : str
        The correction's name (``'none'``, ``'bonferroni'``, step-wise otherwise).

    Returns
    -------
    ndarray, shape (m,)
        ``alpha'`` per pair.

    Examples
    --------
    >>> p = np.array([0.001, 0.02, 0.03, 0.2])
    >>> adjusted = adjust_pvalues(p, "holm")
    >>> agreeing_alpha(p, adjusted, adjusted < 0.05, 0.05, "holm")    # Holm stops at 0.02
    array([0.01666667, 0.01666667, 0.01666667, 0.01666667])
    """
    p = np.asarray(pvalues, dtype=float)
    adjusted = np.asarray(adjusted, dtype=float)
    rejected = np.asarray(rejected, dtype=bool)
    m, r = p.size, int(rejected.sum())
    top, bottom = p[rejected].max(initial=-np.inf), p[~rejected].min(initial=np.inf)
    own = (alpha if correction == "none" else alpha / m if correction == "bonferroni"
           else alpha / max(m - r, 1))
    for level in (own, *(alpha / j for j in range(1, m + 1))):
        if top < level <= bottom:
            return np.full(m, float(level))
    if top < bottom:
        return np.full(m, float(min(bottom, alpha)))
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(adjusted > 0, alpha * p / adjusted, alpha)
    return np.where(rejected, np.maximum(share, np.nextafter(p, np.inf)),
                    np.minimum(share, p))
