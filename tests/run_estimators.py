"""Estimators with known behaviour for the tests of ``multitest run``.

Importable by path (``run_estimators.Allocate``) in the test process, in the
workers of a local cluster (spawned with the same ``sys.path``) and in
``dask worker`` processes (started with ``PYTHONPATH`` naming this folder).
"""
import os
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

try:
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:   # NumPy < 2
    from numpy.core.multiarray import _set_madvise_hugepage


class _Majority(ClassifierMixin, BaseEstimator):
    def _learn(self, y):
        values, counts = np.unique(y, return_counts=True)
        self.classes_ = values
        self.majority_ = values[counts.argmax()]

    def fit(self, X, y):
        self._learn(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


class Allocate(_Majority):
    """Touches `nbytes` of new memory during fit (every page written), then frees it."""

    def __init__(self, nbytes=100_000_000):
        self.nbytes = nbytes

    def fit(self, X, y):
        # Exactly `nbytes`: NumPy asks for transparent huge pages on large arrays, whose 2 MiB
        # granularity and alignment would add up to 4 MiB to the resident set.
        huge = _set_madvise_hugepage(False)
        try:
            block = np.ones(self.nbytes // 8)
        finally:
            _set_madvise_hugepage(huge)
        self.total_ = float(block[:: 512].sum())
        del block
        self._learn(y)
        return self


#: The files ReadMapped keeps mapped, as a library keeps its code and data files mapped.
MAPPED = []
HELD = []


class ReadMapped(_Majority):
    """Maps the file at `path`, reads every page and keeps it mapped; allocates nothing."""

    def __init__(self, path=""):
        self.path = path

    def fit(self, X, y):
        MAPPED.append(np.memmap(self.path, dtype=np.uint8, mode="r"))
        self.total_ = int(MAPPED[-1][:: 4096].sum())
        self._learn(y)
        return self


class FreeThenMap(ReadMapped):
    """Frees 64 MB it held before fit, then maps and reads the file at `path`: a fit whose
    file pages arrive after its resident set fell, so its own peak is its starting point."""

    def __init__(self, path=""):
        super().__init__(path)
        HELD.append(np.ones(64 * 2**20, dtype=np.uint8))

    def fit(self, X, y):
        HELD.clear()
        return super().fit(X, y)


class Fail(_Majority):
    """Raises in fit."""

    def fit(self, X, y):
        raise ValueError("this learner always fails")


class Sleep(_Majority):
    """Sleeps `seconds` in fit: a slow learner with a known duration."""

    def __init__(self, seconds=1.0):
        self.seconds = seconds

    def fit(self, X, y):
        time.sleep(self.seconds)
        self._learn(y)
        return self


class WaitFor(_Majority):
    """Waits in fit until the file `path` exists (`seconds` at most): a learner that fits
    for as long as the test needs it to, whatever the load of the machine."""

    def __init__(self, path="", seconds=300.0):
        self.path = path
        self.seconds = seconds

    def fit(self, X, y):
        deadline = time.monotonic() + self.seconds
        while not os.path.exists(self.path) and time.monotonic() < deadline:
            time.sleep(0.05)
        self._learn(y)
        return self


class FailOn(_Majority):
    """Raises in fit on data sets with `n_features` features (and only there)."""

    def __init__(self, n_features=13):
        self.n_features = n_features

    def fit(self, X, y):
        if X.shape[1] == self.n_features:
            raise RuntimeError(f"no fit with {self.n_features} features")
        self._learn(y)
        return self


class Crash(_Majority):
    """Kills its own process in fit (SIGKILL): a learner that crashes the process it runs in."""

    def fit(self, X, y):
        import os
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


class Marker(_Majority):
    """Creates the file `path` when an instance is made: shows whether one was made."""

    def __init__(self, path=""):
        self.path = path
        if path:
            open(path, "a").close()


class CrashOn(_Majority):
    """Kills its own process in fit when its training set's first feature sums to `value`.

    Deterministic per fold: the tests pick the sum of one fold (rounded to 9 decimals).
    """

    def __init__(self, value=0.0):
        self.value = value

    def fit(self, X, y):
        import os
        import signal

        if round(float(X[:, 0].sum()), 9) == self.value:
            os.kill(os.getpid(), signal.SIGKILL)
        self._learn(y)
        return self



class LeaveChild(_Majority):
    """Forks a child that sleeps `seconds` (its pid written to `pid_file`) and outlives the fit.

    The child inherits the fit process's ends of its pipes: a learner whose helper process
    (a subprocess, a pool) outlives it keeps them open.
    """

    def __init__(self, pid_file="", seconds=60.0):
        self.pid_file = pid_file
        self.seconds = seconds

    def fit(self, X, y):
        pid = os.fork()
        if pid == 0:
            time.sleep(self.seconds)
            os._exit(0)
        with open(self.pid_file, "w") as handle:
            handle.write(str(pid))
        self._learn(y)
        return self


class CrashLeavingChild(LeaveChild):
    """:class:`LeaveChild`, then kills its own process (SIGKILL)."""

    def fit(self, X, y):
        import signal

        super().fit(X, y)
        os.kill(os.getpid(), signal.SIGKILL)


class Threads(_Majority):
    """Writes to `path`, as JSON, its process's thread count and BLAS/OpenMP pool sizes in fit."""

    def __init__(self, path=""):
        self.path = path

    def fit(self, X, y):
        import json

        from threadpoolctl import threadpool_info

        threads = len(os.listdir("/proc/self/task"))    # before threadpoolctl looks
        pools = sorted({pool["num_threads"] for pool in threadpool_info()})
        with open(self.path, "w") as handle:
            json.dump({"threads": threads, "pools": pools}, handle)
        self._learn(y)
        return self
