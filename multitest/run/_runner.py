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
import datetime
import hashlib
import itertools
import json
import logging
import math
import os
import platform
import signal
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import yaml

from .._errors import InputError, MultitestError
from .._cpus import max_workers
from ._batches import FoldBatches
from ._client import _bounded, _client, _local_workers, _on_every_worker
from ._experiment import (
    Experiment,
    check_estimators,
    data_digest,
    load_dataset,
    load_experiment,
)
from ._measure import (
    MEASURES,
    TIMED_MEASURES,
    EarlyFits,
    Task,
    close_fit_processes,
    run_tasks,
)
from ._store import KEY, STORE_FILE, Store

__all__ = ["run_experiment", "RunResult"]

EXTRA_MESSAGE = "multitest run needs the 'run' extra: pip install 'multitest-rank[run]'"
_EXTRA_MODULES = ("sklearn", "dask", "distributed", "threadpoolctl")
_UNITS = {"fit_time": ("seconds (wall clock)", "Mean wall-clock time of fit over the folds"),
          "fit_cpu_time": ("CPU seconds", "Mean CPU time of fit over the folds"),
          "predict_time": ("seconds (wall clock)",
                           "Mean wall-clock time of predict on the test fold"),
          "predict_cpu_time": ("CPU seconds", "Mean CPU time of predict on the test fold"),
          "peak_memory": ("bytes", "Mean peak growth of resident memory during fit"),
          "model_size": ("bytes", "Mean size of the fitted model, pickled")}
#: The command recorded in the folder's manifest (an experiment folder, not an analysis).
_COMMAND = "run"
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

    They are found, not imported: each is imported when first needed (Dask after
    the estimators are checked and the first folds begun, see :func:`_execute`).
    """
    import importlib.util

    for name in _EXTRA_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MultitestError(EXTRA_MESSAGE)


def run_experiment(experiment, out, *, workers=None, scheduler=None, cluster_after=None,
                   timeout=None, retry_failed=False, show_progress=True, raw_csv=False):
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
    cluster_after : float, optional
        A local run (no `scheduler`) fits its folds in `workers` processes
        forked from this one, and starts its Dask cluster only once the folds
        left are estimated at more than `cluster_after` seconds per process
        (default :data:`CLUSTER_AFTER_SECONDS`; 0: at once).  Not with
        `scheduler`.
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
    if cluster_after is not None and scheduler is not None:
        raise MultitestError("`cluster_after` is for the local cluster: not with `scheduler`")
    cluster_after = CLUSTER_AFTER_SECONDS if cluster_after is None else \
        _seconds(cluster_after, "cluster_after", zero=True)
    start = time.time()
    if not isinstance(experiment, Experiment):
        experiment = load_experiment(experiment)
    timeout = experiment.timeout if timeout is None else parse_timeout(timeout)
    check_estimators(experiment)
    _check_metric(experiment)
    if timeout is not None and not experiment.isolate:
        raise MultitestError("`timeout` needs each fit in its own process: the experiment "
                             "sets isolate: false")
    from ..outputs._transaction import hold

    loaded = {}
    digests = _digests(experiment, loaded)
    tasks = _tasks(experiment, timeout, digests)
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
        engine = {"scheduler": scheduler or "local", "workers": workers} | \
            ({} if scheduler else {"cluster_after": cluster_after})
        run = store.start_run(len(todo), {"argv": sys.argv, "engine": engine})
        computed, lost, failed, worker_info = _execute(store, run, todo, data, len(tasks),
                                                       workers, scheduler, cluster_after,
                                                       show_progress)
        store.finish_run(run, computed)
        frame = store.frame()
        reused = len(tasks) - len(todo)
        derived = _derive(experiment, tasks, frame)
        provenance = _provenance(experiment, start, run, engine, worker_info, derived,
                                 dict(total=len(tasks), computed=computed, reused=reused,
                                      failed=failed, lost=lost), timeout, digests)
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
    return _seconds(value, "timeout", or_none=True)


def _seconds(value, name, zero=False, or_none=False):
    """`value` as a finite number of seconds, positive (or with `zero`, non-negative)."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if isinstance(value, bool) or not (math.isfinite(seconds)
                                       and (seconds >= 0 if zero else seconds > 0)):
        sign = "non-negative" if zero else "positive"
        other = " or 'none'" if or_none else ""
        raise MultitestError(f"`{name}` must be a {sign} finite number of seconds{other}, "
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


def _tasks(experiment, timeout, digests):
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
                                      timeout=timeout, isolate=experiment.isolate))
    return tasks


