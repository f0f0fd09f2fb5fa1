"""Order statistics of the Walsh averages without forming them (n >= 50).

With each sample sorted, ``w(i, j) = (x[i] + x[j]) / 2`` (``i <= j``, the same
floats :func:`multitest.stats._walsh._walsh_averages`
forms) is non-decreasing in ``j``: the Walsh
averages above a value ``v`` are, per ``i``, the columns from a position on
(:func:`_walsh_positions`: a binary search per ``i``, checked by exact
comparisons).  A set of candidates is such a column range per ``i``, between two
pivots.  The first two pivots of every rank sought come from the values binned
(:func:`_histogram_pivots`, one convolution per sample for all its ranks); where
they leave too many candidates (values far from evenly spread), random Walsh
averages of the candidates, drawn uniformly, give the next two (Floyd and Rivest's
selection), until a few thousand candidates are left, which are formed and sorted
(Monahan 1984, ACM Algorithm 616, selects the same way).  Every comparison is one
of the floats the sorted path compares: the pivots change the time only.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ._walsh import (_WALSH_ELEMENTS, _normal_intervals, _sorted_roots, _step_positions,
                     _w_statistics, _walsh_averages)

__all__: list[str] = []

#: Candidates left per sample (x n, and at least) when they are formed and sorted: the
#: first pivots of 1000 x 20 leave about 1.2 n, which one more round costs more to narrow
#: than sorting them (over_datasets: 0.29 s with 1 n, 0.22 s with 2 n).
_CANDIDATES_PER_VALUE, _CANDIDATES_AT_LEAST = 2, 512
#: Random Walsh averages drawn per sample and round: at most, one per this many
#: candidates, and at least; rounds at most.
_DRAWS, _DRAWS_PER, _DRAWS_AT_LEAST, _ROUNDS = 1024, 16, 128, 12
#: A bound refused in its window is searched in all the sorted Walsh averages of a sample
#: of up to this many values (45 150 of them, about 2 ms), in its bracket above.
_SORTED_REFUSED_UP_TO = 300
#: Bins of the first pivots (:func:`_histogram_pivots`): at most (2 n rounded up to a
#: power of 2 below that), and the margin of a pivot beyond its bound, in bins.
_BINS_AT_MOST, _PIVOT_MARGIN = 4096, 0.5


def _selected_intervals(x, level):
    """:func:`_group_intervals` of ``n >= 50`` values per row (normal approximation only)
    in O(n log n) per row: the same floats as sorting the Walsh averages.

    The estimate is the median's order statistics.  A bound is the Walsh average
    where ``W - zq`` crosses zero: at a point between two consecutive Walsh averages
    ``T+`` is the number above it, so the rank of the crossing follows from ``zq``
    (:func:`_bound_ranks`).  The Walsh averages around the median and around both
    crossings are bracketed together (:func:`_walsh_bracket`: the first pivots of the
    three from one convolution per row), and each bound is searched in its bracket
    (:func:`_selected_roots`).
    A row whose bracket fails (heavy ties) is searched in its sorted Walsh averages.
    """
    xs = np.sort(x, axis=1)
    smallest, largest = (xs[:, 0] + xs[:, 0]) / 2, (xs[:, -1] + xs[:, -1]) / 2
    return _normal_intervals(xs, smallest, largest, level,
                             lambda rows, zq_low, zq_high: _selected_median_and_roots(
                                 xs, rows, np.concatenate([zq_low, zq_high])))


def _selected_median_and_roots(xs, rows, zq):
    """The median of every sorted row's Walsh averages and the roots of ``W - zq`` in
    ``rows`` (twice: ``zq`` holds the low bounds' then the high bounds'), from one
    :func:`_walsh_bracket` of the ranks of the median and of both windows."""
    m, n = xs.shape
    N = n * (n + 1) // 2
    half = N // 2
    first = half if N % 2 else half - 1
    tie_terms = _value_ties(xs[rows])[1]
    lo_bound, hi_bound = _bound_ranks(n, np.concatenate([tie_terms, tie_terms]), zq)
    # the targets of a row side by side: the median's, then its bounds'
    order = np.argsort(np.concatenate([np.arange(m), rows, rows]), kind="stable")
    base = np.concatenate([np.arange(m), rows, rows])[order]
    lo_rank = np.concatenate([np.full(m, first), lo_bound])[order]
    hi_rank = np.concatenate([np.full(m, half), hi_bound])[order]
    stacked = xs[base]
    bracket = _walsh_bracket(xs, stacked, base, lo_rank, hi_rank)
    narrowed = np.flatnonzero(bracket.narrowed)
    values, sizes = _walsh_candidates(stacked[narrowed], bracket.start[narrowed],
                                      bracket.stop[narrowed])
    median = [np.full(m, np.nan) for _ in range(2)]
    is_median = order[narrowed] < m
    at = narrowed[is_median]
    for target, rank in zip(median, (lo_rank, hi_rank)):
        target[base[at]] = values[np.flatnonzero(is_median), rank[at] - bracket.below[at]]
    # a row whose values tie so heavily that no bracket narrows them: sorted in full
    for chunk, walsh in _sorted_walsh(xs, np.flatnonzero(~np.isfinite(median[0]))):
        median[0][chunk], median[1][chunk] = walsh[:, first], walsh[:, half]
    estimate = median[0] if N % 2 else (median[0] + median[1]) / 2
    bounds = np.flatnonzero(order >= m)
    target = order[bounds] - m          # into zq
    roots = np.empty(zq.size)
    roots[target] = _selected_roots(stacked[bounds], zq[target], _bracket_rows(bracket, bounds),
                                    lo_rank[bounds], hi_rank[bounds], values[~is_median],
                                    sizes[~is_median])
    return estimate, roots[:rows.size], roots[rows.size:]


def _bound_ranks(n, tie_terms, zq):
    """The ranks ``rank - 4`` and ``rank + 4`` (0-based, within the Walsh averages) around
    the crossing of ``W = zq``: ``N - T+`` with ``T+ = n (n + 1) / 4 + zq sd``."""
    N = n * (n + 1) // 2
    sd = np.sqrt(n * (n + 1) * (2 * n + 1) / 24 - tie_terms / 48)
    rank = np.clip(np.round(N - (n * (n + 1) / 4 + zq * sd)).astype(np.int64), 0, N - 1)
    return np.maximum(rank - 4, 0), np.minimum(rank + 4, N - 1)


@dataclass(frozen=True, eq=False)
class _Bracket:
    """Walsh averages in ``(low, high]`` of each sorted row: columns ``start[r, i]`` to
    ``stop[r, i]`` (exclusive) of each ``i``; ``below`` of them are ``<= low``."""

    start: np.ndarray
    stop: np.ndarray
    below: np.ndarray
    low: np.ndarray
    high: np.ndarray
    narrowed: np.ndarray


def _walsh_bracket(samples, xs, base, lo_rank, hi_rank):
    """The Walsh averages of ranks ``lo_rank..hi_rank`` of each sorted row ``xs``, which is
    ``samples[base]``, and a few thousand around them (:class:`_Bracket`).  The first
    pivots come from counts of binned values (:func:`_histogram_pivots`), the next ones
    are random Walsh averages (seeded); only the time depends on the pivots: each is kept
    where the exact count below it shows that it brackets the ranks.  ``base`` is
    non-decreasing: the rows of a sample are consecutive (:func:`_walsh_positions`)."""
    m, n = xs.shape
    bracket = _Bracket(start=np.broadcast_to(np.arange(n), (m, n)).copy(),
                       stop=np.full((m, n), n), below=np.zeros(m, dtype=np.int64),
                       low=np.full(m, -np.inf), high=(xs[:, -1] + xs[:, -1]) / 2,
                       narrowed=np.zeros(m, dtype=bool))
    limit = max(_CANDIDATES_PER_VALUE * n, _CANDIDATES_AT_LEAST)
    active = np.arange(m)
    pivots = _histogram_pivots(samples, lo_rank, hi_rank, base)
    rng = np.random.default_rng(0)
    for _ in range(_ROUNDS):
        _narrow(xs, base, active, pivots, lo_rank, hi_rank, bracket)
        sizes = (bracket.stop - bracket.start).sum(axis=1)
        active = np.flatnonzero(sizes > limit)
        if active.size == 0:
            break
        pivots = _drawn_pivots(xs, active, sizes[active], lo_rank, hi_rank, bracket, rng)
    bracket.narrowed[:] = (bracket.stop - bracket.start).sum(axis=1) <= limit
    return bracket


def _narrow(xs, base, active, pivots, lo_rank, hi_rank, bracket):
    """Move the ends of the ``active`` rows' brackets (in place) to their ``pivots``
    (``(rows, 2)``: low and high, NaN for none) where the exact counts show that the
    pivots still bracket the ranks."""
    m, n = xs.shape
    every = active.size == m          # no copies of every row

    def rows_of(values):
        return values if every else values[active]

    positions = _walsh_positions(rows_of(xs), np.nan_to_num(pivots), rows_of(bracket.start),
                                 rows_of(bracket.stop), rows_of(base))
    counts = positions.sum(axis=2) - n * (n - 1) // 2
    up = ~np.isnan(pivots[:, 0]) & (counts[:, 0] <= lo_rank[active])
    down = ~np.isnan(pivots[:, 1]) & (counts[:, 1] > hi_rank[active])
    rows = active[up]
    bracket.start[rows], bracket.below[rows] = positions[up, 0], counts[up, 0]
    bracket.low[rows] = pivots[up, 0]
    rows = active[down]
    bracket.stop[rows], bracket.high[rows] = positions[down, 1], pivots[down, 1]


def _drawn_pivots(xs, active, sizes, lo_rank, hi_rank, bracket, rng):
    """Pivots of the ``active`` rows from Walsh averages drawn from their brackets (Floyd
    and Rivest): ranks ``3`` standard deviations (and 2) beyond the ranks sought among
    the sorted draws; NaN where that falls outside the draws."""
    count = min(_DRAWS, max(_DRAWS_AT_LEAST, int(sizes.max()) // _DRAWS_PER))
    draws = np.sort(_walsh_draws(xs[active], bracket.start[active], bracket.stop[active],
                                 sizes, rng, count), axis=1)
    spread = 3 * np.sqrt(count * 0.25) + 2
    below = bracket.below[active]
    k = np.stack([np.floor((lo_rank[active] - below) / sizes * count - spread),
                  np.ceil((hi_rank[active] + 1 - below) / sizes * count + spread)],
                 axis=1).astype(int)
    pivots = np.take_along_axis(draws, np.clip(k, 0, count - 1), axis=1)
    pivots[(k < 0) | (k >= count)] = np.nan
    return pivots


def _histogram_pivots(xs, lo_rank, hi_rank, base):
    """Pivots (``(rows, 2)``, NaN for none) around the Walsh averages of ranks
    ``lo_rank..hi_rank`` of the sorted samples ``xs[base]``, from the values binned in
    ``B`` equal bins: the numbers of pairs ``i <= j`` per sum of their bins (a
    convolution, by FFT, rounded to the integers it counts) bound the rank of
    ``lo + (s / 2) width`` and ``lo + (s / 2 + 1) width``, widened by
    :data:`_PIVOT_MARGIN` bins.  Only the time depends on them."""
    m, n = xs.shape
    bins = min(_BINS_AT_MOST, 1 << int(np.ceil(np.log2(2 * n))))
    lo = xs[:, 0]
    with np.errstate(over="ignore", invalid="ignore"):
        width = (xs[:, -1] - lo) / bins
        usable = np.isfinite(width) & (width > 0)
        width = np.where(usable, width, 1.0)
        which = np.clip(np.nan_to_num((xs - lo[:, None]) / width[:, None]), 0, bins - 1)
    cells = which.astype(np.int64) + (np.arange(m) * bins)[:, None]
    hist = np.bincount(cells.ravel(), minlength=m * bins).reshape(m, bins).astype(float)
    spectrum = np.fft.rfft(hist, n=2 * bins, axis=1)
    pairs = np.rint(np.fft.irfft(spectrum * spectrum, n=2 * bins, axis=1))
    pairs[:, :2 * bins:2] += hist        # i = j once: (ordered pairs + diagonal) / 2
    N = n * (n + 1) // 2
    cumulative = np.cumsum(pairs / 2, axis=1) + (np.arange(m) * (N + 1))[:, None]
    offset = base * (N + 1)
    s_lo, s_hi = (np.searchsorted(cumulative.ravel(), rank + offset, side="right")
                  - base * 2 * bins for rank in (lo_rank, hi_rank))
    pivots = lo[base, None] + np.stack([s_lo / 2 - _PIVOT_MARGIN,
                                        s_hi / 2 + 1 + _PIVOT_MARGIN], axis=1) * width[base, None]
    pivots[~usable[base]] = np.nan
    pivots[pivots[:, 0] <= lo[base], 0] = np.nan
    pivots[pivots[:, 1] >= xs[base, -1], 1] = np.nan
    return pivots


def _walsh_draws(xs, start, stop, sizes, rng, count):
    """``count`` Walsh averages of each row drawn uniformly from its candidates."""
    m, n = xs.shape
    lengths = (stop - start).ravel()
    ends = np.cumsum(lengths)
    first = np.concatenate(([0], ends[n - 1::n][:-1]))
    uniform = rng.random((m, count))
    uniform.sort(axis=1)    # the same draws per row, ascending: a cache-friendly search
    at = first[:, None] + (uniform * sizes[:, None]).astype(np.int64)
    cell = np.searchsorted(ends, at.ravel(), side="right").reshape(at.shape)
    j = start.ravel()[cell] + (at - (ends[cell] - lengths[cell]))
    flat = xs.ravel()
    return (flat[cell] + flat[cell - cell % n + j]) / 2


def _walsh_positions(xs, v, lo, hi, base):
    """Per sorted row, pivot ``v[:, p]`` and ``i``: the first ``j`` in ``lo[i]..hi[i]``
    (``lo[i] >= i``) with ``(xs[i] + xs[j]) / 2 > v`` (``hi[i]`` if none below it is),
    shape ``(rows, pivots, n)``.

    A binary search for ``2 v - xs[i]`` (rounded) per ``i`` gives the place (one
    search per sample: consecutive rows with the same ``base`` together); it is kept
    where the exact comparisons on both sides of it agree, else the place is bisected
    on those comparisons: every comparison is one the sorted path makes.
    """
    m, n = xs.shape
    threshold = 2 * v[:, :, None] - xs[:, None, ::-1]      # ascending: searched faster
    guess = np.empty(threshold.shape, dtype=np.intp)
    cuts = np.flatnonzero(np.diff(base)) + 1
    for a, b in zip(np.concatenate(([0], cuts)).tolist(), np.append(cuts, m).tolist()):
        guess[a:b, :, ::-1] = np.searchsorted(xs[a], threshold[a:b], side="right")
    lo, hi, x, v = lo[:, None], hi[:, None], xs[:, None], v[:, :, None]
    np.clip(guess, lo, hi, out=guess)
    flat, at = xs.ravel(), guess + (np.arange(m) * n)[:, None, None]
    # (xs[i] + xs[guess]) / 2 <= v where guess < hi, or (xs[i] + xs[guess - 1]) / 2 > v
    # where guess > lo: wrong (flat indices beyond a row's ends are not used)
    right = flat.take(np.minimum(at, flat.size - 1))
    right += x
    right /= 2
    wrong = (right <= v) & (guess < hi)
    left = flat.take(at - 1)
    left += x
    left /= 2
    wrong |= (left > v) & (guess > lo)
    r, p, i = np.nonzero(wrong)
    if r.size:
        guess[r, p, i] = _bisect_walsh(xs, r, i, v[r, p, 0], lo[r, 0, i], hi[r, 0, i])
    return guess


def _bisect_walsh(xs, r, i, v, lo, hi):
    """The first ``j`` in ``lo..hi`` with ``(xs[r, i] + xs[r, j]) / 2 > v``, per element."""
    n = xs.shape[1]
    a = xs[r, i]
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) >> 1
        above = (a + xs[r, np.minimum(mid, n - 1)]) / 2 > v
        hi = np.where(open_ & above, mid, hi)
        lo = np.where(open_ & ~above, mid + 1, lo)


def _walsh_candidates(xs, start, stop):
    """The Walsh averages of columns ``start..stop`` per ``i``, sorted per row (padded with
    +inf), and their number per row."""
    m, n = xs.shape
    lengths = (stop - start).ravel()
    sizes = lengths.reshape(m, n).sum(axis=1)
    width = max(int(sizes.max(initial=0)), 1)
    cell = np.repeat(np.arange(m * n), lengths)
    segment = np.cumsum(lengths) - lengths
    j = np.repeat(start.ravel(), lengths) + (np.arange(cell.size) - segment[cell])
    flat = xs.ravel()
    row = cell // n
    values = np.full((m, width), np.inf)
    values[row, np.arange(cell.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)] = (
        flat[cell] + flat[row * n + j]) / 2
    values.sort(axis=1)
    return values, sizes


def _selected_roots(xs, zq, bracket, lo_rank, hi_rank, v, sizes):
    """:func:`_step_roots` of sorted rows without forming their Walsh averages.

    Between two consecutive Walsh averages ``T+`` is the number above the
    point, ``n`` values are non-zero and the ties are those of ``xs``: the
    crossing of ``W = zq`` is near rank ``N - T+`` with ``T+ = n (n + 1) / 4 +
    zq sd``.  The Walsh averages of ranks ``rank - 4`` to ``rank + 4`` are checked
    (``W - zq >= 0`` just below the first, ``< 0`` just above the last) and
    searched.  A row failing that (``W`` in floats need not be monotone: see
    ``test_selected_bounds_where_w_in_floats_is_not_monotone``) is searched in its
    sorted Walsh averages, as the sorted path searches it, if it has at most
    :data:`_SORTED_REFUSED_UP_TO` values; with more, it is checked at its bracket's
    ends (``W - zq >= 0`` just above the low end, ``< 0`` just above the high end) and
    searched in the bracket, and searched in its sorted Walsh averages if that fails.
    """
    m, n = xs.shape
    out, done = np.full(m, np.nan), np.zeros(m, dtype=bool)
    good = np.flatnonzero(bracket.narrowed)
    if good.size:
        new = np.ones(v.shape, dtype=bool)
        np.not_equal(v[:, 1:], v[:, :-1], out=new[:, 1:])
        new &= np.arange(v.shape[1]) < sizes[:, None]
        counts = new.sum(axis=1)
        values, offsets = v[new], np.cumsum(counts) - counts
        distinct = np.cumsum(new, axis=1) - 1      # index among the row's distinct values
        here = np.arange(good.size)
        first, last = (distinct[here, np.clip(r[good] - bracket.below[good], 0, sizes - 1)]
                       for r in (lo_rank, hi_rank))
        inside = _window_checked(xs[good], values, offsets, counts, zq[good], first, last)
        rows = good[inside]
        out[rows] = values[offsets[inside] + _step_positions(
            xs[rows], values, offsets[inside], zq[rows], first[inside], last[inside])]
        done[rows] = True
    rest = np.flatnonzero(~done & bracket.narrowed)
    if rest.size and n > _SORTED_REFUSED_UP_TO:
        ok = _crossing_inside(xs[rest], _bracket_rows(bracket, rest), zq[rest])
        at = np.searchsorted(good, rest[ok])
        out[rest[ok]] = values[offsets[at] + _step_positions(
            xs[rest[ok]], values, offsets[at], zq[rest[ok]], np.zeros(at.size, dtype=int),
            counts[at] - 1)]
        done[rest[ok]] = True
    for rows, walsh in _sorted_walsh(xs, np.flatnonzero(~done)):
        out[rows] = _sorted_roots(xs[rows], walsh, zq[rows])
    return out


def _window_checked(xs, values, offsets, counts, zq, first, last):
    """Rows where ``W - zq`` is not below zero between distinct values ``first - 1`` and
    ``first`` and is below zero between ``last`` and ``last + 1`` (the crossing is
    in ``first..last``), both inside the row's ``counts`` distinct values."""
    inside = (first >= 1) & (last <= counts - 2)
    rows = np.flatnonzero(inside)
    if rows.size == 0:
        return inside
    at = np.concatenate([offsets[rows] + first[rows] - 1, offsets[rows] + last[rows]])
    both = np.concatenate([rows, rows])
    below = _w_statistics(xs[both], (values[at] + values[at + 1]) / 2) - zq[both] < 0
    inside[rows] = ~below[:rows.size] & below[rows.size:]
    return inside


