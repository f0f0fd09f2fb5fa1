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
  ``pandas.read_csv`` of the same file, and of the same rows as Parquet (names as
  text, and as pandas categoricals; needs pyarrow, the parquet extra); the peak
  memory above the imports against the decoded arrays (target <= 1.5x); beside the CSV
  row, in the same alternation, pyarrow alone on the file (both CPUs, the reader's column
  types, no decoding, no checks): ``read_csv`` (the whole table at once, about 1.7x the
  decoded arrays in memory) and ``open_csv`` (a batch at a time): the floors of a reader
  on pyarrow's parser.
- ``e2e``: ``multitest rank`` end to end against ``pandas.read_csv`` alone
  (both as fresh programs), S = 10000 x L = 100; target <= 2.5x.
- ``curve``: ``multitest rank`` (read, rank, outputs, as the CLI does them) in a warm
  process, per test, from 10^5 tests up to ``--max-tests`` (default 5 x 10^7; 5 x 10^8,
  S = 10^5 x L = 100, needs about 8 GB), including S = 100 x L = 200 and S = 1000 x L = 20
  (the over-data-sets intervals): each size alternated with a base run of the same L
  above 20,000 pairwise results (:func:`base_datasets`), whose time (the work per pair
  of algorithms: second pass, explanations, overall figures) is the fixed part; the
  start-up of a fresh program is measured apart; beside each size, ``pandas.read_csv``
  of the same inputs alone, per test (the floor of reading them).  Target: every size
  within 1.5x of the median cost per test.
- ``report``: ``--format svg --report`` at S = 1000 x L = 20 against the same
  ``rank`` without figures; target <= 5x.
- ``cluster``, ``runner``: ``bench_cluster.py --runs 1`` (``rank --workers 2`` at 10^9
  tests, the client's peak memory) and ``bench_runner.py`` (the runner's fixed cost and
  200 small fits against a bare loop), run as programs of their own, output relayed.

``--issue20`` runs every group (the curve up to 5 x 10^8 tests) and prints the rows
together at the end; on a shared machine run it under the lock of large runs.

Run::

    .venv/bin/python benchmarks/bench_scale.py [--runs 3] [--only stage1,read] [--quick]
    .venv/bin/python benchmarks/bench_scale.py --issue20     # every done-when row, ~1 hour
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import subprocess
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
from multitest.engine._per_dataset import prior_positions
from multitest.engine._stage1 import run_pairwise_tests
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
if side != "pandas.read_csv":
    import pyarrow.compute, pyarrow.csv, pyarrow.parquet  # imported before the baseline
    from multitest import load_results
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if side == "pandas.read_csv":
    start = time.perf_counter(); pd.read_csv(path); rows = None
elif side.startswith("pyarrow"):    # the floors of a reader on pyarrow's parser
    from multitest.inputs._arrow_tables import csv_types   # the reader's column types
    types = csv_types({"dataset": "name", "algorithm": "name", "replication": "integer",
                       "fold": "integer", "error": "number"})
    convert = pyarrow.csv.ConvertOptions(column_types=types)
    start = time.perf_counter()
    if side == "pyarrow.csv.read_csv":       # the whole table at once
        rows = pyarrow.csv.read_csv(path, convert_options=convert).num_rows
    else:                                     # pyarrow.csv.open_csv: a batch at a time
        rows = sum(b.num_rows for b in pyarrow.csv.open_csv(path, convert_options=convert))
else:
    start = time.perf_counter(); rows = load_results(path).errors.size
