"""The fold design of a table of results: replications, folds, test/train ratio."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError, MultitestError

__all__ = ["FoldDesign"]


@dataclass(frozen=True)
class FoldDesign:
    """How the folds of an error array were produced.

    The fold axis of every error array is replication-major:
    ``(rep 1, fold 1), (rep 1, fold 2), ..., (rep 2, fold 1), ...``.

    Parameters
    ----------
    replications : int
        Number of replications ``r`` (5 for 5x2 cv, 1 for plain k-fold cv).
    folds : int
        Number of folds ``k`` per replication (2 for 5x2 cv; 1 for random
        subsampling, one test set per replication).
    test_train_ratio : float, optional
        ``n_test / n_train`` of every split, used by the corrected resampled t
        test; None (default) means ``1 / (k - 1)``, that of k-fold cv. Any
        input :func:`parse_test_train_ratio` accepts (``"1/9"``, ``(100, 900)``).

    Raises
    ------
    MultitestError
        If either count is not a positive integer or the ratio is not a
        positive finite number.

    Examples
    --------
    >>> from multitest.inputs import FoldDesign
    >>> design = FoldDesign(replications=5, folds=2)
    >>> design.n, design.is_5x2, str(design)
    (10, True, '5x2')
    """

    replications: int
    folds: int
    test_train_ratio: float | None = None

    def __post_init__(self):
        for field in ("replications", "folds"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise MultitestError(f"`{field}` must be a positive integer; got {value!r}")
            object.__setattr__(self, field, int(value))
        if self.test_train_ratio is not None:
            object.__setattr__(self, "test_train_ratio",
                               parse_test_train_ratio(self.test_train_ratio))

    @property
    def n(self) -> int:
        """Total number of folds, ``replications * folds``."""
        return self.replications * self.folds

    @property
    def is_5x2(self) -> bool:
        """Whether this is 5x2 cross-validation."""
        return self.replications == 5 and self.folds == 2

    def __str__(self):
        return f"{self.replications}x{self.folds}"


def parse_test_train_ratio(value):
    """``n_test / n_train`` from a number, a pair of sizes or a string.

    Parameters
    ----------
    value : float, (n_test, n_train) or str
        A positive number; two positive sizes; or a string ``"0.111"``,
        ``"1/9"`` or ``"100/900"`` (command line, YAML).

    Returns
    -------
    float

    Raises
    ------
    MultitestError
        If `value` is not one of these or not positive and finite.

    Examples
    --------
    >>> from multitest.inputs._design import parse_test_train_ratio
    >>> parse_test_train_ratio("1/9") == parse_test_train_ratio((100, 900)) == 1 / 9
    True
    """
    message = (f"`test_train_ratio` must be a positive number, two sizes (n_test, n_train) "
               f"or a string like '1/9'; got {value!r}")
    parts = value.split("/") if isinstance(value, str) else (
        list(value) if isinstance(value, (tuple, list)) else [value])
    if len(parts) not in (1, 2):
        raise MultitestError(message)
    try:
        numbers = [float(part) for part in parts]
    except (TypeError, ValueError):
        raise MultitestError(message) from None
    if any(isinstance(part, bool) for part in parts) or not all(
            np.isfinite(x) and x > 0 for x in numbers):
        raise MultitestError(message)
    return numbers[0] / numbers[1] if len(numbers) == 2 else numbers[0]


#: The optional column of a long table holding the test/train ratio of its splits (one value
#: for the whole input: one design), written by :meth:`Results.to_frame` and the
#: scikit-learn readers so that the ratio survives ``DataFrame.to_csv``.
RATIO_COLUMN = "test_train_ratio"


def ratio_column(values, source=None, row_offset=0):
    """The one test/train ratio of a long table's :data:`RATIO_COLUMN` (texts or numbers).

    Raises
    ------
    InputError
        Naming the row and the column: a value that is not a number in (0, inf)
        (an empty cell included), or a value other than the first row's (the
        ratio belongs to the design, one for the whole input).

    Examples
    --------
    >>> ratio_column(["0.25", "0.25"]) == 0.25
    True
    """
    values = np.asarray(values, dtype=object)
    numbers = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers > 0)))
    if bad.size:
        raise InputError(f"test/train ratio {str(values[bad[0]]).strip()!r} is not a number "
                         "in (0, inf) (n_test / n_train of the splits)", source=source,
                         row=int(bad[0]) + row_offset, field=RATIO_COLUMN)
    other = np.flatnonzero(numbers != numbers[0])
    if other.size:
        raise InputError(f"test/train ratio {numbers[other[0]]:g} differs from "
                         f"{numbers[0]:g} of row {row_offset}: one fold design, one ratio for "
                         "the whole input", source=source, row=int(other[0]) + row_offset,
                         field=RATIO_COLUMN)
    return float(numbers[0])


#: The key of :attr:`pandas.DataFrame.attrs` where a reader of scikit-learn's results
#: leaves what the columns of its long table cannot hold: the test/train ratio of its
#: splits (``"test_train_ratio"``) and the notes on its design (``"notes"``).
FRAME_ATTRS = "multitest"


def frame_attrs(test_train_ratio, notes):
    """The :data:`FRAME_ATTRS` entry of a long table: its splits' ratio, its notes."""
    return {FRAME_ATTRS: {"test_train_ratio": test_train_ratio, "notes": tuple(notes)}}


def frame_design(frame):
    """``(test_train_ratio or None, notes)`` a long table carries in its attrs.

    A table without the entry (any table not made by the scikit-learn readers, or
    one whose entry :func:`pandas.concat` dropped: tables of different designs)
    carries neither: the ratio is then that of k-fold cv, or rank's own.

    Raises
    ------
    MultitestError
        If the entry is not what :func:`frame_attrs` makes.
    """
    entry = frame.attrs.get(FRAME_ATTRS)
    if entry is None:
        return None, ()
    try:
        ratio, notes = entry["test_train_ratio"], tuple(entry["notes"])
    except (TypeError, KeyError):
        raise MultitestError(f"DataFrame.attrs[{FRAME_ATTRS!r}] must be a dict of "
                             "'test_train_ratio' and 'notes'") from None
    if not all(isinstance(note, str) for note in notes):
        raise MultitestError(f"DataFrame.attrs[{FRAME_ATTRS!r}]['notes'] must be texts")
    return (None if ratio is None else parse_test_train_ratio(ratio)), notes


def with_frame_design(results, frame):
    """`results` with the test/train ratio and the notes `frame` carries (its attrs); a
    ratio in its attrs and another in its ``test_train_ratio`` column are refused."""
    ratio, notes = frame_design(frame)
    if ratio is None and not notes:
        return results
    column = results.test_train_ratio
    if ratio is not None and column is not None and not np.isclose(ratio, column,
                                                                   rtol=1e-12, atol=0):
        raise MultitestError(f"the DataFrame's test/train ratio {column:g} (column "
                             f"'{RATIO_COLUMN}') and {ratio:g} (its attrs) differ: one design, "
                             "one ratio")
    return dataclasses.replace(results, test_train_ratio=column if ratio is None else ratio,
                               notes=results.notes + notes)
