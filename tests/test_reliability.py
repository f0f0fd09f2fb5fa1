"""Reliability of the command line: killed runs, concurrent runs, re-runs, every user error.

The kill loop SIGKILLs real ``multitest rank`` processes (each in its own
process group, only those) at random instants and checks after every kill
that the output folder holds exactly the files of one complete run: the
references are the SHA-256 of every file of complete runs of the same two
commands (the outputs are deterministic).  Error messages are checked to be
one line, exit status 2, with the wording of multitest's own messages.
"""
import collections
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from helpers import make_frame, mounted

from multitest import example_path, load_profile
from multitest.cli import main
from multitest.outputs import read_run
from multitest.outputs._transaction import JOURNAL, MANIFEST

EXAMPLE = example_path()
ORDER = ",".join(f"a{j}" for j in range(30))
USER_FILES = ("input.csv", "store.sqlite")


def run(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:   # argparse's usage errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def outputs(out):
    """``{name: sha256}`` of the run's files in ``out`` (not the user's, not the bookkeeping)."""
    return {name: hashlib.sha256(open(os.path.join(out, name), "rb").read()).hexdigest()
            for name in sorted(os.listdir(out))
            if os.path.isfile(os.path.join(out, name)) and not name.startswith(".multitest")
            and name not in USER_FILES + (MANIFEST,)}


def command(out, *extra):
    return [sys.executable, "-c", "import sys; from multitest.cli import main; sys.exit(main())",
            "rank", os.path.join(out, "input.csv"), "--order", ORDER, "--out", out, *extra]


CONFIGS = {"big": (), "small": ("--datasets", "d0,d1,d2")}


@pytest.fixture
def experiment(tmp_path):
    """An output folder holding the user's input and a foreign store file."""
    out = tmp_path / "exp"
    out.mkdir()
    rng = np.random.default_rng(9)
    errors = (rng.uniform(0.1, 0.3, (10, 1, 10)) + rng.normal(0, 0.03, (10, 30, 10))
              + np.linspace(0, 0.05, 30)[None, :, None])
    make_frame(errors).to_csv(out / "input.csv", index=False)
    (out / "store.sqlite").write_bytes(b"SQLite format 3\0 a live store")
    return str(out)


def user_bytes(out):
    return {name: open(os.path.join(out, name), "rb").read() for name in USER_FILES}


def _staging(out):
    return [n for n in os.listdir(out) if n.startswith(".multitest-staging-")]


def _kill_one(out, config, delay, wait_for):
    """Start a run, SIGKILL its process group ``delay`` s after it starts or after
    ``wait_for`` ("staging" or "journal") appears; the phase it was killed in."""
    leftover = set(_staging(out))     # of earlier kills: the next run removes them
    process = subprocess.Popen(command(out, *CONFIGS[config]), start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    staged = lambda: set(_staging(out)) - leftover    # noqa: E731
    try:
        appeared = {None: lambda: True, "staging": staged,
                    "journal": lambda: os.path.exists(os.path.join(out, JOURNAL))}[wait_for]
        limit = time.monotonic() + 20
        while not appeared() and process.poll() is None and time.monotonic() < limit:
            time.sleep(0.0005)
        time.sleep(delay)
        finished = process.poll() is not None
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)   # the run and any child it started
        process.wait()
    if finished:
        return "finished"
    if os.path.exists(os.path.join(out, JOURNAL)):
        return "commit"
    return "writing" if staged() else "starting"


def test_reliability_kill_loop_leaves_one_complete_run(experiment):
    out, rng = experiment, random.Random(20261122)
    before = user_bytes(out)
    references, seconds = {}, {}
    for config in ("big", "small"):
        start = time.monotonic()
        subprocess.run(command(out, *CONFIGS[config]), check=True, capture_output=True)
        seconds[config] = time.monotonic() - start
        references[config] = outputs(out)
    assert set(references["big"]) > set(references["small"])   # the small run has fewer files
    phases, raw_mixes, kills = collections.Counter(), 0, 0
    # Bounded by the number of runs: at least half of them are killed (most kill instants
    # fall within a run), so 60 runs give the 20 kills however slowly each run starts on a
    # loaded machine; the deadline only stops a loop that hangs.
    deadline = time.monotonic() + 900
    i = 0
    while kills < 20 and i < 60 and time.monotonic() < deadline:
        config = ("big", "small")[i % 2]
        wait_for = (None, "staging", None, "journal")[i % 4]
        limit = {None: 1.1 * seconds[config], "staging": 0.5 * seconds[config],
                 "journal": 0.0}[wait_for]
        phase = _kill_one(out, config, rng.uniform(0, limit), wait_for)
        phases[phase] += 1
        kills += phase != "finished"
        found = outputs(out)
        if phase == "commit":   # killed between the first and the last rename
            raw_mixes += found not in references.values()
        manifest = read_run(out)       # finishes an interrupted commit, checks every hash
        found = outputs(out)
        assert found in (references["big"], references["small"]), (i, phase)
        assert {name: f["sha256"] for name, f in manifest.files.items()} == found
        assert user_bytes(out) == before
        i += 1
    print(f"\n{kills} kills in {i} runs, phases {dict(phases)}; a mix was visible on disk "
          f"(before the roll forward) after {raw_mixes} kill(s) in the commit")
    assert kills >= 20
    subprocess.run(command(out), check=True, capture_output=True)
    assert outputs(out) == references["big"] and user_bytes(out) == before
    assert not [n for n in os.listdir(out) if n.startswith(".multitest")]


def test_reliability_two_writers_never_interleave(experiment):
    out = experiment
    references = {}
    for config in ("big", "small"):
        subprocess.run(command(out, *CONFIGS[config]), check=True, capture_output=True)
        references[config] = outputs(out)
    for _ in range(2):
        processes = {config: subprocess.Popen(command(out, *CONFIGS[config]),
                                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                              text=True) for config in ("big", "small")}
        done = {config: (p.wait(), p.stderr.read()) for config, p in processes.items()}
        for status, err in done.values():
            assert status in (0, 2), err
            if status == 2:
                assert err.count("\n") == 1 and err.startswith(
                    "multitest: error: another multitest run (PID ") and "is writing to" in err
        winners = [references[c] for c, (status, _) in done.items() if status == 0]
        assert winners and outputs(out) in winners
        assert {n: f["sha256"] for n, f in read_run(out).files.items()} == outputs(out)


# -- re-runs: nothing of an earlier run is left -------------------------------------------

def fresh(tmp_path, argv, capsys):
    """Files of a run of ``argv`` into an empty folder."""
    folder = tmp_path / f"fresh{len(os.listdir(tmp_path))}"
    assert run([*argv, "--out", str(folder)], capsys)[0] == 0
    return outputs(str(folder))


@pytest.mark.parametrize("first, second", [
    (["--datasets", "iris,zoo,wine,vote,tae"], ["--datasets", "iris,zoo,wine"]),
    (["--datasets", "iris,zoo", "--format", "svg", "--report"], ["--datasets", "iris"]),
])
def test_reliability_smaller_rerun_leaves_nothing_of_the_bigger(tmp_path, capsys, first, second):
    base = ["rank", EXAMPLE, "--costs", "training_time"]
    out = str(tmp_path / "out")
    assert run([*base, *first, "--out", out], capsys)[0] == 0
    assert run([*base, *second, "--out", out], capsys)[0] == 0
    expected = fresh(tmp_path, [*base, *second], capsys)
    assert outputs(out) == expected
    assert not [n for n in os.listdir(out) if n.startswith(("override_vote", "report", "cd.svg"))]


def test_reliability_large_then_small_removes_the_pairwise_file(tmp_path, capsys, monkeypatch):
    import multitest.outputs._json

    base = ["rank", EXAMPLE, "--costs", "training_time"]
    out = str(tmp_path / "out")
    monkeypatch.setattr(multitest.outputs._json, "INLINE_PAIRS_LIMIT", 100)
    assert run([*base, "--out", out], capsys)[0] == 0
    assert os.path.exists(os.path.join(out, "pairwise.npz"))
    monkeypatch.undo()
    assert run([*base, "--datasets", "iris", "--out", out], capsys)[0] == 0
    assert outputs(out) == fresh(tmp_path, [*base, "--datasets", "iris"], capsys)
    assert "pairwise.npz" not in os.listdir(out) and "pairwise.csv" in os.listdir(out)


def test_reliability_stability_rerun_without_report_removes_it(tmp_path, capsys):
    base = ["stability", EXAMPLE, "--costs", "training_time", "-B", "20", "--alphas", "0.05"]
    out = str(tmp_path / "out")
    assert run([*base, "--report", "--out", out], capsys)[0] == 0
    assert "stability.html" in os.listdir(out)
    assert run([*base, "--out", out], capsys)[0] == 0
    assert outputs(out) == fresh(tmp_path, base, capsys)
    assert read_run(out).settings["command"] == "stability"


# -- every error a user can cause: one line, exit status 2 ------------------------------

def one_line_error(argv, capsys):
    status, _, err = run(argv, capsys)
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("multitest: error: "), err
    assert "Traceback" not in err and len(err) < 1100, err[:1100]
    return err[len("multitest: error: "):].rstrip("\n")


@pytest.mark.parametrize("line, expected", [
    ("out: 123", "field 'out': must be text, got int 123"),
    ("datasets: 5", "field 'datasets': must be a list of names (or names separated by "
                    "commas), got int 5"),
    ("format: 5", "field 'format': must be a list of names"),
    ("order: 5", "field 'order': must be a list of names"),
    ("alpha: [1]", "field 'alpha': must be a number, got list [1]"),
    ("report: 'yes'", "field 'report': must be true or false, got str 'yes'"),
])
def test_reliability_config_values_of_the_wrong_type(tmp_path, capsys, line, expected):
    config = tmp_path / "run.yaml"
    config.write_text(f"costs: training_time\n{line}\n")
    message = one_line_error(["rank", EXAMPLE, "--config", str(config)], capsys)
    assert message.startswith(f"{config}, row 2, {expected}")


@pytest.mark.parametrize("argv, expected", [
    (["stability", EXAMPLE, "--costs", "training_time", "--alphas", ""],
     "`alphas` must be numbers strictly between 0 and 1, separated by commas, got ''"),
    (["stability", EXAMPLE, "--costs", "training_time", "--alphas", " , "],
     "`alphas` must be numbers strictly between 0 and 1, separated by commas, got ' , '"),
    (["rank", EXAMPLE, "--costs", "training_time", "--datasets", ",,"],
     "`datasets` names no data set; name at least one or leave it out"),
    (["rank", EXAMPLE, "--costs", "training_time", "--alpha", "abc"],
     "`alpha` must be a number strictly between 0 and 1, got 'abc'"),
    (["rank", EXAMPLE, "--costs", "training_time", "--bogus"],
     "unrecognized arguments: --bogus (see multitest --help)"),
])
def test_reliability_bad_options_print_one_line(capsys, argv, expected):
    assert one_line_error(argv, capsys) == expected


def first_pair(dataset, profile="training_time"):
    """The two cheapest algorithms of ``dataset``: the first pair stage 1 tests."""
    results = __import__("multitest").example_results()
    costs = load_profile(profile).cost_matrix([dataset], results.algorithms)[0]
    cheapest = np.argsort(costs, kind="stable")[:2]
    return [results.algorithms[i] for i in cheapest]


@pytest.mark.parametrize("test, error", [
    ("os:system", "TypeError: system() takes at most 1 argument (2 given)"),
    ("builtins:eval", "TypeError: globals must be a real dict; try eval(expr, {}, mapping)"),
])
def test_reliability_exceptions_inside_a_plugin_test(capsys, test, error):
    a, b = first_pair("australian")
    message = one_line_error(["rank", EXAMPLE, "--costs", "training_time", "--test", test],
                             capsys)
    assert message == f"pairwise test '{test}' failed on data set australian, pair {a}–{b}: " \
                      f"{error}"


@pytest.mark.parametrize("function, error", [
    ("picky", "ZeroDivisionError: the marked pair"),
    ("picky_vectorized", "ValueError: a marked pair in this block"),
])
def test_reliability_plugin_failure_names_the_pair_it_failed_on(tmp_path, capsys, function,
                                                                 error):
    from plugin_failing import MARK

    errors = np.random.default_rng(4).uniform(0.1, 0.3, (4, 4, 10))
    errors[2, 1, 3] = MARK          # data set d2, algorithm a1: the pairs a1–a2 and a1–a3
    path = tmp_path / "results.csv"
    make_frame(errors).to_csv(path, index=False, float_format="%.17g")
    message = one_line_error(["rank", str(path), "--order", "a0,a1,a2,a3", "--test",
                              f"plugin_failing:{function}"], capsys)
    assert message == (f"pairwise test 'plugin_failing:{function}' failed on data set d2, "
                       f"pair a1–a2: {error}")


LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{x}: &{x} [{', '.join([f'*{p}'] * 9)}]\n" for p, x in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize("text, expected", [
    (LAUGHS, "row 1: aliases expand to more than 100000 values"),
    ("costs: &a {x: *a}\n", "row 1: an alias refers to a value that contains it"),
    ("costs: " + "[" * 3000 + "]" * 3000 + "\n", "row 1: nested deeper than 64 levels"),
    ("costs: {a: !!python/name:os.system , b: 1}\n",
     "row 1: unsupported YAML tag '!!python/name:os.system' (only the standard str, int, "
     "float, bool, null, seq and map)"),
    ("costs: {a: !!python/object/apply:os.system [ls], b: 1}\n",
     "row 1: unsupported YAML tag '!!python/object/apply:os.system'"),
    ("costs: {a: !custom 1, b: 1}\n", "row 1: unsupported YAML tag '!custom'"),
    ("costs: {a: " + "9" * 400 + ", b: 1}\n",
     "row 1, field 'costs.a': cost must be a finite number, got an integer of 400 digits"),
    ("costs: {a: " + "9" * 5000 + ", b: 1}\n",
     "row 1: unreadable value: Exceeds the limit (4300 digits) for integer string conversion"),
    ("costs: {a: .nan, b: 1}\n", "row 1, field 'costs.a': cost must be a finite number, got nan"),
    ("costs: {a: -1, b: 1}\n", "row 1, field 'costs.a': cost must not be negative, got -1"),
    ("weighted:\n - {profile: training_time, weight: .inf}\n - {profile: space_complexity}\n",
     "row 2, field 'weighted[0].weight': weight must be a finite number, got inf"),
    ("weighted:\n - {profile: training_time, weight: " + "1" * 400 + "}\n"
     " - {profile: space_complexity}\n",
     "row 2, field 'weighted[0].weight': weight must be a finite number, got an integer of 400 "
     "digits"),
    ("weighted:\n - {profile: training_time, weight: 0}\n - {profile: space_complexity}\n",
     "row 2, field 'weighted[0].weight': weight must be positive, got 0"),
])
def test_reliability_hostile_cost_files(tmp_path, capsys, text, expected):
    path = tmp_path / "costs.yaml"
    path.write_text(text)
    start = time.monotonic()
    message = one_line_error(["rank", EXAMPLE, "--costs", str(path)], capsys)
    assert message.startswith(f"{path}, {expected}")
    assert time.monotonic() - start < 30   # bounded: never the minutes of a full expansion


