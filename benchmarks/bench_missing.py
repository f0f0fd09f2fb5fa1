"""The missing-result policies: what they cost, and that complete inputs pay nothing.

Two measurements, each a median of alternating runs in fresh processes:

1. ``rank()`` of complete synthetic results (S = 300, L = 30, 5x2 cv, sign-test second
   pass) with this checkout against another checkout given by ``--reference DIR`` (e.g. the
   main branch): the policies must not slow down complete inputs.
2. On the same results with 0.2 % of the fold results removed at random: ``drop``,
   ``worst`` and ``partial`` against ranking the complete results.

Usage::

    python benchmarks/bench_missing.py [--reference /work/main] [--runs 5]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

from common import in_checkout

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

_CHILD = r"""
import sys, time
sys.path.insert(0, {bench!r})
import numpy as np
from synthetic import algorithm_names, cost_order, dataset_names, make_errors
from multitest.inputs import Results
from multitest import rank
S, L = 300, 30
errors = make_errors(S, L, 0)
holes = errors.copy()
if {policy!r} != "complete":
    rng = np.random.default_rng(1)
    holes[rng.random(errors.shape) < 0.002] = np.nan
holes.setflags(write=False)
counted = {{}} if {policy!r} == "complete" else {{"n_missing": int(np.isnan(holes).sum())}}
results = Results(errors=holes, datasets=tuple(dataset_names(S)),
                  algorithms=tuple(algorithm_names(L)), replications=5,
                  folds_per_replication=2, has_folds=True, source="synthetic", **counted)
order = cost_order(L, 0)
options = {{}} if {policy!r} == "complete" else {{"missing": {policy!r}}}
start = time.process_time()
rank(results, order, second_pass="sign", **options)
print(time.process_time() - start)
"""


def _seconds(checkout, policy):
    code = _CHILD.format(bench=str(HERE), policy=policy)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, **in_checkout(checkout))
    return float(done.stdout.strip().splitlines()[-1])


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", default=None, help="another checkout (e.g. main)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"{platform.node()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    cases = [("complete", ROOT)] + ([("complete", Path(args.reference))] if args.reference
                                    else [])
    cases += [(policy, ROOT) for policy in ("drop", "worst", "partial")]
    times = {case: [] for case in cases}
    for _ in range(args.runs):   # alternate the cases, run after run
        for case in cases:
            times[case].append(_seconds(case[1], case[0]))
    base = _median(times[cases[0]])
    for (policy, checkout), values in times.items():
        print(f"{policy:>9} {str(checkout):<28} CPU {_median(values):6.3f} s "
              f"(x{_median(values) / base:.2f})")


if __name__ == "__main__":
    main()
