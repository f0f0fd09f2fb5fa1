"""``multitest.inputs._split``: the parts of an input for ``multitest rank --workers``, read
in this process.  Reference: :func:`multitest.load_results` of the whole file; the parts'
results joined in order (:func:`multitest.inputs._parts.join_parts`) must be it, array for
array."""
import numpy as np
import pandas as pd
import pytest

from multitest import InputError, load_results
from multitest.inputs._split import InputPart, load_part, part_names, split_input
from multitest.inputs._parts import join_parts
from multitest.inputs._split import _data_set

pytest.importorskip("pyarrow")


def _rows(datasets, algorithms=("a", "b", "c"), folds=3):
    rng = np.random.default_rng(7)
    return [(d, a, f, round(float(rng.uniform(0, 1)), 4))
            for d in datasets for a in algorithms for f in range(1, folds + 1)]


def _joined(path, **sizes):
    loaded = [load_part(part) for part in split_input(path, **sizes)]
    return join_parts([r for r, _ in loaded if r is not None], str(path))


def _same(a, b):
    assert (a.datasets, a.algorithms, a.design) == (b.datasets, b.algorithms, b.design)
    np.testing.assert_array_equal(a.errors, b.errors)


@pytest.mark.parametrize("layout", ["plain", "crlf", "no final line end", "bom",
                                    "quoted names with commas", "spaces"])
@pytest.mark.parametrize("range_bytes", [1, 17, 64, 333, 10 ** 6])
def test_csv_ranges_hold_every_row_once(tmp_path, layout, range_bytes):
    names = [f"d{k}" for k in range(7)]
    if layout == "quoted names with commas":
        names = [f"set, {k}" for k in range(7)]
    rows = _rows(names)
    text = "dataset,algorithm,fold,error\n" + "".join(
        (f'"{d}",{a},{f},{e}\n' if "," in d else
         f" {d}, {a},{f},{e}\n" if layout == "spaces" else f"{d},{a},{f},{e}\n")
        for d, a, f, e in rows)
    if layout == "crlf":
        text = text.replace("\n", "\r\n")
    if layout == "no final line end":
        text = text.rstrip("\n")
    path = tmp_path / "r.csv"
    path.write_bytes((b"\xef\xbb\xbf" if layout == "bom" else b"") + text.encode())
    parts = split_input(path, range_bytes=range_bytes)
    assert (len(parts) > 1) == (range_bytes < 10 ** 6)
    _same(_joined(path, range_bytes=range_bytes), load_results(path))
    lines = [load_part(p)[1] for p in parts]
    assert lines == [None] or sum(lines) == len(rows)


def test_a_parquet_file_of_row_groups_holds_every_row_once(tmp_path):
    frame = pd.DataFrame(_rows([f"d{k}" for k in range(10)]),
                         columns=["dataset", "algorithm", "fold", "error"])
    path = tmp_path / "r.parquet"
    frame.to_parquet(path, index=False, row_group_size=7)   # 13 groups; a data set is 9 rows
    for group_rows in (1, 10, 30, 1000):
        parts = split_input(path, group_rows=group_rows)
        _same(_joined(path, group_rows=group_rows), load_results(path))
        # each run ends at a border between data sets: the names of the parts are disjoint
        names = [part_names(p)[0] for p in parts]
        assert sum(map(len, names)) == 10
    # Row groups start at rows 0, 7, 14, ..., data sets at 0, 9, 18, ...: the only border
    # between two data sets at a border between row groups is row 63 (group 9).
    assert [p.groups for p in split_input(path, group_rows=10)] == [tuple(range(9)),
                                                                    (9, 10, 11, 12)]


def test_a_bad_row_names_the_row_in_the_file(tmp_path):
    # Line 21 (header: line 1) holds 'x': in the third range of 60 bytes.
    rows = _rows(["d0", "d1", "d2", "d3"])
    text = "dataset,algorithm,fold,error\n" + "".join(
        f"{d},{a},{f},{'x' if k == 19 else e}\n" for k, (d, a, f, e) in enumerate(rows))
    path = tmp_path / "r.csv"
    path.write_text(text)
    message = None
    for part in split_input(path, range_bytes=60):
        try:
            load_part(part)
        except ValueError as exc:
            message = str(exc)
            break
    assert message is not None and message.endswith("r.csv, row 21, field 'error': not a "
                                                      "finite number: 'x'"), message
    with pytest.raises(ValueError) as whole:
        load_results(path)
    assert str(whole.value) == message


