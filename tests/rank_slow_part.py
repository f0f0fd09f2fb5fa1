"""``multitest rank`` whose task of the second part, the first time it runs, names its worker
process and waits to be killed (for ``tests/test_rank_cluster.py``).

Usage: ``python rank_slow_part.py MARKER [--small-parts RANGE_BYTES GROUP_ROWS] ARGS...``:
``ARGS`` are ``multitest``'s (the parts as ``rank_small_parts.py`` makes them).  The
local cluster's workers are forked from this process, so they run the patched task.
"""
import os
import sys
import time

from multitest.cli import main
from multitest.inputs import _split
from multitest.run import _rank_cluster

MARKER = sys.argv[1]
_write = _rank_cluster.write_pairwise_arrays


def _slow_write(path, results, table, settings):
    if os.path.basename(path).startswith("part-00001.") and not os.path.exists(MARKER):
        with open(MARKER + ".tmp", "w") as handle:
            handle.write(str(os.getpid()))
        os.replace(MARKER + ".tmp", MARKER)
        time.sleep(120)      # killed here; bounded if it is not
    _write(path, results, table, settings)


_rank_cluster.write_pairwise_arrays = _slow_write
ARGS = sys.argv[2:]
if ARGS[0] == "--small-parts":
    _split.RANGE_BYTES, _split.GROUP_ROWS = int(ARGS[1]), int(ARGS[2])
    ARGS = ARGS[3:]
sys.argv[1:] = ARGS
sys.exit(main())      # as the command line runs it
