"""The drawing layer of the figures that are placed by hand: DOT with every node pinned.

The critical-difference diagrams (:mod:`multitest.figures._cd_diagrams`), the
error–cost pictures (:mod:`multitest.figures._pareto`) and the effect-size
figures (:mod:`multitest.figures._bayes`) compute their own coordinates
(points, y downwards) and draw them with :class:`PinnedDrawing`: lines (with an
arrowhead if asked), boxes, discs and texts, each a pinned node or an edge
between two pinned points of a ``neato`` graph.  Graphviz then draws the same
picture in every format (``dot -Tsvg``, ``-Tpng``, ``-Tpdf``), and the DOT
source is always written beside it.  An ``id`` and a ``class`` given to an
element are kept by Graphviz in the SVG (``<g id=... class="node ...">``), so
that tests and readers find it there.
"""

from __future__ import annotations

from ._dot import FONT

#: Internal to multitest.figures: the drawing layer of its own figures.
__all__: list[str] = []

# -- text width estimate (fractions of the font size, a generous sans-serif) ----------

_WIDE = "MWmw@%"                    # and every capital letter
_NARROW = "iljtf.,:;'|!()[] 1"
_EM_WIDE = 0.9
_EM_NARROW = 0.38
_EM_OTHER = 0.62

#: Points per inch: Graphviz sizes nodes in inches.
_POINTS_PER_INCH = 72
#: Horizontal padding of a text node around the estimated text width.
_TEXT_PAD = 2.0
#: Height of a text node, in font sizes.
_TEXT_HEIGHT = 1.25
#: Where a text's baseline lies below its vertical centre, in font sizes.
_BASELINE = 0.32


def text_width(text, fontsize):
    """A generous estimate of the width of ``text`` in a sans-serif font.

    Examples
    --------
    >>> round(text_width("rf", 10), 1), round(text_width("MW", 10), 1)
    (10.0, 18.0)
    """
    wide = sum(ch in _WIDE or ch.isupper() for ch in text)
    narrow = sum(ch in _NARROW for ch in text)
    return fontsize * (_EM_OTHER * (len(text) - wide - narrow) + _EM_WIDE * wide
                       + _EM_NARROW * narrow)


def _dot_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _outline(stroke, width):
    """DOT attributes of a node's outline: none, or ``stroke`` at ``width`` points."""
    if not stroke or stroke == "none":
        return "penwidth=0"
    return f"penwidth={width:g}, color={_dot_string(stroke)}"


def _names(node_id, css):
    """``, id=..., class=...`` of a node (nothing for None)."""
    return (f", id={_dot_string(node_id)}" if node_id else "") + (
        f", class={_dot_string(css)}" if css else "")


