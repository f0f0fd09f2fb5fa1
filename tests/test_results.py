"""Tests of multitest.inputs._results: loading, layouts and validation of per-fold results."""
import numpy as np
import pandas as pd
import pytest
from helpers import make_frame

from multitest import InputError, MultitestError, example_path, load_results


def test_bundled_layout_needs_no_flags(example, example_frame):
    # accuracy.csv: 38 data sets x 8 algorithms x (5 replications x 2 folds), percent.
    assert example.errors.shape == (38, 8, 10)
    assert (example.replications, example.folds_per_replication) == (5, 2)
    assert example.algorithms == ("c45", "mdt", "mlp", "lnp", "svl", "sv2", "svr", "5nn")
    # First row of the file: australian, c45, replication 1, fold 1, accuracy 85.22.
    assert example.errors[0, 0, 0] == pytest.approx(100 - 85.22)
    row = example_frame.query("dataset == 'zoo' and algorithm == '5nn' and replication == 3 "
                              "and fold == 2")
    s, a = example.datasets.index("zoo"), example.algorithms.index("5nn")
    assert example.errors[s, a, 5] == pytest.approx(100 - row["accuracy"].item())


def test_dataframe_and_csv_agree(example, example_frame, tmp_path):
    from_frame = load_results(example_frame)
    np.testing.assert_array_equal(from_frame.errors, example.errors)
    assert from_frame.source == "<DataFrame>"


def test_fraction_accuracy_and_error_columns():
    frame = pd.DataFrame({"dataset": ["d"] * 4, "algorithm": list("aabb"), "fold": [1, 2] * 2,
                          "acc": [0.9, 0.8, 0.7, 0.6]})
    np.testing.assert_allclose(load_results(frame).errors[0], [[0.1, 0.2], [0.3, 0.4]])
    frame = frame.rename(columns={"acc": "loss"})
    np.testing.assert_allclose(load_results(frame).errors[0], [[0.9, 0.8], [0.7, 0.6]])


def test_custom_column_names_and_kind():
    frame = pd.DataFrame({"ds": ["d"] * 4, "model": list("aabb"), "k": [1, 2] * 2,
                          "value": [90, 80, 70, 60]})
    res = load_results(frame, dataset="ds", algorithm="model", fold="k", value="value",
                       kind="accuracy-percent")
    np.testing.assert_allclose(res.errors[0], [[10, 20], [30, 40]])
    assert (res.replications, res.folds_per_replication) == (1, 2)


def test_score_matrix_has_no_folds():
    frame = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "algorithm": list("abab"),
                          "error": [0.1, 0.2, 0.3, 0.1]})
    res = load_results(frame)
    assert not res.has_folds and res.errors.shape == (2, 2, 1)


def test_subset_and_to_frame(example):
    sub = example.subset(datasets=["zoo", "iris"], algorithms=["svr", "c45"])
    assert sub.datasets == ("zoo", "iris") and sub.algorithms == ("svr", "c45")
    back = load_results(sub.to_frame())
    np.testing.assert_array_equal(back.errors, sub.errors)
    with pytest.raises(MultitestError, match="unknown name.*c4.5.*valid names"):
        example.subset(algorithms=["c4.5", "svr"])
    with pytest.raises(MultitestError, match="at least 2 algorithms"):
        example.subset(algorithms=["svr"])


