"""Tests of multitest._writers: write_outputs, write_figures and write_report from Python
share one output folder with the CLI (every file in the manifest; a later run replaces
them all, no stale file)."""
import os

import pytest
from cli_helpers import run_cli

import multitest
from multitest import example_path, rank
from multitest import OutputError
from multitest.outputs import read_run
from multitest.outputs._transaction import MANIFEST


def _files(folder):
    return sorted(os.path.relpath(os.path.join(root, f), folder)
                  for root, _, names in os.walk(folder) for f in names
                  if not f.startswith(".multitest"))


@pytest.fixture(scope="module")
def ranking():
    return rank(example_path(), "training_time", datasets=["optdigits", "pendigits", "vote"])


def test_python_writers_then_the_cli_write_one_folder(ranking, tmp_path):
    out = tmp_path / "out"
    multitest.write_outputs(ranking, out, latex=True)
    multitest.write_figures(ranking, out, formats=())
    multitest.write_report(ranking, out / "report.html")
    listed = read_run(out).files
    on_disk = [f for f in _files(out) if f != MANIFEST]
    assert sorted(listed) == on_disk        # every file of the three writers is listed
    assert {"result.json", "tables.tex", "cd.dot", "report.html"} <= set(listed)
    assert read_run(out).settings["command"] == "rank"    # the run the figures were added to
    # a later run of the CLI replaces them like any earlier run: nothing stale is left
    code, _, stderr = run_cli("rank", example_path(), "--costs", "training_time",
                              "--datasets", "optdigits,vote", "--out", out)
    assert code == 0, stderr
    after = read_run(out).files
    assert sorted(after) == [f for f in _files(out) if f != MANIFEST]
    assert "report.html" not in after and not (out / "report.html").exists()
    assert "tables.tex" not in after and not (out / "override_pendigits.dot").exists()


def test_figures_into_a_fresh_folder_are_a_run_of_their_own(ranking, tmp_path):
    out = tmp_path / "figures"
    multitest.write_figures(ranking, out, formats=())
    assert sorted(read_run(out).files) == [f for f in _files(out) if f != MANIFEST]
    code, _, stderr = run_cli("rank", example_path(), "--costs", "training_time",
                              "--datasets", "optdigits,vote", "--out", out)
    assert code == 0, stderr
    assert not (out / "override_pendigits.dot").exists()


def test_added_files_never_replace_a_users_file(ranking, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "report.html").write_text("my notes\n")
    with pytest.raises(OutputError, match="not a file of an earlier multitest run"):
        multitest.write_report(ranking, out / "report.html")
    assert (out / "report.html").read_text() == "my notes\n"
