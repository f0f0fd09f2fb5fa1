"""The HTML report (multitest.figures._report): self-contained, complete, and it opens in a
browser."""
import html
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from multitest import rank
from multitest.figures._report import write_report
from multitest.figures._datasets import dataset_stems
from multitest.figures._write import figures
from multitest.figures._report import report_html

HAS_DOT = shutil.which("dot") is not None
CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                             shutil.which("google-chrome"), "/usr/bin/chromium")
                 if p and os.path.exists(p)), None)


@pytest.fixture(scope="module")
def ranking(example):
    return rank(example, "training_time")


@pytest.fixture(scope="module")
def report(ranking, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    write_report(ranking, path)
    return path


def test_self_contained(report):
    text = report.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text and "//" not in re.sub(
        r"<pre>.*?</pre>", "", text, flags=re.S)
    assert "<script" not in text.lower() and "<link" not in text.lower()
    assert "<iframe" not in text.lower() and "@import" not in text
    # Every href is an anchor inside the page, every anchor exists.
    hrefs = re.findall(r'href="([^"]*)"', text)
    assert hrefs and all(h.startswith("#") for h in hrefs)
    ids = set(re.findall(r'id="([^"]*)"', text))
    assert {h[1:] for h in hrefs} <= ids
    assert not re.search(r"\bsrc=", text)


def test_contents(ranking, report):
    text = report.read_text(encoding="utf-8")
    # Contents first, then the final order and why in words, before any figure.
    headings = re.findall(r"<h2>(.*?)</h2>", text)
    assert headings[:2] == ["Contents", "Final order"]
    first_list = re.search(r'<ol class="final">(.*?)</ol>', text).group(1)
    assert re.findall(r"<li>(.*?)</li>", first_list) == list(ranking.final_order)
    assert text.index('id="contents"') < text.index('id="final-order"')
    why = text.index('<ul class="why">')
    assert why < text.index("<figure") and why < text.index("<svg")
    first = ranking.explanations[0]
    assert f"<li><b>{first.algorithm}</b> is 1st: {html.escape(first.reason)}</li>" in text
    for wanted in ("Second pass", "Nemenyi stage", "Friedman test and gate", "Data sets",
                   "Settings", "Notes"):
        assert wanted in headings
    # A section per data set, reachable from the index.
    for r, stem in zip(ranking.datasets, dataset_stems(ranking)):
        assert f'<section id="ds-{stem}"><h3>{r.name}</h3>' in text
        assert f'<a href="#ds-{stem}">{r.name}</a>' in text
    assert text.count("<section id=\"ds-") == len(ranking.datasets) == 38
    # Every figure, the gate decision, settings and notes.
    for stem in figures(ranking):
        assert f'id="fig-{stem}"' in text
    assert html.escape(ranking.second_pass.gate) in text
    for note in ranking.notes:
        assert html.escape(note) in text
    assert "combined-5x2cv-f" in text and "training_time" in text
    optdigits = text[text.index('id="ds-optdigits"'):]
    optdigits = optdigits[:optdigits.index("</section>")]
    assert "svr, svl, sv2, 5nn, mlp, lnp, mdt, c45" in optdigits
    assert optdigits.count('<tr class="override">') == 16


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_figures_are_inline_svg(ranking, report):
    text = report.read_text(encoding="utf-8")
    stems = list(figures(ranking))
    # the graphs, CD diagrams and significance matrix; the error-cost pictures and the
    # effect-size figures over data sets and on each of the 38 data sets
    assert len(stems) == 8 + 4 * 38
    assert len([s for s in stems if s.startswith("pareto")]) == 1 + 38
    assert len([s for s in stems if "effects_" in s]) == 1 + 38
    assert text.count("<svg") == len(stems)
    assert "<?xml" not in text and "<!DOCTYPE svg" not in text and "<pre>" not in text


def test_without_dot_embeds_dot_source(ranking, tmp_path, monkeypatch):
    small = rank(ranking.results, "training_time", datasets=["optdigits", "iris"])
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    text = report_html(small)
    # every figure is given as its DOT source, the pictures placed by hand too
    assert text.count("<svg") == 0
    assert text.count("<pre>") == len(figures(small))
    assert "Graphviz 'dot' was not found" in text
    assert html.escape(figures(small)["final"].source) in text


def test_names_are_escaped(tmp_path):
    from test_render import synthetic_ranking

    names = ["<script>alert(1)</script>", "a & b", 'q"q', "plain"]
    r = synthetic_ranking(names, [0, -0.1, -0.15, -0.2], n_datasets=3, seed=0)
    text = report_html(r)
    assert "<script" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "a &amp; b" in text


def test_atomic_write(ranking, tmp_path):
    small = rank(ranking.results, "training_time", datasets=["iris", "wine"])
    path = tmp_path / "report.html"
    path.write_text("old")
    assert write_report(small, path) == str(path)
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_single_data_set(ranking):
    one = rank(ranking.results, "training_time", datasets=["optdigits"])
    text = report_html(one)
    assert "A single data set" in text and 'id="ds-optdigits"' in text
    assert 'id="fig-cd"' not in text


# -- the report in a real browser --------------------------------------------------------------

_PROBE = """<script>
window.__errors = [];
window.addEventListener("error", function (e) {
  var t = e.target;
  window.__errors.push(t && t !== window ? "resource: " + (t.src || t.href || t.tagName)
                                         : String(e.message));
}, true);
var __consoleError = console.error;
console.error = function () { window.__errors.push("console: " + [].join.call(arguments, " "));
                              __consoleError.apply(console, arguments); };
window.addEventListener("load", function () {
  var figures = Array.prototype.map.call(document.querySelectorAll("figure"), function (f) {
    var s = f.querySelector("svg"), r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
    // The smallest text as drawn on the screen: its font size times the scale of the
    // figure (viewBox and CSS), in CSS pixels.
    var sizes = s ? Array.prototype.map.call(s.querySelectorAll("text"), function (t) {
      var m = t.getScreenCTM();
      return parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
    }) : [];
    var box = f.getBoundingClientRect();
    return {id: f.id, width: r.width, height: r.height, left: r.left, right: r.right,
            box_right: box.right,
            shapes: s ? s.querySelectorAll("path,polygon,text,ellipse,polyline").length : 0,
            texts: sizes.length, smallest: sizes.length ? Math.min.apply(null, sizes) : null,
            natural: s ? s.width.baseVal.value : 0};
  });
  var p = document.createElement("pre");
  p.id = "__probe";
  p.textContent = JSON.stringify({errors: window.__errors, figures: figures,
                                  page: document.documentElement.clientWidth,
                                  page_scroll: document.documentElement.scrollWidth,
                                  svgs: document.querySelectorAll("svg").length});
  document.body.appendChild(p);
});
</script>"""

_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]


