"""``multitest run``: from estimators to results and measured costs, on Dask.

:func:`run_experiment` reads an experiment file (:mod:`multitest.run._experiment`),
submits every (data set, algorithm, replication, fold) not yet in the store to
a Dask distributed cluster (a local cluster of single-threaded worker
processes bound to 127.0.0.1 by default, or an existing scheduler), commits
each finished fold to the store as it arrives (:mod:`multitest.run._store`), and
writes the derived files of the experiment folder:

``results.csv``
    long format (``dataset, algorithm, replication, fold, error`` and one
    column per measured cost): ``multitest rank DIR`` reads it with no flags.
``costs/<measure>.yaml``
    one cost profile per measure (mean over the folds): ``fit_time``,
    ``fit_cpu_time``, ``predict_time``, ``predict_cpu_time``, ``peak_memory``,
    ``model_size``.
``costs/noise.csv``
    the spread of repeated fits of the same fold, per data set, algorithm
    and timed measure; the median is quoted in every time profile.
``failures.csv``
    folds that raised, crashed or timed out, with their error.
``provenance.json``
    versions, machines (client and workers), seeds, times, counts and notes.

Failure policy: a failed (or missing) fold is a row of ``results.csv`` with an
empty error, and ``multitest rank DIR`` applies the missing-result policy
(``--missing``: ``error`` by default, ``drop``, ``worst``, ``baseline:NAME``,
``partial``) to it, as to any result file; a note in ``provenance.json``, which
``multitest rank DIR`` prints, names each data set with failures.  The cost
profiles average the folds that ran; an algorithm with no fold done on a data
set gets its average over the data sets where it ran there (stated in the
profile's description).  A re-run computes only what is missing (failed folds
too with ``retry_failed=True``).

This module imports scikit-learn and Dask only inside :func:`run_experiment`:
they are the optional ``run`` extra.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import math
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass

from .._errors import InputError, MultitestError
from .._cpus import max_workers
from ._batches import FoldBatches
from ._client import _bounded, _client, _on_every_worker
from ._derived import _COMMAND, _derive, _machine, _provenance, _write_outputs
from ._experiment import (
    Experiment,
    check_estimators,
    data_digest,
    load_dataset,
    load_experiment,
)
from ._measure import Task, close_fit_processes, run_tasks
from ._store import KEY, STORE_FILE, Store

__all__ = ["run_experiment", "RunResult"]

EXTRA_MESSAGE = "multitest run needs the 'run' extra: pip install 'multitest-rank[run]'"
_EXTRA_MODULES = ("sklearn", "dask", "distributed", "threadpoolctl")
@dataclass(frozen=True)
class RunResult:
    """What one call of :func:`run_experiment` did.

    Attributes
    ----------
    out : str
        The experiment folder.
    total, computed, reused, failed, lost : int
        Folds of the experiment; computed by this run; found in the store;
        failed (error or timeout, stored); lost (worker lost, not stored:
        the next run computes them).
    datasets_ranked, datasets_dropped : tuple of str
        The complete data sets, and those with a failed or missing fold (in
        ``results.csv`` with an empty error; ``multitest rank --missing``).
    seconds : float
    notes : tuple of str

    Examples
    --------
    >>> from multitest.run import RunResult
    >>> result = RunResult(out="exp", total=20, computed=20, reused=0, failed=0, lost=0,
    ...                    datasets_ranked=("iris",), datasets_dropped=(), seconds=3.0,
    ...                    notes=())
    >>> result.computed + result.reused == result.total
    True
    """

    out: str
    total: int
    computed: int
    reused: int
    failed: int
    lost: int
    datasets_ranked: tuple
    datasets_dropped: tuple
    seconds: float
    notes: tuple

    def summary(self):
        lines = [f"{self.total} folds: {self.computed} computed, {self.reused} from the store, "
                 f"{self.failed} failed, {self.lost} lost ({self.seconds:.1f} s)",
                 f"complete data sets: {', '.join(self.datasets_ranked) or 'none'}"]
        if self.datasets_dropped:
            lines.append(f"data sets with failed folds: {', '.join(self.datasets_dropped)} "
                         "(multitest rank --missing drop|worst|baseline:NAME|partial)")
        lines += [f"note: {note}" for note in self.notes]
        lines.append(f"outputs written to {self.out}; next: multitest rank {self.out} "
                     "--costs fit_time")
        return "\n".join(lines)


def require_extra():
    """Raise a one-line error unless the optional dependencies of ``multitest run`` are there.

    They are found, not imported: each is imported when first needed (Dask when
    the cluster starts, after the estimators and data sets are checked).
    """
    import importlib.util

    for name in _EXTRA_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MultitestError(EXTRA_MESSAGE)


def run_experiment(experiment, out, *, workers=None, scheduler=None, timeout=None,
                   retry_failed=False, show_progress=True, raw_csv=False):
    """Run an experiment (or resume it) and write its folder.

    Parameters
    ----------
    experiment : str, os.PathLike or Experiment
        The experiment YAML file.
    out : str or os.PathLike
        The experiment folder: store, results, costs, provenance.
    workers : int, optional
        Worker processes of the local cluster (default: the number of CPUs).
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://host:8786``); then
        `workers` is ignored.
    timeout : float or "none", optional
        Seconds per fit, positive and finite, or ``"none"`` for no limit
        (overrides the experiment's ``timeout``).
    retry_failed : bool
        Also recompute folds stored as failed.
    show_progress : bool
        Progress bar on a terminal (see :mod:`multitest._progress`).
    raw_csv : bool
        Write the names in the CSV files as they are; by default a name a
        spreadsheet would run as a formula gets a leading ``'``
        (:func:`~multitest.outputs._csv.neutralize_frame`), which the readers of
        multitest remove.

    Returns
    -------
    RunResult

    Raises
    ------
    MultitestError
        A missing 'run' extra, an invalid experiment file or data set (the
        message names the file, line and field), or invalid arguments.
    OutputError
        ``out`` is written by another command (the lock is held from before
        the store is opened to after the last file is written), or holds a
        symbolic link at ``store.sqlite*`` or a bookkeeping name.

    Examples
    --------
    >>> import os, tempfile
    >>> from multitest.run import run_experiment
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "experiment.yaml")
    >>> with open(path, "w", encoding="utf-8") as handle:
    ...     _ = handle.write("datasets:\\n  - sklearn: iris\\nalgorithms:\\n"
    ...                      "  nb: {estimator: sklearn.naive_bayes.GaussianNB}\\n"
    ...                      "  tree: {estimator: sklearn.tree.DecisionTreeClassifier}\\n"
    ...                      "cv: {replications: 1, folds: 2}\\n")
    >>> result = run_experiment(path, os.path.join(folder, "exp"), workers=1,
    ...                         show_progress=False)
    >>> result.total, result.failed
    (4, 0)
    """
    require_extra()
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise MultitestError(f"`workers` must be a positive integer, got {workers!r}")
    if workers is not None and workers > max_workers():
        raise MultitestError(f"`workers` must be at most {max_workers()} (4 per CPU), got "
                             f"{workers}")
    start = time.time()
    if not isinstance(experiment, Experiment):
        experiment = load_experiment(experiment)
    if timeout is not None:     # the command's own overrides the file's
        experiment = dataclasses.replace(experiment, timeout=parse_timeout(timeout))
    check_estimators(experiment)
    _check_metric(experiment)
    if experiment.timeout is not None and not experiment.isolate:
        raise MultitestError("`timeout` needs each fit in its own process: the experiment "
                             "sets isolate: false")
    from ..outputs._transaction import hold

    loaded = {}
    digests = _digests(experiment, loaded)
    tasks = _tasks(experiment, digests)
    # Every data set is loaded and checked before the folder is touched: a data set
    # refused leaves no folder (nor store) behind.  A resumed run reads those it will
    # not fit again too; their files were read for their digests already.
    for i in range(len(experiment.datasets)):
        if i not in loaded:
            loaded[i] = load_dataset(experiment, i)
    out = os.path.abspath(os.fspath(out))
    # The folder is locked from before the store opens to after the outputs are written:
    # a second run (or any other writer) on it stops at once with one line.
    store_path = os.path.join(out, STORE_FILE)
    with _signals(), hold(out, no_links=(STORE_FILE,), command=_COMMAND), \
            Store(store_path) as store:
        done = store.done()
        todo = [t for t in tasks if _needed(t, done.get(t.key), retry_failed)]
        needed = {t.dataset for t in todo}
        data = {spec.name: loaded[i] for i, spec in enumerate(experiment.datasets)
                if spec.name in needed}
        engine = {"scheduler": scheduler or "local", "workers": workers}
        run = store.start_run(len(todo), {"argv": sys.argv, "engine": engine})
        computed, lost, failed, worker_info = _execute(store, run, todo, data, len(tasks),
                                                       workers, scheduler, show_progress)
        store.finish_run(run, computed)
        frame = store.frame()
        reused = len(tasks) - len(todo)
        derived = _derive(experiment, tasks, frame)
        provenance = _provenance(experiment, start, run, engine, worker_info, derived,
                                 dict(total=len(tasks), computed=computed, reused=reused,
                                      failed=failed, lost=lost), digests)
        _write_outputs(out, derived, provenance, raw_csv)
    notes = tuple(derived["notes"])
    if lost:
        notes += (f"{lost} fold(s) were lost with their worker; run the same command again "
                  "to compute them",)
    return RunResult(out=out, total=len(tasks), computed=computed, reused=reused,
                     failed=int(derived["failures"]["status"].isin(["error", "timeout"]).sum()),
                     lost=lost,
                     datasets_ranked=tuple(derived["ranked"]),
                     datasets_dropped=tuple(derived["dropped"]),
                     seconds=time.time() - start, notes=notes)


def parse_timeout(value):
    """Seconds per fit: a positive finite number, or ``None`` for ``"none"``.

    Examples
    --------
    >>> parse_timeout("2.5"), parse_timeout("none")
    (2.5, None)
    >>> parse_timeout("inf")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    multitest._errors.MultitestError: `timeout` must be a positive finite number ... got 'inf'
    """
    if isinstance(value, str) and value.strip().lower() == "none":
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if isinstance(value, bool) or not (math.isfinite(seconds) and seconds > 0):
        raise MultitestError("`timeout` must be a positive finite number of seconds or 'none', "
                             f"got {value!r}")
    return seconds


@contextlib.contextmanager
def _signals():
    """The driver's signal handling for the length of a run (main thread only).

    * SIGINT raises :class:`KeyboardInterrupt` in this process only: the local
      cluster's workers and their fit processes, forked from it and in the
      terminal's process group, inherit the handler and ignore the signal;
      the driver ends them (a worker exits when its driver does, a fit
      process when its worker does).
    * SIGXFSZ (a file-size limit, ``ulimit -f``) is ignored, so that a write
      beyond the limit fails with an error the store reports, instead of
      killing the process.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    driver = os.getpid()

    def interrupt(signum, frame):
        if os.getpid() == driver:
            raise KeyboardInterrupt

    previous = {signal.SIGINT: signal.signal(signal.SIGINT, interrupt),
                signal.SIGXFSZ: signal.signal(signal.SIGXFSZ, signal.SIG_IGN)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _digests(experiment, loaded):
    """``{data set name: SHA-256 of its content}``; bundled and OpenML sets loaded into `loaded`."""
    digests = {}
    for i, spec in enumerate(experiment.datasets):
        if spec.source not in ("csv", "parquet"):
            loaded[i] = load_dataset(experiment, i)
        digests[spec.name] = data_digest(experiment, i, loaded.get(i))
    return digests


def _check_metric(experiment):
    if experiment.metric == "error":
        return
    from sklearn.metrics import get_scorer_names

    if experiment.metric not in get_scorer_names():
        source, row = experiment.where("metric")
        raise InputError(f"unknown metric {experiment.metric!r}: use 'error' or a scikit-learn "
                         "scorer name (sklearn.metrics.get_scorer_names())", source=source,
                         row=row, field="metric")


def _tasks(experiment, digests):
    """Every fold of the experiment, data set-major (the order of the file)."""
    tasks = []
    for dataset in experiment.datasets:
        for algorithm in experiment.algorithms:
            for replication in range(1, experiment.replications + 1):
                for fold in range(1, experiment.folds + 1):
                    repeats = experiment.repeats if replication == fold == 1 else 1
                    spec = experiment.spec_hash(dataset, algorithm, digests[dataset.name],
                                                repeats)
                    tasks.append(Task(dataset=dataset.name, algorithm=algorithm.name,
                                      estimator=algorithm.estimator, params=algorithm.params,
                                      replication=replication, fold=fold,
                                      folds=experiment.folds, seed=experiment.seed,
                                      metric=experiment.metric, spec=spec, repeats=repeats,
                                      timeout=experiment.timeout, isolate=experiment.isolate))
    return tasks


def _needed(task, stored, retry_failed):
    if stored is None or stored[0] != task.spec:
        return True
    return retry_failed and stored[1] != "ok"


def _execute(store, run, todo, data, total, workers, scheduler, show_progress):
    """Fit `todo` on the cluster, commit each result as it arrives; ``(computed, lost,
    failed, workers)``."""
    if not todo:   # complete: no engine to start
        return 0, 0, 0, {}
    from .._progress import progress

    counts = {"computed": 0, "lost": 0, "failed": 0}
    with progress(total, "run", enabled=None if show_progress else False) as bar:
        bar.update(total - len(todo))

        def commit(rows):    # one transaction for the folds that ended together
            store.record(rows, run)
            failed = sum(row["status"] != "ok" for row in rows)
            counts["computed"] += len(rows)
            counts["failed"] += failed
            bar.update(len(rows), failed=failed)

        def lose(exc, n):    # the engine's failure (worker lost): not stored
            counts["lost"] += n
            bar.update(n, failed=n)
            logging.getLogger("multitest").debug("%d fold(s) lost: %s", n, exc)

        worker_info = _on_cluster(run, todo, data, workers, scheduler, commit, lose)
    return counts["computed"], counts["lost"], counts["failed"], worker_info


def _on_cluster(run, todo, data, workers, scheduler, commit, lose):
    """:func:`_execute` on the cluster: ``commit(rows)`` of the folds as they end,
    ``lose(exc, n)`` of those lost with their worker; the workers' machines.

    The folds go out in batches sized by the measured CPU time of the folds
    before them (:class:`~multitest.run._batches.FoldBatches`), at most two
    batches per worker at a time, and their results are consumed as they
    complete.  The folds of a batch whose workers all died while it was theirs
    (Dask's ``KilledWorker``) may have been a crashing learner's neighbours:
    each is tried again at the end, alone (:func:`_alone`).
    """
    from distributed import KilledWorker, as_completed

    with _client(workers, scheduler) as client:
        worker_info = _on_every_worker(client, _machine)
        shared = _share(client, run, data)
        slots = max(len(worker_info), 1)
        batches, futures, pending = FoldBatches(todo, slots), {}, as_completed()
        names = itertools.count()

        def send():    # the next batch, if any
            if batch := batches.take():
                future = client.submit(run_tasks, shared[batch[0].dataset], batch, pure=False,
                                       key=f"multitest-run{run}-batch-{next(names)}")
                futures[future] = batch
                pending.add(future)

        for _ in range(2 * slots):
            send()
        suspects = []
        # The store's own faults (in commit) propagate: only the engine's are caught.
        for future in pending:
            batch = futures.pop(future)
            try:
                rows = future.result()
            except KilledWorker:
                suspects.extend(batch)
            except Exception as exc:
                lose(exc, len(batch))
            else:
                batches.learn(rows)
                commit(rows)
            finally:
                future.release()
            send()
        for i, task in enumerate(suspects):
            _alone(client, shared, task, f"multitest-run{run}-alone-{i}", commit, lose)
        _on_every_worker(client, close_fit_processes)   # else they end with their worker
    return worker_info


def _alone(client, shared, task, key, commit, lose):
    """Fit the suspect fold `task` alone on the cluster, where only its own crash can kill
    its worker: dying there too makes it the fold's error."""
    from distributed import KilledWorker

    future = client.submit(run_tasks, shared[task.dataset], (task,), pure=False, key=key)
    try:
        (row,) = future.result()
    except KilledWorker as exc:
        if exc.task != future.key:
            lose(exc, 1)
            return
        row = _crashed(task, exc)    # its own crash: it was alone
    except Exception as exc:
        lose(exc, 1)
        return
    finally:
        future.release()
    commit([row])


def _share(client, run, data):
    """``{name: future}`` of each data set, on every worker and recomputable if lost.

    Not scattered: a scattered value lost with its workers cannot be recovered
    (every fold of that data set would be lost).  A task that returns the data
    can be run again by the scheduler, which keeps its arguments.
    """
    shared = {name: client.submit(_identity, value, pure=False,
                                  key=f"multitest-run{run}-data-{i}")
              for i, (name, value) in enumerate(data.items())}
    # On every worker: a fold can run wherever a core is free, with no transfer.  A worker
    # that takes no copy in time gets the data with its first fold of the data set.
    _bounded(client, client._replicate, list(shared.values()))
    return shared


def _identity(value):
    return value


def _crashed(task, exc):
    """The store row of a fold whose process died on every worker it was tried on."""
    return dict(zip(KEY, task.key), spec=task.spec, status="error",
                error="the worker process died while fitting this fold, alone on the cluster "
                      f"({type(exc).__name__}): the learner crashes its process; isolate: "
                      "true keeps the workers safe")
