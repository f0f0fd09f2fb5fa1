"""The critical-difference diagrams of a ranking: what each draws, and its DOT emitter.

Each diagram draws the quantity its test tested (:func:`cd_diagrams`):

- ``cd``, the diagram of the second pass: with the Nemenyi test the average
  MultiTest positions and the critical difference; with a paired test over
  data sets (Wilcoxon, sign) the average error ranks, with bars joining the
  cliques of algorithms whose adjusted p-values are at least alpha (as critdd
  and aeon draw them).  A Bayesian second pass has no critical difference:
  its figure is the one of the posterior probabilities
  (:mod:`multitest.figures._bayes`), and there is no ``cd``.
- ``cd_errors``, Demšar's diagram: the average ranks of the mean errors with
  the Nemenyi test on them (gated by the Friedman test on error ranks), the
  cost-free picture beside the cost-aware one.

A :class:`CDDiagram` is one layout (:func:`~multitest.figures._cd.cd_layout`), its
title and its caption lines, computed once; :func:`cd_source` draws it as DOT
with every node pinned (``dot`` renders the SVG, PNG and PDF) and
:func:`~multitest.figures._tikz.cd_tikz` as a TikZ picture.
"""

from __future__ import annotations

from dataclasses import dataclass

import graphviz
import numpy as np

from .._errors import MultitestError
from .._format import format_rank, p_equals
from ..engine._options import FIGURE_CAPTIONS as CAPTIONS
from ..stats._nemenyi import critical_difference, nemenyi
from ._cd import (
    _AXIS_WIDTH, _BAND_COLOR, _BAND_WIDTH, _BAR_COLOR, _BAR_WIDTH, _CAPTION_COLOR,
    _CAPTION_EXTRA, _CAPTION_FIRST, _CAPTION_PITCH, _CD_END, _CD_LABEL_FONT, _CD_LABEL_RISE,
    _CD_WIDTH, _LEADER_TEXT_GAP, _MARGIN, _SMALL_FONT, _TICK_LABEL_RISE, _TICK_LONG,
    _TICK_SHORT, _TICK_WIDTH, CDLayout, cd_layout, power_warning,
)
from ._dot import _require_second_pass
from ._pinned import PinnedDrawing

__all__ = ["render_cd_diagram", "render_cd_errors"]

#: Room for the title above the diagram, in font sizes.
_TITLE_ROOM = 1.8
#: Size of the title, and the drop of its centre line below the top margin, in font sizes.
_TITLE_FONT = 1.05
_TITLE_DROP = 0.6


@dataclass(frozen=True)
class CDDiagram:
    """One critical-difference diagram: its layout, title and caption, computed once.

    Attributes
    ----------
    title : str
        Names the quantity drawn and the test.
    quantity : str
        What the axis holds (``'average MultiTest position'`` or
        ``'average error rank'``).
    layout : multitest.figures._cd.CDLayout
    caption : tuple of str
        Plain-text lines.
    captions : {'inside', 'none'}
        Whether the title and caption are drawn (else: written beside).
    """

    title: str
    quantity: str
    layout: CDLayout
    caption: tuple
    captions: str

    def __post_init__(self):
        # Caption lines broken at spaces, so that none is much wider than the drawing.
        object.__setattr__(self, "caption", tuple(part for line in self.caption
                                                  for part in _caption_lines(line)))

    @property
    def drawn_text(self):
        """``(title, caption lines)`` drawn inside the figure (none with ``captions='none'``)."""
        if self.captions == "none":
            return None, ()
        return self.title, self.caption

    @property
    def height(self):
        """Height of the whole drawing, caption included, in points."""
        lines = len(self.drawn_text[1])
        extra = (lines + _CAPTION_EXTRA) * self.layout.fontsize * _CAPTION_PITCH if lines else 0
        return self.layout.height + extra


def check_captions(captions):
    """``captions`` if it is one of :data:`CAPTIONS`, else a :class:`MultitestError`."""
    if captions not in CAPTIONS:
        raise MultitestError(f"`captions` must be one of {', '.join(CAPTIONS)}, got "
                             f"{captions!r}")
    return captions


