"""One fold of one learner on one data set, measured fairly: the task of ``multitest run``.

:func:`run_task` is the whole unit of work the engine schedules: small, pure
and picklable, in the manner of scikit-learn's ``_fit_and_score``.  It returns
a plain dict (the row committed to the store), never raises for a failing
learner: an exception, a crash or a timeout is recorded as data.

What is measured, and how
-------------------------
* Every fit runs in a **child process forked** from the worker, away from the
  engine: the data are shared copy-on-write (not copied), a crash or a hang of
  the learner cannot take the worker down, and ``timeout`` is enforced by
  killing the child.  The child is **reused** for the next folds of the same
  data set (the fold's indices and learner are sent to it over a pipe), so the
  fork, the copy-on-write faults and the exit of a process the size of a Dask
  worker (20-40 ms of CPU) are paid once per data set and worker, not once per
  fold; a child that timed out or died is replaced by a fresh fork.
* **Single-threaded**: BLAS/OpenMP pools limited to one thread with
  threadpoolctl, every ``n_jobs`` parameter of the estimator set to 1.
* **Time**: wall-clock (``time.perf_counter``) and CPU (``time.process_time``
  of the child, i.e. of the fit alone) separately, for ``fit`` and for
  ``predict`` on the test fold.
* **Peak memory of fit**: the growth of the child's resident set from just
  before ``fit`` to its high-water mark during ``fit``.  The mark is reset
  with ``/proc/self/clear_refs`` ("5") and read from ``VmHWM``, so it is the
  fit's own, whatever ran in that process before.  File-backed pages that
  the fit paged in and that stay mapped (the libraries' code, which a forked
  child pages in again on its first fit; files a library keeps mapped) are
  shared page cache, not the fit's allocations: their growth is subtracted
  (down to 0, when they came after the fit freed memory it held before).
  So that a reused process
  does not hide a fit's memory in blocks kept from earlier folds, glibc's
  allocator is trimmed before every fit (every whole free page of every
  arena goes back to the system, to be faulted in again).  Memory the
  fit takes from small blocks the allocator still holds is not counted: the
  figure is new resident memory, accurate for the arrays that dominate a
  learner's footprint.
* **Model size**: bytes of the fitted estimator pickled (highest protocol),
  counted as the pickle streams out, never held whole
  (:func:`~multitest.run._memory.pickled_size`).
* **In the worker** (``isolate: false`` in the experiment): no child, but
  no timeout, a crash takes the worker down (the engine retries the fold
  elsewhere, then alone, then stores the crash as its error), CPU time is the
  worker thread's, and peak memory may miss small blocks the worker's
  allocator kept from earlier folds.
* **Noise**: the first fold of each (data set, algorithm) is fitted
  ``repeats`` times on the same data, one fit after the other; the times
  recorded are the medians and the repetitions are kept, from which the noise
  of the costs is computed (peak memory, model size and score are those of
  the first fit).
"""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import select
import signal
import statistics
import threading
import time
import traceback
from dataclasses import dataclass, field

from ._memory import _peak_since, _reset_peak, _steady_allocator, pickled_size
from ._processes import die_with_parent

__all__ = []

#: The costs measured for every fold (columns of the store and of results.csv).
MEASURES = ("fit_time", "fit_cpu_time", "predict_time", "predict_cpu_time", "peak_memory",
            "model_size")
#: The measures that are times (repeated ``repeats`` times and summarised by their noise).
TIMED_MEASURES = tuple(m for m in MEASURES if m.endswith("_time"))


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
    key = (id(y), task.seed, task.replication, task.folds)
    cached = _splits.get(key)
    if cached is None or cached[0] is not y:
        if len(_splits) >= 16:
            _splits.clear()
        cached = _splits[key] = (y, _splits_of(y, task))
    return cached[1][task.fold - 1]


#: The folds of one replication, computed once per worker: ``key -> (y, splits)``.
_splits = {}


def _splits_of(y, task):
    import numpy as np
    from sklearn.model_selection import StratifiedKFold

    seed = int(np.random.SeedSequence([task.seed, task.replication]).generate_state(1)[0])
    splits = StratifiedKFold(n_splits=task.folds, shuffle=True, random_state=seed)
    return list(splits.split(np.zeros(len(y)), y))


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
    # One thread per BLAS pool, set in the worker: its fit processes inherit it.
    _limit_threads()
    if task.isolate:
        return _fold_row(data, task, lambda request: _fit_process(data).call(request,
                                                                              task.timeout))
    return _fold_row(data, task, lambda request: _in_process(_measure, data, *request))


def _fold_row(data, task, fit):
    """The store row of `task`: its split, ``fit((split, task))`` `repeats` times, the row.

    `fit` returns ``(status, measures or error text)`` (:func:`_measure` where it runs).
    """
    started = time.time()
    # Imports and the split happen here, in the worker: the forked child inherits
    # them instead of paying for them on every fit.
    from ._experiment import import_estimator

    runs = []
    try:   # a worker without the learner's package: the fold's error, recorded
        import_estimator(task.estimator)
        split = fold_indices(data[1], task)
    except Exception as exc:
        status, payload = "error", f"on the worker: {type(exc).__name__}: {exc}"
    else:
        for _ in range(task.repeats):
            status, payload = fit((split, task))
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
        row.update({m: statistics.median(r[m] for r in runs) for m in TIMED_MEASURES})
        row["repeats"] = [{m: r[m] for m in TIMED_MEASURES} for r in runs]
    return row


