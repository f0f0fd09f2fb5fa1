"""Tests of multitest.inputs._cost_tables: costs from dicts, frames, wide CSV tables and columns.

References: the bundled YAML profiles, generated from the report's tables by
costs/make_profiles.py, must equal the same tables read as wide CSV; column means are
checked against numpy on hand-made folds; rankings with an equivalent explicit order
(README: ``--order``) must be identical.
"""
import numpy as np
import pandas as pd
import pytest
from helpers import make_frame

from multitest import InputError, MultitestError, load_profile, rank
from multitest.cli import main
from multitest.inputs._cost_tables import (
    as_profile,
    load_cost_table,
    profile_from_column,
    profile_from_frame,
)

DATA = "multitest/data/ulas2008"
ALGS = ["c45", "mdt", "mlp", "lnp", "svl", "sv2", "svr", "5nn"]


@pytest.mark.parametrize("name", ["training_time", "space_complexity"])
def test_wide_csv_table_equals_the_bundled_yaml_profile(name, example):
    csv = load_cost_table(f"examples/ulas2008/{name}.csv")
    yaml_profile = load_profile(name)
    np.testing.assert_array_equal(csv.cost_matrix(example.datasets, ALGS),
                                  yaml_profile.cost_matrix(example.datasets, ALGS))
    assert csv.name == name


def test_rank_with_a_csv_table_equals_rank_with_the_yaml_profile(example):
    by_csv = rank(example, f"{DATA}/training_time.csv")
    by_yaml = rank(example, "training_time")
    assert by_csv.final_order == by_yaml.final_order
    assert by_csv.average_positions == by_yaml.average_positions


def test_dict_of_costs_equals_the_explicit_order(example):
    order = ["5nn", "c45", "lnp", "mlp", "svr", "svl", "sv2", "mdt"]
    by_dict = rank(example, {a: 10.0 * (i + 1) for i, a in enumerate(order)})
    assert by_dict.final_order == rank(example, order).final_order
    series = pd.Series({a: float(i) for i, a in enumerate(order)})
    assert rank(example, series).final_order == by_dict.final_order


def test_per_dataset_dict_and_dataframe():
    table = {"d1": {"a": 2, "b": 1}, "d2": {"a": 1, "b": 5}}
    expected = [[1.0, 5.0], [2.0, 1.0]]
    np.testing.assert_array_equal(as_profile(table).cost_matrix(["d2", "d1"], "ab"), expected)
    frame = pd.DataFrame(table).T                     # rows data sets, columns algorithms
    np.testing.assert_array_equal(as_profile(frame).cost_matrix(["d2", "d1"], "ab"), expected)
    with_column = frame.rename_axis("dataset").reset_index()
    np.testing.assert_array_equal(profile_from_frame(with_column).cost_matrix(["d2", "d1"],
                                                                              "ab"), expected)


def test_column_costs_are_fold_means():
    rng = np.random.default_rng(1)
    frame = make_frame(rng.uniform(0, 0.3, size=(2, 3, 10)))
    times = rng.uniform(0, 5, size=len(frame))
    frame["fit_time"] = times
    profile = profile_from_column(frame, "fit_time")
    # Reference: numpy mean of each (data set, algorithm) block of 10 consecutive rows.
    expected = times.reshape(2, 3, 10).mean(axis=2)
    np.testing.assert_allclose(profile.cost_matrix(["d0", "d1"], ["a0", "a1", "a2"]),
                               expected, rtol=1e-15)
    assert rank(frame, "column:fit_time").profile.name == "fit_time"


def test_cli_costs_from_csv_table_and_column(tmp_path, capsys):
    frame = pd.read_csv(f"{DATA}/accuracy.csv")
    frame["cost"] = frame["algorithm"].map({a: i for i, a in enumerate(ALGS)})
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    assert main(["rank", str(path), "--costs", "column:cost"]) == 0
    by_column = capsys.readouterr().out
    assert main(["rank", str(path), "--order", ",".join(ALGS)]) == 0
    assert capsys.readouterr().out.split("(")[0].replace("costs order", "costs cost") == \
        by_column.split("(")[0]
    assert main(["rank", str(path), "--costs", f"{DATA}/training_time.csv"]) == 0
    assert "costs training_time" in capsys.readouterr().out


@pytest.mark.parametrize("text, message", [
    ("dataset,a,b\nd1,1,x\n", "row 2, field 'b': cost must be a finite number, got 'x'"),
    ("dataset,a,b\nd1,1,2\nd2,-1,2\n", "row 3, field 'a': cost must not be negative"),
    ("dataset,a,b\nd1,1,2\nd1,1,2\n", "row 3, field 'dataset': data set 'd1' is given twice"),
    ("dataset\nd1\n", "row 1: a cost table needs a data set column"),
    ("dataset,a,b\nd1,1,2\nd2,1e300,2\n", r"row 3, field 'a': cost 1e\+300 is too large "
                                        r"\(at most 1e\+100"),
])
def test_bad_cost_tables_name_file_row_and_field(tmp_path, text, message):
    path = tmp_path / "costs.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=f"^{path}, {message}"):
        load_cost_table(path)


def test_bad_columns_and_mappings(tmp_path):
    frame = make_frame(np.full((1, 2, 10), 0.1))
    with pytest.raises(InputError, match="no column 'fit_time' for the costs; columns are "
                       "dataset, algorithm"):
        profile_from_column(frame, "fit_time")
    frame["fit_time"] = 1.0
    frame.loc[3, "fit_time"] = np.nan      # a failed fold without a cost: left out
    frame.loc[4, "fit_time"] = 3.0         # (pandas 3 kept NaN through astype(str): refused)
    assert profile_from_column(frame, "fit_time").per_dataset["d0"]["a0"] == 11 / 9
    frame["fit_time"] = frame["fit_time"].astype(object)
    frame.loc[3, "fit_time"] = "fast"
    with pytest.raises(InputError, match="row 3, field 'fit_time'"):
        profile_from_column(frame, "fit_time")
    with pytest.raises(MultitestError, match="needs the results"):
        as_profile("column:fit_time")
    with pytest.raises(InputError, match="field 'b': cost must not be negative"):
        as_profile({"a": 1, "b": -2})
    with pytest.raises(InputError, match=r"field 'b': cost 1e\+200 is too large"):
        as_profile({"a": 1, "b": 1e200})
    # The mapping's own check, a twin of the YAML one: float(10**400) was an OverflowError
    # traceback, and a NumPy number printed as np.float64(-2.0).
    with pytest.raises(InputError, match=r"field 'b': cost must be a finite number, got an "
                                         r"integer of 401 digits"):
        as_profile({"a": 1, "b": 10**400})
    with pytest.raises(InputError, match=r"field 'b': cost must not be negative, got -2.0$"):
        as_profile({"a": 1, "b": np.float64(-2)})
    frame.loc[3, "fit_time"] = 1e300
    with pytest.raises(InputError, match=r"row 3, field 'fit_time': cost 1e\+300 is too large"):
        profile_from_column(frame, "fit_time")
    with pytest.raises(MultitestError, match="either one cost per algorithm"):
        as_profile({"a": 1, "d": {"a": 1}})
    with pytest.raises(InputError, match=r"no cost for algorithm\(s\) a1"):
        rank(make_frame(np.full((1, 2, 10), 0.1)), {"a0": 1, "zz": 2})
