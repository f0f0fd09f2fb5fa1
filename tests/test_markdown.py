"""Tests of multitest.engine._markdown (summary.md, --markdown) and of ``python -m multitest``."""
import subprocess
import sys

import numpy as np
from cli_helpers import run_cli
from helpers import make_frame
from markdown_it import MarkdownIt
from run_cluster import ENV

from multitest import example_path, rank
from multitest.engine._markdown import markdown_escape


def _parse(text):
    """The tokens of CommonMark with GitHub's tables (markdown-it-py, a CommonMark parser)."""
    return MarkdownIt("commonmark").enable("table").parse(text)


def _cells(tokens):
    """The text of every table cell, row by row."""
    rows, row, inside = [], [], False
    for token in tokens:
        if token.type == "tr_open":
            row = []
        elif token.type in ("td_open", "th_open"):
            inside = True
        elif token.type == "inline" and inside:
            row.append("".join(c.content for c in token.children))
            inside = False
        elif token.type == "tr_close":
            rows.append(row)
    return rows


def test_cli_markdown_is_commonmark_naming_every_algorithm(tmp_path):
    out = tmp_path / "out"
    code, _, stderr = run_cli("rank", example_path(), "--costs", "training_time", "--out", out,
                              "--markdown")
    assert code == 0, stderr
    text = (out / "summary.md").read_text()
    ranking = rank(example_path(), "training_time")
    assert text == ranking.to_markdown()
    tokens = _parse(text)
    headings = [t.content for t, o in zip(tokens[1:], tokens) if o.type == "heading_open"]
    assert headings == ["multitest: final order", "Why each position", "Friedman tests",
                        "Settings", "Missing results", "Notes"]
    rows = _cells(tokens)
    assert rows[0][:2] == ["Position", "Algorithm"]
    assert [r[1] for r in rows[1:]] == list(ranking.final_order)     # the order, in order
    assert [r[2] for r in rows[1:]] == [f"{v:.2f}" for v in
                                        ranking.to_frame()["average_position"]]
    # one sentence per position, in an ordered list
    items = [t for t in tokens if t.type == "list_item_open"]
    assert sum(t.info.isdigit() for t in items) == len(ranking.final_order)
    for explanation in ranking.explanations:
        assert explanation.sentence in text
    assert "on average positions: chi2 = 42.75" in text and "rejects" in text
    assert "on average error ranks" in text


def test_markdown_names_with_markup_stay_text():
    rng = np.random.default_rng(2)
    errors = rng.normal(0.3, 0.02, size=(6, 3, 10)) + np.array([0.0, 0.05, 0.1])[:, None]
    names = ["svm|rbf", "*bold*", "<b>x</b>"]
    text = rank(make_frame(errors, algorithms=names), names).to_markdown()
    tokens = _parse(text)
    assert not any(t.type in ("html_inline", "html_block", "em_open", "strong_open")
                   for t in tokens for t in ([t] + list(t.children or [])))
    rows = _cells(tokens)
    assert sorted(r[1] for r in rows[1:]) == sorted(names)
    assert all(len(r) == 7 for r in rows)     # the | of a name is not a cell border


def test_markdown_escape():
    assert markdown_escape("a_b*c|d\ne") == "a\\_b\\*c\\|d e"


def test_python_dash_m_multitest_runs_the_cli(tmp_path):
    done = subprocess.run([sys.executable, "-m", "multitest", "--version"], env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("multitest ")
    done = subprocess.run([sys.executable, "-m", "multitest", "rank", str(example_path()),
                           "--costs", "training_time", "--datasets", "optdigits"], env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(str(rank(example_path(), "training_time",
                                           datasets=["optdigits"])))
