"""multitest.cli: a command stopped by a signal, as a real process.

Ctrl-C (SIGINT to the process group, as a terminal sends it), SIGTERM (to the process
only, as ``timeout``, ``kill`` and service managers send it) and SIGHUP (a terminal
closed; to the process only here) stop ``multitest rank`` while
it writes its figures: one line, exit status 128 + the signal's number (what a shell
reports for a process the signal ended), the output folder exactly as it was (removed
again when the command created it), nothing of the command left running.  Each command
leads its own session; the tests end only that session, and every wait is bounded.
"""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from cli_helpers import checksums
from run_cluster import ENV, end_group, group_processes

ALGORITHMS = [f"a{j}" for j in range(20)]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """1000 data sets x 20 algorithms x 10 folds: its report takes seconds to draw."""
    rng = np.random.default_rng(0)
    datasets, folds = 1000, 10
    path = tmp_path_factory.mktemp("signals") / "results.csv"
    pd.DataFrame({
        "dataset": np.repeat([f"d{i}" for i in range(datasets)], len(ALGORITHMS) * folds),
        "algorithm": np.tile(np.repeat(ALGORITHMS, folds), datasets),
        "fold": np.tile(np.arange(folds), datasets * len(ALGORITHMS)),
        "error": rng.uniform(0, 1, datasets * len(ALGORITHMS) * folds),
    }).to_csv(path, index=False)
    return path


def _rank(results, out):
    return subprocess.Popen(
        [sys.executable, "-m", "multitest.cli", "rank", str(results), "--out", str(out),
         "--order", ",".join(ALGORITHMS), "--test", "kfold-t", "--format", "svg", "--report",
         "--quiet"],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)


def _wait_until_it_writes(rank, out):
    """Return once the command `rank` has a staging folder in `out` (within 120 s)."""
    deadline = time.monotonic() + 120
    while not (out.is_dir() and any(p.name.startswith(".multitest-staging-")
                                     for p in out.iterdir())):
        assert rank.poll() is None, "the command ended before it wrote its outputs"
        assert time.monotonic() < deadline, "no staging folder within 120 s"
        time.sleep(0.02)


def _stop_while_writing(results, out, how):
    """Send `how` once the command writes into `out`; its exit status, standard error and
    whether every process of its group ended within 20 s."""
    rank = _rank(results, out)
    try:
        _wait_until_it_writes(rank, out)
        if how == signal.SIGINT:
            os.killpg(rank.pid, how)     # what Ctrl-C on a terminal does
        else:
            os.kill(rank.pid, how)
        _, stderr = rank.communicate(timeout=60)
        deadline = time.monotonic() + 20
        while group_processes(rank.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        return rank.returncode, stderr, not group_processes(rank.pid)
    finally:
        end_group(rank, signal.SIGKILL)


STOPS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated"),
         (signal.SIGHUP, 129, "hung up")]


@pytest.mark.parametrize("how, status, word", STOPS)
def test_a_stopped_rank_leaves_no_folder_it_created(results, tmp_path, how, status, word):
    out = tmp_path / "new" / "run"
    code, stderr, ended = _stop_while_writing(results, out, how)
    assert (code, stderr) == (status, f"multitest: {word}; no output was changed\n")
    assert ended
    assert not (tmp_path / "new").exists()      # nor the parent it made


@pytest.mark.parametrize("how, status, word", STOPS)
def test_a_stopped_rank_leaves_the_previous_run_as_it_was(results, tmp_path, how, status, word):
    out = tmp_path / "previous"
    first = _rank(results, out)
    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    before = checksums(out)
    code, stderr, ended = _stop_while_writing(results, out, how)
    assert (code, stderr) == (status, f"multitest: {word}; no output was changed\n")
    assert ended
    assert checksums(out) == before     # no staging folder left, no file changed


def test_a_command_started_under_nohup_keeps_ignoring_hangups(results, tmp_path):
    # nohup starts a command with SIGHUP ignored: the command must not take it back.
    out = tmp_path / "out"
    rank = subprocess.Popen(
        ["nohup", sys.executable, "-m", "multitest.cli", "rank", str(results), "--out",
         str(out), "--order", ",".join(ALGORITHMS), "--test", "kfold-t", "--quiet"],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        _wait_until_it_writes(rank, out)
        os.kill(rank.pid, signal.SIGHUP)
        _, stderr = rank.communicate(timeout=300)
    finally:
        end_group(rank, signal.SIGKILL)
    assert rank.returncode == 0, stderr
    assert (out / "result.json").is_file()
