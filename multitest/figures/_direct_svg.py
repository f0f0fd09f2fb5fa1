"""Table figures written as SVG directly, without a ``dot`` process.

A figure that is one HTML-like table and a legend (the matrices and tables of
:mod:`multitest.figures._dot`: override matrices and tables, sort-trace grids
and tables) needs no layout engine: :func:`table_svg` reads the table back
from the figure's own DOT source (the tags :mod:`~multitest.figures._dot`
writes: ``TABLE``, ``TR``, ``TD`` with ``ALIGN``, ``VALIGN``, ``BGCOLOR``;
``B``, ``FONT COLOR``, ``BR``) and draws the same cells, colours, texts and
legend with its own column widths, from Helvetica's character widths.
:func:`~multitest.figures._graphviz.render_svgs` and ``write_figures`` use it
for the per-data-set figures of runs with more than :data:`DIRECT_SVG_FIGURES`
of them (one ``dot`` process each took 40 s of a 1000-data-set report); PNG and
PDF images still come from ``dot``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape as _escape
from html import unescape
from typing import NamedTuple

__all__ = ["DIRECT_SVG_FIGURES", "is_table_figure", "table_svg", "text_width"]

#: Above this many per-data-set table figures in one run, their SVG is written
#: directly (:func:`table_svg`) instead of by one ``dot`` process each.
DIRECT_SVG_FIGURES = 100

_TABLE = re.compile(r"\n\ttable \[label=<(<TABLE.*</TABLE>)>\]\n", re.S)
#: Where :data:`_TABLE` begins and ends (:func:`is_table_figure` finds them as text).
_TABLE_START, _TABLE_END = "\n\ttable [label=<<TABLE", "</TABLE>>]\n"
_LEGEND = re.compile(r"\n\tgraph \[label=<(.*)>\]\n\}\s*$", re.S)
_STATEMENT = re.compile(r"^\t(\S+) \[", re.M)
_EDGE = re.compile(r"^\t\S+ -> ", re.M)
_NAME = re.compile(r"^digraph (\"(?:[^\"\\]|\\.)*\"|\S+) \{")
_FONT = "Helvetica,Arial,sans-serif"
_TABLE_SIZE, _LEGEND_SIZE = 10.0, 11.0
_PAD = 14.4      # dot's pad=0.2 inch, in points
_LINE = 1.2      # line height, in font sizes

# Advance widths (1/1000 em) of the printable ASCII characters from 32: the larger of
# Helvetica's (AFM) and DejaVu Sans's (what "Helvetica,Arial,sans-serif" resolves to on
# a Linux without those fonts; measured with fontTools), so that no text outgrows its cell.
_WIDTHS = [318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
           636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 556,
           1015, 684, 686, 722, 770, 667, 611, 778, 752, 295, 500, 667, 557, 863, 748, 787,
           667, 787, 722, 667, 611, 732, 684, 989, 685, 667, 685, 390, 337, 390, 838, 556,
           500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
           635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838]
_BOLD_WIDTHS = [348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380,
                365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838,
                838, 611, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 556, 775, 637,
                995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457,
                365, 457, 838, 556, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343,
                665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652,
                582, 712, 365, 712, 838]


@lru_cache(maxsize=65536)
def text_width(text, size, bold=False):
    """Width of ``text`` at ``size`` points, in Helvetica or DejaVu Sans whichever is wider
    (characters beyond ASCII: 1 em).

    Examples
    --------
    >>> text_width("mlp", 10)
    18.87
    """
    table = _BOLD_WIDTHS if bold else _WIDTHS
    units = sum(table[ord(c) - 32] if 32 <= ord(c) < 127 else 1000 for c in text)
    return round(units * size / 1000, 2)


class _Run(NamedTuple):
    text: str
    bold: bool
    colour: str


class _Cell(NamedTuple):     # NamedTuple: 440,000 cells in a 1000 x 20 run
    lines: tuple     # of tuples of _Run
    align: str
    valign: str
    background: str


_TOKEN = re.compile(r"<(/?)([A-Za-z]+)((?:[^>\"]|\"[^\"]*\")*?)/?>|([^<]+)")
_ATTRIBUTE = re.compile(r'([A-Za-z-]+)="([^"]*)"')


class _TableParser:
    """The rows of cells of one HTML-like table label (the tags of
    :mod:`~multitest.figures._dot`; text unescaped with :func:`html.unescape`)."""

    def __init__(self):
        self.rows, self.attrs = [], {}
        self._cell = self._lines = None
        self._bold, self._colours = 0, ["#000000"]

    def feed(self, text):
        for closing, tag, attributes, data in _TOKEN.findall(text):
            if data:
                self.handle_data(unescape(data))
            elif closing:
                self.handle_endtag(tag.lower())
            else:
                self.handle_starttag(tag.lower(), _ATTRIBUTE.findall(attributes))

    def handle_starttag(self, tag, attrs):
        attrs = {k.lower(): v for k, v in attrs}
        if tag == "table":
            self.attrs = attrs
        elif tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self._cell, self._lines = attrs, [[]]
        elif tag == "b":
            self._bold += 1
        elif tag == "font":
            self._colours.append(attrs.get("color", self._colours[-1]))
        elif tag == "br" and self._lines is not None:
            self._lines.append([])

    def handle_endtag(self, tag):
        if tag == "td":
            attrs = self._cell
            self.rows[-1].append(_Cell(
                lines=tuple(tuple(line) for line in self._lines),
                align=attrs.get("align", "CENTER").upper(),
                valign=attrs.get("valign", "MIDDLE").upper(),
                background=attrs.get("bgcolor")))
            self._cell = self._lines = None
        elif tag == "b":
            self._bold -= 1
        elif tag == "font":
            self._colours.pop()

    def handle_data(self, data):
        if self._lines is not None:
            self._lines[-1].append(_Run(data, self._bold > 0, self._colours[-1]))


@lru_cache(maxsize=65536)
def escape(text):
    """:func:`html.escape` of a text, remembered (the same texts recur in every figure)."""
    return _escape(text)


def _legend_lines(label):
    """The legend's lines (``<BR ALIGN="LEFT"/>`` ends each), as runs."""
    parser = _TableParser()
    parser._lines = [[]]
    parser.feed(label)
    lines = parser._lines
    return [tuple(line) for line in (lines[:-1] if not lines[-1] else lines)]


