"""Readers of the files users have: metric columns, AutoML benchmark files, scikit-learn.

References: the conversions are the definitions (error = 1 - AUC, -neg_logloss, ...);
every reader is checked against the long table built by hand from the same numbers.
"""

import ast
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from multitest import InputError, MultitestError, load_results, rank
from multitest.cli import main
from multitest.inputs import metric_direction, read_automl
from multitest.inputs._automl import is_automl_file
from multitest.inputs._metrics import metric_errors

FIXTURES = Path(__file__).parent / "fixtures"
AUTOML = FIXTURES / "automl_small.csv"
README = Path(__file__).resolve().parents[1] / "README.md"


def _frame(metrics, values):
    n = len(values) // 4
    return pd.DataFrame({"dataset": np.repeat([f"d{i}" for i in range(n)], 4),
                         "algorithm": ["a", "a", "b", "b"] * n, "fold": [1, 2] * (2 * n),
                         "score": values, "metric": np.repeat(metrics, 4)})


# -- metric column ---------------------------------------------------------------------

def test_mixed_auc_and_logloss_become_errors_per_data_set():
    frame = _frame(["auc", "logloss", "neg_log_loss", "r2"],
                   [0.9, 0.8, 0.7, 0.6, 0.3, 0.2, 0.5, 0.4, -0.3, -0.2, -0.5, -0.4,
                    0.5, 0.6, 0.2, 0.1])
    results = load_results(frame)
    # 1 - auc; logloss as is; -neg_log_loss; 1 - r2 (R² is at most 1)
    expected = [[[0.1, 0.2], [0.3, 0.4]], [[0.3, 0.2], [0.5, 0.4]],
                [[0.3, 0.2], [0.5, 0.4]], [[0.5, 0.4], [0.8, 0.9]]]
    np.testing.assert_allclose(results.errors, expected)
    assert "auc: higher is better, error = 1 - auc" in results.notes[0]
    assert "r2: higher is better, error = 1 - r2 (values at most 1)" in results.notes[0]
    ranking = rank(results, ["a", "b"], test="kfold-t")
    assert ranking.notes[0] == results.notes[0]   # stated in every output


def test_accuracy_in_percent_and_out_of_range():
    errors, notes = metric_errors(np.array([90.0, 80.0]), np.array(["accuracy"] * 2))
    assert errors.tolist() == [10.0, 20.0] and notes == ("accuracy: higher is better, "
                                                         "error = 100 - accuracy (values in "
                                                         "percent, within [0, 100])",)
    with pytest.raises(InputError, match="row 3: auc -0.1 is outside"):
        metric_errors(np.array([0.5, -0.1]), np.array(["auc"] * 2), row_offset=2)


def test_unknown_metric_is_refused_unless_its_direction_is_given():
    frame = _frame(["kappa"], [0.9, 0.8, 0.7, 0.6])
    with pytest.raises(InputError, match="row 0, field 'metric': metric 'kappa' has no known "
                                         "direction: say --higher-is-better kappa"):
        load_results(frame)
    assert load_results(frame, higher_is_better=["kappa"]).errors[0, 0].tolist() == [-0.9, -0.8]
    assert load_results(frame, lower_is_better="kappa,".split(",")[:1]).errors[0, 0, 0] == 0.9
    assert metric_direction("error", higher_is_better=["error"]).higher_is_better


def test_a_data_set_with_two_metrics_and_a_kind_are_refused():
    frame = _frame(["auc"], [0.9, 0.8, 0.7, 0.6])
    frame.loc[3, "metric"] = "logloss"
    with pytest.raises(InputError, match="row 3, field 'metric': data set mixes metrics"):
        load_results(frame)
    with pytest.raises(MultitestError, match="`kind` 'accuracy'"):
        load_results(_frame(["auc"], [0.9, 0.8, 0.7, 0.6]), kind="accuracy")


