"""Tests of multitest.engine._latex (tables.tex, --latex): booktabs tables that compile
stand-alone with pdflatex and say the numbers of the ranking."""
import shutil
import subprocess

import numpy as np
import pytest
from cli_helpers import run_cli
from helpers import make_frame

from multitest import example_path, rank
from multitest.engine._latex import latex_escape, latex_number

#: The minimal document of the issue: only booktabs.
DOCUMENT = ("\\documentclass{article}\n"
            "\\usepackage{booktabs}\n\\begin{document}\n\\input{tables.tex}\n\\end{document}\n")


def compile_text(folder):
    """pdflatex on DOCUMENT in `folder` (holding tables.tex), then pdftotext: the text."""
    if shutil.which("pdflatex") is None or shutil.which("pdftotext") is None:
        pytest.skip("pdflatex and pdftotext are needed (make test installs texlive-latex-base, "
                    "texlive-latex-recommended and poppler-utils when root)")
    (folder / "paper.tex").write_text(DOCUMENT)
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "paper.tex"], cwd=folder, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    subprocess.run(["pdftotext", "-layout", "paper.pdf", "paper.txt"], cwd=folder, check=True,
                   timeout=60)
    return (folder / "paper.txt").read_text()


def test_cli_latex_compiles_and_names_every_algorithm_and_number(tmp_path):
    out = tmp_path / "out"
    code, _, stderr = run_cli("rank", example_path(), "--costs", "training_time",
                              "--second-pass", "wilcoxon", "--out", out, "--latex")
    assert code == 0, stderr
    ranking = rank(example_path(), "training_time", second_pass="wilcoxon")
    assert (out / "tables.tex").read_text() == ranking.to_latex()
    text = compile_text(out)
    for name in ranking.algorithms:
        assert name in text
    for dataset in ranking.results.datasets:
        assert dataset in text
    frame = ranking.to_frame()
    # the average positions and error ranks, two decimals (as in final_order.csv)
    for value in np.concatenate([frame["average_position"], frame["average_error_rank"]]):
        assert f"{value:.2f}" in text
    posthoc = ranking.posthoc_frame()
    smallest = posthoc.loc[posthoc["pvalue"] > 1e-3, "pvalue"].min()
    assert f"{smallest:.3g}" in text
    assert "Table 1" in text and "Table 3" in text


def test_latex_tables_escape_names_and_mark_significant_cells(tmp_path):
    rng = np.random.default_rng(1)
    errors = rng.normal(0.3, 0.02, size=(12, 3, 10)) + np.array([0.0, 0.05, 0.10])[:, None]
    names = ["k_nn & co", "50% tree", "svm#{rbf}"]
    ranking = rank(make_frame(errors, algorithms=names), names, second_pass="wilcoxon")
    tex = ranking.to_latex(tmp_path / "tables.tex")
    assert r"k\_nn \& co" in tex and r"50\% tree" in tex and r"svm\#\{rbf\}" in tex
    assert tex.count("\\toprule") == tex.count("\\bottomrule") == 3
    assert "\\label{tab:multitest-posthoc}" in tex and tex.count("\\caption{") == 3
    significant = ranking.posthoc_frame()["significant"].sum()
    assert significant > 0 and tex.count("\\mathbf{") == significant
    text = compile_text(tmp_path)
    for name in names:
        # OT1's \_ is a drawn rule, which pdftotext reads as a space
        assert name.replace("_", " ") in text


def test_latex_single_dataset_shows_its_pairwise_pvalues(example, tmp_path):
    ranking = rank(example, "training_time", datasets=["optdigits"])
    tex = ranking.to_latex(tmp_path / "tables.tex")
    assert "pairwise combined-5x2cv-f test on optdigits" in tex
    pvalues = ranking.datasets[0].pairwise_frame()["pvalue_adjusted"]
    assert tex.count("\\mathbf{") == int((pvalues < 0.05).sum())
    assert "optdigits" in compile_text(tmp_path)


def test_latex_escape_and_number():
    assert latex_escape("a_b^c~d\\") == r"a\_b\textasciicircum{}c\textasciitilde{}d\textbackslash{}"
    assert latex_number("3.1e-05") == r"$3.1\cdot 10^{-5}$"
    assert latex_number("<1e-300") == r"$<10^{-300}$"


def test_latex_and_markdown_without_out_are_a_one_line_error():
    from cli_helpers import assert_one_line_error

    for flag in ("--latex", "--markdown"):
        code, _, stderr = run_cli("rank", example_path(), "--costs", "training_time", flag)
        assert_one_line_error(code, stderr, flag, "--out")
