"""Helpers shared by the benchmarks: child processes, peak memory, medians.

Every measurement runs in a child process of its own, so that its peak
resident memory is its own: either a Python snippet that times itself and
reports ``ru_maxrss`` of its own process, or a command (the ``multitest``
program, as a user runs it) started from a fresh wrapper process that reports
the wall time and ``getrusage(RUSAGE_CHILDREN).ru_maxrss``, the peak of its
one child.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

__all__ = ["python_child", "timed_command", "median", "HERE", "ROOT", "multitest_program",
           "load_average", "in_checkout"]



def _as_installed():
    """Run the package as a user's installation runs it: with its bytecode cached.  This
    machine sets ``PYTHONDONTWRITEBYTECODE``, so every fresh ``multitest`` compiled its own
    modules from source (about 50 on ``rank``'s path) while NumPy's and pandas' came
    precompiled; the children of every benchmark inherit this environment."""
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(ROOT / "multitest", quiet=2)


_as_installed()


def in_checkout(checkout, *more_paths):
    """``env`` and ``cwd`` of a child that runs the code of the source tree `checkout`
    (``--reference``): on ``PYTHONPATH``, and started in this folder.  ``python -c`` and
    ``python -m`` put their working directory first on ``sys.path``: started in the
    repository's root, where the benchmarks are run from, the child imported the root's
    own ``multitest`` whatever ``PYTHONPATH`` said, and a reference run timed the code
    under test against itself (found 2026-11-25)."""
    paths = os.pathsep.join(str(path) for path in (checkout, *more_paths))
    return {"env": dict(os.environ, PYTHONPATH=paths), "cwd": str(HERE)}


_WRAPPER = r"""
import json, resource, subprocess, sys, time
argv, timeout, limit_mb = json.loads(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])

def limit():   # address-space cap: a runaway case fails instead of exhausting the machine
    if limit_mb > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

start = time.perf_counter()
try:
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          timeout=timeout, preexec_fn=limit)
    code, err = done.returncode, done.stderr.decode(errors="replace")[-2000:]
except subprocess.TimeoutExpired:
    code, err = None, "timeout"
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": wall, "peak_mb": usage.ru_maxrss / 1024, "returncode": code,
                  "cpu_s": usage.ru_utime + usage.ru_stime, "stderr": err}))
"""


def multitest_program():
    """The installed ``multitest`` console script next to this interpreter."""
    exe = Path(sys.executable).with_name("multitest")
    if not exe.exists():
        raise SystemExit(f"no `multitest` program next to {sys.executable}; "
                         "install the package (make bench does)")
    return str(exe)


def timed_command(argv, timeout=600.0, memory_limit_mb=0, cwd=None):
    """Run ``argv`` once from a fresh wrapper; ``{wall_s, cpu_s, peak_mb, returncode, stderr}``.

    ``returncode`` is None when the command ran out of ``timeout`` seconds;
    ``memory_limit_mb`` (0: none) caps its address space.
    """
    done = subprocess.run([sys.executable, "-c", _WRAPPER, json.dumps(list(map(str, argv))),
                           str(timeout), str(int(memory_limit_mb))], capture_output=True,
                          text=True, cwd=cwd, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def python_child(code, *args, timeout=None, checkout=None):
    """Run a Python snippet in a child (on the code of the source tree `checkout`, if
    given: :func:`in_checkout`); it must print one JSON object last."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    where = {"env": env} if checkout is None else in_checkout(checkout, HERE)
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, **where)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median(values):
    return statistics.median(values)


def load_average():
    """The 1-minute load average (the machine may be shared), or None."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
