"""multitest.figures at the sizes of issue 20 item 4 (a report of 1000 data sets): a page
per data set, every figure drawn by Graphviz from its own DOT file.  The thresholds are
lowered so that a run of 12 data sets takes the paths of 1000."""

import os
import re
import shutil
import subprocess

import pytest
from helpers import record_dot_runs
from test_render_layout import long_name_results

from multitest.cli import main
from multitest.figures._graphviz import dot_sources
from multitest.figures._write import figures

HAS_DOT = shutil.which("dot") is not None


def _large(monkeypatch):
    """A page per data set."""
    import multitest.figures._report as report

    monkeypatch.setattr(report, "INLINE_DATASETS_LIMIT", 5)


def _run(tmp_path, name, *extra):
    # 12 algorithms: override matrices (tables), as at 1000 x 20
    path, names = long_name_results(tmp_path, S=12, L=12, seed=12,
                                    names=[f"algo_{j}" for j in range(12)])
    out = tmp_path / name
    # (no -q: it would switch the progress bars off for the tests after these)
    assert main(["rank", str(path), "--order", ",".join(names), "--out", str(out),
                 *extra]) == 0
    return out


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_every_per_dataset_figure_has_its_dot_file_and_its_images(tmp_path, monkeypatch):
    _large(monkeypatch)
    out = _run(tmp_path, "out", "--format", "svg,png", "--report")
    names = set(os.listdir(out))
    stems = [f"{kind}_benchmark_data_set_{i}" for i in range(12) for kind in ("override", "trace")]
    for stem in stems:
        assert {f"{stem}.dot", f"{stem}.svg", f"{stem}.png"} <= names, stem
    assert not [n for n in names if n.startswith(".multitest") and n != ".multitest.lock"]
    # the report's captions name each figure's own DOT file
    page = (out / "report_datasets" / "benchmark_data_set_3.html").read_text()
    assert "(<code>override_benchmark_data_set_3.dot</code>)" in page
    assert "(<code>final.dot</code>)" in (out / "report.html").read_text()


def test_dot_files_equal_the_figures_sources(tmp_path, monkeypatch):
    # Without --format (DOT only) every source is written, byte for byte.
    from multitest import load_results, rank

    _large(monkeypatch)
    out = _run(tmp_path, "out", "--report")
    path = tmp_path / "results.csv"
    names = [f"algo_{j}" for j in range(12)]
    ranking = rank(load_results(path), names)
    expected = {s: g.source for s, g in figures(ranking).items()}
    assert dot_sources(out) == {s: expected[s] for s in dot_sources(out)}
    assert sorted(dot_sources(out)) == sorted(expected)


@pytest.mark.parametrize("second_pass, how", [("nemenyi", "significantly"),
                                              ("bayesian", "practically")])
def test_the_final_table_says_how_a_beater_is_better(tmp_path, second_pass, how):
    # Above ROW_LIMIT algorithms the final figure is a table; under a Bayesian second pass
    # its column and legend said "significantly better" of a posterior probability.
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    names = [f"alg{j:02d}" for j in range(40)]
    rows = [(f"d{s}", a, r, f, base + rng.normal(0, 0.01))
            for s in range(12) for a, base in zip(names, rng.uniform(0.1, 0.3, 40))
            for r in range(1, 6) for f in (1, 2)]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows, columns=["dataset", "algorithm", "replication", "fold", "error"]) \
        .to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["rank", str(path), "--order", ",".join(names), "--second-pass", second_pass,
                 "--out", str(out), "--quiet"]) == 0
    text = (out / "final.dot").read_text()
    assert f"beaten by (costlier, {how} better)" in text
    assert f"the second pass finds {how} better (overrides)" in text
    other = {"significantly": "practically", "practically": "significantly"}[how]
    assert f"{other} better" not in text


