"""Hand-drawn SVG figures as pinned DOT, so that Graphviz draws them in every format.

The effect-size figures (:mod:`multitest.figures._bayes`) are SVG written by
hand; Graphviz cannot read SVG, so :func:`svg_to_dot` translates their
elements into a DOT graph for ``neato`` with every node pinned (as the CD
diagram is drawn, :mod:`multitest.figures._cd`): a rectangle or a circle is a
filled node of that size, a line an edge between two points, a text a text
node anchored like the SVG text.  ``dot -Tpng`` and ``-Tpdf`` then draw the
same figure as the SVG file.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .._errors import MultitestError
from ._cd import _PinnedDot, _text_width

__all__ = ["svg_to_dot"]

_SVG = "{http://www.w3.org/2000/svg}"
#: Where a text's baseline lies below the centre of its node, in font sizes.
_BASELINE = 0.32


def _number(element, name, default=0.0):
    value = element.get(name)
    return default if value is None else float(re.sub(r"[a-z%]+$", "", value))


def _colour(value):
    """An SVG colour as Graphviz reads it: ``#abc`` becomes ``#aabbcc``."""
    if value and re.fullmatch(r"#[0-9a-fA-F]{3}", value):
        return "#" + "".join(c * 2 for c in value[1:])
    return value


def _tag(element):
    return element.tag.replace(_SVG, "")


def svg_to_dot(svg, name="figure"):
    """DOT text (``neato``, every node pinned) drawing the same picture as ``svg``.

    Parameters
    ----------
    svg : str
        An SVG document of ``rect``, ``polygon`` (drawn as its bounding box), ``line``,
        ``circle`` and ``text``
        (with ``tspan``) elements, as :func:`multitest.figures.pairs_figure_svg`
        writes; other elements are an error.
    name : str
        Graph name.

    Returns
    -------
    str

    Examples
    --------
    >>> dot = svg_to_dot('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="40">'
    ...                  '<line x1="0" y1="20" x2="100" y2="20" stroke="#333"/>'
    ...                  '<text x="50" y="15" text-anchor="middle">zero</text></svg>')
    >>> dot.splitlines()[1].startswith("graph [layout=neato")
    True
    >>> 'label="zero"' in dot
    True
    """
    root = ET.fromstring(svg)
    if _tag(root) != "svg":
        raise MultitestError("svg_to_dot: not an SVG document")
    size = _number(root, "font-size", 12.0)
    # Lines over filled areas (SVG paints later elements on top; lines come after the
    # areas they cross in the figures drawn here).
    d = _PinnedDot(name, _number(root, "height"), outputorder="nodesfirst")
    for element in root:
        _draw(d, element, size)
    return d.source()


def _draw(d, element, size):
    tag = _tag(element)
    if tag == "rect":
        w, h = _number(element, "width"), _number(element, "height")
        if w > 0 and h > 0:
            d.box(_number(element, "x"), _number(element, "y"), w, h, *_paint(element))
    elif tag == "polygon":
        # Drawn as its bounding box: the figures here use polygons for square marks only.
        xs, ys = _corners(element)
        d.box(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys), *_paint(element))
    elif tag == "circle":
        r = _number(element, "r")
        d.disc(_number(element, "cx"), _number(element, "cy"), r, *_paint(element))
    elif tag == "line":
        attrs = {"color": _colour(element.get("stroke", "black")),
                 "penwidth": element.get("stroke-width", "1")}
        if element.get("stroke-dasharray"):
            attrs["style"] = "dashed"
        d.line(_number(element, "x1"), _number(element, "y1"), _number(element, "x2"),
               _number(element, "y2"), **attrs)
    elif tag == "text":
        _text(d, element, size)
    elif tag in ("g", "title", "desc"):
        for child in element:
            _draw(d, child, size)
    else:
        raise MultitestError(f"svg_to_dot: <{tag}> is not drawn; add it to "
                             "multitest.figures._svg_dot")


def _paint(element):
    """Fill, stroke and stroke width of an SVG shape (SVG's defaults: black, none, 1)."""
    fill = element.get("fill", "black")
    return (_colour("white" if fill == "none" else fill), _colour(element.get("stroke")),
            _number(element, "stroke-width", 1.0))


def _corners(element):
    numbers = [float(v) for v in re.split(r"[\s,]+", element.get("points", "").strip()) if v]
    return numbers[0::2], numbers[1::2]


def _text(d, element, size):
    """A text and its tspans: one text node per run of one colour, side by side."""
    fontsize = _number(element, "font-size", size)
    bold = element.get("font-weight") == "bold"
    colour = _colour(element.get("fill"))
    runs = [(element.text or "", colour)]
    for span in element:
        runs.append((span.text or "", _colour(span.get("fill")) or colour))
        runs.append((span.tail or "", colour))
    runs = [(text, colour) for text, colour in runs if text]
    anchor = element.get("text-anchor", "start")
    x, y = _number(element, "x"), _number(element, "y") - _BASELINE * fontsize
    if len(runs) == 1:
        d.text(x, y, runs[0][0], fontsize, anchor=anchor, color=runs[0][1], bold=bold)
        return
    widths = [_text_width(text, fontsize) for text, _ in runs]
    x -= {"start": 0.0, "middle": sum(widths) / 2, "end": sum(widths)}[anchor]
    for (text, colour), width in zip(runs, widths):
        d.text(x, y, text, fontsize, anchor="start", width=width, color=colour, bold=bold)
        x += width
