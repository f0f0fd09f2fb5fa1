"""multitest.run: signals and faults (issue 17, item 4), through the CLI as real processes.

Ctrl-C (SIGINT to the whole process group, as a terminal sends it) stops a run with one line
and exit 130 (SIGTERM to the driver: exit 143), nothing of the run left running and its
committed folds kept; SIGKILL of the driver takes its fit processes with it well within the
fit timeout; a learner that crashes its process loses only its own folds, with and without
``isolate``; ``--timeout`` takes positive finite seconds or ``none``.  Each run leads its
own session: the tests end only the processes of that session, and every wait is bounded.
"""
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("distributed")
from cli_helpers import assert_one_line_error, run_cli  # noqa: E402
from run_cluster import ENV, end_group, group_processes  # noqa: E402

from multitest.run._store import Store  # noqa: E402


def _experiment(folder, algorithms, extra=""):
    path = folder / "experiment.yaml"
    path.write_text("datasets:\n  - sklearn: iris\nalgorithms:\n" + algorithms +
                    "cv: {replications: 2, folds: 2, seed: 0}\nrepeats: 1\n" + extra)
    return path


def _start(experiment, out, *options):
    return subprocess.Popen([sys.executable, "-m", "multitest.cli", "run", str(experiment),
                             "--out", str(out), *options], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _grandchildren(pid):
    """The processes of `pid`'s group whose parent is a child of `pid`."""
    group = group_processes(pid)
    children = {child for child, parent in group.items() if parent == pid}
    return [process for process, parent in group.items() if parent in children]


def _wait(condition, seconds):
    """The first true value of `condition()` within `seconds`, else its last value."""
    deadline = time.monotonic() + seconds
    while not (value := condition()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


def _stored(out):
    path = out / "store.sqlite"
    if not path.exists():
        return 0
    try:
        with Store(str(path)) as store:
            return len(store.frame())
    except Exception:    # being created by the run
        return 0


SLOW = ("  nb: {estimator: sklearn.naive_bayes.GaussianNB}\n"
        "  slow: {estimator: run_estimators.Sleep, params: {seconds: 1.0}}\n")


def test_ctrl_c_stops_the_run_with_one_line_and_nothing_left_running(tmp_path):
    experiment = _experiment(tmp_path, SLOW)
    out = tmp_path / "out"
    run = _start(experiment, out, "--workers", "2")
    try:
        assert _wait(lambda: _stored(out) >= 3, 180), "no fold stored"
        assert run.poll() is None, "the run ended before it could be interrupted"
        os.killpg(run.pid, signal.SIGINT)        # what Ctrl-C on a terminal does
        _, stderr = run.communicate(timeout=180)
        # nothing left running: a process that leaked would never end; 60 s for a loaded
        # machine to tear the cluster down
        assert _wait(lambda: not group_processes(run.pid), 60), group_processes(run.pid)
    finally:
        end_group(run, signal.SIGKILL)
    assert run.returncode == 130
    assert stderr.strip().splitlines() == [
        "multitest: interrupted; the folds finished so far are kept in the store: run the "
        "same command again to resume"]
    kept = _stored(out)
    assert 3 <= kept < 8
    code, output, stderr = run_cli("run", experiment, "--out", out, "--workers", "2")
    assert code == 0, stderr
    assert f"{8 - kept} computed, {kept} from the store" in output


def test_sigkill_of_the_driver_takes_its_fit_processes_within_the_timeout(tmp_path):
    # One worker fits a learner that sleeps 60 s under a 4 s timeout; the driver is
    # SIGKILLed while that fit runs: the worker and the fit process end with it.
    experiment = _experiment(tmp_path, "  nb: {estimator: sklearn.naive_bayes.GaussianNB}\n"
                             "  hang: {estimator: run_estimators.Sleep, params: {seconds: 60}}\n",
                             "timeout: 4\n")
    run = _start(experiment, tmp_path / "out", "--workers", "1")
    # Driver -> worker -> fit process.  Waited for by that shape, not by a count: a
    # short-lived process the driver or the worker starts also counts in the group,
    # and three processes could be seen before the fit process exists.
    _kill_driver_when(run, lambda: _grandchildren(run.pid))


def _kill_driver_when(run, ready, how=signal.SIGKILL, within=4):
    """Signal `how` to the driver `run` once `ready()` (within 180 s); every process of its
    group must end within `within` seconds.  The driver's exit status and standard error."""
    try:
        assert _wait(ready, 180), group_processes(run.pid)
        os.kill(run.pid, how)
        killed = time.monotonic()
        _, stderr = run.communicate(timeout=30)
        gone = _wait(lambda: not group_processes(run.pid), within)
        elapsed = time.monotonic() - killed
        left = group_processes(run.pid)
    finally:
        end_group(run, signal.SIGKILL)
    assert gone, left
    assert elapsed < within
    return run.returncode, stderr


def test_sigterm_of_the_driver_stops_a_cluster_of_two_workers_as_ctrl_c_does(tmp_path):
    # SIGTERM (what `timeout` and service managers send, to the driver only) stops the run
    # as Ctrl-C does: one line, exit 143, the stored folds kept.  Two workers that held
    # each other's Dask watch pipe outlived a driver that SIGTERM ended where it stood (2
    # runs of 6, 30 s and more): the workers now die with the driver whatever the order
    # of their forks.  Three runs: the order of the forks varies from run to run.
    experiment = _experiment(tmp_path, SLOW)
    for attempt in range(3):
        out = tmp_path / f"out{attempt}"
        run = _start(experiment, out, "--workers", "2")
        # Driver -> 2 workers -> their fit processes.
        status, stderr = _kill_driver_when(run, lambda: len(_grandchildren(run.pid)) == 2,
                                           signal.SIGTERM, within=20)
        assert status == 143
        assert stderr.strip().splitlines() == [
            "multitest: terminated; the folds finished so far are kept in the store: run "
            "the same command again to resume"]
    kept = _stored(out)
    code, output, stderr = run_cli("run", experiment, "--out", out, "--workers", "2")
    assert code == 0, stderr
    assert f"{8 - kept} computed, {kept} from the store" in output


@pytest.mark.parametrize("isolate", ["true", "false"])
def test_a_crashing_learner_loses_only_its_own_folds(tmp_path, isolate):
    # run_estimators.Crash SIGKILLs the process it fits in: the fit process (isolate: true)
    # or the Dask worker itself (isolate: false).  Every fold of the other learners is kept.
    experiment = _experiment(tmp_path, "  nb: {estimator: sklearn.naive_bayes.GaussianNB}\n"
                             "  tree: {estimator: sklearn.tree.DecisionTreeClassifier}\n"
                             "  crash: {estimator: run_estimators.Crash}\n",
                             f"isolate: {isolate}\n")
    out = tmp_path / "out"
    code, output, stderr = run_cli("run", experiment, "--out", out, "--workers", "2",
                                   timeout=600)
    assert code == 0 and stderr == "", stderr
    with Store(str(out / "store.sqlite")) as store:
        frame = store.frame()
    assert len(frame) == 12
    ok = frame["status"] == "ok"
    assert set(frame.loc[ok, "algorithm"]) == {"nb", "tree"} and ok.sum() == 8
    assert (frame.loc[~ok, "algorithm"] == "crash").all()
    died = "the fit process died" if isolate == "true" else "the worker process died"
    assert frame.loc[~ok, "error"].str.contains(died).all()
    failures = pd.read_csv(out / "failures.csv")
    assert set(failures["algorithm"]) == {"crash"} and len(failures) == 4
    assert "12 folds: 12 computed" in output and "4 failed, 0 lost" in output


@pytest.mark.parametrize("value", ["inf", "nan", "-3", "0", "later"])
def test_timeout_must_be_positive_and_finite(tmp_path, value):
    experiment = _experiment(tmp_path, SLOW)
    code, _, stderr = run_cli("run", experiment, "--out", tmp_path / "out", "--timeout", value)
    assert_one_line_error(code, stderr, "`timeout` must be a positive finite number",
                          repr(value))
    assert not (tmp_path / "out").exists()


def test_timeout_none_lifts_the_experiments_timeout(tmp_path):
    experiment = _experiment(tmp_path, SLOW.replace("1.0", "0.3"), "timeout: 0.1\n")
    code, output, stderr = run_cli("run", experiment, "--out", tmp_path / "out",
                                   "--workers", "1", "--timeout", "none")
    assert code == 0 and "0 failed" in output, stderr
