"""``multitest`` with small parts for ``multitest rank --workers`` (for
``tests/test_rank_cluster.py``): tiny files are split as large ones are.

Usage: ``python rank_small_parts.py RANGE_BYTES GROUP_ROWS ARGS...``: ``ARGS`` are
``multitest``'s; a CSV file is cut into ranges of about ``RANGE_BYTES`` bytes, a Parquet
file's row groups into runs of at least ``GROUP_ROWS`` rows.
"""
import sys

from multitest.cli import main
from multitest.inputs import _split

_split.RANGE_BYTES, _split.GROUP_ROWS = int(sys.argv[1]), int(sys.argv[2])
sys.exit(main(sys.argv[3:]))
