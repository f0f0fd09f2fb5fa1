"""multitest.cli: the key columns named on the command line, and no abbreviated option.

A table with its own column names (``model, task, split, score``), ranked with
``--dataset-column`` ... ``--fold-column`` (or the same keys of a ``--config`` file), gives
byte for byte the outputs of the same table with the columns renamed to the defaults
(issue 36, problem 5): the options are exactly ``load_results(dataset=, algorithm=,
replication=, fold=)``.  ``--dataset task`` was read as ``--datasets task`` (argparse's
abbreviations): every parser refuses an abbreviation.
"""

import argparse
import json

import numpy as np
import pandas as pd
import pytest

from multitest._cli_parser import build_parser
from multitest.cli import main

RENAMED = {"task": "dataset", "model": "algorithm", "repeat": "replication", "split": "fold"}
FLAGS = ["--dataset-column", "task", "--algorithm-column", "model", "--fold-column", "split",
         "--value", "score"]


def _table(replications=1, folds=10, seed=3):
    """4 tasks x 3 models; accuracies in 'score', seconds per fit in 'seconds'."""
    rng = np.random.default_rng(seed)
    rows = [(model, task, r, f, 0.7 + 0.05 * j + rng.normal(0, 0.03),
             1.0 + j + rng.uniform(0, 0.1))
            for task in ("t1", "t2", "t3", "t4") for j, model in enumerate(("knn", "tree", "svm"))
            for r in range(1, replications + 1) for f in range(1, folds + 1)]
    frame = pd.DataFrame(rows, columns=["model", "task", "repeat", "split", "score", "seconds"])
    return frame if replications > 1 else frame.drop(columns="repeat")


def _run(folder, frame, argv, monkeypatch, capsys):
    """``multitest ARGV`` in `folder` on ``results.csv`` (the same relative path in both runs,
    as the outputs record it)."""
    folder.mkdir()
    frame.to_csv(folder / "results.csv", index=False)
    monkeypatch.chdir(folder)
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def _files(out):
    """Every output file's bytes; the manifest without its run id and time."""
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    manifest = json.loads(files.pop("manifest.json"))
    for key in ("run_id", "created"):
        assert manifest.pop(key)
    return files, manifest


def test_own_column_names_give_the_outputs_of_the_renamed_file(tmp_path, monkeypatch, capsys):
    own = _table()
    assert list(own.columns) == ["model", "task", "split", "score", "seconds"]
    argv = ["rank", "results.csv", "--costs", "column:seconds", "--test", "kfold-t", "--out",
            "out", "-q"]
    summary = _run(tmp_path / "own", own, argv + FLAGS, monkeypatch, capsys)
    expected = _run(tmp_path / "renamed", own.rename(columns=RENAMED), argv, monkeypatch,
                    capsys)
    files, manifest = _files(tmp_path / "own" / "out")
    assert {"result.json", "costs.csv", "pairwise.csv", "final_order.csv"} <= set(files)
    assert (files, manifest) == _files(tmp_path / "renamed" / "out")
    assert summary.split("(ranked in")[0] == expected.split("(ranked in")[0]
    assert json.loads(files["result.json"])["datasets"].keys() == {"t1", "t2", "t3", "t4"}


def test_the_column_keys_of_a_settings_file(tmp_path, monkeypatch, capsys):
    # 5 x 2 cv, its replications in 'repeat': the default test (combined 5x2 cv F) runs.
    own = _table(replications=5, folds=2)
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "run.yaml").write_text(
        "costs: column:seconds\ndataset_column: task\nalgorithm_column: model\n"
        "replication_column: repeat\nfold_column: split\nvalue: score\n")
    argv = ["rank", "results.csv", "--out", "out", "-q"]
    monkeypatch.chdir(tmp_path)
    _run(tmp_path / "own" / "run", own, argv + ["--config", "../run.yaml"], monkeypatch,
         capsys)
    _run(tmp_path / "renamed", own.rename(columns=RENAMED),
         argv + ["--costs", "column:seconds"], monkeypatch, capsys)
    files, manifest = _files(tmp_path / "own" / "run" / "out")
    expected, expected_manifest = _files(tmp_path / "renamed" / "out")
    assert (files, manifest) == (expected, expected_manifest)
    assert json.loads(files["result.json"])["settings"]["test"] == "combined-5x2cv-f"


