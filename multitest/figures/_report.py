"""One self-contained HTML report of a :class:`~multitest.engine.Ranking`.

:func:`write_report` writes ``report.html``: the final order first, then every
stage (second pass, Nemenyi stage, Friedman test and gate decision, each data
set with its override graph, sort trace, pairwise table and order), the
settings and the notes.  Figures are inline SVG (rendered by Graphviz
``dot``; without it their DOT source is shown instead), styles are inline,
there are no scripts and no external URL of any kind, so the file opens
anywhere, offline, and can be mailed as is.

The report scales with the data: the figures choose their drawing by size
(:mod:`multitest.figures._dot`), long pair lists are tables, and above
:data:`INLINE_DATASETS_LIMIT` data sets each data set gets a page of its own
(``report_datasets/<data set>.html``, as self-contained as the report, linked
from its index), and also above :data:`INLINE_REPORT_PAIRS` pairwise results,
so that ``report.html`` stays small and opens quickly.
"""

from __future__ import annotations

import os

from .._files import write_atomically
from .._format import escape_html as _e
from .._format import format_number, format_p, format_rank
from ..engine._cost_ties import prior_text
from ..engine._explain import cost_unit_sentence, friedman_power
from ..engine._frames import first_counts
from ._bayes import bayes_section_html, caption_html
from ._dot import _evidence, error_unit, second_pass_number
from ._cd import power_warning
from ._cd_diagrams import cd_diagrams
from ._graphviz import (
    cached_svg,
    dot_available,
    inline_svg,
    render_svgs,
    to_svg,
)
from ._datasets import dataset_stems, figures_note
from ._html import html_page, html_table
from ._write import figures, graph_captions

__all__ = []

#: A data set's pairwise table lists at most this many pairs (all are in pairwise.csv).
PAIRWISE_ROWS_LIMIT = 1000

#: Up to this many data sets their sections are in report.html; above, a page each.
INLINE_DATASETS_LIMIT = 50

#: ... and up to this many pairwise results in all (their tables are most of the bytes).
INLINE_REPORT_PAIRS = 5000

#: Folder, next to report.html, of the per-data-set pages.
DATASET_PAGES = "report_datasets"

#: The contents list the data sets open up to this many (folded beyond: the final order
#: comes next).
OPEN_DATASET_LIST = 12

#: Lists of up to this many pairs are printed as text; longer ones as tables.
PAIRS_AS_TEXT = 12

def _heading(entry):
    """``(column heading, whether a p-value)`` of the numbers of a test's pairs: a p-value
    prints a bound below 1e-300, a Bayesian ``1 - P(...)`` as computed."""
    label, bound = _evidence(entry)
    return ("p-value" if bound else label), bound


def _second_pass_heading(sp):
    """:func:`_heading` of the second pass's pairs: a p-value named by its correction
    (``Holm-adjusted p``, ``Nemenyi p``), a Bayesian pass's ``1 - P(...)`` as computed."""
    label, bound = _heading(sp.method_entry)
    return (second_pass_number(sp)[0] if bound else label), bound


def _pair_rows(pairs, adjusted, bound=True):
    """The ``<tr>`` of each pair of :meth:`~multitest.engine.DataSetResult.pair_columns`
    (``pairs``), as :func:`~multitest.figures._html.html_table` writes them: one format
    string a row, each name escaped and each mean error formatted once, the numbers
    (digits, ``.``, ``e``, ``+``, ``-``, ``nan``, ``inf``: nothing to escape) formatted
    straight into their cells."""
    a, b = pairs["a"].tolist(), pairs["b"].tolist()
    names = {name: _e(name) for name in set(a) | set(b)}
    mean_a, mean_b = pairs["mean_error_a"].tolist(), pairs["mean_error_b"].tolist()
    means = {value: format_number(value) for value in set(mean_a) | set(mean_b)}
    num = '</td><td class="num">'
    adjusted_p = pairs["pvalue_adjusted"].tolist() if adjusted else None
    return [f'<tr{_OVERRIDE_ROW if override else ""}><td>{names[x]}</td><td>'
            f'{names[y]}</td><td class="num">{format_number(statistic)}{num}'
            f'{_e(format_p(p, bound))}'
            + (f'{num}{_e(format_p(adjusted_p[k], bound))}' if adjusted else "")
            + f'{num}{means[mean_a[k]]}{num}{means[mean_b[k]]}'
            f'</td><td>{"yes" if override else ""}</td></tr>'
            for k, (x, y, statistic, p, override) in enumerate(zip(
                a, b, pairs["statistic"].tolist(), pairs["pvalue"].tolist(),
                pairs["override"].tolist()))]