def _needed(task, stored, retry_failed):
    if stored is None or stored[0] != task.spec:
        return True
    return retry_failed and stored[1] != "ok"


def _execute(store, run, todo, data, total, workers, scheduler, cluster_after, show_progress):
    """Fit `todo`, commit each result as it arrives; ``(computed, lost, failed, workers)``.

    A local run begins in the driver, before Dask is imported: as many fit
    processes forked from it as the cluster would have workers fit the folds
    in order (:class:`~multitest.run._measure.EarlyFits`).  A run whose folds
    end without the folds left ever promising more than `cluster_after`
    seconds of work per process ends there, with no cluster: the cluster's
    start (Dask's imports, a scheduler, workers, the data sent to each) would
    only take CPU from the fits.  Otherwise, and at
    once with ``--scheduler`` or folds that run in the worker (``isolate:
    false``), the cluster takes the folds not begun: :func:`_on_cluster`.
    """
    if not todo:   # complete: no engine to start
        return 0, 0, 0, {}
    from .._progress import progress

    isolated = [t for t in todo if t.isolate]
    early = EarlyFits.start(data, isolated, _local_workers(workers)) \
        if scheduler is None else None
    counts = {"computed": 0, "lost": 0, "failed": 0}
    try:
        with progress(total, "run", enabled=None if show_progress else False) as bar:
            bar.update(total - len(todo))

            def commit(rows):    # one transaction for the folds that ended together
                store.record(rows, run)
                failed = sum(row["status"] != "ok" for row in rows)
                counts["computed"] += len(rows)
                counts["failed"] += failed
                bar.update(len(rows), failed=failed)

            local = [] if early is None or len(isolated) < len(todo) else \
                _fit_locally(early, commit, cluster_after)
            if local is None:
                worker_info = {"driver": {**_machine(), "fit_processes": early.slots}}
            else:
                worker_info = _on_cluster(run, todo, data, workers, scheduler, early, local,
                                          commit, counts, bar)
    except BaseException:    # interrupted, the store's fault, no cluster: its folds end now
        if early is not None:
            early.close(kill=True)
        raise
    if early is not None:
        early.close()
    return counts["computed"], counts["lost"], counts["failed"], worker_info


#: Seconds of work per fit process, estimated from the folds left (:meth:`EarlyFits.
#: seconds_left`), past which a local run starts its cluster (``cluster_after``).  On one
#: machine the cluster fits no faster than the driver's own fit processes (as many, on
#: the same CPUs); it brings the engine's retries of a lost worker and its batches, for
#: about 1 s of wall time to start on a 2-CPU machine (``benchmarks/bench_runner.py``): a
#: tenth of the run it serves, at most.
CLUSTER_AFTER_SECONDS = 10.0
#: Seconds between two looks at the driver's fits while none ends.
_LOOK_SECONDS = 0.25


def _fit_locally(early, commit, cluster_after):
    """Commit the driver's folds as they end: None once all of them are done, or the rows
    committed so far once the folds left are worth a cluster (or no fit process lives)."""
    done = []
    while True:
        ended = early.ended     # before the rows: no row of a slot is missed
        if rows := early.rows(timeout=None if ended else _LOOK_SECONDS):
            commit(rows)
            done += rows
        if early.seconds_left() > cluster_after:    # infinite if folds are left, no slot
            return done
        if ended:
            return None


def _on_cluster(run, todo, data, workers, scheduler, early, done, commit, counts, bar):
    """:func:`_execute` on the cluster, the driver's own fits (`early`, if any, having
    committed the rows `done`) handing over their folds not begun; the workers' machines.

    The folds go out in batches sized by the measured CPU time of the folds
    before them (:class:`~multitest.run._batches.FoldBatches`), at most two
    batches per worker at a time.  The folds of a batch whose workers all
    died while it was theirs (Dask's ``KilledWorker``) may have been a
    crashing learner's neighbours: each is tried again at the end, alone on
    the cluster, where only its own crash can kill its worker; dying there
    too makes it the fold's error.
    """
    from distributed import KilledWorker, as_completed

    with _client(workers, scheduler) as client:
        worker_info = _on_every_worker(client, _machine)
        shared = _share(client, run, data)
        slots = max(len(worker_info), 1)
        if early is not None:    # the cluster is up: the workers take the folds not begun
            begun = early.stop()
            todo = [t for t in todo if t.key not in begun]
        batches, futures, pending = FoldBatches(todo, slots), {}, as_completed()
        batches.learn(done)
        names = itertools.count()

        def submit(tasks, name):
            return client.submit(run_tasks, shared[tasks[0].dataset], tasks, pure=False,
                                 key=f"multitest-run{run}-{name}")

        def commit_early(wait=False):    # the driver's own folds, as they end
            if rows := early.rows(wait) if early is not None else ():
                batches.learn(rows)
                commit(rows)

        def lose(exc, n):    # the engine's failure (worker lost): not stored
            counts["lost"] += n
            bar.update(n, failed=n)
            logging.getLogger("multitest").debug("%d fold(s) lost: %s", n, exc)

        def send():    # the next batch, if any
            if batch := batches.take():
                future = submit(batch, f"batch-{next(names)}")
                futures[future] = batch
                pending.add(future)

        commit_early()
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
            commit_early()
            send()
        commit_early(wait=True)
        for i, task in enumerate(suspects):
            future = submit((task,), f"alone-{i}")
            try:
                (row,) = future.result()
            except KilledWorker as exc:
                if exc.task != future.key:
                    lose(exc, 1)
                    continue
                row = _crashed(task, exc)    # its own crash: it was alone
            except Exception as exc:
                lose(exc, 1)
                continue
            finally:
                future.release()
            commit([row])
        _on_every_worker(client, close_fit_processes)   # else they end with their worker
    return worker_info


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