def cd_diagrams(ranking, captions="inside"):
    """The critical-difference diagrams of ``ranking``: ``{stem: CDDiagram}``.

    ``cd`` (not with a Bayesian second pass) and ``cd_errors``; none with a
    single data set.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    captions : {'inside', 'none'}

    Returns
    -------
    dict
    """
    check_captions(captions)
    sp = ranking.second_pass
    if sp is None:
        return {}
    out = {}
    if not sp.method_entry.bayesian:
        out["cd"] = _second_pass_diagram(ranking, captions)
    out["cd_errors"] = _errors_diagram(ranking, captions)
    return out


def _title_room(captions, fontsize=12.0):
    return _TITLE_ROOM * fontsize if captions == "inside" else 0.0


def _second_pass_diagram(ranking, captions):
    sp = ranking.second_pass
    entry = sp.method_entry
    n = len(ranking.datasets)
    significant = sp.significant if sp.applied else None
    test = _test_words(sp)
    if entry.rank_based:
        cd = sp.critical_difference if sp.applied else None
        caption = [_where(sp, n, "average MultiTest positions") + "; positions contain the "
                   "cost order", _error_rank_line(ranking)]
        caption += _decision_lines(sp, n, "thick bars join algorithms not found different "
                                   "(maximal runs in order of average position)")
        control = _control(ranking, caption)
        layout = cd_layout(sp.algorithms, sp.average_positions, significant, cd, control=control,
                           title_room=_title_room(captions))
        return CDDiagram(title=f"Average MultiTest positions, {test}", caption=tuple(caption),
                         quantity="average MultiTest position", layout=layout,
                         captions=captions)
    ranks = [ranking.average_error_ranks[a] for a in sp.algorithms]
    caption = [_where(sp, n, "average error ranks (rank of the mean error on each data set, "
                      "1 = lowest)") + f"; the {entry.caption} tested the mean errors"]
    caption += _decision_lines(sp, n, "thick bars join cliques of algorithms whose adjusted "
                               f"p-values are all at least \u03b1 = {sp.alpha:g} (maximal "
                               "runs in order of average error rank)")
    caption.append("the final order adds the cost order: see the final and second-pass "
                   "figures")
    layout = cd_layout(sp.algorithms, ranks, significant, None,
                       title_room=_title_room(captions))
    return CDDiagram(title=f"Average error ranks, {test}", caption=tuple(caption),
                     quantity="average error rank", layout=layout, captions=captions)


def _test_words(sp):
    """The test and its correction, for a title."""
    words = sp.method_entry.caption
    if sp.correction != "none":
        words += f", {sp.correction} correction"
    words += f", \u03b1 = {sp.alpha:g}"
    if not sp.applied:
        words += f" (not applied: {sp.gate_name} does not reject)"
    elif sp.critical_difference is not None:
        words += f", CD = {format_rank(sp.critical_difference)}"
    return words


def _where(sp, n_datasets, what):
    if sp.incomplete:
        return (f"{what} over the data sets where each ran ({n_datasets} data sets, "
                "missing='partial'; best on the left)")
    return f"{what} over {n_datasets} data sets (best on the left)"


def _error_rank_line(ranking):
    sp = ranking.second_pass
    average = [ranking.average_error_ranks[a] for a in sp.algorithms]
    best = int(np.argmin(average))
    fe = ranking.friedman_errors
    test = "" if fe is None else f"; Friedman on error ranks {p_equals(fe.pvalue)}"
    return (f"by mean error alone: best average error rank {sp.algorithms[best]} "
            f"({format_rank(average[best])}){test} (cd_errors)")


def _decision_lines(sp, n_datasets, bars):
    """What decided and what the bars are, or that no post-hoc test was applied."""
    if not sp.applied:
        return [f"{sp.gate_name} does not reject at \u03b1 = {sp.alpha:g}: no post-hoc "
                "test applied, no groups drawn"]
    text = f"{sp.method_entry.caption}, \u03b1 = {sp.alpha:g}"
    if sp.correction != "none":
        text += f", {sp.correction} correction"
    if sp.critical_difference is not None:
        text += f", critical difference CD = {format_rank(sp.critical_difference)}"
    warning = power_warning(sp, n_datasets)
    return [text, bars] + ([warning] if warning else [])