def _tabarena(metric_error):
    """TabArena's and TabRepo's long layout: the error of each fold beside its metric's name
    (1 - AUC for roc_auc, the loss itself for log_loss and rmse), and the training time."""
    return pd.DataFrame({"dataset": np.repeat(["credit", "house", "wine"], 4),
                         "fold": [0, 1] * 6, "method": ["a", "a", "b", "b"] * 3,
                         "metric_error": metric_error,
                         "metric": np.repeat(["roc_auc", "rmse", "log_loss"], 4),
                         "time_train_s": np.arange(12, dtype=float)})


def test_a_column_of_errors_beside_its_metric_is_kept_as_it_is():
    # TabArena's metric_error is 1 - AUC already: turned by the direction of roc_auc it
    # would become AUC again, and the AUC data sets would be ranked upside down.
    values = [0.10, 0.12, 0.30, 0.28, 3.5, 3.7, 2.9, 3.1, 0.40, 0.45, 0.60, 0.62]
    results = load_results(_tabarena(values), algorithm="method")
    np.testing.assert_array_equal(results.errors.ravel(), values)   # a as is, then b
    assert results.notes[0] == ("the values of column 'metric_error' are errors already (its "
                                "name), kept as they are; column 'metric' names their metric: "
                                "roc_auc; rmse; log_loss")
    ranking = rank(results, ["b", "a"], test="kfold-t")
    assert [r.mean_errors["a"] < r.mean_errors["b"] for r in ranking.datasets] == [
        True, False, True]                                               # the errors given
    # A column of any other name says so with kind='error'; with the default, its metric
    # decides (1 - roc_auc), as for the AutoML benchmark's result column.
    renamed = _tabarena(values).rename(columns={"metric_error": "result"})
    kept = load_results(renamed, algorithm="method", kind="error")
    np.testing.assert_array_equal(kept.errors.ravel(), values)
    assert "(kind 'error')" in kept.notes[0]
    turned = load_results(renamed, algorithm="method")
    np.testing.assert_allclose(turned.errors[0].ravel(), [0.9, 0.88, 0.7, 0.72])
    # Still one metric per data set, and no other kind beside a metric column.
    mixed = _tabarena(values)
    mixed.loc[3, "metric"] = "rmse"
    with pytest.raises(InputError, match="row 3, field 'metric': data set mixes metrics"):
        load_results(mixed, algorithm="method")
    with pytest.raises(MultitestError, match="`kind` 'accuracy'.*or say 'error'"):
        load_results(_tabarena(values), algorithm="method", kind="accuracy")


def test_a_tabrepo_file_ranks_from_the_command_line_by_its_training_times(tmp_path, capsys):
    # TabRepo's and TabArena's long layout names the algorithms 'framework' (or 'method')
    # beside metric_error and metric; the costs come from the same column resolution.
    frame = _tabarena([0.20, 0.22, 0.15, 0.16, 3.1, 3.0, 3.4, 3.5, 0.5, 0.6, 0.7, 0.8])
    path = tmp_path / "tabrepo.csv"
    frame.rename(columns={"method": "framework"}).assign(
        metric_error_val=0.0, problem_type="binary").to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["rank", str(path), "--costs", "column:time_train_s", "--test", "kfold-t",
                 "--out", str(out), "-q"]) == 0
    printed = capsys.readouterr().out
    assert ("column 'framework' names the algorithms (TabRepo's and TabArena's layout, with "
            "no column 'algorithm')") in printed
    assert "the values of column 'metric_error' are errors already" in printed
    costs = pd.read_csv(out / "costs.csv").set_index("dataset")
    # mean training time over the two folds: a 0.5, 4.5, 8.5; b 2.5, 6.5, 10.5
    assert costs.loc["credit"].tolist() == [0.5, 2.5] and costs.loc["wine"].tolist() == [8.5, 10.5]
    means = pd.read_csv(out / "mean_errors.csv").set_index("dataset")
    np.testing.assert_allclose(means.loc["credit"].to_numpy(), [0.21, 0.155])
    # A column 'algorithm' is used when there is one; a file naming both is not guessed at.
    both = frame.assign(framework=frame["method"])
    with pytest.raises(InputError, match="missing column 'algorithm'"):
        load_results(both)


