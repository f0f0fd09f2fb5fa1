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


def bad_pvalue(a, b):
    """A p-value of NaN, 1.5 or None on the marked pair (0.5 elsewhere)."""
    if np.any(a == MARK):
        return 0.0, {"nan": float("nan"), "high": 1.5, "none": None}[BAD]
    return float((a - b).mean()), 0.5


def bad_pvalue_vectorized(a, b):
    """The same, vectorized."""
    marked = (a == MARK).any(axis=1)
    pvalue = np.where(marked, {"nan": np.nan, "high": 1.5, "none": np.nan}[BAD], 0.5)
    return (a - b).mean(axis=1), pvalue


bad_pvalue_vectorized.vectorized = True
#: Which bad p-value the bad_pvalue tests return (set by the test before ranking).
BAD = "nan"