def _chromium(args, profile):
    # The timeout only stops a hang: a loaded machine takes a minute or more to draw a page.
    return subprocess.run([CHROMIUM] + _FLAGS + [f"--user-data-dir={profile}"] + args,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs it)")
@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_report_in_headless_chromium(ranking, report, tmp_path):
    # 1. The page as a browser builds it: a probe (in a copy; the report has no
    #    script) records errors and measures every figure after the load event.
    probe = _probe(report, tmp_path, "dom")
    assert probe["errors"] == [] and probe["console"] == []
    expected = [f"fig-{stem}" for stem in figures(ranking)]
    assert sorted(f["id"] for f in probe["figures"]) == sorted(expected)
    assert probe["svgs"] == len(expected)
    for figure in probe["figures"]:
        assert figure["width"] > 50 and figure["height"] > 30 and figure["shapes"] > 5, figure
    # 2. A screenshot of the report itself, for a person to look at.
    shot = tmp_path / "report.png"
    done = _chromium([f"--screenshot={shot}", "--window-size=1280,4000", report.as_uri()],
                     tmp_path / "profile-shot")
    assert shot.exists(), done.stderr[-2000:]
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 50_000
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []


def _probe(page, tmp_path, name, window="1280,4000"):
    """Errors and figure sizes of ``page`` as headless Chromium builds it, and the time taken;
    ``console``: the lines Chromium logged from the page's console."""
    probed = page.with_name(f"probed-{page.name}")
    probed.write_text(page.read_text(encoding="utf-8").replace("<head>", "<head>" + _PROBE, 1),
                      encoding="utf-8")
    done = _chromium([f"--window-size={window}", "--dump-dom", probed.as_uri()],
                     tmp_path / f"profile-{name}")
    probed.unlink()
    found = re.search(r'<pre id="__probe">(.*?)</pre>', done.stdout, re.S)
    assert found, f"no probe output; chromium said:\n{done.stderr[-2000:]}"
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return dict(json.loads(html.unescape(found.group(1))), console=console)


