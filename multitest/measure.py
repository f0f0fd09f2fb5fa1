"""One fold of one learner on one data set, measured fairly: the task of ``multitest run``.

:func:`run_task` is the whole unit of work the engine schedules: small, pure
and picklable, in the manner of scikit-learn's ``_fit_and_score``.  It returns
a plain dict (the row committed to the store), never raises for a failing
learner: an exception, a crash or a timeout is recorded as data.

What is measured, and how
-------------------------
* Every fit runs in a **child process forked** from the worker for this fit
  alone.  The data are shared copy-on-write (not copied), a crash or a hang of
  the learner cannot take the worker down, and ``timeout`` is enforced by
  killing the child.
* **Single-threaded**: BLAS/OpenMP pools limited to one thread with
  threadpoolctl, every ``n_jobs`` parameter of the estimator set to 1.
* **Time**: wall-clock (``time.perf_counter``) and CPU (``time.process_time``
  of the child, i.e. of the fit alone) separately, for ``fit`` and for
  ``predict`` on the test fold.
* **Peak memory of fit**: the growth of the child's resident set from just
  before ``fit`` to its high-water mark during ``fit``.  The mark is reset
  with ``/proc/self/clear_refs`` ("5") and read from ``VmHWM``, so it is the
  fit's own, whatever ran in the worker before.  Memory the fit takes from
  blocks the allocator already holds (small objects freed earlier in the
  process) is not counted: the figure is new resident memory, accurate for
  the arrays that dominate a learner's footprint.
* **Model size**: bytes of the fitted estimator pickled (highest protocol).
* **In the worker** (``isolate: false`` in the experiment): no child, no
  fork cost (some 20-40 ms of CPU per fold), but no timeout, a crash takes
  the worker down (the engine retries the fold elsewhere, then reports it
  lost), CPU time is the worker thread's, and peak memory may miss memory the
  worker's allocator kept from earlier folds.
* **Noise**: the first fold of each (data set, algorithm) is fitted
  ``repeats`` times on the same data, each time in a fresh child; the times
  recorded are the medians and the repetitions are kept, from which the noise
  of the costs is computed (peak memory, model size and score are those of
  the first fit).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import statistics
import time
import traceback
from dataclasses import dataclass, field

__all__ = ["Task", "run_task", "fold_indices", "MEASURES"]

#: The costs measured for every fold (columns of the store and of results.csv).
MEASURES = ("fit_time", "fit_cpu_time", "predict_time", "predict_cpu_time", "peak_memory",
            "model_size")
_TIMED = ("fit_time", "fit_cpu_time", "predict_time", "predict_cpu_time")


@dataclass(frozen=True)
class Task:
    """Everything one fold needs, except the data (passed separately, once per worker)."""

    dataset: str
    algorithm: str
    estimator: str
    replication: int
    fold: int
    folds: int
    seed: int
    metric: str
    spec: str
    params: dict = field(default_factory=dict)
    repeats: int = 1
    timeout: float | None = None
    isolate: bool = True

    @property
    def key(self):
        return (self.dataset, self.algorithm, self.replication, self.fold)


def fold_indices(y, task):
    """Train and test indices of ``(task.replication, task.fold)``.

    Stratified k-fold, shuffled with a seed derived from (experiment seed,
    replication) only: every algorithm gets exactly the same folds.
    """
    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    seed = int(np.random.SeedSequence([task.seed, task.replication]).generate_state(1)[0])
    splits = StratifiedKFold(n_splits=task.folds, shuffle=True, random_state=seed)
    return list(splits.split(np.zeros(len(y)), y))[task.fold - 1]


def run_task(data, task):
    """Fit, predict and measure one fold in a forked child; return the store row.

    Parameters
    ----------
    data : tuple of (ndarray, ndarray)
        ``(X, y)`` of the whole data set.
    task : Task

    Returns
    -------
    dict
        The key, ``status`` (``'ok'``, ``'error'`` or ``'timeout'``), the
        score and loss, the :data:`MEASURES`, the repeated timings, the error
        text, the worker's host and process id, and the start and end times.
    """
    started = time.time()
    # Imports and the split happen here, in the worker: the forked child inherits
    # them instead of paying for them on every fit.
    from .experiment import import_estimator

    _limit_threads()

    runs = []
    try:   # a worker without the learner's package: the fold's error, recorded
        estimator_class = import_estimator(task.estimator)
        split = fold_indices(data[1], task)
    except Exception as exc:
        status, payload = "error", f"on the worker: {type(exc).__name__}: {exc}"
    else:
        for _ in range(task.repeats):
            # Every repetition in a fresh child: all measurements start from the same state.
            execute = _in_child if task.isolate else _in_process
            status, payload = execute(_measure, (data, split, estimator_class, task),
                                      task.timeout)
            if status != "ok":
                break
            runs.append(payload)
    row = dict(zip(("dataset", "algorithm", "replication", "fold"), task.key), spec=task.spec,
               status=status, started=started, finished=time.time(),
               worker=f"{os.uname().nodename}:{os.getpid()}")
    if status != "ok":
        row["error"] = payload
        return row
    row.update(runs[0])
    if len(runs) > 1:
        row.update({m: statistics.median(r[m] for r in runs) for m in _TIMED})
        row["repeats"] = [{m: r[m] for m in _TIMED} for r in runs]
    return row


def _in_child(function, args, timeout):
    """``(status, result or error text)`` of ``function(*args)`` run in a forked child."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_end)
            message = _in_process(function, args, None)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks, timed_out = [], False
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while True:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0)
            ready, _, _ = select.select([pipe], [], [], wait)
            if not ready:
                timed_out = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = pipe.read(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    _, wait_status = os.waitpid(pid, 0)
    if timed_out:
        return "timeout", f"the fit exceeded the timeout of {timeout:g} s and was killed"
    if not chunks:
        return "error", f"the fit process died ({_death(wait_status)}) without a result"
    return pickle.loads(b"".join(chunks))


def _in_process(function, args, timeout):
    """``(status, result or error text)`` of ``function(*args)`` in this process (no timeout)."""
    try:
        return "ok", function(*args)
    except Exception as exc:   # the learner's failure is data, not a crash
        lines = traceback.format_exception_only(type(exc), exc)
        return "error", lines[-1].strip() + "\n" + traceback.format_exc(limit=8)


def _death(wait_status):
    if os.WIFSIGNALED(wait_status):
        return f"signal {signal.Signals(os.WTERMSIG(wait_status)).name}"
    return f"exit status {os.WEXITSTATUS(wait_status)}"


def _status_kib(key):
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith(key):
                return int(line.split()[1])
    raise OSError(f"no {key} in /proc/self/status")


def _reset_peak():
    """Reset VmHWM to the current resident set; return that resident set in bytes."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
        handle.write("5")
    return _status_kib("VmRSS") * 1024


def _measure(data, split, estimator_class, task):
    """In the child: fit once, predict, score; the costs and the score of the fold."""
    import gc

    import numpy as np

    (X, y), (train, test) = data, split
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
    model = _single_threaded(estimator_class(**task.params))
    if task.isolate:
        # The inherited objects are the worker's, not the fit's: out of the collector's sight.
        gc.freeze()
    # In the worker itself, CPU time is this thread's: the engine's threads are not the fit.
    clock = time.process_time if task.isolate else time.thread_time
    gc.disable()     # no collection inside the timed region
    try:
        memory_before = _reset_peak()
        wall, cpu = time.perf_counter(), clock()
        model.fit(X_train, y_train)
        fit_wall, fit_cpu = time.perf_counter() - wall, clock() - cpu
        peak = _status_kib("VmHWM") * 1024 - memory_before
        wall, cpu = time.perf_counter(), clock()
        predicted = model.predict(X_test)
        row = {"fit_time": fit_wall, "fit_cpu_time": fit_cpu,
               "predict_time": time.perf_counter() - wall,
               "predict_cpu_time": clock() - cpu, "peak_memory": int(peak)}
    finally:
        gc.enable()
    if task.metric == "error":
        score = float(np.mean(np.asarray(predicted) == y_test))
        loss = 1.0 - score
    else:
        score = float(_scorer(task.metric)(model, X_test, y_test))
        loss = -score if task.metric.startswith("neg_") else 1.0 - score
    row.update(score=score, loss=loss,
               model_size=len(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)))
    return row


_limits = []


def _limit_threads():
    """Limit the BLAS / OpenMP pools of this process to one thread (forked children inherit)."""
    if not _limits:
        from threadpoolctl import threadpool_limits

        _limits.append(threadpool_limits(limits=1))


def _single_threaded(estimator):
    """Set every ``n_jobs`` parameter (also of nested estimators) to 1."""
    jobs = {name: 1 for name, value in estimator.get_params(deep=True).items()
            if (name == "n_jobs" or name.endswith("__n_jobs")) and value not in (None, 1)}
    return estimator.set_params(**jobs) if jobs else estimator


def _scorer(name):
    from sklearn.metrics import get_scorer

    return get_scorer(name)
