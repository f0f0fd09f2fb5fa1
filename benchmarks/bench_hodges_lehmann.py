"""CPU of the over-data-sets Hodges–Lehmann intervals (``over_datasets``), side by side.

The reference is ``multitest/stats/_effect_sizes.py`` as of a git revision (default
``720747a``, before the intervals at scale), loaded beside the working copy in the same
process (a revision whose ``_effect_sizes.py`` imports ``._walsh``, split off it in issue 39,
is refused: its helpers would come from the working copy); both run alternately on the same inputs, ``--runs`` times each, and the table
gives the medians of their CPU times (``time.process_time``) and the ratio.  Every run
also checks that the two give the same floats (estimate, low, high, level).

Inputs: mean errors ``np.round(rng.uniform(0.1, 0.4, (S, L)), 4)`` (seed 1; heavily tied,
as real mean errors with 4 decimals), every pair ``a < b``.

Run::

    .venv/bin/python benchmarks/bench_hodges_lehmann.py [--revision 720747a] [--runs 5]
"""

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CASES = [(1000, 20), (100, 200), (106, 20)]


def reference_module(revision):
    """``multitest.stats._effect_sizes`` at ``revision``, as ``multitest.stats._hl_reference``."""
    source = subprocess.run(["git", "-C", str(ROOT), "show",
                             f"{revision}:multitest/stats/_effect_sizes.py"],
                            capture_output=True, text=True, check=True).stdout
    if "from ._walsh" in source:
        sys.exit(f"{revision}: its _effect_sizes.py imports the working copy's ._walsh modules; "
                 "compare with a revision before their split, or check one out to compare with")
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "_hl_reference.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location("multitest.stats._hl_reference", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def cpu(call):
    start = time.process_time()
    result = call()
    return time.process_time() - start, result


def fields(effects):
    return np.stack([effects.hodges_lehmann, effects.low, effects.high, effects.level])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--revision", default="720747a")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from multitest.stats import _effect_sizes as current
    reference = reference_module(args.revision)
    rng = np.random.default_rng(1)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.uname().nodename}, "
          f"load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print(f"{'S x L':>10} {'pairs':>7} {'reference s':>12} {'current s':>10} {'ratio':>6}")
    for S, L in CASES:
        m = np.round(rng.uniform(0.1, 0.4, (S, L)), 4)
        for module in (reference, current):      # warm: caches, lazy imports
            module.over_datasets(m[:60, :4])
        times = {reference: [], current: []}
        for _ in range(args.runs):
            results = {}
            for module in (reference, current):
                seconds, results[module] = cpu(lambda module=module: module.over_datasets(m))
                times[module].append(seconds)
            if not np.array_equal(fields(results[reference]), fields(results[current]),
                                  equal_nan=True):
                raise SystemExit(f"different floats at S={S}, L={L}")
        before, after = (statistics.median(times[k]) for k in (reference, current))
        print(f"{S:>5} x {L:<3} {L * (L - 1) // 2:>7} {before:>12.3f} {after:>10.3f} "
              f"{before / after:>6.1f}")
    print(f"# load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
