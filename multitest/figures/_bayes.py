"""Figures and report section of the Bayesian tests and the effect sizes.

One figure per table of pairs (the pairs of the second pass, or of one data set
with the Bayesian correlated t-test): a row per pair, cheaper algorithm first,
with

- a bar of the three posterior probabilities, P(cheaper practically better)
  (orange), P(practically equivalent) (grey) and P(costlier practically
  better) (blue), and dashed marks where a side reaches the threshold;
- a forest plot of the effect size (Hodges–Lehmann median difference over
  data sets, or on one data set the estimate of the pairwise test) with its
  interval, the zero line and the ROPE band.  Positive: the costlier is
  better.  Every mark shows the pair's decision (colour and shape, with a
  legend); a test without an interval shows its statistic and p-value.

The SVG is written by hand (no plotting library); computation never imports
this module.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from .._format import escape_html as _e
from .._format import interval_text, p_equals
from ..engine._effects import INTERVAL_PAIRS_LIMIT

__all__ = ["pairs_figure_svg", "bayes_figures", "write_bayes_figures", "bayes_section_html",
           "caption_html"]

_ROW = 26
_TOP = 58
_LABEL = 230          # right edge of the pair labels
_BAR = (240, 640)     # probability bar, x from .. to
_FOREST = (700, 1080)
_WIDTH = 1120
COLORS = {"cheaper": "#e08214", "equivalent": "#bdbdbd", "costlier": "#2166ac"}
#: The decision of a pair and how its mark is drawn: (fill, stroke, shape).
DECISION_MARKS = {"override": ("#2166ac", "#2166ac", "circle"),
                  "reverse": ("#b35806", "#b35806", "square"),
                  "none": ("white", "#595959", "circle")}
_LEGEND_ROW = 16
_CAPTION_CHARACTERS = 150     # a caption line of 12 px text fits the 1120 px width


def pairs_figure_svg(rows, *, title, threshold=None, rope=0.0, effect_label="effect",
                     decisions=None, caption=()):
    """SVG of probability bars and effect-size intervals, one row per pair.

    Parameters
    ----------
    rows : list of dict
        Keys ``a`` (cheaper), ``b`` (costlier), optional ``p`` = ``(P(a
        better), P(equivalent), P(b better))``, optional ``effect`` =
        ``(estimate, low, high)`` (None entries are skipped; NaN bounds with
        a finite estimate: the test rejects every shift), optional
        ``override`` (bool), optional ``decision`` (a key of
        :data:`DECISION_MARKS`: the colour and shape of the estimate's mark)
        and ``note`` (text drawn in the forest column, e.g. the statistic
        and p-value of a test without an interval).
    title : str
    threshold : float, optional
        Marks where P reaches the override threshold.
    rope : float
        Half-width of the ROPE band of the forest plot.
    effect_label : str
        Axis title of the forest plot.
    decisions : dict of str to str, optional
        The legend of the marks, ``{decision: what it means}``.
    caption : sequence of str
        Lines printed under the figure.

    Returns
    -------
    str
        A standalone SVG document.  Every element has a ``class`` and data
        attributes (``data-pair``, ``data-p``, ``data-decision``) so that
        tests read it back.
    """
    decisions = decisions or {}
    caption = [part for line in caption for part in textwrap.wrap(line, _CAPTION_CHARACTERS)]
    extra = _LEGEND_ROW * (len(decisions) + len(caption)) + 6
    height = _TOP + _ROW * len(rows) + 54 + extra
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
           f'viewBox="0 0 {_WIDTH} {height}" font-family="Helvetica,Arial,sans-serif" '
           'font-size="12">',
           f'<rect width="{_WIDTH}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">{_e(title)}</text>'
           if title else ""]
    has_p = any(r.get("p") is not None for r in rows)
    if has_p:
        out += _legend()
    scale = _effect_scale(rows, rope, _FOREST if has_p else (_BAR[0], _FOREST[1]))
    if scale is not None:
        out += _forest_axis(scale, rope, height - extra, effect_label)
    out += _decision_legend(decisions, caption, height - extra + 4)
    for k, row in enumerate(rows):
        y = _TOP + k * _ROW
        pair = f"{row['a']}|{row['b']}"
        out.append(f'<text class="pair-label" x="{_LABEL}" y="{y + 16}" text-anchor="end">'
                   f"{_e(row['a'])} vs {_e(row['b'])}"
                   + (' <tspan fill="#b2182b">&#8594; override</tspan>'
                      if row.get("override") else "") + "</text>")
        if row.get("p") is not None:
            out += _bar(row["p"], y, pair)
        if scale is not None and row.get("effect") is not None:
            out += _interval(row["effect"], y, pair, scale, row.get("decision", "none"),
                             row.get("open", (False, False)),
                             row.get("without_bounds", "rejects every shift"))
        if row.get("note"):
            x = (_FOREST if has_p else (_BAR[0], _FOREST[1]))[0]
            out.append(f'<text class="note" data-pair="{_e(pair)}" x="{x}" y="{y + 16}" '
                       f'fill="#333">{_e(row["note"])}</text>')
    if has_p and threshold is not None:
        for side, x in (("costlier", _x_bar(1 - threshold)), ("cheaper", _x_bar(threshold))):
            out.append(f'<line class="threshold-{side}" x1="{x:.2f}" y1="{_TOP - 4}" '
                       f'x2="{x:.2f}" y2="{_TOP + _ROW * len(rows)}" stroke="#333" '
                       'stroke-dasharray="4,3"/>')
        out.append(f'<text x="{_BAR[0]}" y="{_TOP + _ROW * len(rows) + 16}" fill="#333">'
                   f"dashed: threshold {threshold:g} (a bar reaching past it decides)</text>")
    out.append("</svg>")
    return "\n".join(out)


def _x_bar(share):
    return _BAR[0] + share * (_BAR[1] - _BAR[0])


def _legend():
    out, x = [], _BAR[0]
    for key, text in (("cheaper", "P(cheaper better)"), ("equivalent", "P(equivalent)"),
                      ("costlier", "P(costlier better)")):
        out.append(f'<rect x="{x}" y="30" width="12" height="12" fill="{COLORS[key]}"/>'
                   f'<text x="{x + 16}" y="40">{text}</text>')
        x += 130
    return out


def _bar(p, y, pair):
    out, x = [], _BAR[0]
    for key, share in zip(("cheaper", "equivalent", "costlier"), p):
        width = max(0.0, float(share)) * (_BAR[1] - _BAR[0])
        out.append(f'<rect class="p-{key}" data-pair="{_e(pair)}" data-p="{float(share):.6g}" '
                   f'x="{x:.2f}" y="{y + 3}" width="{width:.2f}" height="{_ROW - 8}" '
                   f'fill="{COLORS[key]}"/>')
        if width >= 34:
            colour = "white" if key == "costlier" else "black"   # contrast >= 4.5:1
            out.append(f'<text x="{x + width / 2:.2f}" y="{y + 16}" text-anchor="middle" '
                       f'fill="{colour}" font-size="11">{float(share):.0%}</text>')
        x += width
    return out


def _effect_scale(rows, rope, span):
    values = [v for r in rows if r.get("effect") is not None for v in r["effect"]
              if v is not None and math.isfinite(v)]
    if not values:
        return None
    low, high = min(values + [-rope, 0.0]), max(values + [rope, 0.0])
    pad = 0.05 * (high - low) if high > low else 1.0
    return low - pad, high + pad, span[0], span[1]


def _x_forest(value, scale):
    """x of ``value`` on the forest plot; ``scale = (low, high, x_low, x_high)``."""
    low, high, x0, x1 = scale
    return x0 + (value - low) / (high - low) * (x1 - x0)


def _forest_axis(scale, rope, height, label):
    bottom = height - 54
    zero = _x_forest(0.0, scale)
    out = []
    if rope > 0:
        left, right = _x_forest(-rope, scale), _x_forest(rope, scale)
        out.append(f'<rect class="rope" x="{left:.2f}" y="{_TOP - 4}" '
                   f'width="{right - left:.2f}" height="{bottom - _TOP + 4}" fill="#eeeeee"/>')
    out.append(f'<line class="zero" x1="{zero:.2f}" y1="{_TOP - 4}" x2="{zero:.2f}" '
               f'y2="{bottom}" stroke="#666"/>')
    x0, x1 = scale[2:]
    out.append(f'<line x1="{x0}" y1="{bottom}" x2="{x1}" y2="{bottom}" stroke="#333"/>')
    for tick in _ticks(scale):
        x = _x_forest(tick, scale)
        out.append(f'<line x1="{x:.2f}" y1="{bottom}" x2="{x:.2f}" y2="{bottom + 4}" '
                   f'stroke="#333"/><text x="{x:.2f}" y="{bottom + 16}" text-anchor="middle" '
                   f'font-size="10">{tick:g}</text>')
    middle = (x0 + x1) / 2
    out.append(f'<text x="{middle}" y="{bottom + 30}" text-anchor="middle">{_e(label)}</text>')
    out.append(f'<text x="{middle}" y="{bottom + 44}" text-anchor="middle" fill="#555">'
               "positive: the costlier is better"
               + (f"; grey band: ROPE &#177;{rope:g}" if rope > 0 else "") + "</text>")
    out.append(f'<text x="{middle}" y="40" text-anchor="middle" '
               'font-weight="bold">effect size and interval</text>')
    return out


def _decision_legend(decisions, caption, top):
    """One line per decision (its mark and meaning), then the caption lines."""
    out = []
    for k, (decision, text) in enumerate(decisions.items()):
        y = top + k * _LEGEND_ROW
        out += _mark(decision, 20, y + 8, "legend-mark", "")
        out.append(f'<text class="legend" data-decision="{decision}" x="32" y="{y + 12}">'
                   f"{_e(text)}</text>")
    for k, line in enumerate(caption):
        y = top + (len(decisions) + k) * _LEGEND_ROW
        out.append(f'<text class="caption" x="10" y="{y + 12}" fill="#333">{_e(line)}</text>')
    return out


def _mark(decision, x, y, css, pair):
    """The mark of a decision at ``(x, y)``: circle or square, filled or open."""
    fill, stroke, shape = DECISION_MARKS[decision]
    data = f'data-pair="{_e(pair)}" ' if pair else ""
    if shape == "square":
        corners = " ".join(f"{x + dx:.2f},{y + dy:.1f}" for dx, dy in
                           ((-4, -4), (4, -4), (4, 4), (-4, 4)))
        return [f'<polygon class="{css}" {data}data-decision="{decision}" points="{corners}" '
                f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>']
    return [f'<circle class="{css}" {data}data-decision="{decision}" cx="{x:.2f}" '
            f'cy="{y:.1f}" r="4" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>']


def _ticks(scale):
    low, high = scale[:2]
    step = 10 ** math.floor(math.log10((high - low) / 4))
    for factor in (1, 2, 5, 10):
        if (high - low) / (step * factor) <= 6:
            step *= factor
            break
    return [round(t, 12) for t in np.arange(math.ceil(low / step), math.floor(high / step) + 1)
            * step]


def _interval(effect, y, pair, scale, decision, ends=(False, False),
              without_bounds="rejects every shift"):
    """The interval (clipped to the axis for a one-sided one) and the decision's mark;
    ``ends``: whether its low and high ends are open (its tooltip says ``(`` / ``)``);
    ``without_bounds``: what is written beside an estimate without an interval (None:
    nothing)."""
    estimate, low, high = effect
    out = []
    middle = y + _ROW / 2
    finite = [v for v in (low, high) if v is not None and not math.isnan(v)]
    if len(finite) == 2:
        x1, x2 = (_x_forest(min(max(v, scale[0]), scale[1]), scale) for v in (low, high))
        out.append(f'<line class="interval" data-pair="{_e(pair)}" data-low="{low:.6g}" '
                   f'data-high="{high:.6g}" x1="{x1:.2f}" y1="{middle:.1f}" '
                   f'x2="{x2:.2f}" y2="{middle:.1f}" stroke="{DECISION_MARKS[decision][1]}" '
                   f'stroke-width="2"><title>{_e(interval_text(low, high, *ends))}</title>'
                   '</line>')
    elif without_bounds is not None and estimate is not None and math.isfinite(estimate):
        out.append(f'<text class="no-interval" data-pair="{_e(pair)}" '
                   f'x="{_x_forest(estimate, scale) + 8:.2f}" y="{middle + 4:.1f}" '
                   f'font-size="10" fill="#333">{_e(without_bounds)}</text>')
    if estimate is not None and math.isfinite(estimate):
        out += _mark(decision, _x_forest(estimate, scale), middle, "estimate", pair)
    return out


def caption_html(lines):
    """Caption lines written beside a figure (``captions='none'``), as HTML."""
    return "".join(f'<span class="caption-line">{_e(line)}</span><br>' for line in lines)


# --------------------------------------------------------------------------
# Figures of a ranking
# --------------------------------------------------------------------------


def _second_pass_figure(ranking, captions):
    from ..engine._effects import second_pass_columns, second_pass_rows

    sp = ranking.second_pass
    entry = sp.method_entry
    bayesian = entry.bayesian
    index = {a: i for i, a in enumerate(sp.algorithms)}
    edges = set(sp.edges())
    rows = []
    columns = second_pass_columns(ranking)     # the bounds as floats: an end at infinity kept
    for k, r in enumerate(second_pass_rows(ranking)):
        override = (r["a"], r["b"]) in edges
        different = bool(sp.significant[index[r["a"]], index[r["b"]]])
        rows.append({"a": r["a"], "b": r["b"],
                     "p": (r["p_a_better"], r["p_equivalent"], r["p_b_better"])
                     if bayesian else None,
                     "effect": (r["hodges_lehmann"], float(columns["ci_low"][k]),
                                float(columns["ci_high"][k])),
                     "open": (r["ci_low_open"], r["ci_high_open"]),
                     "without_bounds": None,          # not computed, or the test gives none
                     "override": override,
                     "decision": "override" if override else "reverse" if different
                     else "none"})
    title = ("Second pass: Bayesian signed-rank test and Hodges–Lehmann differences"
             if bayesian else "Second pass: Hodges–Lehmann median differences over data sets")
    criterion = ("has the better average position" if entry.rank_based
                 else "is more probably better" if bayesian
                 else "has the lower mean errors (median difference)")
    decisions = {"override": "significantly different, the costlier is better: an override",
                 "reverse": f"significantly different, the cheaper {criterion}",
                 "none": "no significant difference"}
    if bayesian:      # decided by a posterior probability, as on one data set
        t = ranking.settings.min_probability
        decisions = {"override": f"P(costlier practically better) ≥ {t:g}: override",
                     "reverse": f"P(cheaper practically better) ≥ {t:g}",
                     "none": "neither probability reaches the threshold"}
    caption = _second_pass_caption(ranking, rows)
    return _captioned(rows, title, caption, captions,
                      threshold=ranking.settings.min_probability if bayesian else None,
                      rope=ranking.settings.rope if bayesian else 0.0,
                      effect_label="median difference of mean errors (cheaper − costlier)",
                      decisions=decisions)


def _captioned(rows, title, caption, captions, **options):
    """``(SVG, title, caption)``: the title and caption drawn only with ``captions='inside'``."""
    inside = captions == "inside"
    return (pairs_figure_svg(rows, title=title if inside else "",
                             caption=caption if inside else (), **options),
            title, tuple(caption))


def _second_pass_caption(ranking, rows):
    """Which test decided, and the intervals of that test drawn beside its decisions."""
    sp = ranking.second_pass
    entry = sp.method_entry
    on = "average positions (MultiTest ranks)" if entry.rank_based else "mean errors"
    if not sp.applied:
        first = (f"Marks: the {entry.caption} on {on} was not applied ({sp.gate.rstrip('.')}): "
                 "no pair is significantly different, no override.")
    else:
        first = (f"Marks: the decision of the {entry.caption} on {on}"
                 + (f", {sp.correction} correction" if sp.correction != "none" else "")
                 + ", the second pass that orders the algorithms.")
    drawn = [r for r in rows if not math.isnan(r["effect"][1])]
    if not drawn:
        why = ("it was not applied" if not sp.applied else
               f"the {entry.caption} does not test a difference of mean errors"
               if entry.interval is None else "not computed for this many pairs")
        return [first, f"Points: Hodges–Lehmann median differences; no interval ({why})."]
    excluding = sum(not _holds_zero(r) for r in drawn)
    return [first,
            f"Lines: the shifts of the differences of mean errors the {entry.caption} does not "
            "reject, at the level of its corrected decisions (an open end is not in the set):",
            f"{excluding} of {len(drawn)} exclude 0, the pairs found different."]


def _holds_zero(row):
    """Whether a row's interval holds 0."""
    (_, low, high), (low_open, high_open) = row["effect"], row["open"]
    return (low < 0 or (low == 0 and not low_open)) and (0 < high or (high == 0 and not high_open))


def _dataset_figure(ranking, result, captions):
    from ..engine._effects import dataset_effects, pairwise_columns

    bayesian = ranking.pairwise_test.bayesian
    columns = pairwise_columns(ranking, [result]) if bayesian else {}
    effects = dataset_effects(ranking, result)
    s = ranking.settings
    rows = []
    for k, pair in enumerate(result.pairs()):
        rejected = (columns["p_cheaper_better"][k] >= s.min_probability if bayesian
                    else pair["pvalue_adjusted"] < s.alpha)
        rows.append({"a": pair["a"], "b": pair["b"], "override": pair["override"],
                     "p": (columns["p_cheaper_better"][k], columns["p_equivalent"][k],
                           columns["p_costlier_better"][k]) if bayesian else None,
                     "effect": None if effects is None else
                     (effects.estimate[k], effects.low[k], effects.high[k]),
                     "open": (False, False) if effects is None else
                     (bool(effects.low_open[k]), bool(effects.high_open[k])),
                     "decision": "override" if pair["override"] else "reverse" if rejected
                     else "none",
                     "note": None if effects is not None else
                     f"statistic {pair['statistic']:.4g}, {p_equals(pair['pvalue'])}"})
    test = ranking.pairwise_test.name
    if bayesian:
        title = f"{result.name}: Bayesian correlated t-test"
        decisions = {"override": f"P(costlier practically better) ≥ {s.min_probability:g}: override",
                     "reverse": f"P(cheaper practically better) ≥ {s.min_probability:g}",
                     "none": "neither probability reaches the threshold"}
    else:
        title = f"{result.name}: {test}" + (
            "" if effects is None else f", {effects.estimator} and the test's interval")
        decisions = {"override": f"{test} rejects and the costlier's mean error is lower: "
                                 "override",
                     "reverse": f"{test} rejects, the costlier's mean error is not lower: "
                                "no override",
                     "none": f"{test} does not reject"}
    return _captioned(rows, title, _dataset_caption(effects, s, bayesian), captions,
                      threshold=s.min_probability if bayesian else None,
                      rope=s.rope if bayesian else 0.0, effect_label=_dataset_axis(effects),
                      decisions=decisions)


def _dataset_axis(effects):
    what = "difference of errors" if effects is None else effects.estimator
    return f"{what} (cheaper − costlier)"


def _dataset_caption(effects, settings, bayesian):
    """What the per-data-set lines are (or why there are none)."""
    if effects is None:
        return ["The test defines no interval: its statistic and p-value are shown."]
    if bayesian:
        return [f"Lines: {effects.level:.0%} central credible intervals of the posterior; the "
                f"costlier overrides exactly when the line lies right of the ROPE "
                f"({settings.rope:g})."]
    side = {"two-sided": "", "greater": " one-sided (costlier better),",
            "less": " one-sided (cheaper better),"}[effects.alternative]
    lines = [f"Lines: the shifts the {effects.method} does not reject at level "
             f"{1 - effects.level:.3g},{side} so a line excludes 0 exactly when the test "
             "rejects."]
    empty = int(np.isnan(effects.low).sum())
    if empty:
        lines.append(f"{empty} pair(s) without a line: the test rejects every common shift of "
                     "the fold differences (for the F test: they vary more than their "
                     "within-replication spread allows).")
    if effects.gaps.any():
        lines.append(f"{int(effects.gaps.sum())} line(s) include isolated shifts the test "
                     "rejects (tied ranks): where such a line crosses 0, the mark gives the "
                     "decision at 0.")
    return lines


#: Per-data-set figures are drawn for data sets of at most this many pairs (for the data
#: sets drawn, :func:`~multitest.figures._write.drawn_datasets`).
DATASET_PAIRS_LIMIT = 120
#: The second-pass figure is drawn up to this many pairs (all are in effect_sizes.csv).
SECOND_PASS_PAIRS_LIMIT = INTERVAL_PAIRS_LIMIT


def bayes_figures(ranking, captions="inside", figures_for=None):
    """``{stem: (SVG, title, caption lines)}``: ``effects_second_pass`` (two data sets or
    more) and ``dataset_effects_<data set>`` for each data set with pairwise tests (up to
    the limits): probabilities too with the Bayesian correlated t-test.  ``captions='none'``:
    the title and caption are not drawn (they are returned beside the SVG).
    ``figures_for``: the data sets drawn (:func:`~multitest.figures._write.drawn_datasets`)."""
    from ._write import drawn_datasets

    out = {}
    L = len(ranking.algorithms)
    if ranking.second_pass is not None and L * (L - 1) // 2 <= SECOND_PASS_PAIRS_LIMIT:
        out["effects_second_pass"] = _second_pass_figure(ranking, captions)
    first = ranking.datasets[0]
    if first.tested and first.table.first.size <= DATASET_PAIRS_LIMIT:
        for result, stem in drawn_datasets(ranking, figures_for):
            out[f"dataset_effects_{stem}"] = _dataset_figure(ranking, result, captions)
    return out


def write_bayes_figures(ranking, directory, formats=("svg",), jobs=None, dpi=None,
                        captions="inside", figures_for=None):
    """Write :func:`bayes_figures` in every format
    (:func:`~multitest.figures.write_svg_files`); returns the file names written."""
    from ._write import write_svg_files

    return write_svg_files(directory, {stem: figure[0] for stem, figure in
                                       bayes_figures(ranking, captions, figures_for).items()},
                           formats, jobs, dpi)


def bayes_section_html(ranking, captions="inside", figures_for=None):
    """The report section "Effect sizes" (HTML), "and Bayesian probabilities" with a
    Bayesian test or second pass; ``captions='none'``: each figure's title and caption
    beside it; ``figures_for``: the data sets drawn."""
    from ._graphviz import inline_svg
    from ._write import dataset_stems

    drawn = bayes_figures(ranking, captions, figures_for)
    figures = {stem: svg for stem, (svg, *_) in drawn.items()}
    beside = {stem: (caption_html([title, *caption]) if captions == "none" else "")
              for stem, (_, title, caption) in drawn.items()}
    if not figures:
        return ""
    s = ranking.settings
    text = []
    if ranking.second_pass is not None:
        text.append("Over data sets: Hodges–Lehmann median of the differences of mean errors "
                    f"(cheaper − costlier) with its Wilcoxon interval at {1 - s.alpha:.0%}")
        if ranking.second_pass.method_entry.bayesian:
            text.append(f"Bayesian signed-rank test, ROPE ±{s.rope:g}, override when "
                        f"P(costlier practically better) ≥ {s.min_probability:g} "
                        f"(Monte Carlo, seed {s.bayes_seed})")
    test = ranking.pairwise_test     # None for a score matrix: no stage-1 test
    bayesian = (test is not None and test.bayesian) or (
        ranking.second_pass is not None and ranking.second_pass.method_entry.bayesian)
    heading = "Effect sizes and Bayesian probabilities" if bayesian else "Effect sizes"
    parts = [f'<section id="effect-sizes"><h2>{heading}</h2>',
             "<p>" + _e(". ".join(text)) + ".</p>" if text else ""]
    if "effects_second_pass" in figures:
        parts.append('<figure id="fig-effects_second_pass">'
                     f'{inline_svg(figures["effects_second_pass"])}<figcaption>'
                     "Every pair over data sets (effects_second_pass.svg; numbers in "
                     f"effect_sizes.csv){beside['effects_second_pass']}</figcaption></figure>")
    dataset_figures = [(r.name, f"dataset_effects_{stem}") for r, stem in
                       zip(ranking.datasets, dataset_stems(ranking))
                       if f"dataset_effects_{stem}" in figures]
    if dataset_figures:
        what = (f"Bayesian correlated t-test on each data set (ROPE ±{s.rope:g}), with the "
                "posterior mean and the credible interval that decides"
                if test.bayesian
                else f"On each data set, the estimate of the {test.name} test "
                "with the shifts the test does not reject (its own interval, at the level of "
                "its decisions); every mark shows the pair's decision")
        parts.append(f"<p>{_e(what)}.</p>")
        for name, stem in dataset_figures:
            parts.append(f"<details><summary>{_e(name)}</summary>"
                         f'<figure id="fig-{_e(stem)}">{inline_svg(figures[stem])}'
                         + (f"<figcaption>{beside[stem]}</figcaption>" if beside[stem] else "")
                         + "</figure></details>")
    parts.append("</section>")
    return "".join(parts)
