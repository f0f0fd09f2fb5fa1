"""Tests of multitest.outputs: result.json, the CSV tables and the compact pairwise file."""
import errno
import json
import os

import numpy as np
import pandas as pd
import pytest
from helpers import make_frame
from hypothesis import given, settings
from hypothesis import strategies as st

from multitest import MultitestError, rank
from multitest.outputs import _csv, _json, read_pairwise, write_outputs
from multitest.outputs._tables import (
    PAIRWISE_COLUMNS,
    pairwise_frame,
    stage_table_parts,
    stage_tables,
)
from multitest.outputs._pairwise_file import PAIRWISE_FILE, write_pairwise_file
from multitest.outputs._csv import neutralize_frame, write_csv, write_csv_parts
from multitest.outputs._summary import summary_text
from multitest.outputs._json import to_dict


@pytest.fixture(scope="module")
def ranking(example):
    return rank(example, "training_time")


def test_small_runs_keep_every_pair_inline(ranking, tmp_path):
    # 38 data sets x 28 pairs = 1064 <= INLINE_PAIRS_LIMIT: inline, and pairwise.csv.
    written = write_outputs(ranking, tmp_path)
    doc = json.loads((tmp_path / "result.json").read_text())
    assert doc["pairwise_file"] is None and doc["n_pairwise_tests"] == 38 * 28
    assert all(len(d["pairwise"]) == 28 and "edges" in d for d in doc["datasets"].values())
    assert "pairwise.csv" in written and PAIRWISE_FILE not in written
    assert (tmp_path / "result.json").read_text().startswith("{\n")   # indented


def test_large_runs_refer_to_the_pairwise_file(ranking, tmp_path, monkeypatch):
    monkeypatch.setattr(_json, "INLINE_PAIRS_LIMIT", 1000)
    written = write_outputs(ranking, tmp_path)
    doc = json.loads((tmp_path / "result.json").read_text())
    assert doc["pairwise_file"] == PAIRWISE_FILE == "pairwise.npz"
    assert doc["n_pairwise_tests"] == 38 * 28
    assert PAIRWISE_FILE in written and "pairwise.csv" not in written
    optdigits = doc["datasets"]["optdigits"]
    assert set(optdigits) == {"cost_ties", "tested", "n_edges"}
    assert optdigits["n_edges"] == len(ranking.dataset("optdigits").edges()) > 0
    # The rest of each data set's entry is in the tables that dataset_tables names.
    tables = doc["dataset_tables"]
    assert set(tables.values()) <= set(written)
    orders = pd.read_csv(tmp_path / tables["order"]).set_index(["dataset", "stage"])
    assert orders.loc[("optdigits", "multitest")].tolist() == \
        list(ranking.dataset("optdigits").order)
    ranks = pd.read_csv(tmp_path / tables["ranks"], index_col="dataset").loc["optdigits"]
    assert ranks.to_dict() == ranking.dataset("optdigits").ranks
    means = pd.read_csv(tmp_path / tables["mean_errors"], index_col="dataset").loc["optdigits"]
    assert means.to_dict() == ranking.dataset("optdigits").mean_errors
    # Written one data set at a time: the text of the whole document, exactly.
    assert (tmp_path / "result.json").read_text() == json.dumps(to_dict(ranking))
    # Every pair, exactly: the file reads back to the table of pairwise.csv.
    back = read_pairwise(tmp_path / PAIRWISE_FILE)
    pd.testing.assert_frame_equal(back, pairwise_frame(ranking), check_exact=True)
    assert back["override"].sum() == sum(d["n_edges"] for d in doc["datasets"].values())


