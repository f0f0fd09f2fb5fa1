"""The critical-difference diagrams as TikZ pictures (``cd.tex``, ``cd_errors.tex``).

:func:`cd_tikz` draws the same :class:`~multitest.figures._cd_diagrams.CDDiagram`
as :func:`~multitest.figures._cd_diagrams.cd_source` (the same layout: positions,
bars, labels, title and caption), in points with y downwards
(``x=1pt, y=-1pt``).  The file is a ``tikzpicture`` environment: ``\\input`` it
into any document that loads ``tikz`` (pdflatex).
"""

from __future__ import annotations

import os
import re

from .._files import write_atomically
from ._cd import (
    _AXIS_WIDTH, _BAR_WIDTH, _BAND_WIDTH, _CAPTION_FIRST, _CAPTION_PITCH, _CD_END,
    _CD_LABEL_FONT, _CD_LABEL_RISE, _CD_WIDTH, _LEADER_TEXT_GAP, _MARGIN, _SMALL_FONT,
    _TICK_LABEL_RISE, _TICK_LONG, _TICK_SHORT, _TICK_WIDTH,
)
from ._cd_diagrams import _TITLE_DROP, _TITLE_FONT, cd_diagrams

__all__ = []

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
            "#": r"\#", "%": r"\%", "_": r"\_", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
            "|": r"\textbar{}", "\u03b1": r"$\alpha$", "\u2013": "--", "\u2014": "---",
            "\u2212": "$-$", "\u2265": r"$\geq$", "\u2264": r"$\leq$", "\u00b1": r"$\pm$",
            "\u0161": r"\v{s}", "\u00b2": r"\textsuperscript{2}", "\u2192": r"$\to$"}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIAL))

#: Line colours (TikZ colour expressions of the SVG's).
_BAR = "black!80"
_CAPTION = "black!80"
_BAND = "{rgb,255:red,244;green,165;blue,130}"
_BAND_OPACITY = 0.6


def latex_escape(text):
    """``text`` typeset as it reads in LaTeX (special characters and the few symbols the
    figures use; other characters as they are).

    Examples
    --------
    >>> print(latex_escape("mlp_2 & 50% {x}, α = 0.05"))
    mlp\\_2 \\& 50\\% \\{x\\}, $\\alpha$ = 0.05
    """
    return _SPECIAL_RE.sub(lambda m: _SPECIAL[m.group(0)], str(text))


def _line(xa, ya, xb, yb, width, colour="black", extra=""):
    return (f"\\draw[line width={width}pt, {colour}{extra}] ({xa:.2f},{ya:.2f}) -- "
            f"({xb:.2f},{yb:.2f});")


def _text(x, y, text, size, anchor="center", colour="black", bold=False):
    # (a node's font replaces the picture's: the family is named again)
    font = f"\\sffamily\\fontsize{{{size:.1f}}}{{{size * 1.2:.1f}}}\\selectfont" + (
        "\\bfseries" if bold else "")
    return (f"\\node[anchor={anchor}, inner sep=0pt, text={colour}, font={font}] at "
            f"({x:.2f},{y:.2f}) {{{latex_escape(text)}}};")


def cd_tikz(diagram):
    """A ``tikzpicture`` drawing ``diagram`` as :func:`cd_source` draws it.

    Parameters
    ----------
    diagram : multitest.figures._cd_diagrams.CDDiagram

    Returns
    -------
    str
        LaTeX text; needs ``\\usepackage{tikz}``.
    """
    layout = diagram.layout
    fs = layout.fontsize
    title, caption = diagram.drawn_text
    x0, x1, y = layout.axis
    out = [f"% multitest: {diagram.title}",
           "% \\input this file into a document that loads tikz (\\usepackage{tikz});",
           "% with \\usepackage[T1]{fontenc} underscores in names are characters of the PDF.",
           "\\begin{tikzpicture}[x=1pt, y=-1pt, font=\\sffamily]"]
    if layout.control_band is not None:
        bx0, bx1, by = layout.control_band
        out.append(_line(bx0, by, bx1, by, _BAND_WIDTH, _BAND, f", opacity={_BAND_OPACITY}"))
    out.append(_line(x0, y, x1, y, _AXIS_WIDTH))
    labelled = {x for _, x in layout.tick_labels}
    for _, x in layout.ticks:
        out.append(_line(x, y - (_TICK_LONG if x in labelled else _TICK_SHORT), x, y,
                         _TICK_WIDTH))
    for text, x in layout.tick_labels:
        out.append(_text(x, y - _TICK_LABEL_RISE, text, fs * _SMALL_FONT))
    if layout.cd_bar is not None:
        cx0, cx1, cy = layout.cd_bar
        out += [_line(cx0, cy, cx1, cy, _CD_WIDTH),
                _line(cx0, cy - _CD_END, cx0, cy + _CD_END, _CD_WIDTH),
                _line(cx1, cy - _CD_END, cx1, cy + _CD_END, _CD_WIDTH),
                _text((cx0 + cx1) / 2, cy - _CD_LABEL_RISE, "CD", fs * _CD_LABEL_FONT)]
    for label in layout.labels:
        left = label.side == "left"
        edge = label.box[2] + _LEADER_TEXT_GAP if left else label.box[0] - _LEADER_TEXT_GAP
        out.append(f"\\draw[line width=1pt] ({label.x:.2f},{y:.2f}) -- "
                   f"({label.x:.2f},{label.y:.2f}) -- ({edge:.2f},{label.y:.2f});")
        out.append(_text(label.box[2] if left else label.box[0], label.y, label.text, fs,
                         anchor="east" if left else "west"))
    for _, bx0, bx1, by in layout.bars:
        out.append(_line(bx0, by, bx1, by, _BAR_WIDTH, _BAR))
    if title:
        out.append(_text(_MARGIN, _MARGIN + _TITLE_DROP * fs, title, fs * _TITLE_FONT,
                         anchor="west", bold=True))
    for k, line in enumerate(caption):
        out.append(_text(_MARGIN, layout.height + (k + _CAPTION_FIRST) * fs * _CAPTION_PITCH,
                         line, fs * _SMALL_FONT, anchor="west", colour=_CAPTION))
    out.append("\\end{tikzpicture}")
    return "\n".join(out) + "\n"


def write_cd_tikz(ranking, folder, captions="inside"):
    """Write ``<stem>.tex`` of every CD diagram of ``ranking`` into ``folder``.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    folder : str
    captions : {'inside', 'none'}

    Returns
    -------
    list of str
        The file names written (``cd.tex``, ``cd_errors.tex``; none with one data set).
    """
    names = []
    for stem, diagram in cd_diagrams(ranking, captions).items():
        write_atomically(os.path.join(folder, f"{stem}.tex"), cd_tikz(diagram))
        names.append(f"{stem}.tex")
    return names