def run_tasks(data, tasks):
    """:func:`run_task` on each of `tasks`, folds of one data set: their rows, in order.

    One Dask task for a batch of small folds (:mod:`multitest.run._batches`);
    each fold is measured as when alone, in the same fit process.
    """
    return [run_task(data, task) for task in tasks]


class _FitProcess:
    """A child forked from the worker with the data set `data`, ``(X, y)``; it fits fold
    after fold of it.

    Requests and replies are length-prefixed pickles on two pipes.  The child
    exits when its request pipe closes (this object closed, or the worker gone).
    Every wait on the child is bounded or ends when the child does: a reply is
    awaited while the child lives (or until the fold's timeout), and closing
    kills a child that has not exited :data:`CLOSE_GRACE` seconds after its
    pipe closed.  The pipes are made and the child forked under one lock, and
    every process forked from this one (another thread's fit process) closes
    this process's ends of the pipes of its fit processes
    (:func:`_forget_parent_ends`): a sibling holding them would keep a pipe
    from closing (a wait for ever in a worker of several threads).
    """

    def __init__(self, data):
        self.data = data
        self.status = None      # the child's wait status, once reaped
        parent = os.getpid()
        with _forking:
            request_read, request_write = os.pipe()
            reply_read, reply_write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                code = 0
                try:
                    # Linux; elsewhere the fit's own alarm (_serve) bounds a fit whose
                    # worker is gone by its timeout.
                    die_with_parent(parent)
                    os.close(request_write)
                    os.close(reply_read)
                    _limit_threads()     # inherited from a worker; set here when forked
                    _serve(data, request_read, reply_write, parent)
                except BaseException:
                    code = 1
                finally:
                    os._exit(code)
            os.close(request_read)
            os.close(reply_write)
            os.set_blocking(request_write, False)    # a request is sent while the child lives
            _parent_ends.update(((parent, request_write), (parent, reply_read)))
        self.pid, self.requests, self.replies = pid, request_write, reply_read
        self.key = _thread_key()
        self.closed = False

    def call(self, request, timeout):
        """``(status, result or error text)`` of :func:`_measure` on `request` in the child.

        On a timeout or the death of the child, the child is gone (reaped) and
        this object closed.
        """
        try:
            _write_message(self.requests, request, self._alive)
            reply = _read_message(self.replies, timeout, self._alive)
        except TimeoutError:
            os.kill(self.pid, signal.SIGKILL)
            self.close()
            return "timeout", f"the fit exceeded the timeout of {timeout:g} s and was killed"
        except (EOFError, OSError):
            status = self.close()
            return "error", f"the fit process died ({_death(status)}) without a result"
        return reply

    def _alive(self):
        """Whether the child runs (reaped, its status kept, when it has ended)."""
        if self.status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:    # reaped by someone else (SIGCHLD ignored)
                pid, status = self.pid, 0
            if pid:
                self.status = status
        return self.status is None

    def close(self):
        """Close the pipes and reap the child, killed after `CLOSE_GRACE` s; its wait status."""
        if _processes.get(self.key) is self:
            del _processes[self.key]
        self.closed = True
        with _forking:
            _parent_ends.difference_update(((os.getpid(), self.requests),
                                            (os.getpid(), self.replies)))
            os.close(self.requests)
            os.close(self.replies)
        deadline = time.monotonic() + CLOSE_GRACE
        while self._alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        if self._alive():
            os.kill(self.pid, signal.SIGKILL)
            self.status = os.waitpid(self.pid, 0)[1]
        return self.status


#: The fit process of each worker thread, keyed by (process id, thread id).
_processes = {}
#: ``(process id, fd)``: the worker's ends of the pipes of its fit processes (each child
#: closes them) and the lock under which they change and children are forked.
_parent_ends = set()
_forking = threading.Lock()
#: Seconds a fit process has to exit after its request pipe closed, before it is killed.
CLOSE_GRACE = 5.0
#: Seconds between two checks that the other end of a pipe still lives, while waiting on it.
POLL_SECONDS = 1.0


def _forget_parent_ends():
    """In a forked child: close the parent's ends of its fit processes' pipes; a fresh lock.

    The lock may have been held by another thread of the parent at the fork.
    """
    global _forking
    for _, fd in _parent_ends:    # the parent's own: each child forgets its parent's
        with contextlib.suppress(OSError):
            os.close(fd)
    _parent_ends.clear()
    _forking = threading.Lock()


os.register_at_fork(after_in_child=_forget_parent_ends)


def _thread_key():
    return os.getpid(), threading.get_ident()


def _fit_process(data):
    """This worker thread's fit process for the data set `data`: the current one, or a
    fresh fork."""
    process = _processes.get(_thread_key())
    if process is not None and not _same(process.data, data):
        process.close()    # another data set: its child exits on the closed pipe
        process = None
    if process is None:
        process = _processes[_thread_key()] = _FitProcess(data)
    return process