@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    """40 long-named algorithms x 30 data sets through the CLI, figures and report."""
    return _long_name_report(tmp_path_factory.mktemp("big"))


def _long_name_report(tmp):
    """The report of 40 long-named algorithms x 30 data sets, written in ``tmp / "out"``."""
    from test_render_layout import long_name_results

    from multitest.cli import main

    path, names = long_name_results(tmp, S=30, L=40, seed=1)
    out = tmp / "out"
    assert main(["rank", str(path), "--order", ",".join(names), "--out", str(out),
                 "--format", "svg", "--report", "-q"]) == 0
    return out


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs it)")
@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_big_report_in_headless_chromium(big_run, tmp_path):
    report = big_run / "report.html"
    assert report.stat().st_size <= 5 * 1024 * 1024
    probe = _probe(report, tmp_path, "big")
    assert probe["errors"] == []
    ids = sorted(f["id"] for f in probe["figures"])
    assert ids == sorted(f"fig-{stem}" for stem in
                         ("final", "pareto", "second_pass", "second_pass_trace", "cd",
                          "cd_errors", "significance"))
    for figure in probe["figures"]:
        assert figure["width"] > 50 and figure["height"] > 30 and figure["shapes"] > 5, figure
    # Every data set page opens too, with its three figures, and links back.
    text = report.read_text(encoding="utf-8")
    pages = re.findall(r'href="(report_datasets/[^"]+)"', text)
    assert len(set(pages)) == 30
    page = big_run / pages[0]
    assert 'href="../report.html#datasets"' in page.read_text(encoding="utf-8")
    probe = _probe(page, tmp_path, "page")
    assert probe["errors"] == [] and probe["svgs"] == 3


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make test installs it)")
@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
@pytest.mark.parametrize("which", ["bundled", "big"])
def test_no_figure_is_wider_than_its_box(which, report, big_run, tmp_path):
    # At a 1400 px window and at a phone's (500 px: headless Chromium's narrowest) every
    # figure of the report and of a data set's page fits its box and the page: nothing
    # is clipped, nothing scrolls sideways (a figure wider than the column is scaled).
    # At 1400 px the report's texts are drawn at 9 px or more, in the bundled run and in
    # the 40 x 30 one with its long names (the CD diagrams and the error-cost pictures
    # shorten their axes to make room for the labels).
    # The screenshot is kept beside the test's files to be looked at.
    pages = [report] if which == "bundled" else [
        big_run / "report.html", sorted((big_run / "report_datasets").iterdir())[0]]
    for page in pages:
        for window in ("1400,3000", "500,3000"):
            probe = _probe(page, tmp_path, "dom", window=window)
            shown = [f for f in probe["figures"] if f["width"] > 0]
            assert len(shown) >= (5 if page.name == "report.html" else 2)
            assert probe["page_scroll"] <= probe["page"], (page.name, window)
            for figure in shown:
                assert figure["right"] <= figure["box_right"] + 0.5, (window, figure)
                assert figure["right"] <= probe["page"] and figure["left"] >= 0, figure
                if window.startswith("1400"):
                    assert figure["texts"] > 0 and figure["smallest"] >= 9.0, figure
    shot = tmp_path / "report.png"
    done = _chromium([f"--screenshot={shot}", "--window-size=1400,3000", pages[0].as_uri()],
                     tmp_path / "profile-shot")
    assert shot.read_bytes().startswith(b"\x89PNG"), done.stderr[-2000:]