def test_a_range_inside_one_data_set_owns_none(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("dataset,algorithm,fold,error\n" + "".join(
        f"{d},{a},{f},{e}\n" for d, a, f, e in _rows(["d0", "d1"], folds=20)))
    owned = [load_part(p) for p in split_input(path, range_bytes=50)]
    assert [r.datasets for r, _ in owned if r is not None] == [("d0",), ("d1",)]
    assert (None, 0) in owned
    assert part_names(InputPart(path=str(path))) == (("d0", "d1"), None)


def test_data_set_of_a_line():
    assert _data_set(b' "a, b" ,x\r\n', 0) == "a, b" and _data_set(b"d1\n", 3) is None


@pytest.mark.parametrize("range_bytes", [1, 64, 333])
@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_a_csv_file_with_a_quoted_line_break_is_one_part(tmp_path, range_bytes, line_end):
    # A cut at a line end inside a quoted name used to give a wrong error ("at least 2
    # algorithms are needed", "missing fold") for a valid file; the whole file is one part.
    names = [f"d{k}" for k in range(7)] + [f'set{line_end}"7"', "d8"]
    text = "dataset,algorithm,fold,error\n" + "".join(
        '"{}",{},{},{}\n'.format(d.replace('"', '""'), a, f, e) for d, a, f, e in _rows(names))
    path = tmp_path / "r.csv"
    path.write_bytes(text.encode())
    assert split_input(path, range_bytes=range_bytes) == [InputPart(path=str(path))]
    _same(_joined(path, range_bytes=range_bytes), load_results(path))
    assert f'set{line_end}"7"' in load_results(path).datasets


@pytest.mark.parametrize("chunk_bytes", [1, 2, 5, 2 ** 24])
def test_quoted_line_ends_are_found_across_chunk_borders(tmp_path, chunk_bytes):
    from multitest.inputs._split import _quoted_line_end

    cases = {'a,"b\nc",d\n': True, 'a,"b""\nc"\n': True, 'a,"b""c"\nd,e\n': False,
             '"x",y\n"z",w\r\n': False, 'a,b\n': False, '"a""",b\n"c\r"\n': True}
    for k, (text, expected) in enumerate(cases.items()):
        path = tmp_path / f"r{k}.csv"
        path.write_bytes(text.encode())
        assert _quoted_line_end(path, chunk_bytes) == expected, text


def test_quoted_names_without_line_breaks_are_still_cut(tmp_path):
    text = "dataset,algorithm,fold,error\n" + "".join(
        f'"set ""{d}"", x",{a},{f},{e}\n' for d, a, f, e in _rows([f"d{k}" for k in range(7)]))
    path = tmp_path / "r.csv"
    path.write_bytes(text.encode())
    assert len(split_input(path, range_bytes=64)) > 1
    _same(_joined(path, range_bytes=64), load_results(path))


@pytest.mark.parametrize("bad_last_row", [False, True])
def test_a_range_of_megabytes_is_read_whole_and_names_its_bad_row(tmp_path, bad_last_row):
    # A range of 8 MB, one of two (read by pyarrow, or by pandas after a bad row; with
    # --workers 2 a paced reader once took 77 s for 84 MB, issue 40).
    rows = _rows([f"d{k:03d}" for k in range(300)], folds=1000)
    text = "dataset,algorithm,fold,error\n" + "".join(f"{d},{a},{f},{e}\n"
                                                      for d, a, f, e in rows)
    if bad_last_row:
        text = text[:text.rindex(",") + 1] + "x\n"
    path = tmp_path / "r.csv"
    path.write_text(text)
    parts = split_input(path, range_bytes=len(text) // 2 + 1)
    assert len(parts) == 2 and parts[0].span[1] > 7.5 * 2 ** 20
    if bad_last_row:
        with pytest.raises(ValueError, match=r"r\.csv, row 900001, field 'error': not a "
                                             "finite number: 'x'"):
            load_part(parts[1])
    else:
        results, lines = load_part(parts[0])
        assert lines == len(results.datasets) * 3000


def test_the_names_of_an_unreadable_parquet_part_are_none(tmp_path):
    # A page header overwritten: the file opens, its rows do not. The data set names of a
    # refused part (for the client's message) raised pyarrow's OSError, which the output
    # transaction took for its own (--workers 2, issue 40).
    pd.DataFrame(_rows(["d0", "d1"]), columns=["dataset", "algorithm", "fold", "error"]
                 ).to_parquet(tmp_path / "p.parquet", index=False)
    data = bytearray((tmp_path / "p.parquet").read_bytes())
    data[4:40] = b"\xab" * 36
    (tmp_path / "p.parquet").write_bytes(bytes(data))
    part = split_input(tmp_path / "p.parquet")[0]
    with pytest.raises(ValueError, match=r"p\.parquet: not a readable Parquet file"):
        load_part(part)
    assert part_names(part) == ((), None)


def test_a_csv_range_that_cannot_be_read_is_said_as_a_fault_of_the_input(tmp_path):
    # The file planned in ranges is gone when a worker reads its range (a directory in its
    # place: the read's OSError). It was an OSError, which the output transaction of
    # `rank --workers 2` took for its own ("cannot write the output folder"; issue 40).
    from multitest import InputError

    path = tmp_path / "r.csv"
    path.write_text("dataset,algorithm,fold,error\n" + "".join(
        f"{d},{a},{f},{e}\n" for d, a, f, e in _rows(["d0", "d1", "d2", "d3"])))
    part = split_input(path, range_bytes=60)[1]
    path.unlink()
    path.mkdir()
    with pytest.raises(InputError) as raised:
        load_part(part)
    assert str(raised.value) == (f"cannot read {path}, the data sets starting in bytes "
                                 f"{part.span[0]}-{part.span[1]}: Is a directory")


def test_parts_of_one_input_have_one_test_train_ratio(tmp_path):
    # a folder of CSV parts, each data set in one part, each with a test_train_ratio column
    def part(name, dataset, ratio):
        pd.DataFrame({"dataset": dataset, "algorithm": ["a", "a", "b", "b"],
                      "replication": [1, 2, 1, 2], "fold": 1, "error": [0.1, 0.2, 0.3, 0.4],
                      "test_train_ratio": ratio}).to_csv(tmp_path / name, index=False)

    part("1.csv", "d1", 0.25)
    part("2.csv", "d2", 0.25)
    assert load_results(tmp_path).test_train_ratio == 0.25
    part("2.csv", "d2", 0.5)
    with pytest.raises(InputError, match=r"2.csv: test/train ratio 0.5 here and 0.25 in the "
                                         r"first part \(.*1.csv\): one design"):
        load_results(tmp_path)
