"""Issue 20 (scale): the Done-when comparisons side by side, in one run.

Every comparison alternates its two sides (A, B, A, B, ...) in fresh child
processes and prints the medians and their ratio, so that a loaded machine
inflates both alike; the header gives the date, the machine and the load.

Groups (``--only``):

- ``stage1``: stage 1's decisions (``run_pairwise_tests(..., keep=False)``,
  combined 5x2 cv F, S = 10000 x L = 100, 49.5 M tests) against the minimal
  Gram-matrix prototype (``gram_prototype.py``, one thread) and against the
  per-pair decision path of 0.2.0 (the same entry without its
  ``all_pairs_decision``); the decisions of the three are compared.
- ``read``: ``load_results`` of the CSV (every check) against a bare
  ``pandas.read_csv`` of the same file, and of the same rows as Parquet (needs
  pyarrow, the parquet extra).
- ``e2e``: ``multitest rank`` end to end against ``pandas.read_csv`` alone
  (both as fresh programs), S = 10000 x L = 100; target <= 2.5x.
- ``curve``: ``multitest rank`` per test from 10^5 tests up to ``--max-tests``
  (default 5 x 10^7; 5 x 10^8 needs about 8 GB), including S = 100 x L = 200
  and S = 1000 x L = 20 (the over-data-sets intervals), each size alternated
  with a bare ``pandas.read_csv`` of the same file (medians; the ratio shows
  the load of the minute); target: from 10^6 tests up, every size within
  1.5x of the median time per test.
- ``report``: ``--format svg --report`` at S = 1000 x L = 20 against the same
  ``rank`` without figures; target <= 5x.

Not measured here (not built on this branch): ``rank`` on a Dask cluster at
10^9 tests, and the runner's fixed cost (``bench_run.py`` measures the runner).

Run::

    .venv/bin/python benchmarks/bench_scale.py [--runs 3] [--only stage1,read] [--quick]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import load_average, median, multitest_program, python_child, timed_command  # noqa: E402,E501

_STAGE1 = r"""
import dataclasses, json, sys, time
import numpy as np
from synthetic import algorithm_names, cost_order, make_errors
from gram_prototype import prototype_overrides
from multitest import get_test
from multitest.engine import prior_positions, run_pairwise_tests
from multitest.inputs import FoldDesign
S, L, side = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
errors = make_errors(S, L)
names = algorithm_names(L)
position = {a: i for i, a in enumerate(cost_order(L))}
prior = prior_positions(np.tile([float(position[a]) for a in names], (S, 1))[None], names)
test = get_test("combined-5x2cv-f")
if side == "per-pair":
    test = dataclasses.replace(test, all_pairs_decision=None)
start = time.perf_counter()
if side == "prototype":
    override = prototype_overrides(errors, prior)
else:
    override = run_pairwise_tests(errors, prior, test, FoldDesign(5, 2), alpha=0.05,
                                  correction="none", alternative="two-sided",
                                  keep=False).override
took = time.perf_counter() - start
np.save(sys.argv[4], np.packbits(override))
print(json.dumps({"s": took}))
"""

_READ = r"""
import json, resource, sys, time
import pandas as pd
path, side = sys.argv[1], sys.argv[2]
if side == "pandas.read_csv":
    start = time.perf_counter(); pd.read_csv(path)
else:
    from multitest import load_results
    start = time.perf_counter(); load_results(path)
