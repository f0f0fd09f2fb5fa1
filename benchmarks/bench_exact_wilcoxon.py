"""Cost of the exact conditional Wilcoxon signed-rank test (issue 11).

Prints two tables:

1. ``signed_rank_test`` per row (one pair of algorithms) against the number
   ``n`` of non-zero differences, without ties (the null distribution is
   computed once per ``n`` and cached: the first call pays for it, the table
   shows the first and a repeated call) and with ties (a dynamic programme per
   row over doubled mid-ranks, O(n^3)).
2. The second pass ``pairwise_over_datasets`` on the seeded data of
   ``bench_second_pass.py`` (mean errors rounded to 4 decimals, so nearly every
   pair has tied differences), exact (``"wilcoxon"``) against scipy's
   conventions (``"wilcoxon-scipy"``, normal approximation beyond 13 data sets
   with ties), with the time projected to L = 300 algorithms (44 850 pairs).

Times are wall-clock medians of a few runs in this process; the machine may be
shared, so read them as orders of magnitude.

Run::

    .venv/bin/python benchmarks/bench_exact_wilcoxon.py
"""

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_second_pass import synthetic_errors  # noqa: E402

from multitest.stats._over_datasets import pairwise_over_datasets  # noqa: E402
from multitest.stats._signed_rank import _untied_cdf, signed_rank_test   # noqa: E402

ROWS = {14: 4000, 50: 1000, 100: 300, 300: 20, 1000: 2}
SECOND_PASS = [(20, 60), (100, 30), (1000, 6)]
RUNS = 3


def median_time(call, runs=RUNS):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def per_row_table():
    rng = np.random.default_rng(20261122)
    print("signed_rank_test, ms per row (pair)")
    print(f"{'n':>6} {'rows':>6} {'untied first':>13} {'untied again':>13} {'tied':>10}")
    for n, rows in ROWS.items():
        untied = rng.normal(0.02, 0.05, (rows, n))
        tied = np.round(untied, 2)                    # about 10 distinct |d| per 0.1
        _untied_cdf.cache_clear()
        first = median_time(lambda: signed_rank_test(untied), runs=1)
        again = median_time(lambda: signed_rank_test(untied))
        with_ties = median_time(lambda: signed_rank_test(tied), runs=1)
        print(f"{n:>6} {rows:>6} {1e3 * first / rows:>13.3f} {1e3 * again / rows:>13.3f} "
              f"{1e3 * with_ties / rows:>10.2f}")


def second_pass_table():
    print("\npairwise_over_datasets + holm, seconds (projected to L = 300: x pairs ratio)")
    print(f"{'S':>6} {'L':>4} {'pairs':>6} {'exact':>9} {'scipy':>9} {'exact L=300':>12}")
    for n_datasets, n_algorithms in SECOND_PASS:
        errors = synthetic_errors(n_datasets, n_algorithms)
        pairs = n_algorithms * (n_algorithms - 1) // 2
        exact = median_time(lambda: pairwise_over_datasets(errors, "wilcoxon"), runs=1)
        scipy_mode = median_time(lambda: pairwise_over_datasets(errors, "wilcoxon-scipy"))
        print(f"{n_datasets:>6} {n_algorithms:>4} {pairs:>6} {exact:>9.3f} {scipy_mode:>9.3f} "
              f"{exact * 44850 / pairs:>12.0f}")


if __name__ == "__main__":
    per_row_table()
    second_pass_table()
