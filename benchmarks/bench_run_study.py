"""``multitest run`` on a realistic study, this checkout against another (issue 39).

Workload: 6 scikit-learn learners (GaussianNB, LogisticRegression, DecisionTree,
KNeighbors, RandomForest of 50 trees, SVC) x 6 data sets (the four bundled ones, breast
cancer, digits, iris and wine, and two seeded synthetic CSV files of ``--examples`` rows x
20 features) x 5x2 stratified cross-validation: 360 folds, the experiment's default
``repeats: 3``.  Each case is ``python -m multitest.cli run EXPERIMENT --out DIR --workers
2`` in a fresh process, wall time from start to exit; ``CPU`` is the CPU time of the
process and of everything it started.  The two checkouts alternate ``--runs`` times in
the same minutes (medians); the errors of every fold are checked equal between them.

Run::

    .venv/bin/python benchmarks/bench_run_study.py --reference /path/to/checkout [--runs 3]
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench_runner import machine, time_run, write_workload

ROOT = Path(__file__).resolve().parent.parent
LEARNERS = {"nb": "sklearn.naive_bayes.GaussianNB: {}",
            "logistic": "sklearn.linear_model.LogisticRegression: {max_iter: 1000}",
            "tree": "sklearn.tree.DecisionTreeClassifier: {random_state: 0}",
            "knn": "sklearn.neighbors.KNeighborsClassifier: {}",
            "forest": "sklearn.ensemble.RandomForestClassifier: {n_estimators: 50, "
                      "random_state: 0}",
            "svc": "sklearn.svm.SVC: {}"}
BUNDLED = ("breast_cancer", "digits", "iris", "wine")


def write_study(folder, examples):
    """Write the two CSV data sets and the experiment file; the file's path."""
    datasets = write_workload(folder, examples) + "".join(f"\n  - sklearn: {name}"
                                                          for name in BUNDLED)
    learners = []
    for name, entry in LEARNERS.items():
        estimator, params = entry.split(": ", 1)
        learners.append(f"  {name}: {{estimator: {estimator}, params: {params}}}")
    path = os.path.join(folder, "study.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(datasets + "\nalgorithms:\n" + "\n".join(learners)
                     + "\ncv: {replications: 5, folds: 2, seed: 0}\n")
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="alternations (default 3)")
    parser.add_argument("--examples", type=int, default=2000,
                        help="rows per synthetic data set (default 2000)")
    parser.add_argument("--reference", type=Path, required=True,
                        help="the checkout to alternate with (A)")
    args = parser.parse_args(argv)
    checkouts = {"reference (A)": args.reference.resolve(), "this checkout (B)": ROOT}
    times = {name: [] for name in checkouts}
    same = True
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-study-") as folder:
        experiment = write_study(folder, args.examples)
        for run in range(args.runs):
            errors = {}
            for name, checkout in checkouts.items():
                timing, errors[name] = time_run(experiment, checkout, f"out-{run}")
                times[name].append(timing)
                print(f"run {run + 1}, {name}: {timing['wall']:.2f} s, CPU "
                      f"{timing['cpu']:.2f} s", flush=True)
            first, *others = errors.values()
            same &= all(other.keys() == first.keys() and all(
                abs(other[k] - first[k]) < 1e-12 for k in first) for other in others)
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {machine()}; "
          f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"6 learners x 6 data sets x 5x2 cv (360 folds, repeats 3), --workers 2, medians "
          f"of {args.runs} alternated runs; errors identical: {same}")
    walls = {name: statistics.median(t["wall"] for t in timings)
             for name, timings in times.items()}
    for name, timings in times.items():
        cpu = statistics.median(t["cpu"] for t in timings)
        print(f"{name:<20}{walls[name]:>8.2f} s  CPU {cpu:.2f} s")
    a, b = walls.values()
    print(f"B / A wall time: {b / a:.2f} (above 1: A is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
