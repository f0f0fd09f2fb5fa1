"""The runner's fixed cost and 200 small fits against a bare loop (issue 20, item 5).

Workload: two seeded synthetic CSV data sets (``make_classification``, ``--examples``
rows x 20 features, 3 classes) and ten ``DecisionTreeClassifier`` learners (``max_depth``
1 to 10) under 5x2 stratified cross-validation: 2 x 10 x 10 = 200 folds.  The bare loop
fits each once; ``multitest run`` fits the first fold of each (data set, learner)
``repeats`` times for the noise of the costs: 240 fits with the default (``repeats: 3``,
what a user gets), the same 200 fits as the bare loop with ``repeats: 1`` (``--repeats``
sets this second case).  Both are timed.

Cases, each a fresh process, alternated ``--runs`` times (medians):

- ``bare loop``: ``python`` running the plainest correct loop (this file, ``--bare``):
  import pandas and scikit-learn, read the two CSV files, then for every fold the
  runner's ``StratifiedKFold`` seeds, fit, predict, accuracy; single-threaded.  Wall
  time from start to exit: the imports a user pays either way are in it.  Its time per
  fit (fit + predict, wall clock and CPU, out of 200) is printed: ``--examples`` sets it (4000:
  ~20 ms on a quiet machine; 500: the tiny-fit case, ~2 ms, which no process pool can
  pay for).  Its own **start to first fit** (imports and reading) is the floor any
  runner pays.
- ``run, N fits``: ``python -m multitest.cli run EXPERIMENT --out DIR --workers 2``,
  wall time from start to exit; and its fixed cost, **start to first fit**: the
  earliest ``started`` of the folds in its store (when the first fold was begun, in the
  driver's own fit process or a worker's) minus the time the process was started;
  ``added``: that minus the bare loop's start to first fit in the same alternation (the
  part the runner adds).
- ``reference`` (``--reference CHECKOUT``): the same two runs from another checkout
  (``PYTHONPATH``), alternated with ours in the same minute.

``CPU`` is the CPU time of the case's process and every process it started (workers,
fit processes), robust to the load of the shared machine where wall times are not.

The errors of every fold of ``multitest run`` are checked equal to the bare loop's.

Run::

    .venv/bin/python benchmarks/bench_runner.py [--runs 5] [--reference /path/to/checkout]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import in_checkout  # (children run with their bytecode cached, as installed)

ROOT = Path(__file__).resolve().parent.parent
DEPTHS = range(1, 11)


def write_workload(folder, examples):
    """Write the two CSV data sets; the `datasets:` section of the experiment file."""
    import pandas as pd
    from sklearn.datasets import make_classification

    entries = []
    for i in range(2):
        X, y = make_classification(n_samples=examples, n_features=20, n_informative=8,
                                   n_classes=3, random_state=i)
        frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]).assign(y=y)
        frame.to_csv(os.path.join(folder, f"synthetic{i}.csv"), index=False)
        entries.append(f"  - csv: synthetic{i}.csv\n    target: y")
    return "datasets:\n" + "\n".join(entries)


def write_experiment(folder, datasets, repeats=None):
    """The experiment file of the workload (`repeats`: None, the default); its path."""
    learners = "\n".join(f"  tree{d}: {{estimator: sklearn.tree.DecisionTreeClassifier, "
                         f"params: {{max_depth: {d}, random_state: 0}}}}" for d in DEPTHS)
    path = os.path.join(folder, f"experiment-{repeats or 'default'}.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(datasets + f"\nalgorithms:\n{learners}\n"
                     "cv: {replications: 5, folds: 2, seed: 0}\n"
                     + ("" if repeats is None else f"repeats: {repeats}\n"))
    return path


def bare(folder, out):
    """The bare loop (in its own process): imports, reading, 200 fits; errors to `out`."""
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier
    from threadpoolctl import threadpool_limits

    errors, fits, fits_cpu, first = {}, 0.0, 0.0, None
    with threadpool_limits(limits=1):
        for i in range(2):
            frame = pd.read_csv(os.path.join(folder, f"synthetic{i}.csv"))
            X, y = frame.drop(columns="y").to_numpy(float), frame["y"].to_numpy()
            for replication in range(1, 6):
                seed = int(np.random.SeedSequence([0, replication]).generate_state(1)[0])
                splits = StratifiedKFold(2, shuffle=True, random_state=seed)
                for fold, (train, test) in enumerate(splits.split(X, y), start=1):
                    for depth in DEPTHS:
                        begin, begin_cpu = time.perf_counter(), time.process_time()
                        first = first or time.time()
                        model = DecisionTreeClassifier(max_depth=depth, random_state=0)
                        model.fit(X[train], y[train])
                        predicted = model.predict(X[test])
                        fits += time.perf_counter() - begin
                        fits_cpu += time.process_time() - begin_cpu
                        errors[f"synthetic{i}|tree{depth}|{replication}|{fold}"] = \
                            1 - float(np.mean(predicted == y[test]))
    with open(out, "w", encoding="utf-8") as handle:
        json.dump({"errors": errors, "fit_seconds": fits, "fit_cpu_seconds": fits_cpu,
                   "first": first}, handle)


def _cpu():
    """CPU seconds of the reaped descendants: the case's process, its workers and fits."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_bare(folder):
    out = os.path.join(folder, "bare.json")
    start, cpu = time.time(), _cpu()
    subprocess.run([sys.executable, __file__, "--bare", folder, out], check=True)
    wall, cpu, found = time.time() - start, _cpu() - cpu, _load(out)
    return {"wall": wall, "cpu": cpu, "fits": found["fit_seconds"],
            "fits_cpu": found["fit_cpu_seconds"], "first": found["first"] - start}, \
        found["errors"]


