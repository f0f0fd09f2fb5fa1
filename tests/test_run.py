"""End-to-end tests of multitest run: run -> rank -> report, locally and on a real cluster.

The local run starts its LocalCluster of processes on 127.0.0.1; the cluster run starts a
real `dask scheduler` and two `dask worker` processes on 127.0.0.1.
Reference: the runs must give identical errors fold by fold (same seeds, same folds),
and the errors must equal scikit-learn fits done by hand on sklearn's StratifiedKFold.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("distributed")
from run_cluster import dask_cluster  # noqa: E402
from sklearn.datasets import load_wine  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from multitest import load_profile, rank  # noqa: E402
from multitest.cli import main  # noqa: E402
from multitest.run import run_experiment  # noqa: E402
from multitest.run._store import Store  # noqa: E402

EXPERIMENT = """\
datasets:
  - sklearn: iris
  - sklearn: wine
algorithms:
  nb: {estimator: sklearn.naive_bayes.GaussianNB}
  tree: {estimator: sklearn.tree.DecisionTreeClassifier, params: {max_depth: 3, random_state: 0}}
cv: {replications: 5, folds: 2, seed: 11}
repeats: 2
"""


def _experiment(folder, text=EXPERIMENT):
    path = folder / "experiment.yaml"
    path.write_text(textwrap.dedent(text))
    return str(path)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("local")
    result = run_experiment(_experiment(folder), folder / "out", workers=2,
                            show_progress=False)
    return folder / "out", result


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    with dask_cluster(str(tmp_path_factory.mktemp("cluster")), n_workers=2) as (address, _):
        yield address


def test_local_run_writes_a_complete_experiment_folder(local_run):
    out, result = local_run
    assert (result.total, result.computed, result.reused, result.failed, result.lost) == \
        (40, 40, 0, 0, 0)
    results = pd.read_csv(out / "results.csv")
    assert len(results) == 40 and not results.duplicated(["dataset", "algorithm",
                                                          "replication", "fold"]).any()
    for measure in ("fit_time", "fit_cpu_time", "predict_time", "predict_cpu_time",
                    "peak_memory", "model_size"):
        profile = load_profile(out / "costs" / f"{measure}.yaml")
        means = results.groupby(["dataset", "algorithm"])[measure].mean()
        assert profile.cost_matrix(["wine"], ["tree"])[0, 0] == pytest.approx(
            means["wine", "tree"], rel=1e-12)
    noise = pd.read_csv(out / "costs" / "noise.csv")
    assert set(noise["repeats"]) == {2} and len(noise) == 2 * 2 * 4
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["versions"]["scikit-learn"] and provenance["client"]["cpus"]
    assert len(provenance["workers"]) == 2 and provenance["cv"]["seed"] == 11
    assert provenance["engine"] == {"scheduler": "local", "workers": 2}
    assert provenance["datasets_ranked"] == ["iris", "wine"]


def test_errors_equal_fits_by_hand(local_run):
    # Reference: DecisionTreeClassifier fitted by hand on sklearn's StratifiedKFold with the
    # seed of replication 3 (SeedSequence([11, 3])).
    out, _ = local_run
    results = pd.read_csv(out / "results.csv").set_index(["dataset", "algorithm",
                                                          "replication", "fold"])
    X, y = load_wine(return_X_y=True)
    seed = int(np.random.SeedSequence([11, 3]).generate_state(1)[0])
    for fold, (train, test) in enumerate(StratifiedKFold(2, shuffle=True, random_state=seed)
                                         .split(X, y), start=1):
        model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X[train], y[train])
        expected = np.mean(model.predict(X[test]) != y[test])
        assert results.loc[("wine", "tree", 3, fold), "error"] == pytest.approx(expected,
                                                                                abs=1e-15)


def test_rank_and_report_on_the_experiment_folder(local_run, capsys):
    out, _ = local_run
    assert main(["rank", str(out), "--costs", "fit_time", "--out", str(out / "rank"),
                 "--report"]) == 0
    text = capsys.readouterr().out
    assert "costs fit_time" in text
    assert (out / "rank" / "report.html").stat().st_size > 1000
    by_folder = json.loads((out / "rank" / "result.json").read_text())
    expected = rank(out / "results.csv", out / "costs" / "fit_time.yaml")
    assert by_folder["final_order"] == list(expected.final_order)
    assert main(["rank", str(out), "--costs", "column:model_size"]) == 0


def test_resume_computes_nothing_when_complete(local_run):
    out, _ = local_run
    with Store(str(out / "store.sqlite")) as store:
        before = store.frame()
    again = run_experiment(out.parent / "experiment.yaml", out, workers=1,
                           show_progress=False)
    assert (again.computed, again.reused) == (0, 40)
    with Store(str(out / "store.sqlite")) as store:
        pd.testing.assert_frame_equal(store.frame(), before)


def test_scheduler_and_two_workers_give_identical_errors(local_run, scheduler, tmp_path):
    # The fits run in the workers themselves here (isolate: false), in forked children in
    # the local run: neither the engine nor the measurement mode may change an error.
    out, _ = local_run
    result = run_experiment(_experiment(tmp_path, EXPERIMENT + "isolate: false\n"),
                            tmp_path / "out", scheduler=scheduler, show_progress=False)
    assert (result.computed, result.failed) == (40, 0)
    local = pd.read_csv(out / "results.csv")
    remote = pd.read_csv(tmp_path / "out" / "results.csv")
    key = ["dataset", "algorithm", "replication", "fold"]
    pd.testing.assert_frame_equal(local[key + ["error"]], remote[key + ["error"]])
    # Both workers joined the run; which of them computes which fold is Dask's choice (on
    # a loaded machine one worker may take every batch), so it is not asserted.
    provenance = json.loads((tmp_path / "out" / "provenance.json").read_text())
    assert len(provenance["workers"]) == 2 and provenance["engine"]["scheduler"] == scheduler
    hosts = {worker.rsplit(":", 1)[0]
             for worker in Store(str(tmp_path / "out" / "store.sqlite")).frame()["worker"]}
    assert hosts == {os.uname().nodename}
    assert main(["rank", str(tmp_path / "out"), "--costs", "fit_time", "--out",
                 str(tmp_path / "rank"), "--report"]) == 0
    # The errors are identical; the order may differ only through the measured costs.
    remote_rank = json.loads((tmp_path / "rank" / "result.json").read_text())
    assert sorted(remote_rank["final_order"]) == ["nb", "tree"]


FAILING = """\
datasets:
  - sklearn: iris
  - sklearn: wine
