"""``multitest run`` against a bare scikit-learn loop on the same folds; noise of the costs.

Workload: seeded synthetic classification data sets (``make_classification``, written as
CSV files the experiment reads) and five scikit-learn classifiers under 5x2 stratified
cross-validation.  ``--scale`` multiplies the number of examples (x 1500); the default,
8 (12000 examples per data set, folds of 0.05 to a few seconds), is about 60 s of CPU for
the bare loop: the size of the issue's target.  ``--scale 1`` is a short check.

Rows printed:

- ``bare loop``: ``sklearn.model_selection.StratifiedKFold`` with the runner's seeds,
  clone / fit / predict / accuracy for every fold, single-threaded (threadpoolctl), in
  this process: the least any runner can take;
- ``run, 1 worker``: ``run_experiment`` on a local cluster of one worker: ``total``
  includes starting and stopping the cluster, ``tasks`` is first start to last finish
  of the folds in the store, ``CPU`` the CPU time of the driver, its workers and the
  fit processes (with cluster start-up), robust to the load of a shared machine;
  overhead = ours / bare - 1 (target <= 10 % on ~60 s CPU);
- ``1 worker, in-proc``: the same with ``isolate: false`` (fits in the worker, no fork);
- ``run, 2 workers``: speed-up = bare / ours (target >= 1.7x on 2 cores);
- ``noise``: median coefficient of variation of ``repeats`` fits of the same fold, per
  timed cost (``costs/noise.csv``).

Timings on a shared machine vary with its load: quote them with the load average printed.

Run::

    .venv/bin/python benchmarks/bench_run.py [--scale 1] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np
import pandas as pd

ALGORITHMS = {
    "nb": ("sklearn.naive_bayes.GaussianNB", {}),
    "logreg": ("sklearn.linear_model.LogisticRegression", {"max_iter": 500}),
    "knn": ("sklearn.neighbors.KNeighborsClassifier", {"n_neighbors": 5}),
    "tree": ("sklearn.tree.DecisionTreeClassifier", {"random_state": 0}),
    "forest": ("sklearn.ensemble.RandomForestClassifier",
               {"n_estimators": 60, "random_state": 0}),
}


def write_workload(folder, scale, n_datasets=3):
    from sklearn.datasets import make_classification

    entries = []
    for i in range(n_datasets):
        X, y = make_classification(n_samples=int(1500 * scale), n_features=30,
                                   n_informative=10, n_classes=3, random_state=i)
        frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
        path = os.path.join(folder, f"synthetic{i}.csv")
        frame.to_csv(path, index=False)
        entries.append(f"  - csv: {os.path.basename(path)}\n    target: y")
    algorithms = "\n".join(f"  {name}: {json.dumps({'estimator': e, 'params': p})}"
                           for name, (e, p) in ALGORITHMS.items())
    text = ("datasets:\n" + "\n".join(entries) + f"\nalgorithms:\n{algorithms}\n"
            "cv: {replications: 5, folds: 2, seed: 0}\nrepeats: REPEATS\n")
    return text


def bare_loop(experiment):
    """The plainest correct loop: same folds, same learners, single-threaded."""
    from sklearn.base import clone
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import StratifiedKFold
    from threadpoolctl import threadpool_limits

    from multitest.run._experiment import import_estimator, load_dataset

    data = [load_dataset(experiment, i) for i in range(len(experiment.datasets))]
    start, cpu = time.perf_counter(), time.process_time()
    errors = {}
    with threadpool_limits(limits=1):
        for spec, (X, y) in zip(experiment.datasets, data):
            for replication in range(1, experiment.replications + 1):
                seed = int(np.random.SeedSequence([experiment.seed, replication])
                           .generate_state(1)[0])
                splits = StratifiedKFold(experiment.folds, shuffle=True, random_state=seed)
                for fold, (train, test) in enumerate(splits.split(X, y), start=1):
                    for algorithm in experiment.algorithms:
                        model = clone(import_estimator(algorithm.estimator)(**algorithm.params))
                        model.fit(X[train], y[train])
                        errors[spec.name, algorithm.name, replication, fold] = \
                            1 - accuracy_score(y[test], model.predict(X[test]))
    return time.perf_counter() - start, time.process_time() - cpu, errors


def runner(path, out, workers):
    from multitest.run import run_experiment
    from multitest.run._store import Store

    start, cpu = time.perf_counter(), _cpu()
    run_experiment(path, out, workers=workers, show_progress=False)
    total, cpu = time.perf_counter() - start, _cpu() - cpu
    with Store(os.path.join(out, "store.sqlite")) as store:
        frame = store.frame()
    tasks = frame["finished"].max() - frame["started"].min()
    return total, tasks, cpu, frame


def _cpu():
    """CPU seconds of this process and of its reaped descendants (the local cluster's
    workers and the fit processes they forked): robust to the load of a shared machine."""
    import resource

    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=8.0,
                        help="examples x 1500 per data set (default 8: about 60 s of CPU)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="fits of the same fold for the noise row (default 5)")
    args = parser.parse_args(argv)
    from multitest.run import load_experiment

    with tempfile.TemporaryDirectory(prefix="bench-run-") as folder:
        text = write_workload(folder, args.scale)
        plain = os.path.join(folder, "experiment.yaml")
        with open(plain, "w") as handle:
            handle.write(text.replace("REPEATS", "1"))
        noisy = os.path.join(folder, "noise.yaml")
        with open(noisy, "w") as handle:
            handle.write(text.replace("REPEATS", str(args.repeats)))
        load = os.getloadavg()
        bare_wall, bare_cpu, bare_errors = bare_loop(load_experiment(plain))
        one_total, one_tasks, one_cpu, frame = runner(plain, os.path.join(folder, "w1"), 1)
        ours = {tuple(k): e for k, e in zip(frame[["dataset", "algorithm", "replication",
                                                   "fold"]].itertuples(index=False),
                                            frame["loss"])}
        same = all(abs(ours[k] - e) < 1e-12 for k, e in bare_errors.items())
        inproc = os.path.join(folder, "inprocess.yaml")
        with open(inproc, "w") as handle:
            handle.write(text.replace("REPEATS", "1") + "isolate: false\n")
        in_total, in_tasks, in_cpu, _ = runner(inproc, os.path.join(folder, "in"), 1)
        two_total, two_tasks, _, _ = runner(plain, os.path.join(folder, "w2"), 2)
        runner(noisy, os.path.join(folder, "noise"), 2)
        noise = pd.read_csv(os.path.join(folder, "noise", "costs", "noise.csv"))
        load_after = os.getloadavg()
    n_folds = len(bare_errors)
    print(f"workload: {n_folds} folds ({len(ALGORITHMS)} learners, 3 data sets of "
          f"{int(1500 * args.scale)} examples, 5x2 cv); bare loop CPU {bare_cpu:.1f} s; "
          f"errors identical to the bare loop: {same}")
    print(f"load average before/after: {load[0]:.2f} / {load_after[0]:.2f} on "
          f"{os.cpu_count()} CPUs")
    print(f"{'case':<18}{'total (s)':>10}{'tasks (s)':>11}{'CPU (s)':>9}  vs bare loop")
    print(f"{'bare loop':<18}{bare_wall:>10.2f}{bare_wall:>11.2f}{bare_cpu:>9.2f}")
    print(f"{'run, 1 worker':<18}{one_total:>10.2f}{one_tasks:>11.2f}{one_cpu:>9.2f}  overhead "
          f"{one_total / bare_wall - 1:+.1%} total, {one_tasks / bare_wall - 1:+.1%} tasks, "
          f"{one_cpu / bare_cpu - 1:+.1%} CPU (target <= +10 % at ~60 s CPU)")
    print(f"{'1 worker, in-proc':<18}{in_total:>10.2f}{in_tasks:>11.2f}{in_cpu:>9.2f}  overhead "
          f"{in_total / bare_wall - 1:+.1%} total, {in_tasks / bare_wall - 1:+.1%} tasks, "
          f"{in_cpu / bare_cpu - 1:+.1%} CPU (isolate: false)")
    print(f"{'run, 2 workers':<18}{two_total:>10.2f}{two_tasks:>11.2f}  speed-up "
          f"{bare_wall / two_total:.2f}x total, {bare_wall / two_tasks:.2f}x tasks "
          "(target >= 1.7x)")
    fits = (frame["fit_cpu_time"] + frame["predict_cpu_time"]).sum()
    print(f"1 worker: CPU of fit + predict as measured {fits:.2f} s; the rest, "
          f"{one_cpu - fits:.2f} s, is the runner (cluster, driver, scheduling, measuring): "
          f"{(one_cpu - fits) / n_folds * 1000:.0f} ms per fold")
    summary = noise.groupby("measure")["cv"].median()
    print(f"noise ({args.repeats} fits of the first fold of each data set x learner, "
          "median coefficient of variation): "
          + ", ".join(f"{m} {summary[m]:.1%}" for m in summary.index))
    return 0


if __name__ == "__main__":
    sys.exit(main())
