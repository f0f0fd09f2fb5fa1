"""Helpers shared by the tests."""
import contextlib
import os
import subprocess

import numpy as np
import pandas as pd


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
