"""The pairwise file of a large run (``pairwise.npz``): writing it, and reading it back.

Above :data:`~multitest.outputs._json.INLINE_PAIRS_LIMIT` pairwise results in
all, ``result.json`` names :data:`PAIRWISE_FILE` instead of listing the pairs:
an uncompressed NumPy ``.npz`` archive holding what cannot be recomputed (the
per-fold errors, the cost orders and the decisions as bits; see
:func:`write_pairwise_file`).  :func:`read_pairwise` reruns the deterministic
tests and returns the table of
:func:`~multitest.outputs._tables.pairwise_frame`, bit for bit.
"""

from __future__ import annotations

import json
import os
import zipfile

import numpy as np
import pandas as pd

from ..engine._frames import tested_table

__all__ = ["read_pairwise"]

#: Name of the pairwise file in an output folder.
PAIRWISE_FILE = "pairwise.npz"


def _code_dtype(n):
    return np.uint16 if n <= np.iinfo(np.uint16).max else np.int32


#: Version of the layout of :data:`PAIRWISE_FILE` (1: one float column per statistic).
PAIRWISE_FORMAT = 2


def write_pairwise_file(ranking, path):
    """Write every pairwise result to an uncompressed ``.npz`` archive.

    What cannot be recomputed is stored, the rest is derived on reading:

    - ``errors`` (float64, (S, L, F)): the per-fold errors, data sets and
      algorithms in input order, folds replication-major;
    - ``prior`` (uint16, or int32 beyond 65,535 algorithms; (S, L)): the
      algorithm at each cost position of each data set, cheapest first;
    - ``override`` (uint8): :func:`numpy.packbits` of the ``(S, P)`` decisions,
      ``P = L (L - 1) / 2`` pairs per data set in cost order (positions
      ``(0, 1), (0, 2), ..., (1, 2), ...``): the costlier is significantly
      better, the edges;
    - ``settings`` (Unicode, (1,)): JSON of the test, ``alternative``,
      ``correction``, ``alpha``, ``replications``, ``folds_per_replication``;
    - ``datasets``, ``algorithms`` (Unicode): the names; ``format``: ``[2]``.

    With a built-in test (deterministic), :func:`read_pairwise` reruns the
    tests and obtains the statistics and p-values bit for bit (and checks
    the decisions against ``override``).  With a user's test, which may not
    be, ``statistic``, ``pvalue`` and (when a correction changed it)
    ``pvalue_adjusted`` (float64, ``S P``) are stored too.  At S = 10,000,
    L = 100 (49.5 million tests) the file is 87 MB instead of 1.1 GB.
    """
    table = tested_table(ranking)
    if table is None:
        raise ValueError("no pairwise tests to write (score-matrix input)")
    write_pairwise_arrays(path, ranking.results, table, ranking.settings)


def write_pairwise_arrays(path, results, table, settings):
    """:func:`write_pairwise_file` of `results` and their stage-1 `table` (a
    :class:`~multitest.engine.PairwiseTable`) ranked with checked `settings`: the whole
    run, or one part of it (``multitest rank --workers`` writes one part per task into
    the folder :data:`PAIRWISE_FILE`, which :func:`read_pairwise` reads as one)."""
    meta = {"test": settings.test, "alternative": settings.alternative,
            "correction": settings.correction, "alpha": settings.alpha,
            "replications": results.replications,
            "folds_per_replication": results.folds_per_replication}
    ratio = (results.test_train_ratio if settings.test_train_ratio is None
             else settings.test_train_ratio)
    if ratio is not None:   # the corrected t test's design (rank's, else the input's)
        meta["test_train_ratio"] = ratio
    columns = [
        ("format", lambda: np.array([PAIRWISE_FORMAT], dtype=np.int32)),
        ("settings", lambda: np.array([json.dumps(meta)])),
        ("datasets", lambda: np.asarray(results.datasets, dtype=str)),
        ("algorithms", lambda: np.asarray(results.algorithms, dtype=str)),
        ("errors", lambda: results.errors),
        ("prior", lambda: table.prior.astype(_code_dtype(len(results.algorithms)))),
        ("override", lambda: np.packbits(table.override, axis=None)),
    ]
    if not settings.pairwise_test.difference_only:   # not rerun bit for bit on reading
        columns += [("statistic", lambda: np.asarray(table.statistic).reshape(-1)),
                    ("pvalue", lambda: np.asarray(table.pvalue).reshape(-1))]
        if not _same_values(table.pvalue_adjusted, table.pvalue):
            columns.append(("pvalue_adjusted",
                            lambda: np.asarray(table.pvalue_adjusted).reshape(-1)))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, make in columns:
            array = make()
            with archive.open(f"{key}.npy", "w", force_zip64=True) as handle:
                _write_npy(handle, np.ascontiguousarray(array))
            del array


#: Bytes handed to the archive at a time by :func:`_write_npy` (its CRC and the copy into
#: the file take them in turn).
_NPY_CHUNK = 1 << 24


def _write_npy(handle, array):
    """``numpy.lib.format.write_array(handle, array)`` of a C-contiguous array of numbers
    or text, the same bytes (header 1.0, then the data), the data handed over as views of
    the array: ``write_array`` copies it chunk by chunk (``tobytes``) into a file that is
    not a real one, such as a member of a ZIP archive (80 MB at S = 10,000 x L = 100)."""
    np.lib.format.write_array_header_1_0(handle, np.lib.format.header_data_from_array_1_0(array))
    data = array.reshape(-1).view(np.uint8)
    for start in range(0, data.size, _NPY_CHUNK):
        handle.write(data[start:start + _NPY_CHUNK])


