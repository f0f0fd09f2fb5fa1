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

Every mark is placed here and drawn as pinned DOT (:mod:`multitest.figures._pinned`),
which Graphviz renders in every format; computation never imports this module.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from .._format import escape_html as _e
from .._format import interval_text, p_equals
from ..engine._effects import INTERVAL_PAIRS_LIMIT
from ._datasets import dataset_stems, drawn_datasets
from ._pinned import PinnedDrawing, text_width

__all__ = []

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
_FONT = 12
_SEAM = 0.5
_OVERRIDE_COLOUR = "#b2182b"
#: Written after the pair's names (in a column of its own) when the pair is an override.
_OVERRIDE_MARKER = "\u2192 override"
_MARKER_ROOM = text_width(_OVERRIDE_MARKER, _FONT) + 8
_PROBABILITY_NAMES = {"cheaper": "P(cheaper practically better)",
                      "equivalent": "P(practically equivalent)",
                      "costlier": "P(costlier practically better)"}


def pairs_figure_source(rows, *, title, threshold=None, rope=0.0, effect_label="effect",
                        decisions=None, caption=(), name="effects"):
    """Pinned DOT (:mod:`multitest.figures._pinned`) of probability bars and effect-size
    intervals, one row per pair; Graphviz draws it in every format.

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
    name : str
        The graph's name.

    Returns
    -------
    str
        DOT text.  Ids in the SVG, to read it back (``<pair>`` is ``a|b``):
        ``p-cheaper:<pair>``, ``p-equivalent:<pair>``, ``p-costlier:<pair>``
        (the bar's three parts), ``interval:<pair>``, ``estimate:<pair>`` (class
        ``estimate <decision>``), ``note:<pair>``, ``legend:<decision>``,
        ``threshold-cheaper``, ``threshold-costlier``, ``zero``, ``rope``.

    Examples
    --------
    >>> source = pairs_figure_source([{"a": "nb", "b": "rf", "p": (0.1, 0.2, 0.7),
    ...                                "effect": (0.5, 0.1, 0.9), "decision": "override"}],
    ...                              title="demo", threshold=0.95)
    >>> 'id="estimate:nb|rf"' in source and 'class="estimate override"' in source
    True
    """
    decisions = decisions or {}
    caption = [part for line in caption for part in textwrap.wrap(line, _CAPTION_CHARACTERS)]
    extra = _LEGEND_ROW * (len(decisions) + len(caption)) + 6
    height = _TOP + _ROW * len(rows) + 54 + extra
    d = PinnedDrawing(name, height)
    d.corners(_WIDTH)
    if title:
        d.text_at_baseline(10, 20, title, 15, bold=True, css="title")
    has_p = any(r.get("p") is not None for r in rows)
    any_override = any(r.get("override") for r in rows)
    if has_p:
        _legend(d)
    scale = _effect_scale(rows, rope, _FOREST if has_p else (_BAR[0], _FOREST[1]))
    if scale is not None:
        _forest_axis(d, scale, rope, height - extra, effect_label)
    for k, row in enumerate(rows):
        y = _TOP + k * _ROW
        pair = f"{row['a']}|{row['b']}"
        label_end = _LABEL - (_MARKER_ROOM if any_override else 0.0)
        d.text_at_baseline(label_end, y + 16, f"{row['a']} vs {row['b']}", _FONT, anchor="end",
              node_id=f"pair:{pair}", css="pair-label")
        if row.get("override"):
            d.text_at_baseline(label_end + 4, y + 16, _OVERRIDE_MARKER, _FONT, color=_OVERRIDE_COLOUR,
                  node_id=f"override:{pair}", css="override")
        if row.get("p") is not None:
            _bar(d, row["p"], y, pair)
        if scale is not None and row.get("effect") is not None:
            _interval(d, row["effect"], y, pair, scale, row.get("decision", "none"),
                      row.get("open", (False, False)),
                      row.get("without_bounds", "rejects every shift"))
        if row.get("note"):
            x = (_FOREST if has_p else (_BAR[0], _FOREST[1]))[0]
            d.text_at_baseline(x, y + 16, row["note"], _FONT, color="#333333", node_id=f"note:{pair}",
                  css="note")
    if has_p and threshold is not None:
        for side, x in (("costlier", _x_bar(1 - threshold)), ("cheaper", _x_bar(threshold))):
            d.line(x, _TOP - 4, x, _TOP + _ROW * len(rows), id=f"threshold-{side}",
                   color="#333333", style="dashed")
        d.text_at_baseline(_BAR[0], _TOP + _ROW * len(rows) + 16,
              f"dashed: threshold {threshold:g} (a bar reaching past it decides)", _FONT,
              color="#333333")
    _decision_legend(d, decisions, caption, height - extra + 4)
    return d.source()


def _x_bar(share):
    return _BAR[0] + share * (_BAR[1] - _BAR[0])


