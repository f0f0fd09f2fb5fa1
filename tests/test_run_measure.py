"""Tests of multitest.run._measure and multitest.run._experiment: one fold, measured;
experiment files.

References: scikit-learn's own StratifiedKFold, accuracy_score and pickle (the folds,
errors and model sizes must equal what they give); known allocations for the peak
memory (an estimator that writes exactly N bytes); known durations for the timeout.
"""
import contextlib
import os
import pickle
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

pytest.importorskip("sklearn")
from sklearn.datasets import load_iris  # noqa: E402
from sklearn.metrics import accuracy_score  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

from multitest import InputError  # noqa: E402
from multitest.run import load_experiment  # noqa: E402
from multitest.run._measure import Task, fold_indices, run_task
from multitest.run._experiment import load_dataset

IRIS = load_iris(return_X_y=True)
TESTS = os.path.dirname(__file__)
ROOT = os.path.dirname(TESTS)


def _task(estimator, params=None, **fields):
    base = dict(dataset="iris", algorithm="a", estimator=estimator, params=params or {},
                replication=1, fold=1, folds=2, seed=0, metric="error", spec="s")
    return Task(**dict(base, **fields))


def test_folds_are_stratified_kfold_with_the_replication_seed():
    # Reference: sklearn StratifiedKFold(shuffle=True) with the seed documented in
    # provenance.json (SeedSequence([seed, replication])).
    y = IRIS[1]
    for replication in (1, 3):
        seed = int(np.random.SeedSequence([7, replication]).generate_state(1)[0])
        expected = list(StratifiedKFold(2, shuffle=True, random_state=seed).split(y, y))
        for fold in (1, 2):
            train, test = fold_indices(y, _task("x", replication=replication, fold=fold,
                                                seed=7))
            np.testing.assert_array_equal(test, expected[fold - 1][1])
            np.testing.assert_array_equal(train, expected[fold - 1][0])
    first = fold_indices(y, _task("x", replication=1))[1]
    assert not np.array_equal(first, fold_indices(y, _task("x", replication=2))[1])


