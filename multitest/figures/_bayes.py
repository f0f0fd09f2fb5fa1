"""Figures and report section of the Bayesian tests and the effect sizes.

One figure per table of pairs (the pairs of the second pass, or of one data set
with the Bayesian correlated t-test): a row per pair, cheaper algorithm first,
with

- a bar of the three posterior probabilities, P(cheaper practically better)
  (orange), P(practically equivalent) (grey) and P(costlier practically
  better) (blue), and dashed marks where a side reaches the threshold;
- a forest plot of the effect size (Hodges–Lehmann median difference over
  data sets, or the mean difference on one data set) with its interval, the
  zero line and the ROPE band.  Positive: the costlier is better.

The SVG is written by hand (no plotting library); computation never imports
this module.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .._files import write_atomically
from .._format import escape_html as _e

__all__ = ["pairs_figure_svg", "bayes_figures", "write_bayes_figures", "bayes_section_html"]

_ROW = 26
_TOP = 58
_LABEL = 230          # right edge of the pair labels
_BAR = (240, 640)     # probability bar, x from .. to
_FOREST = (700, 1080)
_WIDTH = 1120
COLORS = {"cheaper": "#e08214", "equivalent": "#bdbdbd", "costlier": "#2166ac"}


def pairs_figure_svg(rows, *, title, threshold=None, rope=0.0, effect_label="effect"):
    """SVG of probability bars and effect-size intervals, one row per pair.

    Parameters
    ----------
    rows : list of dict
        Keys ``a`` (cheaper), ``b`` (costlier), optional ``p`` = ``(P(a
        better), P(equivalent), P(b better))``, optional ``effect`` =
        ``(estimate, low, high)`` (None entries are skipped), optional
        ``override`` (bool).
    title : str
    threshold : float, optional
        Marks where P reaches the override threshold.
    rope : float
        Half-width of the ROPE band of the forest plot.
    effect_label : str
        Axis title of the forest plot.

    Returns
    -------
    str
        A standalone SVG document.  Every element has a ``class`` and data
        attributes (``data-pair``, ``data-p``) so that tests read it back.
    """
    height = _TOP + _ROW * len(rows) + 54
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
           f'viewBox="0 0 {_WIDTH} {height}" font-family="Helvetica,Arial,sans-serif" '
           'font-size="12">',
           f'<rect width="{_WIDTH}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">{_e(title)}</text>']
    has_p = any(r.get("p") is not None for r in rows)
    if has_p:
        out += _legend()
    scale = _effect_scale(rows, rope, _FOREST if has_p else (_BAR[0], _FOREST[1]))
    if scale is not None:
        out += _forest_axis(scale, rope, height, effect_label)
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
            out += _interval(row["effect"], y, pair, scale)
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


def _ticks(scale):
    low, high = scale[:2]
    step = 10 ** math.floor(math.log10((high - low) / 4))
    for factor in (1, 2, 5, 10):
        if (high - low) / (step * factor) <= 6:
            step *= factor
            break
    return [round(t, 12) for t in np.arange(math.ceil(low / step), math.floor(high / step) + 1)
            * step]


def _interval(effect, y, pair, scale):
    estimate, low, high = effect
    out = []
    middle = y + _ROW / 2
    if low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
        out.append(f'<line class="interval" data-pair="{_e(pair)}" '
                   f'x1="{_x_forest(low, scale):.2f}" y1="{middle:.1f}" '
                   f'x2="{_x_forest(high, scale):.2f}" y2="{middle:.1f}" '
                   'stroke="#222" stroke-width="2"/>')
    if estimate is not None and math.isfinite(estimate):
        out.append(f'<circle class="estimate" data-pair="{_e(pair)}" '
                   f'cx="{_x_forest(estimate, scale):.2f}" cy="{middle:.1f}" r="4" '
                   'fill="#b2182b"/>')
    return out


# --------------------------------------------------------------------------
# Figures of a ranking
# --------------------------------------------------------------------------


def _second_pass_figure(ranking):
    from ..engine._effects import second_pass_rows

    sp = ranking.second_pass
    bayesian = sp.method_entry.bayesian
    edges = set(sp.edges())
    rows = [{"a": r["a"], "b": r["b"],
             "p": (r["p_a_better"], r["p_equivalent"], r["p_b_better"]) if bayesian else None,
             "effect": (r["hodges_lehmann"], r["ci_low"], r["ci_high"]),
             "override": (r["a"], r["b"]) in edges}
            for r in second_pass_rows(ranking)]
    title = ("Second pass: Bayesian signed-rank test and Hodges–Lehmann differences"
             if bayesian else "Second pass: Hodges–Lehmann median differences over data sets")
    return pairs_figure_svg(rows, title=title, threshold=ranking.settings.threshold
                            if bayesian else None,
                            rope=ranking.settings.rope if bayesian else 0.0,
                            effect_label="median difference of mean errors (cheaper − costlier)")


def _dataset_figure(ranking, result):
    from ..engine._effects import pairwise_columns
    from ..stats._effect_sizes import interval_of

    columns = pairwise_columns(ranking, [result])
    bayesian = "p_costlier_better" in columns
    rows = []
    for k, pair in enumerate(result.pairs()):
        rows.append({"a": pair["a"], "b": pair["b"], "override": pair["override"],
                     "p": (columns["p_cheaper_better"][k], columns["p_equivalent"][k],
                           columns["p_costlier_better"][k]) if bayesian else None,
                     "effect": (columns["mean_difference"][k], columns["ci_low"][k],
                                columns["ci_high"][k])})
    s = ranking.settings
    interval = interval_of(ranking.pairwise_test.interval, ranking.results.design)
    title = (f"{result.name}: Bayesian correlated t-test" if bayesian else
             f"{result.name}: mean differences, {1 - s.alpha:.0%} {interval} intervals")
    return pairs_figure_svg(rows, title=title, threshold=s.threshold if bayesian else None,
                            rope=s.rope if bayesian else 0.0,
                            effect_label="mean difference of errors (cheaper − costlier)")


#: Per-data-set figures are drawn for at most this many data sets, each of at
#: most this many pairs.
DATASET_FIGURES_LIMIT = 50
DATASET_PAIRS_LIMIT = 120
#: The second-pass figure is drawn up to this many pairs (all are in effect_sizes.csv).
SECOND_PASS_PAIRS_LIMIT = 300


def bayes_figures(ranking):
    """``{stem: svg}``: ``effects_second_pass`` (two data sets or more) and
    ``dataset_effects_<data set>`` for each data set with pairwise tests (up to the
    limits): probabilities too with the Bayesian correlated t-test."""
    from ._write import dataset_stems

    out = {}
    L = len(ranking.algorithms)
    if ranking.second_pass is not None and L * (L - 1) // 2 <= SECOND_PASS_PAIRS_LIMIT:
        out["effects_second_pass"] = _second_pass_figure(ranking)
    first = ranking.datasets[0]
    if (first.tested and len(ranking.datasets) <= DATASET_FIGURES_LIMIT
            and first.table.first.size <= DATASET_PAIRS_LIMIT):
        for result, stem in zip(ranking.datasets, dataset_stems(ranking)):
            out[f"dataset_effects_{stem}"] = _dataset_figure(ranking, result)
    return out


def write_bayes_figures(ranking, directory, formats=("svg",), jobs=None, dpi=None):
    """Write :func:`bayes_figures` in every format; returns the file names written.

    The SVG as drawn here; PNG and PDF from the pinned DOT source of the same
    picture (``<stem>.dot``, :func:`~multitest.figures._svg_dot.svg_to_dot`)
    where Graphviz ``dot`` is installed.

    Parameters
    ----------
    ranking : multitest.engine.Ranking
    directory : str
    formats : sequence of {'svg', 'png', 'pdf'}
    jobs : int, optional
        Parallel ``dot`` processes.
    dpi : int, optional
        Resolution of the PNG images.

    Returns
    -------
    list of str
    """
    from ._graphviz import SvgCache, check_formats, draw_sources
    from ._svg_dot import svg_to_dot

    formats = check_formats(formats)
    svgs = bayes_figures(ranking)
    names = []
    if "svg" in formats:
        for stem, svg in svgs.items():
            write_atomically(os.path.join(directory, f"{stem}.svg"), svg)
            names.append(f"{stem}.svg")
    others = [f for f in formats if f != "svg"]
    if others:
        draw_sources(directory, {stem: svg_to_dot(svg, stem) for stem, svg in svgs.items()},
                     others, jobs, SvgCache(0), dpi)
        names += [f"{stem}.{f}" for stem in svgs for f in others
                  if os.path.exists(os.path.join(directory, f"{stem}.{f}"))]
    return names


def bayes_section_html(ranking):
    """The report section "Effect sizes" (HTML), "and Bayesian probabilities" with a
    Bayesian test or second pass."""
    from ._graphviz import inline_svg
    from ._write import dataset_stems

    figures = bayes_figures(ranking)
    if not figures:
        return ""
    s = ranking.settings
    text = []
    if ranking.second_pass is not None:
        text.append("Over data sets: Hodges–Lehmann median of the differences of mean errors "
                    f"(cheaper − costlier) with its Wilcoxon interval at {1 - s.alpha:.0%}")
        if ranking.second_pass.method_entry.bayesian:
            text.append(f"Bayesian signed-rank test, ROPE ±{s.rope:g}, override when "
                        f"P(costlier practically better) ≥ {s.threshold:g} "
                        f"(Monte Carlo, seed {s.seed})")
    bayesian = ranking.pairwise_test.bayesian or (
        ranking.second_pass is not None and ranking.second_pass.method_entry.bayesian)
    heading = "Effect sizes and Bayesian probabilities" if bayesian else "Effect sizes"
    parts = [f'<section id="effect-sizes"><h2>{heading}</h2>',
             "<p>" + _e(". ".join(text)) + ".</p>" if text else ""]
    if "effects_second_pass" in figures:
        parts.append('<figure id="fig-effects_second_pass">'
                     f'{inline_svg(figures["effects_second_pass"])}<figcaption>'
                     "Every pair over data sets (effects_second_pass.svg; numbers in "
                     "effect_sizes.csv)</figcaption></figure>")
    dataset_figures = [(r.name, f"dataset_effects_{stem}") for r, stem in
                       zip(ranking.datasets, dataset_stems(ranking))
                       if f"dataset_effects_{stem}" in figures]
    if dataset_figures:
        what = (f"Bayesian correlated t-test on each data set (ROPE ±{s.rope:g}), with the mean "
                "difference and its credible interval" if ranking.pairwise_test.bayesian
                else "Mean difference of errors on each data set with the "
                f"{1 - s.alpha:.0%} interval of the test")
        parts.append(f"<p>{_e(what)}.</p>")
        for name, stem in dataset_figures:
            parts.append(f"<details><summary>{_e(name)}</summary>"
                         f'<figure id="fig-{_e(stem)}">{inline_svg(figures[stem])}</figure>'
                         "</details>")
    parts.append("</section>")
    return "".join(parts)
