"""Work done in processes forked from this one, for every writer that needs another CPU.

Formatting text and drawing figures are pure Python: threads share one CPU (the GIL).
A forked child inherits this process's objects (a ranking, its figures) without copying
or pickling them; only its result comes back, pickled down a pipe.  The tables with a
row per data set (:mod:`multitest.outputs`) go through :func:`fork_call`:

* an exception of the child is raised in the parent; a child that dies (killed, out of
  memory) is one :class:`~multitest.OutputError`;
* a child leaves Ctrl-C to its parent, which kills it (:meth:`Forked.kill`), ends when its
  parent ends (Linux) and ends without exit handlers.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal

from ._errors import OutputError, one_line

__all__ = ["usable_cpus", "max_workers", "can_fork", "fork_call", "Forked",
           "die_with_parent", "children_die_with_this_process"]

#: ``prctl`` option: the signal a process gets when its parent ends (Linux).
_PR_SET_PDEATHSIG = 1

#: True in a child of :func:`fork_call`: it forks no child of its own (:func:`can_fork`).
_IN_CHILD = False


def usable_cpus():
    """CPUs this process may run on (its affinity where the system tells it).

    Examples
    --------
    >>> usable_cpus() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        return os.cpu_count() or 1


def max_workers():
    """The most worker processes a command starts: 4 per usable CPU (at least 8).

    Each is a Python process with the data it works on (100-200 MB); ``--workers 1000``
    would start a thousand of them on any machine.

    Examples
    --------
    >>> max_workers() >= 8
    True
    """
    return max(8, 4 * usable_cpus())


def can_fork():
    """Whether :func:`fork_call` can fork here (POSIX, not already in a child of it)."""
    return os.name == "posix" and not _IN_CHILD


class Forked:
    """A call running in a forked child (:func:`fork_call`).

    ``doing`` names the work in the error of a child that died.
    """

    def __init__(self, pid, read_end, doing):
        self._pid, self._read_end, self._doing = pid, read_end, doing

    def result(self):
        """Wait for the child; its result, or its exception raised here."""
        try:
            with os.fdopen(self._read_end, "rb", closefd=False) as pipe:
                payload = pipe.read()
        finally:
            self._close()
        status = self._reap()
        if not payload or os.waitstatus_to_exitcode(status) != 0:
            raise OutputError(f"the process {self._doing} ended before it was done "
                              "(killed, or out of memory)")
        try:
            done, outcome = pickle.loads(payload)
        except Exception:   # noqa: BLE001 - an exception class that cannot be rebuilt
            raise OutputError(f"the process {self._doing} failed") from None
        if not done:
            raise outcome
        return outcome

    def kill(self):
        """End the child (if not reaped yet) and reap it: nothing more is written."""
        if self._pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._pid, signal.SIGKILL)
        self._close()
        self._reap()

    def _close(self):
        if self._read_end is not None:
            os.close(self._read_end)
            self._read_end = None

    def _reap(self):
        pid, self._pid = self._pid, None
        return os.waitpid(pid, 0)[1]


def fork_call(function, *args, doing="of multitest"):
    """Start ``function(*args)`` in a forked child of this process.

    Parameters
    ----------
    function : callable
        Any callable (inherited, not pickled); its result must pickle.
    *args
        Its arguments (inherited too).
    doing : str
        The work, for the error of a child that died ("the process ``doing`` ended
        before it was done").

    Returns
    -------
    Forked
        ``.result()`` waits for it; ``.kill()`` ends it.

    Examples
    --------
    >>> child = fork_call(os.getpid)
    >>> child.result() != os.getpid()
    True
    """
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _child(parent, write_end, function, args)
    os.close(write_end)
    return Forked(pid, read_end, doing)


def _child(parent, write_end, function, args):
    """The forked child of :func:`fork_call`: ``(True, result)`` or ``(False, exception)``
    pickled down `write_end`, then the end of the process (no exit handlers)."""
    global _IN_CHILD
    _IN_CHILD = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
    try:
        die_with_parent(parent)
        outcome = (True, function(*args))
    except BaseException as exc:   # noqa: BLE001 - every failure goes to the parent
        outcome = (False, exc)
    try:
        payload = pickle.dumps(outcome)
    except Exception:   # noqa: BLE001 - a result or an exception that does not pickle
        payload = pickle.dumps((False, OutputError(one_line(repr(outcome[1])))))
    try:
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
    finally:
        os._exit(0)


def die_with_parent(parent):
    """In a process forked from `parent`: be killed when it ends (SIGKILL included).

    Linux's parent-death signal (elsewhere nothing); a parent that died before the
    signal was set ends this process at once.
    """
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


@contextlib.contextmanager
def children_die_with_this_process():
    """Inside, every process forked from this one (by any thread) is killed when it ends,
    and leaves Ctrl-C to it (ignores SIGINT).

    For the local Dask cluster's workers, forked from the driver.  Dask ends a worker
    whose parent is gone through a pipe that only the parent should hold open; but a
    worker forked while another's pipe exists inherits that pipe too, and two workers
    forked so each kept the other alive after their driver was killed (two SIGTERMs of
    six to a run of 2 workers, 2026-11-24; they were still running 30 s later).  Only
    the processes forked directly from this one: their own children are theirs.
    """
    global _DIE_WITH
    _DIE_WITH = os.getpid()
    try:
        yield
    finally:
        _DIE_WITH = None


#: The process whose children die with it (:func:`children_die_with_this_process`).
_DIE_WITH = None


def _after_fork_in_child():
    global _DIE_WITH
    parent, _DIE_WITH = _DIE_WITH, None
    if parent is not None and parent != os.getpid():
        with contextlib.suppress(ValueError):     # not Python's main thread
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's to handle
        die_with_parent(parent)


os.register_at_fork(after_in_child=_after_fork_in_child)