def test_pairwise_file_stores_what_cannot_be_recomputed(ranking, tmp_path):
    path = tmp_path / "p.npz"
    write_pairwise_file(ranking, path)
    with np.load(path, allow_pickle=False) as archive:
        assert set(archive.files) == {"format", "settings", "datasets", "algorithms", "errors",
                                      "prior", "override"}
        np.testing.assert_array_equal(archive["errors"], ranking.results.errors)
        assert archive["prior"].dtype == np.uint16 and archive["prior"].shape == (38, 8)
        assert list(archive["algorithms"]) == list(ranking.algorithms)
        bits = np.unpackbits(archive["override"], count=38 * 28).astype(bool)
        np.testing.assert_array_equal(bits, pairwise_frame(ranking)["override"])
        # The cheapest algorithm of the first data set is at prior position 0.
        first = ranking.datasets[0]
        assert archive["algorithms"][archive["prior"][0, 0]] == first.prior_order[0]
        settings = json.loads(str(archive["settings"][0]))
        assert settings["test"] == ranking.settings.test and settings["replications"] == 5


def test_read_pairwise_recomputes_with_the_test_train_ratio(example, tmp_path):
    # The corrected t test with a test/train ratio: the file keeps the ratio, so stage 1 is
    # recomputed with the same design (without it the p-values would differ).
    ranking = rank(example, "training_time", test="corrected-t", test_train_ratio="1/4",
                   datasets=example.datasets[:5])
    path = tmp_path / "p.npz"
    write_pairwise_file(ranking, path)
    pd.testing.assert_frame_equal(read_pairwise(path), pairwise_frame(ranking), check_exact=True)


def test_read_pairwise_of_some_data_sets(ranking, tmp_path):
    path = tmp_path / "p.npz"
    write_pairwise_file(ranking, path)
    full = pairwise_frame(ranking)
    part = read_pairwise(path, datasets=["zoo", "optdigits"])
    expected = pd.concat([full[full["dataset"] == d] for d in ("zoo", "optdigits")],
                         ignore_index=True)
    pd.testing.assert_frame_equal(part, expected, check_exact=True)
    with pytest.raises(MultitestError, match="no data set 'nope'"):
        read_pairwise(path, datasets=["nope"])


def test_read_pairwise_checks_the_recomputed_decisions(ranking, tmp_path):
    # A file whose decisions do not match what the tests give now is refused, not trusted.
    path = tmp_path / "p.npz"
    write_pairwise_file(ranking, path)
    with np.load(path) as archive:
        arrays = dict(archive)
    arrays["override"] = arrays["override"] ^ np.uint8(1)
    np.savez(path, **arrays)
    with pytest.raises(MultitestError, match="recomputed decisions differ"):
        read_pairwise(path)


def test_pairwise_file_of_a_custom_test_keeps_its_statistics(tmp_path):
    from scipy import stats

    from multitest import register_test

    @register_test("test-output-welch")
    def welch(a, b):
        result = stats.ttest_ind(a, b, equal_var=False)
        return (0.0, 1.0) if np.isnan(result.pvalue) else (result.statistic, result.pvalue)

    errors = np.random.default_rng(5).uniform(0.1, 0.3, (3, 4, 10))
    ranking = rank(make_frame(errors), ["a0", "a1", "a2", "a3"], test="test-output-welch")
    path = tmp_path / "p.npz"
    write_pairwise_file(ranking, path)
    with np.load(path) as archive:
        assert {"statistic", "pvalue"} <= set(archive.files)
    pd.testing.assert_frame_equal(read_pairwise(path), pairwise_frame(ranking),
                                  check_exact=True)


def test_pairwise_file_keeps_infinite_statistics_and_corrections(tmp_path):
    # A constant difference gives an infinite statistic; Holm adjusts the p-values.
    rng = np.random.default_rng(4)
    errors = rng.uniform(0.1, 0.3, (3, 4, 10))
    errors[0, 1] = errors[0, 0] - 1 / 32
    ranking = rank(make_frame(errors), ["a0", "a1", "a2", "a3"], correction="holm")
    path = tmp_path / "p.npz"
    write_pairwise_file(ranking, path)
    with np.load(path) as archive:   # recomputed on reading, with the correction
        assert "pvalue_adjusted" not in archive.files
    back = read_pairwise(path)
    pd.testing.assert_frame_equal(back, pairwise_frame(ranking), check_exact=True)
    assert np.isinf(back["statistic"]).any()
    assert (back["pvalue_adjusted"] >= back["pvalue"]).all()
    assert (back["pvalue_adjusted"] > back["pvalue"]).any()


