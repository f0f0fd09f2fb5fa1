"""``--figures-for`` (issue 37 item 6): the per-data-set figures drawn for the data sets a
user asks for; by default every one up to 50, above 50 of them, those with overrides first
(multitest.engine._settings.figure_datasets), with a note naming the rest."""

import csv
import re

import numpy as np
import pytest

from multitest import MultitestError
from multitest.cli import main
from multitest.engine._options import FIGURES_FOR_DEFAULT, figure_datasets

ORDER = "a0,a1,a2,a3"


def _results(path, n_datasets=55, override_in=("d53",)):
    """10 folds of 4 algorithms on ``d1..dN``: each costlier algorithm 0.05 worse (no
    override), except in `override_in`, where the costliest is 0.2 better than the others
    (the three overrides a0 < a3, a1 < a3, a2 < a3)."""
    rng = np.random.default_rng(7)
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["dataset", "algorithm", "fold", "error"])
        for d in range(1, n_datasets + 1):
            name = f"d{d}"
            for a in range(4):
                mean = (0.1 if a == 3 else 0.3) if name in override_in else 0.2 + 0.05 * a
                for fold in range(10):
                    out.writerow([name, f"a{a}", fold, mean + rng.normal(0, 0.01)])
    return str(path)


def _rank(tmp_path, capsys, *options):
    data = _results(tmp_path / "results.csv")
    out = tmp_path / "out"
    status = main(["rank", data, "--order", ORDER, "--test", "kfold-t", "--out", str(out),
                   "--format", "svg", *options])
    return status, out, capsys.readouterr().err


def _drawn(out, prefix):
    return sorted(p.name[len(prefix):-4] for p in out.glob(f"{prefix}*.svg"))


def test_figures_for_default_draws_fifty_overrides_first(tmp_path, capsys):
    status, out, err = _rank(tmp_path, capsys, "--report")
    assert status == 0, err
    # 55 data sets > 50: d53 (the one with overrides) first, then d1..d49 in input order
    expected = sorted([f"d{k}" for k in range(1, 50)] + ["d53"])
    assert len(expected) == FIGURES_FOR_DEFAULT
    for prefix in ("override_", "trace_", "pareto_"):
        assert _drawn(out, prefix) == expected, prefix
    note = ("per-data-set figures drawn for 50 of 55 data sets; not drawn: d50, d51, d52, "
            "d54, d55 (--figures-for NAMES or all)")
    assert f"multitest: note: {note}" in err
    report = (out / "report.html").read_text()
    assert re.search(r'id="figures-not-drawn">Per-data-set figures drawn for 50 of 55 data '
                     r"sets; not drawn: d50, d51, d52, d54, d55 ", report)
    # every data set keeps its page (its tables: 55 data sets have pages of their own);
    # only d50's figures are missing
    pages = out / "report_datasets"
    assert 'href="report_datasets/d50.html"' in report
    assert 'id="fig-override' not in (pages / "d50.html").read_text()
    assert 'id="fig-override_d53"' in (pages / "d53.html").read_text()


def test_figures_for_names_and_all(tmp_path, capsys):
    status, out, err = _rank(tmp_path, capsys, "--figures-for", "d3,d7")
    assert status == 0, err
    for prefix in ("override_", "trace_", "pareto_"):
        assert _drawn(out, prefix) == ["d3", "d7"], prefix
    assert "drawn for 2 of 55 data sets; not drawn: d1, d2, d4," in err
    status, out, err = _rank(tmp_path, capsys, "--figures-for", "all")
    assert status == 0, err
    assert len(_drawn(out, "override_")) == 55 and "not drawn" not in err


def test_figures_for_unknown_names_exit_2(tmp_path, capsys):
    status, out, err = _rank(tmp_path, capsys, "--figures-for", "d3,nope,zz")
    assert status == 2
    assert err.strip().splitlines() == [
        "multitest: error: `figures_for` (--figures-for): not data sets of the run: nope, zz"]
    assert not out.exists()


def test_figure_datasets_selection():
    names = [f"d{k}" for k in range(1, 56)]
    hits = [k in (4, 54) for k in range(1, 56)]
    # up to 50 data sets: every one
    assert FIGURES_FOR_DEFAULT == 50
    assert figure_datasets(names[:50], hits[:50]) == tuple(range(50))
    # above: those with overrides (d4, d54) first, then d1, d2, d3, d5, ... d49
    assert figure_datasets(names, hits) == tuple(range(49)) + (53,)
    assert figure_datasets(names, hits, "ALL") == tuple(range(55))
    assert figure_datasets(names, hits, ["d7", "d3"]) == (2, 6)
    with pytest.raises(MultitestError, match="not data sets of the run: x$"):
        figure_datasets(names, hits, "d1,x")


def test_the_choice_reads_the_decisions_only(monkeypatch):
    # Which data sets have overrides comes from the decisions: the same answer as their
    # edges, without computing a statistic or a p-value (at S = 10,000 x L = 100 reading
    # the edges recomputed every row of the lazy arrays: 11 s of 28 s end to end).
    from multitest import example_results, rank
    from multitest.engine import _stage1
    from multitest.engine._stage1 import LazyRows
    from multitest.figures._datasets import drawn_datasets

    monkeypatch.setattr(_stage1, "_EAGER_TESTS", 0)    # the lazy arrays of large runs
    ranking = rank(example_results(), "training_time")
    assert isinstance(ranking.datasets[0].table.pvalue, LazyRows)
    expected = [bool(r.edges()) for r in ranking.datasets]
    assert any(expected) and not all(expected)

    def refuse(*args):
        raise AssertionError("a statistic or p-value was computed")

    monkeypatch.setattr(LazyRows, "__getitem__", refuse)
    assert [r.has_overrides for r in ranking.datasets] == expected
    assert len(drawn_datasets(ranking)) == len(ranking.datasets)