def _legend(d):
    x = _BAR[0]
    for key, text in (("cheaper", "P(cheaper better)"), ("equivalent", "P(equivalent)"),
                      ("costlier", "P(costlier better)")):
        d.box(x, 30, 12, 12, COLORS[key])
        d.text_at_baseline(x + 16, 40, text, _FONT)
        x += 130


def _bar(d, p, y, pair):
    """The three probabilities of a pair side by side, each a thick line (so that the
    threshold lines, drawn later, stay on top)."""
    x = _BAR[0]
    middle = y + 3 + (_ROW - 8) / 2
    for key, share in zip(("cheaper", "equivalent", "costlier"), p):
        width = max(0.0, float(share)) * (_BAR[1] - _BAR[0])
        if width > 0:     # (overlapping the next part a little: no seam between them)
            d.line(x, middle, min(x + width + _SEAM, _BAR[1]), middle, id=f"p-{key}:{pair}", css=f"p-{key}",
                   color=COLORS[key], penwidth=_ROW - 8,
                   tooltip=f"{_PROBABILITY_NAMES[key]} = {float(share):.6g}")
        if width >= 34:
            colour = "white" if key == "costlier" else "black"   # contrast >= 4.5:1
            d.text_at_baseline(x + width / 2, y + 16, f"{float(share):.0%}", 11, anchor="middle",
                  color=colour)
        x += width


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


def _forest_axis(d, scale, rope, height, label):
    bottom = height - 54
    zero = _x_forest(0.0, scale)
    if rope > 0:      # a band: a line as wide as the ROPE
        left, right = _x_forest(-rope, scale), _x_forest(rope, scale)
        d.line((left + right) / 2, _TOP - 4, (left + right) / 2, bottom, id="rope",
               color="#eeeeee", penwidth=f"{right - left:.2f}")
    d.line(zero, _TOP - 4, zero, bottom, id="zero", color="#666666")
    x0, x1 = scale[2:]
    d.line(x0, bottom, x1, bottom, color="#333333")
    for tick in _ticks(scale):
        x = _x_forest(tick, scale)
        d.line(x, bottom, x, bottom + 4, id=f"forest-tick:{tick:g}", css="forest-tick",
               color="#333333")
        d.text_at_baseline(x, bottom + 16, f"{tick:g}", 10, anchor="middle")
    middle = (x0 + x1) / 2
    d.text_at_baseline(middle, bottom + 30, label, _FONT, anchor="middle")
    d.text_at_baseline(middle, bottom + 44, "positive: the costlier is better"
          + (f"; grey band: ROPE \u00b1{rope:g}" if rope > 0 else ""), _FONT, anchor="middle",
          color="#555555")
    d.text_at_baseline(middle, 40, "effect size and interval", _FONT, anchor="middle", bold=True)


def _decision_legend(d, decisions, caption, top):
    """One line per decision (its mark and meaning), then the caption lines."""
    for k, (decision, text) in enumerate(decisions.items()):
        y = top + k * _LEGEND_ROW
        _mark(d, decision, 20, y + 8)
        d.text_at_baseline(32, y + 12, text, _FONT, node_id=f"legend:{decision}", css="legend")
    for k, line in enumerate(caption):
        y = top + (len(decisions) + k) * _LEGEND_ROW
        d.text_at_baseline(10, y + 12, line, _FONT, color="#333333", css="caption")


def _mark(d, decision, x, y, node_id=None):
    """The mark of a decision at ``(x, y)``: circle or square, filled or open."""
    fill, stroke, shape = DECISION_MARKS[decision]
    css = f"estimate {decision}" if node_id else f"legend-mark {decision}"
    if shape == "square":
        d.box(x - 4, y - 4, 8, 8, fill, stroke, 1.5, node_id=node_id, css=css)
    else:
        d.disc(x, y, 4, fill, stroke, 1.5, node_id=node_id, css=css)


def _ticks(scale):
    low, high = scale[:2]
    step = 10 ** math.floor(math.log10((high - low) / 4))
    for factor in (1, 2, 5, 10):
        if (high - low) / (step * factor) <= 6:
            step *= factor
            break
    return [round(t, 12) for t in np.arange(math.ceil(low / step), math.floor(high / step) + 1)
            * step]


def _interval(d, effect, y, pair, scale, decision, ends=(False, False),
              without_bounds="rejects every shift"):
    """The interval (clipped to the axis for a one-sided one) and the decision's mark;
    ``ends``: whether its low and high ends are open (its tooltip says ``(`` / ``)``);
    ``without_bounds``: what is written beside an estimate without an interval (None:
    nothing)."""
    estimate, low, high = effect
    middle = y + _ROW / 2
    finite = [v for v in (low, high) if v is not None and not math.isnan(v)]
    if len(finite) == 2:
        x1, x2 = (_x_forest(min(max(v, scale[0]), scale[1]), scale) for v in (low, high))
        d.line(x1, middle, x2, middle, id=f"interval:{pair}", css="interval",
               color=DECISION_MARKS[decision][1], penwidth=2,
               tooltip=interval_text(low, high, *ends))
    elif without_bounds is not None and estimate is not None and math.isfinite(estimate):
        d.text_at_baseline(_x_forest(estimate, scale) + 8, middle + 4, without_bounds, 10,
              color="#333333", node_id=f"no-interval:{pair}", css="no-interval")
    if estimate is not None and math.isfinite(estimate):
        _mark(d, decision, _x_forest(estimate, scale), middle, node_id=f"estimate:{pair}")


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
    return _captioned(rows, title, caption, captions, name="effects_second_pass",
                      threshold=ranking.settings.min_probability if bayesian else None,
                      rope=ranking.settings.rope if bayesian else 0.0,
                      effect_label="median difference of mean errors (cheaper − costlier)",
                      decisions=decisions)