def test_stability_reads_the_same_columns(tmp_path, monkeypatch, capsys):
    own = _table()
    argv = ["stability", "results.csv", "--costs", "column:seconds", "--test", "kfold-t",
            "-B", "50", "--out", "out", "-q"]
    _run(tmp_path / "own", own, argv + FLAGS, monkeypatch, capsys)
    _run(tmp_path / "renamed", own.rename(columns=RENAMED), argv, monkeypatch, capsys)
    for name in ("stability.json", "stability_positions.csv"):
        assert ((tmp_path / "own" / "out" / name).read_bytes()
                == (tmp_path / "renamed" / "out" / name).read_bytes())


@pytest.mark.parametrize("flag, column, role", [
    ("--dataset-column", "data", "dataset"), ("--algorithm-column", "learner", "algorithm"),
    ("--replication-column", "rep", "replication"), ("--fold-column", "fold_id", "fold")])
def test_an_absent_column_is_one_line_listing_the_columns(tmp_path, capsys, flag, column, role):
    path = tmp_path / "results.csv"
    _table().to_csv(path, index=False)
    flags = dict(zip(FLAGS[::2], FLAGS[1::2]), **{flag: column})
    argv = ["rank", str(path), "--order", "knn,tree,svm", "--test", "kfold-t", "-q"]
    assert main(argv + [x for pair in flags.items() for x in pair]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"multitest: error: {path}, field '{column}': missing column "
                                 f"'{column}' (the {role}); columns are model, task, split, "
                                 "score, seconds\n")


def test_an_abbreviated_option_is_refused(tmp_path, capsys):
    # '--dataset task' was '--datasets task': every data set but 'task' left out, silently.
    path = tmp_path / "results.csv"
    _table().rename(columns=RENAMED).to_csv(path, index=False)
    out_dir = tmp_path / "out"
    for argv in (["--dataset", "task"], ["--dataset-col", "task"], ["--alg", "knn,tree"],
                 ["--ou", str(out_dir)]):
        with pytest.raises(SystemExit) as stop:
            main(["rank", str(path), "--order", "knn,tree,svm", "--test", "kfold-t", "-q"]
                 + argv)
        out, err = capsys.readouterr()
        assert stop.value.code == 2
        assert out == "" and err == (f"multitest: error: unrecognized arguments: "
                                     f"{' '.join(argv)} (see multitest --help)\n")
    assert not out_dir.exists()


def _parsers(parser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


@pytest.mark.parametrize("run_only", [False, True])
def test_no_parser_reads_abbreviations(run_only):
    parsers = list(_parsers(build_parser(run_only=run_only)))
    assert len(parsers) == (2 if run_only else 7)    # multitest, its commands
    assert all(p.allow_abbrev is False for p in parsers)


def test_the_automl_layout_takes_a_named_column(tmp_path, capsys):
    # The AutoML benchmark's columns (task, framework, fold) replaced the ones named:
    # '--dataset-column id' was ignored.  Its 'id' names each task (openml.org/t/N).
    from test_readers import AUTOML

    orders = {}
    for argv in ([], ["--dataset-column", "id"]):
        out = tmp_path / f"out{len(argv)}"
        assert main(["rank", str(AUTOML), "--missing", "drop", "--test", "corrected-t",
                     "--out", str(out), "-q"] + argv) == 0
        result = json.loads((out / "result.json").read_text())
        orders[len(argv)] = result["final_order"], sorted(result["datasets"])
    capsys.readouterr()
    assert orders[2][0] == orders[0][0]
    assert orders[0][1] == ["cnae-9", "credit-g", "phoneme"]
    assert orders[2][1] == ["openml.org/t/1", "openml.org/t/3", "openml.org/t/5"]
