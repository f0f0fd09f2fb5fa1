"""Metric domains and directions (multitest.inputs._metrics, _scales) and the sign of the
AutoML benchmark's files without a metric column (multitest.inputs._automl).

References: the errors are the definitions (error = 1 - AUC, the log-loss as it is,
-neg_logloss, 1 - R²), computed by hand in each test from the numbers written in the
fixtures (tests/fixtures/make_automl_signs.py).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from multitest import InputError, load_results
from multitest.cli import main
from multitest.inputs import metric_direction
from multitest.inputs._metrics import METRIC_DIRECTIONS, metric_errors

FIXTURES = Path(__file__).parent / "fixtures"
ALGORITHMS = ("constantpredictor", "RandomForest", "AutoGluon")
#: Errors by hand (make_automl_signs.py's numbers): credit-g 1 - AUC, vehicle the log-loss.
HAND = {"credit-g": {"constantpredictor": [0.50, 0.50, 0.50, 0.50],
                     "RandomForest": [0.20, 0.18, 0.22, 0.16],
                     "AutoGluon": [0.10, 0.12, 0.08, 0.14]},
        "vehicle": {"constantpredictor": [1.38, 1.39, 1.37, 1.40],
                    "RandomForest": [0.50, 0.46, 0.54, 0.42],
                    "AutoGluon": [0.40, 0.36, 0.44, 0.32]}}
HAND_ERRORS = np.array([[HAND[d][a] for a in ALGORITHMS] for d in HAND])


# -- the table -------------------------------------------------------------------------

@pytest.mark.parametrize("name, domain, errors", [
    # name, its domain, the error of its values (0.25, 0.75) or (-0.25, -0.75)
    ("auc", (0.0, 1.0), [0.75, 0.25]), ("roc_auc", (0.0, 1.0), [0.75, 0.25]),
    ("accuracy", (0.0, 1.0), [0.75, 0.25]), ("balanced_accuracy", (0.0, 1.0), [0.75, 0.25]),
    ("f1_macro", (0.0, 1.0), [0.75, 0.25]), ("r2", (-np.inf, 1.0), [0.75, 0.25]),
    ("logloss", (0.0, np.inf), [0.25, 0.75]), ("log_loss", (0.0, np.inf), [0.25, 0.75]),
    ("rmse", (0.0, np.inf), [0.25, 0.75]), ("mae", (0.0, np.inf), [0.25, 0.75]),
    ("mse", (0.0, np.inf), [0.25, 0.75]), ("metric_error", (0.0, np.inf), [0.25, 0.75]),
    ("neg_log_loss", (-np.inf, 0.0), [0.25, 0.75]), ("neg_rmse", (-np.inf, 0.0), [0.25, 0.75]),
])
def test_each_metric_has_its_domain_and_error_rule(name, domain, errors):
    direction = metric_direction(name)
    assert direction.domain() == domain
    values = np.array([-0.25, -0.75]) if name.startswith("neg_") else np.array([0.25, 0.75])
    got, notes = metric_errors(values, np.array([name] * 2))
    np.testing.assert_allclose(got, errors)
    assert notes[0].startswith(f"{name}: ")
    # every error a metric's values become is at least 0
    assert direction.error_domain()[0] >= 0


def test_r2_becomes_one_minus_r2_and_is_at_most_one():
    # scikit-learn's default score of a regressor: error = 1 - R² (never negative)
    errors, notes = metric_errors(np.array([0.9, -0.5]), np.array(["r2", "r2"]))
    np.testing.assert_allclose(errors, [0.1, 1.5])
    assert notes == ("r2: higher is better, error = 1 - r2 (values at most 1)",)
    with pytest.raises(InputError, match=r"^src, row 3, field 'score': r2 1.2 is outside its "
                                         r"domain: at most 1$"):
        metric_errors(np.array([0.9, 1.2]), np.array(["r2", "r2"]), source="src", row_offset=2,
                      value_field="score")
    assert METRIC_DIRECTIONS["accuracy"].error_domain() == (0.0, 1.0)


# -- a value outside its metric's domain: one line naming file, row, field, metric, bound --

def _edited(tmp_path, name, rows, text):
    """Fixture `name` with `text` in the ``result`` of `rows` (positions), as results.csv."""
    frame = pd.read_csv(FIXTURES / name, dtype=str, keep_default_na=False)
    frame.loc[rows, "result"] = text
    frame.to_csv(tmp_path / "results.csv", index=False)
    return tmp_path / "results.csv"


def test_a_neg_logloss_row_holding_a_positive_value_is_refused(tmp_path):
    # vehicle, RandomForest, fold 1: -0.46 in the file
    path = _edited(tmp_path, "automl_newer.csv", 13, "0.46")
    # line 15 of the file (header = line 1); today read as an error of -0.46
    with pytest.raises(InputError, match=r"results.csv, row 15, field 'result': neg_logloss 0.46 "
                                         r"is outside its domain: at most 0 \(a negated loss"):
        load_results(path)


def test_one_auc_above_one_is_refused_not_read_as_percent(tmp_path):
    # credit-g, RandomForest, fold 1 (0.82 in the file)
    path = _edited(tmp_path, "automl_newer.csv", 5, "1.7")
    with pytest.raises(InputError, match=r"row 7, field 'result': auc 1.7 is outside \[0, 1\], "
                                         r"the scale of the other 11 value\(s\) of data set "
                                         r"'credit-g' \(fractions\)"):
        load_results(path)
    path = _edited(tmp_path, "automl_newer.csv", 5, "170")     # outside every scale
    with pytest.raises(InputError, match=r"row 7, field 'result': auc 170 is outside its domain: "
                                         r"within \[0, 1\] \(or, in percent, within \[0, 100\]\)"):
        load_results(path)


def _accuracies(percent_on):
    """Two data sets of accuracies (a metric column), those of `percent_on` in percent."""
    values = [0.81, 0.83, 0.71, 0.73, 0.91, 0.93, 0.61, 0.63]
    datasets = np.repeat(["iris", "wine"], 4)
    scaled = [v * (100 if d == percent_on else 1) for v, d in zip(values, datasets)]
    return pd.DataFrame({"dataset": datasets, "algorithm": ["a", "a", "b", "b"] * 2,
                         "fold": [1, 2] * 4, "score": scaled, "metric": "accuracy"})


def test_fractions_and_percentages_in_one_file_are_refused_naming_the_two_data_sets():
    # with a metric column (the layout of from_cross_validate): today passes silently
    with pytest.raises(InputError, match=r"^<DataFrame>, row 4, field 'score': accuracy is in "
                                         r"fractions on data set 'iris' \(row 0: 0.81\) and in "
                                         r"percent on data set 'wine' \(row 4: 91\)"):
        load_results(_accuracies("wine"))
    # without one (a column named accuracy): today a warning
    plain = _accuracies("wine").drop(columns="metric").rename(columns={"score": "accuracy"})
    with pytest.raises(InputError, match=r"accuracy is in fractions on data set 'iris' .* in "
                                         r"percent on data set 'wine'"):
        load_results(plain)
    # one scale: read from the whole column, stated in a note; errors 100 - accuracy
    both = _accuracies("wine")
    both.loc[:3, "score"] *= 100
    results = load_results(both)
    np.testing.assert_allclose(results.errors[1], [[9, 7], [39, 37]])
    assert "accuracy: higher is better, error = 100 - accuracy (values in percent, within " \
           "[0, 100])" in results.notes[0]


def test_a_fraction_among_percentages_of_one_data_set_is_named():
    frame = _accuracies(None)
    frame["score"] *= 100
    frame.loc[2, "score"] = 0.71          # one fraction among percentages
    with pytest.raises(InputError, match=r"row 2, field 'score': accuracy 0.71 is a fraction "
                                         r"among percentages \(the other 3 value\(s\) of data "
                                         r"set 'iris' reach 83\)"):
        load_results(frame)


def _tabarena(metric_error):
    return pd.DataFrame({"dataset": np.repeat(["d1", "d2"], 4),
                         "framework": ["a", "a", "b", "b"] * 2, "fold": [0, 1] * 4,
                         "metric_error": metric_error,
                         "metric": np.repeat(["roc_auc", "rmse"], 4)})


@pytest.mark.parametrize("value, message", [
    (-0.2, r"row 1, field 'metric_error': metric_error of roc_auc -0.2 is outside its domain: "
           r"within \[0, 1\]"),
    (1.4, r"row 1, field 'metric_error': metric_error of roc_auc 1.4 is outside its domain: "
          r"within \[0, 1\]"),
])
def test_a_metric_error_out_of_range_is_refused(value, message):
    # TabArena's metric_error of roc_auc is 1 - AUC: within [0, 1]; an rmse at least 0
    errors = [0.1, value, 0.3, 0.2, 1.5, 2.5, 3.0, 2.0]
    with pytest.raises(InputError, match=message):
        load_results(_tabarena(errors))
    negative = [0.1, 0.2, 0.3, 0.2, 1.5, -2.5, 3.0, 2.0]
    with pytest.raises(InputError, match=r"row 5, field 'metric_error': metric_error of rmse "
                                         r"-2.5 is outside its domain: at least 0"):
        load_results(_tabarena(negative))


def test_a_column_of_errors_is_never_negative_unless_declared_signed():
    # an unknown metric (its errors may be anything) in a column named as errors: at least 0
    frame = pd.DataFrame({"dataset": "d", "algorithm": ["a", "a", "b", "b"], "fold": [1, 2] * 2,
                          "error": [0.1, -0.2, 0.3, 0.4], "metric": "kappa_loss"})
    with pytest.raises(InputError, match=r"row 1, field 'error': error of kappa_loss -0.2 is "
                                         r"outside its domain: at least 0 .*"
                                         r"lower_is_better=\('error',\)\)$"):
        load_results(frame)
    assert load_results(frame, lower_is_better=["error"]).errors[0, 0, 1] == -0.2


#: multitest's own long table (no metric column), one error of -0.2 (row 1 of the frame,
#: line 3 of the CSV: the header is line 1).
OWN = pd.DataFrame({"dataset": "d", "algorithm": ["a", "a", "b", "b"], "fold": [1, 2] * 2,
                    "error": [0.1, -0.2, 0.3, 0.4]})


def test_own_long_table_error_is_never_negative_unless_declared_signed(tmp_path):
    path = tmp_path / "own.csv"
    OWN.to_csv(path, index=False)
    message = (f"{path}, row 3, field 'error': error -0.2 is outside its domain: at least 0 "
               "(a loss or an error is never negative); if it is a signed quantity, say "
               "--lower-is-better error")
    with pytest.raises(InputError) as caught:
        load_results(path)
    assert str(caught.value) == message
    # declared signed: read as it is (the file's values)
    signed = load_results(path, lower_is_better=["error"])
    assert signed.errors[0, :, :].tolist() == [[0.1, -0.2], [0.3, 0.4]]
    # kind 'error' says how to read the column, not that it may be negative
    with pytest.raises(InputError, match=r"row 3, field 'error': error -0.2"):
        load_results(path, kind="error")


def test_own_long_table_negative_error_through_rank_names_the_frame_and_the_keyword():
    # rank() reads a DataFrame with load_results' defaults: the same rule, the hint names
    # load_results' keyword (rank has none), and a MultitestError (InputError is one)
    from multitest import MultitestError, rank

    with pytest.raises(MultitestError) as caught:
        rank(OWN, ["a", "b"], test="wilcoxon")
    assert str(caught.value) == (
        "<DataFrame>, row 1, field 'error': error -0.2 is outside its domain: at least 0 (a "
        "loss or an error is never negative); if it is a signed quantity, read it with "
        "load_results(..., lower_is_better=('error',))")
    ranked = rank(load_results(OWN, lower_is_better=("error",)), ["a", "b"], test="wilcoxon")
    # mean errors by hand: a (0.1 - 0.2) / 2 = -0.05, b (0.3 + 0.4) / 2 = 0.35
    assert ranked.results.errors.mean(axis=2)[0].tolist() == pytest.approx([-0.05, 0.35])


def test_cli_refuses_a_negative_own_error_in_one_line_and_reads_it_declared(tmp_path, capsys):
    path = tmp_path / "own.csv"
    OWN.to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["rank", str(path), "--test", "wilcoxon", "--order", "a,b",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err == (f"multitest: error: {path}, row 3, field 'error': error -0.2 is outside "
                   "its domain: at least 0 (a loss or an error is never negative); if it is a "
                   "signed quantity, say --lower-is-better error")
    assert not out.exists() or not any(out.iterdir())
    assert main(["rank", str(path), "--test", "wilcoxon", "--order", "a,b",
                 "--lower-is-better", "error", "--out", str(out)]) == 0
    means = pd.read_csv(out / "mean_errors.csv", index_col="dataset")
    # by hand: a (0.1 - 0.2) / 2 = -0.05, b (0.3 + 0.4) / 2 = 0.35
    assert means.loc["d"].tolist() == pytest.approx([-0.05, 0.35])


# -- the AutoML benchmark's files: the sign of a loss read from the data --------------------

@pytest.mark.parametrize("name, rule", [
    ("automl_older.csv", "multiclass: logloss (as it is: result equals column logloss)"),
    ("automl_typed_negated.csv", "multiclass: neg_logloss (negated: every result of a "
                                 "multiclass task is at most 0)"),
    ("automl_newer.csv", None),
])
def test_both_sign_conventions_read_into_the_errors_by_hand(name, rule):
    results = load_results(FIXTURES / name)
    assert results.datasets == tuple(HAND) and results.algorithms == ALGORITHMS
    np.testing.assert_allclose(results.errors, HAND_ERRORS, atol=1e-12)
    if rule is None:      # a metric column: nothing inferred
        assert not any("no column 'metric'" in n for n in results.notes)
    else:
        assert results.notes[0] == ("no column 'metric': the metric of each task from its type, "
                                    f"binary: auc; {rule}")
    assert "auc: higher is better, error = 1 - auc (values within [0, 1])" in results.notes[-1]


def test_the_two_sign_conventions_in_one_file_are_refused():
    # row 19: vehicle, RandomForest, fold 1 holds -0.46 beside logloss 0.46; row 14 +1.38
    with pytest.raises(InputError, match=r"automl_contradiction.csv, row 19, field 'result': the "
                                         r"results of multiclass tasks equal column logloss "
                                         r"\(row 14\) and minus column logloss \(row 19\)"):
        load_results(FIXTURES / "automl_contradiction.csv")


def test_results_of_both_signs_without_a_logloss_column_are_refused(tmp_path):
    # vehicle, AutoGluon, fold 2: -0.44 in the file
    path = _edited(tmp_path, "automl_typed_negated.csv", 20, "0.44")
    with pytest.raises(InputError, match=r"row 22, field 'result': the results of multiclass "
                                         r"tasks are positive \(row 22: 0.44\) and negative "
                                         r"\(row 14: -1.38\)"):
        load_results(path)


def test_when_nothing_decides_the_sign_the_option_that_does_is_named(tmp_path):
    path = _edited(tmp_path, "automl_typed_negated.csv", slice(12, 23), "0")   # vehicle
    with pytest.raises(InputError, match=r"row 14, field 'result': no result of a multiclass task "
                                         r"tells logloss from its negation .*--lower-is-better "
                                         r"logloss .* or --higher-is-better neg_logloss"):
        load_results(path)
    results = load_results(path, lower_is_better=["logloss"])
    assert "multiclass: logloss (said by --lower-is-better)" in results.notes[0]


# -- through the command line -------------------------------------------------------------

@pytest.mark.parametrize("row, text, message", [
    (5, "1.7", "row 7, field 'result': auc 1.7 is outside [0, 1]"),
    (13, "0.46", "row 15, field 'result': neg_logloss 0.46 is outside its domain: at most 0"),
])
def test_cli_refuses_a_value_outside_its_domain_in_one_line(tmp_path, capsys, row, text,
                                                            message):
    path = _edited(tmp_path, "automl_newer.csv", row, text)
    out = tmp_path / "out"
    assert main(["rank", str(path), "--test", "kfold-t",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("multitest: error: ") and message in err
    assert not out.exists() or not any(out.iterdir())


def test_cli_ranks_the_older_file_into_the_mean_errors_by_hand(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["rank", str(FIXTURES / "automl_older.csv"), "--test", "kfold-t",
                 "--out", str(out)]) == 0
    means = pd.read_csv(out / "mean_errors.csv", index_col="dataset")
    # by hand: credit-g 1 - AUC: 0.5, (0.2+0.18+0.22+0.16)/4 = 0.19, (0.1+0.12+0.08+0.14)/4
    # = 0.11; vehicle the log-loss: (1.38+1.39+1.37+1.40)/4 = 1.385, 0.48, 0.38
    expected = pd.DataFrame({"constantpredictor": [0.5, 1.385], "RandomForest": [0.19, 0.48],
                             "AutoGluon": [0.11, 0.38]},
                            index=pd.Index(["credit-g", "vehicle"], name="dataset"))
    pd.testing.assert_frame_equal(means, expected, atol=1e-12)
    assert "multiclass: logloss (as it is: result equals column logloss)" in \
        capsys.readouterr().out


def test_a_cross_validate_accuracy_above_one_is_refused():
    # the layout the scikit-learn readers write (a metric column), from plain dicts of
    # cross_validate's keys: one accuracy of 1.5 among 0.8-0.9 was read as percent
    from multitest.inputs import from_cross_validate

    study = {"tree": {"test_score": np.array([0.81, 1.5, 0.84]), "fit_time": np.ones(3)},
             "forest": {"test_score": np.array([0.91, 0.88, 0.90]), "fit_time": np.ones(3)}}
    frame = from_cross_validate(study, "iris", metric="accuracy")
    with pytest.raises(InputError, match=r"row 1, field 'score': accuracy 1.5 is outside "
                                         r"\[0, 1\], the scale of the other 5 value\(s\) of "
                                         r"data set 'iris' \(fractions\)"):
        load_results(frame)


def test_a_cross_validate_neg_log_loss_holding_positive_values_is_refused():
    # cross_validate(scoring="neg_log_loss") gives the log-loss negated; a positive value
    # (the loss itself) was ranked upside down: the worst model best
    from multitest.inputs import from_cross_validate

    study = {"tree": {"test_neg_log_loss": np.array([0.61, 0.58, 0.64])},
             "forest": {"test_neg_log_loss": np.array([0.31, 0.28, 0.30])}}
    frame = from_cross_validate(study, "iris", metric="neg_log_loss")
    with pytest.raises(InputError, match=r"^<DataFrame>, row 0, field 'score': neg_log_loss 0.61 "
                                         r"is outside its domain: at most 0"):
        load_results(frame)


def test_a_folder_of_parts_holds_one_scale_per_metric(tmp_path):
    # a CSV input split into files (csv_parts): fractions in one part, percent in another
    frame = _accuracies("wine").drop(columns="metric").rename(columns={"score": "accuracy"})
    (tmp_path / "parts").mkdir()
    frame[frame["dataset"] == "iris"].to_csv(tmp_path / "parts" / "a.csv", index=False)
    frame[frame["dataset"] == "wine"].to_csv(tmp_path / "parts" / "b.csv", index=False)
    with pytest.raises(InputError, match=r"b.csv: accuracy is in percent here and in fractions "
                                         r"in .*a.csv \(data set 'iris'\): one scale per metric"):
        load_results(tmp_path / "parts")
    frame.loc[frame["dataset"] == "wine", "accuracy"] /= 100
    frame[frame["dataset"] == "wine"].to_csv(tmp_path / "parts" / "b.csv", index=False)
    assert load_results(tmp_path / "parts").scales == (("accuracy", 1.0),)
