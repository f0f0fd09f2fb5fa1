"""The tables of a :class:`~multitest.engine.Ranking` in LaTeX (``tables.tex``).

Three ``table`` floats with booktabs rules, each with a caption and a label: the final
order (:func:`~multitest.engine._frames.final_frame`), the order on each data set, and the
post-hoc comparisons over data sets as a matrix of adjusted p-values in final order,
the significant pairs in bold (one data set: its pairwise tests).  The file needs only
``\\usepackage{booktabs}``; ``\\input{tables.tex}`` it into the paper.
"""

from __future__ import annotations

import re

import numpy as np

from .._format import format_number, format_p, format_rank, ordinal

__all__ = []

#: The table of the per-data-set orders lists at most this many data sets (a page); all
#: are in ``orders.csv``.
LATEX_DATASETS_LIMIT = 60

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"}


def latex_escape(text):
    r"""``text`` as LaTeX text: its special characters escaped.

    Examples
    --------
    >>> print(latex_escape("k_nn & 50% {rbf} ~x^2 \\"))
    k\_nn \& 50\% \{rbf\} \textasciitilde{}x\textasciicircum{}2 \textbackslash{}
    """
    return "".join(_SPECIAL.get(char, char) for char in str(text))


def latex_number(text):
    r"""A number as formatted for the tables (:mod:`multitest._format`), in math mode:
    ``1.23e-05`` as :math:`1.23\cdot 10^{-5}`, the bound ``<1e-300`` as :math:`<10^{-300}`.

    Examples
    --------
    >>> latex_number("0.0049"), latex_number("1.23e-05"), latex_number("<1e-300")
    ('$0.0049$', '$1.23\\cdot 10^{-5}$', '$<10^{-300}$')
    """
    match = re.fullmatch(r"(<?)([-+\d.]+)e([-+]\d+)", text)
    if match is None:
        return f"${text}$"
    bound, mantissa, exponent = match.groups()
    power = f"10^{{{int(exponent)}}}"
    if bound:
        return f"$<{power}$" if float(mantissa) == 1 else f"$<{mantissa}\\cdot {power}$"
    return f"${mantissa}\\cdot {power}$"


def latex_tables(ranking):
    """The text of ``tables.tex``: the final order, the orders per data set and the
    post-hoc comparisons (:meth:`multitest.engine.Ranking.to_latex`).

    Parameters
    ----------
    ranking : multitest.engine.Ranking

    Returns
    -------
    str

    Examples
    --------
    >>> from multitest import rank, example_results
    >>> text = rank(example_results(), "training_time").to_latex()
    >>> text.count(r"\\begin{table}"), text.count(r"\\toprule")
    (3, 3)
    """
    return "\n".join(["% multitest: the tables of a ranking; needs \\usepackage{booktabs}",
                      _final_table(ranking), _dataset_table(ranking),
                      _posthoc_table(ranking)])


def _float(body, caption, label):
    return "\n".join(["\\begin{table}[htbp]", "\\centering", "\\small",
                      f"\\caption{{{caption}}}", f"\\label{{{label}}}", *body,
                      "\\end{table}", ""])


def _tabular(spec, header, rows):
    return [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(header) + r" \\",
            "\\midrule", *(" & ".join(row) + r" \\" for row in rows), "\\bottomrule",
            "\\end{tabular}"]


def _settings_phrase(ranking):
    sp = ranking.settings
    return latex_escape(sp.decision_rules(second_pass=ranking.second_pass is not None))


def _final_table(ranking):
    frame = ranking.to_frame()
    several = ranking.second_pass is not None
    unit = ranking.profile.unit
    rows = [[str(row.position), latex_escape(row.algorithm),
             latex_number(format_rank(row.average_position)),
             latex_number(format_rank(row.average_error_rank)),
             latex_number(format_number(row.average_cost)), str(row.first_on)]
            for row in frame.itertuples()]
    header = ["", "Algorithm", "Avg.\\ position", "Avg.\\ error rank",
              "Avg.\\ cost" if several else "Cost", "First on"]
    caption = (f"Final order, best first, of {len(frame)} algorithms on "
               f"{len(ranking.datasets)} data set(s) ({_settings_phrase(ranking)}). "
               "Average position: of the MultiTest positions, which contain the cost "
               "order; average error rank: of the mean errors alone (1 = best); cost: "
               f"{latex_escape(ranking.profile.name)}"
               + (f" in {latex_escape(unit)}" if unit else "")
               + "; first on: the number of data sets where the algorithm is first.")
    return _float(_tabular("rlrrrr", header, rows), caption, "tab:multitest-final")


