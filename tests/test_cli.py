"""Tests of multitest.cli: the command line, its outputs and its errors."""
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from helpers import make_frame

from multitest import example_path
from multitest.cli import main

EXAMPLE = example_path()


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_rank_writes_json_and_tables(tmp_path, capsys):
    out_dir = tmp_path / "out"
    status, out, err = run(["rank", EXAMPLE, "--costs", "training_time", "--out",
                            str(out_dir)], capsys)
    assert status == 0, err
    doc = json.loads((out_dir / "result.json").read_text())
    assert doc["final_order"][0] in out and "Friedman on positions: chi2" in out
    for name in ("final_order.csv", "ranks.csv", "orders.csv", "pairwise.csv", "posthoc.csv",
                 "second_pass.csv", "mean_errors.csv", "costs.csv"):
        assert (out_dir / name).stat().st_size > 0, name
    pairwise = pd.read_csv(out_dir / "pairwise.csv")
    assert len(pairwise) == 38 * 28
    assert doc["settings"]["test"] == "combined-5x2cv-f"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".multitest-")]


def test_inline_order_and_options(capsys):
    status, out, err = run(["rank", EXAMPLE, "--order", "5nn,c45,lnp,mlp,mdt,svl,sv2,svr",
                            "--datasets", "optdigits,zoo", "--alpha", "0.1",
                            "--correction", "holm", "--test", "combined-5x2cv-t"], capsys)
    assert status == 0, err
    assert "test combined-5x2cv-t, alpha 0.1, correction holm" in out


def test_demo_prints_both_orders(capsys):
    status, out, err = run(["demo"], capsys)
    assert status == 0, err
    assert "cost profile: training_time" in out and "cost profile: space_complexity" in out
    assert out.count("Final order") == 2


def test_tests_lists_the_registry(capsys):
    status, out, _ = run(["tests"], capsys)
    assert status == 0
    assert "combined-5x2cv-f" in out and "(default)" in out and "wilcoxon" in out