def test_the_final_table_of_a_score_matrix_says_it_was_ordered_by_value(tmp_path):
    # One data set of a score matrix with 20 algorithms (a table): no test decided the
    # order, yet the table had a column "beaten by (costlier, significantly better)",
    # empty, and a legend saying the data set "finds significantly better".
    names = [f"alg{j:02d}" for j in range(20)]
    path = tmp_path / "wide.csv"
    path.write_text("dataset," + ",".join(names) + "\nd0,"
                    + ",".join(f"{0.1 + 0.01 * ((7 * j) % 20):.2f}" for j in range(20)) + "\n")
    out = tmp_path / "out"
    assert main(["rank", str(path), "--kind", "error", "--order", ",".join(names),
                 "--out", str(out), "--quiet"]) == 0
    text = (out / "final.dot").read_text()
    assert "ordered by value (ties by cost)" in text
    assert "beaten by" not in text and "better" not in text
    # best first: the smallest error, alg00 (0.10), then alg03 (7 * 3 % 20 = 1: 0.11)
    order = re.findall(r"<B>(alg\d\d)</B>", text)
    assert order[:2] == ["alg00", "alg03"] and len(order) == 20


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_the_manifest_holds_every_figure_and_page_as_written(tmp_path, monkeypatch):
    # Every file is hashed once, at the commit: the manifest says each per-data-set
    # figure's and page's bytes (read_run verifies them against the files).
    from multitest.outputs import read_run

    _large(monkeypatch)
    out = _run(tmp_path, "out", "--format", "svg", "--report")
    written = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    per_dataset = {n for n in written if n.startswith(("override_", "trace_", "report_"))
                   and n.endswith((".svg", ".html"))}
    assert len(per_dataset) == 3 * 12
    run = read_run(out, verify=True)          # every file's size and SHA-256 as written
    assert per_dataset <= set(run.files)


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_each_page_inlines_its_figures_svg_files(tmp_path, monkeypatch):
    # Each data set's page inlines the text of its figures' SVG files.
    import multitest.figures._graphviz as graphviz
    from multitest.figures._graphviz import inline_svg

    _large(monkeypatch)
    cache = graphviz.SvgCache()
    monkeypatch.setattr(graphviz, "_SVG_CACHE", cache)
    out = _run(tmp_path, "out", "--format", "svg", "--report")
    pages = sorted((out / "report_datasets").glob("*.html"))
    assert len(pages) == 12
    for page in pages:
        text = page.read_text(encoding="utf-8")
        stem = page.stem
        for kind in ("override", "trace"):
            svg = (out / f"{kind}_{stem}.svg").read_text(encoding="utf-8")
            assert inline_svg(svg) in text


@pytest.mark.skipif(not HAS_DOT, reason="Graphviz 'dot' is not installed")
def test_a_second_report_draws_no_image_again(tmp_path, monkeypatch):
    # The cache keeps the SVG text drawn: once the files are moved (an output folder's
    # staging folder committed), a report written later in the same process runs no dot.
    import multitest.figures._graphviz as graphviz
    from multitest import load_results, profile_from_order, rank
    from multitest.figures._write import write_figures
    from multitest.figures._report import write_report
    from multitest.figures._graphviz import inline_svg

    _large(monkeypatch)
    monkeypatch.setattr(graphviz, "_SVG_CACHE", graphviz.SvgCache())
    path, names = long_name_results(tmp_path, S=12, L=12, seed=12,
                                    names=[f"algo_{j}" for j in range(12)])
    ranking = rank(load_results(path), profile_from_order(names))
    assert write_figures(ranking, tmp_path / "staging") is None
    os.replace(tmp_path / "staging", tmp_path / "committed")
    dots = record_dot_runs(monkeypatch)
    write_report(ranking, tmp_path / "report" / "report.html")
    assert len(dots) == 0
    for page in sorted((tmp_path / "report" / "report_datasets").glob("*.html")):
        svg = (tmp_path / "committed" / f"trace_{page.stem}.svg").read_text(encoding="utf-8")
        assert inline_svg(svg) in page.read_text(encoding="utf-8")
