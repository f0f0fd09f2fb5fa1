"""multitest.inputs._arrow_tables: the columns of a table read by pyarrow are those of the
whole table.

Reference: pandas.factorize of the whole column (codes and names in order of first
appearance) and the column's own numbers.
"""
import os

import numpy as np
import pandas as pd
import pytest

from multitest import InputError, load_results
from multitest.inputs import _results as results

pa = pytest.importorskip("pyarrow")

from multitest.inputs._arrow_tables import read_csv_columns, table_columns  # noqa: E402

ROLES = {"dataset": "name", "algorithm": "name", "fold": "integer", "error": "number"}


def _chunks(frame, rows, dictionary):
    """A table of chunks of ``rows`` rows; names dictionary-encoded (each chunk its own
    dictionary) or plain strings."""
    out = []
    for start in range(0, len(frame), rows):
        part = pa.RecordBatch.from_pandas(frame.iloc[start:start + rows], preserve_index=False)
        if dictionary:
            part = pa.RecordBatch.from_arrays(
                [c.dictionary_encode() if pa.types.is_string(c.type) else c
                 for c in part.columns], names=part.schema.names)
        out.append(part)
    return pa.Table.from_batches(out)


def _assert_factorized(names, numbers, frame):
    for column in ("dataset", "algorithm"):
        codes, uniques = pd.factorize(frame[column])
        np.testing.assert_array_equal(names[column][0], codes)
        assert names[column][1] == tuple(uniques)
    for column in ("fold", "error"):
        np.testing.assert_array_equal(numbers[column], frame[column])
    assert numbers["fold"].dtype == np.int32 and numbers["error"].dtype == np.float64


@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("rows", [7, 77, 1000])
def test_chunks_give_the_codes_and_numbers_of_the_whole_column(dictionary, rows):
    # Names coming back after others, names beyond ASCII, spaces kept as written.
    rng = np.random.default_rng(3)
    n = 1000
    frame = pd.DataFrame({"dataset": rng.choice([f"d{i}" for i in range(40)] + ["é", "ω x"], n),
                          "algorithm": rng.choice(["a", " b", "c ", "zz"], n),
                          "fold": rng.integers(-5, 5, n).astype(np.int32),
                          "error": rng.uniform(0, 1, n)})
    numbers, names = table_columns(lambda: _chunks(frame, rows, dictionary), ROLES, 2 ** 31 - 1)
    _assert_factorized(names, numbers, frame)


@pytest.mark.parametrize("column, values", [
    ("error", [0.1, None]),                    # a missing number
    ("dataset", ["d", None]),                  # a missing name
    ("fold", [1.0, 2.0]),                      # a float where integers are read
    ("fold", [1, 2 ** 40]),                    # beyond the bound
    ("dataset", [1, 2]),                       # a number where names are read
])
def test_anything_unusual_is_left_to_the_other_paths(column, values):
    frame = {"dataset": ["d", "d"], "algorithm": ["a", "b"], "fold": [1, 2],
             "error": [0.1, 0.2]}
    frame[column] = values
    with pytest.raises(LookupError):
        table_columns(lambda: pa.table(frame), ROLES, 10 ** 9)


