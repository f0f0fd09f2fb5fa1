"""Issue 20 item 1: ``multitest rank --workers N`` on a local Dask cluster, and the client's
peak memory.

Two measurements, each in fresh child processes (the header gives date, machine, load):

- **side by side** at ``--compare`` data sets (default 10,000 x L = 100, 49.5 M tests):
  ``multitest rank FOLDER`` in one process against ``multitest rank FOLDER --workers N``,
  alternated ``--runs`` times, medians and their ratio; the peak memory of the
  single process against the client's (the process that runs the second pass and writes
  the outputs; the workers are its forked children and have their own).
- **the large case** at ``--datasets`` (default 200,000 x L = 100: 10^9 tests) on the
  cluster only, once: wall time and the client's peak memory (target <= 2 GB).

The input is a folder of Parquet files of ``--per-part`` data sets each (the seeded
recipe of ``synthetic.py``: the algorithms' qualities of seed 0, each file's data sets
from a seed of its own), written by a child process beforehand; with ``--csv``, the same
rows as one CSV file (ranked by ``--workers`` in byte ranges of 64 MB).

Run::

    .venv/bin/python benchmarks/bench_cluster.py [--runs 3] [--datasets 200000] [--compare 10000]

Issue 40 (one CSV file of 84 MB, read in two ranges; ``--reference``: the code before)::

    .venv/bin/python benchmarks/bench_cluster.py --csv --algorithms 10 --compare 28000 \
        --per-part 2000 --datasets 0 --runs 3 --reference CHECKOUT
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
from common import load_average, median, python_child  # noqa: E402

_WRITE = r"""
import json, os, sys
import numpy as np
import synthetic
folder, S, L, per_part = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
csv = sys.argv[5] == "csv"
os.makedirs(folder, exist_ok=True)
quality = synthetic._quality(L, np.random.default_rng(0))
for k, s0 in enumerate(range(0, S, per_part)):
    n = min(per_part, S - s0)
    rng = np.random.default_rng(1000 + k)
    F = synthetic.REPLICATIONS * synthetic.FOLDS
    errors = (rng.uniform(0.05, 0.35, n)[:, None, None] + quality[None, :, None]
              + rng.normal(0.0, 0.01, (n, L, 1))
              + np.repeat(rng.normal(0.0, 0.01, (n, 1, synthetic.REPLICATIONS)),
                          synthetic.FOLDS, axis=2)
              + rng.normal(0.0, 0.012, (n, L, F)))
    frame = synthetic.long_frame(np.round(np.clip(errors, 0.0, 1.0), 4))
    frame["dataset"] = np.repeat(np.array([f"ds{s:07d}" for s in range(s0, s0 + n)],
                                          dtype=object), L * F)
    if csv:
        frame.to_csv(os.path.join(folder, "results.csv.tmp"), index=False, header=k == 0,
                     mode="w" if k == 0 else "a")
    else:
        frame.to_parquet(os.path.join(folder, f"part-{k:05d}.parquet"), index=False)
print(json.dumps({"order": ",".join(synthetic.cost_order(L, 0))}))
"""

#: The command in this process: its own peak memory is the client's (or the single run's).
_RANK = r"""
import json, resource, sys, time
from multitest.cli import main
start = time.perf_counter()
code = main(["--quiet", "rank", *sys.argv[1:]])
took = time.perf_counter() - start
print(json.dumps({"s": took, "code": code,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _input(folder, S, L, per_part, csv=False):
    """Write the input; ``(what to rank, the cost order)``."""
    order = python_child(_WRITE, folder, S, L, per_part, "csv" if csv else "parquet")["order"]
    if not csv:
        return folder, order
    path = os.path.join(os.path.dirname(folder), f"{os.path.basename(folder)}.csv")
    os.replace(os.path.join(folder, "results.csv.tmp"), path)
    return path, order


def _rank(folder, order, out, *cluster, checkout=None):
    shutil.rmtree(out, ignore_errors=True)
    result = python_child(_RANK, folder, "--order", order, "--out", out, *cluster,
                          checkout=checkout)
    if result["code"] != 0:
        raise RuntimeError(f"multitest rank exited with {result['code']}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--algorithms", type=int, default=100)
    parser.add_argument("--compare", type=int, default=10_000)
    parser.add_argument("--datasets", type=int, default=200_000)
    parser.add_argument("--per-part", type=int, default=5_000)
    parser.add_argument("--tmp", default=None, help="folder for the inputs and outputs")
    parser.add_argument("--csv", action="store_true",
                        help="the --compare input as one CSV file, not a folder of Parquet")
    parser.add_argument("--reference", default=None, metavar="CHECKOUT",
                        help="also alternate the --workers run of another source tree")
    args = parser.parse_args()
    L = args.algorithms
    P = L * (L - 1) // 2
    print(f"# bench_cluster  {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"
          f"  {platform.node()}  {os.cpu_count()} CPUs  load {load_average()}")
    cluster = ["--workers", str(args.workers)]
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        if args.compare:
            S = args.compare
            folder, order = _input(os.path.join(tmp, f"in{S}"), S, L, args.per_part, args.csv)
            single, workers, reference = [], [], []
            for _ in range(args.runs):
                single.append(_rank(folder, order, os.path.join(tmp, "single")))
                workers.append(_rank(folder, order, os.path.join(tmp, "cluster"), *cluster))
                if args.reference:
                    reference.append(_rank(folder, order, os.path.join(tmp, "reference"),
                                           *cluster, checkout=args.reference))
            s1, s2 = (median([r["s"] for r in runs]) for runs in (single, workers))
            m1, m2 = (median([r["peak_mb"] for r in runs]) for runs in (single, workers))
            print(f"S = {S} x L = {L} ({S * P / 1e6:.1f} M tests), "
                  f"{'one CSV file' if args.csv else 'Parquet files'}, "
                  f"{args.runs} alternated runs:")
            print(f"  one process        {s1:8.1f} s   peak {m1:7.0f} MB")
            print(f"  --workers {args.workers:<8} {s2:8.1f} s   client peak {m2:7.0f} MB"
                  f"   (time {s2 / s1:.2f}x, memory {m2 / m1:.2f}x)")
            if reference:
                s3 = median([r["s"] for r in reference])
                print(f"  --workers {args.workers} of {args.reference}: {s3:8.1f} s   (time "
                      f"{s3 / s1:.2f}x)")
            shutil.rmtree(os.path.join(tmp, f"in{S}"))
        if args.datasets:
            S = args.datasets
            folder, order = _input(os.path.join(tmp, f"in{S}"), S, L, args.per_part)
            result = _rank(folder, order, os.path.join(tmp, "large"), *cluster)
            print(f"S = {S} x L = {L} ({S * P / 1e9:.2f} G tests) --workers {args.workers}: "
                  f"{result['s']:.1f} s, client peak {result['peak_mb']:.0f} MB "
                  f"(target <= 2048 MB)")


if __name__ == "__main__":
    main()
