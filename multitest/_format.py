"""Numbers, probabilities and tables as text: one definition of each printed form.

The terminal summary, the figures, the HTML report and the explanations all
print p-values and numbers; each form is defined here once, so that a p-value
reads the same wherever it appears.  Where two places print differently on
purpose (a sentence wants two digits, a table three), the forms are two
functions with their own names, never a ``style`` argument.

==============================  =====================================================
:func:`format_p`                a p-value in a table, a figure or the summary:
                                3 significant digits, scientific below 0.001
:func:`format_p_brief`          a p-value inside a sentence: 2 significant digits
:func:`p_equals`                ``p = 0.0049`` (or ``p < 1e-300``): a p-value as the
                                clause of a sentence or a label
:func:`ordinal`                 ``1st``, ``2nd``, ``1,402nd``: a position or a byte
:func:`format_number`           any other number: ``digits`` significant digits
:func:`format_rank`             an average rank or position: 2 decimals
:func:`format_frequency`        a probability in a text table: 3 decimals,
                                ``.`` for never
:func:`format_share`            a probability in a heat-map cell: 2 decimals,
                                ``<.01`` / ``>.99`` short of certain
:func:`format_table`            a plain-text table with a rule under its header
:func:`printed_width`           the columns a text takes on a terminal (wide
                                characters 2, combining marks 0)
:func:`escape_html`             any value as HTML text or attribute value
:func:`escape_terminal`         text for a terminal: control characters and bidi
                                overrides as visible escapes (``\x1b``, ``\u202e``)
:func:`neutralize_cell`         a CSV cell a spreadsheet would run as a formula,
                                with OWASP's leading ``'``; :func:`restore_cell`
                                reads it back
==============================  =====================================================

This module imports nothing of the package: every layer may use it.
"""

from __future__ import annotations

import math

import html
import re
import unicodedata

__all__ = ["format_p", "format_p_brief", "p_equals", "P_FLOOR", "ordinal", "format_number",
           "format_rank", "format_frequency", "format_share", "format_table", "printed_width",
           "escape_html", "escape_terminal", "neutralize_cell", "restore_cell", "FORMULA_START",
           "RAW_CSV_HELP"]

#: Characters a terminal would act on rather than show: C0 controls but line feed and tab
#: (ESC starts CSI and OSC sequences, BEL rings, CR and BS overwrite), DEL, C1 controls
#: (U+009B is a one-character CSI), the line and paragraph separators, and the bidi
#: controls that reorder what is shown (U+202E RIGHT-TO-LEFT OVERRIDE, isolates, marks).
_TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f"
                               "\u2028-\u202e\u2066-\u2069]")
#: First characters that make a spreadsheet read a CSV cell as a formula (OWASP, "CSV
#: Injection": equals, plus, minus, at, tab, carriage return).
FORMULA_START = "=+-@\t\r"
#: What ``--raw-csv`` does, for every command that has it (rank, stability, run).
RAW_CSV_HELP = ("write CSV text as it is, without the leading ' that keeps a spreadsheet "
                "from running a name starting with = + - @ as a formula")
_FORMULA = re.compile(f"'*[{re.escape(FORMULA_START)}]")
_NEUTRALIZED = re.compile(f"'+[{re.escape(FORMULA_START)}]")

#: Below this a p-value is printed in scientific notation (fixed digits would be zeros).
SCIENTIFIC_BELOW = 1e-3
#: Below this a p-value prints as the bound ``<1e-300``: it has underflowed (to 0.0, or to
#: a subnormal number with few digits left), and "0" would claim a certainty no test gives
#: (the Friedman test of 1000 data sets underflows routinely).
P_FLOOR = 1e-300
_BELOW_FLOOR = "<1e-300"


def format_p(p, bound=True):
    """A p-value as tables, figures and the terminal summary print it.

    Three significant digits from :data:`SCIENTIFIC_BELOW` up, otherwise
    scientific notation with three significant digits; below :data:`P_FLOOR`
    the bound ``<1e-300`` (see :func:`p_equals` for a sentence).

    Parameters
    ----------
    p : float
        NaN prints as ``nan``.
    bound : bool, default True
        Print the bound below :data:`P_FLOOR`.  False for a posterior share
        (``1 - P(...)`` of a Bayesian test), whose 0 is what was computed (no
        sample, or a probability rounded to 1), not an underflow.

    Returns
    -------
    str

    Examples
    --------
    >>> [format_p(p) for p in (0.0, 5e-324, 1e-300, 0.0049, 0.05, 0.999, 1.0)]
    ['<1e-300', '<1e-300', '1.00e-300', '0.0049', '0.05', '0.999', '1']
    >>> format_p(float("nan"))
    'nan'
    """
    p = float(p)
    if bound and p < P_FLOOR:
        return _BELOW_FLOOR
    return f"{p:.3g}" if p >= SCIENTIFIC_BELOW else f"{p:.2e}"


