"""Fault tests of multitest run: SIGKILL of a run mid-way, then resume.

Proof from the store itself (DIR/store.sqlite): after the resume every fold is there once,
the folds committed before the kill keep their run number and finish time (not recomputed),
and the resume computed exactly the missing ones.  The killed run is a real `multitest run`
process with its own local cluster; only the processes of that session are killed.
"""
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("distributed")
from run_cluster import ENV, dask_cluster, end_group  # noqa: E402

from multitest.run import run_experiment  # noqa: E402
from multitest.run._store import Store  # noqa: E402

SLOW = """\
datasets:
  - sklearn: iris
algorithms:
  nb: {estimator: sklearn.naive_bayes.GaussianNB}
  slow: {estimator: run_estimators.Sleep, params: {seconds: 0.4}}
cv: {replications: 5, folds: 2, seed: 0}
repeats: 1
"""


def _slow_experiment(tmp_path):
    """The experiment file of SLOW, the run's output folder and its store."""
    experiment = tmp_path / "experiment.yaml"
    experiment.write_text(textwrap.dedent(SLOW))
    out = tmp_path / "out"
    return experiment, out, str(out / "store.sqlite")


def _stored(path):
    if not os.path.exists(path):
        return 0
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM folds").fetchone()[0]
        except sqlite3.OperationalError:     # the table is not created yet
            return 0


def _start_run(experiment, out, *options):
    """A real `multitest run` process leading its own session (its cluster included)."""
    return subprocess.Popen([sys.executable, "-m", "multitest.cli", "run", str(experiment),
                             "--out", str(out), *options], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def _workers(store_path):
    """The process ids that fitted the folds stored so far."""
    if _stored(store_path) == 0:
        return set()
    with Store(store_path) as store:
        return {int(worker.rsplit(":", 1)[1]) for worker in store.frame()["worker"]}


def _wait_for_folds(run, store_path, count):
    """Until `count` folds are stored, `run` ended, or 180 s passed."""
    deadline = time.monotonic() + 180
    while _stored(store_path) < count and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


def test_sigkill_mid_run_then_resume_loses_nothing_and_recomputes_nothing(tmp_path):
    experiment, out, store_path = _slow_experiment(tmp_path)
    run = _start_run(experiment, out, "--workers", "1")
    try:
        _wait_for_folds(run, store_path, 6)
        assert run.poll() is None, "the run finished before it could be killed"
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=30)
    finally:
        # The run's own cluster processes share its session: end exactly those.
        end_group(run, signal.SIGKILL)
    assert not (out / "results.csv").exists()
    with Store(store_path) as store:
        before = store.frame()
    assert 6 <= len(before) < 20 and set(before["run"]) == {1}

    result = run_experiment(str(experiment), out, workers=1, show_progress=False)

    with Store(store_path) as store:
        after = store.frame()
        runs = store.runs()
    key = ["dataset", "algorithm", "replication", "fold"]
    assert len(after) == 20 and not after.duplicated(key).any()
    assert (result.computed, result.reused, result.failed) == (20 - len(before), len(before), 0)
    kept = after.merge(before, on=key, suffixes=("", "_before"))
    assert len(kept) == len(before)
    assert (kept["finished"] == kept["finished_before"]).all()
    assert (kept["run"] == 1).all()
    assert set(after["run"]) == {1, 2} and (after["run"] == 2).sum() == 20 - len(before)
    assert runs["finished"].isna().tolist() == [True, False]    # run 1 was killed
    assert len(open(out / "results.csv").readlines()) == 21


def test_a_lost_worker_loses_no_fold(tmp_path):
    # A real scheduler and two workers; one worker (its nanny and process) is SIGKILLed
    # mid-run.  The engine reschedules its folds on the other: the run completes.
    experiment, out, store_path = _slow_experiment(tmp_path)
    with dask_cluster(str(tmp_path), n_workers=2) as (address, workers):
        run = _start_run(experiment, out, "--scheduler", address)
        try:
            _wait_for_folds(run, store_path, 4)
            end_group(workers[0], signal.SIGKILL)
            output, _ = run.communicate(timeout=180)
        finally:
            end_group(run, signal.SIGKILL)
    _assert_complete(run, output, store_path)


def _assert_complete(run, output, store_path):
    """The run ended well with its 20 folds stored once each, all ok; the frame."""
    assert run.returncode == 0, output
    with Store(store_path) as store:
        frame = store.frame()
    assert len(frame) == 20 and (frame["status"] == "ok").all()
    assert not frame.duplicated(["dataset", "algorithm", "replication", "fold"]).any()
    assert "20 computed" in output and "0 failed" in output
    return frame


def test_a_lost_worker_of_the_local_cluster_loses_no_fold(tmp_path):
    # The local cluster's workers are forked from the driving process, which holds the open
    # store; a worker SIGKILLed mid-run is forked again by its nanny.  Proof from the store:
    # every fold once, all ok, and the killed worker's folds computed by the others.
    experiment, out, store_path = _slow_experiment(tmp_path)
    run = _start_run(experiment, out, "--workers", "2")
    try:
        deadline = time.monotonic() + 180
        while not (workers := _workers(store_path)) and run.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        worker = min(workers)
        assert os.getsid(worker) == run.pid     # a process of this run, not another's
        os.kill(worker, signal.SIGKILL)
        output, _ = run.communicate(timeout=180)
    finally:
        end_group(run, signal.SIGKILL)
    frame = _assert_complete(run, output, store_path)
    assert len(set(frame["worker"])) >= 2    # the killed worker and at least one other