class PinnedDrawing:
    """DOT text of a picture placed by hand: every node pinned (neato).

    Coordinates are points, y downwards from the top of a picture ``height``
    points tall (DOT's y runs upwards: :meth:`point` turns it).

    Examples
    --------
    >>> d = PinnedDrawing("demo", 40)
    >>> d.line(0, 20, 100, 20, color="#333333", id="axis")
    >>> d.text(50, 10, "zero", 11, node_id="label")
    >>> source = d.source()
    >>> source.splitlines()[1].startswith("graph [layout=neato")
    True
    >>> 'label="zero"' in source and 'id="axis"' in source
    True
    """

    def __init__(self, name, height, outputorder="edgesfirst"):
        self.height = height
        self.lines = [f"digraph {_dot_string(name)} {{",
                      f"graph [layout=neato, inputscale={_POINTS_PER_INCH}, notranslate=true, "
                      f"splines=false, outputorder={outputorder}, bgcolor=white, pad=0.15]",
                      f'node [shape=none, width=0, height=0, fixedsize=shape, label="", '
                      f'margin=0, fontname="{FONT}"]',
                      "edge [dir=none, arrowhead=none, penwidth=1, headclip=false, tailclip=false]"]
        self.count = 0

    def point(self, x, y):
        """An invisible pinned node at ``(x, y)``; returns its name."""
        self.count += 1
        node = f"p{self.count}"
        self.lines.append(f'{node} [pos="{x:.2f},{self.height - y:.2f}!"]')
        return node

    def corners(self, width):
        """Invisible points at the top left and bottom right corners: the picture is
        ``width`` x ``height`` points whatever is drawn near its edges."""
        self.point(0.0, 0.0)
        self.point(width, self.height)

    def line(self, xa, ya, xb, yb, *, css=None, **attrs):
        """A line from ``(xa, ya)`` to ``(xb, yb)``; ``attrs``: DOT edge attributes
        (``color``, ``penwidth``, ``style='dashed'``, ``id``, ``tooltip``, an
        arrowhead with ``dir='forward', arrowhead='vee'``); ``css``: its class."""
        a, b = self.point(xa, ya), self.point(xb, yb)
        if css:
            attrs["class"] = css
        extra = "".join(f", {k}={_dot_string(str(v))}" for k, v in attrs.items())
        self.lines.append(f"{a} -> {b} [{extra[2:]}]" if extra else f"{a} -> {b}")

    def box(self, x, y, width, height, fill, stroke=None, stroke_width=1.0, *, node_id=None,
            css=None):
        """A filled rectangle, top left corner at ``(x, y)``, outlined by ``stroke``."""
        self.count += 1
        cx, cy = x + width / 2, self.height - y - height / 2
        self.lines.append(f'b{self.count} [pos="{cx:.2f},{cy:.2f}!", shape=box, style=filled, '
                          f'{_outline(stroke, stroke_width)}, fillcolor={_dot_string(fill)}, '
                          f'width={width / _POINTS_PER_INCH:.4f}, '
                          f'height={height / _POINTS_PER_INCH:.4f}{_names(node_id, css)}]')

    def disc(self, x, y, radius, fill, stroke=None, stroke_width=1.0, *, node_id=None,
             css=None):
        """A filled circle centred on ``(x, y)``, outlined by ``stroke``."""
        self.count += 1
        self.lines.append(f'c{self.count} [pos="{x:.2f},{self.height - y:.2f}!", shape=circle, '
                          f'style=filled, {_outline(stroke, stroke_width)}, '
                          f'fillcolor={_dot_string(fill)}, '
                          f'width={2 * radius / _POINTS_PER_INCH:.4f}{_names(node_id, css)}]')

    def text(self, x, y, text, fontsize, anchor="middle", width=None, color=None, bold=False,
             node_id=None, css=None):
        """Plain ``text`` centred vertically on ``y``, anchored at ``x``.

        The node is as wide as the estimated text; ``\\l`` / ``\\r``
        justification puts the text edge exactly at ``x`` whatever the font.
        ``node_id``, ``css``: the ``id`` and ``class`` of the node (of its group in
        the SVG).
        """
        self.count += 1
        node = f"t{self.count}"
        w = (width if width is not None else text_width(text, fontsize)) + _TEXT_PAD
        cx = {"middle": x, "end": x - w / 2, "start": x + w / 2}[anchor]
        escaped = text.replace("\\", "\\\\").replace('"', '\\"')
        label = escaped + {"middle": "", "end": "\\r", "start": "\\l"}[anchor]
        cy = self.height - y
        color_attr = (f', fontcolor="{color}"' if color else "") + (
            f', fontname="{FONT} Bold"' if bold else "") + _names(node_id, css)
        self.lines.append(f'{node} [pos="{cx:.2f},{cy:.2f}!", width={w / _POINTS_PER_INCH:.4f}, '
                          f'height={fontsize * _TEXT_HEIGHT / _POINTS_PER_INCH:.4f}, '
                          f'fontsize={fontsize:g}, label="{label}"{color_attr}]')

    def text_at_baseline(self, x, baseline, text, fontsize, anchor="start", **options):
        """:meth:`text` whose baseline is at ``baseline`` (where SVG places a text's y)."""
        self.text(x, baseline - _BASELINE * fontsize, text, fontsize, anchor=anchor,
                  **options)

    def source(self):
        """The DOT text."""
        return "\n".join(self.lines + ["}"]) + "\n"