def test_parquet_row_groups_read_whole_as_the_csv(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    cube = rng.uniform(0.1, 0.3, (30, 4, 10))
    frame = pd.DataFrame({
        "dataset": np.repeat([f"d{s}" for s in range(30)], 40),
        "algorithm": np.tile(np.repeat(["a", "b", "c", "d"], 10), 30),
        "replication": np.tile(np.arange(10) // 2 + 1, 120),
        "fold": np.tile(np.arange(10) % 2 + 1, 120),
        "error": cube.ravel()}).sample(frac=1.0, random_state=2)
    frame.to_csv(tmp_path / "r.csv", index=False)
    frame.to_parquet(tmp_path / "r.parquet", index=False, row_group_size=97)
    # The fast path only: the text path would fail the test.
    monkeypatch.setattr(results, "_load", lambda *a, **k: pytest.fail("text path"))
    got = load_results(tmp_path / "r.parquet")
    monkeypatch.undo()
    want = load_results(tmp_path / "r.csv")
    np.testing.assert_array_equal(got.errors, want.errors)
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)
    assert got.datasets[0] == frame["dataset"].iloc[0]


@pytest.mark.parametrize("categories", ["appearance", "reversed", "unused"])
def test_parquet_of_pandas_categoricals_reads_as_the_csv(
        tmp_path, monkeypatch, categories):
    # Categories in order of first appearance (codes = indices plus one number), in
    # another order (codes looked up) and with categories no row uses; int8 and int16
    # indices; row groups of 700 rows.  Reference: the CSV of the
    # same rows through the text path.
    frame = pd.DataFrame({
        "dataset": np.repeat([f"d{s}" for s in range(300)], 20),
        "algorithm": np.tile(np.repeat(["b", "a", "c", "d"], 5), 300),
        "fold": np.tile(np.arange(5) + 1, 1200),
        "error": np.random.default_rng(4).uniform(0.1, 0.3, 6000).round(6)})
    order = {"appearance": lambda names: names, "reversed": lambda names: names[::-1],
             "unused": lambda names: ["x0"] + names + ["x1"]}[categories]
    cat = frame.astype({c: pd.CategoricalDtype(order(list(dict.fromkeys(frame[c]))))
                        for c in ("dataset", "algorithm")})
    cat.to_parquet(tmp_path / "r.parquet", index=False, row_group_size=700)
    frame.to_csv(tmp_path / "r.csv", index=False)
    monkeypatch.setattr(results, "_load", lambda *a, **k: pytest.fail("text path"))
    got = load_results(tmp_path / "r.parquet")
    monkeypatch.undo()
    for name in ("_read_arrow", "_read_pandas"):
        monkeypatch.setattr(results, name, lambda *args: None)
    want = load_results(tmp_path / "r.csv")
    np.testing.assert_array_equal(got.errors, want.errors)
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)
    assert got.algorithms == ("b", "a", "c", "d")


def _shuffled_frame(n, seed):
    # Names first appear in every part, at random places; lengths vary by line.
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"dataset": rng.choice([f"d{'x' * (i % 7)}{i}" for i in range(60)], n),
                         "algorithm": rng.choice(["a", "bb", "c c", "zz"], n),
                         "fold": rng.integers(-5, 5, n).astype(np.int32),
                         "error": rng.uniform(0, 1, n).round(6)})


def test_csv_names_read_as_bytes_give_the_names_and_are_checked_for_utf8(tmp_path):
    # csv_types reads names as coded bytes (pyarrow checks no row for UTF-8): the codes
    # and names are pandas.factorize's of the text; a name that is not UTF-8, near the
    # end, raises pyarrow's ArrowInvalid as a string column's check did.
    frame = _shuffled_frame(3000, 5).assign(dataset=lambda f: f["dataset"] + "é")
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    numbers, names = read_csv_columns(path, ROLES, 10 ** 9)
    _assert_factorized(names, numbers, frame)
    data = path.read_bytes()
    cut = data.rindex("é".encode())
    path.write_bytes(data[:cut] + "é".encode("latin-1") + data[cut + 2:])
    with pytest.raises(pa.ArrowInvalid, match="(?i)utf-?8"):
        read_csv_columns(path, ROLES, 10 ** 9)


def test_a_bad_row_near_the_end_is_raised(tmp_path):
    frame = _shuffled_frame(2000, 4)
    path = tmp_path / "r.csv"
    text = frame.to_csv(index=False).splitlines()
    text[1900] += ",extra"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(pa.ArrowInvalid):
        read_csv_columns(path, ROLES, 10 ** 9)


def _complete_frame():
    """50 data sets x 4 algorithms x 5 replications x 2 folds, rows shuffled."""
    rng = np.random.default_rng(7)
    return pd.DataFrame({
        "dataset": np.repeat([f"d{s}" for s in range(50)], 40),
        "algorithm": np.tile(np.repeat(["a", "b", "c", "d"], 10), 50),
        "replication": np.tile(np.arange(10) // 2 + 1, 200),
        "fold": np.tile(np.arange(10) % 2 + 1, 200),
        "error": rng.uniform(0.1, 0.3, 2000).round(5)}).sample(frac=1.0, random_state=1)


def test_load_results_reads_a_csv_through_pyarrow_as_the_text_path(tmp_path, monkeypatch):
    frame = _complete_frame()
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    monkeypatch.setattr(results, "_read_pandas", lambda *args: pytest.fail("pandas used"))
    monkeypatch.setattr(results, "_read", lambda name: pytest.fail("text path used"))
    got = load_results(path)
    monkeypatch.undo()
    for name in ("_read_arrow", "_read_pandas"):
        monkeypatch.setattr(results, name, lambda *args: None)
    want = load_results(path)
    np.testing.assert_array_equal(got.errors, want.errors)
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)