def test_reliability_aliases_within_bounds_are_read(tmp_path, capsys):
    path = tmp_path / "costs.yaml"
    names = ["5nn", "c45", "lnp", "mlp", "mdt", "svl", "sv2", "svr"]
    path.write_text("costs: &c {" + ", ".join(f"{a}: {i}" for i, a in enumerate(names))
                    + "}\nsecondary: &s space_complexity\n")
    status, out, err = run(["rank", EXAMPLE, "--costs", str(path), "--datasets", "iris"],
                           capsys)
    assert status == 0, err


def test_reliability_long_names_are_abbreviated(tmp_path, capsys):
    name = "x" * 5_000_000
    message = one_line_error(["rank", EXAMPLE, "--costs", "training_time", "--control", name],
                             capsys)
    assert re.search(r"…x+'?;? \(500000\d characters\)", message)  # repr(), quotes included
    profile = tmp_path / "costs.yaml"
    profile.write_text("costs:\n  ? " + "y" * 1_000_000 + "\n  : 1\n  b: 2\n")
    message = one_line_error(["rank", EXAMPLE, "--costs", str(profile)], capsys)
    assert "(1000001 characters)" in message and "no cost for algorithm(s)" in message


def test_reliability_never_overwrites_the_input(tmp_path, capsys):
    exp = tmp_path / "exp"
    exp.mkdir()
    scores = __import__("multitest").example_results().to_frame().groupby(
        ["dataset", "algorithm"], as_index=False)["error"].mean()
    scores.to_csv(exp / "mean_errors.csv", index=False)
    before = (exp / "mean_errors.csv").read_bytes()
    message = one_line_error(["rank", str(exp / "mean_errors.csv"), "--costs", "training_time",
                              "--out", str(exp)], capsys)
    assert message == (f"the output {exp}/mean_errors.csv would replace the input file "
                       f"{exp}/mean_errors.csv; choose another --out")
    assert (exp / "mean_errors.csv").read_bytes() == before
    assert sorted(os.listdir(exp)) == ["mean_errors.csv"]


