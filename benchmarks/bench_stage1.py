"""Stage 1 (every pairwise test on every data set) against a per-pair SciPy loop.

S = 1000 data sets x L = 100 algorithms x 10 folds (5x2 cv): 4,950,000 tests.
Ours is :func:`multitest.engine._stage1.run_pairwise_tests` on all of them; the
baseline is :func:`baseline.stage1_loop`, one SciPy call per pair.  The full
baseline would take minutes per run, so it runs on the first ``SUBSET`` data
sets and its time is scaled linearly to S (the pairs of every data set cost
the same); the decisions (override or not) of the two are compared on every
pair of that subset and must be identical, and the largest relative
difference of the p-values is reported.

Both sides run in child processes of their own, timing ``runs`` calls each
(median reported); ours reports its peak resident memory (interpreter,
inputs, the (S, P) result arrays and stage 1's working memory).

The scaling curve (:func:`curve`): stage 1 alone (``run_pairwise_tests``, the
combined 5x2 cv F test) from 10^5 to 5 x 10^7 tests, L = 100 and S from 20 to
10,000, plus L = 1000 at S = 100; each size in a child process of its own
(median of 3 runs below 10^7 tests, 1 above).  Linear means a constant time per
test: the target is that from 10^6 tests up every size is within 1.5x of the
median time per test (below, fixed costs dominate and are shown, not judged).

Run::

    .venv/bin/python benchmarks/bench_stage1.py [--quick]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import median, python_child  # noqa: E402

S, L = 1000, 100
SUBSET = 10
RUNS = 3
TESTS = ("combined-5x2cv-f", "kfold-t")
FAIL = "FAIL"

_SETUP = r"""
import json, resource, sys, time
import numpy as np
from synthetic import algorithm_names, cost_order, make_errors
from multitest.engine._per_dataset import prior_positions
S, L, runs, test_name, subset, out = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                      sys.argv[4], int(sys.argv[5]), sys.argv[6])
errors = make_errors(S, L)
names = algorithm_names(L)
position = {a: i for i, a in enumerate(cost_order(L))}
keys = np.tile([float(position[a]) for a in names], (S, 1))[None]
prior = prior_positions(keys, names)
"""

_OURS = _SETUP + r"""
from multitest.inputs import FoldDesign
from multitest import get_test
from multitest.engine._stage1 import run_pairwise_tests
test = get_test(test_name)
times = []
for _ in range(runs):
    start = time.perf_counter()
    table = run_pairwise_tests(errors, prior, test, FoldDesign(5, 2), alpha=0.05,
                               correction="none", alternative="two-sided")
    times.append(time.perf_counter() - start)
np.savez(out, statistic=table.statistic[:subset], pvalue=table.pvalue[:subset],
         override=table.override[:subset], prior=prior[:subset])
print(json.dumps({"times": times, "n_tests": int(table.n_tests),
                  "overrides": int(table.override.sum()),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_BASELINE = _SETUP + r"""
from baseline import stage1_loop
times = []
for _ in range(runs):
    start = time.perf_counter()
    statistic, pvalue, override = stage1_loop(errors, prior, test_name, datasets=range(subset))
    times.append(time.perf_counter() - start)
np.savez(out, statistic=statistic, pvalue=pvalue, override=override)
print(json.dumps({"times": times, "n_tests": int(override.size),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _case(test, n_datasets, n_algorithms, runs, subset, workdir):
    ours_file, base_file = workdir / f"ours_{test}.npz", workdir / f"base_{test}.npz"
    ours = python_child(_OURS, n_datasets, n_algorithms, runs, test, subset, ours_file)
    base = python_child(_BASELINE, n_datasets, n_algorithms, runs, test, subset, base_file)
    ours_s = median(ours["times"])
    base_subset_s = median(base["times"])
    base_s = base_subset_s * n_datasets / subset
    with np.load(ours_file) as o, np.load(base_file) as b:
        same = np.array_equal(o["override"], b["override"])
        differ = int((o["override"] != b["override"]).sum())
        p_o, p_b = o["pvalue"], b["pvalue"]
        rel = float(np.max(np.abs(p_o - p_b) / np.maximum(np.abs(p_b), 1e-300)))
    note = (f"{ours['n_tests']:,} tests, {ours['overrides']:,} overrides; baseline "
            f"{base_subset_s:.2f} s on {subset} of {n_datasets} data sets "
            f"({base['n_tests']:,} pairs) x {n_datasets / subset:g}; decisions on those "
            f"pairs {'identical' if same else f'{FAIL}: {differ} differ'}, max rel. "
            f"p-value difference {rel:.1e}; medians of {runs} runs")
    return {"case": f"stage 1 {test} S={n_datasets} L={n_algorithms}", "ours_s": ours_s,
            "baseline_s": base_s, "ratio": base_s / ours_s, "peak_mb": ours["peak_mb"],
            "target": ">= 100x", "ok": same and base_s / ours_s >= 100, "note": note}


CURVE_SIZES = ((20, 100), (50, 100), (200, 100), (500, 100), (1000, 100), (2000, 100),
               (5000, 100), (10000, 100), (100, 1000))
QUICK_CURVE_SIZES = ((20, 100), (100, 100), (500, 100), (10, 300))


def curve(quick=False):
    """Rows of the stage-1 scaling curve (see the module docstring)."""
    points = []
    with tempfile.TemporaryDirectory() as tmp:
        for S, L in (QUICK_CURVE_SIZES if quick else CURVE_SIZES):
            n = S * L * (L - 1) // 2
            child = python_child(_OURS, S, L, 3 if n < 10 ** 7 else 1, "combined-5x2cv-f", 0,
                                 Path(tmp) / "curve.npz")
            points.append((S, L, n, median(child["times"]), child["peak_mb"]))
    judged = [t / n for _, _, n, t, _ in points if n >= 10 ** 6]
    typical = median(judged) if judged else None
    rows = []
    for S, L, n, t, peak in points:
        per_test = t / n
        ok = None if n < 10 ** 6 or quick else per_test <= 1.5 * typical and \
            per_test >= typical / 1.5
        rows.append({"case": f"stage 1 curve {n:,} tests (S={S} L={L})", "ours_s": t,
                     "baseline_s": None, "ratio": None, "peak_mb": peak,
                     "target": "linear" if n >= 10 ** 6 else None, "ok": ok,
                     "note": f"{per_test * 1e9:.0f} ns per test"
                             + (f" ({per_test / typical:.2f}x the median from 10^6 up)"
                                if typical else "")})
    return rows


def cases(quick=False, runs=RUNS):
    """Benchmark rows (see ``run.py``): one per test of :data:`TESTS`."""
    n_datasets = 100 if quick else S
    subset = 2 if quick else SUBSET
    runs = 1 if quick else runs
    with tempfile.TemporaryDirectory() as tmp:
        return [_case(test, n_datasets, L, runs, subset, Path(tmp)) for test in TESTS]


if __name__ == "__main__":
    from run import format_table

    rows = cases(quick="--quick" in sys.argv)
    print(format_table(rows))
    sys.exit(1 if any(FAIL in row["note"] for row in rows) else 0)