_OVERRIDE_ROW = ' class="override"'


def _pairs_html(rows, header, joiner, where):
    """Pairs ``(a, b, p-value text)``: ``(sentence end, block)``.

    Few pairs are listed in the sentence; many go to a collapsible table (its
    first :data:`PAIRWISE_ROWS_LIMIT` rows; ``where`` names the file with all).
    """
    if not rows:
        return "none.", ""
    if len(rows) <= PAIRS_AS_TEXT:
        return _e(", ".join(f"{a} {joiner} {b}" for a, b, _ in rows)) + ".", ""
    shown = rows[:PAIRWISE_ROWS_LIMIT]
    cut = ("" if len(shown) == len(rows) else
           f"<p>First {len(shown)} of {len(rows)} pairs shown; all are in {_e(where)}.</p>")
    return (f"{len(rows)} pairs (table below).",
            f"<details><summary>the {len(rows)} pairs</summary>"
            + html_table(header, shown, numeric={2}) + cut + "</details>")


class _Figures:
    """SVG (or DOT, without Graphviz) of every figure, keyed by file stem.

    The figures not drawn yet (by :func:`~multitest.figures._write.write_figures`) are drawn at
    once here; each is taken from the cache where it is inlined (a data set's read from
    its file when its page is written).
    """

    def __init__(self, ranking, graphs=None, captions="inside", figures_for=None):
        self.graphs = (figures(ranking, captions=captions, figures_for=figures_for)
                       if graphs is None else graphs)
        # captions='none': each figure's title and caption beside it, not in it
        self.beside = graph_captions(self.graphs) if captions == "none" else {}
        self.sources = {stem: g.source for stem, g in self.graphs.items()}
        self.dot = dot_available()
        if self.dot:
            render_svgs(self.sources)

    def html(self, stem, caption):
        if stem not in self.sources:      # a data set not drawn (--figures-for)
            return ""
        source = self.sources[stem]
        # drawn again only if gone from the cache since (or if dot failed on it)
        svg = (cached_svg(source) or to_svg(source)) if self.dot else None
        if svg is not None:
            body = inline_svg(svg)
        else:
            reason = ("Graphviz 'dot' was not found when this report was written"
                      if not self.dot else "Graphviz 'dot' failed on this figure")
            body = (f'<p class="note">{reason}: the figure is given as its DOT source '
                    f"(render it with <code>dot -Tsvg</code>).</p><pre>{_e(source)}"
                    "</pre>")
        where = f"<code>{_e(stem)}.dot</code>"
        beside = caption_html(self.beside.get(stem, ()))
        return (f'<figure id="fig-{_e(stem)}">{body}<figcaption>{_e(caption)} '
                f"({where}){beside}</figcaption></figure>")


