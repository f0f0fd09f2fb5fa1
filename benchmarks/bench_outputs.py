"""Issue 20 item 1 (c): the time of writing the outputs of ``multitest rank``, side by side
with a reference source tree.

Each run is a fresh child process per tree, alternated (reference, this tree, reference,
...): it ranks the seeded synthetic S x L results of ``synthetic.py`` in memory, then times
``write_outputs`` into a new folder (the whole: ``result.json``, the CSV tables, the
pairwise file, the transaction), then ``result.json`` alone and the CSV tables alone
(``stage_tables`` + ``write_csv``, or ``stage_table_parts`` + ``write_csv_parts`` where the
tree has them).  Medians of ``--runs`` runs and their ratio; the header gives date,
machine and load.

Run::

    git archive 479b730 | tar -x -C /tmp/reference
    .venv/bin/python benchmarks/bench_outputs.py --reference /tmp/reference [--runs 5]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import in_checkout, load_average, median  # noqa: E402

HERE = Path(__file__).resolve().parent

_CHILD = r"""
import importlib, json, os, sys, time
import synthetic
from multitest import rank
from multitest.inputs import Results
from multitest import outputs


def writer(name, module):
    # Older checkouts export these from multitest.outputs; since 0.4 they are private.
    if hasattr(outputs, name):
        return getattr(outputs, name)
    try:
        return getattr(importlib.import_module(f"multitest.outputs.{module}"), name, None)
    except ImportError:
        return None


S, L, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
results = Results(errors=synthetic.make_errors(S, L, 0),
                  datasets=tuple(synthetic.dataset_names(S)),
                  algorithms=tuple(synthetic.algorithm_names(L)), replications=5,
                  folds_per_replication=2, has_folds=True, source="synthetic.csv")
ranking = rank(results, synthetic.cost_order(L, 0))
took = {}
start = time.perf_counter()
outputs.write_outputs(ranking, os.path.join(out, "all"))
took["write_outputs"] = time.perf_counter() - start
start = time.perf_counter()
with open(os.path.join(out, "result.json"), "w", encoding="utf-8") as handle:
    writer("write_json", "_json")(ranking, handle)
took["result.json"] = time.perf_counter() - start
start = time.perf_counter()
stage_table_parts = writer("stage_table_parts", "_tables")
if stage_table_parts is not None:
    per_part = max(1, writer("TABLE_CELLS", "_write") // (L + 2))
    for name, parts in stage_table_parts(ranking, datasets=per_part).items():
        writer("write_csv_parts", "_csv")(parts, os.path.join(out, name))
else:
    for name, table in writer("stage_tables", "_tables")(ranking).items():
        writer("write_csv", "_csv")(table, os.path.join(out, name))
took["csv tables"] = time.perf_counter() - start
print(json.dumps(took))
"""


def _child(tree, S, L):
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([sys.executable, "-c", _CHILD, str(S), str(L), out],
                              capture_output=True, text=True, **in_checkout(tree, HERE))
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True, help="source tree of the reference")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--datasets", type=int, default=10_000)
    parser.add_argument("--algorithms", type=int, default=100)
    args = parser.parse_args()
    S, L = args.datasets, args.algorithms
    trees = {"reference": Path(args.reference).resolve(), "this tree": HERE.parent}
    print(f"# bench_outputs  {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"
          f"  {platform.node()}  {os.cpu_count()} CPUs  load {load_average()}"
          f"  S = {S} x L = {L}, {args.runs} alternated runs (medians)")
    times = {name: [] for name in trees}
    for _ in range(args.runs):
        for name, tree in trees.items():
            times[name].append(_child(tree, S, L))
    steps = list(times["reference"][0])
    print(f"{'step':<16}{'reference':>12}{'this tree':>12}{'ratio':>8}")
    for step in steps:
        a, b = (median([run[step] for run in times[name]]) for name in trees)
        print(f"{step:<16}{a:>11.2f}s{b:>11.2f}s{b / a:>8.2f}")


if __name__ == "__main__":
    main()