_OVERLAPS = """<script>
window.addEventListener("load", function () {
  // Texts of each figure whose drawn boxes (getBBox: the real font's widths) overlap:
  // across more than 0.5 px sideways and a third of the lower box's height (Graphviz sets
  // a label's lines one font size apart, so the boxes of two lines, ascent to descent,
  // touch by a few tenths of their height while their glyphs do not).
  var out = Array.prototype.map.call(document.querySelectorAll("figure svg"), function (s) {
    var boxes = Array.prototype.map.call(s.querySelectorAll("text"), function (t) {
      var b = t.getBBox();
      return [b.x, b.y, b.x + b.width, b.y + b.height, t.textContent];
    }), bad = [];
    for (var i = 0; i < boxes.length; i++) for (var j = i + 1; j < boxes.length; j++) {
      var a = boxes[i], b = boxes[j];
      var rise = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
      var height = Math.min(a[3] - a[1], b[3] - b[1]);
      if (a[0] < b[2] - 0.5 && b[0] < a[2] - 0.5 && rise > height / 3)
        bad.push(a[4] + " / " + b[4]);
    }
    return bad;
  });
  var p = document.createElement("pre");
  p.id = "__overlaps";
  p.textContent = JSON.stringify(out);
  document.body.appendChild(p);
});
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make test installs it)")
@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_dataset_pages_in_headless_chromium(big_run, tmp_path):
    # The data set pages of the 40 x 30 report with their matrices and trace tables, all
    # drawn by Graphviz: no error, text at 9 px or more at 1400 px, no figure wider than
    # its box, and no two texts overlapping as the browser draws them (its own font:
    # DejaVu Sans here, where Helvetica and Arial are not installed).
    drawn = sorted(big_run.glob("override_*.svg")) + sorted(big_run.glob("trace_*.svg"))
    assert len(drawn) == 60 and all("Generated by graphviz" in p.read_text() for p in drawn)
    text = (big_run / "report.html").read_text(encoding="utf-8")
    pages = sorted(set(re.findall(r'href="(report_datasets/[^"]+)"', text)))
    for page in (big_run / pages[0], big_run / pages[-1]):
        probed = tmp_path / "probed.html"
        probed.write_text(page.read_text(encoding="utf-8").replace(
            "<head>", "<head>" + _PROBE + _OVERLAPS, 1), encoding="utf-8")
        done = _chromium(["--window-size=1400,3000", "--dump-dom", probed.as_uri()],
                         tmp_path / "profile-pages")
        found = re.search(r'<pre id="__probe">(.*?)</pre>', done.stdout, re.S)
        overlaps = re.search(r'<pre id="__overlaps">(.*?)</pre>', done.stdout, re.S)
        assert found and overlaps, f"no probe output; chromium said:\n{done.stderr[-2000:]}"
        probe = json.loads(html.unescape(found.group(1)))
        # the error-cost picture, the override matrix and the trace table
        assert probe["errors"] == [] and probe["svgs"] == 3
        for figure in probe["figures"]:
            assert figure["texts"] > 0 and figure["smallest"] >= 9.0, figure
            assert figure["right"] <= figure["box_right"] + 0.5, figure
        assert json.loads(html.unescape(overlaps.group(1))) == [[], [], []]


def _final_section(text):
    start = text.index('<section id="final-order">')
    return text[start:text.index("</section>", start)]


def test_report_explains_the_order(ranking, report):
    from multitest.engine import explain_order

    text = report.read_text(encoding="utf-8")
    final = _final_section(text)
    for e in explain_order(ranking):
        assert f"<td>{html.escape(e.reason)}</td>" in final
    assert "normalized training time" in final and "First on: the number of data sets" in final


def test_report_warns_when_friedman_cannot_reject(ranking):
    five = rank(ranking.results, "training_time",
                datasets=["optdigits", "iris", "wine", "zoo", "car"])
    text = report_html(five)
    assert "With 5 data sets the Friedman test cannot reject" in text
    assert "would reject from" in text


def test_long_pair_lists_are_tables(tmp_path):
    from test_render import synthetic_ranking

    names = [f"alg{i}" for i in range(14)]
    r = synthetic_ranking(names, np.linspace(0, -0.3, 14), n_datasets=20, seed=1)
    pairs = r.second_pass.significant_pairs()
    assert len(pairs) > 12
    text = report_html(r)
    section = text[text.index('id="posthoc"'):]
    assert f"{len(pairs)} pairs (table below).</p><details>" in section


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs it)")
def test_thousand_data_sets_report_stays_small(tmp_path, monkeypatch):
    # S = 1000: a page per data set, report.html small enough to open at once.
    # Without dot (PATH emptied) to keep the test quick: the structure is the same.
    from test_render import synthetic_ranking

    r = synthetic_ranking(["a", "b", "c", "d"], [0, -0.02, -0.04, -0.06], n_datasets=1000)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    path = write_report(r, tmp_path / "out" / "report.html")
    text = open(path, encoding="utf-8").read()
    assert len(text.encode()) < 1_000_000
    pages = sorted((tmp_path / "out" / "report_datasets").iterdir())
    assert len(pages) == 1000
    assert len(set(re.findall(r'href="(report_datasets/[^"]+)"', text))) == 1000
    monkeypatch.undo()
    probe = _probe(tmp_path / "out" / "report.html", tmp_path, "thousand")
    assert probe["errors"] == []


def test_report_names_positions_and_error_ranks(ranking, report):
    text = report.read_text(encoding="utf-8")
    final = _final_section(text)
    assert ("<th>position</th><th>algorithm</th><th>average position</th>"
            "<th>average error rank</th>") in final
    friedman = text[text.index('id="friedman"'):]
    fe = ranking.friedman_errors
    assert "Friedman χ² on error ranks (corrected for ties)" in friedman
    assert "Friedman χ² on positions" in friedman
    # The haberman: 5nn holds position 1 with the highest mean error; the data set
    # table shows each one's error rank (lnp 24.71: the lowest, error rank 1; 5nn: 8).
    haberman = text[text.index('id="ds-haberman"'):]
    haberman = haberman[:haberman.index("</section>")]
    assert "<th>error rank</th>" in haberman
    rows = re.findall(r"<tr><td[^>]*>(\d+)</td><td[^>]*>([^<]+)</td><td[^>]*>([^<]+)</td>"
                      r"<td[^>]*>([^<]+)</td></tr>", haberman)
    by_name = {name: (position, error, rank) for position, name, error, rank in rows}
    assert by_name["lnp"][2] == "1" and by_name["5nn"][2] == "8"
    assert fe.pvalue < 0.05


def test_inline_svg_comments_and_namespaces_anywhere():
    from multitest.figures._graphviz import inline_svg

    # dot's own output: prolog, comments, namespaces on the root element
    assert inline_svg('<?xml version="1.0"?>\n<!-- g --><svg width="1" '
                      'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/'
                      'xlink">\n<!-- a -->\n<g/></svg>\n') == '<svg width="1">\n\n<g/></svg>'
    # a namespace declared below the root is removed too; no comment: nothing else changes
    assert inline_svg('<svg xmlns="u"><g xmlns:xlink="v"><text>a &lt; b</text></g></svg>') == (
        "<svg><g><text>a &lt; b</text></g></svg>")


def test_pairwise_rows_as_the_generic_table():
    from multitest._format import format_number, format_p
    from multitest.figures._html import html_table
    from multitest.figures._report import _pair_rows

    pairs = [{"a": 'x<1 & "q"', "b": "b's", "statistic": 12.3456789, "pvalue": 3.2e-7,
              "pvalue_adjusted": 0.5, "mean_error_a": 0.25, "mean_error_b": float("nan"),
              "override": True},
             {"a": "b's", "b": "c", "statistic": -1.0, "pvalue": 0.049999, "pvalue_adjusted": 1.0,
              "mean_error_a": 1e-9, "mean_error_b": float("inf"), "override": False}]
    for adjusted in (False, True):
        keys = ["statistic", "pvalue"] + (["pvalue_adjusted"] if adjusted else []) + [
            "mean_error_a", "mean_error_b"]
        rows = [[p["a"], p["b"]] + [(format_p if "pvalue" in k else format_number)(p[k])
                                    for k in keys] + ["yes" if p["override"] else ""]
                for p in pairs]
        header = ["h"] * len(rows[0])
        expected = html_table(header, rows, ["override" if p["override"] else "" for p in pairs],
                          set(range(2, len(header) - 1)))
        columns = {key: np.array([p[key] for p in pairs],
                                 dtype=object if key in ("a", "b") else None)
                   for key in pairs[0]}
        assert html_table(header, (), body=_pair_rows(columns, adjusted)) == expected
        assert "x&lt;1 &amp; &quot;q&quot;" in expected and "<td>b&#x27;s</td>" in expected


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_report_from_figures_built_once(ranking, report, tmp_path):
    path = tmp_path / "report.html"
    write_report(ranking, path, graphs=figures(ranking))
    assert path.read_text(encoding="utf-8") == report.read_text(encoding="utf-8")


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
@pytest.mark.parametrize("datasets", [1, 4])
def test_a_score_matrix_report_says_it_was_ordered_by_value(tmp_path, datasets):
    # A score matrix (one value per data set and algorithm) with --report stopped with a
    # traceback (no stage-1 test: ranking.pairwise_test is None); with one data set the
    # final figure said "no override ...: the order is the cost order" although the order
    # is by value, and the override graph quoted an alpha no test used.
    from multitest.cli import main

    path = tmp_path / "wide.csv"
    values = np.array([[0.30, 0.10, 0.20], [0.31, 0.12, 0.22], [0.29, 0.11, 0.25],
                       [0.33, 0.14, 0.21]])[:datasets]
    path.write_text("dataset,a,b,c\n" + "".join(f"d{i},{','.join(map(str, row))}\n"
                                                for i, row in enumerate(values)))
    out = tmp_path / "out"
    assert main(["rank", str(path), "--kind", "error", "--order", "a,b,c", "--out", str(out),
                 "--report", "--format", "svg", "--quiet"]) == 0
    final = html.unescape(re.sub(r"<[^>]+>", " ", (out / "final.svg").read_text()))
    override = html.unescape((out / "override_d0.svg").read_text())
    report = html.unescape((out / "report.html").read_text())
    if datasets == 1:
        assert "ordered by value (ties by cost)" in final and "cost order" not in final
        assert "no pairwise test (a score matrix); no second pass (one data set)." in report
    else:
        assert "second pass nemenyi at alpha 0.05" in report
    assert "score-matrix input" in override and "α" not in override


def test_settings_show_only_those_that_applied(ranking, example):
    # A frequentist run: no rope, min_probability or bayes_seed, no post-hoc correction of
    # a Nemenyi pass (it has none), no control method without a control.
    from multitest.figures._report import applied_settings

    shown = applied_settings(ranking)
    assert {"rope", "min_probability", "bayes_seed", "posthoc_correction", "control_method"}.isdisjoint(shown)
    assert shown["second_pass"] == "nemenyi" and shown["alpha"] == 0.05
    bayes = rank(example, "training_time", test="bayes-correlated-t", rope=0.01,
                 second_pass="bayesian", bayes_seed=3)
    shown = applied_settings(bayes)
    assert shown["rope"] == 0.01 and shown["bayes_seed"] == 3 and "min_probability" in shown
    assert "friedman_gate" not in shown          # a Bayesian pass is not gated
    wilcoxon = applied_settings(rank(example, "training_time", second_pass="wilcoxon"))
    assert wilcoxon["posthoc_correction"] == "holm" and "rope" not in wilcoxon


def test_the_error_rule_stated_once(ranking, report):
    # The bundled accuracies are percentages: the errors are 100 - accuracy, in percentage
    # points, from the smallest to the largest error of the input (numpy's nanmin/nanmax).
    text = report.read_text(encoding="utf-8")
    assert text.count("an accuracy a is read as the error 100 - a") == 1
    low, high = np.nanmin(ranking.results.errors), np.nanmax(ranking.results.errors)
    from multitest._format import format_number

    assert (f"Here the errors run from {format_number(low)} to {format_number(high)}: "
            "percentage points") in text
    final = figures(ranking)["final"].source
    assert "errors in percentage points (100 &#8722; accuracy in percent)" in final
