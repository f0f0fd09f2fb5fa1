"""The summary of a :class:`~multitest.engine.Ranking` in Markdown (``summary.md``).

CommonMark with the pipe tables every forge renders (GitHub, GitLab): the final order as
a table, why each position holds in one sentence, the Friedman decisions on positions and
on errors, the settings that applied, the missing results and the notes.  Names and
sentences are escaped: a name with ``|``, ``*`` or ``<`` stays text.
"""

from __future__ import annotations

from .._format import format_number, format_rank, p_equals
from ._explain import cost_unit_sentence

__all__ = []

#: The characters that could start markup inside a line: emphasis, code, links, HTML,
#: entities, table cells, strike-through, and the math of GitHub's renderer.
_MARKUP = frozenset("\\`*_[]<>|~&$")


def markdown_escape(text):
    r"""``text`` as Markdown text inside a line: the characters that could start markup
    backslash-escaped (CommonMark renders ``\x`` as ``x``), line breaks as spaces.

    Examples
    --------
    >>> print(markdown_escape("svm|rbf *fast* <b>"))
    svm\|rbf \*fast\* \<b\>
    """
    return "".join(f"\\{c}" if c in _MARKUP else " " if c in "\r\n" else c
                   for c in str(text))


def markdown_summary(ranking):
    """The text of ``summary.md`` (:meth:`multitest.engine.Ranking.to_markdown`).

    Parameters
    ----------
    ranking : multitest.engine.Ranking

    Returns
    -------
    str

    Examples
    --------
    >>> from multitest import rank, example_results
    >>> text = rank(example_results(), "training_time").to_markdown()
    >>> text.splitlines()[0]
    '# multitest: final order'
    """
    lines = ["# multitest: final order", "",
             f"{len(ranking.algorithms)} algorithms on {len(ranking.datasets)} data set(s); "
             f"costs {markdown_escape(ranking.profile.name)}; "
             f"{markdown_escape(_rules(ranking))}.", ""]
    lines += _order_table(ranking)
    lines += ["", "## Why each position", ""]
    lines += [f"{e.position}. {markdown_escape(e.sentence)}" for e in ranking.explanations]
    lines += ["", "## Friedman tests", ""] + _friedman_lines(ranking)
    lines += ["", "## Settings", ""] + _settings_lines(ranking)
    lines += ["", "## Missing results", "",
              markdown_escape(ranking.missing.sentence() if ranking.missing is not None else
                              "none: every result is present (policy 'error' would have "
                              "stopped on a missing one)")]
    lines += ["", "## Notes", ""]
    lines += [f"- {markdown_escape(note)}" for note in ranking.notes] or ["none"]
    return "\n".join(lines) + "\n"


def _rules(ranking):
    return ranking.settings.decision_rules(second_pass=ranking.second_pass is not None)


def _order_table(ranking):
    frame = ranking.to_frame()
    several = ranking.second_pass is not None
    header = ["Position", "Algorithm", "Average position", "Average error rank",
              "Average cost" if several else "Cost", "First on", "Why"]
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join(["---:", ":---", "---:", "---:", "---:", "---:", ":---"]) + " |"]
    for row in frame.itertuples():
        cells = [str(row.position), markdown_escape(row.algorithm),
                 format_rank(row.average_position), format_rank(row.average_error_rank),
                 format_number(row.average_cost), str(row.first_on),
                 markdown_escape(row.reason)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", markdown_escape(
        "Average position: of the MultiTest positions, which contain the cost order; "
        "average error rank: of the mean errors alone (1 = best); first on: the data sets "
        f"where the algorithm is first; {cost_unit_sentence(ranking.profile)}.")]
    return lines


def _friedman_lines(ranking):
    alpha = ranking.settings.alpha
    fr, fe, sp = ranking.friedman, ranking.friedman_errors, ranking.second_pass
    if sp is None:
        return ["None: a single data set (the Friedman test needs at least two)."]
    lines = []
    for label, result in (("on average positions", fr), ("on average error ranks", fe)):
        if result is None:
            lines.append(f"- {label}: not computed (missing results, policy 'partial')")
            continue
        decision = "rejects" if result.pvalue < alpha else "does not reject"
        lines.append("- " + markdown_escape(
            f"{label}: chi2 = {result.statistic:.4g} (df {result.df}, {result.ties} for "
            f"ties), {p_equals(result.pvalue)}: {decision} equal average ranks at alpha = "
            f"{alpha:g}"))
    lines.append(f"- gate: {markdown_escape(sp.gate)}")
    return lines


def _settings_lines(ranking):
    s = ranking.settings
    lines = [("decision rules", _rules(ranking)),
             ("costs", f"{ranking.profile.name}: {cost_unit_sentence(ranking.profile)}"),
             ("cost tolerance", str(s.cost_tolerance)),
             ("missing results", s.missing)]
    if ranking.second_pass is not None:
        lines += [("Friedman ties", s.friedman_ties),
                  ("Friedman gate", "on" if s.friedman_gate else "off")]
    if s.control is not None:
        lines.append(("control", f"{s.control} ({s.control_method})"))
    return [f"- {key}: {markdown_escape(value)}" for key, value in lines]
