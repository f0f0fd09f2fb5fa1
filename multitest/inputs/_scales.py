"""The values of one metric checked against its domain, and their scale read from them all.

A value outside every scale of its metric (an AUC of 170, a ``neg_log_loss`` of
0.9) is refused at once.  A bounded score may be given in fractions (within
[0, 1]) or in percent (within [0, 100]): the scale is read from the whole column
of the metric, never from one value.  Fractions (a value within (0, 1]) and
percentages (a value above 1) in one data set are refused at the value in the
minority (one AUC of 1.7 among 0.6-0.9: a mistyped value, not a column in
percent); two data sets on two scales are refused naming both.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._errors import InputError, abbreviate

__all__: list[str] = []     # used by multitest.inputs._metrics only

#: The scale of values in percent.
PERCENT = 100.0


def bounds_text(low, high):
    """``within [0, 1]``, ``at least 0``, ``at most 1`` or ``any number``."""
    if math.isinf(low) and math.isinf(high):
        return "any number"
    if math.isinf(high):
        return f"at least {low:g}"
    if math.isinf(low):
        return f"at most {high:g}"
    return f"within [{low:g}, {high:g}]"


def _bounds(direction, scale):
    if scale is None and direction.percent:
        return (f"{bounds_text(*direction.domain())} (or, in percent, "
                f"{bounds_text(*direction.domain(PERCENT))})")
    return bounds_text(*direction.domain(scale or 1.0))


def checked_scale(values, direction, name, datasets, rows, *, source, row_offset, field,
                  scale=None, hint=""):
    """The scale of one metric's values (1, or :data:`PERCENT`), every value checked first.

    Parameters
    ----------
    values : ndarray of float
        The values of the metric (NaN: missing, not checked).
    direction : MetricDirection
    name : str
        The metric, as the messages name it.
    datasets : ndarray, (codes, names) or None
        The data set of each value, or the codes of the values and the names of
        the codes (None: one data set).
    rows : ndarray of int
        Position of each value in the input (plus `row_offset`: the row named).
    source, row_offset, field
        Where the values come from.
    scale : float, optional
        The scale, when the user says it (1 or :data:`PERCENT`); else read
        from the values when the metric may be given in percent.
    hint : str
        Appended to the message of a value outside the domain.

    Raises
    ------
    InputError
        A value outside the domain (on every scale the metric allows), or
        values of two scales.
    """
    widest = [direction.domain(scale or 1.0)]
    if scale is None and direction.percent:
        widest.append(direction.domain(PERCENT))
    low, high = min(w[0] for w in widest), max(w[1] for w in widest)
    with np.errstate(invalid="ignore"):
        outside = (values < low) | (values > high)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise InputError(f"{name} {values[i]:g} is outside its domain: "
                         f"{_bounds(direction, scale)}{direction.advice}{hint}", source=source,
                         row=int(rows[i]) + row_offset, field=field)
    if scale is not None or not direction.percent:
        return scale or 1.0
    top = direction.high
    with np.errstate(invalid="ignore"):
        fractions = (values > direction.low) & (values <= top)
        percents = values > top
    if percents.any() and fractions.any():
        _refuse_two_scales(values, fractions, percents, name, datasets, rows, source,
                           row_offset, field, top)
    return PERCENT if percents.any() else 1.0


def _refuse_two_scales(values, fractions, percents, name, datasets, rows, source, row_offset,
                       field, top):
    """Raise the message of one metric's values on two scales: the value in the minority of
    a data set holding both, else the two data sets on different scales."""
    if isinstance(datasets, tuple):     # (codes, names) of a reader's key column
        labels = np.asarray(datasets[1], dtype=object)[datasets[0]]
    else:
        labels = np.zeros(len(values)) if datasets is None else np.asarray(datasets)
    frame = pd.DataFrame({"f": fractions, "p": percents})
    both = frame.groupby(labels, sort=False).transform("any").all(axis=1).to_numpy()
    where = {"source": source, "field": field}
    if both.any():
        same = labels == labels[int(np.flatnonzero(both)[0])]
        of = "this file" if datasets is None else f"data set '{abbreviate(labels[same][0])}'"
        n_fractions, n_percents = int((fractions & same).sum()), int((percents & same).sum())
        if n_percents <= n_fractions:
            i = int(np.flatnonzero(percents & same)[0])
            message = (f"{name} {values[i]:g} is outside [0, {top:g}], the scale of the "
                       f"other {n_fractions} value(s) of {of} (fractions): one scale per "
                       f"metric, fractions within [0, {top:g}] or percentages within "
                       f"[0, {top * PERCENT:g}]")
        else:
            i = int(np.flatnonzero(fractions & same)[0])
            message = (f"{name} {values[i]:g} is a fraction among percentages (the other "
                       f"{n_percents} value(s) of {of} reach {np.nanmax(values[same]):g}): one "
                       f"scale per metric, fractions within [0, {top:g}] or percentages within "
                       f"[0, {top * PERCENT:g}]")
        raise InputError(message, row=int(rows[i]) + row_offset, **where)
    i, j = int(np.flatnonzero(fractions)[0]), int(np.flatnonzero(percents)[0])
    later = max(i, j)
    raise InputError(f"{name} is in fractions on data set '{abbreviate(labels[i])}' (row "
                     f"{int(rows[i]) + row_offset}: {values[i]:g}) and in percent on data set "
                     f"'{abbreviate(labels[j])}' (row {int(rows[j]) + row_offset}: "
                     f"{values[j]:g}): one scale per metric in a file; multiply the fractions "
                     "by 100 or divide the percentages by 100", row=int(rows[later]) + row_offset,
                     **where)
