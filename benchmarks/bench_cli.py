"""``multitest rank`` end to end, as a user runs it: a file in, a directory out.

Cases (each run is the installed ``multitest`` program in a child process,
started from a fresh wrapper that reports its wall time, CPU time and peak
resident memory; medians over ``runs`` runs, each into a new output directory;
no ``--format``: result.json, the CSV tables, the pairwise file and the DOT
sources written without it):

- ``S=10000 L=100`` (49,500,000 tests, a 260 MB CSV): targets 10 s, 1 GB, outputs
  <= 0.5 GB with every pairwise result available (read back in the check);
- ``S=100 L=1000`` (49,950,000 tests; the Nemenyi second pass compares
  499,500 pairs): 10 s, 1 GB, outputs <= 0.5 GB;
- ``S=1000 L=100`` (4,950,000 tests): 3 s, 1 GB;
- ``S=20 L=100`` (99,000 tests, below the inline limit: every per-data-set
  DOT source, indented JSON and pairwise.csv): computing and writing <= 1 s;
- the full report of the bundled 38-data-set example:
  ``multitest rank examples/ulas2008/accuracy.csv --costs training_time --out D
  --format svg --report``.  Target: 10 s.

For every synthetic case one more run, in a Python child doing what the
command does, times the phases (reading, ranking, outputs, figures): the note
says where the time goes and the share of the figures.

Input rows (S = 10000 x L = 100, 10 million rows): ``load_results`` of a
Parquet file and of the CSV file (pyarrow's reader), today's CSV path
(the C reader of pandas, pyarrow disabled) and ``pandas.read_csv`` alone (the
C engine, no checks).  Targets: Parquet >= 3x faster than the pandas path;
the CSV path no slower than ``pandas.read_csv``.

The synthetic inputs are :mod:`synthetic`'s (seeded), written to a temporary
directory first (not timed).

Run::

    .venv/bin/python benchmarks/bench_cli.py [--quick]
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, median, multitest_program, python_child, timed_command  # noqa: E402
from synthetic import write_csv  # noqa: E402

RUNS = 3
FAIL = "FAIL"
EXAMPLE = ROOT / "examples" / "ulas2008" / "accuracy.csv"


def _runs(argv, out_dir, runs, timeout, memory_limit_mb=0):
    """Time ``argv`` (which writes into ``out_dir``) ``runs`` times; stop at a failure."""
    walls, cpus, peaks, problems = [], [], [], []
    for k in range(runs):
        shutil.rmtree(out_dir, ignore_errors=True)
        result = timed_command(argv, timeout=timeout, memory_limit_mb=memory_limit_mb)
        walls.append(result["wall_s"])
        cpus.append(result.get("cpu_s", 0.0))
        peaks.append(result["peak_mb"])
        if result["returncode"] != 0:
            problems.append("timed out after %.0f s" % timeout if result["returncode"] is None
                            else "exit %s: %s" % (result["returncode"],
                                                  result["stderr"].strip()[-300:]))
            break
    return walls, cpus, peaks, problems


def _output_mb(out_dir):
    return sum(f.stat().st_size for f in Path(out_dir).rglob("*") if f.is_file()) / 1e6


def _check_large_output(out_dir, n_tests):
    """Every pairwise result is available: the count, and one data set read back in full."""
    from multitest.outputs import read_pairwise

    doc = json.loads((out_dir / "result.json").read_text())
    path = out_dir / doc["pairwise_file"]
    first = next(iter(doc["datasets"]))
    rows = len(read_pairwise(path, datasets=[first]))
    per_dataset = n_tests // doc["input"]["n_datasets"]
    if doc["n_pairwise_tests"] != n_tests or rows != per_dataset:
        return f"{FAIL}: {rows} pairs of {first} in {doc['pairwise_file']}, expected {per_dataset}"
    return (f"every pair in {doc['pairwise_file']} ({path.stat().st_size / 1e6:.0f} MB; "
            f"read back: {first})")


_PHASES = r"""
import json, os, resource, sys, time
start = time.perf_counter()
from multitest.cli import _OUTPUT_DEFAULTS, _figure_writer
from multitest.outputs import write_outputs
from multitest import rank
from multitest import load_results
imported = time.perf_counter()
source, order, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
results = load_results(source)
read = time.perf_counter()
ranking = rank(results, order)
ranked = time.perf_counter()
figures = [0.0]
draw = _figure_writer(ranking, _OUTPUT_DEFAULTS)

