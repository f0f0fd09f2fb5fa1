"""Loading and validating per-fold results: long-format tables, one row per (data set,
algorithm, fold), read by :func:`load_results` from a file or a :class:`pandas.DataFrame`,
checked completely, as a :class:`Results` of dense ``(data sets, algorithms, folds)`` errors."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .._errors import InputError, MultitestError, abbreviate
from .._progress import progress
from ._arrow_tables import arrow, parquet_module, read_csv_columns, table_columns
from ._automl import automl_columns, automl_frame, is_automl_file
from ._cells import (MAX_FOLD_NUMBER, _Fallback, _fast_integers, _fast_values, _key_columns,
                     _numeric, _strip_names)
from ._columns import (_ACCURACY_NAMES, _ERROR_NAMES, _csv_roles, _melted,
                       _one_role_per_column, _resolve_columns, _wanted, _wide_columns)
from ._design import RATIO_COLUMN, frame_attrs, ratio_column, with_frame_design
from ._grid import (_check_complete, _check_duplicates, _fold_design, _fold_keys,
                    _grid, _indices, _sorted_codes)
from ._metrics import column_errors, metric_scales
from ._parts import csv_parts, join_parts
from ._rows import (_columns_named_once, _header, _raise_ragged, _read, check_file_or_folder,
                    check_header_line)

__all__ = ["Results", "load_results"]

#: How the value column is turned into an error (lower is better).
VALUE_KINDS = ("auto", "error", "accuracy", "accuracy-percent")


@dataclass(frozen=True, eq=False)
class Results:
    """Validated per-fold errors.

    Attributes
    ----------
    errors : ndarray, shape (n_datasets, n_algorithms, n_folds)
        Error of every algorithm on every fold of every data set (lower is
        better).  Folds are ordered replication-major: (1, 1), (1, 2), (2, 1)...
    datasets, algorithms : tuple of str
        Names, in order of first appearance in the input.
    replications, folds_per_replication : int
        The fold design; ``replications * folds_per_replication == n_folds``.
        A score matrix (one value per data set and algorithm) has ``1`` and
        ``1`` and ``has_folds`` false.
    has_folds : bool
        Whether per-fold values were given (False for a score matrix).
    source : str
        File name, or ``"<DataFrame>"``.
    notes : tuple of str
        How the values were read and what the reader must know about the input
        that is not an error (the direction of each metric of a ``metric``
        column, a data set of accuracies on another scale than the others...).
    n_missing : int
        Missing results (NaN cells of `errors`), kept by
        ``load_results(..., allow_missing=True)``; 0 otherwise.
    scales : tuple of (str, float)
        The scale read of each metric that may be given in percent
        (``('accuracy', 100.0)``: in percent; 1.0: fractions), one per metric
        in an input (:func:`multitest.inputs._parts.join_parts` checks the parts).
    test_train_ratio : float or None
        ``n_test / n_train`` of the splits when the input says it and it is not
        ``1 / (k - 1)`` of k-fold cv (a scikit-learn ShuffleSplit, read by
        :func:`multitest.inputs.from_cv_results`); None otherwise.

    Examples
    --------
    >>> from multitest import example_results
    >>> example_results().errors.shape      # data sets, algorithms, 5x2 folds
    (38, 8, 10)
    """

    errors: np.ndarray
    datasets: tuple
    algorithms: tuple
    replications: int
    folds_per_replication: int
    has_folds: bool
    source: str
    notes: tuple = ()
    n_missing: int = 0
    scales: tuple = ()
    test_train_ratio: float | None = None

    @property
    def n_datasets(self):
        return len(self.datasets)

    @property
    def n_algorithms(self):
        return len(self.algorithms)

    @property
    def design(self):
        """The :class:`multitest.inputs.FoldDesign` of the folds."""
        from ._design import FoldDesign

        return FoldDesign(replications=self.replications, folds=self.folds_per_replication,
                          test_train_ratio=self.test_train_ratio)

    @cached_property
    def error_range(self):
        """``(lowest, highest)`` error, NaN (a missing result) left out; None when there is
        none.  Computed once: an array at once, a run ranked on a cluster's errors one data
        set at a time (they stay in its parts: the whole would not fit the client's memory)."""
        errors = self.errors
        low, high = np.inf, -np.inf
        for row in [errors] if isinstance(errors, np.ndarray) else errors:
            row = np.asarray(row, dtype=float)
            if not np.isnan(row).all():
                low, high = min(low, float(np.nanmin(row))), max(high, float(np.nanmax(row)))
        return None if low > high else (low, high)

    def subset(self, datasets=None, algorithms=None):
        """Keep only the named data sets and/or algorithms, in the order given.

        Raises
        ------
        MultitestError
            If a name is unknown (the message lists the valid names) or fewer
            than two algorithms would remain.
        """
        d_idx = _indices(datasets, self.datasets, "datasets")
        a_idx = _indices(algorithms, self.algorithms, "algorithms")
        if len(a_idx) < 2:
            raise MultitestError("`algorithms`: at least 2 algorithms are needed to compare, "
                                 f"got {len(a_idx)}")
        errors = self.errors[np.ix_(d_idx, a_idx)]
        errors.setflags(write=False)
        return Results(errors=errors,
                       datasets=tuple(self.datasets[i] for i in d_idx),
                       algorithms=tuple(self.algorithms[i] for i in a_idx),
                       replications=self.replications,
                       folds_per_replication=self.folds_per_replication,
                       has_folds=self.has_folds, source=self.source, notes=self.notes,
                       scales=self.scales,
                       n_missing=int(np.isnan(errors).sum()) if self.n_missing else 0,
                       test_train_ratio=self.test_train_ratio)

    def to_frame(self):
        """Long-format :class:`pandas.DataFrame` of the errors, with a ``test_train_ratio``
        column when the results have one (it survives ``to_csv``: :func:`load_results`
        reads it back)."""
        S, L, F = self.errors.shape
        k = self.folds_per_replication
        frame = pd.DataFrame({
            "dataset": np.repeat(self.datasets, L * F),
            "algorithm": np.tile(np.repeat(self.algorithms, F), S),
            "replication": np.tile(np.arange(F) // k + 1, S * L),
            "fold": np.tile(np.arange(F) % k + 1, S * L),
            "error": self.errors.ravel(),
        })
        if self.test_train_ratio is not None:   # read back by load_results
            frame[RATIO_COLUMN] = self.test_train_ratio
            frame.attrs = frame_attrs(self.test_train_ratio, ())
        return frame if self.has_folds else frame.drop(columns=["replication", "fold"])


def load_results(source, *, dataset="dataset", algorithm="algorithm",
                 replication="replication", fold="fold", value=None, kind="auto",
                 metric="metric", higher_is_better=(), lower_is_better=(),
                 allow_missing=False):
    """Read per-fold results from a CSV file or a data frame and validate them.

    The default column names read the layout of the bundled report data
    (``dataset, algorithm, replication, fold, accuracy``) with no arguments.

    Parameters
    ----------
    source : str, os.PathLike or pandas.DataFrame
        A CSV file (long format, header on line 1), a Parquet file, a folder
        of Parquet files (a data set partitioned into files, read in the
        order of :func:`parquet_parts`, as one table), a folder of CSV files
        without Parquet files (:func:`csv_parts`, each holding whole data
        sets, joined by :func:`join_parts`) or a data frame.
    dataset, algorithm : str
        Column names of the data set and the algorithm.  Without a column
        ``algorithm`` (the default), TabRepo's and TabArena's tables name the
        algorithms ``framework`` or ``method`` beside ``metric_error`` and
        ``metric`` (:func:`multitest.inputs._automl.layout_algorithm`; stated in the
        notes).
    replication, fold : str or None
        Column names identifying a fold.  With both present a fold is
        (replication, fold), as in 5x2 cv; with only ``fold`` present there is
        one replication; with neither, the input is a score matrix: one value
        per data set and algorithm, and no per-data-set test is possible.
    value : str, optional
        Column holding the value.  By default the only column named one of
        ``error, err, loss, error_rate, metric_error, accuracy, acc, score``.
    kind : {'auto', 'error', 'accuracy', 'accuracy-percent'}
        How to turn the value into an error: as is, ``1 - accuracy`` or
        ``100 - accuracy``.  ``'auto'`` decides from the column name
        (accuracy-like names are accuracies, in percent when any value
        exceeds 1).
    metric : str
        Column naming each row's metric, when present: each value becomes an
        error by the direction of its metric
        (:func:`multitest.inputs._metrics.metric_errors`), and the value column
        defaults to the one named ``result``, ``value`` or ``score``.  A value
        column named as errors (``error``, ``loss``, ``metric_error``... as
        TabArena and TabRepo write them), or ``kind='error'``, holds errors
        already: they are kept as they are and the metric only named (one per
        data set); other kinds are refused beside a metric column.  The AutoML
        benchmark layout (``task, framework, fold, result, metric``) is
        recognised by its header (:func:`multitest.inputs.read_automl`).
    higher_is_better, lower_is_better : sequence of str
        Directions of metrics that are not well known (``auc``, ``logloss``...).
    allow_missing : bool, default False
        Keep missing results as NaN cells of :attr:`Results.errors`: an empty
        or NaN value, a fold or an algorithm absent from a data set.  A missing
        result is then handled by the ``missing`` policy of
        :func:`multitest.rank` (docs/how-to/missing-results.md); by default
        it is an error.

    Returns
    -------
    Results

    Raises
    ------
    InputError
        On a missing column, a non-numeric value, a duplicated row, fewer
        than two algorithms, or (without `allow_missing`) a missing result;
        the message names the file, row and field, and for missing results
        how many there are, the first few and the policies that rank them.

    Examples
    --------
    >>> import pandas as pd
    >>> from multitest import load_results
    >>> frame = pd.DataFrame({"dataset": ["d"] * 4, "algorithm": ["a", "a", "b", "b"],
    ...                       "fold": [1, 2, 1, 2], "error": [0.1, 0.2, 0.3, 0.4]})
    >>> res = load_results(frame)
    >>> res.errors.shape
    (1, 2, 2)
    """
    if _is_csv_folder(source):
        options = {"dataset": dataset, "algorithm": algorithm, "replication": replication,
                   "fold": fold, "value": value, "kind": kind, "metric": metric,
                   "higher_is_better": higher_is_better, "lower_is_better": lower_is_better,
                   "allow_missing": allow_missing}
        return join_parts([load_results(part, **options) for part in csv_parts(source)],
                          os.fspath(source))
    columns = {"dataset": dataset, "algorithm": algorithm, "replication": replication,
               "fold": fold, "value": value, "metric": metric}
    _one_role_per_column(columns)
    kind = _ValueRule(kind=kind, higher_is_better=tuple(higher_is_better),
                      lower_is_better=tuple(lower_is_better))
    if isinstance(source, pd.DataFrame):
        return with_frame_design(_load_frame(source, columns, kind, allow_missing), source)
    name = os.fspath(source)
    check_file_or_folder(name)
    if name.lower().endswith(PARQUET_SUFFIXES):
        return _load_parquet(name, columns, kind, allow_missing)
    if os.path.isdir(name):
        return _load_parquet_folder(name, columns, kind, allow_missing)
    check_header_line(name)    # before the fast readers, which take an error as "not mine"
    if is_automl_file(name):
        frame, notes = automl_frame(name, higher_is_better=kind.higher_is_better,
                                    lower_is_better=kind.lower_is_better)
        return _load(frame, name, 2, dict(columns, **automl_columns(columns)), kind, fast=False,
                     missing_ok=allow_missing, notes_before=notes)
    # Fast paths: pyarrow's multi-threaded CSV reader when installed, else the C
    # reader of pandas, numeric columns parsed natively.  Anything unusual (a bad
    # value, a ragged row, a missing fold, an unreadable file...) falls back to
    # the text path below, which reports the file, row and field.
    for fast_reader in (_read_arrow, _read_pandas):
        try:
            loaded = fast_reader(name, columns, kind, allow_missing)
        except (_Fallback, MultitestError, ValueError, OSError, UnicodeDecodeError,
                pd.errors.ParserWarning):
            continue
        if loaded is not None:
            return loaded
    frame, name, row_offset = _read(name)
    try:
        return _load(frame, name, row_offset, columns, kind, fast=False,
                     missing_ok=allow_missing)
    except InputError:
        _raise_ragged(name)   # a row with a field missing: say so, not "missing value"
        raise


def _load_frame(source, columns, kind, allow_missing):
    try:
        return _load(source.reset_index(drop=True), "<DataFrame>", 0, columns, kind,
                     fast=True, missing_ok=allow_missing)
    except (_Fallback, ValueError, TypeError):   # MultitestError is a ValueError
        pass
    return _load(source.reset_index(drop=True), "<DataFrame>", 0, columns, kind, fast=False,
                 missing_ok=allow_missing)


#: File name endings read as Parquet (needs the ``parquet`` extra: pyarrow).
PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclass(frozen=True)
class _ValueRule:
    """How values become errors: the `kind` of a value column, the metric directions."""

    kind: str
    higher_is_better: tuple = ()
    lower_is_better: tuple = ()

    def __post_init__(self):
        _resolve_kind(self.kind, "")   # an unknown kind is refused at once


def _load(frame, name, row_offset, columns, rule, *, fast, present=None,
          missing_ok=False, notes_before=()):
    present = list(frame.columns) if present is None else present
    algorithms = _wide_columns(present, columns)
    if algorithms:
        frame = _melted(frame, name, row_offset, columns, rule, algorithms, missing_ok)
        present = list(frame.columns)
        columns = dict(columns, algorithm="algorithm", value="value", replication=None,
                       fold=None, metric=None)
    asked = columns["algorithm"]
    columns = _resolve_columns(present, name, columns)
    values, first_blank = _numeric(frame, columns["value"], name, row_offset, fast)
    keys = _key_columns(frame, columns, name, row_offset, fast)
    unused = _unused_key_columns(present, columns)
    missing = {"missing_ok": missing_ok, "first_blank": first_blank,
               "test_train_ratio": None if RATIO_COLUMN not in frame.columns
               or RATIO_COLUMN in columns.values() else
               ratio_column(frame[RATIO_COLUMN].to_numpy(), name, row_offset)}
    if columns["metric"] is None:
        errors, notes, scales = column_errors(values, _resolve_kind(rule.kind, columns["value"]),
                                              columns["value"], datasets=keys["dataset"],
                                              lower_is_better=rule.lower_is_better,
                                              source=name, row_offset=row_offset)
        return _assemble(keys, errors, columns, name, row_offset, notes=(*notes_before, *notes),
                         unused=unused, scales=scales, **missing)
    if rule.kind not in ("auto", "error"):
        raise MultitestError(f"`kind` {rule.kind!r}: the results name each row's metric "
                             f"(column '{columns['metric']}'), which decides the direction; "
                             "leave kind out (or say 'error': the values are errors already)")
    # A value column named as errors (or kind 'error') holds errors already: turning them
    # by the metric's direction would make 1 - (1 - AUC) of TabArena's metric_error.
    as_errors = rule.kind == "error" or columns["value"].lower() in _ERROR_NAMES
    errors, notes, scales = metric_scales(
        values, frame[columns["metric"]].astype(str).to_numpy(),
        higher_is_better=rule.higher_is_better, lower_is_better=rule.lower_is_better,
        datasets=keys["dataset"], source=name, row_offset=row_offset,
        field=columns["metric"], as_errors=as_errors, value_field=columns["value"])
    why = "kind 'error'" if rule.kind == "error" else "its name"
    intro = (f"the values of column '{columns['value']}' are errors already ({why}), kept as "
             f"they are; column '{columns['metric']}' names their metric: " if as_errors else
             f"errors from the metric of each row (column '{columns['metric']}'): ")
    layout = (() if columns["algorithm"] == asked else (
        f"column '{columns['algorithm']}' names the algorithms (TabRepo's and TabArena's "
        f"layout, with no column '{asked}')",))
    return _assemble(keys, errors, columns, name, row_offset, unused=unused, **missing,
                     notes=(*notes_before, *layout, intro + "; ".join(notes)), scales=scales)


def _read_pandas(name, columns, kind, missing_ok=False):
    """The fast path through the C reader of pandas, or None (header not understood).

    Every column is parsed (no ``usecols``: the C reader then rejects a ragged
    row instead of silently dropping its extra field), with
    ``index_col=False`` and the reader's warnings as errors, so that a row with
    one field too many is never taken for an index.
    """
    raw = _header(name)
    wanted = None if raw is None else _wanted(raw, columns)
    if wanted is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        frame = pd.read_csv(name, skipinitialspace=True, index_col=False, na_filter=False,
                            keep_default_na=False,
                            dtype={raw[c]: object if t == "name" else np.float64
                                   for c, t in wanted.items()})
    frame.columns = [str(c).strip() for c in frame.columns]
    return _load(frame[list(wanted)], name, 2, columns, kind, fast=True, present=list(raw),
                 missing_ok=missing_ok)


def _read_arrow(name, columns, kind, missing_ok=False):
    """The fast path through pyarrow's CSV reader, or None (no pyarrow, header not
    understood): the whole file read on every CPU (:mod:`~._arrow_tables`); a ragged
    row, an empty number or anything else unusual makes pyarrow or the checks give up."""
    pa = arrow()
    raw = None if pa is None else _header(name)
    roles = None if raw is None else _csv_roles(raw, columns)
    if roles is None:
        return None
    with progress(2, "reading") as bar:
        try:
            numbers, names = read_csv_columns(name, roles, MAX_FOLD_NUMBER)
        except (pa.ArrowInvalid, LookupError):
            raise _Fallback from None
        bar.update()
        loaded = _load_columns(numbers, names, raw, name, 2, columns, kind, missing_ok)
        bar.update()
        return loaded


def _load_columns(numbers, names, raw, name, row_offset, columns, rule, missing_ok=False):
    """:func:`_load` of decoded columns (:func:`~._arrow_tables.table_columns`)."""
    columns = _resolve_columns(list(raw), name, columns)
    if columns["metric"] is not None:
        raise _Fallback   # a metric per row: the text path
    values = _fast_values(numbers.pop(raw[columns["value"]]))
    keys = {role: _strip_names(*names.pop(raw[columns[role]]))
            for role in ("dataset", "algorithm")}
    for role in ("replication", "fold"):
        column = None if columns[role] is None else numbers.pop(raw[columns[role]])
        keys[role] = column if column is None or column.dtype == np.int32 else \
            _fast_integers(column)
    ratio = None if RATIO_COLUMN not in raw or RATIO_COLUMN in columns.values() else \
        ratio_column(numbers.pop(raw[RATIO_COLUMN]), name, row_offset)
    errors, notes, scales = column_errors(values, _resolve_kind(rule.kind, columns["value"]),
                                          columns["value"], datasets=keys["dataset"],
                                          lower_is_better=rule.lower_is_better,
                                          source=name, row_offset=row_offset)
    return _assemble(keys, errors, columns, name, row_offset, notes=notes, scales=scales,
                     unused=_unused_key_columns(list(raw), columns), missing_ok=missing_ok,
                     test_train_ratio=ratio)


def _load_parquet(name, columns, kind, missing_ok=False):
    """A Parquet file: read whole by pyarrow, else its rows through the text path."""
    parquet_module(name)
    if not os.path.exists(name):
        raise InputError("no such file", source=name)
    return _load_parquet_files([name], name, columns, kind, missing_ok)


def parquet_parts(folder):
    """The Parquet files of a folder (a partitioned data set), in the order they are read.

    Every file whose name ends in ``.parquet`` or ``.pq`` (not hidden, not starting
    with ``_``), in subfolders too, sorted by path; an empty list when there is none.
    """
    found = []
    for root, dirs, files in os.walk(folder):
        found.extend(os.path.join(root, f) for f in files
                     if f.lower().endswith(PARQUET_SUFFIXES) and not f.startswith((".", "_")))
    return sorted(found)


def input_parts(folder):
    """The files of a partitioned input: the Parquet files of a folder
    (:func:`parquet_parts`), else its CSV files (:func:`csv_parts`; not in a folder of
    ``multitest run``, which holds ``results.csv``); an empty list when none."""
    if not os.path.isdir(folder):
        return []
    return parquet_parts(folder) or (csv_parts(folder) if _is_csv_folder(folder) else [])


def _is_csv_folder(source):
    return (isinstance(source, (str, os.PathLike)) and os.path.isdir(source)
            and not os.path.isfile(os.path.join(source, "results.csv"))
            and not parquet_parts(source) and bool(csv_parts(source)))


def _load_parquet_folder(folder, columns, kind, missing_ok=False):
    """A folder of Parquet files (a data set partitioned into files), as one table."""
    parts = parquet_parts(folder)
    if not parts:
        raise InputError("a folder of results must hold Parquet files (*.parquet); "
                         "none found", source=folder)
    return _load_parquet_files(parts, folder, columns, kind, missing_ok)


def _load_parquet_files(parts, source, columns, kind, missing_ok=False):
    """Parquet files read one after the other as one table, whole (names as
    dictionaries, as Parquet stores them); on anything unusual the rows go through the
    text path, whose message names the file and its row (counted from 1)."""
    pq = parquet_module(source)
    schemas = []
    for part in parts:
        try:
            schemas.append(pq.read_schema(part).names)
        except (OSError, ValueError) as exc:   # ArrowInvalid is a ValueError
            raise InputError(f"not a readable Parquet file ({abbreviate(exc)})",
                             source=part) from None
    raw = [_columns_named_once(schema, part) for part, schema in zip(parts, schemas)][0]
    present = schemas[0]
    names = [c for c in present if str(c).strip() in (columns["dataset"], columns["algorithm"])]
    if all(schema == present for schema in schemas):
        try:
            files = [pq.ParquetFile(part, read_dictionary=names) for part in parts]
            return _parquet_columns(files, raw, source, columns, kind, missing_ok)
        except (_Fallback, LookupError, MultitestError, ValueError, TypeError, OSError):
            pass
    frames, offsets = [], [0]
    for part in parts:
        try:
            frames.append(pq.read_table(part).to_pandas())
        except (OSError, ValueError) as exc:
            raise InputError(f"not a readable Parquet file ({abbreviate(exc)})",
                             source=part) from None
        offsets.append(offsets[-1] + len(frames[-1]))
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    frame.columns = [str(c).strip() for c in frame.columns]
    try:
        return _load(frame, source, 1, columns, kind, fast=False, missing_ok=missing_ok)
    except InputError as exc:
        if exc.row is None or exc.source != source or len(parts) == 1:
            raise
        k = int(np.searchsorted(offsets, exc.row - 1, side="right")) - 1
        raise InputError(exc.message, source=parts[k], row=exc.row - offsets[k],
                         field=exc.field) from None


def _parquet_columns(files, raw, name, columns, kind, missing_ok=False, row_groups=None):
    """:func:`_load_columns` of Parquet files (``pyarrow.parquet.ParquetFile``, one
    schema; `row_groups`: those of the one file only) read whole, one after the other;
    ``_Fallback``: header not understood."""
    import pyarrow as pa

    wanted = _wanted(raw, columns)
    if wanted is None:
        raise _Fallback
    types = [[f.schema_arrow.field(raw[c]).type for f in files] for c in wanted]
    if any(len(set(map(str, kinds))) > 1 for kinds in types):
        raise _Fallback        # a column of another type in some file
    roles = {raw[c]: t if t == "name" else "integer" if pa.types.is_integer(kinds[0])
             else "number" for (c, t), kinds in zip(wanted.items(), types)}

    def read():
        return pa.concat_tables([f.read(columns=list(roles)) if row_groups is None else
                                 f.read_row_groups(row_groups, columns=list(roles))
                                 for f in files])
    numbers, names = table_columns(read, roles, MAX_FOLD_NUMBER)
    return _load_columns(numbers, names, raw, name, 1, columns, kind, missing_ok)


def _resolve_kind(kind, value_column):
    if kind not in VALUE_KINDS:
        raise MultitestError(f"`kind` must be one of {', '.join(VALUE_KINDS)}, got {kind!r}")
    if kind != "auto":
        return kind
    return "accuracy" if value_column.lower() in _ACCURACY_NAMES else "error"


#: A note of the input that is a warning starts so (the summary prints it as one).
WARNING_PREFIX = "warning: "

#: Names of columns that look like a key column (a replication, a fold) but are not read.
KEY_LIKE_COLUMNS = ("rep", "reps", "repeat", "repetition", "run", "seed", "split", "cv",
                    "iteration", "trial", "fold_id", "cv_fold")


def _unused_key_columns(present, columns):
    """The columns of the input that look like key columns and are not read."""
    used = {c for c in columns.values() if c is not None}
    return [c for c in present if str(c).strip().lower() in KEY_LIKE_COLUMNS
            and str(c).strip() not in used]


def _assemble(keys, errors, columns, name, row_offset, *, notes=(), scales=(), unused=(),
              missing_ok=False, first_blank=None, test_train_ratio=None):
    if len(errors) == 0:
        raise InputError("no data rows (only a header)", source=name, row=row_offset)
    ds_codes, datasets = keys["dataset"]
    alg_codes, algorithms = keys["algorithm"]
    has_folds = keys["fold"] is not None
    S, L = len(datasets), len(algorithms)
    if L < 2:
        raise InputError(f"at least 2 algorithms are needed, found {L} "
                         f"({', '.join(map(abbreviate, algorithms))})", source=name,
                         field=columns["algorithm"])
    grid = _grid(keys, errors, S, L) if has_folds else None
    if grid is not None:
        cube, fold_labels = grid
        if first_blank is not None:
            _check_complete(cube, datasets, algorithms, fold_labels, keys, columns, name,
                            missing_ok, first_blank)
    else:
        if has_folds:
            fold_codes, fold_labels = _sorted_codes(_fold_keys(keys))
        else:
            fold_codes, fold_labels = np.zeros(len(errors), dtype=np.int64), np.array([0])
        F = len(fold_labels)
        flat = (ds_codes.astype(np.int64) * L + alg_codes) * F + fold_codes
        _check_duplicates(flat, keys, columns, name, row_offset, unused)
        cube = np.full(S * L * F, np.nan)
        cube[flat] = errors
        cube = cube.reshape(S, L, F)
        _check_complete(cube, datasets, algorithms, fold_labels, keys, columns, name,
                        missing_ok, first_blank)
    replications, per_rep = _fold_design(fold_labels, keys, columns, name) if has_folds else (1, 1)
    cube.setflags(write=False)
    n_missing = int(np.isnan(cube).sum()) if missing_ok and (
        grid is None or first_blank is not None) else 0
    return Results(errors=cube, datasets=datasets, algorithms=algorithms,
                   replications=replications, folds_per_replication=per_rep,
                   has_folds=has_folds, source=name, notes=tuple(notes), n_missing=n_missing,
                   scales=tuple(scales), test_train_ratio=test_train_ratio)