def test_reliability_disk_full_and_read_only_name_out(tmp_path, capsys):
    with mounted(tmp_path / "small", "size=64k") as small:
        message = one_line_error(["rank", EXAMPLE, "--costs", "training_time", "--out", small],
                                 capsys)
        assert message.startswith(f"cannot write the output folder {small}: {small}/")
        assert message.endswith(": No space left on device") and "staging" not in message
        assert os.listdir(small) == []
    with mounted(tmp_path / "frozen", "size=64k,ro") as frozen:
        message = one_line_error(["rank", EXAMPLE, "--costs", "training_time", "--out", frozen],
                                 capsys)
        assert message == f"cannot write the output folder {frozen}: {frozen}: Read-only file " \
                          "system"


@pytest.mark.parametrize("test, message", [
    ("plugin_failing:exits", "pairwise test 'plugin_failing:exits' failed on data set "
                             "australian, pair {a}–{b}: SystemExit: 1"),
    ("plugin_exits_on_import:never", "cannot load pairwise test "
                                     "'plugin_exits_on_import:never': SystemExit: 5"),
])
def test_reliability_a_plugin_that_ends_the_interpreter_is_one_line(capsys, test, message):
    # SystemExit is not an Exception: it went through, a silent exit with the plugin's status.
    a, b = first_pair("australian")
    assert one_line_error(["rank", EXAMPLE, "--costs", "training_time", "--test", test],
                          capsys) == message.format(a=a, b=b)
