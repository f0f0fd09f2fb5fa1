"""Tests of multitest._format: the one definition of every printed number, probability and table.

The references are the formatters the package had before they were merged (pasted below
as they were): the text of every output must not change.
"""

import math

import numpy as np
import pandas as pd
import pytest

from multitest._format import (
    escape_html,
    format_frequency,
    format_number,
    format_p,
    format_p_brief,
    format_share,
    format_table,
    p_equals,
    printed_width,
)
from multitest.engine._explain import _p as explain_p

NAN = float("nan")
P_VALUES = [0.0, 1e-300, 0.0049, 0.05, 0.999, 1.0, NAN]
#: P-values that underflowed: what the former formatters printed as 0.00e+00 or 5.00e-324.
UNDERFLOWED = [0.0, 5e-324, 2.2e-308, np.nextafter(1e-300, 0)]


# -- the formatters the package had, before they were one (references) ----------------------

def _figures_p(value):              # figures/_render.py
    value = float(value)
    if math.isnan(value):
        return "nan"
    return f"{value:.3g}" if value >= 1e-3 else f"{value:.2e}"


def _report_p(value):               # figures/_report.py
    value = float(value)
    return f"{value:.3g}" if value >= 1e-3 else f"{value:.2e}"


def _summary_p(value):              # outputs/_summary.py
    return f"{value:.3g}" if value >= 1e-3 else f"{value:.2e}"


def _explain_p(p):                  # engine/_explain.py
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    return f" (p = {p:.2g})" if p >= 1e-3 else f" (p = {p:.1e})"


