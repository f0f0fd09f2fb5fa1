"""multitest.inputs._batches: columns decoded piece by piece are those of the whole table.

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
import pyarrow.csv as pcsv  # noqa: E402

from multitest.inputs import _batches  # noqa: E402
from multitest.inputs._batches import gather_batches, gather_csv  # noqa: E402

ROLES = {"dataset": "name", "algorithm": "name", "fold": "integer", "error": "number"}


def _pieces(frame, rows, dictionary):
    """Record batches of ``rows`` rows; names dictionary-encoded or plain strings."""
    out = []
    for start in range(0, len(frame), rows):
        part = pa.RecordBatch.from_pandas(frame.iloc[start:start + rows], preserve_index=False)
        if dictionary:
            part = pa.RecordBatch.from_arrays(
                [c.dictionary_encode() if pa.types.is_string(c.type) else c
                 for c in part.columns], names=part.schema.names)
        out.append(part)
    return out


@pytest.mark.parametrize("dictionary", [True, False])
@pytest.mark.parametrize("estimate", [1, 10 ** 6])    # arrays grown several times; never
def test_pieces_give_the_codes_and_numbers_of_the_whole_column(dictionary, estimate):
    rng = np.random.default_rng(3)
    n = 1000
    frame = pd.DataFrame({"dataset": rng.choice([f"d{i}" for i in range(40)], n),
                          "algorithm": rng.choice(["a", " b", "c ", "zz"], n),
                          "fold": rng.integers(-5, 5, n).astype(np.int32),
                          "error": rng.uniform(0, 1, n)})
    numbers, names = gather_batches(_pieces(frame, 77, dictionary), ROLES,
                                    lambda first: estimate)
    for column in ("dataset", "algorithm"):
        codes, uniques = pd.factorize(frame[column])
        np.testing.assert_array_equal(names[column][0], codes)
        assert names[column][1] == tuple(uniques)
    np.testing.assert_array_equal(numbers["fold"], frame["fold"])
    assert numbers["fold"].dtype == np.int32 and numbers["error"].dtype == np.float64
    np.testing.assert_array_equal(numbers["error"], frame["error"])


@pytest.mark.parametrize("rows", [7, 40, 1000])     # runs cut by pieces, and whole
def test_names_in_runs_are_coded_by_their_runs(rows):
    # Runs of equal names, a name coming back after others, names beyond ASCII:
    # codes and names of pandas.factorize of the whole column (order of first appearance).
    names = ["d2", "d1", "é", "d2", "d3", "d1", "ω x", "d2"]
    frame = pd.DataFrame({"dataset": np.repeat(names, 30),
                          "algorithm": np.tile(np.repeat(["b", "a", "c"], 5), 16),
                          "fold": np.tile(np.arange(5, dtype=np.int32), 48),
                          "error": np.linspace(0, 1, 240)})
    pieces = _pieces(frame, rows, dictionary=False)
    runs = _batches._runs(pieces[0].column(0))
    assert runs[1] is not None and runs[1].sum() == pieces[0].num_rows  # the run path
    numbers, names_ = gather_batches(pieces, ROLES, lambda first: 240)
    for column in ("dataset", "algorithm"):
        codes, uniques = pd.factorize(frame[column])
        np.testing.assert_array_equal(names_[column][0], codes)
        assert names_[column][1] == tuple(uniques)
    np.testing.assert_array_equal(numbers["error"], frame["error"])


def test_runs_of_a_piece_and_their_lengths():
    runs, lengths = _batches._runs(pa.array(["x"] * 4 + ["y"] * 3 + ["x"] * 5))
    assert runs.dictionary.to_pylist() == ["x", "y"] and runs.indices.to_pylist() == [0, 1, 0]
    assert lengths.tolist() == [4, 3, 5]
    # Short runs (more than one in _RUN_ROWS rows): every name encoded, no lengths.
    every, none = _batches._runs(pa.array(["x", "y", "x", "z"]))
    assert none is None and every.indices.to_pylist() == [0, 1, 0, 2]


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
        gather_batches([pa.record_batch(frame)], ROLES, lambda first: 2, 10 ** 9)


def test_parquet_row_groups_read_piece_by_piece_as_the_csv(tmp_path, monkeypatch):
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
    # The piece-by-piece path only: the text path would fail the test.
    monkeypatch.setattr(results, "_load", lambda *a, **k: pytest.fail("text path"))
    got = load_results(tmp_path / "r.parquet")
    monkeypatch.undo()
    want = load_results(tmp_path / "r.csv")
    np.testing.assert_array_equal(got.errors, want.errors)
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)
    assert got.datasets[0] == frame["dataset"].iloc[0]


@pytest.mark.parametrize("categories", ["appearance", "reversed", "unused"])
def test_parquet_of_pandas_categoricals_reads_piece_by_piece_as_the_csv(
        tmp_path, monkeypatch, categories):
    # Categories in order of first appearance (codes = indices plus one number), in
    # another order (codes looked up) and with categories no row uses; int8 and int16
    # indices; pieces of 500 rows across row groups of 700.  Reference: the CSV of the
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
    monkeypatch.setattr(results, "PARQUET_BATCH_ROWS", 500)
    monkeypatch.setattr(results, "_load", lambda *a, **k: pytest.fail("text path"))
    got = load_results(tmp_path / "r.parquet")
    monkeypatch.undo()
    for name in ("_read_arrow", "_read_pandas"):
        monkeypatch.setattr(results, name, lambda *args: None)
    want = load_results(tmp_path / "r.csv")
    np.testing.assert_array_equal(got.errors, want.errors)
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)
    assert got.algorithms == ("b", "a", "c", "d")


CSV_TYPES = {"dataset": pa.dictionary(pa.int32(), pa.string()),
             "algorithm": pa.dictionary(pa.int32(), pa.string()), "fold": pa.int32(),
             "error": pa.float64()}


def _gather_csv(path, parts, block_size=512):
    convert = pcsv.ConvertOptions(include_columns=list(ROLES), column_types=CSV_TYPES)
    return gather_csv(path, pcsv.ReadOptions(block_size=block_size), convert, ROLES,
                      lambda first: 10, 10 ** 9, parts=parts)


def _shuffled_frame(n, seed):
    # Names first appear in every part, at random places; lengths vary by line.
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"dataset": rng.choice([f"d{'x' * (i % 7)}{i}" for i in range(60)], n),
                         "algorithm": rng.choice(["a", "bb", "c c", "zz"], n),
                         "fold": rng.integers(-5, 5, n).astype(np.int32),
                         "error": rng.uniform(0, 1, n).round(6)})


@pytest.mark.parametrize("parts", [2, 3, 7])
def test_csv_parts_read_at_once_give_the_codes_and_numbers_of_the_whole_file(
        tmp_path, parts):
    # Reference: pandas.factorize of the whole column; the file read as one part.
    frame = _shuffled_frame(3000, parts)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    numbers, names = _gather_csv(path, parts)
    one_numbers, one_names = _gather_csv(path, 1)
    for column in ("dataset", "algorithm"):
        codes, uniques = pd.factorize(frame[column])
        np.testing.assert_array_equal(names[column][0], codes)
        assert names[column][1] == tuple(uniques) == one_names[column][1]
    for column in ("fold", "error"):
        np.testing.assert_array_equal(numbers[column], frame[column])
        np.testing.assert_array_equal(numbers[column], one_numbers[column])


def test_csv_parts_fall_back_to_one_part_on_a_quoted_line_break_or_too_many_rows(
        tmp_path, monkeypatch):
    # Quoted names ("d1,x") are read in parts (a cut at a line end is outside every
    # quoted field); a quoted line break ("d1\nx": a cut may fall inside it) or more rows
    # than room was kept for, read again as one part. Reference: pandas.factorize.
    frame = _shuffled_frame(2000, 1)
    quoted, broken = tmp_path / "q.csv", tmp_path / "b.csv"
    frame.assign(dataset=frame["dataset"] + ",x").to_csv(quoted, index=False)   # "d1,x"
    frame.assign(dataset=frame["dataset"] + "\nx").to_csv(broken, index=False)  # "d1\nx"
    calls = []
    real = _batches._gather_parts

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(_batches, "_gather_parts", counted)
    retried = []
    monkeypatch.setattr(_batches, "gather_batches",
                        lambda *a, **k: retried.append(1) or gather_batches(*a, **k))
    plain = tmp_path / "p.csv"
    frame.to_csv(plain, index=False)
    with pytest.raises(pa.ArrowInvalid, match="newlines_in_values"):
        _gather_csv(broken, 3)         # read again as one part, which pyarrow refuses:
    assert calls == retried == [1]     # load_results then takes the text path
    for path, want, again in ((quoted, frame.assign(dataset=frame["dataset"] + ",x"), []),
                              (plain, frame, [1])):
        if path == plain:   # room kept for 10 rows a part: more rows than that
            monkeypatch.setattr(_batches, "_room", lambda name, start, stop: 10)
        calls.clear(), retried.clear()
        numbers, names = _gather_csv(path, 3)
        assert calls == [1] and retried == again    # tried in parts, then read as one?
        codes, uniques = pd.factorize(want["dataset"])
        np.testing.assert_array_equal(names["dataset"][0], codes)
        assert names["dataset"][1] == tuple(uniques)
        np.testing.assert_array_equal(numbers["error"], want["error"])


@pytest.mark.parametrize("parts", [1, 3])
def test_csv_blocks_are_read_at_most_read_ahead_before_their_pieces(tmp_path, monkeypatch,
                                                                    parts):
    # pyarrow's reader would read up to 32 blocks ahead; each part reads at most
    # READ_AHEAD blocks before their pieces are decoded, never waits out its longest
    # wait (the count of reads and pieces agrees), and gives the rows of the file.
    frame = _shuffled_frame(6000, 2)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    ranges, ahead = [], []

    class Spy(_batches._Range):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            ranges.append(self)

        def read(self, n=-1):
            data = super().read(n)
            ahead.append(self._ahead)
            return data
    monkeypatch.setattr(_batches, "_Range", Spy)
    monkeypatch.setattr(_batches, "_AHEAD_WAIT", 60.0)
    numbers, names = _gather_csv(path, parts, block_size=1024)
    assert len(ranges) == parts and len(ahead) > 100      # 1 kB blocks: many reads
    assert max(ahead) <= _batches.READ_AHEAD and [r.late for r in ranges] == [0] * parts
    np.testing.assert_array_equal(numbers["error"], frame["error"])
    np.testing.assert_array_equal(names["dataset"][0], pd.factorize(frame["dataset"])[0])


@pytest.mark.parametrize("parts", [1, 3])
def test_csv_names_read_as_bytes_give_the_names_and_are_checked_for_utf8(tmp_path, parts):
    # csv_types reads names as bytes (pyarrow checks no row for UTF-8): the codes and
    # names are pandas.factorize's of the text; a name that is not UTF-8, in the
    # last part, raises pyarrow's ArrowInvalid as a string column's check did.
    frame = _shuffled_frame(3000, 5).assign(dataset=lambda f: f["dataset"] + "é")
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    convert = pcsv.ConvertOptions(include_columns=list(ROLES),
                                  column_types=_batches.csv_types(ROLES))

    def read():
        return gather_csv(path, pcsv.ReadOptions(block_size=512), convert, ROLES,
                          lambda first: 10, 10 ** 9, parts=parts)
    numbers, names = read()
    codes, uniques = pd.factorize(frame["dataset"])
    np.testing.assert_array_equal(names["dataset"][0], codes)
    assert names["dataset"][1] == tuple(uniques)
    np.testing.assert_array_equal(numbers["error"], frame["error"])
    data = path.read_bytes()
    cut = data.rindex("é".encode())
    path.write_bytes(data[:cut] + "é".encode("latin-1") + data[cut + 2:])
    with pytest.raises(pa.ArrowInvalid, match="(?i)utf-?8"):
        read()


@pytest.mark.parametrize("gap", [0, 3, 2 ** 16, 70_001, 300_000])
def test_rows_moved_up_are_the_rows_and_their_codes_mapped(gap):
    # Reference: the rows copied out first (numpy's own copy of an overlap).
    rng = np.random.default_rng(gap)
    rows, target = 250_000, 1000
    numbers = rng.uniform(size=target + gap + rows)
    codes = rng.integers(0, 5, target + gap + rows).astype(np.int32)
    mapping = np.array([4, 0, 3, 1, 2], dtype=np.int32)
    want = numbers[target + gap:].copy(), mapping[codes[target + gap:]]
    _batches._move(numbers, None, target + gap, target, rows)
    _batches._move(codes, mapping, target + gap, target, rows)
    np.testing.assert_array_equal(numbers[target:target + rows], want[0])
    np.testing.assert_array_equal(codes[target:target + rows], want[1])


def test_a_bad_row_in_a_later_part_is_raised(tmp_path):
    frame = _shuffled_frame(2000, 4)
    path = tmp_path / "r.csv"
    text = frame.to_csv(index=False).splitlines()
    text[1900] += ",extra"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(pa.ArrowInvalid):
        _gather_csv(path, 3)


def _complete_frame():
    """50 data sets x 4 algorithms x 5 replications x 2 folds, rows shuffled."""
    rng = np.random.default_rng(7)
    return pd.DataFrame({
        "dataset": np.repeat([f"d{s}" for s in range(50)], 40),
        "algorithm": np.tile(np.repeat(["a", "b", "c", "d"], 10), 50),
        "replication": np.tile(np.arange(10) // 2 + 1, 200),
        "fold": np.tile(np.arange(10) % 2 + 1, 200),
        "error": rng.uniform(0.1, 0.3, 2000).round(5)}).sample(frac=1.0, random_state=1)


def test_load_results_reads_a_large_csv_in_parts_as_the_text_path(tmp_path, monkeypatch):
    frame = _complete_frame()
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    monkeypatch.setattr(_batches, "PART_BYTES", 4096)
    monkeypatch.setattr(_batches, "MAX_PARTS", 5)
    monkeypatch.setattr(_batches, "usable_cpus", lambda: 8)
    monkeypatch.setattr(results, "_ARROW_BLOCK_SIZE", 2048)
    parts = []
    real = _batches._gather_parts
    monkeypatch.setattr(_batches, "_gather_parts",
                        lambda *a, **k: parts.append(len(a[2])) or real(*a, **k))
    monkeypatch.setattr(results, "_read", lambda name: pytest.fail("text path used"))
    got = load_results(path)
    assert parts == [5]
    monkeypatch.undo()
    for name in ("_read_arrow", "_read_pandas"):
        monkeypatch.setattr(results, name, lambda *args: None)
    want = load_results(path)
    np.testing.assert_array_equal(got.errors, want.errors)
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)



def test_load_results_of_a_name_not_utf8_is_one_input_error_naming_the_file(tmp_path,
                                                                           monkeypatch):
    # The fast path reads names as bytes; a Latin-1 name in a later part still ends as
    # the text path's one line, never as a name of bytes: the row (line) of its first
    # byte that is no UTF-8 and where it is in the file (pandas' own message gave a
    # position within a piece of the file).
    frame = _complete_frame().replace({"dataset": {"d49": "d\u00e9"}})
    path = tmp_path / "r.csv"
    data = frame.to_csv(index=False).encode("latin-1")
    path.write_bytes(data)
    monkeypatch.setattr(_batches, "PART_BYTES", 4096)
    monkeypatch.setattr(results, "_ARROW_BLOCK_SIZE", 2048)
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xe9, the") as error:
        load_results(path)
    where = data.index(b"\xe9")
    assert error.value.source == str(path)
    assert error.value.row == data[:where].count(b"\n") + 1 == \
        frame["dataset"].tolist().index("d\u00e9") + 2
    assert f", the {where + 1:,}th of the file)" in str(error.value)

_TRUNCATED_WHILE_READ = r"""
import os, sys, threading
from multitest import InputError, load_results
from multitest.inputs import _batches, _results
_batches.PART_BYTES, _batches.MAX_PARTS = 4096, 3
_batches.usable_cpus = lambda: 8
_results._ARROW_BLOCK_SIZE = 2048
real, once = _batches._read_range, threading.Lock()

