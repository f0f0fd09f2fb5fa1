"""Strictness of multitest.inputs._results: what a fast path could misread is refused in one line.

Every case is run through each reader a file can take: pyarrow's CSV reader (when
installed), the C reader of pandas, and the text path alone; each must give the
same one-line error naming the file, the row (header = line 1) and the field,
without a warning line.  The reference of each expected row is the file itself
(written line by line in the test).  Parquet input (the ``parquet`` extra) must
give the same arrays as the CSV of the same rows.
"""
import warnings

import numpy as np
import pytest
from helpers import make_frame

from multitest import InputError, load_results
from multitest.cli import main
from multitest.inputs import _results as results

HEADER = "dataset,algorithm,replication,fold,error"


def _rows(edit=None):
    """Lines of a clean 5x2 cv file (2 data sets x 2 algorithms); edit(lines) changes them."""
    rng = np.random.default_rng(1)
    lines = [HEADER] + [f"d{s},a{j},{f // 2 + 1},{f % 2 + 1},{rng.uniform(0.1, 0.3):.4f}"
                        for s in range(2) for j in range(2) for f in range(10)]
    if edit is not None:
        edit(lines)
    return "\n".join(lines) + "\n"


def _set(line, field, value):
    def edit(lines):
        parts = lines[line - 1].split(",")
        parts[field] = value
        lines[line - 1] = ",".join(parts)
    return edit


@pytest.fixture(params=["pyarrow", "pandas", "text"])
def reader(request, monkeypatch):
    """Which path reads the file first (the others disabled)."""
    if request.param == "pyarrow":
        pytest.importorskip("pyarrow")
    if request.param != "pyarrow":
        monkeypatch.setattr(results, "_read_arrow", lambda *args: None)
    if request.param != "pandas":
        monkeypatch.setattr(results, "_read_pandas", lambda *args: None)
    return request.param