algorithms:
  nb: {estimator: sklearn.naive_bayes.GaussianNB}
  fragile: {estimator: run_estimators.FailOn, params: {n_features: 13}}
cv: {replications: 1, folds: 3, seed: 0}
repeats: 1
"""


def test_failed_folds_are_recorded_and_follow_the_missing_policy(tmp_path, capsys,
                                                                  monkeypatch):
    import io

    import multitest._progress

    bars = []

    def drawn(total, label, **options):   # the run's bar, drawn into a string
        options.update(stream=io.StringIO(), enabled=True, delay=0, min_interval=0)
        bars.append(multitest._progress.Progress(total, label, **options))
        return bars[-1]

    monkeypatch.setattr(multitest._progress, "progress", drawn)
    path = _experiment(tmp_path, FAILING)
    assert main(["run", path, "--out", str(tmp_path / "out"), "--workers", "2"]) == 0
    final = bars[0].stream.getvalue().rsplit("\r\x1b[2K", 1)[-1]
    assert final.startswith("run  [") and "12/12" in final and final.endswith(
        "(3 failed)\n")
    printed = capsys.readouterr().out
    assert "3 failed" in printed and "complete data sets: iris" in printed
    assert "data sets with failed folds: wine" in printed
    failures = pd.read_csv(tmp_path / "out" / "failures.csv")
    assert len(failures) == 3 and set(failures["dataset"]) == {"wine"}
    assert failures["error"].str.startswith("RuntimeError: no fit with 13 features").all()
    results = pd.read_csv(tmp_path / "out" / "results.csv")
    assert set(results["dataset"]) == {"iris", "wine"}   # failed folds: empty errors
    assert results["error"].isna().sum() == 3
    rank = ["rank", str(tmp_path / "out"), "--costs", "fit_time", "--test", "kfold-t"]
    assert main(rank) == 2   # the default policy: a one-line error
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1    # the folder's notes come with a ranking only
    assert "3 result(s) missing in all" in captured.err and "--missing drop" in captured.err
    assert main(rank + ["--missing", "drop"]) == 0   # what the runner did before
    captured = capsys.readouterr()
    assert "policy drop; 3 missing" in captured.out and "left out: wine" in captured.out
    assert "data set 'wine' has 3 failed or missing fold(s)" in captured.err
    assert main(rank + ["--missing", "worst"]) == 0
    assert "3 imputed with the worst error" in capsys.readouterr().out
    # Failures are data: a re-run does not recompute them unless asked to.
    again = run_experiment(path, tmp_path / "out", workers=1, show_progress=False)
    assert again.computed == 0 and again.failed == 3
    again = run_experiment(path, tmp_path / "out", workers=1, retry_failed=True,
                           show_progress=False)
    assert again.computed == 3 and again.failed == 3


def test_timeouts_are_recorded_and_rank_refuses_an_empty_folder(tmp_path, capsys):
    sleep = 120
    text = FAILING.replace("run_estimators.FailOn, params: {n_features: 13}",
                           f"run_estimators.Sleep, params: {{seconds: {sleep}}}") \
        .replace("folds: 3", "folds: 2")
    path = _experiment(tmp_path, text)
    assert main(["run", path, "--out", str(tmp_path / "out"), "--workers", "2",
                 "--timeout", "0.5"]) == 0
    failures = pd.read_csv(tmp_path / "out" / "failures.csv")
    assert list(failures["status"]) == ["timeout"] * 4
    # --timeout overrides the experiment's (none here), and the provenance says so.
    assert json.loads((tmp_path / "out" / "provenance.json").read_text())["timeout"] == 0.5
    # Each fold ended before its learner's sleep would have, timed on its worker (the
    # start of the cluster and the imports, seconds on a loaded machine, are not in it).
    with Store(str(tmp_path / "out" / "store.sqlite")) as store:
        frame = store.frame()
    slept = frame[frame["status"] == "timeout"]
    assert len(slept) == 4 and ((slept["finished"] - slept["started"]) < sleep).all()
    assert main(["rank", str(tmp_path / "out"), "--costs", "fit_time", "--missing",
                 "drop"]) == 2
    assert "policy drop leaves no data set to rank" in capsys.readouterr().err


def _death_signal():
    """This process's parent-death signal (Linux's prctl PR_GET_PDEATHSIG), 0 if none."""
    import ctypes

    value = ctypes.c_int()
    ctypes.CDLL(None).prctl(2, ctypes.byref(value))
    return value.value


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl: Linux")
def test_the_local_clusters_workers_die_with_the_driver_and_only_they():
    # Dask's own watch (a pipe only the driver should hold) failed when two workers held
    # each other's: both ran on after their driver's SIGTERM (test_run_signals covers the
    # run).  Reference: the kernel's parent-death signal of each worker; a process forked
    # after the cluster closed has none.
    import signal

    from multitest.run import _client

    with _client._connect(2, None) as client:
        signals = client.run(_death_signal)
    assert sorted(signals.values()) == [signal.SIGKILL] * 2
    pid = os.fork()
    if pid == 0:
        os._exit(_death_signal())
    assert os.waitpid(pid, 0)[1] == 0


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity: Linux")
def test_the_default_number_of_workers_is_the_cpus_this_process_may_use():
    # A container allowed one of the machine's CPUs starts one worker, not os.cpu_count().
    # Reference: the affinity mask the program sets itself.
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from multitest.run._client import _local_workers; print(_local_workers(None))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "1"


def test_workers_that_do_not_start_in_time_are_a_one_line_error(tmp_path, capsys,
                                                                  monkeypatch):
    # Dask's nanny waits for its worker's start for ever unless given death_timeout; a
    # worker forked from a driver of several threads can hang there.  A bound too short
    # for any start: the run stops with one line and exit 2.
    from multitest.run import _client

    monkeypatch.setattr(_client, "WORKER_START_TIMEOUT", 0.001)
    path = _experiment(tmp_path)
    assert main(["run", path, "--out", str(tmp_path / "out"), "--workers", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "did not start within 0.001 s" in err, err


def test_a_cluster_that_fails_to_start_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    # When a worker stuck starting is killed, Dask itself can fail (seen once under load:
    # "AssertionError: Status.starting"); a traceback then ended the run.
    import distributed

    def failing_cluster(**kwargs):
        raise AssertionError("Status.starting")
    monkeypatch.setattr(distributed, "LocalCluster", failing_cluster)
    path = _experiment(tmp_path)
    assert main(["run", path, "--out", str(tmp_path / "out"), "--workers", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert "the local cluster did not start (AssertionError: Status.starting)" in err, err


def test_a_frozen_worker_does_not_hold_the_run(tmp_path, monkeypatch):
    # A worker that stops answering (its process stopped, its machine cut off) held the run
    # for ever in Client.run and Client.replicate, which wait for every worker; once Dask
    # retired it, Client.run raised CommClosedError (a traceback).  Now each call on every
    # worker is bounded (WORKER_CALL_TIMEOUT: 2 s here, 30 s by default), Dask retires the
    # worker (worker-ttl: 3 s here, 5 minutes by default; a worker without a nanny, which
    # Dask would first wait 30 s to restart it) and the live one fits every fold.
    import signal
    import time

    from run_cluster import end_group

    from multitest.run import _client

    monkeypatch.setattr(_client, "WORKER_CALL_TIMEOUT", 2.0)
    with dask_cluster(str(tmp_path), n_workers=2, worker_options=["--no-nanny"],
                      env={"DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL": "3s"}) as (address,
                                                                                workers):
        end_group(workers[1], signal.SIGSTOP)
        try:
            start = time.monotonic()
            result = run_experiment(_experiment(tmp_path), tmp_path / "out",
                                    scheduler=address, show_progress=False)
            took = time.monotonic() - start
        finally:    # its scheduler gone, a worker woken up would try to reach it for 30 s
            end_group(workers[1], signal.SIGKILL)
    assert (result.computed, result.failed, result.lost) == (result.total, 0, 0)
    assert took < 120    # a bound for a loaded machine (6 s quiet)
    workers = json.loads((tmp_path / "out" / "provenance.json").read_text())["workers"]
    assert len(workers) == 2 and None in workers.values()    # the frozen one: not known


def test_a_scheduler_with_no_worker_is_waited_for_within_a_bound(tmp_path, monkeypatch, capsys):
    # A scheduler with no worker: its tasks waited for ever, with no word.  Now one line
    # says the run waits, and after the bound (2 s here, 120 s by default) the run stops
    # with one line, leaving no folder behind.
    from multitest import MultitestError
    from multitest.run import _client

    monkeypatch.setattr(_client, "WORKER_START_TIMEOUT", 2.0)
    monkeypatch.setenv("MULTITEST_QUIET", "0")
    with dask_cluster(str(tmp_path), n_workers=0) as (address, _):
        with pytest.raises(MultitestError, match=f"^`scheduler`: no worker joined the Dask "
                           f"scheduler at '{address}' within 2 s: start one \\(dask worker "
                           f"{address}\\) or leave out --scheduler$"):
            run_experiment(_experiment(tmp_path), tmp_path / "out", scheduler=address,
                           show_progress=False)
    assert capsys.readouterr().err == ("multitest: waiting up to 2 s for a worker to join "
                                       f"the Dask scheduler at {address}\n")
    assert not (tmp_path / "out").exists()
