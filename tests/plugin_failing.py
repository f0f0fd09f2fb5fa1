"""User pairwise tests that raise, for tests/test_reliability.py (``--test plugin_failing:...``).

Both fail only on a pair whose cheaper algorithm has the fold value MARK.
"""
import numpy as np

MARK = 0.987654321


def picky(a, b):
    """Paired t statistic, but a ZeroDivisionError on the marked pair."""
    if np.any(a == MARK):
        raise ZeroDivisionError("the marked pair")
    d = a - b
    return float(d.mean()), 0.5


def picky_vectorized(a, b):
    """The same, vectorized."""
    if np.any(a == MARK):
        raise ValueError("a marked pair in this block")
    d = a - b
    return d.mean(axis=1), np.full(d.shape[0], 0.5)


picky_vectorized.vectorized = True


def exits(a, b):
    """Ends the interpreter (SystemExit), as a careless script's helper might."""
    raise SystemExit(1)
