"""The geometry of a critical-difference diagram (Demšar 2006, figure 1).

:func:`cd_layout` computes the geometry (points, y downwards): an axis of
average ranks (of a ranking: its average MultiTest positions), one label a
row with leader lines that never cross, the bars
of the groups not found different (:func:`cd_groups`), the critical difference
and the band of a control.  What each diagram of a ranking draws, and its DOT
emitter, are in :mod:`multitest.figures._cd_diagrams`; its TikZ emitter in
:mod:`multitest.figures._tikz`.

Every length is a named constant below, in points or in font sizes (a
multiple of the label font size, so that the drawing scales with it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._errors import MultitestError
from .._format import format_rank
from ._pinned import text_width as _text_width

__all__ = []

# -- geometry of the layout (points unless said otherwise) ------------------------------

#: Empty border around the drawing.
_MARGIN = 10.0
#: Pitch of the label rows, in font sizes.
_ROW_PITCH = 1.6
#: Space between a label column and the axis, in two parts: the gap beside the
#: text and the run of the leader line before the axis starts (or after it ends).
_LABEL_GAP = 8.0
_LEADER_RUN = 12.0
#: The axis is 22 points a rank, but never shorter than 360 or longer than 900 points,
#: and shorter when long labels would make the diagram wider than _WIDEST points: the
#: report's column (1136 px at a 1400 px window) then shows its smallest text (the tick
#: labels, 0.85 of 12 pt) at 9 px or more.
_POINTS_PER_RANK = 22.0
_AXIS_MIN = 360.0
_AXIS_MAX = 900.0
_WIDEST = 1250.0
#: Room above the axis for the critical-difference bar and its label, in font sizes
#: (only when there is a critical difference) ...
_CD_BAND = 2.6
#: ... the critical-difference bar's height below the top margin, in font sizes ...
_CD_BAR_DROP = 1.6
#: ... and the axis's below the top (room for the tick labels), in font sizes.
_AXIS_DROP = 1.6
#: Labelled ticks stand at least this far apart (every k-th rank is labelled).
_TICK_LABEL_SPACING = 24.0
#: Two bars share a row when this much space is left between them;
_BAR_SPACING = 6.0
#: the first row of bars stands this far below the axis, the next ones this much lower.
_BAR_TOP = 12.0
_BAR_PITCH = 8.0
#: The first label row stands this many row pitches below the last row of bars.
_FIRST_ROW = 0.8
#: Half the height of a label's box, in font sizes.
_LABEL_HALF_HEIGHT = 0.6

# -- drawing (points unless said otherwise) -------------------------------------------------

#: Ticks of labelled ranks are this long, the others shorter.
_TICK_LONG = 5
_TICK_SHORT = 3
#: Tick labels stand this far above the axis.
_TICK_LABEL_RISE = 12
#: Size of the tick labels and of the caption, in font sizes.
_SMALL_FONT = 0.85
#: The critical-difference bar: half-height of its end marks, the rise and size of "CD".
_CD_END = 4
_CD_LABEL_RISE = 10
_CD_LABEL_FONT = 0.9
#: A leader line stops this far from its label's text.
_LEADER_TEXT_GAP = 4
#: Caption lines: their pitch in font sizes, the first one's offset in pitches, and
#: the extra half line of room under the last one.
_CAPTION_PITCH = 1.3
_CAPTION_FIRST = 0.8
_CAPTION_EXTRA = 0.5
#: Line widths and colours.
_AXIS_WIDTH = "1.2"
_TICK_WIDTH = "1"
_CD_WIDTH = "1.5"
_BAR_WIDTH = "4"
_BAND_WIDTH = "10"
_BAR_COLOR = "#333333"
_CAPTION_COLOR = "#333333"
_BAND_COLOR = "#f4a58299"          # the control band: the colour of significant cells, translucent

#: Above this share of the rank axis (CD / (L - 1)) the critical difference is
#: large: the caption and the report warn that the test can tell apart only
#: algorithms far apart.
POWER_WARNING_SHARE = 1 / 3


# -- layout ---------------------------------------------------------------------------

def cd_groups(order, significant):
    """Maximal runs of consecutive algorithms (in rank order) not found different.

    Parameters
    ----------
    order : sequence of int
        Algorithm indices by increasing average rank.
    significant : array_like of bool, shape (L, L)
        Symmetric: the pair was found different.

    Returns
    -------
    list of tuple of int
        Each run (of at least two algorithms) as indices in ``order``
        (positions), maximal: no run is contained in another.  A run covers
        positions ``i..j`` only if no pair inside it was found different.
    """
    order = np.asarray(list(order), dtype=int)
    n = order.size
    if n == 0:
        return []
    sig = np.asarray(significant, dtype=bool)[np.ix_(order, order)]
    # latest[j]: the last position k < j found different from j (-1: none).
    earlier = np.triu(sig, k=1)
    has = earlier.any(axis=0)
    latest = np.where(has, n - 1 - np.argmax(earlier[::-1], axis=0), -1)
    # A run from i extends to j while every latest[k] (i < k <= j) is below i;
    # end[i] is non-decreasing in i, so one forward sweep finds them all.
    runs = []
    last_end = -1
    j = 0
    for i in range(n):
        j = max(j, i)
        while j + 1 < n and latest[j + 1] < i:
            j += 1
        if j > last_end and j > i:
            runs.append(tuple(range(i, j + 1)))
        last_end = max(last_end, j)
    return runs


@dataclass(frozen=True)
class CDLabel:
    """One algorithm on the CD diagram (points, y downwards)."""

    name: str
    rank: float
    x: float           # where the leader line meets the axis
    y: float           # centre line of the label's row (the leader line)
    side: str          # 'left' or 'right'
    text: str
    box: tuple         # (x0, y0, x1, y1) of the text


@dataclass(frozen=True)
class CDLayout:
    """Coordinates of a critical-difference diagram, in points, y downwards."""

    width: float
    height: float
    axis: tuple        # (x0, x1, y)
    ticks: tuple       # ((rank, x), ...)
    tick_labels: tuple # ((text, x), ...)
    labels: tuple      # CDLabel, best first
    bars: tuple        # ((names, x0, x1, y), ...)
    cd_bar: tuple | None  # (x0, x1, y) or None
    control_band: tuple | None  # (x0, x1, y): one CD either side of the control, or None
    fontsize: float
    row: float


def cd_layout(names, average_ranks, significant=None, critical_difference=None, *,
              control=None, fontsize=12.0, title_room=0.0):
    """Place a critical-difference diagram (Demšar 2006, figure 1).

    The axis runs over ranks 1..L, best (rank 1) on the left.  The better
    half of the algorithms is labelled on the left, the worse half on the
    right, one label per row with leader lines that never cross; thick bars
    join the maximal runs of algorithms not found different (:func:`cd_groups`).

    Parameters
    ----------
    names : sequence of str
    average_ranks : sequence of float
    significant : array_like of bool, shape (L, L), optional
        Pairs found different; None draws no bars (no post-hoc test).
    critical_difference : float, optional
        Drawn as a bar above the axis.
    control : tuple (name, critical difference), optional
        Shade the band of one critical difference either side of this
        algorithm (comparisons with a control, Bonferroni–Dunn).
    fontsize : float
    title_room : float
        Points left empty above the drawing (for a title).

    Returns
    -------
    CDLayout

    Examples
    --------
    >>> layout = cd_layout(["a", "b", "c"], [1.2, 2.1, 2.7], [[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    >>> [(label.name, label.side) for label in layout.labels]
    [('a', 'left'), ('b', 'left'), ('c', 'right')]
    >>> [members for members, *_ in layout.bars]
    [('a', 'b'), ('b', 'c')]
    """
    names = [str(n) for n in names]
    ranks = np.asarray(average_ranks, dtype=float)
    L = len(names)
    if L < 1 or ranks.shape != (L,):
        raise MultitestError("`average_ranks` must have one rank per name")
    order = sorted(range(L), key=lambda i: (ranks[i], names[i]))
    row = fontsize * _ROW_PITCH
    n_left = (L + 1) // 2
    texts = {}
    for position, i in enumerate(order):
        rank_text = format_rank(ranks[i])
        texts[i] = (f"{names[i]}  {rank_text}" if position < n_left
                    else f"{rank_text}  {names[i]}")
    left_width = max([_text_width(texts[i], fontsize) for i in order[:n_left]] + [0.0])
    right_width = max([_text_width(texts[i], fontsize) for i in order[n_left:]] + [0.0])
    room = _WIDEST - left_width - right_width - 2 * (_MARGIN + _LABEL_GAP + _LEADER_RUN)
    axis_width = float(max(_AXIS_MIN, min(_AXIS_MAX, _POINTS_PER_RANK * (L - 1), room)))
    scale = axis_width / max(L - 1, 1)
    x0 = _MARGIN + left_width + _LABEL_GAP + _LEADER_RUN
    x1 = x0 + axis_width
    top = _MARGIN + title_room + (_CD_BAND * fontsize if critical_difference is not None else 0.0)
    y_axis = top + _AXIS_DROP * fontsize
    ticks = tuple((float(k), x0 + (k - 1) * scale) for k in range(1, L + 1))
    tick_labels = tuple((str(k), x0 + (k - 1) * scale) for k in _labelled_ranks(L, scale))
    bars, n_bar_rows = _bars(names, ranks, order, significant, x0, scale)
    bar_top = y_axis + _BAR_TOP
    bars = tuple((members, bx0, bx1, bar_top + k * _BAR_PITCH) for members, bx0, bx1, k in bars)
    first_row = bar_top + n_bar_rows * _BAR_PITCH + row * _FIRST_ROW
    labels = []
    for position, i in enumerate(order):
        x = x0 + (ranks[i] - 1) * scale
        w = _text_width(texts[i], fontsize)
        half = fontsize * _LABEL_HALF_HEIGHT
        if position < n_left:
            y = first_row + position * row
            tx = x0 - _LABEL_GAP - _LEADER_RUN
            box = (tx - w, y - half, tx, y + half)
            side = "left"
        else:
            y = first_row + (L - 1 - position) * row
            tx = x1 + _LABEL_GAP + _LEADER_RUN
            box = (tx, y - half, tx + w, y + half)
            side = "right"
        labels.append(CDLabel(name=names[i], rank=float(ranks[i]), x=x, y=y, side=side,
                              text=texts[i], box=box))
    n_rows = max(n_left, L - n_left)
    height = first_row + (n_rows - 1) * row + fontsize + _MARGIN
    width = x1 + _LABEL_GAP + _LEADER_RUN + right_width + _MARGIN
    cd_bar = None
    if critical_difference is not None and np.isfinite(critical_difference):
        length = min(float(critical_difference) * scale, axis_width)
        cd_bar = (x0, x0 + length, _MARGIN + title_room + _CD_BAR_DROP * fontsize)
    control_band = None
    if control is not None:
        name, cd_control = control
        rank_c = ranks[names.index(str(name))]
        low, high = max(1.0, rank_c - cd_control), min(float(L), rank_c + cd_control)
        control_band = (x0 + (low - 1) * scale, x0 + (high - 1) * scale, y_axis)
    return CDLayout(width=width, height=height, axis=(x0, x1, y_axis), ticks=ticks,
                    tick_labels=tick_labels, labels=tuple(labels), bars=bars, cd_bar=cd_bar,
                    control_band=control_band, fontsize=fontsize, row=row)


def _labelled_ranks(L, scale):
    """The ranks whose ticks get a label: every one, or every k-th when they are crowded
    (the last rank always)."""
    step = max(1, math.ceil(_TICK_LABEL_SPACING / scale))
    labelled = list(range(1, L + 1, step))
    if labelled[-1] != L:
        if (L - labelled[-1]) * scale < _TICK_LABEL_SPACING:
            labelled.pop()
        labelled.append(L)
    return labelled


def _bars(names, ranks, order, significant, x0, scale):
    """``([(member names, x from, x to, bar row)], number of bar rows)``: the maximal runs
    of :func:`cd_groups`, packed greedily into rows; none without ``significant``."""
    if significant is None:
        return [], 0
    bars, rows_end = [], []
    for run in cd_groups(order, significant):
        members = [order[p] for p in run]
        # A bar ends exactly at the leader lines of its first and last member.
        bx0 = x0 + (ranks[members[0]] - 1) * scale
        bx1 = x0 + (ranks[members[-1]] - 1) * scale
        for k, end in enumerate(rows_end):
            if end + _BAR_SPACING < bx0:
                rows_end[k] = bx1
                break
        else:
            k = len(rows_end)
            rows_end.append(bx1)
        bars.append((tuple(names[m] for m in members), bx0, bx1, k))
    return bars, len(rows_end)


def power_warning(sp, n_datasets):
    """A plain sentence when the critical difference spans much of the rank axis, else None.

    Parameters
    ----------
    sp : multitest.engine.SecondPassResult
    n_datasets : int

    Returns
    -------
    str or None
        Said when ``CD / (L - 1)`` exceeds :data:`POWER_WARNING_SHARE`.

    Examples
    --------
    Nemenyi's CD at 150 algorithms over 30 data sets, and at 8 over 38 (the bundled data):

    >>> from types import SimpleNamespace
    >>> many = SimpleNamespace(critical_difference=87.0, algorithms=range(150), applied=True)
    >>> print(power_warning(many, 30))  # doctest: +NORMALIZE_WHITESPACE
    Low power: the critical difference (87.00) is 58% of the 149 ranks between first and
    last: only algorithms far apart can be found different with 30 data sets and 150
    algorithms; pairs not found different are not shown to be equal.
    >>> power_warning(SimpleNamespace(critical_difference=1.70, algorithms=range(8),
    ...                               applied=True), 38) is None
    True
    """
    cd, L = sp.critical_difference, len(sp.algorithms)
    if not sp.applied or cd is None or L < 2 or cd / (L - 1) <= POWER_WARNING_SHARE:
        return None
    span = (f"is longer than the {L - 1} ranks between first and last: no two algorithms "
            "can be found different" if cd >= L - 1 else
            f"is {cd / (L - 1):.0%} of the {L - 1} ranks between first and last: only "
            "algorithms far apart can be found different")
    return (f"Low power: the critical difference ({format_rank(cd)}) {span} with "
            f"{n_datasets} data sets and {L} algorithms; pairs not found different are not "
            "shown to be equal.")