def test_pairwise_frame_matches_the_pairs_of_each_data_set(ranking):
    frame = pairwise_frame(ranking)
    assert list(frame.columns) == list(PAIRWISE_COLUMNS) and len(frame) == 38 * 28
    expected = pd.DataFrame([dict(p, dataset=r.name) for r in ranking.datasets
                             for p in r.pairs()])[list(PAIRWISE_COLUMNS)]
    pd.testing.assert_frame_equal(frame, expected, check_exact=True)


def test_stage_tables_match_the_data_set_results(ranking):
    tables = stage_tables(ranking)
    algorithms = list(ranking.algorithms)
    means = tables["mean_errors.csv"].set_index("dataset")
    costs = tables["costs.csv"].set_index("dataset")
    for r in ranking.datasets:
        assert means.loc[r.name].tolist() == [r.mean_errors[a] for a in algorithms]
        assert costs.loc[r.name].tolist() == list(map(float, r.costs))
    orders = tables["orders.csv"]
    assert list(orders.columns[:2]) == ["dataset", "stage"] and len(orders) == 2 * 38
    optdigits = orders[orders["dataset"] == "optdigits"].set_index("stage")
    assert optdigits.loc["multitest"].tolist()[1:] == list(ranking.dataset("optdigits").order)
    assert optdigits.loc["prior"].tolist()[1:] == list(ranking.dataset("optdigits").prior_order)
    assert orders["dataset"].tolist() == sorted(orders["dataset"].tolist())


def test_large_result_json_is_valid_and_complete(ranking, tmp_path, monkeypatch):
    small = json.loads(json.dumps(to_dict(ranking)))
    monkeypatch.setattr(_json, "INLINE_PAIRS_LIMIT", 0)
    write_outputs(ranking, tmp_path)
    doc = json.loads((tmp_path / "result.json").read_text())
    for key in ("final_order", "average_positions", "friedman", "settings", "notes"):
        assert doc[key] == small[key]
    # More second-pass pairs than the limit: their p-values and effect sizes are in the
    # two CSV tables, named instead of repeated.
    second = doc["second_pass"]
    tabled = ("significant", "pvalues", "effect_sizes")
    assert second["pair_tables"] == {"significant": "posthoc.csv", "pvalues": "posthoc.csv",
                                     "effect_sizes": "effect_sizes.csv"}
    assert all(second[key] is None for key in tabled)
    assert {k: v for k, v in second.items() if k not in tabled and k != "pair_tables"} == \
        {k: v for k, v in small["second_pass"].items() if k not in tabled and k != "pair_tables"}
    posthoc = pd.read_csv(tmp_path / "posthoc.csv")
    assert [[a, b, p] for a, b, p in zip(posthoc.a, posthoc.b, posthoc.pvalue)] == \
        small["second_pass"]["pvalues"]
    assert [[a, b] for a, b, s in zip(posthoc.a, posthoc.b, posthoc.significant) if s] == \
        small["second_pass"]["significant"]
    effects = pd.read_csv(tmp_path / "effect_sizes.csv", keep_default_na=False)
    assert effects.columns.tolist() == list(small["second_pass"]["effect_sizes"][0])
    assert len(effects) == len(small["second_pass"]["effect_sizes"])