def test_load_results_of_a_name_not_utf8_is_one_input_error_naming_the_file(tmp_path):
    # The fast path reads names as bytes; a Latin-1 name near the end still ends as
    # the text path's one line, never as a name of bytes: the row (line) of its first
    # byte that is no UTF-8 and where it is in the file (pandas' own message gave a
    # position within a piece of the file).
    frame = _complete_frame().replace({"dataset": {"d49": "d\u00e9"}})
    path = tmp_path / "r.csv"
    data = frame.to_csv(index=False).encode("latin-1")
    path.write_bytes(data)
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xe9, the") as error:
        load_results(path)
    where = data.index(b"\xe9")
    assert error.value.source == str(path)
    assert error.value.row == data[:where].count(b"\n") + 1 == \
        frame["dataset"].tolist().index("d\u00e9") + 2
    assert f", the {where + 1:,}th of the file)" in str(error.value)

def _partitioned(tmp_path, frame, files):
    """The rows of ``frame`` as a folder of Parquet files, split by data set, some in a
    subfolder, several row groups each."""
    folder = tmp_path / "parts"
    (folder / "more").mkdir(parents=True)
    datasets = list(dict.fromkeys(frame["dataset"]))
    for k, chunk in enumerate(np.array_split(np.arange(len(datasets)), files)):
        part = frame[frame["dataset"].isin([datasets[i] for i in chunk])]
        where = folder / ("more" if k >= files - 1 else "") / f"part-{k:03d}.parquet"
        part.to_parquet(where, index=False, row_group_size=50)
    return folder


def test_a_folder_of_parquet_files_reads_as_one_table(tmp_path, example_frame, capsys):
    from multitest.cli import main
    from multitest.inputs._results import parquet_parts

    folder = _partitioned(tmp_path, example_frame, 4)
    assert [os.path.relpath(p, folder) for p in parquet_parts(folder)] == [
        "more/part-003.parquet", "part-000.parquet", "part-001.parquet", "part-002.parquet"]
    order = sorted(parquet_parts(folder))
    want = load_results(pd.concat([pd.read_parquet(p) for p in order], ignore_index=True))
    got = load_results(folder)
    np.testing.assert_array_equal(got.errors, want.errors)
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)
    # The command line ranks the folder as it ranks the same rows in one file.
    pd.concat([pd.read_parquet(p) for p in order]).to_csv(tmp_path / "all.csv", index=False)
    for source, out in ((folder, "a"), (tmp_path / "all.csv", "b")):
        assert main(["rank", str(source), "--costs", "training_time", "--out",
                     str(tmp_path / out)]) == 0
    for name in ("final_order.csv", "orders.csv", "posthoc.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_a_bad_row_of_a_folder_names_its_file_and_row(tmp_path, example_frame):
    frame = example_frame.copy()
    folder = _partitioned(tmp_path, frame, 3)
    second = sorted(folder.glob("part-001.parquet"))[0]
    part = pd.read_parquet(second)
    part.loc[7, part.columns[-1]] = np.nan
    part.to_parquet(second, index=False)
    with pytest.raises(InputError, match=r"part-001.parquet, row 8, field '.*': missing value"):
        load_results(folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="must hold Parquet files"):
        load_results(empty)


def test_a_cost_table_not_utf8_is_one_input_error_naming_its_row(tmp_path):
    # A Latin-1 data set name on line 3 of a wide cost table: 12 + 7 + 1 bytes before it.
    from multitest.inputs import load_cost_table

    path = tmp_path / "costs.csv"
    path.write_bytes("dataset,a,b\nd1,1,2\nd\u00e9,3,4\n".encode("latin-1"))
    with pytest.raises(InputError) as error:
        load_cost_table(path)
    assert (error.value.source, error.value.row) == (str(path), 3)
    assert error.value.message == ("not UTF-8 text (byte 0xe9, the 21st of the file); save "
                                   "the cost table as UTF-8")


@pytest.mark.parametrize("suffix", [",x", "\nx"])
def test_load_results_of_quoted_names_is_the_file(tmp_path, suffix):
    # Quoted names (",x") and quoted line breaks ("\nx"): the same Results as the file
    # read whole by pandas.
    frame = _complete_frame().assign(dataset=lambda f: f["dataset"] + suffix)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    got, want = load_results(path), load_results(pd.read_csv(path))
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)
    assert got.datasets[0].endswith(suffix)
    np.testing.assert_array_equal(got.errors, want.errors)