def _machine():
    """The hardware and software of this process's machine (for provenance)."""
    info = {"host": platform.node(), "platform": platform.platform(),
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "cpu": platform.processor() or platform.machine()}
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/meminfo", encoding="utf-8") as handle:
            info["memory_bytes"] = int(handle.readline().split()[1]) * 1024
    return info


# -- derived files -----------------------------------------------------------------------

def _derive(experiment, tasks, frame):
    """results.csv, the profiles, the noise and the failures from the stored folds."""
    wanted = pd.DataFrame([(*t.key, t.spec) for t in tasks], columns=list(KEY) + ["spec"])
    current = wanted.merge(frame, on=list(KEY) + ["spec"], how="left")
    ok = current["status"] == "ok"
    failures = current[~ok].copy()
    failures["status"] = failures["status"].fillna("missing")
    failures["error"] = failures["error"].fillna("").map(lambda e: e.split("\n", 1)[0])
    bad_sets = list(dict.fromkeys(failures["dataset"]))
    ranked = [d.name for d in experiment.datasets if d.name not in bad_sets]
    notes = [_drop_note(name, failures[failures["dataset"] == name]) for name in bad_sets]
    good = current[ok]
    # Every fold is a row; a failed one has an empty error (the missing-result policy).
    results = current[list(KEY)].assign(error=current["loss"].where(ok))
    for measure in MEASURES:
        results[measure] = current[measure].where(ok)
    noise = _noise(good)
    names = [d.name for d in experiment.datasets]
    profiles = {m: _profile(m, good, noise, experiment, names) for m in MEASURES} \
        if len(good) else {}
    return {"results": results, "failures": failures[list(KEY) + ["status", "error"]],
            "profiles": profiles, "noise": noise, "ranked": ranked, "dropped": bad_sets,
            "notes": notes}


def _drop_note(name, rows):
    first = rows.iloc[0]
    what = f"{first['algorithm']} fold {first['replication']}.{first['fold']} " \
           f"{first['status']}" + (f": {first['error']}" if first["error"] else "")
    return (f"data set {name!r} has {len(rows)} failed or missing fold(s) ({what}); see "
            "failures.csv; they are empty errors in results.csv, which `multitest rank "
            "--missing` handles")


def _noise(good):
    """Spread of the repeated fits of one fold: coefficient of variation per measure."""
    rows = []
    for _, row in good[good["repeats"].notna()].iterrows():
        repeats = json.loads(row["repeats"])
        for measure in TIMED_MEASURES:
            values = np.array([r[measure] for r in repeats], dtype=float)
            mean = values.mean()
            rows.append({"dataset": row["dataset"], "algorithm": row["algorithm"],
                         "measure": measure, "repeats": len(values), "mean": mean,
                         "std": values.std(ddof=1),
                         "cv": values.std(ddof=1) / mean if mean > 0 else 0.0})
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "measure", "repeats", "mean",
                                       "std", "cv"])


