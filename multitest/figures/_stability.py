"""Showing a :class:`~multitest.engine.StabilityResult`: heat map and HTML report.

Pure string building: an inline SVG heat map of the position probabilities,
an HTML table of the final orders by α and by cost profile, and a
self-contained HTML page (no scripts, fonts or images fetched from anywhere).
"""

from __future__ import annotations

from .._files import write_atomically
from .._format import escape_html, format_rank, format_share
from ..engine._stability import orders_columns, summary_lines

__all__ = []

# Names longer than this are shortened on the heat map (the full name is in a tooltip).
_MAX_LABEL = 40
_FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
# Light to dark: probability 0 is white, 1 is a dark blue.
_LOW, _HIGH = (255, 255, 255), (8, 48, 107)


def _shade(p):
    return "#" + "".join(f"{round(lo + (hi - lo) * p):02x}" for lo, hi in zip(_LOW, _HIGH))


#: From this probability on the cell is dark enough for white text: white or black
#: text keeps a contrast of at least 4.58:1 on every shade (WCAG 2.1 AA: 4.5:1); never
#: (0) is printed in grey, 4.54:1 on white.
_WHITE_TEXT_FROM = 0.66


def _text_colour(p):
    """The text colour of a cell of probability ``p``.

    Examples
    --------
    >>> [_text_colour(p) for p in (0.0, 0.3, 0.66, 1.0)]
    ['#767676', '#000000', '#ffffff', '#ffffff']
    """
    return "#ffffff" if p >= _WHITE_TEXT_FROM else "#767676" if p == 0 else "#000000"


def _label(name):
    """The name, shortened in the middle when long (ends often tell names apart)."""
    if len(name) <= _MAX_LABEL:
        return name
    tail = _MAX_LABEL // 3
    return name[:_MAX_LABEL - tail - 1] + "\u2026" + name[-tail:]


