"""A real Dask cluster for the tests: `dask scheduler` and `dask worker` processes on 127.0.0.1."""
import contextlib
import json
import os
import signal
import subprocess
import sys
import time

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
#: Lets processes started by the tests import multitest and run_estimators.
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([TESTS, ROOT]), MULTITEST_QUIET="1")


@contextlib.contextmanager
def dask_cluster(folder, n_workers=2, env=None, worker_options=()):
    """Yield ``(address, worker processes)``; on exit end exactly the processes started.
    `env`: more environment variables of the scheduler and the workers (Dask's settings);
    `worker_options`: more options of ``dask worker``.

    Each process leads a session of its own (``start_new_session``), so its group holds
    it and the children it started (a worker's nanny and the worker) and nothing else.
    """
    from distributed import Client

    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    address_file = os.path.join(folder, "scheduler.json")
    log = open(os.path.join(folder, "cluster.log"), "w")
    common = dict(env=ENV | (env or {}), stdout=log, stderr=subprocess.STDOUT,
                  start_new_session=True)
    loopback = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"]
    started = [subprocess.Popen([dask, "scheduler", "--port", "0", "--scheduler-file",
                                 address_file] + loopback, **common)]
    try:
        # Bounds for a loaded machine (the scheduler's imports alone take many seconds
        # there), not targets: each wait ends as soon as its event happens.
        deadline = time.monotonic() + 300
        while (address := _address(address_file)) is None:
            assert started[0].poll() is None and time.monotonic() < deadline, \
                "the scheduler did not start"
            time.sleep(0.1)
        workers = [subprocess.Popen([dask, "worker", address, "--nthreads", "1",
                                     "--name", f"test-worker-{i}", *worker_options] + loopback,
                                    **common)
                   for i in range(n_workers)]
        started += workers
        if n_workers:
            with Client(address, timeout="30s") as client:
                client.wait_for_workers(n_workers, timeout=300)
        yield address, workers
    finally:
        for process in started:
            end_group(process, signal.SIGTERM)
        for process in started:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                end_group(process, signal.SIGKILL)
                process.wait(timeout=20)
        log.close()


def _address(path):
    """The scheduler's address in its scheduler file; None until the file is whole."""
    try:
        with open(path) as handle:
            return json.load(handle)["address"]
    except (OSError, ValueError, KeyError):   # not written yet, or written in part
        return None


def end_group(process, sig):
    """Send `sig` to the session group led by `process` (one the tests started)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)


def group_processes(pgid):
    """Live (not zombie) processes of process group `pgid`: ``{pid: parent pid}``."""
    found = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found[int(name)] = int(fields[1])
    return found
