"""What the output-folder transaction costs (``multitest.outputs._transaction``).

Times, in one process, the part of writing an output folder that is not
writing the files themselves: lock, repair, the checks, the manifest (sizes
and SHA-256 of every file), the journal and the renames, replacing a previous
run of the same shape.  Cases:

- ``many small``: 400 files of 4 kB (the DOT sources of a 200-data-set run);
- ``one large``: one 120 MB file (``pairwise.npz`` of a large run) and 8 small.

The baseline is the former ``atomic_directory``: a staging folder beside the
output, each file moved in with ``os.replace``, no manifest and nothing
removed.  Medians over ``--runs`` runs; the files are written before the clock
starts (``os.replace`` of a file already in the staging folder).

Run::

    .venv/bin/python benchmarks/bench_outdir.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from multitest.outputs import transaction   # noqa: E402

CASES = {"many small": [(f"f{i}.dot", 4096) for i in range(400)],
         "one large": [("pairwise.npz", 120 << 20)] + [(f"t{i}.csv", 4096) for i in range(8)]}


def _fill(folder, files):
    for name, size in files:
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(os.urandom(min(size, 1 << 20)) * max(1, size >> 20))


def time_transaction(out, files):
    """Seconds from the end of the writer's work to the committed folder."""
    clock = {}
    with transaction(out) as staging:
        _fill(staging, files)
        clock["start"] = time.perf_counter()
    return time.perf_counter() - clock["start"]


def time_baseline(out, files):
    parent = os.path.dirname(out)
    staging = tempfile.mkdtemp(prefix=".baseline-", dir=parent)
    _fill(staging, files)
    start = time.perf_counter()
    os.makedirs(out, exist_ok=True)
    for name, _ in files:
        os.replace(os.path.join(staging, name), os.path.join(out, name))
    shutil.rmtree(staging)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print(f"{'case':<12} {'transaction s':>14} {'baseline s':>11}  (median of {runs})")
    with tempfile.TemporaryDirectory() as tmp:
        for case, files in CASES.items():
            ours = [time_transaction(os.path.join(tmp, "ours"), files) for _ in range(runs)]
            base = [time_baseline(os.path.join(tmp, "base"), files) for _ in range(runs)]
            print(f"{case:<12} {statistics.median(ours):>14.3f} {statistics.median(base):>11.3f}")
            shutil.rmtree(os.path.join(tmp, "ours"))
            shutil.rmtree(os.path.join(tmp, "base"))


if __name__ == "__main__":
    main()
