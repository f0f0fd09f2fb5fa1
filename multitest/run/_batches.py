"""Folds grouped into Dask tasks, as many a task as their measured time allows.

One Dask task costs the runner its scheduling, a round trip to the worker and
back, its result's transfer and its bookkeeping: about 8 ms of CPU in the
driver and the worker (``benchmarks/README.md``), a good part of a small fit.
:class:`FoldBatches` hands the folds out in their order (data set-major, as in
the experiment file) in **batches** of folds of one data set, any learners
(they run in the data set's one fit process): folds are added while the sum of
their estimated CPU time of fit and predict (times ``repeats`` for a fold fitted
several times) stays within :data:`BATCH_SECONDS`, never more than
:data:`MAX_BATCH` folds nor, near the end, more than a fair share of what is
left (the workers finish together).  A fold's estimate is the time of the last
fold measured of its (data set, learner); for a learner not measured yet on
the data set, a guess, the data set's last fold measured, for at most
:data:`GUESSED_BATCH` folds of a batch; on a data set with nothing measured yet,
a fold goes alone.  CPU time, not wall-clock time: on a loaded machine the fits
and the runner's own work both take longer in wall-clock time.  The worker runs
a batch with :func:`~multitest.run._measure.run_tasks`, each fold measured as
when alone (its own row, times and memory), in the data set's one fit process.
"""

from __future__ import annotations

import collections

__all__ = []

#: CPU seconds of fit and predict a batch aims at: about 30 times the runner's cost of a task.
BATCH_SECONDS = 0.25
#: Most folds in one batch (a worker lost with its batch loses at most these).
MAX_BATCH = 32
#: Most folds in a batch of learners not measured yet on its data set (sized on a guess).
GUESSED_BATCH = 8
#: A batch of folds whose estimates add up to `BATCH_SECONDS` up to rounding is full, not over.
_ROUNDING = 1 + 1e-9


class FoldBatches:
    """The folds still to hand out, in batches sized by the folds already measured.

    Parameters
    ----------
    tasks : sequence of Task
        The folds to run, in the order to run them.
    workers : int
        Workers of the cluster (the end of the run is shared among them).

    Examples
    --------
    >>> from multitest.run._measure import Task
    >>> tasks = [Task(dataset="d", algorithm="a", estimator="m.C", replication=r, fold=f,
    ...               folds=2, seed=0, metric="error", spec="s")
    ...          for r in range(1, 16) for f in (1, 2)]
    >>> batches = FoldBatches(tasks, workers=2)
    >>> len(batches.take())           # the first fold on a data set: its time is unknown
    1
    >>> batches.learn([{"dataset": "d", "algorithm": "a", "status": "ok",
    ...                 "fit_cpu_time": 0.04, "predict_cpu_time": 0.01}])
    >>> [len(batches.take()) for _ in range(4)]   # 0.25 s / 0.05 s, then a fair share
    [5, 5, 4, 3]
    >>> sum(len(batches.take()) for _ in range(20)), len(batches), batches.take()
    (12, 0, ())
    """

    def __init__(self, tasks, workers):
        self._queue = collections.deque(tasks)
        self._workers = max(int(workers), 1)
        self._seconds = {}
        self._last = {}     # data set -> seconds of its last fold measured

    def __len__(self):
        return len(self._queue)

    def take(self):
        """The next batch: a tuple of folds of one data set (empty when none)."""
        if not self._queue:
            return ()
        dataset = self._queue[0].dataset
        size = min(MAX_BATCH, max(len(self._queue) // (2 * self._workers), 1))
        batch, seconds, guessed = [], 0.0, 0
        while self._queue and len(batch) < size and self._queue[0].dataset == dataset:
            task = self._queue[0]
            known = self._seconds.get((dataset, task.algorithm))
            estimate = self._last.get(dataset) if known is None else known
            if batch and (known is None and guessed == GUESSED_BATCH
                          or seconds + estimate * task.repeats > BATCH_SECONDS * _ROUNDING):
                break
            batch.append(self._queue.popleft())
            if estimate is None:     # nothing measured on this data set yet: alone
                break
            seconds += estimate * task.repeats
            guessed += known is None
        return tuple(batch)

    def learn(self, rows):
        """Record the CPU time of fit and predict of finished folds (rows of the store)."""
        for row in rows:
            if row["status"] == "ok":
                seconds = max(row["fit_cpu_time"] + row["predict_cpu_time"], 1e-6)
                self._seconds[row["dataset"], row["algorithm"]] = seconds
                self._last[row["dataset"]] = seconds
