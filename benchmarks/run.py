"""Every benchmark of multitest, printed as one table (``make bench``).

Rows:

- stage 1, combined 5x2 cv F and k-fold paired t, S = 1000, L = 100, against
  a per-pair SciPy loop (``bench_stage1.py``; the baseline runs on a subset of
  data sets and is scaled, as its note says);
- the stage-1 scaling curve, 10^5 to 5 x 10^7 tests (``bench_stage1.curve``);
- ``multitest rank`` end to end on a CSV file: S = 10000 x L = 100,
  S = 100 x L = 1000, S = 1000 x L = 100 and S = 20 x L = 100, with where the
  time goes (and the share of the figures); reading 10 million rows from
  Parquet and CSV; the full report of the bundled example (``bench_cli.py``);
- the second pass against scikit-posthocs (``bench_second_pass.py``).

Columns: ``ours`` and ``baseline`` in seconds (medians over ``--runs`` runs,
3 by default; the baseline of a stage-1 row scaled from its subset), ``ratio``
= baseline / ours, ``peak MB`` = peak resident memory of the process that did
the work, ``target`` and whether it is met.  Inputs are synthetic and seeded
(``synthetic.py``).  Every case runs in child processes of its own.

``--quick`` is a smoke run on smaller inputs (one run each, about 15 s); its
sizes are not those of the targets, so the targets are not judged, and the
second-pass rows (whose scikit-posthocs baseline alone takes minutes) are left
out unless asked for with ``--only``.

Run::

    .venv/bin/python benchmarks/run.py [--quick] [--runs N] [--only stage1,cli,second_pass]
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import load_average  # noqa: E402

FAIL = "FAIL"
GROUPS = ("stage1", "curve", "cli", "second_pass")


def _number(value, digits=3):
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}" if value < 1 else f"{value:.2f}"


def format_table(rows, judge=True):
    """The rows as one fixed-width text table (Markdown-compatible)."""
    header = ["case", "ours (s)", "baseline (s)", "ratio", "peak MB", "target", "met", "note"]
    body = []
    for row in rows:
        ok = row.get("ok")
        met = "-" if not judge or ok is None else ("yes" if ok else "NO")
        ratio = row.get("ratio")
        body.append([row["case"], _number(row.get("ours_s")), _number(row.get("baseline_s")),
                     "-" if ratio is None else f"{ratio:,.0f}x" if ratio >= 10
                     else f"{ratio:.1f}x",
                     "-" if row.get("peak_mb") is None else f"{row['peak_mb']:,.0f}",
                     row.get("target") or "-", met, row.get("note", "")])
    widths = [max(len(str(r[i])) for r in [header] + body) for i in range(len(header) - 1)]
    lines = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(header, widths)) + " | note |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|------|"]
    for r in body:
        lines.append("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths))
                     + f" | {r[-1]} |")
    return "\n".join(lines)


def machine():
    """One line: date, CPU model and count, Python, numpy, scipy, pandas versions."""
    import numpy
    import pandas
    import scipy

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count()
    return (f"{datetime.date.today().isoformat()}; {cpus} CPU(s), {model}; Python "
            f"{platform.python_version()}, numpy {numpy.__version__}, scipy {scipy.__version__}, "
            f"pandas {pandas.__version__}")


def _second_pass_rows(quick, runs):
    try:
        import bench_second_pass
    except ImportError as exc:
        return [], f"second pass: benchmarks/bench_second_pass.py is not available ({exc}); " \
                   "its rows are missing"
    kwargs = {}
    parameters = inspect.signature(bench_second_pass.cases).parameters
    if "quick" in parameters:
        kwargs["quick"] = quick
    if "runs" in parameters:
        kwargs["runs"] = 1 if quick else runs
    rows = bench_second_pass.cases(**kwargs)
    for row in rows:
        row.setdefault("target", ">= 10x" if row.get("baseline_s") else None)
        if "ok" not in row:
            row["ok"] = (FAIL not in row.get("note", "")
                         and (row.get("ratio") is None or row["ratio"] >= 10))
    return rows, None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: small inputs, 1 run")
    parser.add_argument("--runs", type=int, default=3, help="runs per case (median; default 3)")
    parser.add_argument("--only", default=None,
                        help=f"comma-separated groups among {', '.join(GROUPS)} (default: all; "
                        "with --quick: stage1,curve,cli)")
    args = parser.parse_args(argv)
    only = args.only or ("stage1,curve,cli" if args.quick else ",".join(GROUPS))
    groups = [g.strip() for g in only.split(",") if g.strip()]
    unknown = sorted(set(groups) - set(GROUPS))
    if unknown:
        parser.error(f"unknown group(s) {', '.join(unknown)}; groups are {', '.join(GROUPS)}")

    start = time.perf_counter()
    load_start = load_average()
    rows, notes = [], []
    if "stage1" in groups:
        import bench_stage1

        rows += bench_stage1.cases(quick=args.quick, runs=args.runs)
    if "curve" in groups:
        import bench_stage1

        rows += bench_stage1.curve(quick=args.quick)
    if "cli" in groups:
        import bench_cli

        rows += bench_cli.cases(quick=args.quick, runs=args.runs)
    if "second_pass" in groups:
        extra, note = _second_pass_rows(args.quick, args.runs)
        rows += extra
        if note:
            notes.append(note)
    else:
        why = "--quick leaves it out" if args.only is None else "not in --only"
        notes.append(f"second pass: not run ({why}; `--only second_pass` runs it)")

    kind = "quick smoke run, targets not judged" if args.quick else "full"
    print(f"multitest benchmarks ({kind})")
    print(machine())
    load_before, load_after = load_start, load_average()
    if load_before is not None:
        print(f"load average (1 min): {load_before:.1f} at the start, {load_after:.1f} at the "
              "end (other processes share the CPUs: above about 1, times are inflated)")
    print()
    print(format_table(rows, judge=not args.quick))
    for note in notes:
        print(f"\nNote: {note}")
    print(f"\n({time.perf_counter() - start:.0f} s in all)")
    failed = [r["case"] for r in rows if FAIL in r.get("note", "")
              or (not args.quick and r.get("ok") is False)]
    if failed:
        print(f"Not met or failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
