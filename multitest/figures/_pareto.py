"""The error–cost picture: every algorithm at (cost, error), the Pareto front, the overrides.

:func:`pareto_layout` places one point per algorithm at (average cost, average
error rank) over data sets, or (cost, mean error) on one data set; the x axis
is logarithmic when the costs span more than two decades.  The front (no other
algorithm is both cheaper and better, ties allowed) is drawn as a staircase
and its points filled; the overrides (the second pass over data sets, the
pairwise tests on one data set) as arrows from the cheaper algorithm to the
costlier one that beat it.  Each point is labelled with its name and final
position, placed by a deterministic search (:func:`_place_labels`) so that no
label overlaps a point or another label, with a leader line when it stands
away from its point.  :func:`pareto_source` draws a layout as pinned DOT, which
Graphviz renders in every format (ids and classes in the SVG, to read it back).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._datasets import drawn_datasets
from ._pinned import PinnedDrawing
from ._pinned import text_width as _text_width

__all__ = []

_FONT = 11.0
_TITLE_FONT = 13.0
_SMALL = 10.0
_RADIUS = 4.0
#: Empty border; room left of the plot (y tick labels, axis title), under it, above it.
_MARGIN = 10.0
_LEFT = 62.0
_BOTTOM = 46.0
_TOP_TITLE = 30.0
#: Room above the plot for the y axis title (written horizontally).
_Y_TITLE_ROOM = 16.0
#: Plot sizes (points): small runs, and above 20 algorithms.
_PLOT_SMALL = (600.0, 380.0)
_PLOT_LARGE = (900.0, 600.0)
#: The widest picture: with Graphviz's pad (0.15 in each side) the report's column (1136 px
#: at a 1400 px window) then shows its smallest text (10 pt) at 9 px or more.  The plot
#: narrows (to _PLOT_NARROWEST) to make room for a column of long labels.
_WIDEST = 1230.0
_PLOT_NARROWEST = 480.0
#: A label's box: padding around the text; labels keep this far from everything.
_PAD = 2.0
_LABEL_HEIGHT = _FONT * 1.25
#: Candidate label positions: these distances from the point (points), 16 directions each.
_RADII = (8.0, 16.0, 26.0, 40.0, 60.0, 85.0, 115.0, 150.0)
_DIRECTIONS = 16
#: Above this many algorithms every label goes into the column right of the plot: the
#: search for a free place beside each point grows as L² (and with the override arrows).
LABEL_SEARCH_LIMIT = 60
#: Lines are kept clear of labels as points this far apart.
_LINE_STEP = 3.0
#: A label farther than this from its point gets a leader line.
_LEADER_ABOVE = 12.0
#: Labels no candidate fits go into a column right of the plot, this far from it.
_COLUMN_GAP = 24.0
#: The x axis is logarithmic when the largest cost is over this many times the smallest.
LOG_SPAN = 100.0
_FRONT_COLOUR = "#1b7837"
_ARROW_COLOUR = "#2166ac"
_POINT_COLOUR = "#4d4d4d"
_AXIS_COLOUR = "#333333"
#: Behind a label: white, a fifth transparent (a line under it still shows).
_LABEL_BACKGROUND = "#ffffffcc"


def pareto_front(costs, errors):
    """Which points are on the Pareto front (lower cost and lower error are better).

    A point is on the front unless another one is at most as costly and at most
    as erroneous, and strictly better in one of the two.

    Parameters
    ----------
    costs, errors : array_like, shape (L,)

    Returns
    -------
    ndarray of bool

    Examples
    --------
    >>> pareto_front([1, 2, 3, 4], [0.5, 0.3, 0.4, 0.1]).tolist()
    [True, True, False, True]
    """
    c = np.asarray(costs, dtype=float)
    e = np.asarray(errors, dtype=float)
    no_worse = (c[:, None] <= c[None, :]) & (e[:, None] <= e[None, :])
    better = (c[:, None] < c[None, :]) | (e[:, None] < e[None, :])
    return ~(no_worse & better).any(axis=0)


@dataclass(frozen=True)
class ParetoPoint:
    """One algorithm on the picture (points, y downwards)."""

    name: str
    cost: float
    error: float
    position: int
    front: bool
    x: float
    y: float
    label: str
    box: tuple          # (x0, y0, x1, y1) of the label
    leader: tuple | None  # (x0, y0, x1, y1) or None


@dataclass(frozen=True)
class ParetoLayout:
    """Coordinates of the error–cost picture, in points, y downwards."""

    width: float
    height: float
    plot: tuple         # (x0, y0, x1, y1)
    log: bool
    cost_range: tuple   # (low, high) of the x axis, in costs
    error_range: tuple  # (low, high) of the y axis, in errors
    x_ticks: tuple      # ((text, x), ...)
    y_ticks: tuple      # ((text, y), ...)
    points: tuple       # ParetoPoint, in final order
    front: tuple        # ((x0, y0, x1, y1), ...): the staircase
    arrows: tuple       # ((cheaper, costlier, x0, y0, x1, y1), ...)
    x_title: str
    y_title: str
    title: str
    caption: tuple


def pareto_layout(names, costs, errors, positions, overrides=(), *, title="", x_title="cost",
                  y_title="error", caption=()):
    """Place the error–cost picture.

    Parameters
    ----------
    names : sequence of str
    costs, errors : sequence of float
    positions : sequence of int
        Final position of each algorithm (1 = best).
    overrides : sequence of (str, str)
        ``(cheaper, costlier)``: the costlier beat the cheaper (an arrow).
    title, x_title, y_title : str
    caption : sequence of str
        Lines drawn under the picture (none: captions beside it).

    Returns
    -------
    ParetoLayout

    Examples
    --------
    >>> layout = pareto_layout(["a", "b", "c"], [1, 10, 1000], [3, 1, 2], [3, 1, 2])
    >>> layout.log, [(p.name, p.front) for p in layout.points]   # in final order
    (True, [('b', True), ('c', False), ('a', True)])
    """
    names = [str(n) for n in names]
    costs = np.asarray(costs, dtype=float)
    errors = np.asarray(errors, dtype=float)
    L = len(names)
    plot_w, plot_h = _PLOT_LARGE if L > 20 else _PLOT_SMALL
    column = _COLUMN_GAP + max((_text_width(f"{n} ({p})", _FONT) + 2 * _PAD
                                for n, p in zip(names, positions)), default=0.0)
    plot_w = max(_PLOT_NARROWEST, min(plot_w, _WIDEST - 2 * _MARGIN - _LEFT - column))
    top = _MARGIN + (_TOP_TITLE if title else 0.0) + _Y_TITLE_ROOM
    x0, y0 = _MARGIN + _LEFT, top
    x1, y1 = x0 + plot_w, y0 + plot_h
    positive = costs[costs > 0]
    log = bool(positive.size == L and costs.max() > LOG_SPAN * costs.min())
    cost_range = _padded(np.log10(costs) if log else costs)
    error_range = _padded(errors)

    def x_of(cost):
        value = math.log10(cost) if log else cost
        return x0 + (value - cost_range[0]) / (cost_range[1] - cost_range[0]) * plot_w

    def y_of(error):
        return y1 - (error - error_range[0]) / (error_range[1] - error_range[0]) * plot_h

    xs = np.array([x_of(c) for c in costs])
    ys = np.array([y_of(e) for e in errors])
    front = pareto_front(costs, errors)
    on_front = sorted(np.flatnonzero(front), key=lambda i: (xs[i], ys[i]))
    stairs = []
    for i, j in zip(on_front, on_front[1:]):
        stairs += [(xs[i], ys[i], xs[j], ys[i]), (xs[j], ys[i], xs[j], ys[j])]
    index = {n: i for i, n in enumerate(names)}
    arrows = tuple((a, b, float(xs[index[a]]), float(ys[index[a]]), float(xs[index[b]]),
                    float(ys[index[b]])) for a, b in overrides)
    order = sorted(range(L), key=lambda i: (positions[i], names[i]))
    labels = [f"{names[i]} ({positions[i]})" for i in range(L)]
    lines = stairs + [arrow[2:] for arrow in arrows]
    boxes, leaders, (column_right, column_bottom) = _place_labels(labels, xs, ys, order, (x0, y0, x1, y1),
                                                 lines)
    points = tuple(ParetoPoint(name=names[i], cost=float(costs[i]), error=float(errors[i]),
                               position=int(positions[i]), front=bool(front[i]),
                               x=float(xs[i]), y=float(ys[i]), label=labels[i],
                               box=boxes[i], leader=leaders[i]) for i in order)
    width = max(x1, column_right) + _MARGIN
    # (a label column longer than the plot pushes the axis title and caption down)
    y_below = max(y1, column_bottom)
    height = y_below + _BOTTOM + _MARGIN + len(caption) * _SMALL * 1.4
    if caption:
        width = max(width, _MARGIN * 2 + max(_text_width(c, _SMALL) for c in caption))
    if title:
        width = max(width, _MARGIN * 2 + _text_width(title, _TITLE_FONT))
    return ParetoLayout(width=float(width), height=float(height), plot=(x0, y0, x1, y1),
                        log=log, cost_range=cost_range, error_range=error_range,
                        x_ticks=_x_ticks(cost_range, log, x_of),
                        y_ticks=tuple((_tick_text(v), y_of(v)) for v in
                                      _nice_ticks(*error_range)),
                        points=points, front=tuple(tuple(map(float, s)) for s in stairs),
                        arrows=arrows, x_title=x_title, y_title=y_title, title=title,
                        caption=tuple(caption))


def _padded(values):
    """``(low, high)`` of ``values`` with 6 % room either side (one unit when all equal)."""
    low, high = float(np.min(values)), float(np.max(values))
    pad = 0.06 * (high - low) if high > low else max(abs(low) * 0.1, 0.5)
    return low - pad, high + pad


def _nice_ticks(low, high, count=6):
    step = 10 ** math.floor(math.log10((high - low) / count))
    for factor in (1, 2, 2.5, 5, 10):
        if (high - low) / (step * factor) <= count:
            step *= factor
            break
    return [round(k * step, 12) for k in range(math.ceil(low / step), math.floor(high / step)
                                               + 1)]


def _tick_text(value):
    return f"{value:g}"


def _x_ticks(cost_range, log, x_of):
    if not log:
        return tuple((_tick_text(v), x_of(v)) for v in _nice_ticks(*cost_range))
    return tuple((_tick_text(10.0 ** k), x_of(10.0 ** k)) for k in
                 range(math.ceil(cost_range[0]), math.floor(cost_range[1]) + 1))


def _place_labels(labels, xs, ys, order, plot, lines=()):
    """``(boxes, leaders, (right, bottom) of the label column)``: a box per label (index of
    ``labels``), and a leader line or None.

    Labels are placed one at a time in ``order``: at the first candidate (nearest
    first, :data:`_RADII` x :data:`_DIRECTIONS`) inside the plot that intersects no
    point (every point, as its circle's box), no label placed and no line of
    ``lines`` (``(x0, y0, x1, y1)``: the front and the arrows, as points every
    :data:`_LINE_STEP`); a label none fits goes into a column right of the plot,
    rows from the top.  Deterministic.
    """
    L = len(labels)
    px0, py0, px1, py1 = plot
    r = _RADIUS + _PAD
    taken = np.empty((0, 4))
    sx, sy = _line_points(lines)
    markers = np.vstack([np.column_stack([xs - r, ys - r, xs + r, ys + r]),
                         np.column_stack([sx - 1, sy - 1, sx + 1, sy + 1])])
    widths = np.array([_text_width(t, _FONT) + 2 * _PAD for t in labels])
    h = _LABEL_HEIGHT
    angles = np.arange(_DIRECTIONS) * (2 * math.pi / _DIRECTIONS)
    boxes, leaders = [None] * L, [None] * L
    column_y, column_right = py0, px1
    reach = _RADII[-1] + widths.max() + h
    for i in order:
        w = widths[i]
        near = _near(markers, xs[i], ys[i], reach)
        near_taken = _near(taken, xs[i], ys[i], reach)
        box = None
        for d in (_RADII if L <= LABEL_SEARCH_LIMIT else ()):   # nearest first; first free wins
            # the label's edge nearest the point at distance d from it
            cx, cy = xs[i] + np.cos(angles) * (d + w / 2), ys[i] - np.sin(angles) * (d + h / 2)
            cand = np.column_stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
            free = ((cand[:, 0] >= px0) & (cand[:, 2] <= px1) & (cand[:, 1] >= py0)
                    & (cand[:, 3] <= py1))
            free &= ~_hits(cand, near) & ~_hits(cand, near_taken)
            if free.any():
                box = tuple(float(v) for v in cand[int(np.argmax(free))])
                break
        if box is None:
            tx = px1 + _COLUMN_GAP
            box = (tx, column_y, tx + w, column_y + h)
            column_y += h + _PAD
            column_right = max(column_right, tx + w)
        boxes[i] = box
        taken = np.vstack([taken, box])
        leaders[i] = _leader(xs[i], ys[i], box)
    return boxes, leaders, (column_right, column_y)


def _near(boxes, x, y, reach):
    """The rows of ``boxes`` (n, 4) that reach within ``reach`` of ``(x, y)`` (a square)."""
    keep = ((boxes[:, 2] >= x - reach) & (boxes[:, 0] <= x + reach)
            & (boxes[:, 3] >= y - reach) & (boxes[:, 1] <= y + reach))
    return boxes[keep]


def _line_points(lines):
    """Points every :data:`_LINE_STEP` along each line (its ends included)."""
    xs, ys = [np.empty(0)], [np.empty(0)]
    for lx0, ly0, lx1, ly1 in lines:
        n = max(2, int(math.hypot(lx1 - lx0, ly1 - ly0) / _LINE_STEP) + 1)
        t = np.linspace(0.0, 1.0, n)
        xs.append(lx0 + t * (lx1 - lx0))
        ys.append(ly0 + t * (ly1 - ly0))
    return np.concatenate(xs), np.concatenate(ys)


def _hits(candidates, boxes):
    """Which of ``candidates`` (n, 4) intersect any of ``boxes`` (m, 4)."""
    if len(boxes) == 0:
        return np.zeros(len(candidates), dtype=bool)
    c, b = candidates[:, None, :], boxes[None, :, :]
    return ((c[..., 0] < b[..., 2]) & (b[..., 0] < c[..., 2]) & (c[..., 1] < b[..., 3])
            & (b[..., 1] < c[..., 3])).any(axis=1)


def _leader(x, y, box):
    """A line from the point's circle to the nearest point of ``box``, or None when near."""
    bx = min(max(x, box[0]), box[2])
    by = min(max(y, box[1]), box[3])
    distance = math.hypot(bx - x, by - y)
    if distance <= _LEADER_ABOVE:
        return None
    start = _RADIUS / distance
    return (x + (bx - x) * start, y + (by - y) * start, bx, by)


# -- drawing ---------------------------------------------------------------------------

def pareto_source(layout, name="pareto"):
    """DOT of a :class:`ParetoLayout`, every element pinned (Graphviz draws it in every
    format, :mod:`multitest.figures._pinned`).

    Ids in the SVG, to read the picture back: each point is the node
    ``point:<name>`` (class ``point``, with ``front`` on the front), its label
    ``label:<name>`` and the label's box ``label-box:<name>``; each arrow the edge
    ``override:<cheaper>:<costlier>``; the ticks the edges ``x-tick:<value>`` and
    ``y-tick:<value>``; the front's steps have class ``front``, the axis titles
    ``x-title`` and ``y-title``, the title ``title`` and the caption lines ``caption``.

    Parameters
    ----------
    layout : ParetoLayout
    name : str
        The graph's name.

    Returns
    -------
    str

    Examples
    --------
    >>> layout = pareto_layout(["a", "b"], [1, 2], [2, 1], [2, 1])
    >>> source = pareto_source(layout)
    >>> 'id="point:a"' in source and 'class="point front"' in source
    True
    """
    d = PinnedDrawing(name, layout.height)
    d.corners(layout.width)
    _axes(d, layout)
    for sx0, sy0, sx1, sy1 in layout.front:
        d.line(sx0, sy0, sx1, sy1, css="front", color=_FRONT_COLOUR, penwidth=2)
    for a, b, ax, ay, bx, by in layout.arrows:
        _arrow(d, a, b, ax, ay, bx, by)
    for p in layout.points:
        if p.leader is not None:
            d.line(*p.leader, css="leader", color="#999999", penwidth=0.8)
    for p in layout.points:
        fill = _FRONT_COLOUR if p.front else "white"
        stroke = _FRONT_COLOUR if p.front else _POINT_COLOUR
        d.disc(p.x, p.y, _RADIUS, fill, stroke, 1.5, node_id=f"point:{p.name}",
               css="point front" if p.front else "point")
    for p in layout.points:
        bx0, by0, bx1, by1 = p.box
        d.box(bx0, by0, bx1 - bx0, by1 - by0, _LABEL_BACKGROUND,
              node_id=f"label-box:{p.name}", css="label-box")
        d.text(bx0 + _PAD, (by0 + by1) / 2, p.label, _FONT, anchor="start",
               width=bx1 - bx0 - 2 * _PAD, node_id=f"label:{p.name}", css="label")
    if layout.title:
        d.text_at_baseline(_MARGIN, _MARGIN + _TITLE_FONT, layout.title, _TITLE_FONT,
                           bold=True, css="title")
    n = len(layout.caption)
    for k, line in enumerate(layout.caption):      # the last line a margin above the bottom
        y = layout.height - _MARGIN - (n - 1 - k) * _SMALL * 1.4 - 2
        d.text_at_baseline(_MARGIN, y, line, _SMALL, color="#333333", css="caption")
    return d.source()


def _axes(d, layout):
    x0, y0, x1, y1 = layout.plot
    for xa, ya, xb, yb in ((x0, y0, x1, y0), (x1, y0, x1, y1), (x1, y1, x0, y1),
                           (x0, y1, x0, y0)):
        d.line(xa, ya, xb, yb, css="plot", color=_AXIS_COLOUR)
    for text, x in layout.x_ticks:
        d.line(x, y1, x, y1 + 4, id=f"x-tick:{text}", css="x-tick", color=_AXIS_COLOUR)
        d.text_at_baseline(x, y1 + 16, text, _SMALL, anchor="middle")
    for text, y in layout.y_ticks:
        d.line(x0 - 4, y, x0, y, id=f"y-tick:{text}", css="y-tick", color=_AXIS_COLOUR)
        d.text(x0 - 6, y, text, _SMALL, anchor="end")
    d.text_at_baseline((x0 + x1) / 2, y1 + 34, layout.x_title, _FONT, anchor="middle",
                       css="x-title")
    # The y title stands horizontally above the axis (no rotation: every format draws it).
    d.text_at_baseline(x0 - 30, y0 - 6, layout.y_title, _FONT, css="y-title")


def _arrow(d, a, b, ax, ay, bx, by):
    """A line from ``a``'s point to ``b``'s with its head just before ``b``'s circle."""
    length = math.hypot(bx - ax, by - ay)
    if length <= 2 * _RADIUS + 2:
        return
    ux, uy = (bx - ax) / length, (by - ay) / length
    d.line(ax + ux * (_RADIUS + 1), ay + uy * (_RADIUS + 1), bx - ux * (_RADIUS + 2),
           by - uy * (_RADIUS + 2), id=f"override:{a}:{b}", css="override",
           color=_ARROW_COLOUR, penwidth=1.2, dir="forward", arrowhead="vee", arrowsize=0.7)


# -- the pictures of a ranking -----------------------------------------------------------

def _cost_title(profile, average):
    what = "average cost" if average else "cost"
    if profile.order is not None:
        return f"{what}: position in the given order (0 = cheapest)"
    unit = profile.unit or "no unit given"
    if profile.normalization != "none":
        unit += f", normalized ({profile.normalization})"
    return f"{what} ({unit})"


def pareto_caption(ranking, dataset=None):
    """The caption lines of the overall picture, or of the one of ``dataset``."""
    from ..engine._explain import cost_unit_sentence

    lines = ["filled on the staircase: the Pareto front (no other algorithm is both cheaper "
             "and lower in error); (k): final position" if dataset is None else
             "filled on the staircase: the Pareto front (no other algorithm is both cheaper "
             "and lower in mean error); (k): position on this data set"]
    if dataset is None and ranking.second_pass is not None:
        source = f"the second pass ({ranking.second_pass.method_entry.caption})"
        arrows = bool(ranking.second_pass.edges())
    else:
        result = ranking.datasets[0] if dataset is None else dataset
        source, arrows = "the pairwise tests", result.has_overrides   # no p-value computed
    lines.append(f"arrows: the overrides of {source}, from the cheaper algorithm to the "
                 "costlier one that beat it" if arrows else f"no arrows: no overrides in "
                 f"{source}: the costlier algorithms are not found better than the cheaper ones")
    lines.append(cost_unit_sentence(ranking.profile))
    return lines


def _overall(ranking):
    """The keywords of :func:`pareto_layout` (but the caption) of the picture over data
    sets, or None without a second pass."""
    sp = ranking.second_pass
    if sp is None:
        return None
    names = list(sp.algorithms)
    position = {a: k for k, a in enumerate(ranking.final_order, start=1)}
    return dict(names=names, costs=sp.average_costs,
                errors=[ranking.average_error_ranks[a] for a in names],
                positions=[position[a] for a in names], overrides=sp.edges(),
                title=f"Average error rank against average cost over {len(ranking.datasets)} "
                f"data sets, with the overrides of the {sp.method_entry.caption}",
                x_title=_cost_title(ranking.profile, True),
                y_title="average error rank (1 = lowest mean error)")


def _of_dataset(ranking, result):
    """The keywords of :func:`pareto_layout` (but the caption) of the picture of one data
    set."""
    index = {a: i for i, a in enumerate(result.algorithms)}
    names = list(result.order)
    errors = result.mean_errors
    return dict(names=names, costs=[result.costs[index[a]] for a in names],
                errors=[errors[a] for a in names], positions=list(range(1, len(names) + 1)),
                overrides=[(a, b) for a, b, *_ in result.edges()],
                title=f"{result.name}: mean error against cost, with the pairwise overrides",
                x_title=_cost_title(ranking.profile, False), y_title="mean error")


def pareto_figures(ranking, captions="inside", per_dataset=True, figures_for=None):
    """``{stem: (DOT source, title, caption lines)}``: ``pareto`` (over data sets; on a
    single data set its mean errors) and, over several data sets, ``pareto_<data set>``
    for every data set drawn (``figures_for``,
    :func:`~multitest.figures._datasets.drawn_datasets`).

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    captions : {'inside', 'none'}
        ``'none'``: no title or caption in the drawing.
    per_dataset : bool
    figures_for : 'all' or sequence of str, optional

    Returns
    -------
    dict
    """
    out = {}
    overall = _overall(ranking)
    if overall is None:     # a single data set: its picture is the one of the run
        result = ranking.datasets[0]
        out["pareto"] = _figure("pareto", _of_dataset(ranking, result),
                                pareto_caption(ranking, result), captions)
        return out
    out["pareto"] = _figure("pareto", overall, pareto_caption(ranking), captions)
    if per_dataset:
        for result, stem in drawn_datasets(ranking, figures_for):
            out[f"pareto_{stem}"] = _figure(f"pareto_{stem}", _of_dataset(ranking, result),
                                            pareto_caption(ranking, result), captions)
    return out


def _figure(stem, picture, caption, captions):
    """``(DOT source, title, caption lines)`` of `picture` (:func:`_overall`,
    :func:`_of_dataset`); `captions`: ``'none'``, no title or caption in the drawing."""
    inside = captions == "inside"
    layout = pareto_layout(**dict(picture, title=picture["title"] if inside else "",
                                  caption=caption if inside else ()))
    return pareto_source(layout, stem), picture["title"], tuple(caption)
