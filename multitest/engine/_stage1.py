"""Stage 1: the pairwise tests of every data set, vectorized over pairs and data sets.

The tests run together in blocks of data sets, so that memory stays bounded however many
data sets there are; the result is one :class:`PairwiseTable` whose rows are the data sets.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._progress import progress
from ..stats._corrections import adjust_pvalues

__all__ = ["PairwiseTable", "decision_design"]

#: Pairs x folds of one block of data sets, tested at once (8 MB per array of floats);
#: on the decisions-only path, errors of the block's data sets.
_BLOCK_ELEMENTS = 1 << 20
#: Up to this many tests stage 1 keeps its statistics and p-values: the outputs list every
#: one of them up to 20,000 (INLINE_PAIRS_LIMIT, FIGURE_PAIRS_LIMIT); above, only the
#: decisions, and the rest is recomputed on access (LazyRows): kept, they took 1.25 GB at
#: S = 10,000 x L = 100 (two arrays of 396 MB), recomputed 0.49 GB.
_EAGER_TESTS = 20_000


@dataclass(frozen=True, eq=False)
class PairwiseTable:
    """Every pairwise test of every data set, pairs in prior (cost) order.

    Pair ``p`` of data set ``s`` compares the algorithms at cost positions
    ``cheaper[p] < costlier[p]``: ``prior[s, cheaper[p]]`` is the cheaper algorithm.

    Attributes
    ----------
    prior : ndarray of int, shape (S, L)
    cheaper, costlier : ndarray of int, shape (P,)
        The cost positions of the cheaper and the costlier algorithm of each pair.
    statistic, pvalue, pvalue_adjusted : ndarray, shape (S, P)
        ``statistic`` is oriented cheaper minus costlier (positive t: the
        costlier has the lower error).  ``pvalue_adjusted`` is ``pvalue``
        after the within-data-set correction.
    override : ndarray of bool, shape (S, P)
        The costlier is significantly better than the cheaper.
    mean_errors : ndarray, shape (S, L)
        Mean error of each algorithm (input order).
    evidence : str
        What ``pvalue`` holds (a class attribute): ``'p-value'`` here; the
        table of a Bayesian test says what its column holds instead (the
        :attr:`~multitest.stats.PairwiseTest.evidence` of its test).

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> table = ranking.dataset("iris").table
    >>> table.pvalue.shape          # (data sets, pairs in cost order)
    (2, 28)
    """

    evidence: ClassVar[str] = "p-value"

    prior: np.ndarray
    cheaper: np.ndarray
    costlier: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray
    override: np.ndarray
    mean_errors: np.ndarray

    @property
    def n_tests(self):
        return self.statistic.size


def run_pairwise_tests(errors, prior, test, design, *, alpha, correction, alternative,
                       keep=None):
    """Run ``test`` on every pair of every data set.

    Parameters
    ----------
    errors : ndarray, shape (S, L, F)
    prior : ndarray of int, shape (S, L)
        From :func:`prior_positions`.
    test : multitest.stats.PairwiseTest
    design : multitest.inputs.FoldDesign
    alpha : float
    correction : str
        Within-data-set correction (see :mod:`multitest.stats._corrections`).
    alternative : {'two-sided', 'greater'}
        ``'greater'``: one-sided, "the costlier is better".
    keep : bool, optional
        Keep every statistic and p-value in memory (True), or only the
        decisions when the test allows it (False).  By default, keep them up
        to :data:`_EAGER_TESTS` tests.

    Returns
    -------
    PairwiseTable

    Notes
    -----
    The data sets are tested in blocks of about :data:`_BLOCK_ELEMENTS` pairs x
    folds (at least one data set), each block one broadcast subtraction of the
    errors of every pair.  The built-in tests, which see the errors only
    through ``a - b``, receive the differences and zeros (the same numbers,
    half the copying); other tests get ``a`` and ``b``.

    Up to :data:`_EAGER_TESTS` tests (and for every test that is not
    built-in) the statistics and p-values are kept.  Above, only the
    override decisions are kept (with no correction, those of a test with an
    :attr:`~multitest.stats.PairwiseTest.all_pairs_decision` come from it, every
    pair of a block of data sets at once: 6x faster than its p-values at
    S = 10,000 x L = 100), and ``statistic``, ``pvalue`` and
    ``pvalue_adjusted`` are :class:`LazyRows`: the built-in tests are
    deterministic, so the rows of a block of data sets are recomputed, bit
    for bit, when they are read.  Memory then stays at the ``(S, P)``
    booleans, not 16 bytes per test more (800 MB at 50 million tests).
    """
    stage = _Stage1(errors, prior, test, design, correction=correction,
                    alternative=alternative)
    S, P = stage.shape
    lazy = test.difference_only and (S * P > _EAGER_TESTS if keep is None else not keep)
    mean_errors = errors.mean(axis=2)
    mean_in_prior = np.take_along_axis(mean_errors, prior, axis=1)
    override = np.empty((S, P), dtype=bool)
    if lazy:
        statistic, pvalue, adjusted = (LazyRows(stage, field) for field in range(3))
    else:
        statistic, pvalue, adjusted = np.empty((S, P)), np.empty((S, P)), None
    if correction == "none":    # the adjusted p-values are the p-values (no copy)
        adjusted = pvalue
    elif adjusted is None:
        adjusted = np.empty((S, P))
    decisions_only = lazy and correction == "none" and test.all_pairs_decision is not None
    if decisions_only:      # the test's errors, if any, before the first block
        test._check_design(design)
        test._kwargs(design, alternative)
    with progress(S, "stage 1 (data sets)") as bar:
        for s0, s1 in stage.blocks(errors_only=decisions_only):
            means = mean_in_prior[s0:s1]
            if decisions_only:
                override[s0:s1] = test.all_pairs_decision(stage.in_prior(s0, s1), alpha,
                                                          None, means)
            else:
                rows = stage.block(s0, s1)
                np.logical_and(rows[2] < alpha, means[:, stage.costlier] < means[:, stage.cheaper],
                               out=override[s0:s1])
                if not lazy:
                    statistic[s0:s1], pvalue[s0:s1] = rows[:2]
                    if adjusted is not pvalue:
                        adjusted[s0:s1] = rows[2]
            bar.update(s1 - s0)
    for array in (statistic, pvalue, adjusted, override, mean_errors):
        array.setflags(write=False)
    return PairwiseTable(prior=prior, cheaper=stage.cheaper, costlier=stage.costlier,
                         statistic=statistic, pvalue=pvalue, pvalue_adjusted=adjusted,
                         override=override, mean_errors=mean_errors)


class _Stage1:
    """The pairwise tests of any block of data sets (the computing of stage 1)."""

    def __init__(self, errors, prior, test, design, *, correction, alternative):
        S, L, F = errors.shape
        self.errors, self.prior, self.test, self.design = errors, prior, test, design
        self.correction, self.alternative = correction, alternative
        self.cheaper, self.costlier = np.triu_indices(L, k=1)
        self.shape = (S, self.cheaper.size)
        self.step = max(1, _BLOCK_ELEMENTS // max(1, self.cheaper.size * F))
        self._last = None      # the last block read by :meth:`row`: (s0, its rows)

    def blocks(self, errors_only=False):
        """The blocks ``(s0, s1)`` of data sets, in turn: of :data:`_BLOCK_ELEMENTS`
        differences, or errors (`errors_only`)."""
        S = self.shape[0]
        L, F = self.errors.shape[1:]
        step = max(1, _BLOCK_ELEMENTS // max(1, L * F)) if errors_only else self.step
        return [(s0, min(S, s0 + step)) for s0 in range(0, S, step)]

    def rows(self, s0, s1):
        """:meth:`block` of any range ``s0:s1`` of data sets, a block at a time."""
        if s1 <= s0:
            return tuple(np.empty((0, self.shape[1])) for _ in range(3))
        blocks = [self.block(b0, min(s1, b0 + self.step)) for b0 in range(s0, s1, self.step)]
        return tuple(np.concatenate(arrays) for arrays in zip(*blocks))

    def block(self, s0, s1):
        """``(statistic, pvalue, pvalue_adjusted)`` of the data sets ``s0:s1`` of one block,
        new arrays (``pvalue_adjusted`` is ``pvalue`` itself with no correction)."""
        in_prior = self.in_prior(s0, s1)
        F = in_prior.shape[2]
        if self.test.fold_major:     # the folds as rows: (F, data sets, L), then pairs
            in_prior = np.ascontiguousarray(in_prior.transpose(2, 0, 1))
            a = (in_prior[:, :, self.cheaper] - in_prior[:, :, self.costlier]).reshape(F, -1).T
            b = np.broadcast_to(0.0, a.shape)
        elif self.test.difference_only:
            a = (in_prior[:, self.cheaper] - in_prior[:, self.costlier]).reshape(-1, F)
            b = np.broadcast_to(0.0, a.shape)
        else:
            a, b = (in_prior[:, self.cheaper].reshape(-1, F),
                    in_prior[:, self.costlier].reshape(-1, F))
        statistic, pvalue = (x.reshape(s1 - s0, -1) for x in self.test._call_unchecked(
            a, b, self.design, alternative=self.alternative))
        adjusted = pvalue if self.correction == "none" else \
            adjust_pvalues(pvalue, self.correction, axis=-1)
        return statistic, pvalue, adjusted

    def row(self, s):
        """:meth:`rows` of data set ``s``, read-only: computed with the other data sets of
        its block, so that reading every row in turn costs what the first pass did; the
        last block read is kept."""
        s0 = s - s % self.step
        if self._last is None or self._last[0] != s0:
            arrays = self.block(s0, min(self.shape[0], s0 + self.step))
            for array in arrays:
                array.setflags(write=False)
            self._last = (s0, arrays)
        return tuple(a[s - s0] for a in self._last[1])

    def in_prior(self, s0, s1):
        """Errors of data sets ``s0:s1``, algorithms in prior order, shape (n, L, F)."""
        if not self.errors.flags.c_contiguous:
            return np.take_along_axis(self.errors[s0:s1], self.prior[s0:s1, :, None], axis=1)
        S, L, F = self.errors.shape
        # Whole rows of F errors taken by their flat number (4x faster than the 3-d
        # take_along_axis, which indexes every error).
        rows = self.prior[s0:s1] + np.arange(s0, s1)[:, None] * L
        return self.errors.reshape(S * L, F).take(rows.reshape(-1), axis=0).reshape(
            s1 - s0, L, F)


class RowArray:
    """Base of the read-only arrays whose first axis is the data sets, read one data set
    (row) at a time: the protocol the engine and the outputs use of them.

    A subclass sets ``shape`` and ``dtype`` and defines ``__getitem__``, with
    :meth:`_split` and :meth:`_data_set` to read its key.
    """

    ndim = 2

    @property
    def size(self):
        return int(np.prod(self.shape))

    def __len__(self):
        return self.shape[0]

    def setflags(self, write):
        if write:
            raise ValueError(f"{type(self).__name__}: these results are read-only")

    @staticmethod
    def _split(key):
        """``(data-set key, rest of the key)``."""
        return (key[0], key[1:]) if isinstance(key, tuple) else (key, ())

    def _data_set(self, row_key):
        """The index of the data set ``row_key`` (negative from the end), checked."""
        s = int(row_key) + (self.shape[0] if row_key < 0 else 0)
        if not 0 <= s < self.shape[0]:
            raise IndexError(f"data set {int(row_key)} out of range for {self.shape[0]}")
        return s


class LazyRows(RowArray):
    """A read-only ``(S, P)`` array of stage 1 computed a block of data sets at a time, on access.

    Indexing by a data set (``x[s]``, ``x[s, columns]``) recomputes the rows of
    its block of data sets (the last block read is kept); a slice computes those
    rows; anything else, and :func:`numpy.asarray`, computes the whole array.
    The numbers are those of the eager computation, bit for bit.
    """

    dtype = np.dtype(float)

    def __init__(self, stage, field):
        self._stage, self._field = stage, field

    @property
    def shape(self):
        return self._stage.shape

    def __getitem__(self, key):
        row_key, rest = self._split(key)
        if isinstance(row_key, (int, np.integer)) and len(rest) <= 1:
            row = self._stage.row(self._data_set(row_key))[self._field]
            return row[rest[0]] if rest else row
        if isinstance(row_key, slice) and row_key.step in (None, 1):
            s0, s1, _ = row_key.indices(self.shape[0])
            rows = self._stage.rows(s0, max(s0, s1))[self._field]
            return rows[(slice(None),) + rest] if rest else rows
        return np.asarray(self)[key]

    def __iter__(self):
        return (self[s] for s in range(self.shape[0]))

    def __array__(self, dtype=None, copy=None):
        full = self[:]
        return full if dtype is None else full.astype(dtype)

    def ravel(self):
        return np.asarray(self).ravel()

    def __repr__(self):
        return f"LazyRows(shape={self.shape}, recomputed on access)"


def decision_design(design, test_train_ratio=None):
    """The fold design the pairwise test decides with: ``design`` with the run's
    test/train ratio when one is given (``test_train_ratio``, ``--test-train-ratio``).

    Stage 1 and every interval of its decisions
    (:func:`multitest.engine.dataset_effects`) take their design from here, so that
    the corrected t test's ratio and the Bayesian test's ``rho`` are the same in both.

    Examples
    --------
    >>> from multitest.inputs import FoldDesign
    >>> decision_design(FoldDesign(1, 10), "1/9").test_train_ratio == 1 / 9
    True
    """
    if test_train_ratio is None:
        return design
    return dataclasses.replace(design, test_train_ratio=test_train_ratio)
