"""Plain-text summary of a :class:`~multitest.engine.Ranking` for the terminal: what
``multitest rank`` and ``print(ranking)`` print."""

from __future__ import annotations

from .._format import escape_terminal, format_rank, format_table, p_equals
from ..inputs._results import WARNING_PREFIX
from ._cost_ties import prior_text
from ._frames import first_counts

__all__ = []

#: The summary explains this many top positions (all are in result.json, the report and
#: ``multitest explain OUT``).
WHY_POSITIONS = 10


#: Longest list of names or edges printed in one summary line; longer lists
#: are cut with a count (every item is in the output files).
_MAX_ITEMS = 20


def _shorten(items, separator):
    items = list(items)
    if len(items) <= _MAX_ITEMS:
        return separator.join(items)
    return f"{separator.join(items[:_MAX_ITEMS])}{separator}... ({len(items)} in all)"


def summary_text(ranking, *, out=None, positions=WHY_POSITIONS):
    """The final order and the key figures, as a readable text block.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    out : str, optional
        The output folder written, named where the rest of the explanations are.
    positions : int or None, default WHY_POSITIONS
        Explain this many top positions; None: all.
    """
    s = ranking.settings
    sp = ranking.second_pass
    lines = [f"Final order (best first); costs {ranking.profile.name}; "
             f"{s.decision_rules(second_pass=sp is not None)}", ""]
    firsts = first_counts(ranking)
    index = {a: i for i, a in enumerate(ranking.algorithms)}
    rows = []
    for position, name in enumerate(ranking.final_order, start=1):
        cost = f"{sp.average_costs[index[name]]:.4g}" if sp is not None else \
            f"{ranking.datasets[0].costs[index[name]]:.4g}"
        # escaped here, so that the table is aligned by the printed name (the terminal's
        # escaping of the whole text leaves an escaped name as it is)
        rows.append([position, escape_terminal(name), format_rank(ranking.average_positions[name]),
                     format_rank(ranking.average_error_ranks[name]), cost, firsts[name]])
    lines.append(format_table(["position", "algorithm", "average position", "average error rank",
                               "average cost" if sp is not None else "cost",
                               "first on (data sets)"], rows))
    lines.append("(average position: of the MultiTest positions, which contain the cost order; "
                 "average error rank: of the mean errors alone; 1 = best)")
    lines.append("")
    n_tests = ranking.table.statistic.size
    if ranking.missing is not None and ranking.missing.absent is not None:
        n_tests = ranking.missing.n_tested_pairs   # missing='partial': present pairs only
    # A cluster run's decisions are bits (_BitRows): counted by their own sum, never made
    # one array of booleans (np.count_nonzero did: 1 GB more at 10^9 tests).
    overrides = int(ranking.table.override.sum())
    lines.append(f"{len(ranking.datasets)} data set(s), {len(ranking.algorithms)} algorithms, "
                 f"{n_tests} pairwise tests, {overrides} overrides")
    fr, fe = ranking.friedman, ranking.friedman_errors
    if fr is not None:
        lines.append(f"Friedman on positions: chi2 ({fr.ties} for ties) = {fr.statistic:.4g} "
                     f"(df {fr.df}), {p_equals(fr.pvalue)}; "
                     f"Iman-Davenport F = {fr.iman_davenport_statistic:.4g} "
                     f"(df {fr.iman_davenport_df[0]}, {fr.iman_davenport_df[1]}), "
                     f"{p_equals(fr.iman_davenport_pvalue)}")
        lines.append(f"Friedman on error ranks: chi2 ({fe.ties} for ties) = {fe.statistic:.4g} "
                     f"(df {fe.df}), {p_equals(fe.pvalue)}")
    if sp is not None:
        cd = sp.critical_difference
        cd_text = f"critical difference {format_rank(cd)}; " if cd is not None else ""
        edges = _shorten((f"{a} -> {b}" for a, b in sp.edges()), ", ") or "none"
        correction = "" if sp.correction == "none" else f", {sp.correction}"
        lines.append(f"Second pass ({sp.method}{correction}): "
                     f"{cd_text}{len(sp.significant_pairs())} pair(s) differ; "
                     f"prior (average cost) {prior_text(sp.prior_order, sp.cost_ties, _MAX_ITEMS)}"
                     f"; overrides: {edges}")
    if ranking.control is not None:
        c = ranking.control
        differ = [ranking.algorithms[i] for i in range(len(ranking.algorithms))
                  if i != c.control and c.significant[i]]
        lines.append(f"Against control {ranking.algorithms[c.control]} ({s.control_method}): "
                     f"differ {_shorten(differ, ', ') or 'none'}")
    for note in ranking.notes:
        warning = note.startswith(WARNING_PREFIX)
        lines.append(f"Warning: {note[len(WARNING_PREFIX):]}" if warning else f"Note: {note}")
    lines += _why_lines(ranking, out, positions)
    return "\n".join(lines)


def _why_lines(ranking, out, positions):
    """Why the top positions are what they are; the Friedman power warning."""
    from ._explain import cost_unit_sentence, friedman_power

    lines = ["", "Why this order:"]
    explanations = ranking.explanations
    shown = explanations if positions is None else explanations[:positions]
    lines += [f"  {e.sentence}" for e in shown]
    if len(explanations) > len(shown):
        rest = len(explanations) - len(shown)
        where = (f"multitest explain {out} prints every position" if out is not None else
                 "write the outputs with --out DIR, then multitest explain DIR prints every "
                 "position")
        lines.append(f"  ... {rest} more position(s): {where}")
    lines.append(f"Costs: {cost_unit_sentence(ranking.profile)}.")
    fr, sp = ranking.friedman, ranking.second_pass
    if fr is not None and fr.pvalue >= sp.alpha:
        power = friedman_power(sp.average_positions, len(ranking.datasets), sp.alpha)
        lines.append(f"Warning: {power.sentence(sp.alpha, ranking.settings.friedman_gate)}")
    return lines
