"""Speed and memory of the Bayesian tests and the effect sizes (issue 11, items 4 and 6).

Each case runs in a child process of its own (``common.python_child``), which
reports its wall time and peak resident memory:

1. stage 1 with ``bayes-correlated-t`` against the default ``combined-5x2cv-f``
   on the same synthetic 5x2 cv results (``multitest.rank`` end to end, second
   pass Nemenyi), S data sets x L algorithms;
2. the Bayesian signed-rank second pass (``bayesian_posthoc``, 50 000 samples)
   against baycomp's ``SignedRankTest`` on one pair (when baycomp is installed),
   and for every pair of L algorithms;
3. the over-data-set effect sizes (Hodges–Lehmann + Wilcoxon interval) of every pair.

Run::

    .venv/bin/python benchmarks/bench_bayesian.py [--quick]
"""

from __future__ import annotations

import argparse
import sys

from common import python_child

_STAGE1 = r"""
import time, numpy as np, pandas as pd
from multitest import rank
from multitest import Results
S, L, test = {S}, {L}, {test!r}
rng = np.random.default_rng(0)
errors = np.clip(rng.normal(0.2, 0.02, (S, L, 1)) + rng.normal(0, 0.01, (S, L, 10)), 0, 1)
rows = pd.DataFrame({{
    "dataset": np.repeat([f"d{{s}}" for s in range(S)], L * 10),
    "algorithm": np.tile(np.repeat([f"a{{j}}" for j in range(L)], 10), S),
    "replication": np.tile(np.repeat(np.arange(1, 6), 2), S * L),
    "fold": np.tile([1, 2], S * L * 5), "error": errors.ravel()}})
order = [f"a{{j}}" for j in range(L)]
start = time.perf_counter()
# rope applies to the Bayesian test only (rank() refuses it with another test)
bayesian = {{"rope": 0.01}} if test == "bayes-correlated-t" else {{}}
ranking = rank(rows, order, test=test, **bayesian)
RESULT = {{"seconds": time.perf_counter() - start,
          "tests": S * L * (L - 1) // 2}}
"""

_SECOND_PASS = r"""
import time, numpy as np
from multitest.stats import BayesSettings
from multitest.stats._bayesian_signed_rank import bayesian_posthoc
S, L = {S}, {L}
e = np.random.default_rng(1).normal(0.2, 0.03, (S, L))
start = time.perf_counter()
bayesian_posthoc(e, BayesSettings(rope=0.01), alpha=0.05)
RESULT = {{"seconds": time.perf_counter() - start, "pairs": L * (L - 1) // 2}}
"""

_BAYCOMP_ONE_PAIR = r"""
import time, numpy as np
import baycomp
from multitest.stats._bayesian_signed_rank import signed_rank
S = {S}
e = np.random.default_rng(1).normal(0.2, 0.03, (S, 2))
start = time.perf_counter()
baycomp.SignedRankTest.probs(e[:, 1], e[:, 0], rope=0.01, nsamples=50000, random_state=0)
theirs = time.perf_counter() - start
start = time.perf_counter()
signed_rank(e[:, 0], e[:, 1], rope=0.01, samples=50000, seed=0)
RESULT = {{"seconds": time.perf_counter() - start, "baycomp_seconds": theirs}}
"""

_EFFECTS = r"""
import time, numpy as np
from multitest.stats import over_datasets
S, L = {S}, {L}
e = np.round(np.random.default_rng(2).normal(0.2, 0.03, (S, L)), 4)
start = time.perf_counter()
over_datasets(e)
RESULT = {{"seconds": time.perf_counter() - start, "pairs": L * (L - 1) // 2}}
"""


_REPORT = r"""
import json, resource
RESULT["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(RESULT))
"""


def _run(code):
    """Run a snippet in a child of its own; its RESULT dict plus its peak memory."""
    return python_child(code + _REPORT)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small cases only")
    args = parser.parse_args(argv)
    stage1 = [(1000, 20)] if args.quick else [(1000, 20), (2000, 50)]
    print("stage 1, rank() end to end, 5x2 cv (wall s, peak MB):")
    for S, L in stage1:
        for test in ("combined-5x2cv-f", "bayes-correlated-t"):
            r = _run(_STAGE1.format(S=S, L=L, test=test))
            print(f"  S={S:5d} L={L:3d} {test:20s} {r['seconds']:7.2f} s "
                  f"{r['tests'] / r['seconds'] / 1e6:6.2f} M tests/s  peak {r['peak_mb']:.0f} MB")
    print("Bayesian signed-rank second pass, 50 000 samples:")
    for S in (38, 200):
        try:
            r = _run(_BAYCOMP_ONE_PAIR.format(S=S))
            print(f"  one pair, S={S:4d}: {r['seconds']:.3f} s "
                  f"(baycomp {r['baycomp_seconds']:.3f} s)")
        except Exception as exc:   # baycomp missing: report and go on
            print(f"  one pair, S={S}: baycomp comparison skipped ({exc})", file=sys.stderr)
    for S, L in ((38, 8), (100, 20)):
        r = _run(_SECOND_PASS.format(S=S, L=L))
        print(f"  all {r['pairs']:4d} pairs, S={S:4d}: {r['seconds']:.2f} s, "
              f"peak {r['peak_mb']:.0f} MB")
    print("Hodges-Lehmann + Wilcoxon interval of every pair over data sets:")
    for S, L in ((38, 8), (100, 50), (1000, 10)):
        r = _run(_EFFECTS.format(S=S, L=L))
        print(f"  S={S:5d} L={L:3d} ({r['pairs']} pairs): {r['seconds']:.2f} s")


if __name__ == "__main__":
    main()