def format_p_brief(p, bound=True):
    """A p-value as a sentence prints it (the explanations of an order): two significant
    digits, scientific below :data:`SCIENTIFIC_BELOW`; ``bound`` as in :func:`format_p`.

    Examples
    --------
    >>> [format_p_brief(p) for p in (0.0, 1e-300, 0.0049, 0.05, 0.999, 1.0)]
    ['<1e-300', '1.0e-300', '0.0049', '0.05', '1', '1']
    """
    if bound and p < P_FLOOR:
        return _BELOW_FLOOR
    return f"{p:.2g}" if p >= SCIENTIFIC_BELOW else f"{p:.1e}"


def p_equals(p, label="p", *, brief=False, spaced=True, bound=True):
    """A p-value as the clause of a sentence or a label: ``p = 0.0049``, and ``p < 1e-300``
    below :data:`P_FLOOR` (never ``p = <1e-300``, nor ``p = 0``).

    Parameters
    ----------
    p : float
    label : str, default "p"
        The name of the quantity (``p``, ``adjusted p``, ...).
    brief : bool, default False
        Two significant digits (:func:`format_p_brief`), else three (:func:`format_p`).
    spaced : bool, default True
        Spaces around the relation (``p = 0.05``), else none (``p=0.05``).
    bound : bool, default True
        As in :func:`format_p` (False: a Bayesian posterior share).

    Returns
    -------
    str

    Examples
    --------
    >>> p_equals(0.0123), p_equals(0.0), p_equals(0.0123, "adjusted p", brief=True)
    ('p = 0.0123', 'p < 1e-300', 'adjusted p = 0.012')
    >>> p_equals(0.0, spaced=False), p_equals(0.5, spaced=False)
    ('p<1e-300', 'p=0.5')
    """
    text = (format_p_brief if brief else format_p)(p, bound)
    relation, value = ("<", text[1:]) if text == _BELOW_FLOOR else ("=", text)
    return f"{label} {relation} {value}" if spaced else f"{label}{relation}{value}"


def ordinal(k):
    """``1st``, ``2nd``, ``3rd``, ``4th``, ..., ``11th``, ``21st``, ``1,402nd``.

    Examples
    --------
    >>> [ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 102, 111, 1402)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '102nd', '111th', '1,402nd']
    """
    k = int(k)
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k:,}{suffix}"


def format_number(value, digits=4):
    """A mean error, a cost, a test statistic: ``digits`` significant digits.

    Parameters
    ----------
    value : float
    digits : int

    Returns
    -------
    str

    Examples
    --------
    >>> format_number(0.123456), format_number(1234567.0), format_number(2.0, 3)
    ('0.1235', '1.235e+06', '2')
    """
    return f"{float(value):.{digits}g}"


def interval_text(low, high, low_open=False, high_open=False, digits=4):
    """An interval in words: ``[`` / ``]`` for an end in it, ``(`` / ``)`` for an open one
    (an end at infinity is always open).

    Examples
    --------
    >>> interval_text(0.0, 0.03125, low_open=True)
    '(0, 0.03125]'
    >>> interval_text(-float("inf"), 2.5)
    '(-inf, 2.5]'
    """
    left = "(" if low_open or low == -math.inf else "["
    right = ")" if high_open or high == math.inf else "]"
    return f"{left}{format_number(low, digits)}, {format_number(high, digits)}{right}"


def format_rank(value):
    """An average rank or average position (a mean of ranks 1..L): two decimals, in every
    figure, table and sentence alike (Demšar 2006 prints them so).

    Examples
    --------
    >>> format_rank(3.2105263), format_rank(12.0), format_rank(1.005)
    ('3.21', '12.00', '1.00')
    """
    return f"{float(value):.2f}"


def format_frequency(p):
    """A probability in a plain-text table: three decimals, ``.`` for never and ``1`` for always.

    Examples
    --------
    >>> [format_frequency(p) for p in (0.0, 0.0004, 0.25, 1.0)]
    ['.', '0.000', '0.250', '1']
    """
    return _decimals(p, 3, never=".")


def format_share(p):
    """A probability in a small cell (a heat map): two decimals, ``0`` and ``1`` only when
    exact, otherwise ``<.01`` and ``>.99`` for what two decimals would round to them.

    Examples
    --------
    >>> [format_share(p) for p in (0.0, 0.004, 0.25, 0.996, 1.0)]
    ['0', '<.01', '0.25', '>.99', '1']
    """
    text = _decimals(p, 2, never="0")
    return {"0.00": "<.01", "1.00": ">.99"}.get(text, text)


