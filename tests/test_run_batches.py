"""Tests of multitest.run._batches and run_tasks: small folds grouped into one Dask task each.

References: the folds of an experiment, in order, each handed out once; the row of each
fold of a batch equals the row of the same fold run alone (same error, its own measures);
a batch whose worker dies is retried fold by fold, alone, so that only the crashing fold
is lost (a real local Dask cluster, a learner that SIGKILLs its worker on one fold).
"""
import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("distributed")
from cli_helpers import run_cli  # noqa: E402
from sklearn.datasets import load_iris  # noqa: E402

from multitest.run._batches import GUESSED_BATCH, MAX_BATCH, FoldBatches  # noqa: E402
from multitest.run._measure import Task, fold_indices, run_task, run_tasks  # noqa: E402
from multitest.run._store import Store  # noqa: E402

IRIS = load_iris(return_X_y=True)


def _tasks(datasets=("d",), algorithms=("a", "b"), replications=5, folds=2):
    return [Task(dataset=d, algorithm=a, estimator="sklearn.tree.DecisionTreeClassifier",
                 params={"random_state": 0}, replication=r, fold=f, folds=folds, seed=0,
                 metric="error", spec="s")
            for d in datasets for a in algorithms for r in range(1, replications + 1)
            for f in range(1, folds + 1)]


def _row(task, seconds):
    return {"dataset": task.dataset, "algorithm": task.algorithm, "status": "ok",
            "fit_cpu_time": 0.75 * seconds, "predict_cpu_time": 0.25 * seconds}


def test_every_fold_is_handed_out_once_in_order_in_batches_of_one_data_set():
    tasks = _tasks(datasets=("d1", "d2"), algorithms=("a", "b", "c"), replications=10)
    batches, handed, mixed = FoldBatches(tasks, workers=2), [], 0
    while batch := batches.take():
        assert len({t.dataset for t in batch}) == 1
        mixed += len({t.algorithm for t in batch}) > 1
        handed.extend(batch)
        batches.learn([_row(t, 0.01) for t in batch])
    assert handed == tasks and len(batches) == 0
    assert mixed > 0      # learners of one data set share a batch (one fit process)


def test_a_batch_adds_up_the_estimates_of_its_learners_and_of_repeated_fits():
    # Learner a measured at 0.05 s, b at 0.1 s; c not measured.  From a's last fold:
    # 0.05 + 0.1 + 0.1 = 0.25 s (BATCH_SECONDS): a's fold, then two of b's.
    tasks = _tasks(algorithms=("a", "b", "c"))[9:]
    batches = FoldBatches(tasks, workers=1)
    batches.learn([_row(tasks[0], 0.05), _row(tasks[1], 0.1)])
    assert [(t.algorithm, t.replication, t.fold) for t in batches.take()] == \
        [("a", 5, 2), ("b", 1, 1), ("b", 1, 2)]
    # A first fold fitted 3 times (repeats) counts 3 times: c's, guessed at the data set's
    # last 0.1 s, would make 0.1 + 3 x 0.1 s; it opens the next batch, where its next
    # fold (0.3 + 0.1 s) would be over too.
    repeated = [t.__class__(**dict(t.__dict__, repeats=3 if (t.replication, t.fold) == (1, 1)
                                   else 1)) for t in _tasks(algorithms=("a", "c"))[9:]]
    batches = FoldBatches(repeated, workers=1)
    batches.learn([_row(repeated[0], 0.1)])
    assert [(t.algorithm, t.repeats) for t in batches.take()] == [("a", 1)]
    assert [(t.algorithm, t.repeats) for t in batches.take()] == [("c", 3)]


def test_batch_size_follows_the_measured_cpu_time_of_its_learner_on_its_data_set():
    tasks = _tasks(algorithms=("a",), replications=100)       # 200 folds
    batches = FoldBatches(tasks, workers=2)
    assert len(batches.take()) == 1                           # unknown: one fold
    batches.learn([_row(tasks[0], 0.05)])
    assert len(batches.take()) == 5                           # 0.25 s / 0.05 s
    batches.learn([_row(tasks[0], 0.001)])
    assert len(batches.take()) == MAX_BATCH                   # 250 folds' worth: capped
    batches.learn([_row(tasks[0], 1.0)])
    assert len(batches.take()) == 1                           # a slow fit: alone
    failed = dict(_row(tasks[0], 0.001), status="error")
    batches.learn([failed])                                   # a failure measures nothing
    assert len(batches.take()) == 1
    # Another data set with the same learner is measured on its own.
    other = FoldBatches(_tasks(datasets=("e",), algorithms=("a",), replications=100), 2)
    other.learn([_row(tasks[0], 0.001)])
    assert len(other.take()) == 1