def _final_section(ranking, figs):
    sp = ranking.second_pass
    firsts = first_counts(ranking)
    index = {a: i for i, a in enumerate(ranking.algorithms)}
    why = ranking.explanations
    rows = []
    for position, a in enumerate(ranking.final_order, start=1):
        cost = (sp.average_costs[index[a]] if sp is not None
                else ranking.datasets[0].costs[index[a]])
        rows.append([position, a, format_rank(ranking.average_positions[a]),
                     format_rank(ranking.average_error_ranks[a]), format_number(cost), firsts[a],
                     why[position - 1].reason])
    s = ranking.settings
    return (f'<section id="final-order"><h2>Final order</h2>'
            + _summary_html(ranking)
            + f'<p>Best first. {len(ranking.datasets)} data set(s), '
            f"{len(ranking.algorithms)} algorithms; cost profile {_e(ranking.profile.name)}; "
            f"{_e(s.decision_rules(second_pass=sp is not None))}.</p>"
            + _power_warning(ranking)
            + html_table(["position", "algorithm", "average position", "average error rank",
                      "average cost", "first on (data sets)", "why here"], rows,
                     numeric={0, 2, 3, 4, 5})
            + "<p class=\"small\">Average position: the mean of the MultiTest positions over "
            "the data sets (they contain the cost order; the second pass ranks these). Average "
            "error rank: the mean rank of the mean error alone (1 = lowest error, ties "
            "averaged). "
            f"Average cost: {_e(cost_unit_sentence(ranking.profile))}. "
            f"{_e(error_rule_sentence(ranking.results))} "
            "First on: the number of data sets on which MultiTest put the algorithm first. "
            "Why here: the comparisons that decide the position in the cost-ordered sort "
            "(the second pass over several data sets).</p>"
            + figs.html("final", "Final order (arrow: comes before), with the overrides that "
                        "decide it")
            + "</section>")


#: The summary names the reasons of at most this many positions (the table has them all;
#: above :data:`OPEN_DATASET_LIST` algorithms, of the first only).
SUMMARY_REASONS = 3


def _summary_html(ranking):
    """The final order and why, in words, before any figure: the order, best first, the
    reasons of the first :data:`SUMMARY_REASONS` positions (of the first alone above
    :data:`OPEN_DATASET_LIST` algorithms)."""
    order = ranking.final_order
    items = "".join(f"<li>{_e(a)}</li>" for a in order)
    # one screen: the reasons of many algorithms are long lists of pairs
    shown = SUMMARY_REASONS if len(order) <= OPEN_DATASET_LIST else 1
    why = "".join(f"<li><b>{_e(e.algorithm)}</b> is {_ordinal(e.position)}: {_e(e.reason)}</li>"
                  for e in ranking.explanations[:shown])
    more = len(order) - min(len(order), shown)
    return (f'<p>Best first:</p><ol class="final">{items}</ol><p>Why:</p><ul class="why">{why}'
            "</ul>" + (f'<p class="small">The reasons of the other {more} positions are in '
                       'the table below ("why here").</p>' if more else ""))


def _ordinal(k):
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def error_rule_sentence(results):
    """The accuracy -> error rule, once, with the range of the errors of ``results``: in
    percentage points when an error exceeds 1 (accuracies given in percent), else fractions."""
    extremes = results.error_range if results.has_folds else None
    if extremes is None:
        return ""
    low, high = extremes
    unit = error_unit(results) + (" (errors over 1: the input was in percent)" if high > 1
                                  else "")
    return (f"Errors (lower is better): an accuracy a is read as the error 100 - a when given "
            f"in percent, else 1 - a; an AUC as 1 - AUC; values given as errors are kept. "
            f"Here the errors run from {format_number(low)} to {format_number(high)}: "
            f"{unit}.")


def _power_warning(ranking):
    """A plain warning when the Friedman test cannot reject (few data sets, small effect)."""
    fr, sp = ranking.friedman, ranking.second_pass
    if fr is None or fr.pvalue < sp.alpha:
        return ""
    power = friedman_power(sp.average_positions, len(ranking.datasets), sp.alpha)
    return f'<p class="note">{_e(power.sentence(sp.alpha, ranking.settings.friedman_gate))}</p>'