print(json.dumps({"s": time.perf_counter() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _alternate(a, b, runs):
    """Medians of ``a()`` and ``b()`` (each returns seconds), run alternately."""
    times = {"a": [], "b": []}
    for _ in range(runs):
        times["a"].append(a())
        times["b"].append(b())
    return median(times["a"]), median(times["b"])


#: Set by --quick: sizes are not those of the targets, which are then not judged.
QUICK = False


def _row(case, a_name, a, b_name, b, target=None, ok=None, note=""):
    ratio = a / b if b else float("nan")
    ok = None if QUICK else ok
    verdict = "" if ok is None else ("  met" if ok else "  NOT met")
    print(f"{case:<34} {a_name} {a:8.3f} s | {b_name} {b:8.3f} s | ratio {ratio:5.2f}x"
          f"{'' if target is None else '  target ' + target}{verdict}  {note}", flush=True)


def stage1(workdir, runs, quick):
    S, L = (1000, 100) if quick else (10000, 100)
    out = {side: workdir / f"{side}.npy" for side in ("ours", "prototype", "per-pair")}

    def side(name):
        return lambda: python_child(_STAGE1, S, L, name, out[name])["s"]
    ours, proto = _alternate(side("ours"), side("prototype"), runs)
    _, per_pair = _alternate(lambda: 0.0, side("per-pair"), max(1, runs // 2))
    import numpy as np
    same = np.array_equal(np.load(out["ours"]), np.load(out["prototype"])) and \
        np.array_equal(np.load(out["ours"]), np.load(out["per-pair"]))
    tests = S * L * (L - 1) // 2
    _row(f"stage 1 decisions S={S} L={L}", "ours", ours, "Gram prototype", proto, "<= 1.2x",
         ours <= 1.2 * proto,
         f"{tests / 1e6:.1f} M tests; per-pair path of 0.2.0 {per_pair:.3f} s "
         f"({per_pair / ours:.1f}x ours); decisions identical: {same}")


_WRITE = r"""
import json, sys
import pandas as pd
from synthetic import write_csv
path, S, L = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
order = write_csv(path, S, L)
if len(sys.argv) > 4:
    pd.read_csv(path).to_parquet(sys.argv[4], index=False)
print(json.dumps({"order": ",".join(order)}))
"""


def _csv(workdir, S, L, parquet=False):
    """The synthetic CSV (and Parquet) file and its cost order, written by a child: a
    child's peak memory counts its parent's (Linux keeps ru_maxrss across exec)."""
    path = workdir / f"r_{S}x{L}.csv"
    order_file = path.with_suffix(".order")
    if not path.exists() or (parquet and not path.with_suffix(".parquet").exists()):
        extra = [path.with_suffix(".parquet")] if parquet else []
        order_file.write_text(python_child(_WRITE, path, S, L, *extra)["order"])
    return path, order_file.read_text()


def read(workdir, runs, quick):
    S, L = (1000, 100) if quick else (10000, 100)
    csv, _ = _csv(workdir, S, L, parquet=True)
    peaks = []

    def ours(path):
        def run():
            result = python_child(_READ, path, "load_results")
            peaks.append(result["peak_mb"])
            return result["s"]
        return run

    def pandas():
        return python_child(_READ, csv, "pandas.read_csv")["s"]
    a, b = _alternate(ours(csv), pandas, runs)
    _row(f"read CSV S={S} ({S * L * 10 / 1e6:g} M rows)", "load_results", a,
         "pandas.read_csv", b, "<= 1x", a <= b,
         f"peak {min(peaks):.0f}-{max(peaks):.0f} MB (ours, over the runs)")
    parquet = csv.with_suffix(".parquet")
    peaks.clear()
    a, b = _alternate(ours(parquet), pandas, runs)
    _row("read Parquet (same rows)", "load_results", a, "pandas.read_csv", b, "< 1x", a < b,
         f"peak {min(peaks):.0f}-{max(peaks):.0f} MB (ours, over the runs)")


def _rank(csv, order, out, *extra):
    shutil.rmtree(out, ignore_errors=True)
    result = timed_command([multitest_program(), "rank", csv, "--order", order, "--out", out,
                            *extra], timeout=3600)
    if result["returncode"] != 0:
        raise RuntimeError(f"multitest rank failed: {result['stderr']}")
    return result


def e2e(workdir, runs, quick):
    S, L = (1000, 100) if quick else (10000, 100)
    csv, order = _csv(workdir, S, L)
    peaks = []

    def ours():
        result = _rank(csv, order, workdir / "out")
        peaks.append(result["peak_mb"])
        return result["wall_s"]

    a, b = _alternate(ours, lambda: _pandas_read(csv), runs)
    _row(f"rank end to end S={S} L={L}", "multitest rank", a, "pandas.read_csv", b,
         "<= 2.5x", a <= 2.5 * b, f"peak {max(peaks):.0f} MB; both fresh programs")


def _pandas_read(csv):
    return timed_command([sys.executable, "-c", "import sys, pandas; "
                          "pandas.read_csv(sys.argv[1])", csv])["wall_s"]


def curve(workdir, runs, quick, max_tests):
    """Per test cost of ``multitest rank`` by size, each size alternated with a bare
    ``pandas.read_csv`` of the same file (so that the load of the minute shows)."""
    sizes = [(20, 100), (100, 100), (1000, 20), (100, 200), (1000, 100), (100, 300),
             (2000, 100), (10000, 100), (20000, 100), (100000, 100)]
    rows = []
    for S, L in sizes:
        tests = S * L * (L - 1) // 2
        if tests > (1e6 if quick else max_tests):
            continue
        csv, order = _csv(workdir, S, L)
        wall, reference = _alternate(lambda: _rank(csv, order, workdir / "out")["wall_s"],
                                     lambda: _pandas_read(csv), runs)
        rows.append((S, L, tests, wall, reference))
        if S * L > 2e5:
            csv.unlink()
            csv.with_suffix(".order").unlink()
    judged = [wall / tests for S, L, tests, wall, _ in rows if tests >= 1e6]
    middle = median(judged) if judged else float("nan")
    for S, L, tests, wall, reference in rows:
        per = wall / tests
        mark = "" if tests < 1e6 or QUICK else ("  within 1.5x" if per <= 1.5 * middle
                                       else "  NOT within 1.5x")
        print(f"curve S={S:<6} L={L:<5} {tests:>12,} tests {wall:8.2f} s "
              f"{1e9 * per:9.1f} ns/test{mark}  | pandas.read_csv {reference:7.2f} s, "
              f"ratio {wall / reference:5.2f}x", flush=True)
    if judged:
        print(f"curve: median {1e9 * middle:.1f} ns/test from 10^6 tests; largest / median "
              f"{max(judged) / middle:.2f}x, smallest / median {min(judged) / middle:.2f}x",
              flush=True)


def report(workdir, runs, quick):
    S, L = (200, 20) if quick else (1000, 20)
    csv, order = _csv(workdir, S, L)
    a, b = _alternate(
        lambda: _rank(csv, order, workdir / "out", "--format", "svg", "--report")["wall_s"],
        lambda: _rank(csv, order, workdir / "out")["wall_s"], runs)
    _row(f"report S={S} L={L}", "--format svg --report", a, "rank alone", b, "<= 5x",
         a <= 5 * b)


GROUPS = ("stage1", "read", "e2e", "curve", "report")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(GROUPS))
    parser.add_argument("--quick", action="store_true", help="small sizes, targets not judged")
    parser.add_argument("--max-tests", type=float, default=5e7)
    args = parser.parse_args(argv)
    global QUICK
    QUICK = args.quick
    print(f"# bench_scale {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"{platform.node()}, {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}"
          f", Python {platform.python_version()}; load average {load_average()}; medians of "
          f"{args.runs} alternated runs", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        workdir = Path(tmp)
        for group in args.only.split(","):
            if group == "curve":
                curve(workdir, args.runs, args.quick, args.max_tests)
            else:
                globals()[group](workdir, args.runs, args.quick)
    print(f"# load average at the end {load_average()}")


if __name__ == "__main__":
    main()
