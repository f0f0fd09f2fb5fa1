"""HTML building blocks of the report's pages: the style sheet, a table, a page.

No scripts and no external URL: every page opens offline.
"""

from __future__ import annotations

from .._format import escape_html as _e

__all__: list[str] = []

#: The report's one style sheet, inline in every page.
CSS = """
body{font-family:Helvetica,Arial,sans-serif;margin:0 auto;max-width:1200px;padding:1em 2em;
box-sizing:border-box;overflow-wrap:anywhere;
color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #1f6fb4;padding-bottom:.2em;
margin-top:2em}h3{margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}
th{background:#eef3f8;overflow-wrap:normal}td{overflow-wrap:anywhere;min-width:3.5em}
td.num{text-align:right;font-variant-numeric:tabular-nums;overflow-wrap:normal;white-space:nowrap}
tr.override td{background:#fbe3dc}
figure{margin:1em 0;max-width:100%}figure svg{max-width:100%;height:auto}
table{display:block;max-width:100%;overflow-x:auto}
figcaption{font-size:.85em;color:#555}
ol.final{font-size:1.15em;columns:16em;column-gap:3em}ol.final li:first-child{font-weight:bold}
nav ul.sets{columns:4;font-size:.9em}pre{background:#f6f6f6;padding:.6em;overflow-x:auto;
font-size:.8em}
.note{color:#7a4b00;background:#fff6e0;padding:.4em .8em;border-left:4px solid #e0a000}
.gate{font-weight:bold}
.small{font-size:.85em;color:#555}
p.lead{font-size:1.15em}
@media (max-width:600px){body{padding:.5em}nav ul.sets{columns:2}}
"""


def html_table(header, rows, row_classes=None, numeric=(), body=()):
    """An HTML table; `body`: more rows, as ``<tr>`` elements already written."""
    out = ["<table><thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in header)
           + "</tr></thead><tbody>"]
    for k, row in enumerate(rows):
        cls = f' class="{row_classes[k]}"' if row_classes and row_classes[k] else ""
        cells = "".join(f'<td class="num">{_e(c)}</td>' if i in numeric else f"<td>{_e(c)}</td>"
                        for i, c in enumerate(row))
        out.append(f"<tr{cls}>{cells}</tr>")
    out += body
    out.append("</tbody></table>")
    return "".join(out)


def html_page(title, body):
    """A self-contained HTML page: `title`, the style sheet inline, the non-empty parts of
    `body` one after the other."""
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(part for part in body if part) + "\n</body></html>\n")