def close_fit_processes():
    """End this process's fit processes (and reap them, so that their CPU time is counted).

    The engine runs it on every worker once the tasks are done; a fit process
    also ends by itself when its worker exits.
    """
    for process in [p for key, p in _processes.items() if key[0] == os.getpid()]:
        process.close()


def _same(one, other):
    """Whether two ``(X, y)`` are the same arrays (not equal ones: identical objects)."""
    return len(one) == len(other) and all(a is b for a, b in zip(one, other))


#: Seconds a fit process outlives its timeout when nobody kills it (its worker gone).
TIMEOUT_GRACE = 2.0


def _serve(data, requests, replies, parent):
    """The fit process's loop: measure each requested fold until the request pipe closes.

    Each fit with a timeout also arms the process's own alarm, `TIMEOUT_GRACE`
    seconds later than the worker's deadline: the default action of SIGALRM
    ends the process if its worker, which kills it at the deadline, is gone.
    Between folds it waits for a request while its worker process lives.
    """
    import gc

    def worker_alive():
        return os.getppid() == parent

    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    # The inherited objects are the worker's, not the fits': out of the collector's sight.
    gc.freeze()
    while True:
        try:
            split, task = _read_message(requests, None, worker_alive)
        except EOFError:
            return
        if task.timeout is not None:
            signal.setitimer(signal.ITIMER_REAL, task.timeout + TIMEOUT_GRACE)
        reply = _in_process(_measure, data, split, task)
        signal.setitimer(signal.ITIMER_REAL, 0)
        _write_message(replies, reply, worker_alive)
        gc.collect()     # the fold's garbage, outside the measured region
        # What outlived the fold (modules and caches its first fit made) joins the
        # inherited objects, out of sight: the next collection scans only the next
        # fold's objects (0.9 ms a fold with scikit-learn's trees, 2-CPU VM, 2026-11-24).
        gc.freeze()


def _write_message(fd, value, alive):
    """Send `value` on `fd`; EOFError if the pipe is full and ``alive()`` is false.

    On a non-blocking `fd`, a full pipe is waited on while ``alive()`` (asked every
    :data:`POLL_SECONDS` s): a reader gone, its pipe held open by a process it left,
    does not block the writer for ever.
    """
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(payload).to_bytes(8, "little") + payload)
    while view:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            if not select.select([], [fd], [], POLL_SECONDS)[1] and not alive():
                raise EOFError from None


def _read_message(fd, timeout, alive):
    """The next message on `fd`.

    TimeoutError after `timeout` s (``None``: none); EOFError if the pipe
    closed or if ``alive()``, asked every :data:`POLL_SECONDS` s of waiting,
    is false (the writer gone while a sibling process holds the pipe open).
    """
    deadline = math.inf if timeout is None else time.monotonic() + timeout

    def read(size):
        chunks = []
        while size:
            while not select.select([fd], [], [], min(max(deadline - time.monotonic(), 0),
                                                       POLL_SECONDS))[0]:
                if time.monotonic() >= deadline:
                    raise TimeoutError
                if not alive():
                    raise EOFError
            chunk = os.read(fd, min(size, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    return pickle.loads(read(int.from_bytes(read(8), "little")))


def _in_process(function, *args):
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


def _measure(data, split, task):
    """In the fit process: fit once, predict, score; the costs and the score of the fold."""
    import gc

    import numpy as np

    from ._experiment import import_estimator

    (X, y), (train, test) = map(_native_dtype, data), split
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
    model = _single_threaded(import_estimator(task.estimator)(**task.params))
    # In the worker itself, CPU time is this thread's: the engine's threads are not the fit.
    clock = time.process_time if task.isolate else time.thread_time
    # Before every fit, not once per process: memory a previous fit freed may still be
    # resident (seen in a fit process forked from a parent that had used pyarrow), and
    # this fit would reuse it unseen.
    _steady_allocator()
    gc.disable()     # no collection inside the timed region
    try:
        memory_before = _reset_peak()
        wall, cpu = time.perf_counter(), clock()
        model.fit(X_train, y_train)
        fit_wall, fit_cpu = time.perf_counter() - wall, clock() - cpu
        peak = _peak_since(*memory_before)
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
    row.update(score=score, loss=loss, model_size=pickled_size(model))
    return row


def _native_dtype(array):
    """`array` with NumPy's own instance of its dtype (a view), for its plain dtypes.

    An array unpickled holds a copy of its dtype (Dask's own serializer of arrays
    rebuilds NumPy's instance; a pickle does not), and a fitted model whose arrays share
    that copy pickles it once more than a model whose arrays share NumPy's instance,
    which the pickle refers back to: the same tree of the same fold measured 1,749 bytes
    from the data as loaded and 1,783 from the data unpickled (iris, 2026-11-24).  A
    fold's model size does not depend on how its data reached the process.
    """
    import numpy as np

    if array.dtype.names is not None:
        return array
    dtype = np.dtype(array.dtype.str)
    return array if array.dtype is dtype else array.view(dtype)


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
