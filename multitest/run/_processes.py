"""Processes started by an experiment (fit processes, a local cluster's workers) that end
with the process that started them."""

from __future__ import annotations

import contextlib
import os
import signal

#: Internal to multitest.run.
__all__: list[str] = []

#: ``prctl`` option: the signal a process gets when its parent ends (Linux).
_PR_SET_PDEATHSIG = 1


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