def test_a_learner_not_measured_yet_gets_a_small_batch_guessed_from_its_data_set():
    tasks = _tasks(algorithms=("a", "b"), replications=50)    # 100 folds each
    batches = FoldBatches(tasks[100:], workers=2)             # learner b, on data set d
    batches.learn([_row(tasks[0], 0.001)])                    # a on d: 1 ms
    assert len(batches.take()) == GUESSED_BATCH               # b: a guess, kept small
    batches.learn([_row(tasks[0], 0.2)])                      # a on d: 0.2 s
    assert len(batches.take()) == 1
    batches.learn([_row(tasks[100], 0.02)])                   # b measured: 12 folds
    assert len(batches.take()) == 12


def test_the_end_of_the_run_is_shared_among_the_workers():
    tasks = _tasks(algorithms=("a",), replications=6)         # 12 folds
    batches = FoldBatches(tasks, workers=2)
    batches.learn([_row(tasks[0], 0.001)])
    # 12 // 4 = 3, then 9 // 4 = 2, 7 // 4 = 1 ...: never one worker with the rest.
    assert [len(batches.take()) for _ in range(5)] == [3, 2, 1, 1, 1]


@pytest.mark.parametrize("isolate", [True, False])
def test_a_batch_gives_one_row_per_fold_equal_to_the_fold_run_alone(isolate):
    tasks = [t.__class__(**dict(t.__dict__, dataset="iris", isolate=isolate))
             for t in _tasks(algorithms=("a",), replications=2)]
    rows = run_tasks(IRIS, tasks)
    alone = [run_task(IRIS, t) for t in tasks]
    assert [(r["replication"], r["fold"]) for r in rows] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert all(r["status"] == "ok" for r in rows)
    assert [r["loss"] for r in rows] == [r["loss"] for r in alone]
    assert [r["model_size"] for r in rows] == [r["model_size"] for r in alone]
    # Each fold timed on its own: its own start and end, in order, and its own fit time.
    assert all(a["finished"] <= b["started"] for a, b in zip(rows, rows[1:]))
    assert all(0 < r["fit_time"] <= r["finished"] - r["started"] for r in rows)


def test_a_batch_whose_worker_dies_is_retried_fold_by_fold(tmp_path):
    # A learner that SIGKILLs its worker (isolate: false) on one fold only, replication 3
    # fold 1.  Its first four folds go out alone (two per worker, their time unknown); the
    # next batch is that fold and the three after it (16 // 4 folds left).  The batch dies
    # twice, then each of its folds runs alone and only that fold is the crash; every other
    # fold of the batch and of the run is kept.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.repeat([0, 1], 30)
    pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(y=y).to_csv(tmp_path / "d.csv",
                                                                  index=False)
    frame = pd.read_csv(tmp_path / "d.csv")
    X = frame[["x0", "x1", "x2"]].to_numpy(float)
    task = _tasks(algorithms=("crash",), replications=3)[4]   # replication 3, fold 1
    sums = [round(float(X[fold_indices(y, t)[0], 0].sum()), 9) for t in _tasks(replications=5)]
    value = round(float(X[fold_indices(y, task)[0], 0].sum()), 9)
    assert sums.count(value) == 2     # this fold's, for each of the two learners
    experiment = tmp_path / "experiment.yaml"
    experiment.write_text(
        "datasets:\n  - csv: d.csv\n    target: y\nalgorithms:\n"
        f"  crash: {{estimator: run_estimators.CrashOn, params: {{value: {value!r}}}}}\n"
        "  nb: {estimator: sklearn.naive_bayes.GaussianNB}\n"
        "cv: {replications: 5, folds: 2, seed: 0}\nrepeats: 1\nisolate: false\n")
    out = tmp_path / "out"
    code, output, stderr = run_cli("run", experiment, "--out", out, "--workers", "2",
                                   timeout=600)
    assert code == 0 and stderr == "", stderr
    with Store(str(out / "store.sqlite")) as store:
        stored = store.frame()
    assert len(stored) == 20
    failed = stored[stored["status"] != "ok"]
    assert failed[["algorithm", "replication", "fold"]].values.tolist() == [["crash", 3, 1]]
    assert "the worker process died while fitting this fold, alone" in failed["error"].iloc[0]
    assert "20 folds: 20 computed" in output and "1 failed, 0 lost" in output
