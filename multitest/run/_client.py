"""The Dask client of ``multitest run`` and ``multitest rank --workers``: a local cluster
on 127.0.0.1 or an existing scheduler, reached, waited for and called within bounds.

Every wait on the cluster ends: reaching a scheduler (:data:`CONNECT_TIMEOUT`), a worker
to join or start (:data:`WORKER_START_TIMEOUT`), a call on every worker
(:data:`WORKER_CALL_TIMEOUT`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile

from .._errors import MultitestError, one_line
from .._format import escape_terminal
from .._cpus import usable_cpus
from ._processes import children_die_with_this_process

__all__: list[str] = []     # used by multitest.run only

#: How long to try to reach an existing scheduler (``--scheduler``).
CONNECT_TIMEOUT = "30s"
#: Seconds a worker of the local cluster has to start (and to reach its scheduler).
WORKER_START_TIMEOUT = 120.0
#: Seconds the workers have to answer a call made on each of them (their machine, the end
#: of their fit processes) or to take their copies of the data sets, after which the run
#: goes on without: a worker frozen or cut off (its process stopped, its machine gone)
#: answers nothing, and Dask itself retires it only after ``worker-ttl`` (5 minutes).
WORKER_CALL_TIMEOUT = 30.0


#: Dask settings while the run's client (and local cluster) live.  The defaults poll many
#: times a second in the driver and in every worker: the event-loop tick every 20 ms, the
#: statistical profiler every 10 ms, the memory monitor every 100 ms, the system monitor
#: and the cluster's repr every 500 ms: 4 % of a core each for the driver and an idle
#: worker, taken from the fits.  None of these is used by the runner.
_QUIET = {"distributed.admin.tick.interval": "1s",
          "distributed.worker.profile.enabled": False,
          "distributed.worker.memory.monitor-interval": "1s",
          "distributed.admin.system-monitor.interval": "5s",
          "distributed.deploy.cluster-repr-interval": "5s",
          "distributed.client.scheduler-info-interval": "5s"}
#: The local cluster's workers are forked from the driver, not spawned: a spawned worker
#: imports Dask, scikit-learn and the driver's main module again (2-4 s of CPU each, on
#: the first fold's clock), a forked one starts with the driver's imports in 0.1 s.
_LOCAL = {"distributed.worker.multiprocessing-method": "fork",
          # Every worker keeps its copy of the data: the active memory manager would trim
          # them to one, which a worker killed by a crashing learner may have held.
          "distributed.scheduler.active-memory-manager.start": False,
          # A fold whose worker died is tried once more elsewhere; after a second death it
          # is tried alone (see _execute): the folds of a crashing learner cost 4 deaths.
          "distributed.scheduler.allowed-failures": 1}


@contextlib.contextmanager
def _client(workers, scheduler, scratch=None):
    """The client of a local cluster of `workers` processes, or of the scheduler at
    `scheduler`.  The local cluster's files (Dask's ``temporary-directory``: the
    scheduler's and workers' folders, ``global.lock`` and ``purge.lock``) go into
    `scratch`, a folder made here (default: a new temporary folder) and removed with
    everything in it when the cluster has closed: nothing is left in ``$TMPDIR``."""
    import dask

    with dask.config.set(_QUIET), _scratch(scheduler, scratch) as config, \
            dask.config.set(config), _connect(workers, scheduler) as client:
        _drop_abandoned_waits(client.loop.asyncio_loop)
        yield client


@contextlib.contextmanager
def _scratch(scheduler, folder):
    """``{"temporary-directory": folder}`` (made, then removed on exit) for a local
    cluster; ``{}`` for an existing scheduler (its workers' files are theirs)."""
    if scheduler is not None:
        yield {}
        return
    if folder is None:
        folder = tempfile.mkdtemp(prefix="multitest-dask-")
    else:
        os.mkdir(folder)
    try:
        yield {"temporary-directory": folder}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _drop_abandoned_waits(loop):
    """Drop, on the client's event `loop`, the report of a wait abandoned by its caller.

    A ``client.gather`` that Ctrl-C or SIGTERM interrupts leaves Dask's tasks waiting for
    its futures; the client's close ends them with ``AllExit``, which nobody awaits any
    more, and asyncio printed "Task exception was never retrieved" and a traceback after
    the command's one line (``rank --workers 2``, 2026-11-24).  Every other report goes
    where it went.
    """
    from distributed.client import AllExit

    report = loop.get_exception_handler()
    if getattr(report, "drops_abandoned_waits", False):   # a loop of an earlier client
        return

    def handler(loop, context):
        if isinstance(context.get("exception"), AllExit):
            return
        if report is None:
            loop.default_exception_handler(context)
        else:
            report(loop, context)

    handler.drops_abandoned_waits = True
    loop.set_exception_handler(handler)


def _handshake(address):
    """Complete one handshake with the Dask scheduler at `address` within
    :data:`CONNECT_TIMEOUT`, or raise (TimeoutError if nothing answered in time).

    Dask's own connection bounds the TCP connect but waits for the handshake for ever: a
    server of another kind that reads before it answers (an HTTP server) held the command
    with no end.  In a thread of its own: the caller's may run an event loop (Jupyter).
    """
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from dask.utils import parse_timedelta
    from distributed.comm import connect

    seconds = parse_timedelta(CONNECT_TIMEOUT)

    async def handshake():
        comm = await connect(address, timeout=seconds)
        await comm.close()

    with ThreadPoolExecutor(1, thread_name_prefix="multitest-handshake") as pool:
        pool.submit(asyncio.run, asyncio.wait_for(handshake(), seconds)).result()


def _local_workers(workers):
    """Worker processes of the local cluster: `workers`, by default the CPUs this process
    may use."""
    return workers or usable_cpus()


def _wait_for_a_worker(client, address):
    """Wait, saying so, up to :data:`WORKER_START_TIMEOUT` for a worker to join the
    scheduler at `address` if it has none: its tasks waited for ever, with no word."""
    from .._progress import is_quiet

    if client.nthreads():
        return
    if not is_quiet():
        print(escape_terminal(f"multitest: waiting up to {WORKER_START_TIMEOUT:g} s for a "
                              f"worker to join the Dask scheduler at {address}"),
              file=sys.stderr, flush=True)
    try:
        client.wait_for_workers(1, timeout=WORKER_START_TIMEOUT)
    except TimeoutError:
        raise MultitestError(f"`scheduler`: no worker joined the Dask scheduler at {address!r} "
                             f"within {WORKER_START_TIMEOUT:g} s: start one (dask worker "
                             f"{address}) or leave out --scheduler") from None


@contextlib.contextmanager
def _connect(workers, scheduler):
    from distributed import Client, LocalCluster

    if scheduler is not None:
        try:
            _handshake(scheduler)
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except TimeoutError:
            raise MultitestError(f"`scheduler`: cannot reach a Dask scheduler at {scheduler!r} "
                                 f"(nothing answered as one within {CONNECT_TIMEOUT})") from None
        except Exception as exc:   # noqa: BLE001 - unreachable, or another server there: a
            # garbage handshake fails anywhere (a 403 page read as a frame length of 3 EiB)
            other = "" if isinstance(exc, OSError) else "a server answered, not as one: "
            raise MultitestError(f"`scheduler`: cannot reach a Dask scheduler at {scheduler!r} "
                                 f"({other}{type(exc).__name__}: {one_line(exc)})") from None
        with client:
            _wait_for_a_worker(client, scheduler)
            yield client
        return
    import dask

    with dask.config.set(_LOCAL), contextlib.ExitStack() as stack:
        stack.enter_context(children_die_with_this_process())   # the workers
        try:
            cluster = stack.enter_context(LocalCluster(
                n_workers=_local_workers(workers), threads_per_worker=1,
                processes=True, host="127.0.0.1",
                # Every server of the cluster, HTTP ones included, on the loopback.
                dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0",
                # A worker's death is the fold's error, in the store: no log
                # lines or tracebacks of the engine on the terminal.
                silence_logs=logging.CRITICAL,
                # Dask waits for a worker's start for ever by default (a process forked
                # from a driver of several threads can hang): bounded.
                death_timeout=WORKER_START_TIMEOUT))
        except TimeoutError:
            raise MultitestError(f"the local cluster's workers did not start within "
                                 f"{WORKER_START_TIMEOUT:g} s") from None
        except Exception as exc:   # noqa: BLE001 - e.g. Dask's AssertionError when the
            # kill of a worker stuck starting fails: its words, on one line
            raise MultitestError(f"the local cluster did not start ({type(exc).__name__}: "
                                 f"{one_line(exc)})") from None
        yield stack.enter_context(Client(cluster))


def _on_every_worker(client, function):
    """``{worker address: function()}`` on every worker; None for a worker that did not
    answer (gone, or raised), every value None when one did not answer within
    :data:`WORKER_CALL_TIMEOUT` seconds."""
    answers = _bounded(client, client._run, function, on_error="return")
    if answers is None:
        return dict.fromkeys(client.scheduler_info()["workers"])
    return {address: None if isinstance(answer, Exception) else answer
            for address, answer in answers.items()}


def _bounded(client, coroutine_function, *args, **kwargs):
    """``client.sync(coroutine_function, *args, **kwargs)``; None after
    :data:`WORKER_CALL_TIMEOUT` s or when a worker left on the way.

    Dask's public ``Client.run`` and ``Client.replicate`` wait for every worker for
    ever; their coroutines (``_run``, ``_replicate``) take the bound of ``Client.sync``,
    which cancels them when it passes.
    """
    import asyncio

    try:
        return client.sync(coroutine_function, *args, **kwargs,
                           callback_timeout=WORKER_CALL_TIMEOUT)
    # TimeoutError: one class with asyncio's from Python 3.11 on; OSError: Dask's
    # CommClosedError, a worker removed while the call waited on it
    except (TimeoutError, asyncio.TimeoutError, OSError) as exc:
        logging.getLogger("multitest").debug("%s: not every worker answered: %r",
                                             coroutine_function.__name__, exc)
        return None
