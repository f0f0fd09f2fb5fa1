"""An input split into parts: a folder of CSV files, each holding whole data sets, read
as one :class:`~multitest.inputs.Results` (``multitest rank --workers`` ranks each part
in a task of its own)."""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from .._errors import InputError

__all__ = []


def csv_parts(folder):
    """The CSV files of a folder (a CSV input split into parts), in the order they are read.

    Every file whose name ends in ``.csv`` (not hidden, not starting with ``_``), in
    subfolders too, sorted by path; an empty list when there is none.
    """
    found = []
    for root, dirs, files in os.walk(folder):
        found.extend(os.path.join(root, f) for f in files
                     if f.lower().endswith(".csv") and not f.startswith((".", "_")))
    return sorted(found)


def join_parts(parts, source):
    """The results of the parts of one input (:func:`csv_parts`), as one :class:`Results`.

    Data sets in the order of the parts, algorithms in the order of the first part
    (that of reading the parts as one file); `source` names the whole (the folder).

    Raises
    ------
    InputError
        A part naming other algorithms or another fold design than the first, a
        data set also in an earlier part (each data set must be in one part), or
        a metric on another scale than in an earlier part (fractions and
        percentages: one scale per metric in one input).

    Examples
    --------
    >>> import pandas as pd
    >>> from multitest import load_results
    >>> def part(d, names):
    ...     return load_results(pd.DataFrame({"dataset": d, "algorithm": names,
    ...                                       "fold": 1, "error": [0.1, 0.2]}))
    >>> joined = join_parts([part("d1", ["a", "b"]), part("d2", ["b", "a"])], "in")
    >>> joined.datasets, joined.algorithms, joined.errors[:, :, 0].tolist()
    (('d1', 'd2'), ('a', 'b'), [[0.1, 0.2], [0.2, 0.1]])
    """
    head = parts[0]
    seen, scales = {}, {}
    for results in parts:
        for metric, scale in results.scales:
            first = scales.setdefault(metric, (scale, results))
            if first[0] != scale:
                raise InputError(f"{metric} is in {_scale_name(scale)} here and in "
                                 f"{_scale_name(first[0])} in {first[1].source} (data set "
                                 f"{first[1].datasets[0]!r}): one scale per metric in one "
                                 "input", source=results.source)
        design = (results.replications, results.folds_per_replication, results.has_folds)
        if design != (head.replications, head.folds_per_replication, head.has_folds):
            raise InputError("another fold design than the first part's "
                             f"({head.source})", source=results.source)
        if results.test_train_ratio != head.test_train_ratio:
            raise InputError(f"test/train ratio {results.test_train_ratio} here and "
                             f"{head.test_train_ratio} in the first part ({head.source}): "
                             "one design, one ratio in one input", source=results.source)
        if set(results.algorithms) != set(head.algorithms):
            other = sorted(set(results.algorithms) ^ set(head.algorithms), key=str)
            raise InputError(f"its algorithms differ from the first part's ({head.source}); "
                             f"not in both: {', '.join(map(str, other[:5]))}",
                             source=results.source)
        for name in results.datasets:
            if seen.setdefault(name, results.source) != results.source:
                raise InputError(f"data set {name!r} is also in {seen[name]}: each data set "
                                 "must be in one part", source=results.source)
    errors = np.concatenate([r.subset(algorithms=list(head.algorithms)).errors
                             for r in parts])
    return dataclasses.replace(
        head, errors=errors, datasets=tuple(seen), source=source,
        notes=tuple(dict.fromkeys(n for r in parts for n in r.notes)),
        n_missing=sum(r.n_missing for r in parts),
        scales=tuple((metric, scale) for metric, (scale, _) in scales.items()))


def _scale_name(scale):
    return "fractions" if scale == 1 else "percent"