def _dataset_table(ranking):
    results = ranking.datasets
    shown = results[:LATEX_DATASETS_LIMIT]
    L = len(ranking.algorithms)
    header = ["Data set", *(ordinal(k) for k in range(1, L + 1))]
    rows = [[latex_escape(r.name), *(latex_escape(a) for a in r.order),
             *([""] * (L - len(r.order)))] for r in shown]
    more = (f" The first {len(shown)} of {len(results)} data sets; all are in orders.csv."
            if len(shown) < len(results) else "")
    caption = ("MultiTest order on each data set, best first: the cost order, "
               "overridden where a costlier algorithm is significantly more accurate."
               + more)
    return _float(_tabular("l" + "l" * L, header, rows), caption, "tab:multitest-datasets")


def _posthoc_table(ranking):
    """The adjusted p-values of every pair in final order, upper triangle; bold when the
    pair differs significantly."""
    sp = ranking.second_pass
    order = list(ranking.final_order)
    index = np.array([ranking.algorithms.index(a) for a in order])
    if sp is not None:
        if sp.posthoc is None:
            return _float([f"\\emph{{{latex_escape(sp.gate)}}}"],
                          f"Post-hoc test over data sets ({latex_escape(sp.method)}): not "
                          "applied.", "tab:multitest-posthoc")
        evidence = sp.method_entry.evidence
        values = np.asarray(sp.posthoc.pvalues, dtype=float)[np.ix_(index, index)]
        marked = np.asarray(sp.significant, dtype=bool)[np.ix_(index, index)]
        correction = "" if sp.correction == "none" else f", {sp.correction} correction"
        what = (f"{'Adjusted ' if evidence == 'p' and correction else ''}"
                f"{'p-values' if evidence == 'p' else latex_escape(evidence)} of the "
                f"{latex_escape(sp.method)} post-hoc test over the {len(ranking.datasets)} "
                f"data sets{latex_escape(correction)}")
        bound = not sp.method_entry.bayesian
    else:
        r = ranking.datasets[0]
        if not r.tested:
            return _float(["\\emph{score-matrix input: no pairwise test}"],
                          "Pairwise tests: none.", "tab:multitest-posthoc")
        t, s = r.table, r.index
        L = len(r.algorithms)
        values = np.full((L, L), np.nan)
        cheaper, costlier = t.prior[s][t.cheaper], t.prior[s][t.costlier]
        values[cheaper, costlier] = values[costlier, cheaper] = t.pvalue_adjusted[s]
        values = values[np.ix_(index, index)]
        test = ranking.pairwise_test
        marked = values < ranking.settings.alpha
        adjusted = "Adjusted p" if ranking.settings.correction != "none" else "P"
        what = (f"{adjusted}-values of the pairwise {latex_escape(test.name)} test on "
                f"{latex_escape(r.name)}" if not test.bayesian else
                f"{latex_escape(test.evidence)} of the {latex_escape(test.name)} test on "
                f"{latex_escape(r.name)}")
        bound = not test.bayesian
    rows = []
    for i, a in enumerate(order):
        cells = []
        for j in range(len(order)):
            if j <= i or np.isnan(values[i, j]):
                cells.append("--" if j == i else "")
                continue
            cell = latex_number(format_p(values[i, j], bound=bound))
            cells.append(f"$\\mathbf{{{cell[1:-1]}}}$" if marked[i, j] else cell)
        rows.append([latex_escape(a), *cells])
    header = ["", *(latex_escape(a) for a in order)]
    level = (f"$P \\geq {ranking.settings.min_probability:g}$" if not bound else
             f"$\\alpha = {ranking.settings.alpha:g}$")
    caption = (f"{what}; algorithms in final order. Bold: the pairs the test found "
               f"different ({level}).")
    return _float(_tabular("l" + "r" * len(order), header, rows), caption,
                  "tab:multitest-posthoc")
