"""Stage 1 on one thread and on two: does it use the second core?

:func:`multitest.engine._stage1.run_pairwise_tests` (the combined 5x2 cv F test,
decisions only above 8.4 M tests, as ``multitest rank`` runs it) on seeded
synthetic errors, with the stage-1 threads set to 1 and to 2.  Each size runs
in a child process of its own; best of ``runs`` wall times, with the CPU time
(all threads) of that run and the load average, since the machine is shared:
a speed-up needs an idle second core.

Run::

    .venv/bin/python benchmarks/bench_stage1_threads.py [--quick]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import load_average, python_child  # noqa: E402

CASES = ((2000, 100), (10000, 100), (100, 1000))
QUICK = ((2000, 100),)

_CHILD = r"""
import json, sys, time
import numpy as np
from synthetic import algorithm_names, cost_order, make_errors
from multitest.engine import _stage1 as stage1
from multitest.engine._per_dataset import prior_positions
from multitest.inputs import FoldDesign
from multitest import get_test
S, L, threads, runs = map(int, sys.argv[1:5])
stage1._threads = lambda: threads
errors = make_errors(S, L)
names = algorithm_names(L)
position = {a: i for i, a in enumerate(cost_order(L))}
keys = np.tile([float(position[a]) for a in names], (S, 1))[None]
prior = prior_positions(keys, names)
best = None
for _ in range(runs):
    wall, cpu = time.perf_counter(), time.process_time()
    stage1.run_pairwise_tests(errors, prior, get_test("combined-5x2cv-f"), FoldDesign(5, 2),
                                   alpha=0.05, correction="none", alternative="two-sided")
    run = (time.perf_counter() - wall, time.process_time() - cpu)
    best = run if best is None or run[0] < best[0] else best
print(json.dumps({"wall_s": best[0], "cpu_s": best[1]}))
"""


def main(argv):
    quick = "--quick" in argv
    runs = 2 if quick else 3
    print(f"stage 1, combined-5x2cv-f, best of {runs} (wall s / CPU s of all threads)")
    print(f"{'S':>6} {'L':>5} {'tests':>11} {'1 thread':>14} {'2 threads':>14} {'speed-up':>9}"
          f"  load")
    for S, L in (QUICK if quick else CASES):
        one, two = (python_child(_CHILD, S, L, threads, runs) for threads in (1, 2))
        speed_up = one["wall_s"] / two["wall_s"]
        print(f"{S:>6} {L:>5} {S * L * (L - 1) // 2:>11,} "
              f"{one['wall_s']:>6.2f} / {one['cpu_s']:>5.2f} {two['wall_s']:>6.2f} / "
              f"{two['cpu_s']:>5.2f} {speed_up:>8.2f}x  {load_average():.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