def _profile(measure, good, noise, experiment, datasets):
    grouped = good.groupby(["dataset", "algorithm"], sort=False)[measure]
    table, deviation = {}, {}
    # The noise of each cost: its standard deviation over the folds (ddof=0, as
    # scikit-learn's std_fit_time); costs closer than it are ties (--cost-tolerance).
    for (dataset, algorithm), value in grouped.mean().items():
        table.setdefault(str(dataset), {})[str(algorithm)] = float(value)
    for (dataset, algorithm), value in grouped.std(ddof=0).items():
        deviation.setdefault(str(dataset), {})[str(algorithm)] = float(value)
    unit, description = _UNITS[measure]
    description += "; noise of each cost: its standard deviation over the folds"
    # A learner with no fold done on a data set: its average where it ran (stated).
    by_learner = good.groupby("algorithm", sort=False)[measure]
    overall, overall_std = by_learner.mean(), by_learner.std(ddof=0)
    filled = [(d, str(a)) for d in datasets for a in overall.index
              if str(a) not in table.setdefault(d, {})]
    for dataset, algorithm in filled:
        table[dataset][algorithm] = float(overall[algorithm])
        deviation.setdefault(dataset, {})[algorithm] = float(overall_std[algorithm])
    if filled:
        description += (f"; {len(filled)} (data set, learner) pair(s) without a finished fold "
                        "take the learner's mean over the folds it finished elsewhere")
    spread = noise.loc[noise["measure"] == measure, "cv"]
    if len(spread):
        description += (f"; noise of {experiment.repeats} repeated fits of one fold: median "
                        f"coefficient of variation {spread.median():.1%} over {len(spread)} "
                        "data set x algorithm pairs (costs/noise.csv)")
    return {"name": measure, "description": description,
            "source": f"measured by multitest run ({os.path.basename(experiment.path)})",
            "unit": unit, "normalization": "none", "per_dataset": table,
            "noise": deviation}


def _provenance(experiment, start, run, engine, worker_info, derived, counts, timeout,
                digests):
    import importlib.metadata as metadata

    versions = {}
    for package in ("multitest", "numpy", "scipy", "pandas", "scikit-learn", "dask",
                    "distributed", "threadpoolctl"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[package] = metadata.version(package)
    with open(experiment.path, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    fold_seeds = {r: int(np.random.SeedSequence([experiment.seed, r]).generate_state(1)[0])
                  for r in range(1, experiment.replications + 1)}
    noise = derived["noise"]
    return {
        "experiment": os.path.abspath(experiment.path), "experiment_sha256": digest,
        "name": experiment.name, "run": run, "command": sys.argv,
        "started": _iso(start), "finished": _iso(time.time()),
        "cv": {"replications": experiment.replications, "folds": experiment.folds,
               "seed": experiment.seed, "stratified": True,
               "fold_seeds_by_replication": fold_seeds},
        "metric": experiment.metric, "repeats": experiment.repeats,
        "timeout": timeout, "isolate": experiment.isolate,
        "data_sha256": digests, "versions": versions,
        "client": _machine(),
        "engine": engine, "workers": worker_info, "folds": counts,
        "datasets_ranked": derived["ranked"], "datasets_dropped": derived["dropped"],
        "notes": derived["notes"],
        "noise_median_cv": {m: float(noise.loc[noise["measure"] == m, "cv"].median())
                            for m in TIMED_MEASURES if (noise["measure"] == m).any()},
        "measurement": ("each fit in a forked child process" if experiment.isolate else
                        "each fit in the worker process") + ", single-threaded (threadpoolctl, "
                       "n_jobs=1); wall and CPU time separately; peak memory = growth of the "
                       "resident set during fit (VmHWM after clear_refs) less the file pages "
                       "paged in (RssFile); model size = pickled bytes",
    }


def _iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).isoformat(
        timespec="seconds")


def _write_outputs(out, derived, provenance, raw_csv):
    """Write the derived files in one batch; the store is not among them."""
    from ..outputs._csv import neutralize_frame
    from ..outputs._transaction import transaction

    tables = {k: derived[k] if raw_csv else neutralize_frame(derived[k])
              for k in ("results", "failures", "noise")}
    settings = {"command": _COMMAND, "experiment": provenance["experiment"]}
    with transaction(out, settings=dict(settings, raw_csv=True) if raw_csv else settings,
                     inputs=[provenance["experiment"]]) as staging:
        tables["results"].to_csv(os.path.join(staging, "results.csv"), index=False,
                                 float_format="%.17g")
        tables["failures"].to_csv(os.path.join(staging, "failures.csv"), index=False)
        costs = os.path.join(staging, "costs")
        os.makedirs(costs)
        for measure, profile in derived["profiles"].items():
            with open(os.path.join(costs, f"{measure}.yaml"), "w", encoding="utf-8") as handle:
                yaml.safe_dump(profile, handle, sort_keys=False, allow_unicode=True)
        tables["noise"].to_csv(os.path.join(costs, "noise.csv"), index=False)
        with open(os.path.join(staging, "provenance.json"), "w", encoding="utf-8") as handle:
            json.dump(provenance, handle, indent=1, default=str)