def test_cli_higher_is_better(tmp_path, capsys):
    path = tmp_path / "r.csv"
    _frame(["kappa", "kappa"], [0.9, 0.8, 0.7, 0.6, 0.5, 0.6, 0.7, 0.8]).to_csv(path,
                                                                             index=False)
    assert main(["rank", str(path), "--order", "a,b", "--test", "kfold-t"]) == 2
    assert "--higher-is-better kappa" in capsys.readouterr().err
    assert main(["rank", str(path), "--order", "a,b", "--test", "kfold-t",
                 "--higher-is-better", "kappa"]) == 0
    assert "kappa: higher is better, error = -kappa" in capsys.readouterr().out


# -- AutoML benchmark layout -------------------------------------------------------------

def _by_hand(frame):
    """The long table of the AutoML file built by hand: errors from the definitions."""
    result = frame["result"].astype(float)
    error = np.where(frame["metric"] == "auc", 1 - result, -result)
    return pd.DataFrame({"dataset": frame["task"], "algorithm": frame["framework"],
                         "fold": frame["fold"], "error": error, "duration": frame["duration"]})


def test_automl_layout_is_recognised_and_failed_folds_are_missing_values():
    assert is_automl_file(AUTOML) and not is_automl_file(FIXTURES / "make_automl_small.py")
    with pytest.raises(InputError, match=r"automl_small.csv, row \d+, field 'result': missing "
                                         r"value \(NaN or empty\); 6 result\(s\) missing in all"):
        load_results(AUTOML)
    frame = read_automl(AUTOML)
    assert (frame["result"] == "").sum() == 6 and set(frame["metric"]) == {"auc", "neg_logloss"}
    assert frame.groupby("dataset")["algorithm"].nunique().eq(7).all()


def test_automl_complete_tasks_rank_as_the_table_built_by_hand(tmp_path):
    raw = pd.read_csv(AUTOML, dtype=str, keep_default_na=False)
    complete = raw[~raw["task"].isin(["kc1", "vehicle"])]   # the tasks without failures
    path = tmp_path / "complete.csv"
    complete.to_csv(path, index=False)
    ranking = rank(str(path), "column:duration", test="kfold-t")
    hand = _by_hand(complete)
    expected = rank(hand, "column:duration", test="kfold-t")
    np.testing.assert_allclose(ranking.results.errors, expected.results.errors, atol=1e-12)
    assert ranking.final_order == expected.final_order
    assert ranking.notes[1:] == expected.notes


def test_automl_type_column_gives_the_metric(tmp_path):
    raw = pd.read_csv(AUTOML, dtype=str, keep_default_na=False).drop(columns="metric")
    raw.to_csv(tmp_path / "typed.csv", index=False)
    assert set(read_automl(tmp_path / "typed.csv")["metric"]) == {"auc", "neg_logloss"}


def test_cli_ranks_an_automl_file_with_no_flags(tmp_path, capsys):
    raw = pd.read_csv(AUTOML, dtype=str, keep_default_na=False)
    raw[~raw["task"].isin(["kc1", "vehicle"])].to_csv(tmp_path / "r.csv", index=False)
    assert main(["rank", str(tmp_path / "r.csv"), "--test", "kfold-t"]) == 0
    captured = capsys.readouterr()
    assert "costs duration" in captured.out and "column:duration" in captured.err
    assert main(["rank", str(AUTOML), "--test", "kfold-t"]) == 2   # policy 'error'
    assert "missing value" in capsys.readouterr().err


# -- scikit-learn ----------------------------------------------------------------------