def _control(ranking, caption):
    """The control band ``(name, CD)`` of the Bonferroni–Dunn comparisons (on positions),
    said in ``caption``; None without a control."""
    c = ranking.control
    if c is None:
        return None
    sp = ranking.second_pass
    name = sp.algorithms[c.control]
    differ = [sp.algorithms[i] for i in np.flatnonzero(c.significant)]
    caption.append("shaded: one Bonferroni\u2013Dunn CD = "
                   f"{format_rank(c.critical_difference)} either side of the control "
                   f"{name}; {c.method} finds {', '.join(differ) or 'none'} different from it")
    return name, float(c.critical_difference)


def _errors_diagram(ranking, captions):
    """Demšar's diagram: average error ranks, the Nemenyi test on the error ranks."""
    s = ranking.settings
    names = list(ranking.algorithms)
    ranks = ranking.error_ranks()
    S, L = ranks.shape
    average = [ranking.average_error_ranks[a] for a in names]
    fe = ranking.friedman_errors
    caption = [f"average error ranks over {S} data sets (rank of the mean error on each data "
               "set, 1 = lowest, best on the left); costs not used"]
    significant = cd = None
    if fe is None:
        caption.append("an incomplete table (missing='partial'): no Friedman or Nemenyi test "
                       "on error ranks, no groups drawn")
        title = "Average error ranks (no test: incomplete table)"
    elif s.friedman_gate and not fe.pvalue < s.alpha:
        caption.append(f"Friedman on error ranks {p_equals(fe.pvalue)} does not reject at "
                       f"\u03b1 = {s.alpha:g}: no post-hoc test applied, no groups drawn")
        title = (f"Average error ranks, Nemenyi test (Demšar 2006) not applied: Friedman "
                 f"does not reject at \u03b1 = {s.alpha:g}")
    else:
        # The one Nemenyi implementation, on the error ranks instead of the positions.
        significant = nemenyi(ranks, alpha=s.alpha).significant
        cd = critical_difference(L, S, s.alpha)
        caption += [f"Friedman on error ranks {p_equals(fe.pvalue)}; Nemenyi test on error "
                    f"ranks, \u03b1 = {s.alpha:g}, critical difference CD = {format_rank(cd)}",
                    "thick bars join algorithms not found different (maximal runs in order of "
                    "average error rank)"]
        title = (f"Average error ranks, Nemenyi test (Demšar 2006), \u03b1 = {s.alpha:g}, "
                 f"CD = {format_rank(cd)}")
    caption.append("not the second pass of this run: the cost-aware order is in the final "
                   "figure" + (" and cd" if not ranking.second_pass.method_entry.bayesian
                               else ""))
    layout = cd_layout(names, average, significant, cd, title_room=_title_room(captions))
    return CDDiagram(title=title, quantity="average error rank", layout=layout,
                     caption=tuple(caption), captions=captions)