def test_config_file_with_module_function_test(tmp_path, capsys, monkeypatch):
    (tmp_path / "my_tests.py").write_text(
        "from scipy import stats\n"
        "def welch(a, b):\n"
        "    r = stats.ttest_ind(a, b, equal_var=False)\n"
        "    return r.statistic, r.pvalue\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    config = tmp_path / "run.yaml"
    config.write_text("costs: training_time\ntest: my_tests:welch\nalpha: 0.05\n"
                      "datasets: [optdigits, zoo]\n")
    status, out, err = run(["rank", EXAMPLE, "--config", str(config)], capsys)
    assert status == 0, err
    assert "test my_tests:welch" in out or "welch" in out


def test_benavoli_from_the_command_line(tmp_path, capsys):
    accuracy = {"A": (50, 80), "B": (80, 50), "C": (55, 45), "D": (60, 85), "E": (65, 90)}
    path = tmp_path / "benavoli.csv"
    pd.DataFrame([(f"d{i}", a, v[i >= 10]) for i in range(20) for a, v in accuracy.items()],
                 columns=["dataset", "algorithm", "accuracy"]).to_csv(path, index=False)
    significant = {}
    for method in ("nemenyi", "wilcoxon", "sign"):
        out_dir = tmp_path / method
        status, _, err = run(["rank", str(path), "--order", "A,B,C,D,E", "--second-pass",
                              method, "--out", str(out_dir)], capsys)
        assert status == 0, err
        doc = json.loads((out_dir / "result.json").read_text())
        significant[method] = [sorted(p) for p in doc["second_pass"]["significant"]]
        if method != "nemenyi":
            p_ab = [p for a, b, p in doc["second_pass"]["pvalues"] if {a, b} == {"A", "B"}]
            assert p_ab == [1.0] and doc["second_pass"]["correction"] == "holm"
    assert ["A", "B"] in significant["nemenyi"]
    assert ["A", "B"] not in significant["wilcoxon"] + significant["sign"]


def _frame_csv(tmp_path, frame, name="bad.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


@pytest.fixture
def good_frame():
    return make_frame(np.random.default_rng(3).uniform(0.1, 0.3, (3, 3, 10)))


BAD_CASES = {
    "missing fold": (lambda f: f.drop(index=5), [], "missing fold"),
    "nan": (lambda f: f.assign(error=f["error"].where(f.index != 9, np.nan)), [],
            "row 11, field 'error': missing value"),
    "non-numeric": (lambda f: f.assign(error=f["error"].astype(object).where(f.index != 9, "x")),
                    [], "not a finite number"),
    "duplicate row": (lambda f: pd.concat([f, f.iloc[[0]]]), [], "duplicate row"),
    "one algorithm": (lambda f: f[f["algorithm"] == "a0"], [], "at least 2 algorithms"),
    "misspelled algorithm": (lambda f: f.replace({"algorithm": {"a2": "a_2"}}), [],
                             r"no cost for algorithm(s) a_2; the profile has a2 instead"),
    "unknown test": (lambda f: f, ["--test", "t-test"], "valid names"),
    "5x2 test on 10-fold": (lambda f: f.assign(replication=1, fold=f.groupby(
        ["dataset", "algorithm"]).cumcount() + 1), [], "needs 5x2 cross-validation"),
    "bad alpha": (lambda f: f, ["--alpha", "1.5"], "`alpha` must be"),
    "unknown data set": (lambda f: f, ["--datasets", "d0,dd"], "unknown name(s) dd"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_one_line_exit_2_and_nothing_lost(case, tmp_path, capsys, good_frame):
    edit, extra, message = BAD_CASES[case]
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "result.json").write_text("previous")
    path = _frame_csv(tmp_path, edit(good_frame))
    status, out, err = run(["rank", path, "--order", "a0,a1,a2", "--out", str(out_dir)]
                           + extra, capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("multitest: error: ")
    assert message in err and "Traceback" not in err
    assert os.listdir(out_dir) == ["result.json"]
    assert (out_dir / "result.json").read_text() == "previous"


@pytest.mark.parametrize("yaml_text, message", [
    ("costs: {a0: 1, a1: 2, a2: [\n", "row 2: malformed YAML"),
    ("costs: {a0: 1, a1: -2, a2: 3}\n", "cost must not be negative"),
    ("costs: {a0: 1, a1: 2}\n", "no cost for algorithm(s) a2"),
])
def test_bad_cost_profiles(tmp_path, capsys, good_frame, yaml_text, message):
    profile = tmp_path / "costs.yaml"
    profile.write_text(yaml_text)
    status, _, err = run(["rank", _frame_csv(tmp_path, good_frame), "--costs", str(profile)],
                         capsys)
    assert status == 2 and message in err and str(profile) in err
    assert err.count("\n") == 1


def test_prior_must_be_given_once(capsys, good_frame, tmp_path):
    path = _frame_csv(tmp_path, good_frame)
    for extra in ([], ["--order", "a0,a1,a2", "--costs", "training_time"]):
        status, _, err = run(["rank", path] + extra, capsys)
        assert status == 2 and "exactly one prior preference" in err


def test_console_script_end_to_end(tmp_path):
    # The installed `multitest` entry point, as a user runs it.
    exe = os.path.join(os.path.dirname(sys.executable), "multitest")
    done = subprocess.run([exe, "rank", EXAMPLE, "--costs", "training_time", "--datasets",
                           "optdigits"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    first = [line for line in done.stdout.splitlines() if line.startswith("1 ")]
    assert first and "svr" in first[0]
    bad = subprocess.run([exe, "rank", str(tmp_path / "nope.csv"), "--order", "a,b"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "no such file" in bad.stderr and "Traceback" not in bad.stderr


def test_stability_command_is_seeded_and_writes_outputs(tmp_path, capsys):
    argv = ["stability", EXAMPLE, "--costs", "training_time", "-B", "200", "--seed", "7",
            "--profiles", "space_complexity", "--alphas", "0.01,0.05"]
    status, first, err = run(argv + ["--out", str(tmp_path / "s"), "--report"], capsys)
    assert status == 0, err
    doc = json.loads((tmp_path / "s" / "stability.json").read_text())
    assert doc["bootstrap"] == 200 and doc["seed"] == 7
    html = (tmp_path / "s" / "stability.html").read_text()
    assert "<svg" in html and "http://" not in html.replace("http://www.w3.org", "")
    positions = pd.read_csv(tmp_path / "s" / "stability_positions.csv", index_col=0)
    np.testing.assert_allclose(positions.sum(axis=1), 1.0)
    status, second, _ = run(argv, capsys)
    strip = lambda text: text.split("\n(")[0]  # noqa: E731 (drop the timing line)
    assert status == 0 and strip(first) == strip(second)


def test_stability_bad_input(capsys):
    status, _, err = run(["stability", EXAMPLE, "--costs", "training_time", "--alphas", "a"],
                         capsys)
    assert status == 2 and "`alphas`" in err and err.count("\n") == 1
    status, _, err = run(["stability", EXAMPLE, "--costs", "training_time", "--datasets",
                          "zoo"], capsys)
    assert status == 2 and "at least" in err and err.count("\n") == 1


def test_large_runs_write_only_the_overall_dot_sources(tmp_path, capsys, monkeypatch):
    # Above INLINE_PAIRS_LIMIT pairwise results, without --format: no override_*/trace_*
    # DOT sources (they grow as S x L^2), a note on stderr, every pair in pairwise.npz.
    from multitest.outputs import _json

    monkeypatch.setattr(_json, "INLINE_PAIRS_LIMIT", 100)
    status, _, err = run(["rank", EXAMPLE, "--costs", "training_time", "--out",
                          str(tmp_path)], capsys)
    assert status == 0 and "per-data-set figures" in err
    files = os.listdir(tmp_path)
    assert {"final.dot", "cd.dot", "second_pass.dot", "pairwise.npz"} <= set(files)
    assert not [f for f in files if f.startswith(("override_", "trace_"))]


# -- onboarding: help, version, quiet; posthoc.csv when the gate closes --------------------------

def test_bare_command_prints_help_with_examples(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: multitest") and "examples:" in out
    assert "multitest rank results.csv --costs training_time" in out


def test_version(capsys):
    from multitest import __version__

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"multitest {__version__}"


def test_quiet_switches_progress_off_for_that_call_only(capsys, monkeypatch):
    import multitest.cli as cli
    from multitest import _progress as progress

    seen = []
    rank = cli._cmd_rank
    monkeypatch.setattr(cli, "_cmd_rank", lambda args: seen.append(progress.is_quiet())
                        or rank(args))
    argv = ["rank", str(example_path()), "--costs", "training_time", "--datasets", "iris,wine"]
    assert main([*argv, "--quiet"]) == 0 and main(argv) == 0
    assert seen == [True, False] and not progress.is_quiet()


def test_posthoc_csv_has_a_header_when_the_gate_closes(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["rank", str(example_path()), "--costs", "training_time", "--datasets",
                 "optdigits,iris,wine,zoo,car", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Warning: With 5 data sets the Friedman test cannot reject" in text
    frame = pd.read_csv(out / "posthoc.csv")
    assert list(frame.columns) == ["a", "b", "statistic", "pvalue", "significant"]
    assert frame.empty
    doc = json.loads((out / "result.json").read_text())
    assert doc["second_pass"]["applied"] is False
    assert doc["explanations"]["friedman_power"]["datasets_needed"] > 5


@pytest.mark.parametrize("command", ["rank", "stability"])
def test_command_help_shows_examples(command, capsys):
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert stop.value.code == 0 and "examples:" in out and f"multitest {command} results.csv" in out
    assert "--quiet" in out


# -- words that say what was computed (issue 18 items 1, 2, 5) ------------------------------

def test_demo_explains_all_eight_positions_and_names_no_unwritten_file(capsys):
    status, out, err = run(["demo"], capsys)
    assert status == 0, err
    for block in out.split("=== bundled report data")[1:]:
        why = block.split("Why this order:")[1]
        assert [line.split(" is ")[1].split(":")[0] for line in why.splitlines()
                if line.startswith("  ") and " is " in line][:8] == \
            ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"]
    assert "result.json" not in out and "more position" not in out
    assert "(ranked in " in out


def test_explain_prints_every_position_of_a_finished_run(tmp_path, capsys):
    out_dir = tmp_path / "out"
    assert run(["rank", EXAMPLE, "--costs", "training_time", "--out", str(out_dir)],
               capsys)[0] == 0
    doc = json.loads((out_dir / "result.json").read_text())
    status, out, err = run(["explain", str(out_dir)], capsys)
    assert status == 0, err
    sentences = [p["sentence"] for p in doc["explanations"]["positions"]]
    assert len(sentences) == 8 and all(f"  {s}" in out.splitlines() for s in sentences)
    assert out.startswith("Final order (best first): " + ", ".join(doc["final_order"]))
    # The result.json file itself is accepted too.
    assert run(["explain", str(out_dir / "result.json")], capsys)[1] == out


@pytest.mark.parametrize("content, message", [
    (None, "no result.json"),
    ('{"final_order": [', "row 1: not a result.json of multitest"),
    ('{"final_order": []}', "holds no explanations"),
    (b"\xff\xfe{", "not UTF-8"),
    ("[" * 100000 + "]" * 100000, "not a result.json of multitest (nested too deeply)"),
])
def test_explain_refuses_what_is_not_a_finished_run(tmp_path, capsys, content, message):
    # Written as a run (listed in its manifest): explain reads only such a file.
    from multitest.outputs import transaction

    folder = tmp_path / "run"
    with transaction(folder) as staging:
        if content is not None:
            with open(os.path.join(staging, "result.json"),
                      "wb" if isinstance(content, bytes) else "w") as handle:
                handle.write(content)
    status, out, err = run(["explain", str(folder)], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["rank", EXAMPLE, "--costs", "training_time", "--report"],
    ["rank", EXAMPLE, "--costs", "training_time", "--format", "svg"],
    ["stability", EXAMPLE, "--costs", "training_time", "--report"],
    ["demo", "--format", "svg"],
    ["demo", "--report"],
])
def test_writing_options_without_out_are_an_error(argv, capsys):
    status, out, err = run(argv, capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "--out DIR" in err


def test_stability_resolves_the_profile_names_of_a_run_folder(tmp_path, capsys):
    # A folder as `multitest run` writes it: results.csv and costs/NAME.yaml.
    folder = tmp_path / "experiment"
    (folder / "costs").mkdir(parents=True)
    frame = make_frame(np.random.default_rng(1).random((4, 3, 10)), algorithms=["a", "b", "c"])
    frame.to_csv(folder / "results.csv", index=False)
    for name, order in (("fit_time", "a,b,c"), ("model_size", "c,b,a")):
        costs = dict(zip(order.split(","), (1, 2, 3)))
        (folder / "costs" / f"{name}.yaml").write_text(
            f"name: {name}\nunit: seconds\ncosts: {json.dumps(costs)}\n")
    status, out, err = run(["stability", str(folder), "--costs", "fit_time", "--profiles",
                            "fit_time,model_size", "-B", "5"], capsys)
    assert status == 0, err
    assert "model_size" in out and "(analysed in " in out


@pytest.mark.parametrize("provenance", ['{"notes": ', "[" * 100000, b"\xff{"])
def test_an_experiment_folder_with_a_damaged_provenance_is_one_line(tmp_path, capsys,
                                                                    provenance):
    # A damaged provenance.json of a `multitest run` folder was a JSONDecodeError traceback.
    folder = tmp_path / "experiment"
    folder.mkdir()
    (folder / "results.csv").write_bytes(open(EXAMPLE, "rb").read())
    write = (folder / "provenance.json").write_bytes if isinstance(provenance, bytes) else \
        (folder / "provenance.json").write_text
    write(provenance)
    status, out, err = run(["rank", str(folder), "--costs", "training_time"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"multitest: error: {folder / 'provenance.json'}: unreadable "
                          "provenance of a multitest run")


def test_an_output_folder_with_a_deeply_nested_manifest_is_one_line(tmp_path, capsys):
    # json's RecursionError escaped the manifest's reader: a traceback.
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text("[" * 100000 + "]" * 100000)
    status, _, err = run(["rank", EXAMPLE, "--costs", "training_time", "--out", str(out)],
                         capsys)
    assert (status, err) == (2, f"multitest: error: {out}: unreadable manifest.json "
                                "(RecursionError); move it away or choose another --out\n")
