"""The figures and the report at size: ``multitest rank ... --format svg --report``.

Cases (the installed ``multitest`` program in a child process, from a fresh
wrapper that reports wall time and peak resident memory; medians over
``runs`` runs, each into a new output directory):

- ``L=40 S=30``, long names (``gradient_boosted_ensemble_variant_07_with_a_long_name``):
  every figure as SVG and the report.  Targets: 20 s on 2 cores and a
  ``report.html`` of at most 5 MB.
- ``S=1000 L=20``: the same with 1000 data sets (2005 figures, a page per
  data set).  No target: the figure of merit is that ``report.html`` stays
  small (it opens quickly) while every data set keeps its page.

The inputs are :mod:`synthetic`'s (seeded), written first (not timed).  The
rows have the keys of ``run.py``'s table, so ``cases()`` can join it.

Run::

    .venv/bin/python benchmarks/bench_report.py [--quick] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import median, multitest_program, timed_command  # noqa: E402
from synthetic import algorithm_names, cost_order, long_frame, make_errors  # noqa: E402

RUNS = 3
REPORT_MB = 5.0


def _long(name):
    return name.replace("alg", "gradient_boosted_ensemble_variant_") + "_with_a_long_name"


def _write_input(path, S, L, long_names):
    frame = long_frame(make_errors(S, L))
    order = cost_order(L)
    if long_names:
        mapping = {a: _long(a) for a in algorithm_names(L)}
        frame["algorithm"] = frame["algorithm"].map(mapping)
        order = [mapping[a] for a in order]
    frame.to_csv(path, index=False, float_format="%.4f")
    return order


def _case(workdir, S, L, runs, long_names, target_s):
    csv = workdir / f"results_{S}x{L}.csv"
    order = _write_input(csv, S, L, long_names)
    out = workdir / "out"
    argv = [multitest_program(), "rank", csv, "--order", ",".join(order), "--out", out,
            "--format", "svg", "--report", "--quiet"]
    walls, peaks, problems = [], [], []
    for _ in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        result = timed_command(argv, timeout=1800)
        walls.append(result["wall_s"])
        peaks.append(result["peak_mb"])
        if result["returncode"] != 0:
            problems.append(f"exit {result['returncode']}: {result['stderr'].strip()[-300:]}")
            break
    report_mb = pages = svgs = 0
    if not problems:
        report_mb = (out / "report.html").stat().st_size / 1e6
        pages_dir = out / "report_datasets"
        pages = len(list(pages_dir.iterdir())) if pages_dir.exists() else 0
        svgs = len(list(out.glob("*.svg")))
    shutil.rmtree(out, ignore_errors=True)
    csv.unlink()
    ours = median(walls)
    ok = not problems and report_mb <= REPORT_MB and (target_s is None or ours <= target_s)
    note = ("FAIL: " + "; ".join(problems) if problems else
            f"{svgs} SVG figures, report.html {report_mb:.2f} MB, {pages} data set pages; "
            f"median of {len(walls)} runs")
    return {"case": f"CLI --format svg --report, L={L} S={S}"
                    + (" (long names)" if long_names else ""),
            "ours_s": ours, "baseline_s": None, "ratio": None, "peak_mb": max(peaks),
            "target": (f"<= {target_s:g} s, " if target_s else "") + f"<= {REPORT_MB:g} MB html",
            "ok": ok, "note": note}


def cases(quick=False, runs=RUNS):
    """Benchmark rows (the keys of ``run.py``'s table)."""
    runs = 1 if quick else runs
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        rows = [_case(workdir, 30, 40, runs, long_names=True, target_s=20.0)]
        if not quick:
            rows.append(_case(workdir, 1000, 20, 1, long_names=False, target_s=None))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the 40 x 30 case, once")
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    for row in cases(args.quick, args.runs):
        print(f"{row['case']}: {row['ours_s']:.2f} s, peak {row['peak_mb']:.0f} MB, "
              f"target {row['target']}, {'met' if row['ok'] else 'NOT met'}; {row['note']}")
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