CASES = {
    # name: (edit of the lines, expected message fragment)
    "decimal comma in the first row": (_set(2, 4, "0,2884"),
                                       r"row 2, field 'error': 6 fields under a 5-column header"),
    "decimal comma in a later row": (_set(9, 4, "0,2884"),
                                     r"row 9, field 'error': 6 fields under a 5-column header"),
    "a field missing": (lambda lines: lines.__setitem__(5, "d0,a0,3,1"),
                        r"row 6, field 'error': 4 fields under a 5-column header: no value "
                        r"for 'error'"),
    "header only": (lambda lines: lines.__delitem__(slice(1, None)),
                    r"row 2: no data rows \(only a header\)"),
    # An accuracy column: its scale is read from the values, of which there are none (a
    # traceback of NumPy's nanmax on an empty array before).
    "header only, accuracies": (lambda lines: lines.__setitem__(
        slice(None), [HEADER.replace("error", "accuracy")]),
        r"row 2: no data rows \(only a header\)"),
    # pandas renamed the second 'error' to 'error.1' and the first was ranked, silently.
    "a column named twice": (lambda lines: lines.__setitem__(
        slice(None), [HEADER + ",error"] + [line + ",0.5" for line in lines[1:]]),
        r"row 1, field 'error': column 'error' is named twice in the header "
        r"\(columns 5 and 6\)"),
    "1e308 error": (_set(4, 4, "1e308"),
                    r"row 4, field 'error': value 1e308 is too large"),
    "-1e308 error": (_set(4, 4, "-1e308"),
                     r"row 4, field 'error': value -1e308 is too large"),
    "1e309 error (infinite)": (_set(4, 4, "1e309"),
                               r"row 4, field 'error': not a finite number: '1e309'"),
    "20-digit fold": (_set(7, 3, "12345678901234567890"),
                      r"row 7, field 'fold': fold 12345678901234567890 is out of range"),
    "20-digit replication": (_set(7, 2, "98765432109876543210"),
                             r"row 7, field 'replication': replication 98765432109876543210 is "
                             r"out of range"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_line_error_with_file_row_and_field(case, reader, tmp_path):
    edit, message = CASES[case]
    path = tmp_path / "bad.csv"
    path.write_text(_rows(edit))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no warning line either
        with pytest.raises(InputError, match=message) as info:
            load_results(path)
    text = str(info.value)
    assert text.startswith(str(path)) and "\n" not in text


@pytest.mark.parametrize("case", ["decimal comma in the first row", "20-digit fold",
                                  "header only", "1e308 error"])
def test_cli_prints_one_line_and_exits_2(case, tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text(_rows(CASES[case][0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status = main(["rank", str(path), "--order", "a0,a1"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and str(path) in err


@pytest.mark.parametrize("where", ["dataset", "algorithm", "value", "fold"])
def test_long_names_and_values_are_abbreviated(where, reader, tmp_path):
    # A 5 MB field (a broken file) is never echoed whole.
    huge = "x" * 5_000_000
    edits = {"dataset": lambda lines: lines.__delitem__(slice(2, 12)),   # d0/a0 fold missing
             "algorithm": lambda lines: lines.__setitem__(1, lines[1].replace("a0", huge)),
             "value": _set(3, 4, huge), "fold": _set(3, 3, huge)}
    path = tmp_path / "bad.csv"
    text = _rows(edits[where])
    if where == "dataset":
        text = text.replace("d0,", huge + ",")
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_results(path)
    message = str(info.value)
    assert len(message) < 600 + len(str(path)) and "characters)" in message
    assert "\n" not in message


def test_blank_column_names_of_trailing_commas_are_read(reader, tmp_path):
    # A spreadsheet's export with two empty columns at the end: two blank names are not a
    # name given twice.  Reference: the same file without them.
    path = tmp_path / "trailing.csv"
    plain = _rows().splitlines()
    path.write_text("\n".join(line + ",," for line in plain) + "\n")
    (tmp_path / "plain.csv").write_text("\n".join(plain) + "\n")
    got, want = load_results(str(path)), load_results(str(tmp_path / "plain.csv"))
    np.testing.assert_array_equal(got.errors, want.errors)


def test_long_column_name_is_abbreviated(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(_rows().replace("dataset", "y" * 1_000_000, 1))
    with pytest.raises(InputError, match="missing column 'dataset'") as info:
        load_results(path)
    assert len(str(info.value)) < 800


# -- multi-block files and Parquet ------------------------------------------------------

def _frame(S=30, L=12, seed=4):
    rng = np.random.default_rng(seed)
    return make_frame(np.round(rng.uniform(0.05, 0.4, (S, L, 10)), 4),
                      datasets=[f" ds {s} " for s in range(S)],
                      algorithms=[f"alg,{j}" if j % 3 else f"{j}" for j in range(L)])


def _same(a, b):
    np.testing.assert_array_equal(a.errors, b.errors)
    assert (a.datasets, a.algorithms, a.replications, a.folds_per_replication) == \
        (b.datasets, b.algorithms, b.replications, b.folds_per_replication)


def test_pyarrow_blocks_give_the_text_path_arrays(tmp_path, monkeypatch):
    # Blocks of 1 MB (each with its own dictionary of names, unified on reading), rows
    # shuffled so that names first appear in different blocks: the same arrays as the
    # text path, names in order of first appearance.
    pytest.importorskip("pyarrow")
    frame = _frame(S=1000).sample(frac=1.0, random_state=3)
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    assert path.stat().st_size > 2.5 * 2 ** 20
    monkeypatch.setattr(results, "_read", lambda name: pytest.fail("text path used"))
    monkeypatch.setattr(results, "_read_pandas", lambda *args: None)
    fast = load_results(path)
    monkeypatch.undo()
    for name in ("_read_arrow", "_read_pandas"):
        monkeypatch.setattr(results, name, lambda *args: None)
    _same(fast, load_results(path))
    assert fast.datasets[0] == frame["dataset"].iloc[0].strip()


def test_parquet_reads_as_the_csv(tmp_path):
    pytest.importorskip("pyarrow")
    frame = _frame()
    frame.to_csv(tmp_path / "r.csv", index=False)
    frame.to_parquet(tmp_path / "r.parquet", index=False)
    _same(load_results(tmp_path / "r.parquet"), load_results(tmp_path / "r.csv"))
    # Integer folds, float32 values and plain (not dictionary) names are read too.
    typed = frame.astype({"replication": "int8", "fold": "int64", "error": "float32"})
    typed.to_parquet(tmp_path / "t.parquet", index=False)
    np.testing.assert_array_equal(load_results(tmp_path / "t.parquet").errors,
                                  load_results(typed).errors)


def test_parquet_errors_name_the_row(tmp_path):
    pytest.importorskip("pyarrow")
    frame = _frame(S=2, L=3)
    frame.loc[7, "error"] = np.nan
    frame.to_parquet(tmp_path / "r.parquet", index=False)
    with pytest.raises(InputError, match=r"r.parquet, row 8, field 'error': missing value"):
        load_results(tmp_path / "r.parquet")
    (tmp_path / "x.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        load_results(tmp_path / "x.parquet")
    with pytest.raises(InputError, match="no such file"):
        load_results(tmp_path / "absent.parquet")
    # A schema naming a column twice (pyarrow allows it): said so, for a whole file and for
    # a part of row groups (the cluster's), where pyarrow's "Multiple matches for
    # FieldRef.Name(error)" message was shown.
    import pyarrow as pa
    import pyarrow.parquet as pq

    from multitest.inputs._split import load_part, split_input

    table = pa.Table.from_pandas(_frame(S=2, L=3), preserve_index=False)
    pq.write_table(table.append_column("error", table["error"]), tmp_path / "d.parquet",
                   row_group_size=10)
    message = (r"d.parquet, field 'error': column 'error' is named twice in the schema "
               r"\(columns 5 and 6\)")
    with pytest.raises(InputError, match=message):
        load_results(tmp_path / "d.parquet")
    part = split_input(tmp_path / "d.parquet", group_rows=1)[0]
    with pytest.raises(InputError, match=message):
        load_part(part)


def test_parquet_without_pyarrow_says_how_to_install(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name.split(".")[0] == "pyarrow":
            raise ImportError("no pyarrow")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(InputError, match=r"needs pyarrow: pip install 'multitest-rank\[parquet\]'"):
        load_results(tmp_path / "r.parquet")
    # CSV files are still read (by pandas).
    path = tmp_path / "r.csv"
    path.write_text(_rows())
    assert load_results(path).errors.shape == (2, 2, 10)
