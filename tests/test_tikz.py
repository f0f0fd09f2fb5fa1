"""multitest.figures._tikz: cd.tex and cd_errors.tex, and --captions none, through the CLI.

The TikZ pictures are compiled with pdflatex (``\\input`` into a minimal document
with tikz) and read back with pdftotext: every algorithm and every number of the
SVG diagram (the printed ranks, the critical difference) is there.
"""
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from cli_helpers import run_cli
from helpers import make_frame

from multitest import rank
from multitest.figures._tikz import cd_tikz
from multitest.figures._cd_diagrams import cd_diagrams
from multitest.figures._tikz import latex_escape

needs_latex = pytest.mark.skipif(shutil.which("pdflatex") is None
                                 or shutil.which("pdftotext") is None,
                                 reason="pdflatex or pdftotext is not installed")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
# T1: an underscore is a character that pdftotext reads (OT1 draws it as a rule)
DOCUMENT = ("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n"
            "\\usepackage[margin=1cm,landscape]{geometry}\n"
            "\\usepackage{tikz}\n\\begin{document}\n\\input{%s}\n\\end{document}\n")
_SVG = "{http://www.w3.org/2000/svg}"


def pdf_text(folder, stem):
    """Compile ``<stem>.tex`` inside a minimal document; the text of the PDF."""
    (folder / f"doc_{stem}.tex").write_text(DOCUMENT % f"{stem}.tex")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           f"doc_{stem}.tex"], cwd=folder, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    return subprocess.run(["pdftotext", f"doc_{stem}.pdf", "-"], cwd=folder,
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory):
    """Five algorithms (one with an underscore) over eight data sets."""
    rng = np.random.default_rng(2)
    means = np.array([0.0, -0.02, -0.05, -0.08, -0.12])
    errors = 0.3 + means[None, :, None] + rng.normal(0, 0.02, (8, 5, 10))
    path = tmp_path_factory.mktemp("tikz") / "results.csv"
    make_frame(errors, algorithms=["lr", "knn_5", "svm", "gb", "rf"]).to_csv(path, index=False)
    return path


def test_latex_escape_names():
    assert latex_escape("a_b & c%") == r"a\_b \& c\%"
    assert latex_escape("x{1}~^") == r"x\{1\}\textasciitilde{}\textasciicircum{}"


def test_tikz_holds_the_layout_of_the_svg(example):
    # the same labels, ranks and bars as the DOT emitter: one layout, two emitters
    r = rank(example, "training_time")
    diagram = cd_diagrams(r)["cd"]
    tex = cd_tikz(diagram)
    for label in diagram.layout.labels:
        assert f"at ({label.box[2] if label.side == 'left' else label.box[0]:.2f}," \
               f"{label.y:.2f}) {{{latex_escape(label.text)}}}" in tex
    assert tex.count("line width=4pt") == len(diagram.layout.bars)


@needs_latex
@needs_dot
def test_cli_latex_compiles_and_shows_the_numbers_of_the_svg(small_csv, tmp_path):
    out = tmp_path / "out"
    code, _, err = run_cli("rank", small_csv, "--order", "lr,knn_5,svm,gb,rf", "--second-pass",
                           "wilcoxon", "--out", out, "--format", "svg", "--latex")
    assert code == 0, err
    for stem in ("cd", "cd_errors"):
        text = pdf_text(out, stem)
        svg = ET.parse(out / f"{stem}.svg").getroot()
        labels = [t.text for g in svg.iter(f"{_SVG}g") if (g.get("id") or "").startswith("label-")
                  for t in g.iter(f"{_SVG}text")]
        assert len(labels) == 5
        flat = " ".join(text.split())
        for label in labels:
            name, number = sorted(label.split(), key=lambda w: bool(re.fullmatch(r"[\d.]+", w)))
            assert name in flat and number in flat
        title = next(t.text for t in svg.iter(f"{_SVG}text") if t.text.startswith("Average"))
        for number in re.findall(r"\d+\.\d+", title):      # alpha and the CD
            assert number in flat


@needs_dot
def test_cli_captions_none_writes_them_beside(small_csv, tmp_path):
    out = tmp_path / "out"
    code, _, err = run_cli("rank", small_csv, "--order", "lr,knn_5,svm,gb,rf", "--out", out,
                           "--format", "svg", "--report", "--captions", "none")
    assert code == 0, err
    captions = (out / "captions.md").read_text()
    for stem in ("cd", "cd_errors", "final", "pareto", "effects_second_pass"):
        assert f"## {stem}\n" in captions
    for stem in ("cd", "cd_errors", "pareto", "final"):
        texts = " ".join(t.text or "" for t in
                         ET.parse(out / f"{stem}.svg").getroot().iter(f"{_SVG}text"))
        section = captions.split(f"## {stem}\n", 1)[1].split("\n## ", 1)[0]
        lines = [line.replace("\\", "") for line in section.strip().split("\n\n")]
        assert lines and not any(line in texts for line in lines)
    report = (out / "report.html").read_text()
    assert 'class="caption-line"' in report
    assert "Average MultiTest positions, Nemenyi test" in report


def test_captions_must_be_inside_or_none(small_csv, tmp_path):
    code, _, err = run_cli("rank", small_csv, "--order", "lr,knn_5,svm,gb,rf", "--out",
                           tmp_path / "o", "--captions", "beside")
    assert code == 2 and "captions" in err
    assert len(err.strip().splitlines()) == 1