print(json.dumps({"s": time.perf_counter() - start, "rows": rows,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base}))
"""
#: Bytes a row of the decoded arrays: the value as float64, the data set and algorithm
#: codes and the replication and fold numbers as int32.
DECODED_ROW_BYTES = 8 + 4 * 4


def _alternate(*sides, runs):
    """Medians of ``side()`` for each of ``sides`` (each returns seconds), run in turn."""
    times = [[] for _ in sides]
    for _ in range(runs):
        for side, taken in zip(sides, times):
            taken.append(side())
    return tuple(median(taken) for taken in times)


#: Set by --quick: sizes are not those of the targets, which are then not judged.
QUICK = False
#: The lines of every done-when row, printed together at the end of ``--issue20``.
SUMMARY = []


def _say(line):
    """Print a done-when row and keep it for the summary."""
    SUMMARY.append(line)
    print(line, flush=True)


def _row(case, a_name, a, b_name, b, target=None, ok=None, note=""):
    ratio = a / b if b else float("nan")
    ok = None if QUICK else ok
    verdict = "" if ok is None else ("  met" if ok else "  NOT met")
    _say(f"{case:<34} {a_name} {a:8.3f} s | {b_name} {b:8.3f} s | ratio {ratio:5.2f}x"
          f"{'' if target is None else '  target ' + target}{verdict}  {note}")


def stage1(workdir, runs, quick):
    S, L = (1000, 100) if quick else (10000, 100)
    out = {side: workdir / f"{side}.npy" for side in ("ours", "prototype", "per-pair")}

    def side(name):
        return lambda: python_child(_STAGE1, S, L, name, out[name])["s"]
    ours, proto = _alternate(side("ours"), side("prototype"), runs=runs)
    per_pair, = _alternate(side("per-pair"), runs=max(1, runs // 2))
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
if len(sys.argv) > 4:    # the same rows as Parquet: names as text, and as categoricals
    frame = pd.read_csv(path)
    frame.to_parquet(sys.argv[4], index=False)
    frame.astype({"dataset": "category", "algorithm": "category"}).to_parquet(
        sys.argv[5], index=False)
print(json.dumps({"order": ",".join(order)}))
"""


def _csv(workdir, S, L, parquet=False):
    """The synthetic CSV (and Parquet) file and its cost order, written by a child: a
    child's peak memory counts its parent's (Linux keeps ru_maxrss across exec)."""
    path = workdir / f"r_{S}x{L}.csv"
    order_file = path.with_suffix(".order")
    if not path.exists() or (parquet and not path.with_suffix(".parquet").exists()):
        extra = [path.with_suffix(".parquet"), path.with_suffix(".cat.parquet")] \
            if parquet else []
        order_file.write_text(python_child(_WRITE, path, S, L, *extra)["order"])
    return path, order_file.read_text()


def read(workdir, runs, quick):
    S, L = (1000, 100) if quick else (10000, 100)
    csv, _ = _csv(workdir, S, L, parquet=True)
    peaks, decoded = [], []

    def ours(path):
        def run():
            result = python_child(_READ, path, "load_results")
            peaks.append(result["peak_mb"])
            decoded.append(result["rows"] * DECODED_ROW_BYTES / 2 ** 20)
            return result["s"]
        return run

    def alone(side):     # pandas, or pyarrow alone, on the CSV file
        return lambda: python_child(_READ, csv, side)["s"]

    pandas = alone("pandas.read_csv")

    def memory():
        return (f"peak above the imports {min(peaks):.0f}-{max(peaks):.0f} MB = "
                f"{max(peaks) / decoded[0]:.2f}x the decoded arrays ({decoded[0]:.0f} MB; "
                "target <= 1.5x)")

    a, b, table, stream = _alternate(ours(csv), pandas, alone("pyarrow.csv.read_csv"),
                                     alone("pyarrow.csv.open_csv"), runs=runs)
    _row(f"read CSV S={S} ({S * L * 10 / 1e6:g} M rows)", "load_results", a,
         "pandas.read_csv", b, "<= 1x", a <= b,
         f"{memory()}; pyarrow alone (both CPUs, the same column types, no decoding, no "
         f"checks): the whole table at once {table:.3f} s = {table / b:.2f}x pandas, a "
         f"batch at a time (open_csv) {stream:.3f} s = {stream / b:.2f}x pandas")
    for suffix, case in ((".parquet", "read Parquet (same rows)"),
                         (".cat.parquet", "read Parquet, categorical names")):
        peaks.clear()
        a, b = _alternate(ours(csv.with_suffix(suffix)), pandas, runs=runs)
        _row(case, "load_results", a, "pandas.read_csv", b, "< 1x", a < b, memory())