def test_summary_shortens_long_lists():
    # 30 algorithms, clear differences: many second-pass overrides, a long prior.
    rng = np.random.default_rng(2)
    L = 30
    errors = 0.3 - 0.008 * np.arange(L)[None, :, None] + rng.normal(0, 0.003, (40, L, 10))
    names = [f"alg{j:02d}" for j in range(L)]
    ranking = rank(make_frame(errors, algorithms=names), names)
    text = summary_text(ranking)
    second = [line for line in text.splitlines() if line.startswith("Second pass")][0]
    assert "... (30 in all)" in second
    n_edges = len(ranking.second_pass.edges())
    assert n_edges > 20 and f"... ({n_edges} in all)" in second
    assert all(f"{position} " in text for position in range(1, L + 1))   # the full order


@pytest.mark.parametrize("seed", [0, 1])
def test_write_csv_writes_what_pandas_writes(tmp_path, seed):
    # Reference: pandas' own to_csv, byte for byte, on floats of every magnitude (the
    # shortest repr: 0.1, 1.0, 1e-300, 1e+22, 123456789.0), names needing quotes,
    # integers and booleans.
    rng = np.random.default_rng(seed)
    n = 500
    values = rng.uniform(0, 1, n) * 10.0 ** rng.integers(-300, 300, n)
    values[:6] = [0.1, 1.0, 1e-300, 1e22, 123456789.0, -0.0]
    frame = pd.DataFrame({"dataset": [f"d{i}" if i % 7 else f'a,"b" {i}' for i in range(n)],
                          "x": values, "y": rng.uniform(0, 1, n).round(4),
                          "rank": rng.integers(1, 100, n), "flag": rng.random(n) < 0.5})
    write_csv(frame, tmp_path / "ours.csv")
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
    # Missing and infinite values: pandas writes them (as '' and 'inf').
    frame.loc[3, "x"] = np.nan
    write_csv(frame, tmp_path / "ours.csv")
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 60), batch=st.integers(1, 7), seed=st.integers(0, 2**32 - 1),
       names=st.lists(st.text(alphabet=st.sampled_from('ab ,"\r\n\u00e9-'), max_size=5),
                      min_size=1, max_size=6))
def test_write_csv_equals_pandas_on_any_table(rows, batch, seed, names):
    # Reference: pandas' to_csv, byte for byte: NaN (empty field), infinities, -0.0,
    # floats of every magnitude, repeated floats, names needing quotes (or empty),
    # integers, booleans, rows written in batches of any size; names starting with "-"
    # carry OWASP's leading quote (neutralize_frame) in both.
    import tempfile

    rng = np.random.default_rng(seed)
    floats = rng.uniform(-1, 1, rows) * 10.0 ** rng.integers(-300, 300, rows)
    floats[rng.random(rows) < 0.2] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.1])
    frame = pd.DataFrame({"name": rng.choice(np.array(names, dtype=object), rows),
                          'x,"y"': floats, "k": rng.integers(-5, 10**12, rows),
                          "flag": rng.random(rows) < 0.5,
                          # few distinct values (each written once), +0.0 and -0.0 apart
                          "cost": rng.choice([0.0, -0.0, 0.5, 1e-300, 3.0, np.nan], rows)})
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        patch.setattr(_csv, "_CSV_BATCH_ROWS", batch)
        write_csv(frame, os.path.join(folder, "ours.csv"))
        neutralize_frame(frame).to_csv(os.path.join(folder, "pandas.csv"), index=False)
        with open(os.path.join(folder, "ours.csv"), "rb") as ours, \
                open(os.path.join(folder, "pandas.csv"), "rb") as theirs:
            assert ours.read() == theirs.read()