def stability_heatmap_svg(result):
    """Heat map of the position probabilities as a self-contained SVG string.

    Rows are the algorithms in reference order (best first), columns the final
    positions 1..L; each cell is shaded in proportion to the probability and
    shows it.  The cell of each algorithm's reference position is outlined.
    Every cell is one ``<rect class="cell">`` with a tooltip; long names are
    shortened on the axis, with the full name in the tooltip.
    """
    L = len(result.algorithms)
    index = {a: i for i, a in enumerate(result.algorithms)}
    width = 40 if L <= 12 else 32 if L <= 25 else 28
    height = 22 if L <= 25 else 18
    value_size = 11 if L <= 25 else 9
    label_width = 12 + 7 * max(len(_label(a)) for a in result.algorithms)
    left, top = label_width + 8, 46
    right = 70  # the mean-position column
    notes = ["rows: algorithms in reference order; outlined cell: reference position",
             f"{result.bootstrap} bootstrap resamples of the data sets, seed {result.seed}"]
    total_width = max(left + L * width + right, 16 + 6 * max(map(len, notes)))
    total_height = top + L * height + 16 + 16 * len(notes)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_width}" '
           f'height="{total_height}" viewBox="0 0 {total_width} {total_height}" role="img" '
           f'font-family="{escape_html(_FONT)}" font-size="12" class="stability-heatmap">',
           "<title>Probability of each final position over "
           f"{result.bootstrap} bootstrap resamples of the data sets</title>",
           f'<text x="{left + L * width / 2:g}" y="14" text-anchor="middle" '
           'font-weight="bold">final position</text>',
           f'<text x="{left + L * width + right / 2:g}" y="{top - 8}" '
           'text-anchor="middle">mean</text>']
    for p in range(L):
        out.append(f'<text x="{left + (p + 0.5) * width:g}" y="{top - 8}" '
                   f'text-anchor="middle">{p + 1}</text>')
    for row, name in enumerate(result.reference_order):
        probabilities = result.position_probability[index[name]]
        y = top + row * height
        middle = y + height / 2 + 4
        out.append(f'<text x="{left - 8}" y="{middle:g}" text-anchor="end">'
                   f"<title>{escape_html(name)} (reference position {row + 1})</title>"
                   f"{escape_html(_label(name))}</text>")
        for column, p in enumerate(probabilities):
            p = float(p)
            x = left + column * width
            reference = column == row
            stroke = (' stroke="#d62728" stroke-width="2"' if reference
                      else ' stroke="#dddddd" stroke-width="0.5"')
            out.append(f'<rect class="cell{" reference" if reference else ""}" x="{x}" '
                       f'y="{y}" width="{width}" height="{height}" fill="{_shade(p)}"{stroke}>'
                       f"<title>{escape_html(name)}, position {column + 1}: {p:.4f}</title>"
                       "</rect>")
            colour = _text_colour(p)
            out.append(f'<text x="{x + width / 2:g}" y="{middle:g}" text-anchor="middle" '
                       f'font-size="{value_size}" fill="{colour}" pointer-events="none">'
                       f"{escape_html(format_share(p))}</text>")
        out.append(f'<text x="{left + L * width + right / 2:g}" y="{middle:g}" '
                   f'text-anchor="middle">{format_rank(result.mean_position[name])}</text>')
    for n, note in enumerate(notes):
        out.append(f'<text x="8" y="{top + L * height + 20 + 16 * n}" font-size="11" '
                   f'fill="#555555">{escape_html(note)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def orders_table_html(result):
    """The final orders by α and by cost profile, side by side, as an HTML table.

    The reference analysis is the first column; a cell whose algorithm differs
    from the reference at that position has the class ``moved``.
    """
    columns = orders_columns(result)
    head = "".join(f"<th>{escape_html(label)}</th>" for label, _ in columns)
    rows = []
    for p in range(len(result.reference_order)):
        cells = []
        for _, order in columns:
            moved = ' class="moved"' if order[p] != result.reference_order[p] else ""
            cells.append(f"<td{moved}>{escape_html(order[p])}</td>")
        rows.append(f"<tr><th>{p + 1}</th>{''.join(cells)}</tr>")
    return ('<table class="orders">\n<thead><tr><th>position</th>' + head
            + "</tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>")


def _frequent_orders_html(result, limit=10):
    rows = "\n".join(f"<tr><td>{f:.3f}</td><td>{escape_html(' > '.join(order))}</td></tr>"
                     for order, f in result.order_frequencies[:limit])
    return ('<table class="frequent">\n<thead><tr><th>frequency</th><th>final order</th>'
            f"</tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>")


def stability_html_fragment(result):
    """Summary, heat map and tables as an HTML fragment (for Jupyter)."""
    summary = "".join(f"<li>{escape_html(line)}</li>" for line in summary_lines(result))
    shown = min(10, len(result.order_frequencies))
    return "\n".join([
        f'<div class="multitest-stability">\n<ul class="summary">{summary}</ul>',
        "<h2>Probability of each final position</h2>",
        f'<div class="heatmap">\n{stability_heatmap_svg(result)}\n</div>',
        f"<h2>Most frequent final orders ({shown} of {len(result.order_frequencies)} "
        "distinct)</h2>",
        _frequent_orders_html(result),
        "<h2>Final order by significance level and by cost profile</h2>",
        "<p>On the data as given; a shaded cell differs from the reference order.</p>",
        orders_table_html(result),
        "</div>",
    ])


_STYLE = """
body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
thead th { background: #f0f0f0; }
td.moved { background: #fde0c5; }
div.heatmap { overflow-x: auto; }
"""


def write_stability_report(result, path):
    """Write a self-contained HTML page of a :class:`StabilityResult`.

    The page is written to a temporary file in the same directory and moved
    into place with :func:`os.replace`, so an existing report is never left
    half-written.

    Parameters
    ----------
    result : multitest.engine.StabilityResult
    path : str or os.PathLike
        The HTML file to write.

    Returns
    -------
    str
        The path written.
    """
    page = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>multitest: stability of the final order</title>\n"
            f"<style>{_STYLE}</style>\n</head>\n<body>\n"
            "<h1>Stability of the final order</h1>\n"
            f"{stability_html_fragment(result)}\n</body>\n</html>\n")
    # An existing report keeps its permissions; a new one is readable by all.
    return write_atomically(path, page, keep_mode=True)
