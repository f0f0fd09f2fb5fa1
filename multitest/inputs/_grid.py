"""The cube of a results table: folds as one key, the grid of (data set, algorithm, fold),
duplicate rows and missing cells refused with the row and field that show them.

Private helpers of :func:`multitest.inputs.load_results`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._errors import InputError, MultitestError, abbreviate

__all__ = []


def _fold_keys(keys):
    """One integer per (replication, fold), in the order of (replication, fold)."""
    fold = keys["fold"].astype(np.int64, copy=False)
    rep = keys["replication"] if keys["replication"] is not None else np.ones_like(fold)
    return rep.astype(np.int64, copy=False) * (fold.max() + 1) + fold


def _grid(keys, errors, S, L):
    """``(cube, fold labels)`` without scattering, when the rows are the usual layout; else None.

    The usual layout: every data set, algorithm and fold once, sorted by data set
    and algorithm in order of first appearance, then by (replication, fold) the
    same way in every block of F rows.  The cube is then the values reshaped
    (no index arithmetic, no duplicate or completeness check to do: every cell
    is filled once); any other order takes the general path.
    """
    n = len(errors)
    if n % (S * L):
        return None
    F = n // (S * L)
    blocks = [(keys[role], keys[role][:F]) for role in ("fold", "replication")
              if keys[role] is not None]
    labels = _fold_keys({role: keys[role] if keys[role] is None else keys[role][:F]
                         for role in ("fold", "replication")})
    if F > 1 and not (np.diff(labels) > 0).all():
        return None
    # Each column compared one data set's block of L * F rows at a time (a long inner
    # loop, in the column's own integer type) with what the block holds in that layout.
    ds_codes, alg_codes = keys["dataset"][0], keys["algorithm"][0]
    expected = [(ds_codes, np.arange(S, dtype=ds_codes.dtype)[:, None]),
                (alg_codes, np.repeat(np.arange(L, dtype=alg_codes.dtype), F))]
    expected += [(column, np.tile(head, L)) for column, head in blocks]
    if not all((column.reshape(S, L * F) == block).all() for column, block in expected):
        return None
    cube = errors.reshape(S, L, F)
    # A view of a larger table read (pandas keeps numeric columns together) is copied.
    return (cube if errors.flags.owndata else cube.copy()), labels


def _sorted_codes(keys):
    """``pandas.factorize(keys, sort=True)`` of integers; by counting when their range is small."""
    low, high = int(keys.min()), int(keys.max())
    if high - low > 4 * keys.size + 1024:
        return pd.factorize(keys, sort=True)
    present = np.zeros(high - low + 1, dtype=bool)
    present[keys - low] = True
    labels = np.flatnonzero(present)
    code_of = np.cumsum(present) - 1
    return code_of[keys - low], labels + low


def _check_duplicates(flat, keys, columns, name, row_offset, unused=()):
    if flat.size and np.bincount(flat).max() < 2:   # fast check first: no duplicate
        return
    duplicated = pd.Series(flat).duplicated(keep=False).to_numpy()
    if not duplicated.any():
        return
    rows = np.flatnonzero(duplicated)
    first = rows[0]
    twin = rows[1:][flat[rows[1:]] == flat[first]][0]
    what = [abbreviate(keys["dataset"][1][keys["dataset"][0][first]]),
            abbreviate(keys["algorithm"][1][keys["algorithm"][0][first]])]
    if keys["replication"] is not None:
        what.append(f"replication {keys['replication'][first]}")
    if keys["fold"] is not None:
        what.append(f"fold {keys['fold'][first]}")
    read = [repr(c) for c in (columns["replication"], columns["fold"]) if c is not None]
    hint = "" if not unused else (
        f"; column(s) {', '.join(repr(abbreviate(c)) for c in unused)} look like a key but are "
        f"not read: the folds are identified by {' and '.join(read) or 'no column'} (rename "
        "the column 'replication' or 'fold')")
    raise InputError(f"duplicate row for {', '.join(what)} (also at row {first + row_offset})"
                     + hint, source=name, row=int(twin) + row_offset)


#: The values of ``missing`` (:func:`multitest.rank`, ``--missing``) that rank a table with
#: missing results; ``baseline:NAME`` names the algorithm.  Described in
#: :mod:`multitest.inputs._missing`.
MISSING_HINT = "drop|worst|baseline:NAME|partial"

#: Missing cells an error message lists.
_CELLS_SHOWN = 3


def _check_complete(cube, datasets, algorithms, fold_labels, keys, columns, name,
                    missing_ok=False, first_blank=None):
    """Refuse missing results, unless `missing_ok`: one line, the first few, the policies."""
    if missing_ok:
        return
    missing = np.isnan(cube)
    if not missing.any():
        return
    where = {"source": name, "field": columns["value"]}
    per_pair = missing.all(axis=2)
    if first_blank is not None:
        first = "missing value (NaN or empty)"
        where["row"] = first_blank
    elif per_pair.any():
        s = int(np.flatnonzero(per_pair.any(axis=1))[0])
        absent = [abbreviate(algorithms[j]) for j in np.flatnonzero(per_pair[s])]
        first = (f"data set '{abbreviate(datasets[s])}' has no results for algorithm(s) "
                 f"{', '.join(absent)}")
        where["field"] = columns["algorithm"]
    else:
        s, a, f = (int(x[0]) for x in np.nonzero(missing))
        fold = _fold_text(fold_labels[f], keys, columns)
        first = (f"missing fold: data set '{abbreviate(datasets[s])}', algorithm "
                 f"'{abbreviate(algorithms[a])}' has no {fold}")
        where["field"] = columns["fold"]
    cells = [f"({abbreviate(datasets[s], 24)}, {abbreviate(algorithms[a], 24)}, "
             f"{_fold_text(fold_labels[f], keys, columns) if columns['fold'] else 'value'})"
             for s, a, f in zip(*(x[:_CELLS_SHOWN].tolist() for x in np.nonzero(missing)))]
    n_missing = int(missing.sum())
    more = ", ..." if n_missing > _CELLS_SHOWN else ""
    raise InputError(f"{first}; {n_missing} result(s) missing in all: {', '.join(cells)}{more}; "
                     f"to rank them anyway: --missing {MISSING_HINT}",
                     **where)


def _fold_text(label, keys, columns):
    base = keys["fold"].max() + 1
    if columns["replication"] is None:
        return f"fold {label % base}"
    return f"replication {label // base}, fold {label % base}"


def _fold_design(fold_labels, keys, columns, name):
    base = keys["fold"].max() + 1
    reps = np.unique(fold_labels // base)
    folds = np.unique(fold_labels % base)
    if len(reps) * len(folds) != len(fold_labels):
        raise InputError(f"folds do not form a full replication x fold grid "
                         f"({len(reps)} replications, {len(folds)} fold numbers, "
                         f"{len(fold_labels)} distinct folds)", source=name,
                         field=columns["fold"])
    return len(reps), len(folds)


def _indices(names, valid, parameter):
    """Positions of `names` in `valid` (all of them when None); unknown or repeated names
    are a MultitestError naming `parameter`."""
    if names is None:
        return list(range(len(valid)))
    names = list(names)
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise MultitestError(f"`{parameter}`: unknown name(s) {', '.join(map(str, unknown))}; "
                             f"valid names are {', '.join(valid)}")
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise MultitestError(f"`{parameter}`: name(s) given twice: {', '.join(duplicated)}")
    return [valid.index(n) for n in names]