def _readme_example(marker):
    """Run the README's Python block calling `marker`; its namespace, and its user lines."""
    text = README.read_text(encoding="utf-8")
    code = next(block for block in re.findall(r"```python\n(.*?)```", text, re.S)
                if marker in block)
    statements = [node for node in ast.parse(code).body
                  if not isinstance(node, (ast.Import, ast.ImportFrom))]
    namespace = {}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace, len(statements)


def _readme_ranking(marker, capsys):
    """The README's example calling `marker` (5 user lines at most, the order printed):
    its namespace."""
    pytest.importorskip("sklearn")
    namespace, lines = _readme_example(marker)
    assert lines <= 5
    assert str(namespace["ranking"].final_order) in capsys.readouterr().out
    return namespace


def _ranked_by_hand(ranking, rows, test="kfold-t"):
    """`rows` ranked as ``rank`` ranks a long table; the same errors as `ranking`."""
    expected = rank(pd.DataFrame(rows), "column:fit_time", test=test)
    np.testing.assert_allclose(ranking.results.errors, expected.results.errors)
    return expected


def test_readme_grid_search_matches_the_long_table_built_by_hand(capsys):
    namespace = _readme_ranking("from_cv_results(", capsys)
    ranking, search = namespace["ranking"], namespace["search"]

    cv = search.cv_results_   # 5x2 cv: split i is replication i // 2 + 1, fold i % 2 + 1
    rows = [{"dataset": "iris", "algorithm": f"max_depth={p['max_depth']}",
             "replication": i // 2 + 1, "fold": i % 2 + 1,
             "error": 1 - cv[f"split{i}_test_score"][c], "fit_time": cv["mean_fit_time"][c],
             "fit_time_std": cv["std_fit_time"][c]}
            for c, p in enumerate(cv["params"]) for i in range(10)]
    assert ranking.settings.test == "combined-5x2cv-f" and ranking.results.design.is_5x2
    expected = _ranked_by_hand(ranking, rows, test="combined-5x2cv-f")
    assert ranking.final_order == expected.final_order
    assert ranking.profile.noise == expected.profile.noise   # std_fit_time is the noise
    assert ranking.profile.noise["iris"]["max_depth=1"] == pytest.approx(cv["std_fit_time"][0])
    assert ranking.notes[0].endswith("accuracy: higher is better, error = 1 - accuracy "
                                     "(values within [0, 1])")


def test_readme_cross_validate_study_matches_the_table_by_hand(capsys):
    namespace = _readme_ranking("from_cross_validate(", capsys)
    ranking, study = namespace["ranking"], namespace["study"]

    rows = [{"dataset": d, "algorithm": m, "fold": i + 1, "accuracy": out["test_score"][i],
             "fit_time": out["fit_time"][i]}
            for d, per in study.items() for m, out in per.items() for i in range(10)]
    expected = _ranked_by_hand(ranking, rows)
    assert ranking.results.datasets == ("iris", "wine", "breast_cancer")
    assert ranking.final_order == expected.final_order
    noise = pd.DataFrame(rows).groupby(["dataset", "algorithm"])["fit_time"].std(ddof=0)
    assert ranking.profile.noise["wine"]["knn"] == pytest.approx(noise["wine", "knn"])


def test_a_saved_search_table_ranks_the_same_from_the_command_line(tmp_path, capsys):
    from multitest import from_cv_results

    cv_results = {"params": [{"C": c} for c in (1, 10, 100)],
                  **{f"split{i}_test_score": [0.80 + 0.01 * i, 0.85 + 0.01 * i, 0.83 + 0.01 * i]
                     for i in range(5)},
                  "mean_fit_time": [0.10, 0.11, 0.50], "std_fit_time": [0.02, 0.02, 0.05]}
    frame = from_cv_results(cv_results, "d", metric="accuracy")
    frame.to_csv(tmp_path / "search.csv", index=False)
    ranking = rank(frame, "column:fit_time", test="kfold-t")
    assert ranking.dataset("d").cost_ties == (("C=1", "C=10"),)   # 0.10 vs 0.11: within 0.02
    assert main(["rank", str(tmp_path / "search.csv"), "--costs", "column:fit_time",
                 "--test", "kfold-t"]) == 0
    out = capsys.readouterr().out
    table = [line.split()[1] for line in out.splitlines() if line[:1].isdigit()
             and line.split()[1].startswith("C=")]
    assert tuple(table) == ranking.final_order and "d: C=1 = C=10" in out


