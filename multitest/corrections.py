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

Bonferroni--Dunn comparisons against a control live in
:func:`multitest.posthoc.control_comparisons`, which adjusts with this module.
"""

import operator

import numpy as np

from multitest.errors import MultitestError

__all__ = ["CORRECTIONS", "adjust_pvalues"]


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
    if method not in _ADJUSTERS:
        raise MultitestError(
            f"`method` must be one of {CORRECTIONS}; got {method!r}."
        )
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
    >>> from multitest.corrections import adjust_pvalues
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
