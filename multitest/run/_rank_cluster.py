"""``multitest rank --workers N`` / ``--scheduler ADDRESS``: MultiTest on a Dask cluster.

The input is a Parquet or CSV file, or a folder of them, cut into parts (:func:`~multitest.
inputs.split_input`: files, runs of a Parquet file's row groups, byte ranges of a CSV file;
every data set in one part).  One task per part reads it, runs stage 1 and
the per-data-set orders (:func:`~multitest.engine._ranking.per_dataset_stage`, the code of
:func:`multitest.rank`) and writes its part of the pairwise file into the staging folder of
the run's one output transaction (``pairwise.npz/part-NNNNN.npz``, which
:func:`~multitest.outputs.read_pairwise` reads as one file).  Only the cost orders, the
MultiTest orders, the mean errors and the decisions (as bits) come back to the client, which
runs the second pass and writes the other files into the same transaction: the folder holds
the previous run or this one, complete.

The cluster is the runner's (:func:`multitest.run._client._client`: forked worker processes
on 127.0.0.1, or an existing scheduler).  A worker lost mid-run is replaced by the
scheduler and its tasks rerun (a part is written under a temporary name and renamed, so a
killed task leaves no half part).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from .._errors import MultitestError
from ..engine._per_dataset import DataSetOrders, DataSetResult
from ..engine._ranking import (_unused_costs_note, per_dataset_stage, rank_datasets,
                               resolve_profile)
from ..engine._settings import check_for_results
from ..engine._stage1 import PairwiseTable, RowArray
from ..inputs._results import Results
from ..inputs._split import load_part, part_labels, part_names, split_input
from ..outputs._json import INLINE_PAIRS_LIMIT
from ..outputs._pairwise_file import PAIRWISE_FILE, read_pairwise, write_pairwise_arrays
from ..outputs._transaction import transaction
from ..outputs._write import run_inputs, run_manifest, write_run_files
from ._client import _client
from ._runner import require_extra

__all__ = []

#: Reruns of a failed task (an exception in it); a task lost with its worker is rerun by
#: the scheduler (``distributed.scheduler.allowed-failures``).
TASK_RETRIES = 2
#: The local cluster's scratch folder, in the staging folder (removed before the commit).
_SCRATCH = ".dask-scratch"


def rank_on_cluster(folder, costs, out, *, settings, workers=None, scheduler=None,
                    load_options=None, extra=None, inputs=(), raw_csv=False,
                    all_intervals=False):
    """Rank a partitioned input on a Dask cluster and write the run to `out`.

    Parameters
    ----------
    folder : str
        A Parquet or CSV file, or a folder of Parquet files or of CSV files
        (:func:`~multitest.inputs._results.input_parts`), each data set's rows together; a file
        is ranked in parts (:func:`~multitest.inputs._split.split_input`: runs of row groups,
        byte ranges), a data set in two parts is refused.
    costs : CostProfile, str or other
        As :func:`multitest.rank`'s `costs`.
    out : str
        The output folder (one transaction, as ``multitest rank --out``).
    settings : multitest.engine.Settings
        Checked settings (:meth:`~multitest.engine.Settings.from_options`).
    workers : int, optional
        Worker processes of a local cluster on 127.0.0.1 (default: CPUs).
    scheduler : str, optional
        Address of an existing Dask scheduler instead.
    load_options : dict, optional
        Keywords of :func:`~multitest.inputs.load_results` for every part.
    extra : callable, optional
        ``extra(ranking)`` returns a callable writing more files into the
        staging folder (figures, the report).
    inputs : iterable of str
        More files read, which no output may replace.
    raw_csv, all_intervals : bool
        As in :func:`multitest.outputs.write_outputs`.

    Returns
    -------
    multitest.engine.Ranking
        Its stage-1 statistics and p-values are read from the parts on access.

    Raises
    ------
    MultitestError
        A folder without Parquet or CSV files, a data set in two parts, parts naming other
        algorithms, a Bayesian stage-1 test, a missing-result policy or a score matrix.
    """
    require_extra()
    options = dict(load_options or {})
    parts = split_input(folder, dataset=options.get("dataset", "dataset"))
    if not parts:
        raise MultitestError(f"{folder}: --workers and --scheduler rank a Parquet or CSV "
                             "file, or a folder of them, partitioned by data set; none found")
    if settings.pairwise_test.bayesian:
        raise MultitestError(f"`test`: {settings.pairwise_test.name!r} is not run on a "
                             "cluster (Bayesian stage 1); leave out --workers/--scheduler")
    if settings.missing != "error":
        raise MultitestError(f"`missing`: {settings.missing!r} is not run on a cluster (every "
                             "result must be present); leave out --workers/--scheduler")
    profile = resolve_profile(costs, folder)
    settings = dataclasses.replace(settings, costs=profile.name,
                                   test=settings.pairwise_test.name)
    files = list(dict.fromkeys(part.path for part in parts))
    with transaction(out, settings=run_manifest(folder, settings, profile, raw_csv,
                                                all_intervals),
                     inputs=run_inputs(folder, profile, [*files, *inputs])) as staging:
        os.mkdir(os.path.join(staging, PAIRWISE_FILE))
        # The local cluster's scratch files in the staging folder, removed before the
        # commit (a killed run's by the next writer's recovery): none outside --out.
        with _client(workers, scheduler, os.path.join(staging, _SCRATCH)) as client:
            algorithms, answers = _part_answers(client, parts, profile, settings, options,
                                                staging)
        _remove_leftovers(os.path.join(staging, PAIRWISE_FILE), len(parts))
        where, ranking = _ranking(folder, answers, algorithms, profile, settings, staging)
        write_run_files(ranking, staging, extra=None if extra is None else extra(ranking),
                        raw_csv=raw_csv, pairwise_written=True, all_intervals=all_intervals)
    where.moved(os.path.join(out, PAIRWISE_FILE))
    return ranking


def _part_answers(client, parts, profile, settings, options, staging):
    """``(algorithms, answers)``: the answers of the tasks of the parts, all run at once,
    each part's algorithms in its own order of first appearance; a part whose order is
    not the first part's (the order of a single-process run) is run again in that order.
    The first part is not read a second time to learn the order first (an 84 MB CSV file
    in two ranges was read one and a half times)."""
    def run(algorithms, ks):
        futures = [client.submit(_answer, _part_task, k, parts[k], algorithms, profile,
                                 settings, options, staging, pure=False,
                                 retries=TASK_RETRIES) for k in ks]
        return client.gather(futures)

    answers = run(None, range(len(parts)))
    _check_partitioned(parts, answers)
    algorithms = None
    for part, answer in zip(parts, answers):   # the first fault in the order of the parts
        found = answer["algorithms"]
        if algorithms is not None and found and set(found) != set(algorithms):
            raise _algorithms_differ(part, found, algorithms)
        _raise_errors([answer])
        algorithms = algorithms or found
    again = [k for k, answer in enumerate(answers)
             if answer["datasets"] and answer["algorithms"] != algorithms]
    for k, answer in zip(again, run(algorithms, again)):
        _raise_errors([answer])
        answers[k] = answer
    for k, answer in enumerate(answers):
        if not answer["datasets"]:
            answers[k] = _no_data_sets(len(algorithms), answer["lines"])
    _check_designs(parts, answers)
    return algorithms, answers


def _remove_leftovers(folder, n_parts):
    """Remove what a task killed while writing left (its temporary file): the folder
    then holds exactly the parts of this run."""
    keep = {f"part-{k:05d}.npz" for k in range(n_parts)}
    for name in os.listdir(folder):
        if name not in keep:
            os.remove(os.path.join(folder, name))


def _names(part, options):
    """``{"datasets": names, "lines": rows}`` of `part`, from its data set column alone
    (:func:`~multitest.inputs._split.part_names`), as :func:`_check_partitioned` reads answers."""
    datasets, lines = part_names(part, options.get("dataset", "dataset"))
    return {"datasets": datasets, "lines": lines}


def _answer(task, *args):
    """``task(*args)``, or the :class:`~multitest.MultitestError` it raised as the answer:
    a fault of the input is said once by the client, not retried nor logged by Dask."""
    try:
        return task(*args)
    except MultitestError as exc:
        return exc


def _raise_errors(answers):
    for answer in answers:
        if isinstance(answer, dict):
            answer = answer.get("error")
        if isinstance(answer, MultitestError):
            raise answer


def _part_task(k, part, algorithms, profile, settings, options, staging):
    """:func:`_ranked_part` of the part read; the error of a refused part is returned
    with the data sets the part names (a data set in two parts, which makes each
    incomplete, is said as such by :func:`_check_partitioned`) and its algorithms, when
    read (parts naming other algorithms are said as such before any later error)."""
    results = None
    try:
        results, lines = load_part(part, **options)
        return _ranked_part(k, part, results, lines, algorithms, profile, settings, staging)
    except MultitestError as exc:
        return {"error": exc, "algorithms": results and results.algorithms,
                **_names(part, options)}


def _ranked_part(k, part, results, lines, algorithms, profile, settings, staging):
    """Stage 1 and the orders of the `results` of one part, its `algorithms` in that
    order (None: in its own order of first appearance); writes ``part-k.npz``; returns
    the arrays the client needs (:func:`_ranking`); a part owning no data set (a CSV
    range inside one data set) writes nothing."""
    if results is None:
        return _no_data_sets(0 if algorithms is None else len(algorithms), lines)
    if algorithms is None:
        algorithms = results.algorithms
    if set(results.algorithms) != set(algorithms):
        raise _algorithms_differ(part, results.algorithms, algorithms)
    if not results.has_folds:
        raise MultitestError(f"{part.where()}: a score matrix (no folds) is ranked without "
                             "a cluster")
    results = results.subset(algorithms=list(algorithms))
    check_for_results(settings, results)
    per_dataset = per_dataset_stage(results, profile, settings)
    table = per_dataset[0].table
    path = os.path.join(staging, PAIRWISE_FILE, f"part-{k:05d}.npz")
    temporary = f"{path}.{os.getpid()}.tmp"   # a rerun elsewhere writes its own
    write_pairwise_arrays(temporary, results, table, settings)
    os.replace(temporary, path)
    return {"datasets": results.datasets, "algorithms": tuple(algorithms),
            "notes": results.notes, "lines": lines,
            "replications": results.replications,
            "folds_per_replication": results.folds_per_replication,
            "prior": table.prior.astype(np.int32),
            "order": per_dataset[0].orders.order,
            "cost_ties": [r.cost_ties for r in per_dataset],
            "mean_errors": table.mean_errors,
            "override": np.packbits(table.override, axis=1)}


def _algorithms_differ(part, found, algorithms):
    other = sorted(set(found) ^ set(algorithms))
    return MultitestError(f"{part.where()}: its algorithms differ from the first part's; "
                          f"not in both: {', '.join(map(str, other[:5]))}")


def _no_data_sets(L, lines):
    """The answer of a part owning no data set."""
    P = L * (L - 1) // 2
    return {"datasets": (), "algorithms": None, "notes": (), "lines": lines,
            "replications": None,
            "folds_per_replication": None, "prior": np.empty((0, L), np.int32),
            "order": np.empty((0, L), np.intp), "cost_ties": [],
            "mean_errors": np.empty((0, L)),
            "override": np.empty((0, -(-P // 8)), np.uint8)}


def _ranking(folder, answers, algorithms, profile, settings, staging):
    """``(where the parts are, the Ranking)`` from the answers of the tasks."""
    datasets = [name for answer in answers for name in answer["datasets"]]
    L = len(algorithms)
    P = L * (L - 1) // 2
    cheaper, costlier = np.triu_indices(L, k=1)
    S = len(datasets)
    override = _BitRows(_joined(answers, "override"), P)
    prior = _joined(answers, "prior")   # int32: half the bytes of intp
    mean_errors = _joined(answers, "mean_errors")
    where = _Parts(os.path.join(staging, PAIRWISE_FILE),
                   np.cumsum([0] + [len(a["datasets"]) for a in answers]))
    F = answers[0]["replications"] * answers[0]["folds_per_replication"]
    errors = _PartRows(where, (S, L, F), None)
    statistic, pvalue = (_PartRows(where, (S, P), column) for column in ("statistic", "pvalue"))
    adjusted = pvalue if settings.correction == "none" else \
        _PartRows(where, (S, P), "pvalue_adjusted")
    if S * P <= INLINE_PAIRS_LIMIT:
        # A small run lists its pairs and its parts are removed: its tests are held here.
        errors = np.concatenate([errors[s][None] for s in range(S)])
        pairs = read_pairwise(where.folder)
        statistic, pvalue, adjusted = (pairs[c].to_numpy().reshape(S, P) for c in
                                       ("statistic", "pvalue", "pvalue_adjusted"))
        override = pairs["override"].to_numpy().reshape(S, P)
    for array in (prior, mean_errors):
        array.setflags(write=False)
    table = PairwiseTable(prior=prior, cheaper=cheaper, costlier=costlier, statistic=statistic,
                          pvalue=pvalue, pvalue_adjusted=adjusted, override=override,
                          mean_errors=mean_errors)
    head = answers[0]
    notes = tuple(dict.fromkeys(n for a in answers for n in a["notes"]))
    # The per-fold errors stay in the parts (a large run): read a data set's on access.
    results = Results(errors=errors, datasets=tuple(datasets),
                      algorithms=tuple(algorithms), replications=head["replications"],
                      folds_per_replication=head["folds_per_replication"], has_folds=True,
                      source=folder, notes=notes)
    keys = profile.keys(results.datasets, results.algorithms)
    orders = DataSetOrders(costs=keys[0], order=_joined(answers, "order"),
                           scores=None, partial=False)
    cost_ties = [t for a in answers for t in a["cost_ties"]]
    per_dataset = tuple(
        DataSetResult(name=name, index=s, algorithms=results.algorithms,
                      cost_ties=cost_ties[s],
                      tested=True, table=table, orders=orders)
        for s, name in enumerate(datasets))
    return where, rank_datasets(results, profile, settings, per_dataset,
                                _unused_costs_note(profile, results), keys=keys)


def _joined(answers, key):
    """The arrays `key` of the answers as one, taken out of the answers (not held twice)."""
    return np.concatenate([answer.pop(key) for answer in answers])


def _check_partitioned(parts, answers):
    """Every data set in one part (a data set split over files, or not contiguous in a
    file ranked in parts, is refused)."""
    named = [answer["datasets"] if isinstance(answer, dict) else () for answer in answers]
    if len({name for names in named for name in names}) == sum(map(len, named)):
        return
    seen = {}
    for label, names in zip(_labels(parts, answers), named):
        for name in names:
            if name in seen:
                raise MultitestError(f"{label}: data set {name!r} is also in {seen[name]}; "
                                     "--workers needs the rows of every data set together, "
                                     "in one file")
            seen[name] = label


class _Parts:
    """Where each data set of a cluster run is: its part file and row there; what was read
    last is kept, as the data sets are read in turn: the per-fold errors of a part (each
    read of a data set loaded its whole part: quadratic, and every row kept its part
    alive), and the tests of a data set (its statistics and p-values, read one column after
    the other, are one rerun)."""

    def __init__(self, folder, starts):
        self.folder, self._starts = folder, starts
        self._errors = (None, None)     # a part file, its errors
        self._tests = (None, None)      # (part file, row), the data set's tests

    def errors(self, s):
        """The per-fold errors of data set ``s``."""
        part, row = self.locate(s)
        if self._errors[0] != part:
            with np.load(part, allow_pickle=False) as archive:
                self._errors = (part, archive["errors"])
        return self._errors[1][row]

    def tests(self, s):
        """The tests of data set ``s`` (:func:`~multitest.outputs.read_pairwise`: rerun from
        the stored errors, bit for bit)."""
        where = self.locate(s)
        if self._tests[0] != where:
            part, row = where
            with np.load(part, allow_pickle=False) as archive:
                name = str(archive["datasets"][row])
            self._tests = (where, read_pairwise(part, [name]))
        return self._tests[1]

    def moved(self, folder):
        """The parts are now in `folder` (the transaction committed)."""
        self.folder = folder

    def locate(self, s):
        """``(part file, row in it)`` of data set ``s``."""
        k = int(np.searchsorted(self._starts, s, side="right")) - 1
        return os.path.join(self.folder, f"part-{k:05d}.npz"), s - int(self._starts[k])


class _BitRows(RowArray):
    """The ``(S, P)`` override decisions of a cluster run, kept as bits (one eighth of
    the booleans: 124 MB at 10^9 tests); a data set's row is unpacked on access."""

    dtype = np.dtype(bool)

    def __init__(self, packed, P):
        self._packed, self.shape = packed, (packed.shape[0], P)
        self._counts = None

    def __getitem__(self, key):
        row_key, rest = self._split(key)
        if not isinstance(row_key, (int, np.integer)) or len(rest) > 1:
            raise TypeError("the decisions of a cluster run are read one data set at a time")
        row = np.unpackbits(self._packed[self._data_set(row_key)],
                            count=self.shape[1]).view(bool)
        return row[rest[0]] if rest else row

    def __array__(self, dtype=None, copy=None):
        # The booleans of every data set at once are what these bits save (8x the memory)
        raise TypeError("the decisions of a cluster run are read one data set at a time "
                        "(or counted by .sum())")

    def sum(self):
        """The number of overrides in all (the bits set)."""
        if self._counts is None:
            self._counts = sum(int(np.unpackbits(self._packed[s0:s0 + 4096]).sum())
                               for s0 in range(0, self.shape[0], 4096))
        return self._counts