def _write(tmp_path, frame, name="r.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def small(tmp_path):
    rng = np.random.default_rng(0)
    return make_frame(rng.uniform(0.1, 0.3, size=(2, 3, 10)))


@pytest.mark.parametrize("edit, message", [
    # (change to the frame, expected message fragment); rows count the header as line 1.
    (lambda f: f.drop(index=7), r"missing fold: data set 'd0', algorithm 'a0' has no "
                                r"replication 4, fold 2"),
    (lambda f: f.assign(error=f["error"].where(f.index != 4, np.nan)), r"row 6, field 'error'"),
    (lambda f: f.assign(error=f["error"].astype(object).where(f.index != 4, "abc")),
     r"row 6, field 'error': not a finite number: 'abc'"),
    (lambda f: pd.concat([f, f.iloc[[3]]]), r"row 62: duplicate row for d0, a0, replication 2, "
                                            r"fold 2 \(also at row 5\)"),
    (lambda f: f[~((f["dataset"] == "d1") & (f["algorithm"] == "a1"))],
     r"data set 'd1' has no results for algorithm\(s\) a1"),
    (lambda f: f[f["algorithm"] == "a0"], r"at least 2 algorithms are needed, found 1"),
    (lambda f: f.drop(columns=["algorithm"]), r"missing column 'algorithm'"),
    (lambda f: f.assign(fold=f["fold"].astype(object).where(f.index != 2, "x")),
     r"row 4, field 'fold': fold must be an integer"),
])
def test_bad_input_names_file_row_field(tmp_path, small, edit, message):
    path = _write(tmp_path, edit(small))
    with pytest.raises(InputError, match=message) as info:
        load_results(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_accuracy_out_of_range_and_unknown_value_column(tmp_path):
    frame = pd.DataFrame({"dataset": ["d"] * 4, "algorithm": list("aabb"), "fold": [1, 2] * 2,
                          "accuracy": [90, 80, 170, 60]})
    with pytest.raises(InputError, match=r"row 4, field 'accuracy': accuracy 170 is outside"):
        load_results(_write(tmp_path, frame))
    with pytest.raises(InputError, match="cannot tell which column"):
        load_results(frame.rename(columns={"accuracy": "whatever"}))


def test_unreadable_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_results(tmp_path / "absent.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError, match="not a readable CSV"):
        load_results(empty)


def test_bad_kind():
    frame = pd.DataFrame({"dataset": ["d"] * 2, "algorithm": list("ab"), "error": [1, 2]})
    with pytest.raises(MultitestError, match="`kind` must be one of"):
        load_results(frame, kind="percent")


# -- no silent acceptance (issue 18 item 5) ---------------------------------------------------

def _accuracy_frame(scale_of):
    """The bundled accuracies (percent), with some data sets divided by 100."""
    frame = pd.read_csv(example_path())
    frame["accuracy"] = [a / scale_of.get(d, 1) for d, a in zip(frame["dataset"],
                                                                 frame["accuracy"])]
    return frame


def test_a_key_like_column_that_is_not_read_is_named_in_the_duplicate_error():
    frame = pd.read_csv(example_path()).rename(columns={"replication": "rep"})
    with pytest.raises(InputError, match=r"row 2: duplicate row for australian, c45, fold 1 "
                                         r".*column\(s\) 'rep' look like a key but are not read"):
        load_results(frame)


def test_a_data_set_of_fractions_among_percentages_is_refused_naming_both():
    # australian (rows 2..) in percent, iris divided by 100: one scale per metric in a file.
    with pytest.raises(InputError, match=r"row 180, field 'accuracy': accuracy is in fractions "
                                         r"on data set 'iris' \(row 180: 0.9804\) and in "
                                         r"percent on data set 'australian' \(row 0: 85.22\)"):
        load_results(_accuracy_frame({"iris": 100}))
    # All on one scale: the scale read from the whole column, stated in a note.
    results = load_results(_accuracy_frame({}))
    assert results.notes == ("column 'accuracy' holds accuracies in percent (within [0, 100]), "
                             "error = 100 - accuracy",)
    assert results.subset(datasets=["iris", "wine"]).notes == results.notes
    everything = {d: 100 for d in pd.read_csv(example_path())["dataset"]}
    assert load_results(_accuracy_frame(everything)).notes == (
        "column 'accuracy' holds accuracies within [0, 1], error = 1 - accuracy",)


def test_accuracy_percent_with_every_value_at_most_one_is_refused():
    everything = {d: 100 for d in pd.read_csv(example_path())["dataset"]}
    with pytest.raises(InputError, match="every value is at most 1"):
        load_results(_accuracy_frame(everything), kind="accuracy-percent")
