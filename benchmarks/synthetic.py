"""Seeded synthetic per-fold results for the benchmarks.

A realistic mixture, so that the decisions of every stage are non-trivial:

- each algorithm has a true quality (its expected error relative to the
  others): most algorithms are close to each other, a tenth are clearly better;
- each data set has a base difficulty, and an algorithm x data set interaction
  (no algorithm is best everywhere);
- 5x2 cross-validation: each replication shares a split effect (the same for
  every algorithm, as real paired folds do), each fold adds its own noise;
- the cost order is correlated with quality (costlier algorithms tend to be
  better, with noise), so the pairwise tests override the prior on some pairs
  (about a fifth at S = 1000, L = 100) and not on most.

Errors are rounded to 4 decimals (as accuracies are usually printed), so some
folds tie exactly.

Usage::

    python benchmarks/synthetic.py S L out.csv      # prints the --order, cheapest first
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

__all__ = ["make_errors", "cost_order", "write_csv", "algorithm_names", "dataset_names",
           "REPLICATIONS", "FOLDS"]

REPLICATIONS, FOLDS = 5, 2


def algorithm_names(L):
    return [f"alg{j:04d}" for j in range(L)]


def dataset_names(S):
    return [f"ds{s:04d}" for s in range(S)]


def _quality(L, rng):
    quality = rng.normal(0.0, 0.015, L)
    strong = rng.choice(L, size=max(1, L // 10), replace=False)
    quality[strong] -= rng.uniform(0.02, 0.06, strong.size)
    return quality


def make_errors(S, L, seed=0):
    """Errors of shape ``(S, L, 10)`` (5x2 cv, replication-major), in [0, 1]."""
    rng = np.random.default_rng(seed)
    quality = _quality(L, rng)
    difficulty = rng.uniform(0.05, 0.35, S)[:, None, None]
    interaction = rng.normal(0.0, 0.01, (S, L, 1))
    F = REPLICATIONS * FOLDS
    split = np.repeat(rng.normal(0.0, 0.01, (S, 1, REPLICATIONS)), FOLDS, axis=2)
    noise = rng.normal(0.0, 0.012, (S, L, F))
    errors = difficulty + quality[None, :, None] + interaction + split + noise
    return np.round(np.clip(errors, 0.0, 1.0), 4)


def cost_order(L, seed=0):
    """Algorithm names, cheapest first: better algorithms tend to be costlier."""
    quality = _quality(L, np.random.default_rng(seed))   # the draws of make_errors
    cost = -quality / 0.03 + np.random.default_rng(seed + 1).normal(0.0, 1.0, L)
    names = algorithm_names(L)
    return [names[j] for j in np.argsort(cost, kind="stable")]


def long_frame(errors):
    """The long-format table of an ``(S, L, 10)`` error array."""
    S, L, F = errors.shape
    return pd.DataFrame({
        "dataset": np.repeat(np.asarray(dataset_names(S), dtype=object), L * F),
        "algorithm": np.tile(np.repeat(np.asarray(algorithm_names(L), dtype=object), F), S),
        "replication": np.tile(np.arange(F) // FOLDS + 1, S * L),
        "fold": np.tile(np.arange(F) % FOLDS + 1, S * L),
        "error": errors.ravel(),
    })


def write_csv(path, S, L, seed=0):
    """Write the long CSV of :func:`make_errors`; return the cost order (cheapest first)."""
    long_frame(make_errors(S, L, seed)).to_csv(path, index=False, float_format="%.4f")
    return cost_order(L, seed)


if __name__ == "__main__":
    S, L, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    print(",".join(write_csv(out, S, L)))