def cut_after_a_batch(source, *args):
    for k, batch in enumerate(real(source, *args)):
        # Once, after a part's second piece (a lock: parts read on threads at once).
        if k == 1 and once.acquire(blocking=False):
            os.truncate(sys.argv[1], os.path.getsize(sys.argv[1]) // 3)
        yield batch
_batches._read_range = cut_after_a_batch
try:
    load_results(sys.argv[1])
except InputError as error:
    print(str(error).splitlines()[0])
"""


def test_a_csv_cut_short_while_read_is_an_input_error_not_a_signal(tmp_path):
    # Another process truncating the file during the read: the parts see fewer
    # bytes (a file read through a memory map would die of SIGBUS instead, exit
    # -7 with no message); the child ends normally with an InputError.
    import subprocess
    import sys

    path = tmp_path / "r.csv"
    _complete_frame().to_csv(path, index=False)
    size = os.path.getsize(path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", _TRUNCATED_WHILE_READ, str(path)],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert os.path.getsize(path) == size // 3 and done.stdout.startswith(str(path)), done.stdout


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
def test_load_results_of_quoted_names_in_parts_is_the_file(tmp_path, monkeypatch, suffix):
    # Quoted names, read in parts (",x") or, with a quoted line break, as the text path
    # reads them ("\nx"): the same Results as the file read whole by pandas.
    frame = _complete_frame().assign(dataset=lambda f: f["dataset"] + suffix)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    monkeypatch.setattr(_batches, "PART_BYTES", 4096)
    monkeypatch.setattr(results, "_ARROW_BLOCK_SIZE", 2048)
    got, want = load_results(path), load_results(pd.read_csv(path))
    assert (got.datasets, got.algorithms) == (want.datasets, want.algorithms)
    assert got.datasets[0].endswith(suffix)
    np.testing.assert_array_equal(got.errors, want.errors)