def _friedman_section(ranking):
    fr, sp = ranking.friedman, ranking.second_pass
    if sp is not None and sp.incomplete:   # missing='partial': the Skillings-Mack gate
        sm = sp.gate_test
        table = html_table(["statistic", "value", "df", "p-value"],
                       [["Skillings–Mack", format_number(sm.statistic), f"{sm.df}",
                         format_p(sm.pvalue)]], numeric={1, 3})
        return (f'<section id="friedman"><h2>Skillings–Mack test and gate</h2>{table}'
                f'<p class="gate">{_e(sp.gate)}</p></section>')
    if fr is None:
        return ('<section id="friedman"><h2>Friedman test and gate</h2><p>A single data set: '
                "no test over data sets.</p></section>")
    rows = [[f"Friedman χ² ({fr.ties} for ties)", format_number(fr.statistic), f"{fr.df}",
             format_p(fr.pvalue)],
            ["Iman–Davenport F", format_number(fr.iman_davenport_statistic),
             f"{fr.iman_davenport_df[0]}, {fr.iman_davenport_df[1]}",
             format_p(fr.iman_davenport_pvalue)]]
    fe = ranking.friedman_errors
    rows.append([f"Friedman χ² on error ranks ({fe.ties} for ties)", format_number(fe.statistic),
                 f"{fe.df}", format_p(fe.pvalue)])
    rows[0][0] = f"Friedman χ² on positions ({fr.ties} for ties)"
    table = html_table(["statistic", "value", "df", "p-value"], rows, numeric={1, 3})
    return (f'<section id="friedman"><h2>Friedman test and gate</h2>{table}'
            f'<p class="gate">{_e(sp.gate)}</p>'
            + ("" if ranking.positions_only is None else
               f'<p class="note">{_e(ranking.positions_only.capitalize())}.</p>')
            + f"{_power_warning(ranking)}</section>")


def _second_pass_section(ranking, figs):
    sp = ranking.second_pass
    if sp is None:
        return ""
    index = {a: i for i, a in enumerate(sp.algorithms)}
    final = {a: k for k, a in enumerate(sp.order, start=1)}
    rows = [[p, a, format_number(sp.average_costs[index[a]]),
             format_rank(sp.average_positions[index[a]]), final[a]]
            for p, a in enumerate(sp.prior_order, start=1)]
    number, bound = _second_pass_heading(sp)
    p = (lambda a, b: "") if sp.posthoc is None else (
        lambda a, b: format_p(sp.posthoc.pvalues[index[a], index[b]], bound))
    edges, edge_table = _pairs_html([(a, b, p(a, b)) for a, b in sp.edges()],
                                    ["cheaper", "costlier (better)", number], "→",
                                    "result.json (second_pass.edges)")
    method = sp.method + ("" if sp.correction == "none" else f", {sp.correction} correction")
    return ('<section id="second-pass"><h2>Second pass</h2>'
            f"<p>Prior: average cost over the data sets "
            f"({_e(cost_unit_sentence(ranking.profile))}). An edge i → j (i cheaper) when the "
            f"post-hoc test ({_e(method)}) finds j better. Overrides: {edges}</p>{edge_table}"
            + figs.html("second_pass", "Second-pass graph: average-cost order, post-hoc overrides")
            + figs.html("second_pass_trace", "Second-pass sort trace: how the final order comes "
                        "out of the average-cost order and the overrides")
            + html_table(["cost position", "algorithm", "average cost", "average position",
                      "final position"], rows, numeric={0, 2, 3, 4})
            + "</section>")


def _nemenyi_section(ranking, figs):
    sp = ranking.second_pass
    if sp is None:
        return ""
    title = sp.method_entry.title
    text = (f"Critical difference {format_rank(sp.critical_difference)}. "
            if sp.critical_difference is not None else "")
    if not sp.applied:
        text = "The Friedman test does not reject: no post-hoc test was applied. "
    warning = power_warning(sp, len(ranking.datasets))
    index = {a: i for i, a in enumerate(sp.algorithms)}
    number, bound = _second_pass_heading(sp)
    rows = [(a, b, "" if sp.posthoc is None else
             format_p(sp.posthoc.pvalues[index[a], index[b]], bound))
            for a, b in sp.significant_pairs()]
    pairs, table = _pairs_html(rows, ["algorithm", "algorithm", number], "–", "posthoc.csv")
    return (f'<section id="posthoc"><h2>{_e(title)}</h2>'
            + (f'<p class="note">{_e(warning)}</p>' if warning else "")
            + f"<p>{_e(text)}Pairs found different: {pairs}</p>{table}"
            + _cd_figures_html(ranking, figs)
            + figs.html("significance", "Significance matrix of the post-hoc test: each pair "
                        "once, in the final order, coloured by the better algorithm")
            + "</section>")


