"""Stage 1: the pairwise tests of every data set, vectorized over pairs and data sets.

The tests run together in chunks, so that memory stays bounded however many algorithms
there are; the result is one :class:`PairwiseTable` whose rows are the data sets.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._cpus import usable_cpus
from .._progress import progress
from ..stats._corrections import adjust_pvalues

__all__ = ["PairwiseTable", "decision_design"]

# Elements (pairs x folds) tested at once per thread; bounds the memory of
# stage 1; 4 MB per array: in cache, and long enough array operations for two
# threads to overlap (2^18 did not scale, 2^19: 1.7x on 2 cores).
_CHUNK_ELEMENTS = 1 << 19
# Threads running stage-1 blocks of the built-in tests at once.
_MAX_THREADS = 4
# Data sets per thread from which the 5x2 cv tests run (pair, data set) blocks.
_WIDE_DATASETS = 32
# Errors of the data sets decided in one call on the decisions-only path (16 MB).
_JOINED_ELEMENTS = 1 << 21
# Up to this many tests stage 1 keeps its statistics and p-values: the outputs list
# every one of them up to 20,000 (INLINE_PAIRS_LIMIT, FIGURE_PAIRS_LIMIT); above, only
# the decisions (S = 100 x L = 100: rank 0.09 s instead of 0.25 s keeping them), and
# the rest is recomputed on access (LazyRows).
_EAGER_TESTS = 20_000
# Tests computed together (one group of data sets, 16 MB per result array).
_GROUP_TESTS = 1 << 21
# Tests LazyRows recomputes at once (the data sets of a block: 1.5 MB) and blocks kept.
_LAZY_BLOCK_TESTS = 1 << 16
_CACHED_BLOCKS = 4


@dataclass(frozen=True, eq=False)
class PairwiseTable:
    """Every pairwise test of every data set, pairs in prior (cost) order.

    Pair ``p`` of data set ``s`` compares the algorithms at cost positions
    ``first[p] < second[p]``: ``prior[s, first[p]]`` is the cheaper.

    Attributes
    ----------
    prior : ndarray of int, shape (S, L)
    first, second : ndarray of int, shape (P,)
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
    first: np.ndarray
    second: np.ndarray
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
    design : multitest.stats.FoldDesign
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
    The data sets are tested in groups of about :data:`_GROUP_TESTS` tests,
    each group in blocks of at most about :data:`_CHUNK_ELEMENTS` pairs x
    folds (several data sets per block when the algorithms are few, a range
    of cheaper algorithms of one data set when they are many), so that the
    working arrays stay in the processor's cache.  Inside a block the pairs
    ``(i, j > i)`` of one cheaper algorithm ``i`` are one broadcast
    subtraction.  The built-in tests, which see the errors only through
    ``a - b``, receive the differences and zeros (the same numbers, half the
    copying), and run on several blocks at once in threads; other tests get
    ``a`` and ``b`` and one thread.

    Up to :data:`_EAGER_TESTS` tests (and for every test that is not
    built-in) the statistics and p-values are kept.  Above, only the
    override decisions are kept, and ``statistic``, ``pvalue`` and
    ``pvalue_adjusted`` are :class:`LazyRows`: the built-in tests are
    deterministic, so the rows of a data set are recomputed, bit for bit,
    when they are read.  Memory then stays at the ``(S, P)`` booleans, not
    16 bytes per test more (800 MB at 50 million tests).
    """
    S, L, F = errors.shape
    stage = _Stage1(errors, prior, test, design, correction=correction,
                    alternative=alternative)
    P = stage.first.size
    lazy = test.difference_only and (S * P > _EAGER_TESTS if keep is None else not keep)
    if not lazy:
        statistic, pvalue = np.empty((S, P)), np.empty((S, P))
        adjusted = pvalue if correction == "none" else np.empty((S, P))
    mean_errors = errors.mean(axis=2)
    mean_in_prior = np.take_along_axis(mean_errors, prior, axis=1)
    override = np.empty((S, P), dtype=bool)
    step = max(1, _GROUP_TESTS // max(1, P))
    with progress(S, "stage 1 (data sets)") as bar, ThreadPoolExecutor(_threads()) as pool:
        for s0 in range(0, S, step):
            s1 = min(S, s0 + step)
            if correction == "none":    # decided block by block, in the threads
                st, p, adj = stage.rows(s0, s1, decide=(mean_in_prior, alpha, override),
                                        pool=pool, keep=not lazy)
            else:
                st, p, adj = stage.rows(s0, s1, pool=pool)
                means = mean_in_prior[s0:s1]
                np.logical_and(adj < alpha, means[:, stage.second] < means[:, stage.first],
                               out=override[s0:s1])
            if not lazy:
                statistic[s0:s1], pvalue[s0:s1] = st, p
                if adjusted is not pvalue:
                    adjusted[s0:s1] = adj
            bar.update(s1 - s0)
    if lazy:
        statistic, pvalue = LazyRows(stage, 0), LazyRows(stage, 1)
        adjusted = pvalue if correction == "none" else LazyRows(stage, 2)
    for array in (statistic, pvalue, adjusted, override, mean_errors):
        array.setflags(write=False)
    return PairwiseTable(prior=prior, first=stage.first, second=stage.second,
                         statistic=statistic, pvalue=pvalue, pvalue_adjusted=adjusted,
                         override=override, mean_errors=mean_errors)


class _Stage1:
    """The pairwise tests of any range of data sets (the computing of stage 1)."""

    def __init__(self, errors, prior, test, design, *, correction, alternative):
        S, L, F = errors.shape
        self.errors, self.prior, self.test, self.design = errors, prior, test, design
        self.correction, self.alternative = correction, alternative
        self.first, self.second = np.triu_indices(L, k=1)
        self.shape = (S, self.first.size)
        # Pairs of cheaper position i are the columns start[i]:start[i + 1].
        self.start = np.concatenate(([0], np.cumsum(np.arange(L - 1, 0, -1)))).astype(int)
        self._cache = {}

    def rows(self, s0, s1, decide=None, pool=None, keep=True):
        """``(statistic, pvalue, pvalue_adjusted)`` of data sets ``s0:s1``, new arrays.

        ``decide``: ``(mean_in_prior, alpha, override)`` (no correction only):
        also write the override decisions of these data sets into ``override``;
        with ``keep=False`` only that, and the three arrays are None.
        ``pool``: a thread pool to run in (else one is started when needed).
        """
        P = self.first.size
        keep = keep or decide is None
        statistic, pvalue = (np.empty((s1 - s0, P)), np.empty((s1 - s0, P))) if keep else \
            (None, None)
        threads = _threads() if self.test.thread_safe else 1
        # Decisions only, every pair of a block at once: data-set-major blocks.
        all_pairs = not keep and self.test.all_pairs_decision is not None
        parts = _work(s1 - s0, *self.errors.shape[1:], self.start, threads,
                      self.test.fold_major and not all_pairs)

        def run(part):
            self._run_part(part, statistic, pvalue, s0, decide)

        if len(parts) > 1:
            # One thread per contiguous run of blocks (disjoint slices of the
            # results); NumPy releases the GIL inside each array operation.
            if pool is None:
                with ThreadPoolExecutor(max_workers=len(parts)) as own:
                    list(own.map(run, parts))   # re-raises the first error of a thread
            else:
                list(pool.map(run, parts))
        else:
            for part in parts:
                run(part)
        # With no correction the adjusted p-values are the same array (no copy).
        adjusted = pvalue if self.correction == "none" or not keep else \
            adjust_pvalues(pvalue, self.correction, axis=-1)
        return statistic, pvalue, adjusted

    def row(self, s):
        """:meth:`rows` of data set ``s``, read-only: computed with the other data sets of
        its block (:data:`_LAZY_BLOCK_TESTS` tests, so that reading every row in turn
        costs about what the eager computation does), the last few blocks kept."""
        step = max(1, _LAZY_BLOCK_TESTS // max(1, self.shape[1]))
        s0 = s - s % step
        if s0 not in self._cache:
            if len(self._cache) >= _CACHED_BLOCKS:
                del self._cache[next(iter(self._cache))]
            arrays = self.rows(s0, min(self.shape[0], s0 + step))
            for array in arrays:
                array.setflags(write=False)
            self._cache[s0] = arrays
        return tuple(a[s - s0] for a in self._cache[s0])

    def _run_part(self, part, statistic, pvalue, offset, decide):
        """Run the blocks of one thread (:func:`_work`), in turn."""
        if statistic is None and self.test.all_pairs_decision is not None:
            return self._decide_all_pairs(part, offset, decide)
        by_fold = means = None
        for s0, s1, i0, i1, wide in part:
            s0, s1 = s0 + offset, s1 + offset
            if wide and by_fold is None:    # one layout for every block of the part
                by_fold = np.ascontiguousarray(self._in_prior(s0, s1).transpose(2, 1, 0))
            if wide:
                a, b = self._wide_differences(by_fold, i0, i1)
            elif self.test.fold_major:
                a, b = self._fold_major_differences(self._in_prior(s0, s1), i0, i1)
            else:
                a, b = self._pair_major(self._in_prior(s0, s1), i0, i1,
                                        self.test.difference_only)
            rows, cols = slice(s0 - offset, s1 - offset), slice(self.start[i0], self.start[i1])
            if statistic is None and self.test.decision is not None:
                # Decisions only: the test decides p < alpha without most p-values.
                self.test._check_design(self.design)
                self.test._kwargs(self.design, self.alternative)   # its errors, if any
                significant = self.test.decision(a, b, decide[1])
            else:
                stat, p = self.test._call_unchecked(a, b, self.design,
                                                    alternative=self.alternative)
                significant = None if decide is None else p < decide[1]
            if statistic is None:
                pass
            elif wide:     # pairs of the block are (pair, data set): written transposed
                statistic[rows, cols] = stat.reshape(-1, s1 - s0).T
                pvalue[rows, cols] = p.reshape(-1, s1 - s0).T
            else:
                statistic[rows, cols] = stat.reshape(s1 - s0, -1)
                pvalue[rows, cols] = p.reshape(s1 - s0, -1)
            if decide is not None:
                mean_in_prior, _, override = decide
                first, second = self.first[cols], self.second[cols]
                if wide:   # the block's layout, means as (L, data sets)
                    if means is None:
                        means = np.ascontiguousarray(mean_in_prior[s0:s1].T)
                    override[s0:s1, cols] = (significant.reshape(-1, s1 - s0)
                                             & (means[second] < means[first])).T
                else:
                    means = mean_in_prior[s0:s1]
                    override[s0:s1, cols] = (significant.reshape(s1 - s0, -1)
                                             & (means[:, second] < means[:, first]))

    def _decide_all_pairs(self, part, offset, decide):
        """The override decisions of the blocks of one thread, every pair of a block at
        once (the test's :attr:`~multitest.stats.PairwiseTest.all_pairs_decision`)."""
        mean_in_prior, alpha, override = decide
        self.test._check_design(self.design)
        self.test._kwargs(self.design, self.alternative)   # its errors, if any
        merged = {}     # the positions of a range of data sets in one call
        for s0, s1, i0, i1, _ in part:
            rows = merged.setdefault((s0 + offset, s1 + offset), [i0, i1])
            rows[0], rows[1] = min(rows[0], i0), max(rows[1], i1)
        for s0, s1, i0, i1 in _joined(merged, _JOINED_ELEMENTS // self.errors[0].size):
            override[s0:s1, self.start[i0]:self.start[i1]] = self.test.all_pairs_decision(
                self._in_prior(s0, s1), alpha, (i0, i1), mean_in_prior[s0:s1])

    def _in_prior(self, s0, s1):
        """Errors of data sets ``s0:s1``, algorithms in prior order, shape (n, L, F)."""
        if not self.errors.flags.c_contiguous:
            return np.take_along_axis(self.errors[s0:s1], self.prior[s0:s1, :, None], axis=1)
        S, L, F = self.errors.shape
        # Whole rows of F errors taken by their flat number (4x faster than the 3-d
        # take_along_axis, which indexes every error).
        rows = self.prior[s0:s1] + np.arange(s0, s1)[:, None] * L
        return self.errors.reshape(S * L, F).take(rows.reshape(-1), axis=0).reshape(
            s1 - s0, L, F)

    def _wide_differences(self, by_fold, i0, i1):
        """``(a - b, 0)`` of positions ``i0:i1`` from errors laid out (F, L, data sets).

        Pairs are ordered (pair, data set): each cheaper position is one
        subtraction whose inner loop runs over the data sets, long loops and
        few calls when the data sets are many and the algorithms few.
        """
        start = self.start
        p0 = start[i0]
        d = np.empty((by_fold.shape[0], start[i1] - p0, by_fold.shape[2]))
        for i in range(i0, i1):
            np.subtract(by_fold[:, i:i + 1], by_fold[:, i + 1:],
                        out=d[:, start[i] - p0:start[i + 1] - p0])
        d = d.reshape(d.shape[0], -1).T
        return d, np.broadcast_to(0.0, d.shape)

    def _fold_major_differences(self, in_prior, i0, i1):
        """``(a - b, 0)`` of positions ``i0:i1`` as (pairs, F) views of (F, pairs) arrays."""
        start = self.start
        by_fold = np.ascontiguousarray(in_prior.transpose(2, 0, 1))     # (F, data sets, L)
        p0 = start[i0]
        d = np.empty(by_fold.shape[:2] + (start[i1] - p0,))
        for i in range(i0, i1):
            np.subtract(by_fold[:, :, i:i + 1], by_fold[:, :, i + 1:],
                        out=d[:, :, start[i] - p0:start[i + 1] - p0])
        d = d.reshape(d.shape[0], -1).T
        return d, np.broadcast_to(0.0, d.shape)

    def _pair_major(self, in_prior, i0, i1, differences):
        """``(a, b)`` (or ``(a - b, 0)``) of positions ``i0:i1``, shape (pairs, F) each."""
        start, F = self.start, in_prior.shape[2]
        p0, p1 = start[i0], start[i1]
        a = np.empty((in_prior.shape[0], p1 - p0, F))
        b = None if differences else np.empty_like(a)
        for i in range(i0, i1):
            cols = slice(start[i] - p0, start[i + 1] - p0)
            if differences:
                np.subtract(in_prior[:, i:i + 1], in_prior[:, i + 1:], out=a[:, cols])
            else:
                a[:, cols] = in_prior[:, i:i + 1]
                b[:, cols] = in_prior[:, i + 1:]
        a = a.reshape(-1, F)
        b = np.broadcast_to(0.0, a.shape) if differences else b.reshape(-1, F)
        return a, b


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
    its block of data sets (the last few blocks are kept); a slice computes those
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


def _threads():
    """Threads for stage 1: the CPUs this process may use, at most :data:`_MAX_THREADS`."""
    return max(1, min(_MAX_THREADS, usable_cpus()))


def _work(S, L, F, start, threads, fold_major):
    """Blocks of ``S`` data sets split into at most ``threads`` contiguous parts.

    Returns a list of parts, each a list of blocks ``(s0, s1, i0, i1, wide)``:
    data sets ``s0:s1``, cheaper positions ``i0:i1``, and whether the block is
    laid out (pair, data set) (:meth:`_Stage1._wide_differences`).
    """
    if fold_major and L > 1 and S >= _WIDE_DATASETS * threads and 2 * S >= L * threads:
        # Each thread one contiguous range of data sets, split by cheaper positions.
        bounds = np.linspace(0, S, threads + 1).round().astype(int)
        return [[(s0, s1) + r + (True,) for r in _position_ranges(L, F * (s1 - s0), start)]
                for s0, s1 in zip(bounds[:-1].tolist(), bounds[1:].tolist()) if s1 > s0]
    blocks = [b + (False,) for b in _blocks(S, L, F, start)]
    threads = max(1, min(threads, len(blocks)))
    bounds = np.linspace(0, len(blocks), threads + 1).round().astype(int)
    return [blocks[b0:b1] for b0, b1 in zip(bounds[:-1].tolist(), bounds[1:].tolist())]


def _joined(ranges, most):
    """``(s0, s1, i0, i1)``: the ``{(s0, s1): [i0, i1]}`` of consecutive data sets with
    the same positions joined, at most ``most`` data sets each (one call of a few
    products, not one per data set: each call costs a BLAS start on a loaded machine)."""
    joined = []
    for (s0, s1), (i0, i1) in ranges.items():
        last = joined[-1] if joined else None
        if last and last[1] == s0 and last[2:] == [i0, i1] and s1 - last[0] <= most:
            last[1] = s1
        else:
            joined.append([s0, s1, i0, i1])
    return [tuple(j) for j in joined]


def _position_ranges(L, per_pair, start):
    """Ranges ``(i0, i1)`` of cheaper positions of at most :data:`_CHUNK_ELEMENTS`
    elements (``per_pair`` elements per pair), at least one position each."""
    ranges = []
    i0 = 0
    while i0 < L - 1:
        i1 = i0 + 1
        while i1 < L - 1 and (start[i1 + 1] - start[i0]) * per_pair <= _CHUNK_ELEMENTS:
            i1 += 1
        ranges.append((i0, i1))
        i0 = i1
    return ranges


def _blocks(S, L, F, start):
    """Blocks ``(s0, s1, i0, i1)``: data sets ``s0:s1``, cheaper positions ``i0:i1``."""
    elements = (L * (L - 1) // 2) * F      # of one data set
    if elements <= _CHUNK_ELEMENTS:
        step = max(1, _CHUNK_ELEMENTS // max(1, elements))
        for s0 in range(0, S, step):
            yield s0, min(S, s0 + step), 0, L - 1
        return
    ranges = _position_ranges(L, F, start)
    for s0 in range(S):
        for i0, i1 in ranges:
            yield s0, s0 + 1, i0, i1


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