def _caption_lines(text, width=110):
    """``text`` broken at spaces into caption lines of at most ``width`` characters."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line]


def render_cd_diagram(ranking, captions="inside"):
    """The critical-difference diagram of the second pass (Demšar 2006).

    The axis holds the quantity the second pass tested: average MultiTest
    positions 1..L (best left) with the critical difference as a bar above
    it for the Nemenyi test; average error ranks with bars joining the cliques
    of the adjusted p-values for a paired test over data sets (Wilcoxon,
    sign).  Every algorithm is labelled on its own row (better half left,
    worse half right).  With the Friedman gate closed only the ranks are
    drawn, and the caption says no post-hoc test was applied.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
        With at least two data sets, and a second pass that is not Bayesian
        (its figure is the one of the posterior probabilities).
    captions : {'inside', 'none'}
        ``'none'``: no title or caption in the drawing.

    Returns
    -------
    graphviz.Source
        DOT for ``neato`` with every position pinned (the ``layout``
        attribute is in the source, so ``dot -Tsvg`` draws it too).

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> from multitest.figures import render_cd_diagram
    >>> diagram = render_cd_diagram(rank(example_results(), "training_time"))
    >>> diagram.source.splitlines()[0]
    'digraph "cd" {'
    """
    sp = _require_second_pass(ranking, "render_cd_diagram")
    if sp.method_entry.bayesian:
        raise MultitestError("`render_cd_diagram`: a Bayesian second pass has no critical "
                             "difference; its probabilities are drawn by bayes_figures")
    return graphviz.Source(cd_source(cd_diagrams(ranking, captions)["cd"]))


def render_cd_errors(ranking, captions="inside"):
    """Demšar's diagram of the average error ranks with the Nemenyi test on them.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
        With at least two data sets.
    captions : {'inside', 'none'}

    Returns
    -------
    graphviz.Source

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> from multitest.figures import render_cd_errors
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine", "zoo"])
    >>> "layout=neato" in render_cd_errors(ranking).source    # every position pinned
    True
    """
    _require_second_pass(ranking, "render_cd_errors")
    return graphviz.Source(cd_source(cd_diagrams(ranking, captions)["cd_errors"]))


def cd_source(diagram):
    """DOT text drawing ``diagram`` with every node pinned.

    The k-th label (best first) is the node of id ``label-k`` and its leader
    line the edge ``leader-k``, the tick of rank k ``tick-k``, the bar joining
    labels i to j ``bar-i-j`` and the end marks of the critical difference
    ``cd-start`` and ``cd-end`` (ids in the SVG, to read it back).

    Parameters
    ----------
    diagram : CDDiagram

    Returns
    -------
    str
    """
    layout = diagram.layout
    fs = layout.fontsize
    title, caption = diagram.drawn_text
    d = PinnedDrawing("cd", diagram.height)
    x0, x1, y = layout.axis
    if layout.control_band is not None:
        bx0, bx1, by = layout.control_band
        d.line(bx0, by, bx1, by, penwidth=_BAND_WIDTH, color=_BAND_COLOR, id="control-band")
    d.line(x0, y, x1, y, penwidth=_AXIS_WIDTH, id="axis")
    labelled = {x for _, x in layout.tick_labels}
    for k, (_, x) in enumerate(layout.ticks, start=1):
        d.line(x, y - (_TICK_LONG if x in labelled else _TICK_SHORT), x, y,
               penwidth=_TICK_WIDTH, id=f"tick-{k}")
    for text, x in layout.tick_labels:
        d.text(x, y - _TICK_LABEL_RISE, text, fs * _SMALL_FONT)
    if layout.cd_bar is not None:
        cx0, cx1, cy = layout.cd_bar
        d.line(cx0, cy, cx1, cy, penwidth=_CD_WIDTH)
        d.line(cx0, cy - _CD_END, cx0, cy + _CD_END, penwidth=_CD_WIDTH, id="cd-start")
        d.line(cx1, cy - _CD_END, cx1, cy + _CD_END, penwidth=_CD_WIDTH, id="cd-end")
        d.text((cx0 + cx1) / 2, cy - _CD_LABEL_RISE, "CD", fs * _CD_LABEL_FONT)
    for k, label in enumerate(layout.labels, start=1):
        left = label.side == "left"
        d.line(label.x, y, label.x, label.y, id=f"leader-{k}")
        d.line(label.x, label.y,
               label.box[2] + _LEADER_TEXT_GAP if left else label.box[0] - _LEADER_TEXT_GAP,
               label.y)
        d.text(label.box[2] if left else label.box[0], label.y, label.text, fs,
               anchor="end" if left else "start", width=label.box[2] - label.box[0],
               node_id=f"label-{k}")
    number = {label.name: k for k, label in enumerate(layout.labels, start=1)}
    for members, bx0, bx1, by in layout.bars:
        d.line(bx0, by, bx1, by, penwidth=_BAR_WIDTH, color=_BAR_COLOR,
               id=f"bar-{number[members[0]]}-{number[members[-1]]}")
    if title:
        d.text(_MARGIN, _MARGIN + _TITLE_DROP * fs, title, fs * _TITLE_FONT, anchor="start", bold=True)
    for k, line in enumerate(caption):
        d.text(_MARGIN, layout.height + (k + _CAPTION_FIRST) * fs * _CAPTION_PITCH, line,
               fs * _SMALL_FONT, anchor="start", color=_CAPTION_COLOR)
    return d.source()