def test_reader_errors():
    from multitest import from_cross_validate, from_cv_results

    with pytest.raises(MultitestError, match="cv_results_"):
        from_cv_results(object())
    two = {"params": [{"a": 1}, {"a": 2}], "split0_test_acc": [1, 2], "split0_test_f1": [1, 2]}
    with pytest.raises(MultitestError, match="several metrics .*name one with `metric`"):
        from_cv_results(two)
    assert set(from_cv_results(two, metric="f1")["metric"]) == {"f1"}
    assert list(from_cv_results([two, two], metric="f1")["dataset"].unique()) == [
        "dataset 1", "dataset 2"]
    one = {"nb": {"test_score": [0.9]}, "svm": {"test_score": [0.8]}}
    with pytest.raises(MultitestError, match="unnamed scores .*metric='accuracy'"):
        from_cross_validate(one)   # never -score: the metric is named
    errors = load_results(from_cross_validate(one, metric="accuracy")).errors.ravel()
    np.testing.assert_allclose(errors, [0.1, 0.2])
    with pytest.raises(MultitestError, match="at least 2 algorithms"):
        from_cross_validate({"nb": {"test_score": [1.0]}})


@pytest.mark.parametrize("separator, words", [(";", "';'"), ("\t", "tabs")])
def test_a_file_of_another_separator_is_named_as_such(tmp_path, separator, words):
    # A spreadsheet's export with ';' (decimal-comma locales) or tabs: one header column.
    path = tmp_path / "r.csv"
    path.write_text(separator.join(["dataset", "algorithm", "fold", "error"]) + "\n"
                    + separator.join(["d1", "a", "1", "0.1"]) + "\n")
    with pytest.raises(InputError, match=f"separated by {words}; write it with commas"):
        load_results(path)


WIDE = "dataset,svm,knn,c45\niris,0.95,0.94,0.93\nwine,0.97,0.96,0.92\nglass,0.70,0.72,0.68\n"


def test_a_wide_table_is_a_score_matrix_once_its_values_are_named(tmp_path):
    # A published table: a row per data set, a column per algorithm. Reference: the long
    # table pandas.melt makes of it, read as a score matrix.
    path = tmp_path / "wide.csv"
    path.write_text(WIDE)
    with pytest.raises(InputError, match=r"a column per algorithm \(svm, knn, c45\)\? .*"
                                         "--kind error, accuracy or accuracy-percent"):
        load_results(path)
    wide = pd.read_csv(path)
    long = wide.melt(id_vars="dataset", var_name="algorithm", value_name="accuracy")
    for source in (path, wide):
        got = load_results(source, kind="accuracy")
        want = load_results(long)
        assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)
        np.testing.assert_array_equal(got.errors, want.errors)
    assert got.errors[0, 0, 0] == 1 - 0.95