def is_table_figure(source):
    """Whether a figure's DOT source is one table and a legend (:func:`table_svg` draws it).

    Examples
    --------
    >>> is_table_figure('digraph g {\\n\\ta -> b\\n}')
    False
    """
    # Line by line, as the patterns' ``^`` reads them: a table's label is one line of
    # tens of kB, which the patterns searched over the whole text crossed three times
    # (0.3 s for the 2,000 tables of S = 1000 x L = 20).
    lines = source.split("\n")
    nodes = {m.group(1) for m in map(_STATEMENT.match, lines) if m} - {"graph", "node", "edge"}
    if nodes != {"table"} or any(map(_EDGE.match, lines)):
        return False
    start = source.find(_TABLE_START)
    return start >= 0 and source.find(_TABLE_END, start + len(_TABLE_START)) >= 0


def _line_width(runs, size):
    return sum(text_width(r.text, size, r.bold) for r in runs)


def _runs_svg(runs, x, y, size, anchor):
    """One ``<text>`` of a line, a ``<tspan>`` per run of its own weight or colour."""
    if not runs or not "".join(r.text for r in runs):
        return ""
    first = runs[0]
    spans = "".join(
        f'<tspan font-weight="bold" fill="{r.colour}">{escape(r.text)}</tspan>' if r.bold
        else f'<tspan fill="{r.colour}">{escape(r.text)}</tspan>' for r in runs)
    if len(runs) == 1:
        weight = ' font-weight="bold"' if first.bold else ""
        spans, fill = escape(first.text), f' fill="{first.colour}"{weight}'
    else:
        fill = ""
    return (f'<text text-anchor="{anchor}" x="{x:.2f}" y="{y:.2f}" font-family="{_FONT}" '
            f'font-size="{size:.2f}"{fill} xml:space="preserve">{spans}</text>')


def table_svg(source):
    """SVG text of a table figure's DOT source (:func:`is_table_figure`), as ``dot`` lays it
    out: the table, then the legend under it, left-aligned.

    Every distinct cell is parsed and measured once (:func:`_parsed_cell`: the cells of
    a run's figures recur), and every coordinate is formatted once per row or column.

    Raises
    ------
    ValueError
        When ``source`` is not a table figure.

    Examples
    --------
    >>> svg = table_svg('digraph t {\\n\\ttable [label=<<TABLE CELLPADDING="2"><TR>'
    ...                 '<TD ALIGN="LEFT"><B>a</B></TD><TD>b &amp; c</TD></TR></TABLE>>]\\n}')
    >>> svg.count("<text"), "b &amp; c" in svg
    (2, True)
    """
    table = _TABLE.search(source)
    if table is None:
        raise ValueError("`source` is not a table figure")
    attrs, rows = _table_rows(table.group(1))
    padding = float(attrs.get("cellpadding", 2))
    spacing = float(attrs.get("cellspacing", 0))
    size = _TABLE_SIZE
    n_columns = max(len(row) for row in rows)
    widths = [0.0] * n_columns
    heights = []
    for row in rows:
        for k, cell in enumerate(row):
            if cell.width > widths[k]:
                widths[k] = cell.width
        heights.append(max(1, *(cell.n_lines for cell in row)) * _LINE * size + 2 * padding)
    widths = [w + 2 * padding for w in widths]
    xs = [_PAD + spacing + sum(widths[:k]) + k * spacing for k in range(n_columns)]
    table_width = sum(widths) + (n_columns + 1) * spacing
    ys = [_PAD + spacing + sum(heights[:k]) + k * spacing for k in range(len(rows))]
    table_height = sum(heights) + (len(rows) + 1) * spacing
    body = _table_body(rows, xs, widths, ys, heights, padding, size)
    legend = _LEGEND.search(source)
    lines = _legend_lines(legend.group(1)) if legend else []
    top = _PAD + table_height + (8 if lines else 0)
    texts = [_runs_svg(line, _PAD + 8, top + (k + 0.8) * _LINE * _LEGEND_SIZE, _LEGEND_SIZE,
                       "start") for k, line in enumerate(lines)]
    width = max([table_width] + [16 + _line_width(line, _LEGEND_SIZE) for line in lines])
    width += 2 * _PAD
    height = top + len(lines) * _LINE * _LEGEND_SIZE + _PAD
    name = _NAME.match(source)
    title = name.group(1).strip('"') if name else "figure"
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
            f'<svg width="{width:.0f}pt" height="{height:.0f}pt" '
            f'viewBox="0.00 0.00 {width:.2f} {height:.2f}" xmlns="http://www.w3.org/2000/svg">\n'
            f'<g id="graph0" class="graph">\n<title>{escape(title)}</title>\n'
            f'<polygon fill="white" stroke="transparent" points="0,0 {width:.2f},0 '
            f'{width:.2f},{height:.2f} 0,{height:.2f} 0,0"/>\n'
            + "\n".join(t for t in texts if t)
            + '\n<g id="node1" class="node">\n<title>table</title>\n'
            + body + "\n</g>\n</g>\n</svg>\n")