def test_write_csv_of_categorical_columns_equals_pandas(tmp_path):
    # Reference: pandas' to_csv of the same cells as plain text columns, neutralised:
    # categories needing quotes, OWASP's leading quote, a blank.
    frame = pd.DataFrame({
        "name": pd.Categorical.from_codes([0, 1, 2, 0, 3], categories=["=x", 'b,"c"', "", "k"]),
        "stage": pd.Categorical.from_codes([1, 1, 0, 0, 1], categories=["@q", "z"]),
        "value": [0.5, -0.0, np.nan, 1e300, 3.0]})
    write_csv(frame, tmp_path / "ours.csv")
    neutralize_frame(frame.astype({"name": object, "stage": object})).to_csv(
        tmp_path / "pandas.csv", index=False)
    assert (tmp_path / "ours.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
    assert (tmp_path / "ours.csv").read_text().splitlines()[1] == "'=x,z,0.5"


@pytest.mark.parametrize("failing", ["pairwise.npz", "result.json", "orders.csv"])
def test_a_failed_write_names_its_own_file(ranking, failing, tmp_path, monkeypatch):
    # A full disk fails write() with an error naming no file; the pairwise file and
    # result.json are written on threads of their own meanwhile, so the error names the
    # file whose writer failed (not the newest file of the folder), and the folder is
    # left as it was.
    from multitest.outputs import _write

    def full(writer, name):
        def write(*args, **kwargs):
            if name == failing or (name == "csv" and str(args[1]).endswith(failing)):
                raise OSError(errno.ENOSPC, "No space left on device")
            return writer(*args, **kwargs)
        return write
    monkeypatch.setattr(_json, "INLINE_PAIRS_LIMIT", 0)     # a large run: pairwise.npz
    monkeypatch.setattr(_write, "write_pairwise_file",
                        full(_write.write_pairwise_file, "pairwise.npz"))
    monkeypatch.setattr(_write, "write_json", full(_write.write_json, "result.json"))
    monkeypatch.setattr(_write, "write_csv_parts", full(_write.write_csv_parts, "csv"))
    out = tmp_path / "out"
    with pytest.raises(MultitestError) as info:
        write_outputs(ranking, out)
    assert str(info.value) == (f"cannot write the output folder {out}: {out / failing}: "
                               "No space left on device")
    assert not out.exists()     # as it was: the folder the write created is gone again


def test_small_result_json_is_indented_with_one_line_per_list(ranking, tmp_path):
    # Reference: the document itself (to_dict), read back by the json module.
    write_outputs(ranking, tmp_path)
    text = (tmp_path / "result.json").read_text()
    assert json.loads(text) == json.loads(json.dumps(to_dict(ranking)))
    # The pairs are DataSetResult.pairs() with infinities as strings.
    doc = json.loads(text)
    for r in ranking.datasets:
        expected = [dict(p, **{k: _json._number(p[k]) for k in ("statistic", "pvalue",
                                                                  "pvalue_adjusted")})
                    for p in r.pairs()]
        got = doc["datasets"][r.name]["pairwise"]
        # ... plus the effect-size columns (tested in test_effect_sizes.py).
        assert [{k: g[k] for k in e} for g, e in zip(got, expected)] == expected
        assert all({"mean_difference", "ci_low", "ci_high"} <= set(g) for g in got)
    line = next(t for t in text.splitlines() if '"pairwise": [' in t)
    assert line.endswith("],") or line.endswith("]")   # the whole list on its line
    # A name that looks like the placeholder survives.
    frame = make_frame(np.random.default_rng(2).uniform(0.1, 0.3, (2, 3, 10)),
                       datasets=["\x000\x00", "b"])
    odd = rank(frame, ["a0", "a1", "a2"])
    write_outputs(odd, tmp_path / "odd")
    assert json.loads((tmp_path / "odd" / "result.json").read_text()) == \
        json.loads(json.dumps(to_dict(odd)))


def test_large_result_json_in_batches_is_the_whole_document(ranking, monkeypatch):
    import io

    monkeypatch.setattr(_json, "INLINE_PAIRS_LIMIT", 1000)
    for batch in (1, 5, 38, 100):
        handle = io.StringIO()
        _json._write_large_json(ranking, handle, batch=batch)
        assert handle.getvalue() == json.dumps(to_dict(ranking))


# -- positions and error ranks, named (issue 18 item 1) --------------------------------------

def test_result_json_and_final_order_csv_carry_both_averages(ranking, tmp_path):
    doc = to_dict(ranking)
    assert doc["average_positions"] == ranking.average_positions
    assert doc["average_error_ranks"] == ranking.average_error_ranks
    fe = ranking.friedman_errors
    assert doc["friedman_errors"] == {"statistic": fe.statistic, "pvalue": fe.pvalue,
                                      "df": 7, "ties": "corrected", "all_tied": False,
                                      "rejected": True}
    positions = doc["explanations"]["positions"]
    assert [p["algorithm"] for p in positions] == list(ranking.final_order)
    assert all(p["comparisons"] for p in positions[1:])
    tables = stage_tables(ranking)
    final = tables["final_order.csv"]
    assert list(final.columns) == ["position", "algorithm", "average_position",
                                   "average_error_rank"]
    assert final["average_error_rank"].tolist() == [ranking.average_error_ranks[a]
                                                    for a in ranking.final_order]
    assert "average_error_rank" in tables["second_pass.csv"].columns


def test_summary_names_positions_and_error_ranks(ranking):
    text = summary_text(ranking)
    header = next(line for line in text.splitlines() if line.startswith("position"))
    assert "average position" in header and "average error rank" in header
    assert "Friedman on positions: chi2" in text and "Friedman on error ranks: chi2" in text
    # svr: best average error rank (2.447, R: tests/fixtures/friedman_errors_r.csv), 8th.
    row = next(line for line in text.splitlines() if line.startswith("8 ")).split()
    assert row[1:4] == ["svr", "5.00", "2.45"]
    assert "average rank" not in text


def test_summary_columns_align_on_the_printed_names():
    # Names printed as escapes (ESC, BEL, U+202E: 4 and 6 characters each) or two columns a
    # character (CJK): the column after the name starts at the same printed column on every
    # row of what the terminal shows (the CLI escapes the whole text once more).
    from multitest._format import escape_terminal, printed_width

    names = ["knn", "red\x1b[31m", "evil\u202eflip", "\u6c7a\u5b9a\u6728", "bell\x07"]
    errors = 0.2 + 0.01 * np.arange(5)[None, :, None] + np.zeros((4, 5, 10))
    text = escape_terminal(summary_text(rank(make_frame(errors, algorithms=names), names)))
    lines = text.splitlines()
    first = lines.index(next(line for line in lines if line.startswith("position")))
    column = lines[first].index("average position")
    for line, name in zip(lines[first + 2:], names):
        printed = escape_terminal(name)
        after = line.index(printed) + len(printed)
        value = after + len(line[after:]) - len(line[after:].lstrip())
        assert printed_width(line[:value]) == column, line
    assert "red\\x1b[31m" in text and "\x1b" not in text and "\u6c7a" in text


def test_summary_says_when_positions_reject_and_errors_do_not():
    # Identical errors on every data set: the positions are the cost order.
    errors = np.tile(np.linspace(0.1, 0.2, 10), (6, 4, 1))
    ranking = rank(make_frame(errors), ["a0", "a1", "a2", "a3"])
    text = summary_text(ranking)
    assert ("Note: the Friedman test rejects on average positions (p = "
            in text and "but not on average error ranks (p = 1)" in text)
    assert to_dict(ranking)["explanations"]["positions_only"] == ranking.positions_only


def _partial_ranking(example):
    frame = example.to_frame()
    frame.loc[(frame["dataset"] == "iris") & (frame["algorithm"] == "mlp")
              & (frame["fold"] == 1), "error"] = np.nan
    return rank(frame, "training_time", missing="partial", second_pass="wilcoxon")


def _large_ranking():
    # 700 data sets x 80 algorithms: the ranks and orders tables whole, and in parts.
    rng = np.random.default_rng(7)
    S, L = 700, 80
    errors = (rng.uniform(0.1, 0.3, (S, 1, 1)) + np.linspace(0, 0.05, L)[None, :, None]
              + rng.normal(0, 0.01, (S, L, 10))).round(4)
    names = [f"x{j:02d}" for j in range(L)]
    frame = make_frame(errors, datasets=[f"s{(s * 37) % S:03d}" for s in range(S)],
                       algorithms=names)
    return rank(frame, names)


@pytest.mark.parametrize("which", ["complete", "partial", "large"])
def test_stage_tables_written_in_parts_are_the_whole_tables(example, which, tmp_path):
    # Reference: the tables made whole (stage_tables) and written by write_csv; in parts of
    # 1 or 650 data sets (a large part, then a small one), 7 and all at once, byte for
    # byte the same files.
    ranking = {"complete": lambda: rank(example, "training_time"),
               "partial": lambda: _partial_ranking(example), "large": _large_ranking}[which]()
    whole = stage_tables(ranking)
    for name, frame in whole.items():
        write_csv(frame, tmp_path / name)
    S = len(ranking.datasets)
    for step in (7, 650, S) if which == "large" else (1, 7, S):
        for name, parts in stage_table_parts(ranking, datasets=step).items():
            parts = list(parts)
            if name in ("ranks.csv", "mean_errors.csv", "costs.csv"):
                assert len(parts) == -(-S // step)
            write_csv_parts(parts, tmp_path / f"parts-{name}")
            assert (tmp_path / f"parts-{name}").read_bytes() == (tmp_path / name).read_bytes()
    if which == "partial":   # the blanks after the ordered algorithms, in both rows
        orders = whole["orders.csv"].set_index(["dataset", "stage"])
        assert orders.loc[("iris", "multitest")].tolist()[-1] == ""
        assert orders.loc[("iris", "prior")].tolist()[-1] == ""
        assert list(ranking.dataset("iris").ranks) == list(ranking.algorithms)
    if which == "large":
        assert whole["ranks.csv"].shape == (700, 81)
        assert whole["orders.csv"]["dataset"].tolist()[:4] == ["s000", "s000", "s001", "s001"]


def test_data_set_results_read_their_row_of_the_shared_arrays(example):
    # The order, prior order and ranks of each data set against the cost-ordered sort of
    # its overrides (multitest.engine.cost_ordered_sort, the reference implementation).
    from multitest.engine import cost_ordered_sort
    from multitest.engine._per_dataset import DataSetOrders

    ranking = rank(example, "training_time")
    for r in ranking.datasets:
        assert type(r.orders) is DataSetOrders and r.orders is ranking.datasets[0].orders
        sort = cost_ordered_sort(r.overrides())
        assert r.order == tuple(r.prior_order[i] for i in sort)
        assert r.ranks == {a: k for k, a in enumerate(r.order, start=1)}
        assert list(r.ranks) == list(r.order)
    frame = ranking.ranks_frame()
    assert frame.dtypes.unique().tolist() == [np.dtype(np.int64)]
    assert frame.loc["optdigits"].to_dict() == ranking.dataset("optdigits").ranks
    pd.testing.assert_frame_equal(ranking.ranks_frame(slice(3, 5)), frame.iloc[3:5])


def test_the_commit_hashes_each_file_as_it_is_on_disk(tmp_path):
    # Reference: hashlib.sha256 of the bytes on disk when the manifest is written; in
    # the order of the names given, whatever their sizes.
    import hashlib

    from multitest.outputs import _transaction

    (tmp_path / "a.txt").write_text("abc")
    (tmp_path / "b.txt").write_text("x" * 10_000)
    got = _transaction._digests(str(tmp_path), ["a.txt", "b.txt"])
    assert got == [{"size": 3, "sha256": hashlib.sha256(b"abc").hexdigest()},
                   {"size": 10_000, "sha256": hashlib.sha256(b"x" * 10_000).hexdigest()}]
    (tmp_path / "a.txt").write_text("xyz")          # changed: read again
    assert _transaction._digests(str(tmp_path), ["a.txt"])[0]["sha256"] == \
        hashlib.sha256(b"xyz").hexdigest()