def _captioned(rows, title, caption, captions, **options):
    """``(DOT source, title, caption)``: the title and caption drawn only with ``captions='inside'``."""
    inside = captions == "inside"
    return (pairs_figure_source(rows, title=title if inside else "",
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


def _dataset_figure(ranking, result, captions, name):
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
                      name=name, threshold=s.min_probability if bayesian else None,
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
#: sets drawn, :func:`~multitest.figures._datasets.drawn_datasets`).
DATASET_PAIRS_LIMIT = 120
#: The second-pass figure is drawn up to this many pairs (all are in effect_sizes.csv).
SECOND_PASS_PAIRS_LIMIT = INTERVAL_PAIRS_LIMIT


def bayes_figures(ranking, captions="inside", per_dataset=True, figures_for=None):
    """``{stem: (DOT source, title, caption lines)}``: ``effects_second_pass`` (two data
    sets or more) and, with ``per_dataset``, ``dataset_effects_<data set>`` for each data
    set with pairwise tests (up to the limits): probabilities too with the Bayesian
    correlated t-test.  ``captions='none'``: the title and caption are not drawn (they
    are returned beside the source).  ``figures_for``: the data sets drawn
    (:func:`~multitest.figures._datasets.drawn_datasets`)."""

    out = {}
    L = len(ranking.algorithms)
    if ranking.second_pass is not None and L * (L - 1) // 2 <= SECOND_PASS_PAIRS_LIMIT:
        out["effects_second_pass"] = _second_pass_figure(ranking, captions)
    first = ranking.datasets[0]
    if per_dataset and first.tested and first.table.cheaper.size <= DATASET_PAIRS_LIMIT:
        for result, stem in drawn_datasets(ranking, figures_for):
            out[f"dataset_effects_{stem}"] = _dataset_figure(ranking, result, captions,
                                                             f"dataset_effects_{stem}")
    return out


def bayes_section_html(ranking, figure_html):
    """The report section "Effect sizes" (HTML), "and Bayesian probabilities" with a
    Bayesian test or second pass; ``figure_html(stem, caption)``: a figure of
    :func:`~multitest.figures._write.figures` as HTML (the empty string for one not drawn)."""

    s = ranking.settings
    text = []
    if ranking.second_pass is not None:
        text.append("Over data sets: Hodges–Lehmann median of the differences of mean errors "
                    f"(cheaper − costlier) with its Wilcoxon interval at {1 - s.alpha:.0%}")
        if ranking.second_pass.method_entry.bayesian:
            text.append(f"Bayesian signed-rank test, ROPE ±{s.rope:g}, override when "
                        f"P(costlier practically better) ≥ {s.min_probability:g} "
                        f"(Monte Carlo, seed {s.bayes_seed})")
    overall = figure_html("effects_second_pass", "Every pair over data sets (numbers in "
                          "effect_sizes.csv)")
    datasets = [(r.name, figure_html(f"dataset_effects_{stem}", f"{r.name}: every pair"))
                for r, stem in zip(ranking.datasets, dataset_stems(ranking))]
    datasets = [(name, html) for name, html in datasets if html]
    if not overall and not datasets:
        return ""
    test = ranking.pairwise_test     # None for a score matrix: no stage-1 test
    bayesian = (test is not None and test.bayesian) or (
        ranking.second_pass is not None and ranking.second_pass.method_entry.bayesian)
    heading = "Effect sizes and Bayesian probabilities" if bayesian else "Effect sizes"
    parts = [f'<section id="effect-sizes"><h2>{heading}</h2>',
             "<p>" + _e(". ".join(text)) + ".</p>" if text else "", overall]
    if datasets:
        what = (f"Bayesian correlated t-test on each data set (ROPE ±{s.rope:g}), with the "
                "posterior mean and the credible interval that decides"
                if test.bayesian
                else f"On each data set, the estimate of the {test.name} test "
                "with the shifts the test does not reject (its own interval, at the level of "
                "its decisions); every mark shows the pair's decision")
        parts.append(f"<p>{_e(what)}.</p>")
        parts += [f"<details><summary>{_e(name)}</summary>{html}</details>"
                  for name, html in datasets]
    parts.append("</section>")
    return "".join(parts)