def _rank(csv, order, out, *extra):
    """``multitest rank`` into a new folder inside ``out`` (timed_command's result).

    Each run writes a folder of its own, all removed by the caller once timed: on the
    benchmarks' VM (ext4 without a journal) creating a file skips every inode freed in
    the last 60-300 s (the kernel's ``recently_deleted``), so the 3,000 files of a
    report written right after the previous run's were removed took 0.5 ms each to
    create instead of 0.02 ms (1.5-2 s of a 4-6 s run, found with ``perf``,
    2026-11-25): the removal of one run was timed in the next."""
    os.makedirs(out, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="run-", dir=out)
    os.rmdir(folder)      # a folder multitest creates, as a user's --out
    result = timed_command([multitest_program(), "rank", csv, "--order", order, "--out",
                            folder, *extra], timeout=3600)
    if result["returncode"] != 0:
        raise RuntimeError(f"multitest rank failed: {result['stderr']}")
    return result


def e2e(workdir, runs, quick):
    S, L = (1000, 100) if quick else (10000, 100)
    csv, order = _csv(workdir, S, L)
    peaks = []

    def ours():
        result = _rank(csv, order, workdir / "e2e")
        peaks.append(result["peak_mb"])
        return result["wall_s"]

    try:
        a, b = _alternate(ours, lambda: _pandas_read(csv), runs=runs)
    finally:
        shutil.rmtree(workdir / "e2e", ignore_errors=True)
    _row(f"rank end to end S={S} L={L}", "multitest rank", a, "pandas.read_csv", b,
         "<= 2.5x", a <= 2.5 * b, f"peak {max(peaks):.0f} MB; both fresh programs")


def _pandas_read(csv):
    return timed_command([sys.executable, "-c", "import sys, pandas; "
                          "pandas.read_csv(sys.argv[1])", csv])["wall_s"]


_CURVE = r"""
import contextlib, io, json, resource, sys, time
from multitest.cli import main
tiny, tiny_order, path, order, out, runs = sys.argv[1:7]

def rank(source, cost_order):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["rank", source, "--order", cost_order, "--out", out])
    if code:
        raise SystemExit(f"multitest rank failed: {code}")

def cpu():      # of this process's threads and of the children it forked and reaped
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime

def timed(source, cost_order):
    start, used = time.perf_counter(), cpu(); rank(source, cost_order)
    return time.perf_counter() - start, cpu() - used

def median(values):
    return sorted(values)[len(values) // 2]

rank(tiny, tiny_order)                          # imports and first-call costs
fixed, times = [], []
start = time.perf_counter()
while len(times) < int(runs) or (len(times) < 25 and time.perf_counter() - start < 10):
    fixed.append(timed(tiny, tiny_order))       # the base input and the size alternated,
    times.append(timed(path, order))            # at least `runs` times and 10 s
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
# The floor of any reader, after the peak is taken: pandas.read_csv of the same two
# inputs, alternated (medians); one run of the largest sizes times no floor.
read_fixed, read_s = [], []
if int(runs) > 1:
    import pandas
    for _ in range(max(3, int(runs))):
        for source, taken in ((tiny, read_fixed), (path, read_s)):
            begin = time.perf_counter(); pandas.read_csv(source)
            taken.append(time.perf_counter() - begin)
print(json.dumps({"fixed": median([w for w, _ in fixed]), "s": median([w for w, _ in times]),
                  "fixed_cpu": median([c for _, c in fixed]),
                  "cpu": median([c for _, c in times]), "peak_mb": peak,
                  "read_fixed": median(read_fixed) if read_fixed else None,
                  "read_s": median(read_s) if read_s else None}))
"""

#: The sizes of the curve (S, L): 10^5 to 5 x 10^8 tests, and the shapes that had cliffs
#: (S = 1000 x L = 20 and S = 100 x L = 200: the over-data-sets intervals).
CURVE_SIZES = [(20, 100), (100, 100), (1000, 20), (100, 200), (1000, 100), (100, 300),
               (2000, 100), (10000, 100), (20000, 100), (100000, 100)]