def time_run(experiment, checkout, name):
    out = os.path.join(os.path.dirname(experiment), name)
    start, cpu = time.time(), _cpu()
    subprocess.run([sys.executable, "-m", "multitest.cli", "run", experiment, "--out", out,
                    "--workers", "2"],
                   check=True, stdout=subprocess.DEVNULL, **in_checkout(checkout))
    wall, cpu = time.time() - start, _cpu() - cpu
    with sqlite3.connect(os.path.join(out, "store.sqlite")) as db:
        first = db.execute("SELECT MIN(started) FROM folds").fetchone()[0]
        errors = {f"{d}|{a}|{r}|{f}": loss for d, a, r, f, loss in
                  db.execute("SELECT dataset, algorithm, replication, fold, loss FROM folds")}
    subprocess.run(["rm", "-rf", out], check=True)
    return {"wall": wall, "cpu": cpu, "first": first - start}, errors


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            cpu = next(line.split(":", 1)[1].strip() for line in handle
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.node()}, {os.cpu_count()} CPUs, {cpu}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="alternations (default 5)")
    parser.add_argument("--examples", type=int, default=4000,
                        help="rows per data set (default 4000)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="fits of the first fold of each (data set, learner) in the second "
                             "run case (default 1: the bare loop's 200 fits; the first run "
                             "case keeps the experiment's default, 3: 240 fits)")
    parser.add_argument("--reference", type=Path, help="another checkout to alternate with")
    parser.add_argument("--bare", nargs=2, metavar=("FOLDER", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bare:
        bare(*args.bare)
        return 0
    checkouts = {"run": ROOT} | ({"reference": args.reference.resolve()} if args.reference
                                 else {})
    times, same = {}, True
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as folder:
        datasets = write_workload(folder, args.examples)
        cases = {"bare loop": lambda: time_bare(folder)}
        for repeats in (None, args.repeats):
            experiment = write_experiment(folder, datasets, repeats)
            fits = 200 + 20 * ((3 if repeats is None else repeats) - 1)
            for label, checkout in checkouts.items():
                cases[f"{label}, {fits} fits"] = \
                    lambda e=experiment, c=checkout, n=f"{label}-{fits}": time_run(e, c, n)
        times = {name: [] for name in cases}
        for _ in range(args.runs):
            results = {}
            for name, case in cases.items():
                timing, results[name] = case()
                times[name].append(timing)
            for name in cases:      # the part of start to first fit the runner adds
                times[name][-1]["added"] = times[name][-1]["first"] - \
                    times["bare loop"][-1]["first"]
            reference = results["bare loop"]
            same &= all(all(abs(errors[k] - reference[k]) < 1e-12 for k in reference)
                        and len(errors) == len(reference) for errors in results.values())
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {machine()}; "
          f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"200 folds (10 decision trees x 2 data sets of {args.examples} x 20 x 5x2 cv; "
          "the bare loop fits each once, a run makes 200 + 20 x (repeats - 1) fits: the "
          "first fold of each (data set, learner) repeats times for the noise of the costs), "
          f"medians of {args.runs} alternated runs; errors identical to the bare loop: {same}")
    bare_wall = statistics.median(t["wall"] for t in times["bare loop"])
    fit_ms, fit_cpu_ms = (1000 * statistics.median(t[k] for t in times["bare loop"]) / 200
                          for k in ("fits", "fits_cpu"))
    print(f"bare loop: {fit_ms:.1f} ms wall, {fit_cpu_ms:.1f} ms CPU per fit (fit + predict, "
          "median of runs)")
    print(f"{'case':<22}{'total (s)':>10}{'CPU (s)':>9}{'first fit (s)':>15}{'added (s)':>11}"
          "  bare / case")
    for name, timings in times.items():
        wall, cpu, first, added = (statistics.median(t[k] for t in timings)
                                   for k in ("wall", "cpu", "first", "added"))
        print(f"{name:<22}{wall:>10.2f}{cpu:>9.2f}{first:>15.2f}{added:>11.2f}  "
              f"{bare_wall / wall:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