@pytest.mark.parametrize("row, text, message, field", [
    (3, "wine,0.97,,0.92", "missing value", "knn"),
    (3, "wine,0.97,abc,0.92", "not a finite number: 'abc'", "knn"),
    (4, "iris,0.1,0.2,0.3", "data set iris has a second row (also at row 2)", "dataset"),
    (3, ",0.97,0.96,0.92", "empty dataset name", "dataset"),
    # Cells as tables print them: each gets what to write instead.
    (3, "wine,97%,0.96,0.92", "not a finite number: '97%' (a percentage sign: write the "
                              "number alone; accuracies in percent are --kind "
                              "accuracy-percent)", "svm"),
    (3, "wine,0.97 ± 0.01,0.96,0.92", "not a finite number: '0.97 ± 0.01' (a mean and its "
                                      "deviation: write one number per cell", "svm"),
    (3, "wine,0.97,0.96†,0.92", "not a finite number: '0.96†' (a mark of the table", "knn"),
    # The rows a published table adds below its data sets would be ranked as data sets.
    (4, "Average,0.87,0.87,0.84", "'Average' looks like a summary or a note of a published "
                                  "table, not a data set", "dataset"),
    (4, "Avg. rank:,1.7,1.7,2.7", "'Avg. rank:' looks like a summary", "dataset"),
    (4, "* p < 0.05,,,", "'* p < 0.05' looks like a summary or a note", "dataset")])
def test_a_bad_cell_of_a_wide_table_is_named_by_its_row_and_column(tmp_path, row, text,
                                                                  message, field):
    lines = WIDE.splitlines()
    lines[row - 1] = text
    path = tmp_path / "wide.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=re.escape(message)) as error:
        load_results(path, kind="error")
    assert (error.value.row, error.value.field) == (row, field)


@pytest.mark.parametrize("header", ["Dataset", "data set", "DATA_SET"])
def test_a_key_column_spelt_otherwise_is_named_in_the_error(tmp_path, header):
    path = tmp_path / "wide.csv"
    path.write_text(WIDE.replace("dataset", header, 1))
    with pytest.raises(InputError, match=re.escape(f"missing column 'dataset' (the dataset); "
                                                   f"columns are {header}, svm, knn, c45 "
                                                   f"('{header}' is spelt otherwise: rename "
                                                   "it 'dataset')")):
        load_results(path, kind="accuracy")


def test_a_wide_table_with_a_missing_cell_is_ranked_by_a_missing_policy(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(WIDE.replace("wine,0.97,0.96,0.92", "wine,0.97,,0.92"))
    results = load_results(path, kind="accuracy", allow_missing=True)
    assert np.isnan(results.errors[1, 1, 0]) and np.isfinite(results.errors).sum() == 8


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("extra", [[], ["--workers", "2"]])
def test_a_pipe_or_a_device_is_refused_at_once(tmp_path, kind, extra):
    # A FIFO nobody writes to blocked the reader for ever; /dev/zero grew it to gigabytes
    # (no line end).  Neither can be read twice, as the readers do: one line, exit 2.
    import os
    import subprocess
    import sys

    from run_cluster import ENV

    if kind == "fifo":
        path = str(tmp_path / "results.csv")
        os.mkfifo(path)
    else:
        path = "/dev/zero"
    done = subprocess.run([sys.executable, "-m", "multitest.cli", "rank", path, "--order",
                           "a,b", "--out", str(tmp_path / "out"), *extra], env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (2, f"multitest: error: {path}: not a regular "
                                              "file (a pipe, a device or a socket): save the "
                                              "results in a file and give its path\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("options, message", [
    ({"value": "fold"}, "`value`: column 'fold' is already the fold column; name another column"),
    ({"value": "dataset"}, "`value`: column 'dataset' is already the dataset column"),
    ({"algorithm": "dataset"}, "`algorithm`: column 'dataset' is already the dataset column"),
])
def test_a_column_named_for_two_roles_is_refused(tmp_path, options, message):
    # --value fold was a KeyError traceback (the fold numbers taken as the errors).
    path = tmp_path / "r.csv"
    path.write_text("dataset,algorithm,fold,error\nd,a,1,0.1\nd,a,2,0.2\nd,b,1,0.3\nd,b,2,0.4\n")
    with pytest.raises(MultitestError, match=re.escape(message)):
        load_results(path, **options)