class _PartRows(RowArray):
    """A read-only array, first axis the data sets, of a run ranked on a cluster, read
    from its pairwise parts one data set at a time on access: a stage-1 column
    (:func:`~multitest.outputs.read_pairwise`: the tests rerun from the stored errors,
    bit for bit) or the per-fold errors (``column`` None)."""

    dtype = np.dtype(float)

    def __init__(self, parts, shape, column):
        self._parts, self.shape, self._column = parts, shape, column
        self.ndim = len(shape)

    def __getitem__(self, key):
        row_key, rest = self._split(key)
        if not isinstance(row_key, (int, np.integer)) or len(rest) > 1:
            raise TypeError("the results of a cluster run are read one data set at a time")
        s = self._data_set(row_key)
        values = self._parts.errors(s) if self._column is None else \
            self._parts.tests(s)[self._column].to_numpy()
        return values[rest[0]] if rest else values


def _labels(parts, answers):
    """The parts in words, with the rows each read (:func:`~.inputs._split.part_labels`)."""
    return part_labels(parts, [answer.get("lines") if isinstance(answer, dict) else None
                               for answer in answers])


def _check_designs(parts, answers):
    """Every part of the fold design of the first (the arrays of the run are joined)."""
    labels = _labels(parts, answers)
    design = [(a["replications"], a["folds_per_replication"]) for a in answers]
    first = design[0]
    for label, other in zip(labels, design):
        if other != first and other != (None, None):     # (None, None): no data set
            raise MultitestError(f"{label}: another fold design ({other[0]} replication(s) "
                                 f"of {other[1]} fold(s)) than {labels[0]}'s ({first[0]} of "
                                 f"{first[1]}); --workers needs one design")
