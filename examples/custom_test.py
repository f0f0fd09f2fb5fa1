"""A custom pairwise test for multitest: an exact paired permutation test.

The test is a plain *scalar* function: it receives the per-fold errors of one
pair of algorithms as two 1-D arrays (``a`` the cheaper, ``b`` the costlier) and
returns ``(statistic, pvalue)``. ``@register_test`` makes it available by name
once this module is imported; accepting ``alternative`` makes one-sided tests
possible (``'greater'``: the costlier algorithm has the lower error).

Use it

- by running this file, which applies it to the bundled optdigits data::

      python examples/custom_test.py

- from the command line, by ``module:function`` path (``examples`` is not a
  package, so put the directory on the path)::

      PYTHONPATH=examples multitest ... --test custom_test:paired_permutation

- from Python::

      import sys; sys.path.insert(0, "examples")
      from multitest import get_test
      test = get_test("custom_test:paired_permutation")   # or "paired-permutation"
"""

from importlib import resources

import numpy as np

from multitest import get_test, register_test
from multitest.inputs import FoldDesign


@register_test("paired-permutation")
def paired_permutation(a, b, alternative="two-sided"):
    """Exact paired permutation test of the mean fold difference (all sign flips)."""
    d = np.asarray(a) - np.asarray(b)
    flips = (np.arange(2 ** d.size)[:, None] >> np.arange(d.size)) & 1
    null = np.where(flips == 1, -d, d).mean(axis=1)
    observed = d.mean()
    tol = 1e-12 * max(1.0, abs(observed))
    p_greater = np.mean(null >= observed - tol)
    p_less = np.mean(null <= observed + tol)
    if alternative == "greater":
        return observed, p_greater
    if alternative == "less":
        return observed, p_less
    return observed, min(1.0, 2 * min(p_less, p_greater))


def main():
    import pandas as pd

    path = resources.files("multitest") / "data" / "ulas2008" / "accuracy.csv"
    frame = pd.read_csv(path)
    frame = frame[frame["dataset"] == "optdigits"]
    frame = frame.sort_values(["algorithm", "replication", "fold"])
    errors = {name: 100 - group["accuracy"].to_numpy()
              for name, group in frame.groupby("algorithm")}
    names = sorted(errors)
    pairs = [(i, j) for i in names for j in names if i < j]
    a = np.array([errors[i] for i, _ in pairs])
    b = np.array([errors[j] for _, j in pairs])

    test = get_test("paired-permutation")
    statistic, pvalue = test(a, b, FoldDesign(replications=5, folds=2))
    print(f"{test.name}: {test.description}")
    print("optdigits, d = error(a) - error(b)")
    print(f"{'a':>5} {'b':>5} {'mean d':>8} {'p':>8}")
    for (i, j), s, p in zip(pairs, statistic, pvalue):
        print(f"{i:>5} {j:>5} {s:8.3f} {p:8.4f}")


if __name__ == "__main__":
    main()