def _cd_figures_html(ranking, figs):
    """The CD diagrams, each under its own title (the quantity drawn and the test); with a
    Bayesian second pass a pointer to the posterior probabilities that decided instead."""
    titles = {stem: diagram.title for stem, diagram in cd_diagrams(ranking).items()}
    out = "".join(figs.html(stem, title) for stem, title in titles.items())
    if "cd" not in titles:
        out = ('<p>The Bayesian second pass decides by posterior probabilities: they are drawn '
               'in <a href="#fig-effects_second_pass">the figure of every pair</a> '
               "(effects_second_pass.svg). By mean error alone, without costs:</p>" + out)
    return out


def _control_section(ranking):
    c = ranking.control
    if c is None:
        return ""
    names = ranking.algorithms
    rows = [[names[i], format_number(c.statistic[i]), format_p(c.pvalues[i]),
             "yes" if c.significant[i] else "no"] for i in range(len(names)) if i != c.control]
    return (f'<section id="control"><h2>Comparisons with {_e(names[c.control])}</h2>'
            f"<p>{_e(ranking.settings.control_method)}; critical difference "
            f"{format_rank(c.critical_difference)}.</p>"
            + html_table(["algorithm", "z", "adjusted p", "different"], rows, numeric={1, 2})
            + "</section>")


def _dataset_section(ranking, r, stem, figs, error_rank, back="#contents", pareto=""):
    """Data set `r` of `ranking`; `error_rank`: ``{algorithm: rank of its mean error
    there}``."""
    settings, exact = ranking.settings, ranking.tolerance.exact
    number = _heading(ranking.pairwise_test)   # the numbers' name, whether p-values
    parts = [f'<section id="ds-{_e(stem)}"><h3>{_e(r.name)}</h3>',
             f"<p>Order (best first): <b>{_e(', '.join(r.order))}</b>.<br>"
             f"Prior (cheapest first): {_e(prior_text(r.prior_order, r.cost_ties))}.</p>"]
    if r.cost_ties:
        label = "Equal costs" if exact else "Tied costs (within the cost tolerance, see the notes)"
        parts.append(f'<p class="note">{label}: '
                     f"{_e('; '.join(' = '.join(g) for g in r.cost_ties))}.</p>")
    parts.append(pareto)
    parts.append(figs.html(f"override_{stem}", f"Override graph of {r.name}"))
    parts.append(figs.html(f"trace_{stem}", f"Sort trace of {r.name}"))
    pairs = r.pair_columns()
    n_pairs = pairs["a"].size
    if n_pairs:
        adjusted = settings.correction != "none"
        header = ["cheaper", "costlier", "statistic", number[0]] + (
            [f"{settings.correction.capitalize()}-adjusted p"] if adjusted else []) + [
            "mean error (cheaper)", "mean error (costlier)", "override"]
        shown = {key: column[:PAIRWISE_ROWS_LIMIT] for key, column in pairs.items()}
        n_shown = shown["a"].size
        parts.append("<details><summary>Pairwise tests "
                     f"({n_pairs} pairs, {int(pairs['override'].sum())} overrides)"
                     "</summary>"
                     + html_table(header, (), body=_pair_rows(shown, adjusted, number[1]))
                     + ("" if n_pairs <= n_shown else
                        f"<p>First {n_shown} pairs shown; all are in pairwise.csv.</p>")
                     + "</details>")
    rows = [[k, a, format_number(r.mean_errors[a]), f"{error_rank[a]:g}"]
            for k, a in enumerate(r.order, start=1)]
    parts.append(html_table(["position", "algorithm", "mean error", "error rank"], rows,
                        numeric={0, 2, 3}))
    parts.append(f'<p><a href="{back}">back to the index</a></p></section>')
    return "".join(parts)


