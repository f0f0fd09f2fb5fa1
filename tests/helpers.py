"""Helpers shared by the tests."""
import contextlib
import os
import subprocess
import sys

import numpy as np
import pandas as pd


def python_prints(code):
    """What ``python -c code`` prints, stripped, in a fresh interpreter (it must succeed)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def make_frame(errors, datasets=None, algorithms=None, replications=5):
    """Long-format frame from an (S, L, F) error array, F = replications x folds."""
    errors = np.asarray(errors, dtype=float)
    S, L, F = errors.shape
    datasets = datasets or [f"d{i}" for i in range(S)]
    algorithms = algorithms or [f"a{j}" for j in range(L)]
    k = F // replications
    rows = [(datasets[s], algorithms[j], f // k + 1, f % k + 1, errors[s, j, f])
            for s in range(S) for j in range(L) for f in range(F)]
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "replication", "fold", "error"])


@contextlib.contextmanager
def mounted(path, options):
    """A tmpfs mounted at ``path`` with ``options`` (``size=64k,ro``); skip if not root."""
    import pytest

    os.makedirs(path, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield str(path)
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def differences_on_critical(alpha, n=40, seed=30):
    """5x2 cv fold differences, shape (n * 113, 10), whose combined F statistic is the
    critical value at `alpha` to within 50 units in the last place, and 1e-9 to 1e-4
    relative either side.

    Adding ``t`` to both folds of a replication leaves the variances alone and makes f
    a quadratic in ``t``: it is solved for f = critical exactly, then ``t`` is moved.
    """
    from scipy import special

    rng = np.random.default_rng(seed)
    base = np.repeat(rng.normal(0.0, 0.02, (n, 5)), 2, axis=1)
    base[:, 1::2] *= -1     # replication means 0: f = 1/2 at t = 0, below every critical value
    shift = np.repeat(rng.uniform(0.5, 1.5, (n, 5)), 2, axis=1)
    critical = special.fdtri(10, 5, 1 - alpha)
    p_bar = (base[:, 0::2] + base[:, 1::2]) / 2
    s2 = ((base[:, 0::2] - p_bar) ** 2 + (base[:, 1::2] - p_bar) ** 2).sum(axis=1)
    qa, qb = (shift ** 2).sum(axis=1), 2 * (base * shift).sum(axis=1)
    qc = (base ** 2).sum(axis=1) - 2 * critical * s2
    root = (-qb + np.sqrt(qb ** 2 - 4 * qa * qc)) / (2 * qa)
    steps = np.concatenate([np.arange(-50, 51) * np.finfo(float).eps,
                            np.outer([-1, 1], 10.0 ** np.arange(-9, -3)).ravel()])
    t = (root[:, None] * (1 + steps)).ravel()
    return np.repeat(base, steps.size, axis=0) + t[:, None] * np.repeat(shift, steps.size, axis=0)


def record_dot_runs(monkeypatch):
    """The commands that ``multitest.figures`` runs from now on (``dot`` processes), in a
    list filled as they run; each still runs."""
    import subprocess

    import multitest.figures._graphviz as graphviz

    commands, real = [], subprocess.run

    def spy(command, *args, **kwargs):
        commands.append(command)
        return real(command, *args, **kwargs)

    monkeypatch.setattr(graphviz.subprocess, "run", spy)
    return commands
