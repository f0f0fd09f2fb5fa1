"""The per-data-set figures and pages of a large run, made in a few forked processes.

Drawing a table figure as SVG and writing a data set's page are pure Python
(the GIL keeps threads to one CPU), independent from one data set to the next
and each ends in a file: :func:`map_forked` runs them in processes forked from
this one, which inherit the ranking and the figures without copying or
pickling them; only the results (SVG text) come back.  Without ``fork`` (not
POSIX) or with one CPU the work runs here, in order, with the same results.
"""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from .._errors import OutputError
from ..engine._stage1 import usable_cpus

__all__ = ["map_forked", "FORK_ABOVE"]

#: Up to this many items :func:`map_forked` works in this process: forking costs
#: tens of milliseconds, more than a hundred small figures take.
FORK_ABOVE = 100

#: ``(function, items)`` of the running :func:`map_forked`, inherited by its processes.
_WORK = None

#: Parts per process: small enough that the processes end together.
_PARTS_PER_JOB = 4


def map_forked(function, items, jobs=None):
    """``[function(item) for item in items]``, in ``jobs`` forked processes.

    Parameters
    ----------
    function : callable
        Any callable (it is inherited, not pickled); its results are pickled back.
    items : sequence
    jobs : int, optional
        Processes; default: the CPUs this process may use (on a machine busy with other work,
        processes that share its CPUs gain little or lose: on the 2-CPU machine of the
        benchmarks at load 2.7, drawing the 2000 tables of a 1000-data-set run took
        1.79 s in two processes and 1.33 s in one, 2026-11-24).  With one, with up to
        :data:`FORK_ABOVE` items, or without the ``fork`` start method, the work runs
        in this process.

    Returns
    -------
    list
        The results in the order of ``items``.  An exception of ``function`` is
        raised here (the first part's that failed), and
        :class:`~multitest.OutputError` when a process dies; Ctrl-C ends the processes.

    Examples
    --------
    >>> map_forked(len, ["a", "bb", "ccc"] * 50, jobs=2)[:4]
    [1, 2, 3, 1]
    """
    global _WORK
    items = list(items)
    jobs = min(jobs or usable_cpus(), len(items))
    if (jobs <= 1 or len(items) <= FORK_ABOVE or _WORK is not None
            or "fork" not in multiprocessing.get_all_start_methods()):
        return [function(item) for item in items]
    n_parts = min(len(items), jobs * _PARTS_PER_JOB)
    bounds = [(len(items) * k // n_parts, len(items) * (k + 1) // n_parts)
              for k in range(n_parts)]
    _WORK = (function, items)
    try:
        # A process that dies (killed, out of memory) breaks the pool: an error here,
        # not a run waiting for its part forever as with multiprocessing.Pool.
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_quiet) as pool:
            parts = list(pool.map(_part, bounds))
    except BrokenProcessPool as exc:
        raise OutputError("a process drawing the per-data-set figures ended before its "
                          "part was done (killed, or out of memory)") from exc
    finally:
        _WORK = None
    return [result for part in parts for result in part]


def _quiet():
    """A worker leaves Ctrl-C to its parent, which ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _part(bounds):
    function, items = _WORK
    start, stop = bounds
    return [function(item) for item in items[start:stop]]