def timed(staging):
    t = time.perf_counter()
    draw(staging)
    figures[0] += time.perf_counter() - t

write_outputs(ranking, out, extra=timed)
done = time.perf_counter()
print(json.dumps({"import": imported - start, "read": read - imported, "rank": ranked - read,
                  "outputs": done - ranked - figures[0], "figures": figures[0],
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _phases(source, order, out_dir):
    shutil.rmtree(out_dir, ignore_errors=True)
    phases = python_child(_PHASES, source, ",".join(order), out_dir)
    shutil.rmtree(out_dir, ignore_errors=True)
    return phases


def _phase_text(p):
    total = sum(p[k] for k in ("import", "read", "rank", "outputs", "figures"))
    return (f"import {p['import']:.2f} s, read {p['read']:.2f} s, rank {p['rank']:.2f} s, "
            f"outputs {p['outputs']:.2f} s, figures {p['figures']:.2f} s "
            f"({100 * p['figures'] / total:.0f} %)")


def _rank_case(workdir, n_datasets, n_algorithms, runs, target_s, target_mb, timeout,
               target_out_mb=None, compute_only=False):
    """One synthetic case.  ``compute_only``: judge reading + ranking + outputs (no import,
    no figures) against ``target_s``, as the S=20 target is stated."""
    csv = workdir / f"results_{n_datasets}x{n_algorithms}.csv"
    order = write_csv(csv, n_datasets, n_algorithms)
    out_dir = workdir / "out"
    argv = [multitest_program(), "rank", csv, "--order", ",".join(order), "--out", out_dir]
    # A run may use at most 4 times its memory target (address space) and
    # `timeout` seconds: a failing case cannot take the machine with it.
    walls, cpus, peaks, problems = _runs(argv, out_dir, runs, timeout,
                                         memory_limit_mb=4 * target_mb)
    n_tests = n_datasets * n_algorithms * (n_algorithms - 1) // 2
    ours, peak = median(walls), max(peaks)
    ok = not problems and peak <= target_mb
    target = f"<= {target_s:g} s, <= {target_mb / 1024:g} GB"
    if problems:
        note = f"{FAIL}: " + "; ".join(problems)
    else:
        out_mb = _output_mb(out_dir)
        large = (out_dir / "result.json").exists() and \
            json.loads((out_dir / "result.json").read_text())["pairwise_file"]
        note = (f"{csv.stat().st_size / 1e6:.0f} MB CSV, {n_datasets * n_algorithms * 10:,} rows, "
                f"{n_tests:,} tests; outputs {out_mb:,.0f} MB"
                + ("; " + _check_large_output(out_dir, n_tests) if large else ""))
        if target_out_mb is not None:
            target += f", outputs <= {target_out_mb / 1000:g} GB"
            ok = ok and out_mb <= target_out_mb
        phases = _phases(csv, order, out_dir)
        computed = phases["read"] + phases["rank"] + phases["outputs"]
        ok = ok and (computed if compute_only else ours) <= target_s
        note += (f"; CPU {median(cpus):.1f} s; where: {_phase_text(phases)}"
                 + (f" (judged: read + rank + outputs = {computed:.2f} s)" if compute_only
                    else "") + f"; median of {len(walls)} runs")
    shutil.rmtree(out_dir, ignore_errors=True)
    csv.unlink()
    return {"case": f"CLI rank S={n_datasets} L={n_algorithms}", "ours_s": ours,
            "baseline_s": None, "ratio": None, "peak_mb": peak,
            "target": target + (" (compute + write)" if compute_only else ""),
            "ok": ok, "note": note}


_READ = r"""
import json, sys, time
import pandas as pd
from multitest.inputs import _results as results
path, how, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
if how == "pandas-path":   # today's CSV path: the C reader of pandas, pyarrow not used
    results._read_arrow = lambda name, columns, kind: None
read = pd.read_csv if how == "pandas.read_csv" else results.load_results
times = []
for _ in range(runs):
    start = time.perf_counter()
    read(path)
    times.append(time.perf_counter() - start)
print(json.dumps({"times": times}))
"""


def _read_cases(workdir, n_datasets, n_algorithms, runs):
    """Reading 10 million rows: Parquet, the CSV paths and pandas.read_csv."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return [{"case": "read Parquet / CSV", "note": "pyarrow is not installed (the parquet "
                 "extra): not measured", "ok": None}]
    import pandas as pd

    csv = workdir / "read.csv"
    write_csv(csv, n_datasets, n_algorithms)
    parquet = workdir / "read.parquet"
    pd.read_csv(csv).to_parquet(parquet, index=False)
    took = {how: median(python_child(_READ, source, how, runs)["times"])
            for how, source in (("parquet", parquet), ("csv", csv), ("pandas-path", csv),
                                ("pandas.read_csv", csv))}
    rows = f"{n_datasets * n_algorithms * 10:,} rows"
    sizes = (f"CSV {csv.stat().st_size / 1e6:.0f} MB, Parquet {parquet.stat().st_size / 1e6:.0f}"
             f" MB")
    csv.unlink()
    parquet.unlink()
    return [
        {"case": f"read Parquet S={n_datasets} L={n_algorithms}", "ours_s": took["parquet"],
         "baseline_s": took["pandas-path"], "ratio": took["pandas-path"] / took["parquet"],
         "target": ">= 3x", "ok": took["pandas-path"] / took["parquet"] >= 3,
         "note": f"load_results of {rows}; baseline: today's CSV path (C reader of pandas); "
                 f"{sizes}; median of {runs} runs"},
        {"case": f"read CSV S={n_datasets} L={n_algorithms}", "ours_s": took["csv"],
         "baseline_s": took["pandas.read_csv"], "ratio": took["pandas.read_csv"] / took["csv"],
         "target": ">= 1x", "ok": took["csv"] <= took["pandas.read_csv"],
         "note": f"load_results (pyarrow's reader, every check) vs pandas.read_csv alone (C "
                 f"engine, no checks); the pandas path takes {took['pandas-path']:.2f} s; "
                 f"median of {runs} runs"}]


def _render_case(workdir, runs, target_s):
    out_dir = workdir / "report"
    argv = [multitest_program(), "rank", EXAMPLE, "--costs", "training_time", "--out", out_dir,
            "--format", "svg", "--report"]
    walls, _, peaks, problems = _runs(argv, out_dir, runs, timeout=120)
    ours = median(walls)
    if problems:
        note = f"{FAIL}: " + "; ".join(problems)
    else:
        svgs = len(list(out_dir.glob("*.svg")))
        size = (out_dir / "report.html").stat().st_size / 1e6
        note = (f"bundled example (38 data sets, 8 algorithms): {svgs} SVG figures and "
                f"report.html ({size:.1f} MB); median of {len(walls)} runs")
    shutil.rmtree(out_dir, ignore_errors=True)
    return {"case": "CLI report (bundled example)", "ours_s": ours, "baseline_s": None,
            "ratio": None, "peak_mb": max(peaks), "target": f"<= {target_s:g} s",
            "ok": not problems and ours <= target_s, "note": note}


def cases(quick=False, runs=RUNS):
    """Benchmark rows (see ``run.py``)."""
    runs = 1 if quick else runs
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        if quick:
            return [_rank_case(workdir, 300, 100, runs, 10.0, 1024, timeout=120,
                               target_out_mb=500),
                    _rank_case(workdir, 10, 300, runs, 10.0, 1024, timeout=300),
                    _rank_case(workdir, 20, 100, runs, 1.0, 1024, timeout=120,
                               compute_only=True),
                    *_read_cases(workdir, 300, 100, runs),
                    _render_case(workdir, runs, 10.0)]
        return [_rank_case(workdir, 10000, 100, runs, 10.0, 1024, timeout=600,
                           target_out_mb=500),
                _rank_case(workdir, 100, 1000, runs, 10.0, 1024, timeout=600,
                           target_out_mb=500),
                _rank_case(workdir, 1000, 100, runs, 3.0, 1024, timeout=120),
                _rank_case(workdir, 20, 100, runs, 1.0, 1024, timeout=120, compute_only=True),
                *_read_cases(workdir, 10000, 100, runs),
                _render_case(workdir, runs, 10.0)]


if __name__ == "__main__":
    from run import format_table

    rows = cases(quick="--quick" in sys.argv)
    print(format_table(rows))
    sys.exit(1 if any(FAIL in row["note"] for row in rows) else 0)