def _summary_table(header, rows):   # outputs/_summary.py
    cells = [list(map(str, header))] + [list(map(str, row)) for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _stability_table(header, rows, align):   # engine/_stability.py
    cells = [list(map(str, header))] + [list(map(str, row)) for row in rows]
    widths = [max(len(row[c]) for row in cells) for c in range(len(header))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(cell.ljust(w) if a == "l" else cell.rjust(w)
                               for cell, w, a in zip(row, widths, align)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


# -- p-values ----------------------------------------------------------------------------

def test_format_p_exact_strings():
    assert [format_p(p) for p in P_VALUES] == \
        ["<1e-300", "1.00e-300", "0.0049", "0.05", "0.999", "1", "nan"]


def test_format_p_brief_exact_strings_and_the_sentence_of_the_explanations():
    assert [format_p_brief(p) for p in P_VALUES[:-1]] == \
        ["<1e-300", "1.0e-300", "0.0049", "0.05", "1", "1"]
    assert [explain_p(p) for p in P_VALUES] == \
        [" (p < 1e-300)", " (p = 1.0e-300)", " (p = 0.0049)", " (p = 0.05)", " (p = 1)",
         " (p = 1)", ""]
    assert explain_p(None) == ""


def test_p_values_print_as_every_former_formatter_printed_them():
    # ... from 1e-300 up; below, see the next test
    rng = np.random.default_rng(16)
    values = P_VALUES[1:] + [1e-3, np.nextafter(1e-3, 0), 0.00099951, 0.0009995, 0.99951]
    values += (10.0 ** rng.uniform(-12, 0, 2000)).tolist() + rng.random(2000).tolist()
    for v in values:
        assert format_p(v) == _figures_p(v) == _report_p(v) == _summary_p(v), v
        assert format_p(np.float64(v)) == _summary_p(np.float64(v)), v
        assert explain_p(v) == _explain_p(v), v


def test_an_underflowed_p_value_prints_as_a_bound_never_as_zero():
    for p in UNDERFLOWED:
        assert format_p(p) == format_p_brief(p) == "<1e-300", p
        assert p_equals(p) == "p < 1e-300" and p_equals(p, spaced=False) == "p<1e-300"
        assert explain_p(p) == " (p < 1e-300)"
    assert p_equals(1e-300) == "p = 1.00e-300" and p_equals(0.05, "adjusted p") == \
        "adjusted p = 0.05"


def test_a_run_whose_p_values_underflow_says_below_1e_300_in_words_figures_and_report():
    # 400 data sets ranking 6 algorithms alike: Friedman chi2 = S (k - 1) = 2000, df 5, whose
    # survival function is about 10^-430 (below the smallest double: scipy.stats.chi2.sf
    # gives 0.0 and logsf -inf); the Nemenyi p-value of the first and last one is subnormal.
    from multitest import rank
    from multitest.figures import render_cd_diagram, render_significance_matrix
    from multitest.figures._report import _friedman_section
    from multitest.outputs._summary import summary_text

    S, names = 400, list("abcdef")
    frame = pd.DataFrame({"dataset": np.repeat([f"d{i}" for i in range(S)], 6),
                          "algorithm": names * S,
                          "error": np.tile(np.arange(1, 7) / 10, S)
                          + np.repeat(np.arange(S) / 1e4, 6)})
    ranking = rank(frame, names[::-1])
    assert ranking.friedman.statistic == 2000 and ranking.friedman.pvalue == 0.0
    assert 0 < ranking.second_pass.posthoc.pvalues[0, 5] < 1e-300     # subnormal
    text = summary_text(ranking)
    assert "chi2 (corrected for ties) = 2000 (df 5), p < 1e-300;" in text
    assert "e+00" not in text and "p = 0" not in text
    assert "Friedman on error ranks p < 1e-300" in render_cd_diagram(ranking).source
    cells = render_significance_matrix(ranking).source
    # The matrix shows each pair once: the one subnormal p-value is one cell (an HTML label).
    assert cells.count(">&lt;1e-300</TD>") == 1 and "e+00" not in cells
    html = _friedman_section(ranking)
    assert html.count('<td class="num">&lt;1e-300</td>') == 3 and "e+00" not in html


# -- numbers, probabilities ------------------------------------------------------------------

def test_format_number_is_significant_digits():
    assert format_number(0.123456) == "0.1235"
    assert format_number(np.float32(2.5)) == "2.5"
    assert format_number(1234567) == "1.235e+06"
    assert format_number(3.14159, 3) == "3.14"
    assert format_number(NAN) == "nan" and format_number(-math.inf) == "-inf"


def test_probabilities_in_tables_and_in_cells():
    values = [0.0, 1e-300, 0.0049, 0.05, 0.999, 1.0]
    assert [format_frequency(p) for p in values] == \
        [".", "0.000", "0.005", "0.050", "0.999", "1"]
    assert [format_share(p) for p in values] == ["0", "<.01", "<.01", "0.05", ">.99", "1"]
    assert format_share(0.996) == ">.99" and format_share(0.994) == "0.99"


# -- tables, HTML ------------------------------------------------------------------------

def test_format_table_aligns_by_printed_width():
    # East Asian wide characters take two terminal columns, combining accents none
    # (Unicode's East_Asian_Width W and general category Mn): the next column starts at the
    # same printed column on every line, and the rule is as wide as the widest cell.
    table = format_table(["algorithm", "cost"], [["\u6c7a\u5b9a\u6728\u306e\u68ee", 1],
                                                 ["cafe\u0301", 22], ["svr", 333]], align="lr")
    lines = table.splitlines()
    assert lines[1] == "-" * 10 + "  " + "-" * 4
    assert {printed_width(line) for line in lines} == {16}


@pytest.mark.parametrize("rows", [[], [[1, "svr", 1.5]], [[10, "a much longer name", ""],
                                                          [2, "b", 0.25]]])
def test_format_table_is_both_former_tables(rows):
    header = ["rank", "algorithm", "value"]
    assert format_table(header, rows) == _summary_table(header, rows)
    for align in ("lll", "rlr", "rrr"):
        assert format_table(header, rows, align) == _stability_table(header, rows, align)


def test_format_table_layout():
    text = format_table(["#", "name"], [[1, "a"], [10, "bb"]], align="rl")
    assert text.split("\n") == [" #  name", "--  ----", " 1  a", "10  bb"]


def test_escape_html_quotes_everything():
    assert escape_html("<a href=\"x\">'&'</a>") == \
        "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;&#x27;&lt;/a&gt;"
    assert escape_html(3) == "3"
