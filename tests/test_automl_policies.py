"""The AutoML benchmark layout ranked under every missing-result policy (issue 19).

The fixture ``fixtures/automl_small.csv`` has the AutoML benchmark's result layout
(``task, framework, fold, result, metric, duration, ...``): 7 frameworks x 5 tasks x 10
folds, AUC on the binary tasks and neg_logloss on the multiclass ones (both higher is
better), and 6 failed folds (an empty result) on kc1 and vehicle.  Each policy is checked
against ranking a file of the same layout prepared by hand: ``drop`` against the complete
tasks alone, ``worst`` and ``baseline:constantpredictor`` against files imputed by hand.
"""

import json

import numpy as np
import pandas as pd
import pytest

from multitest import rank
from multitest.cli import main

from test_readers import AUTOML

OPTIONS = dict(test="corrected-t", second_pass="wilcoxon")   # 10 folds of one replication
COSTS = "column:duration"


@pytest.fixture(scope="module")
def table():
    return pd.read_csv(AUTOML, keep_default_na=False, dtype={"result": str})


def _write(frame, path):
    frame.to_csv(path, index=False)
    return str(path)


def _same(a, b):
    assert a.final_order == b.final_order
    assert [r.name for r in a.datasets] == [r.name for r in b.datasets]
    assert [r.order for r in a.datasets] == [r.order for r in b.datasets]
    for x, y in zip(a.datasets, b.datasets):
        np.testing.assert_array_equal(x.table.mean_errors, y.table.mean_errors)
    assert a.average_positions == pytest.approx(b.average_positions, abs=0)


def _failed(frame):
    return frame["result"].str.strip() == ""


def test_error_is_one_line_naming_the_policies(capsys):
    assert main(["rank", str(AUTOML), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "6 result(s) missing" in err[0]
    assert "--missing drop|worst|baseline:NAME|partial" in err[0]


def test_drop_equals_ranking_the_complete_tasks(table, tmp_path):
    failed_tasks = set(table.loc[_failed(table), "task"])
    assert failed_tasks == {"kc1", "vehicle"}
    complete = _write(table[~table["task"].isin(failed_tasks)], tmp_path / "complete.csv")
    dropped = rank(str(AUTOML), COSTS, missing="drop", **OPTIONS)
    _same(dropped, rank(complete, COSTS, **OPTIONS))
    assert dropped.missing.dropped == ("kc1", "vehicle")


@pytest.mark.parametrize("policy", ["worst", "baseline:constantpredictor"])
def test_imputation_equals_a_file_imputed_by_hand(table, tmp_path, policy):
    # Both metrics are higher-is-better scores: the worst error of a fold is its lowest
    # score among the frameworks that ran there; the baseline's is its own score.
    imputed = table.copy()
    scores = pd.to_numeric(imputed["result"], errors="coerce")
    for i in np.flatnonzero(_failed(imputed).to_numpy()):
        same_fold = (imputed["task"] == imputed.at[i, "task"]) \
            & (imputed["fold"] == imputed.at[i, "fold"])
        if policy == "worst":
            value = scores[same_fold].min()
        else:
            value = scores[same_fold & (imputed["framework"] == "constantpredictor")].iloc[0]
        imputed.at[i, "result"] = repr(float(value))
    by_hand = _write(imputed, tmp_path / "imputed.csv")
    _same(rank(str(AUTOML), COSTS, missing=policy, **OPTIONS), rank(by_hand, COSTS, **OPTIONS))


def test_partial_ranks_through_the_command_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["rank", str(AUTOML), "--missing", "partial", "--test", "corrected-t",
                 "--second-pass", "wilcoxon", "--out", str(out), "-q"]) == 0
    result = json.loads((out / "result.json").read_text())
    assert result["missing"]["policy"] == "partial"
    assert result["missing"]["n_missing"] == 6
    # Each of kc1 and vehicle orders only the frameworks with all 10 folds.
    assert len(result["datasets"]["kc1"]["order"]) == 5
    assert len(result["datasets"]["vehicle"]["order"]) == 5
    assert len(result["final_order"]) == 7


def test_a_failure_after_reading_is_one_line_and_the_note_comes_with_success(tmp_path,
                                                                             capsys):
    # The note "costs are the durations" was printed as soon as the file was read, so a
    # refusal after it (the default test needs 5x2 cv; these are 10 folds) made two lines.
    assert main(["rank", str(AUTOML), "-q", "--missing", "drop"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("multitest: error: test 'combined-5x2cv-f'")
    assert main(["rank", str(AUTOML), "-q", "--missing", "drop", "--test", "corrected-t"]) == 0
    assert capsys.readouterr().err == ("multitest: note: the AutoML benchmark layout: costs are "
                                       "the durations (--costs column:duration)\n")


def test_a_row_longer_than_the_header_is_refused(table, tmp_path, capsys):
    # pandas cut the extra field with a ParserWarning (two lines of stderr) and went on.
    lines = AUTOML.read_text().splitlines(keepends=True)
    lines[3] = lines[3].rstrip("\n") + ",extra\n"
    path = tmp_path / "ragged.csv"
    path.write_text("".join(lines))
    assert main(["rank", str(path), "-q", "--missing", "drop", "--test", "corrected-t"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"multitest: error: {path}, row 4, field ")
    assert "fields under a" in err[0]
