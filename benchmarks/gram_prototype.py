"""The minimal NumPy prototype of stage 1's decisions that issue 20 measures stage 1 against.

Every pair's combined 5x2 cv F numerator ``N`` and denominator ``D`` from Gram
matrices, one batched product per chunk of data sets, the decision ``N > c D``
and the override ``decision & mean(b) < mean(a)``: no guard, no threads, no
checks.  It is a speed reference, not a correct implementation (pairs within
rounding of the critical value may differ).
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["prototype_overrides"]


def prototype_overrides(errors, prior, alpha=0.05, chunk=1 << 19):
    """Override decisions ``(S, P)`` of the combined 5x2 cv F test, pairs in prior order."""
    S, L, F = errors.shape
    critical = special.fdtri(10, 5, 1 - alpha)
    first, second = np.triu_indices(L, k=1)
    flat = first * L + second
    out = np.empty((S, first.size), dtype=bool)
    step = max(1, chunk // (L * L))
    for s0 in range(0, S, step):
        x = np.take_along_axis(errors[s0:s0 + step], prior[s0:s0 + step, :, None], axis=1)
        n = x.shape[0]
        # One product: the folds and the within-replication differences (zero-padded).
        both = np.zeros((2 * n, L, F))
        both[:n] = x
        both[n:, :, :F // 2] = x[..., 0::2] - x[..., 1::2]
        gram = both @ both.transpose(0, 2, 1)
        diagonal = np.diagonal(gram, axis1=1, axis2=2).copy()
        gram *= -2
        gram += diagonal[:, :, None]
        gram += diagonal[:, None, :]                        # |u_i - u_j|^2
        decided = gram[:n] > critical * gram[n:]             # N > c D
        means = x.mean(axis=2)
        decided &= means[:, None, :] < means[:, :, None]
        out[s0:s0 + n] = np.take(decided.reshape(n, -1), flat, axis=1)
    return out