@pytest.mark.parametrize("isolate", [True, False])
def test_error_time_and_model_size_equal_a_plain_fit(isolate):
    # Reference: the same fit done by hand: accuracy_score and len(pickle.dumps(model)).
    task = _task("sklearn.tree.DecisionTreeClassifier", {"random_state": 0}, repeats=3,
                 isolate=isolate)
    row = run_task(IRIS, task)
    assert row["status"] == "ok", row.get("error")
    train, test = fold_indices(IRIS[1], task)
    model = DecisionTreeClassifier(random_state=0).fit(IRIS[0][train], IRIS[1][train])
    accuracy = accuracy_score(IRIS[1][test], model.predict(IRIS[0][test]))
    assert row["loss"] == pytest.approx(1 - accuracy, abs=1e-15)
    assert row["model_size"] == len(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    assert len(row["repeats"]) == 3
    assert row["fit_time"] == np.median([r["fit_time"] for r in row["repeats"]])
    assert 0 < row["fit_cpu_time"] and 0 < row["fit_time"] < 5
    # The data unpickled (a copy of each dtype, which Dask's serializer of arrays does not
    # make but a pickle does): the same model size (1,783 bytes against 1,749 before
    # _native_dtype).
    received = pickle.loads(pickle.dumps(IRIS, protocol=pickle.HIGHEST_PROTOCOL))
    assert received[1].dtype is not IRIS[1].dtype
    assert run_task(received, task)["model_size"] == row["model_size"]


def test_scorer_metric_gives_a_loss():
    # Reference: sklearn's balanced_accuracy scorer; the loss is 1 - score, and -score for
    # neg_* scorers.
    row = run_task(IRIS, _task("sklearn.naive_bayes.GaussianNB", metric="balanced_accuracy"))
    assert row["loss"] == pytest.approx(1 - row["score"])
    row = run_task(IRIS, _task("sklearn.naive_bayes.GaussianNB", metric="neg_log_loss"))
    assert row["loss"] == pytest.approx(-row["score"]) and row["loss"] > 0


@pytest.mark.parametrize("isolate", [True, False])
def test_peak_memory_within_ten_percent_when_the_worker_is_reused(isolate):
    # Known allocation: Allocate(nbytes) writes every page of an nbytes array. The same
    # process measures a large then a small fit: the second must not inherit the first peak.
    for nbytes in (200_000_000, 50_000_000):
        row = run_task(IRIS, _task("run_estimators.Allocate", {"nbytes": nbytes},
                                   isolate=isolate))
        assert row["status"] == "ok", row.get("error")
        assert abs(row["peak_memory"] - nbytes) <= 0.10 * nbytes, (nbytes, row["peak_memory"])


@pytest.mark.parametrize("isolate", [True, False])
def test_peak_memory_is_never_negative_when_pages_arrive_after_a_free(tmp_path, isolate):
    # Seen in CI: a fold's peak of -11 kB (the mean over folds of wine, nb). A fit that frees
    # memory it held, then pages in a file (here 32 MB after freeing 64 MB), never rises
    # above where it started: its peak growth is 0, and the file pages, which came after
    # the high-water moment, must not be subtracted from it.
    import run_estimators

    mapped = tmp_path / "pages.bin"
    mapped.write_bytes(os.urandom(32 * 2**20))
    try:
        row = run_task(IRIS, _task("run_estimators.FreeThenMap", {"path": str(mapped)},
                                   isolate=isolate))
        assert row["status"] == "ok", row.get("error")
        assert 0 <= row["peak_memory"] <= 2**20, row["peak_memory"]
    finally:
        run_estimators.MAPPED.clear()
        run_estimators.HELD.clear()


@pytest.mark.parametrize("isolate", [True, False])
def test_pages_of_files_read_during_fit_are_not_its_peak_memory(tmp_path, isolate):
    # File pages that stay mapped (the libraries' code, which a forked child pages in again
    # on its first fit; here a 32 MB file the learner maps and keeps, as a library keeps its
    # files) are shared page cache, not memory the fit allocated. Measured before they were
    # left out: the first fit of a fresh fit process that ran scipy, pandas and NumPy code
    # and kept nothing read 16.3 MB, its next fits 0.06 MB.
    import run_estimators

    mapped = tmp_path / "pages.bin"
    mapped.write_bytes(os.urandom(32 * 2**20))
    try:
        for _ in range(2):
            row = run_task(IRIS, _task("run_estimators.ReadMapped", {"path": str(mapped)},
                                       isolate=isolate))
            assert row["status"] == "ok", row.get("error")
            assert row["peak_memory"] <= 2**20, row["peak_memory"]
    finally:
        run_estimators.MAPPED.clear()


@pytest.mark.parametrize("isolate", [True, False])
def test_a_failing_fit_is_recorded_not_raised(isolate):
    row = run_task(IRIS, _task("run_estimators.Fail", isolate=isolate))
    assert row["status"] == "error"
    assert row["error"].startswith("ValueError: this learner always fails")
    assert "loss" not in row


def test_a_fit_beyond_the_timeout_is_killed_and_recorded():
    row = run_task(IRIS, _task("run_estimators.Sleep", {"seconds": 30}, timeout=0.5))
    assert row["status"] == "timeout"
    assert "timeout of 0.5 s" in row["error"]
    assert row["finished"] - row["started"] < 30   # killed, not waited for (however loaded)


def test_n_jobs_is_forced_to_one():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import make_pipeline

    from multitest.run._measure import _single_threaded

    model = _single_threaded(make_pipeline(RandomForestClassifier(n_jobs=-1)))
    assert model.get_params()["randomforestclassifier__n_jobs"] == 1


# -- experiment files -------------------------------------------------------------------

def _write(tmp_path, text, name="exp.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


GOOD = """\
datasets:
  - sklearn: iris
algorithms:
  nb: {estimator: sklearn.naive_bayes.GaussianNB}
  tree: {estimator: sklearn.tree.DecisionTreeClassifier, params: {max_depth: 2}}
cv: {replications: 2, folds: 3, seed: 4}
"""


def test_experiment_defaults_and_fields(tmp_path):
    exp = load_experiment(_write(tmp_path, GOOD))
    assert (exp.replications, exp.folds, exp.seed, exp.metric, exp.repeats) == (2, 3, 4,
                                                                               "error", 3)
    assert [a.name for a in exp.algorithms] == ["nb", "tree"]
    assert exp.algorithms[1].params == {"max_depth": 2}
    X, y = load_dataset(exp, 0)
    assert X.shape == (150, 4) and len(y) == 150


@pytest.mark.parametrize("text, where", [
    (GOOD.replace("cv: {", "cv: {bogus: 1, "), "row 6, field 'cv.bogus'"),
    (GOOD.replace("folds: 3", "folds: 1"), "row 6, field 'cv.folds'"),
    (GOOD.replace("  - sklearn: iris", "  - csv: nowhere.csv\n    target: y"),
     "row 2, field 'datasets.0.csv'"),
    (GOOD.replace("  - sklearn: iris", "  - csv: nowhere.csv"),
     "row 2, field 'datasets.0.target'"),
    (GOOD.replace("sklearn.naive_bayes.GaussianNB", "nb"),
     "row 4, field 'algorithms.nb.estimator'"),
    (GOOD.replace("metric", "metric") + "timeout: -1\n", "row 7, field 'timeout'"),
    (GOOD + "color: red\n", "row 7, field 'color'"),
    (GOOD + "isolate: false\ntimeout: 5\n", "row 8, field 'timeout'"),
    # 1 x 2 x 10^8 x 3 folds: the tasks alone filled the memory, silently, for minutes.
    (GOOD.replace("replications: 2", "replications: 100000000"),
     "row 6, field 'cv': 600,000,000 folds in all (1 data set(s) x 2 algorithms x "
     "100,000,000 replications x 3 folds); one experiment runs at most 1,000,000"),
    (GOOD + "repeats: 101\n", "row 7, field 'repeats': must be at most 100"),
])
def test_experiment_errors_name_file_row_and_field(tmp_path, text, where):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_experiment(path)
    assert str(info.value).startswith(f"{path}, {where}")


def test_estimator_and_dataset_errors_are_found_before_running(tmp_path):
    from multitest.run._experiment import check_estimators

    path = _write(tmp_path, GOOD.replace("GaussianNB}", "GaussianNB, params: {bogus: 1}}"))
    with pytest.raises(InputError, match=r"row 4, field 'algorithms.nb.params'.*refuses"):
        check_estimators(load_experiment(path))
    path = _write(tmp_path, GOOD.replace("GaussianNB", "NoSuchThing"))
    with pytest.raises(InputError, match=r"field 'algorithms.nb.estimator': cannot import"):
        check_estimators(load_experiment(path))
    # A value scikit-learn's own constraints refuse (every fold's fit failed, exit 0).
    path = _write(tmp_path, GOOD.replace("max_depth: 2", "max_depth: -2"))
    with pytest.raises(InputError, match=r"row 5, field 'algorithms.tree.params': "
                                         r"sklearn.tree.DecisionTreeClassifier refuses the "
                                         r"parameters: The 'max_depth' parameter"):
        check_estimators(load_experiment(path))
    # An estimator that declares no constraints (not scikit-learn's own) is not checked so.
    path = _write(tmp_path, GOOD.replace("sklearn.tree.DecisionTreeClassifier, params: "
                                         "{max_depth: 2}", "run_estimators.Sleep"))
    check_estimators(load_experiment(path))
    exp = load_experiment(_write(tmp_path, GOOD.replace("sklearn: iris", "sklearn: titanic")))
    with pytest.raises(InputError, match="row 2.*no bundled scikit-learn data set 'titanic'"):
        load_dataset(exp, 0)


def test_csv_and_parquet_data_sets(tmp_path):
    import pandas as pd

    X, y = IRIS
    frame = pd.DataFrame(X, columns=list("abcd")).assign(colour=np.where(y > 0, "r", "g"),
                                                         label=y)
    frame.to_csv(tmp_path / "iris.csv", index=False)
    frame.to_parquet(tmp_path / "iris.parquet")
    text = GOOD.replace("  - sklearn: iris", "  - csv: iris.csv\n    target: label\n"
                        "  - parquet: iris.parquet\n    target: label\n    name: pq")
    exp = load_experiment(_write(tmp_path, text))
    assert [d.name for d in exp.datasets] == ["iris", "pq"]
    for index in (0, 1):
        Xt, yt = load_dataset(exp, index)
        assert Xt.shape == (150, 6)       # 4 numbers + one-hot colour (2 columns)
        np.testing.assert_array_equal(Xt[:, :4], X)
        np.testing.assert_array_equal(yt, y)
    bad = load_experiment(_write(tmp_path, text.replace("target: label\n  - p",
                                                        "target: nope\n  - p")))
    with pytest.raises(InputError, match="no target column 'nope'"):
        load_dataset(bad, 0)


@pytest.mark.filterwarnings("ignore:A network error occurred")
def test_openml_offline_is_a_clear_error(tmp_path, monkeypatch):
    # No network: point the OpenML client at a closed port on 127.0.0.1 (refused at once),
    # with an empty cache.
    import sklearn.datasets._openml as openml

    monkeypatch.setattr(openml, "_DATA_INFO", "http://127.0.0.1:9/api/v1/json/data/{}")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    text = GOOD.replace("  - sklearn: iris", "  - openml: 31") + "openml_cache: cache\n"
    exp = load_experiment(_write(tmp_path, text))
    with pytest.raises(InputError, match=r"row 2, field 'datasets.0.openml': cannot fetch "
                       r"OpenML data set 31 and it is not in the local cache"):
        load_dataset(exp, 0)


def test_stratification_needs_enough_members_per_class(tmp_path):
    import pandas as pd

    pd.DataFrame({"x": range(6), "y": [0, 0, 0, 0, 0, 1]}).to_csv(tmp_path / "t.csv",
                                                                  index=False)
    text = GOOD.replace("  - sklearn: iris", "  - csv: t.csv\n    target: y")
    with pytest.raises(InputError, match="class 1 has 1 example"):
        load_dataset(load_experiment(_write(tmp_path, text)), 0)


# -- the core without the extra -----------------------------------------------------------

_BLOCK = ("import sys\nfor name in ('sklearn', 'dask', 'distributed', 'threadpoolctl'):\n"
          "    sys.modules[name] = None\n")


def _python(code, tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)


def test_core_imports_and_ranks_without_sklearn_or_dask(tmp_path):
    # The heavy modules are made unimportable (sys.modules[name] = None) in a fresh process.
    code = _BLOCK + textwrap.dedent("""
        import multitest, multitest.cli, multitest.run._runner, multitest.inputs._cost_tables
        from multitest import rank, example_results
        print(rank(example_results(), {a: i for i, a in enumerate(
            ['5nn', 'c45', 'lnp', 'mlp', 'svr', 'svl', 'sv2', 'mdt'])}).final_order[0])
        heavy = [m for m in ('sklearn', 'dask', 'distributed', 'threadpoolctl')
                 if sys.modules.get(m) is not None]
        print('heavy:', heavy)
    """)
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "heavy: []"


def test_run_without_the_extra_is_a_one_line_error(tmp_path):
    experiment = _write(tmp_path, GOOD)
    code = _BLOCK + ("from multitest.cli import main\n"
                     f"sys.exit(main(['run', {experiment!r}, '--out', 'out']))\n")
    done = _python(code, tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("multitest: error: multitest run needs the 'run' extra: "
                           "pip install 'multitest-rank[run]'\n")
    assert not (tmp_path / "out").exists()


def test_run_arguments_are_checked_before_anything_runs(tmp_path, monkeypatch):
    from multitest import MultitestError
    from multitest.run import _runner as run_module

    experiment = _write(tmp_path, GOOD)
    with pytest.raises(MultitestError, match="`workers` must be a positive integer, got 0"):
        run_module.run_experiment(experiment, tmp_path / "out", workers=0)
    with pytest.raises(MultitestError, match=r"`workers` must be at most \d+ \(4 per CPU\), "
                                             "got 1000000"):
        run_module.run_experiment(experiment, tmp_path / "out", workers=10**6)
    for timeout in (-1, float("inf"), "inf", float("nan"), "soon"):
        with pytest.raises(MultitestError, match="`timeout` must be a positive finite number"):
            run_module.run_experiment(experiment, tmp_path / "out", timeout=timeout)
    assert not (tmp_path / "out").exists()
    # Nothing listens on port 9 of the loopback: a one-line error, not a traceback.
    from multitest.run import _client

    monkeypatch.setattr(_client, "CONNECT_TIMEOUT", "2s")
    with pytest.raises(MultitestError, match="`scheduler`: cannot reach a Dask scheduler at "
                       "'tcp://127.0.0.1:9'"):
        run_module.run_experiment(experiment, tmp_path / "out", scheduler="tcp://127.0.0.1:9",
                                  show_progress=False)
    # The store it opened holds no fold: removed again, with the folder it created.
    assert not (tmp_path / "out").exists()
    # A server of another kind: one that answers the handshake with an HTTP page (Dask
    # read its first bytes as a frame of 3 EiB: a MemoryError traceback), one that waits
    # for a request of its own (Dask waited for the handshake for ever).
    for answer, words in ((b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n",
                           "a server answered, not as one: "),
                          (None, "nothing answered as one within 2s")):
        with _server(answer) as address:
            started = time.monotonic()
            with pytest.raises(MultitestError, match=f"cannot reach a Dask scheduler at "
                               f"'{address}' \\(.*{words}"):
                run_module.run_experiment(experiment, tmp_path / "out", scheduler=address,
                                          show_progress=False)
            assert time.monotonic() - started < 30
            assert not (tmp_path / "out").exists()


@contextlib.contextmanager
def _server(answer):
    """A TCP server on the loopback that sends `answer` to each connection (None: nothing)
    and keeps it open; its address."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)   # a close from another thread does not end an accept
    held, done = [], threading.Event()

    def serve():
        while not done.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(connection)
            if answer is not None:
                connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        done.set()
        thread.join(10)
        listener.close()
        for connection in held:
            connection.close()


def test_an_estimator_missing_on_the_worker_is_the_folds_error():
    row = run_task(IRIS, _task("no_such_package.Learner"))
    assert row["status"] == "error"
    assert row["error"].startswith("on the worker: ModuleNotFoundError")


@pytest.mark.parametrize("isolate", [True, False])
def test_peak_memory_of_medium_arrays_when_the_fit_process_is_reused(isolate):
    # Known allocation, repeated in the same process: arrays of 16 MB are below glibc's
    # largest dynamic mmap threshold (32 MB); without a fixed threshold the second fit would
    # reuse the heap the first one freed and its peak would be near 0.
    # The 10 % check of a known allocation is test_peak_memory_within_ten_percent_...; here
    # the point is that no fit reads (near) 0. Before file pages were left out, a fresh fit
    # process forked from the test process after the whole suite read 20.3 MB here (the
    # libraries' code paged in again), hence the absolute upper slack of 4 MiB.
    for _ in range(3):
        row = run_task(IRIS, _task("run_estimators.Allocate", {"nbytes": 16_000_000},
                                   isolate=isolate))
        assert row["status"] == "ok", row.get("error")
        assert 0.9 * 16_000_000 <= row["peak_memory"] <= 16_000_000 + 4 * 2**20, \
            row["peak_memory"]


def test_the_fit_process_is_reused_for_a_data_set_and_replaced_after_a_timeout():
    from multitest.run import _measure as measure

    def child():
        return measure._processes[measure._thread_key()].pid

    run_task(IRIS, _task("sklearn.naive_bayes.GaussianNB"))
    first = child()
    row = run_task(IRIS, _task("sklearn.tree.DecisionTreeClassifier", fold=2))
    assert row["status"] == "ok" and child() == first
    row = run_task(IRIS, _task("run_estimators.Sleep", {"seconds": 30}, timeout=0.5))
    assert row["status"] == "timeout"
    assert measure._thread_key() not in measure._processes
    with pytest.raises(ChildProcessError):   # the killed child was reaped
        os.waitpid(first, os.WNOHANG)
    row = run_task(IRIS, _task("sklearn.naive_bayes.GaussianNB"))
    assert row["status"] == "ok" and child() != first
    second = child()
    other = (IRIS[0].copy(), IRIS[1].copy())   # another data set: another process
    assert run_task(other, _task("sklearn.naive_bayes.GaussianNB"))["status"] == "ok"
    assert child() != second
    last = child()
    measure.close_fit_processes()   # what the engine runs on every worker at the end
    assert measure._thread_key() not in measure._processes
    with pytest.raises(ChildProcessError):
        os.waitpid(last, os.WNOHANG)


def test_pickled_size_equals_the_length_of_the_pickle():
    # Reference: len(pickle.dumps(value, protocol=HIGHEST_PROTOCOL)), the definition of the
    # model size; the counter must agree also on the large buffers that protocol 5 streams
    # as PickleBuffer objects (numpy arrays, bytearrays) and on a fitted model.
    from multitest.run._memory import pickled_size

    model = DecisionTreeClassifier(random_state=0).fit(*IRIS)
    values = [0, "text", np.arange(300_000.0), {"a": np.zeros((400, 400), order="F")},
              [bytearray(2_000_000), b"x" * 70_000], model]
    for value in values:
        assert pickled_size(value) == len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def test_a_crashed_fit_is_seen_while_a_process_it_left_holds_its_pipe(tmp_path):
    # Before the fit process's death was checked while its reply was awaited, the worker
    # waited as long as the learner's leftover child held the pipe open (here 60 s; a pool
    # or a sibling fit process: for ever).  Reference: the death is seen within a poll.
    from multitest.run import _measure as measure

    pid_file = tmp_path / "pid"
    start = time.monotonic()
    try:
        row = run_task(IRIS, _task("run_estimators.CrashLeavingChild",
                                   {"pid_file": str(pid_file), "seconds": 60.0}))
        seconds = time.monotonic() - start
    finally:
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert row["status"] == "error" and "signal SIGKILL" in row["error"], row
    assert seconds < 10 * measure.POLL_SECONDS + 5, seconds


def test_closing_a_fit_process_is_bounded_when_its_pipe_is_held_elsewhere(monkeypatch):
    # A process forked from the worker (another thread's fit process) holds a copy of the
    # request pipe: the child never sees it close.  Before, close() waited for its exit for
    # ever; now it kills it after CLOSE_GRACE and returns its status.
    import threading

    from multitest.run import _measure as measure

    monkeypatch.setattr(measure, "CLOSE_GRACE", 0.3)
    process = measure._FitProcess(IRIS)
    held = os.dup(process.requests)    # what the other process holds
    statuses = []
    closer = threading.Thread(target=lambda: statuses.append(process.close()), daemon=True)
    try:
        closer.start()
        closer.join(30)
    finally:
        os.close(held)
        closer.join(30)
    assert statuses and os.WIFSIGNALED(statuses[0]), statuses
    assert os.WTERMSIG(statuses[0]) == signal.SIGKILL
    assert (os.getpid(), process.requests) not in measure._parent_ends


def test_a_fit_process_closes_the_pipes_of_the_others():
    # Reference: /proc/PID/fd of the second child lists no pipe end of the first one's
    # parent side (else the first child would not see its pipe close).
    from multitest.run import _measure as measure

    first = measure._FitProcess(IRIS)
    second = measure._FitProcess(IRIS)
    try:   # a fold done: the second child is past its start
        task = _task("sklearn.naive_bayes.GaussianNB")
        assert second.call((fold_indices(IRIS[1], task), task), None)[0] == "ok"
        theirs = {os.readlink(f"/proc/{second.pid}/fd/{fd}")
                  for fd in os.listdir(f"/proc/{second.pid}/fd")}
        mine = {os.readlink(f"/proc/self/fd/{fd}") for fd in (first.requests, first.replies)}
        assert not mine & theirs
        started = time.monotonic()
        assert first.close() == 0 and time.monotonic() - started < measure.CLOSE_GRACE
    finally:
        second.close()


def test_a_request_to_a_dead_fit_process_is_not_a_wait_for_ever(tmp_path):
    # The fit process died between two folds; a process its learner left holds the read
    # end of its request pipe, so a request larger than the pipe's buffer (64 KiB) could
    # never be written: before, the worker blocked in write() as long as that process
    # lived.  Reference: the death is the next fold's error, within a few polls.
    from multitest.run import _measure as measure

    X = np.repeat(IRIS[0], 200, axis=0)     # 30,000 rows: a request of about 240 KB
    data = (X, np.repeat(IRIS[1], 200))
    pid_file = tmp_path / "pid"
    process = measure._FitProcess(data)
    task = _task("run_estimators.LeaveChild", {"pid_file": str(pid_file), "seconds": 60.0})
    split = fold_indices(data[1], task)
    try:
        assert process.call((split, task), None)[0] == "ok"
        os.kill(process.pid, signal.SIGKILL)
        start = time.monotonic()
        status, error = process.call((split, task), None)
        seconds = time.monotonic() - start
    finally:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert status == "error" and "signal SIGKILL" in error, error
    assert seconds < 10 * measure.POLL_SECONDS + 5, seconds


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/task: Linux")
def test_a_fit_process_has_one_thread_and_one_thread_per_pool(tmp_path):
    # A fit process that set the limit itself restarted OpenBLAS's threads, which spun beside
    # its first folds (a depth-1 tree's fit: 22-49 ms against 5 ms); it inherits the
    # worker's.  Reference: the fit process's /proc/self/task and threadpoolctl's pool sizes.
    import json

    row = run_task(IRIS, _task("run_estimators.Threads", {"path": str(tmp_path / "t.json")}))
    assert row["status"] == "ok", row.get("error")
    assert json.loads((tmp_path / "t.json").read_text()) == {"threads": 1, "pools": [1]}