_ROW = re.compile(r"<TR\b[^>]*>", re.I)
_TD = re.compile(r"<TD\b(?:[^>\"]|\"[^\"]*\")*>.*?</TD\s*>", re.I | re.S)


def _table_rows(table):
    """``(attributes of the TABLE tag, rows of parsed cells)`` of a table label; rows
    without a cell left out."""
    head, *rows = _ROW.split(table)
    attrs = {k.lower(): v for k, v in _ATTRIBUTE.findall(head[:head.index(">")])}
    cells = [[_parsed_cell(td) for td in _TD.findall(row)] for row in rows]
    return attrs, [row for row in cells if row]


class _Parsed(NamedTuple):
    """A cell as :func:`table_svg` draws it: its lines that hold text, as ``(line
    number, <text> element up to its x, the rest after its y)``, its size and place."""
    texts: tuple
    n_lines: int
    width: float
    align: str
    baseline: tuple   # (valign, n_lines): which baselines its lines take
    background: str


@lru_cache(maxsize=16384)   # the cells that recur; a few MB
def _parsed_cell(td):
    """One ``<TD>...</TD>`` read with :class:`_TableParser`, measured and drawn once."""
    parser = _TableParser()
    parser.rows.append([])
    parser.feed(td)
    cell = parser.rows[0][0]
    anchor = {"LEFT": "start", "RIGHT": "end"}.get(cell.align, "middle")
    texts = [(k, _runs_svg(line, 0.0, 0.0, _TABLE_SIZE, anchor))
             for k, line in enumerate(cell.lines)]
    width = max(_line_width(line, _TABLE_SIZE) for line in cell.lines)
    return _Parsed(texts=tuple((k, *_around_origin(text)) for k, text in texts if text),
                   n_lines=len(cell.lines), width=width, align=cell.align,
                   baseline=(cell.valign, len(cell.lines)), background=cell.background)


_ORIGIN = ' x="0.00" y="0.00"'


def _around_origin(text):
    """``(opening up to x, rest after y)`` of a ``<text>`` drawn at 0, 0."""
    at = text.index(_ORIGIN)
    return text[:at], text[at + len(_ORIGIN):]


def _table_body(rows, xs, widths, ys, heights, padding, size):
    """The cells' background polygons and texts; each coordinate formatted once."""
    left = [f"{x:.2f}" for x in xs]
    right = [f"{x + w:.2f}" for x, w in zip(xs, widths)]
    at = {"LEFT": [f"{x + padding:.2f}" for x in xs],
          "RIGHT": [f"{x + w - padding:.2f}" for x, w in zip(xs, widths)]}
    middle = [f"{x + w / 2:.2f}" for x, w in zip(xs, widths)]
    body = []
    for y, height, row in zip(ys, heights, rows):
        top, bottom = f"{y:.2f}", f"{y + height:.2f}"
        baselines = {}
        for k, cell in enumerate(row):
            if cell.background:
                body.append(f'<polygon fill="{cell.background}" stroke="transparent" '
                            f'points="{left[k]},{top} {right[k]},{top} {right[k]},{bottom} '
                            f'{left[k]},{bottom} {left[k]},{top}"/>')
            if not cell.texts:
                continue
            b = baselines.get(cell.baseline)
            if b is None:
                b = baselines[cell.baseline] = _baselines(y, height, padding, size,
                                                          *cell.baseline)
            x = at.get(cell.align, middle)[k]
            for line, opening, rest in cell.texts:
                body.append(f'{opening} x="{x}" y="{b[line]}"{rest}')
    return "\n".join(body)


def _baselines(y, height, padding, size, valign, n_lines):
    """The formatted baselines of a cell's ``n_lines`` lines, aligned as ``valign`` says."""
    block = n_lines * _LINE * size
    top = {"TOP": y + padding, "BOTTOM": y + height - padding - block}.get(
        valign, y + (height - block) / 2)
    return [f"{top + (k + 0.8) * _LINE * size:.2f}" for k in range(n_lines)]