def base_datasets(L):
    """Data sets of the run whose time is the fixed part of a run with ``L`` algorithms:
    the fewest (at least 2, for a second pass) above 20,000 pairwise results, where
    ``result.json`` stops listing the pairs inline and the per-data-set figures are no
    longer written (``INLINE_PAIRS_LIMIT``, ``FIGURE_PAIRS_LIMIT``), as in every size
    of the curve."""
    from multitest.figures._write import FIGURE_PAIRS_LIMIT
    from multitest.outputs._json import INLINE_PAIRS_LIMIT

    return max(2, max(FIGURE_PAIRS_LIMIT, INLINE_PAIRS_LIMIT) // (L * (L - 1) // 2) + 1)


def curve(workdir, runs, quick, max_tests, sizes=None):
    """Per-test cost of ``multitest rank`` (read, rank, outputs) by size, in a warm process.

    A run's time is a fixed part for its L algorithms (the second pass, the
    explanations, the tables over data sets and the overall figures, all per pair
    of algorithms; measured on :func:`base_datasets` data sets of the same recipe) plus
    a part per test (stage 1, the orders, the per-data-set tables, the intervals over
    the data sets, ...).  Each size runs in a fresh child that first ranks the base
    input once (imports, first calls), then alternates the base input and the size
    ``runs`` times and more up to 10 s (medians): the per-test cost is ``(time -
    base) / (tests - base tests)``; the total per test is printed beside it, and the
    same per-test cost in CPU time (the process's threads and its reaped forked
    children): the wall time falls where a run starts using both CPUs.  The start-up of a fresh
    ``multitest rank`` program is measured apart (``start-up``).  Beside each size, the
    same per-test cost of ``pandas.read_csv`` of the two inputs alone (alternated in the
    same child, after the runs): the floor of any reader of that input, which grows as
    rows per test, ``2 k / (L - 1)`` with ``k`` folds (about 1 row a test at L = 20, 0.2
    at L = 100).
    """
    start = _csv(workdir, 2, 4)
    startup = median([_rank(*start, workdir / "startup")["wall_s"] for _ in range(max(runs, 3))])
    print(f"curve: start-up of a fresh `multitest rank` on 2 x 4: {startup:.2f} s "
          "(interpreter, imports, a tiny run; not in the per-test costs)", flush=True)
    rows, cpu_rows, read_rows = [], [], []
    for S, L in sizes or CURVE_SIZES:
        tests = S * L * (L - 1) // 2
        if tests > (1e6 if quick else max_tests):
            continue
        base_S = base_datasets(L)
        base, base_order = _csv(workdir, base_S, L)
        csv, order = _csv(workdir, S, L)
        result = python_child(_CURVE, base, base_order, csv, order, workdir / "out",
                              runs if tests < 1e8 else 1)
        more = tests - base_S * L * (L - 1) // 2
        per = (result["s"] - result["fixed"]) / more
        per_cpu = (result["cpu"] - result["fixed_cpu"]) / more
        read = (None if result["read_s"] is None
                else (result["read_s"] - result["read_fixed"]) / more)
        rows.append((S, L, per))
        cpu_rows.append(per_cpu)
        read_rows.append(read)
        print(f"curve S={S:<6} L={L:<5} {tests:>12,} tests {result['s']:8.2f} s, "
              f"{1e9 * result['s'] / tests:8.1f} ns/test in all; fixed (S={base_S}) "
              f"{result['fixed']:.3f} s; per test {1e9 * per:7.1f} ns, of CPU "
              f"{1e9 * per_cpu:7.1f} ns; peak {result['peak_mb']:.0f} MB"
              + ("" if read is None else
                 f"; pandas.read_csv of the input alone {1e9 * read:.1f} ns/test"), flush=True)
        if S * L > 2e5:
            csv.unlink()
            csv.with_suffix(".order").unlink()
    if not rows:
        return
    middle, middle_cpu = median([per for *_, per in rows]), median(cpu_rows)
    for (S, L, per), per_cpu, read in zip(rows, cpu_rows, read_rows):
        ok = middle / 1.5 <= per <= 1.5 * middle
        print(f"curve S={S:<6} L={L:<5} {1e9 * per:7.1f} ns/test = {per / middle:4.2f}x the "
              f"median{'' if QUICK else ('  within 1.5x' if ok else '  NOT within 1.5x')}; "
              f"of CPU {1e9 * per_cpu:7.1f} ns/test = {per_cpu / middle_cpu:4.2f}x its median"
              + ("" if read is None else f"; reading the input alone (pandas.read_csv) "
                 f"{read / middle:4.2f}x the median"), flush=True)
    judged = [per for *_, per in rows]
    within = max(judged) <= 1.5 * middle and min(judged) >= middle / 1.5
    _say(f"curve {len(rows)} sizes, {rows[0][0]}x{rows[0][1]} to {rows[-1][0]}x{rows[-1][1]}: "
         f"median {1e9 * middle:.1f} ns/test (start-up {startup:.2f} s apart); largest / median "
         f"{max(judged) / middle:.2f}x, smallest / median {min(judged) / middle:.2f}x"
         f"{'' if QUICK else '  target within 1.5x: ' + ('met' if within else 'NOT met')}")


def report(workdir, runs, quick):
    S, L = (200, 20) if quick else (1000, 20)
    csv, order = _csv(workdir, S, L)
    try:
        a, b = _alternate(
            lambda: _rank(csv, order, workdir / "report", "--format", "svg",
                          "--report")["wall_s"],
            lambda: _rank(csv, order, workdir / "report")["wall_s"], runs=runs)
    finally:
        shutil.rmtree(workdir / "report", ignore_errors=True)
    _row(f"report S={S} L={L}", "--format svg --report", a, "rank alone", b, "<= 5x",
         a <= 5 * b)


GROUPS = ("stage1", "read", "e2e", "curve", "report")
#: ``--issue20``: every group here, then the other issue 20 benchmarks as programs of
#: their own (their last line is the row): the cluster at 10^9 tests and the runner.
OTHERS = {"cluster": ["bench_cluster.py", "--runs", "1"], "runner": ["bench_runner.py"]}


def others(names, quick):
    """Run the other issue 20 benchmarks (``OTHERS``) and relay their output."""
    for name in names:
        argv = [sys.executable, str(Path(__file__).resolve().parent / OTHERS[name][0]),
                *OTHERS[name][1:]]
        if quick and name == "cluster":
            argv += ["--compare", "2000", "--datasets", "0", "--per-part", "500"]
        if quick and name == "runner":
            argv += ["--runs", "1", "--examples", "1000"]
        print(f"# {' '.join(argv[1:])}", flush=True)
        done = subprocess.run(argv, capture_output=True, text=True)
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        print("\n".join(lines), flush=True)
        if done.returncode:
            _say(f"{name}: failed (exit {done.returncode}): {done.stderr.strip()[-300:]}")
        else:
            _say(f"{name}: " + " / ".join(line.strip() for line in lines[-2:]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default=",".join(GROUPS))
    parser.add_argument("--quick", action="store_true", help="small sizes, targets not judged")
    parser.add_argument("--max-tests", type=float, default=5e7)
    parser.add_argument("--sizes", help="curve sizes SxL,SxL (default: CURVE_SIZES)")
    parser.add_argument("--issue20", action="store_true",
                        help="every done-when row of issue 20, side by side: all the groups, "
                        "the curve up to 5 x 10^8 tests, bench_cluster.py and bench_runner.py;"
                        " about 8 GB and an hour")
    args = parser.parse_args(argv)
    if args.issue20:
        args.only, args.max_tests = ",".join(GROUPS + tuple(OTHERS)), 5e8
    global QUICK
    QUICK = args.quick
    print(f"# bench_scale {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"{platform.node()}, {os.cpu_count()} CPUs, {platform.processor() or platform.machine()}"
          f", Python {platform.python_version()}; load average {load_average()}; medians of "
          f"{args.runs} alternated runs", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        workdir = Path(tmp)
        for group in args.only.split(","):
            if group in OTHERS:
                others([group], args.quick)
            elif group == "curve":
                sizes = args.sizes and [tuple(map(int, size.split("x")))
                                        for size in args.sizes.split(",")]
                curve(workdir, args.runs, args.quick, args.max_tests, sizes)
            else:
                globals()[group](workdir, args.runs, args.quick)
    print(f"# load average at the end {load_average()}")
    if len(args.only.split(",")) > 1:
        print("\n# issue 20, side by side\n" + "\n".join(SUMMARY))


if __name__ == "__main__":
    main()