def _same_values(x, y):
    return x is y or (x.shape == y.shape and np.array_equal(x, y))


def read_pairwise(path, datasets=None):
    """The table of :func:`~multitest.outputs._tables.pairwise_frame` from a pairwise file.

    Parameters
    ----------
    path : str or os.PathLike
        A ``pairwise.npz`` written by :func:`~multitest.outputs.write_outputs`, or a
        folder of parts (``multitest rank --workers``; :func:`pairwise_parts`), read as
        one file: the same table.
    datasets : sequence of str, optional
        Only these data sets (in the order given): reading a few data sets of
        a large run costs only their tests.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~multitest.outputs._tables.PAIRWISE_COLUMNS`, one row per pair.

    Raises
    ------
    MultitestError
        An unknown data set name, a file of another layout, or recomputed
        decisions that differ from the stored ones (a file written by a
        version of multitest or NumPy that computes differently).

    Examples
    --------
    >>> import os, tempfile
    >>> from multitest import example_results, rank
    >>> from multitest.outputs import read_pairwise
    >>> from multitest.outputs._pairwise_file import write_pairwise_file
    >>> path = os.path.join(tempfile.mkdtemp(), "pairwise.npz")
    >>> write_pairwise_file(rank(example_results(), "training_time"), path)
    >>> table = read_pairwise(path, datasets=["wine"])
    >>> len(table), list(table.columns[:3])
    (28, ['dataset', 'a', 'b'])
    """
    from .._errors import MultitestError

    if os.path.isdir(path):
        return _read_parts(path, datasets)
    with np.load(path, allow_pickle=False) as archive:
        if "format" not in archive.files or int(archive["format"][0]) != PAIRWISE_FORMAT:
            raise MultitestError(f"{os.fspath(path)}: not a pairwise file of format "
                                 f"{PAIRWISE_FORMAT} (written by another multitest version)")
        names = [str(n) for n in archive["datasets"]]
        meta = json.loads(str(archive["settings"][0]))
        errors, prior = archive["errors"], archive["prior"].astype(np.intp)
        S, L = prior.shape
        P = L * (L - 1) // 2
        override = np.unpackbits(archive["override"], count=S * P).astype(bool).reshape(S, P)
        stored = {k: archive[k].reshape(S, P) for k in ("statistic", "pvalue", "pvalue_adjusted")
                  if k in archive.files}
        algorithms = archive["algorithms"].astype(object)
    rows = _dataset_rows(names, datasets, path)
    errors, prior, override = errors[rows], prior[rows], override[rows]
    if stored:
        table = {k: v[rows] for k, v in stored.items()}
        table.setdefault("pvalue_adjusted", table["pvalue"])
        mean_errors = errors.mean(axis=2)
    else:
        table = _rerun(errors, prior, meta)
        if not np.array_equal(table.override, override):
            raise MultitestError(f"{os.fspath(path)}: the recomputed decisions differ from the "
                                 "stored ones (written by a version that computes differently)")
        mean_errors = table.mean_errors
        table = {k: np.asarray(getattr(table, k))
                 for k in ("statistic", "pvalue", "pvalue_adjusted")}
    first, second = np.triu_indices(L, k=1)
    cheaper, costlier = prior[:, first], prior[:, second]
    index = np.arange(len(rows))[:, None]
    return pd.DataFrame({
        "dataset": np.repeat(np.asarray([names[r] for r in rows], dtype=object), P),
        "a": algorithms[cheaper.ravel()], "b": algorithms[costlier.ravel()],
        "statistic": table["statistic"].ravel(), "pvalue": table["pvalue"].ravel(),
        "pvalue_adjusted": table["pvalue_adjusted"].ravel(),
        "mean_error_a": mean_errors[index, cheaper].ravel(),
        "mean_error_b": mean_errors[index, costlier].ravel(),
        "override": override.ravel()})


def pairwise_parts(folder):
    """The part files of a pairwise folder (``part-NNNNN.npz``), in data-set order."""
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if f.startswith("part-") and f.endswith(".npz"))


def _read_parts(folder, datasets):
    """:func:`read_pairwise` of a folder of parts: each part's rows, in order."""
    parts = pairwise_parts(folder)
    names = []
    for part in parts:
        with np.load(part, allow_pickle=False) as archive:
            names.append([str(n) for n in archive["datasets"]])
    if datasets is None:
        frames = [read_pairwise(part) for part in parts]
    else:
        where = {n: k for k, part_names in enumerate(names) for n in part_names}
        _dataset_rows(list(where), datasets, folder)   # an unknown name: the message
        frames = [read_pairwise(parts[where[n]], [n]) for n in datasets]
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _dataset_rows(names, wanted, path):
    if wanted is None:
        return np.arange(len(names))
    from .._errors import MultitestError, abbreviate

    position = {n: i for i, n in enumerate(names)}
    unknown = [n for n in wanted if n not in position]
    if unknown:
        raise MultitestError(f"`datasets`: no data set {abbreviate(unknown[0])!r} in "
                             f"{os.fspath(path)} ({len(names)} data sets)")
    return np.array([position[n] for n in wanted], dtype=np.intp)


def _rerun(errors, prior, meta):
    """Stage 1 again, as :func:`multitest.rank` ran it (bit for bit)."""
    from ..engine._stage1 import run_pairwise_tests
    from ..inputs._design import FoldDesign
    from ..stats._registry import get_test

    design = FoldDesign(replications=meta["replications"], folds=meta["folds_per_replication"],
                        test_train_ratio=meta.get("test_train_ratio"))
    return run_pairwise_tests(errors, prior, get_test(meta["test"]), design,
                              alpha=meta["alpha"], correction=meta["correction"],
                              alternative=meta["alternative"], keep=True)
