"""``multitest rank`` end to end, as a user runs it: a CSV file in, a directory out.

Cases (each run is the installed ``multitest`` program in a child process,
started from a fresh wrapper that reports its wall time and peak resident
memory; medians over ``runs`` runs, each into a new output directory):

- ``S=1000 L=100``: 1,000,000 rows (5x2 cv), ``--order`` of the 100 algorithms,
  ``--out DIR``, no figure format: reading, stage 1 (4,950,000 tests), the
  orders, the second pass (Nemenyi), result.json, the CSV tables, the
  pairwise file and the DOT sources that are written without ``--format``.
  Targets: 3 s, 1 GB.
- ``L=1000 S=100``: the same with 1000 algorithms (49,950,000 tests; the
  Nemenyi second pass compares 499,500 pairs).  Targets: 60 s, 2 GB.
- the full report of the bundled 38-data-set example:
  ``multitest rank examples/ulas2008/accuracy.csv --costs training_time --out D
  --format svg --report``.  Target: 10 s.

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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, median, multitest_program, timed_command  # noqa: E402
from synthetic import write_csv  # noqa: E402

RUNS = 3
FAIL = "FAIL"
EXAMPLE = ROOT / "examples" / "ulas2008" / "accuracy.csv"


def _runs(argv, out_dir, runs, timeout, memory_limit_mb=0):
    """Time ``argv`` (which writes into ``out_dir``) ``runs`` times; stop at a failure."""
    walls, peaks, problems = [], [], []
    for k in range(runs):
        shutil.rmtree(out_dir, ignore_errors=True)
        result = timed_command(argv, timeout=timeout, memory_limit_mb=memory_limit_mb)
        if result["returncode"] != 0:
            problems.append("timed out after %.0f s" % timeout if result["returncode"] is None
                            else "exit %s: %s" % (result["returncode"],
                                                  result["stderr"].strip()[-300:]))
            walls.append(result["wall_s"])
            peaks.append(result["peak_mb"])
            break
        walls.append(result["wall_s"])
        peaks.append(result["peak_mb"])
    return walls, peaks, problems


def _check_large_output(out_dir, n_tests):
    doc = json.loads((out_dir / "result.json").read_text())
    with np.load(out_dir / doc["pairwise_file"]) as archive:
        rows = archive["pvalue"].size
    if doc["n_pairwise_tests"] != n_tests or rows != n_tests:
        return f"{FAIL}: {rows} pairs in {doc['pairwise_file']}, expected {n_tests}"
    size = (out_dir / doc["pairwise_file"]).stat().st_size / 1e6
    return f"every pair in {doc['pairwise_file']} ({size:.0f} MB)"


def _rank_case(workdir, n_datasets, n_algorithms, runs, target_s, target_mb, timeout):
    csv = workdir / f"results_{n_datasets}x{n_algorithms}.csv"
    order = write_csv(csv, n_datasets, n_algorithms)
    out_dir = workdir / "out"
    argv = [multitest_program(), "rank", csv, "--order", ",".join(order), "--out", out_dir]
    # A run may use at most 4 times its memory target (address space) and
    # `timeout` seconds: a failing case cannot take the machine with it.
    walls, peaks, problems = _runs(argv, out_dir, runs, timeout, memory_limit_mb=4 * target_mb)
    n_tests = n_datasets * n_algorithms * (n_algorithms - 1) // 2
    ours, peak = median(walls), max(peaks)
    if problems:
        note = f"{FAIL}: " + "; ".join(problems)
    else:
        note = (f"{csv.stat().st_size / 1e6:.0f} MB CSV, {n_datasets * n_algorithms * 10:,} rows, "
                f"{n_tests:,} tests; " + _check_large_output(out_dir, n_tests)
                + f"; median of {len(walls)} runs")
    shutil.rmtree(out_dir, ignore_errors=True)
    csv.unlink()
    return {"case": f"CLI rank S={n_datasets} L={n_algorithms}", "ours_s": ours,
            "baseline_s": None, "ratio": None, "peak_mb": peak,
            "target": f"<= {target_s:g} s, <= {target_mb / 1024:g} GB",
            "ok": not problems and ours <= target_s and peak <= target_mb, "note": note}


def _render_case(workdir, runs, target_s):
    out_dir = workdir / "report"
    argv = [multitest_program(), "rank", EXAMPLE, "--costs", "training_time", "--out", out_dir,
            "--format", "svg", "--report"]
    walls, peaks, problems = _runs(argv, out_dir, runs, timeout=120)
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
            return [_rank_case(workdir, 100, 100, runs, 3.0, 1024, timeout=120),
                    _rank_case(workdir, 10, 300, runs, 60.0, 2048, timeout=300),
                    _render_case(workdir, runs, 10.0)]
        return [_rank_case(workdir, 1000, 100, runs, 3.0, 1024, timeout=120),
                _rank_case(workdir, 100, 1000, runs, 60.0, 2048, timeout=600),
                _render_case(workdir, runs, 10.0)]


if __name__ == "__main__":
    from run import format_table

    rows = cases(quick="--quick" in sys.argv)
    print(format_table(rows))
    sys.exit(1 if any(FAIL in row["note"] for row in rows) else 0)