def _decimals(p, digits, never):
    """``p`` with ``digits`` decimals; ``never`` for 0 and ``1`` for 1 exactly."""
    if p == 0:
        return never
    if p == 1:
        return "1"
    return f"{p:.{digits}f}"


def format_table(header, rows, align=None):
    """A plain-text table: columns two spaces apart, a rule of dashes under the header.

    Parameters
    ----------
    header : sequence
        Column titles.
    rows : iterable of sequence
        Cells, turned into text by :class:`str`.
    align : str, optional
        One letter a column, ``l`` (left) or ``r`` (right); all left by default.

    Returns
    -------
    str
        The lines without trailing spaces (the rule excepted), joined by newlines.

    Examples
    --------
    >>> print(format_table(["rank", "algorithm"], [[1, "svr"], [2, "knn"]], align="rl"))
    rank  algorithm
    ----  ---------
       1  svr
       2  knn
    """
    cells = [list(map(str, header))] + [list(map(str, row)) for row in rows]
    printed = [[printed_width(cell) for cell in row] for row in cells]
    widths = [max(row[c] for row in printed) for c in range(len(header))]
    align = align or "l" * len(widths)
    lines = ["  ".join(_pad(cell, w - n, a) for cell, n, w, a in zip(row, sizes, widths, align))
             .rstrip() for row, sizes in zip(cells, printed)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _pad(cell, spaces, align):
    """``cell`` with ``spaces`` blanks after it (``l``) or before it (``r``)."""
    return cell + " " * spaces if align == "l" else " " * spaces + cell


def printed_width(text):
    """The terminal columns ``text`` takes: East Asian wide and full-width characters take
    two, combining marks and zero-width format characters none, every other character one.

    Tables are aligned by this width, not by :func:`len`, so that a name in another script
    does not shift the columns after it.  Control characters are counted as they are: pass
    the text :func:`escape_terminal` prints.

    Parameters
    ----------
    text : str

    Returns
    -------
    int

    Examples
    --------
    >>> [printed_width(t) for t in ("knn", "\u6c7a\u5b9a\u6728", "e\u0301t\u00e9", "a\u200db")]
    [3, 6, 3, 2]
    """
    return sum(_char_width(c) for c in text)


def _char_width(char):
    if unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def escape_html(value):
    """``str(value)`` escaped for HTML text and attribute values (quotes too).

    Examples
    --------
    >>> escape_html('a<b & "c"')
    'a&lt;b &amp; &quot;c&quot;'
    """
    return html.escape(str(value), quote=True)


def escape_terminal(text):
    r"""``text`` safe to print to a terminal: every control character as a visible escape.

    Line feeds and tabs are kept; other C0 and C1 controls, DEL, the line and
    paragraph separators and the bidi controls become ``\xNN`` or ``\uNNNN``,
    so that a name cannot move the cursor, set the window title (OSC), ring the
    bell, rewrite the line or show its text reversed (U+202E).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> print(escape_terminal("knn\x1b]0;title\x07 \x1b[2J \u202eevil \x9b31m x\rover"))
    knn\x1b]0;title\x07 \x1b[2J \u202eevil \x9b31m x\x0dover
    >>> text = "names – ünïcode,\ttabs\nand lines"
    >>> escape_terminal(text) == text
    True
    """
    return _TERMINAL_CONTROL.sub(_escape_one, str(text))


def _escape_one(match):
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def neutralize_cell(text):
    """A CSV cell with OWASP's leading ``'`` when a spreadsheet would run it as a formula.

    A cell that starts with a character of :data:`FORMULA_START`, possibly
    after quotes, gets one more ``'`` in front; a spreadsheet shows the rest
    as text.  :func:`restore_cell` removes it, so that every text is read
    back as it was (``'=x`` is written ``''=x``).

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> [neutralize_cell(t) for t in ("=HYPERLINK(1)", "+1", "-x", "@SUM(A1)", "'=x", "knn",
    ...                               "it's", "a=b")]
    ["'=HYPERLINK(1)", "'+1", "'-x", "'@SUM(A1)", "''=x", 'knn', "it's", 'a=b']
    """
    return "'" + text if _FORMULA.match(text) else text


def restore_cell(text):
    """The text of a CSV cell written by :func:`neutralize_cell` (its leading ``'`` removed).

    Only a cell whose quotes are followed by a character of
    :data:`FORMULA_START` loses one quote; every other cell is unchanged.

    Examples
    --------
    >>> [restore_cell(t) for t in ("'=HYPERLINK(1)", "''=x", "'quoted'", "knn")]
    ['=HYPERLINK(1)', "'=x", "'quoted'", 'knn']
    >>> all(restore_cell(neutralize_cell(t)) == t for t in ("=x", "'=x", "''+", "'", "x"))
    True
    """
    return text[1:] if _NEUTRALIZED.match(text) else text
