"""Argument checks shared by the statistics: arrays, ranks, levels, counts and choices.

Every function returns the validated value (converted) or raises
:class:`~multitest._errors.MultitestError` with a message naming the argument.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._errors import MultitestError

__all__: list[str] = []


def _as_2d_float(x, name, allow_nan=False):
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MultitestError(f"`{name}` must be an array of real numbers.") from exc
    if a.ndim != 2:
        raise MultitestError(
            f"`{name}` must be two-dimensional (data sets x algorithms); "
            f"got {a.ndim} dimension(s)."
        )
    n_datasets, n_algorithms = a.shape
    if n_datasets < 2 or n_algorithms < 2:
        raise MultitestError(
            f"`{name}` must have at least 2 data sets (rows) and 2 algorithms "
            f"(columns); got shape {a.shape}."
        )
    if not (np.isfinite(a) | (allow_nan & np.isnan(a))).all():
        raise MultitestError(f"`{name}` must contain only finite numbers"
                             + (" or NaN (missing)." if allow_nan else "."))
    return a


def _iv_ranks(ranks):
    r = _as_2d_float(ranks, "ranks")
    n_algorithms = r.shape[1]
    if ((r < 1) | (r > n_algorithms)).any():
        raise MultitestError(
            f"`ranks` must lie in [1, {n_algorithms}] (1 = best of "
            f"{n_algorithms} algorithms)."
        )
    expected = n_algorithms * (n_algorithms + 1) / 2
    if not np.allclose(r.sum(axis=1), expected, rtol=0, atol=1e-9 * expected):
        raise MultitestError(
            f"every row of `ranks` must be a ranking of the {n_algorithms} "
            f"algorithms (ranks summing to {expected:g}; ties as average ranks)."
        )
    return r


def _iv_probability(value, name="alpha"):
    """A number strictly between 0 and 1 (a significance or confidence level), as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise MultitestError(f"`{name}` must be a number in (0, 1); got {value!r}.")
    value = float(value)
    if not 0 < value < 1:
        raise MultitestError(f"`{name}` must be in (0, 1); got {value!r}.")
    return value


def _iv_count(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise MultitestError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    if value < minimum:
        raise MultitestError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def _iv_choice(value, name, allowed):
    if value not in allowed:
        raise MultitestError(f"`{name}` must be one of {tuple(allowed)}; got {value!r}.")
    return value