def applied_settings(ranking):
    """``{setting: value}`` of the settings that applied to this run: the Bayesian ones
    (rope, min_probability, bayes_seed) only with a Bayesian test or second pass, the
    post-hoc correction only for a pass that takes one, the control's method only with a
    control, the Friedman options only over several data sets; no unset value."""
    settings = ranking.settings.to_dict()
    sp = ranking.second_pass
    bayes_pass = sp is not None and sp.method_entry.bayesian
    bayes = bayes_pass or (ranking.pairwise_test is not None and ranking.pairwise_test.bayesian)
    dropped = set()
    if not bayes:
        dropped |= {"rope", "min_probability"}
    if not bayes_pass:
        dropped.add("bayes_seed")
    if sp is None or not sp.method_entry.takes_correction:
        dropped.add("posthoc_correction")
    if ranking.control is None:
        dropped.add("control_method")
    if sp is None or bayes_pass:
        dropped |= {"friedman_gate", "friedman_ties"} if sp is None else {"friedman_gate"}
    return {k: v for k, v in settings.items() if k not in dropped and v is not None}


def _settings_section(ranking):
    rows = [[k, v] for k, v in applied_settings(ranking).items()]
    profile = ranking.profile.describe()
    rows += [[f"cost profile {k}", v] for k, v in profile.items()
             if v not in (None, "") and k != "secondary"]
    if "secondary" in profile:
        rows.append(["secondary cost profile", profile["secondary"].get("name")])
    res = ranking.results
    rows += [["input", res.source], ["folds", f"{res.replications} replication(s) x "
                                     f"{res.folds_per_replication} fold(s)"]]
    return ('<section id="settings"><h2>Settings</h2>' + html_table(["setting", "value"], rows)
            + "</section>")


def _notes_section(ranking):
    items = "".join(f"<li>{_e(n)}</li>" for n in ranking.notes) or "<li>none</li>"
    return f'<section id="notes"><h2>Notes</h2><ul>{items}</ul></section>'


def _paged(ranking):
    n_pairs = ranking.table.statistic.size if ranking.datasets[0].tested else 0
    return len(ranking.datasets) > INLINE_DATASETS_LIMIT or n_pairs > INLINE_REPORT_PAIRS


def _dataset_href(ranking, stem):
    return f"{DATASET_PAGES}/{stem}.html" if _paged(ranking) else f"#ds-{stem}"


def _index(ranking, stems):
    entries = [("final-order", "Final order")]
    if ranking.second_pass is not None:
        entries += [("second-pass", "Second pass"), ("posthoc", "Post-hoc stage (CD diagram)")]
    entries.append(("friedman", "Friedman test and gate"))
    if ranking.control is not None:
        entries.append(("control", "Comparisons with the control"))
    entries += [("datasets", "Data sets"), ("settings", "Settings"), ("notes", "Notes")]
    top = "".join(f'<li><a href="#{a}">{_e(t)}</a></li>' for a, t in entries)
    sets = "".join(f'<li><a href="{_dataset_href(ranking, stem)}">{_e(r.name)}</a></li>'
                   for r, stem in zip(ranking.datasets, stems))
    n = len(ranking.datasets)
    return (f'<nav id="contents"><h2>Contents</h2><ul>{top}</ul>'
            f'<details{" open" if n <= OPEN_DATASET_LIST else ""}><summary>the {n} data '
            f'set{"s" if n != 1 else ""}</summary><ul class="sets">{sets}</ul></details></nav>')


def _datasets_table(ranking, stems):
    """One row per data set, linking to its page (when the data sets have pages)."""
    rows = [f'<tr><td><a href="{_dataset_href(ranking, stem)}">{_e(r.name)}</a></td>'
            f"<td>{_e(', '.join(r.order[:3]))}{', …' if len(r.order) > 3 else ''}</td>"
            f'<td class="num">{r.n_overrides}</td></tr>'
            for r, stem in zip(ranking.datasets, stems)]
    return html_table(["data set", "order (best first)", "overrides"], (), body=rows)