def _bracket_rows(bracket, rows):
    """The :class:`_Bracket` of some rows."""
    return _Bracket(**{f.name: getattr(bracket, f.name)[rows] for f in fields(bracket)})


def _sorted_walsh(xs, rows):
    """``(rows, sorted Walsh averages)`` of the given rows, :data:`_WALSH_ELEMENTS` at a time."""
    n = xs.shape[1]
    step = max(1, _WALSH_ELEMENTS // (n * (n + 1) // 2))
    for r0 in range(0, rows.size, step):
        chunk = rows[r0:r0 + step]
        yield chunk, np.sort(_walsh_averages(xs[chunk]), axis=1)


def _crossing_inside(xs, bracket, zq):
    """``W - zq`` is not below zero just above the bracket's low end (or that end is
    minus infinity) and is below zero just above its high end (or that end is the
    largest Walsh average): the crossing is inside the bracket."""
    m, n = xs.shape
    ok = np.ones(m, dtype=bool)
    largest = (xs[:, -1] + xs[:, -1]) / 2
    for end, positions, want_below in ((bracket.low, bracket.start, False),
                                       (bracket.high, bracket.stop, True)):
        rows = np.flatnonzero(np.isfinite(end) & (end < largest))
        if rows.size == 0:
            continue
        x, at = xs[rows], positions[rows]      # the first Walsh average above `end` per i
        above = np.where(at < n, (x + np.take_along_axis(x, np.minimum(at, n - 1), 1)) / 2,
                         np.inf).min(axis=1)
        ok[rows] &= (_w_statistics(x, (end[rows] + above) / 2) - zq[rows] < 0) == want_below
    return ok


def _value_ties(xs):
    """Number of tie groups and ``sum(t^3 - t)`` over groups of equal values per sorted row."""
    new = np.ones(xs.shape, dtype=bool)
    np.not_equal(xs[:, 1:], xs[:, :-1], out=new[:, 1:])
    groups = new.sum(axis=1)
    sizes = np.diff(np.append(np.flatnonzero(new.ravel()), xs.size))
    terms = np.bincount(np.repeat(np.arange(xs.shape[0]), groups),
                        weights=sizes ** 3 - sizes, minlength=xs.shape[0])
    return groups, terms