def _report_pages(ranking, graphs=None, captions="inside", figures_for=None):
    """``(report.html text, page)``: ``page(k)`` is ``(stem, text)`` of the page of data
    set ``k``; ``page`` is None up to the inline limit (no pages)."""
    figs = _Figures(ranking, graphs, captions, figures_for)
    not_drawn = figures_note(ranking, figures_for)
    stems = dataset_stems(ranking)
    paged = _paged(ranking)
    final = _final_section(ranking, figs)
    body = [f"<h1>multitest report</h1><p>Cost-conscious ordering of "
            f"{len(ranking.algorithms)} algorithms over {len(ranking.datasets)} data set(s) "
            "(MultiTest / Multi²Test).</p>",
            _index(ranking, stems), final, figs.html("pareto", "Error against cost"),
            _second_pass_section(ranking, figs),
            _nemenyi_section(ranking, figs), _friedman_section(ranking),
            _control_section(ranking),
            bayes_section_html(ranking, figs.html),
            '<section id="datasets"><h2>Data sets</h2><p>MultiTest on each data set: override '
            "graph, sort trace, pairwise tests and order"
            + (f" (a page per data set, in {DATASET_PAGES}/)" if paged else "") + ".</p>"
            + (f'<p class="note" id="figures-not-drawn">{_e(not_drawn[0].upper())}'
               f"{_e(not_drawn[1:])}.</p>" if not_drawn else "")]
    page = None

    def dataset_pareto(stem):
        return figs.html(f"pareto_{stem}", "Error against cost on this data set")

    error_ranks = [dict(zip(ranking.algorithms, row)) for row in ranking.error_ranks().tolist()]
    if paged:
        body.append(_datasets_table(ranking, stems))

        def page(k):
            r = ranking.datasets[k]
            section = _dataset_section(ranking, r, stems[k], figs, error_ranks[k],
                                       back="../report.html#datasets",
                                       pareto=dataset_pareto(stems[k]))
            return stems[k], html_page(f"multitest: {r.name}", [
                '<p><a href="../report.html">multitest report</a> › data set</p>', section])
    else:
        body += [_dataset_section(ranking, r, stem, figs, ranks, pareto=dataset_pareto(stem))
                 for r, stem, ranks in zip(ranking.datasets, stems, error_ranks)]
    body += ["</section>", _settings_section(ranking), _notes_section(ranking)]
    return html_page("multitest report", body), page


def report_html(ranking, captions="inside", figures_for=None):
    """The report as one HTML string (see :func:`write_report`; without the data set pages)."""
    return _report_pages(ranking, captions=captions, figures_for=figures_for)[0]


def write_report(ranking, path, *, graphs=None, captions="inside", figures_for=None):
    """Write the self-contained HTML report of ``ranking`` to ``path`` atomically.

    The file is written next to ``path`` under a temporary name and moved
    into place with :func:`os.replace`, so a reader never sees half a report.

    Above :data:`INLINE_DATASETS_LIMIT` data sets (or
    :data:`INLINE_REPORT_PAIRS` pairwise results), each data set's section
    is a page of its own, ``report_datasets/<data set>.html`` next to
    ``path``, written first (each atomically), so that the report never
    links to a page that is not there.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    path : str or os.PathLike
        Usually ``<out>/report.html``.
    graphs : dict, optional
        Every figure, ``figures(ranking, captions=captions)``, when built already.
    captions : {'inside', 'none'}
        ``'none'``: the figures' titles and captions written beside them, not in them.
    figures_for : 'all' or sequence of str, optional
        The data sets whose figures are drawn; the report's data set section names the
        others (:func:`~multitest.figures._datasets.drawn_datasets`; default: every data
        set up to 50, above 50 of them, those with overrides first).

    Returns
    -------
    str
        The path written.
    """
    path = os.fspath(path)
    text, page = _report_pages(ranking, graphs, captions, figures_for)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    if page is not None:
        os.makedirs(os.path.join(folder, DATASET_PAGES), exist_ok=True)

        for k in range(len(ranking.datasets)):
            stem, html = page(k)
            write_atomically(os.path.join(folder, DATASET_PAGES, f"{stem}.html"), html)
    return write_atomically(path, text)
