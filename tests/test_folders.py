"""Trust every folder (issue 17 items 2 and 5a-b): through the command line, real processes.

Modules under test: ``multitest.outputs._transaction`` (one transaction and one lock for
``rank``, ``stability``, ``demo`` and ``run``; no link followed), ``multitest._format``
(``escape_terminal``, ``neutralize_cell``) and ``multitest.outputs._csv``
(``neutralize_frame``).  Every hostile case checks the same contract: exit status 2, one
line ``multitest: error: ...`` and no traceback, and the SHA-256 of every file of a
sibling folder (the target of the planted links) unchanged.  The OWASP convention for
CSV cells: https://owasp.org/www-community/attacks/CSV_Injection (a leading ``'`` before
a cell starting with ``= + - @``, tab or carriage return).
"""
import csv
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import cli_helpers
import numpy as np
import pytest
from cli_helpers import assert_one_line_error, checksums, run_cli
from helpers import make_frame
from run_cluster import ENV

from multitest import OutputError
from multitest._format import (
    FORMULA_START,
    escape_terminal,
    neutralize_cell,
    restore_cell,
)
from multitest.inputs import load_results
from multitest.outputs import read_run
from multitest.outputs._lock import LOCK
from multitest.outputs._transaction import hold
from multitest.outputs._csv import neutralize_frame, write_csv

#: Names a spreadsheet would run (OWASP's list of first characters) and terminal attacks.
FORMULAS = ["=HYPERLINK(\"http://x\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)"]
CONTROLS = ["esc\x1b[31mred", "osc\x1b]0;title\x07", "bidi\u202eevil", "c1\x9b2J", "cr\rover"]


@pytest.fixture(name="sibling")
def untouched_sibling(tmp_path):
    """The links' target beside the output folder; unchanged at the end of the test."""
    folder, before = cli_helpers.sibling(tmp_path)
    yield folder
    assert checksums(folder) == before, "a file outside the output folder changed"


def results_file(folder, datasets=3, names=None, seed=0):
    errors = np.random.default_rng(seed).uniform(0.1, 0.4, (datasets, 3, 10))
    frame = make_frame(errors, algorithms=names)
    path = folder / "results.csv"
    frame.to_csv(path, index=False)
    return path


def rank_args(results, out, *extra, names=("a0", "a1", "a2")):
    return ["rank", results, "--order", ",".join(names), "--out", out, *extra]


# -- links in the output folder --------------------------------------------------------

@pytest.mark.parametrize("target", ["keep.txt", "missing.txt"])
def test_a_link_at_the_lock_is_refused_never_followed(tmp_path, sibling, target):
    results, out = results_file(tmp_path), tmp_path / "out"
    out.mkdir()
    os.symlink(sibling / target, out / LOCK)    # an existing file, or a dangling link
    status, _, err = run_cli(*rank_args(results, out), cwd=tmp_path)
    assert_one_line_error(status, err, LOCK, "symbolic link")
    assert not (sibling / "missing.txt").exists()
    assert sorted(os.listdir(out)) == [LOCK]


def test_a_linked_report_datasets_folder_is_refused(tmp_path, sibling):
    # 51 data sets: the report has a page per data set in report_datasets/.
    results, out = results_file(tmp_path, datasets=51), tmp_path / "out"
    out.mkdir()
    os.symlink(sibling / "pages", out / "report_datasets")
    status, _, err = run_cli(*rank_args(results, out, "--report"), cwd=tmp_path)
    assert_one_line_error(status, err, "report_datasets", "symbolic link")
    assert sorted(os.listdir(out)) == ["report_datasets"]
    # Without the link, the same command writes the pages inside the folder.
    os.unlink(out / "report_datasets")
    status, _, err = run_cli(*rank_args(results, out, "--report"), cwd=tmp_path)
    assert status == 0, err
    assert len(os.listdir(out / "report_datasets")) == 51


@pytest.mark.parametrize("planted", ["manifest", "journal"])
def test_bookkeeping_naming_files_outside_is_refused(tmp_path, sibling, planted):
    results, out = results_file(tmp_path), tmp_path / "out"
    status, _, err = run_cli(*rank_args(results, out), cwd=tmp_path)
    assert status == 0, err
    outside = os.path.join("..", "sibling", "keep.txt")
    if planted == "manifest":
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["files"].append({"name": outside, "size": 9, "sha256": "0" * 64})
        (out / "manifest.json").write_text(json.dumps(manifest))
    else:
        (out / ".multitest-staging-x").mkdir()
        (out / ".multitest-journal.json").write_text(json.dumps(
            {"run_id": "x", "staging": ".multitest-staging-x", "backup": ".multitest-backup-x",
             "old": [outside], "new": []}))
    status, _, err = run_cli(*rank_args(results, out), cwd=tmp_path)
    assert_one_line_error(status, err, "outside the folder")


def test_a_link_at_a_bookkeeping_name_is_refused(tmp_path, sibling):
    results, out = results_file(tmp_path), tmp_path / "out"
    out.mkdir()
    os.symlink(sibling / "pages", out / ".multitest-staging-old")
    status, _, err = run_cli(*rank_args(results, out), cwd=tmp_path)
    assert_one_line_error(status, err, "symbolic link")


def test_read_run_never_moves_files_through_a_linked_backup(tmp_path, sibling):
    """A journal whose backup folder is a link out: the roll forward refuses, moves nothing."""
    results, out = results_file(tmp_path), tmp_path / "out"
    assert run_cli(*rank_args(results, out), cwd=tmp_path)[0] == 0
    before = checksums(out)
    (out / ".multitest-staging-x").mkdir()
    os.symlink(sibling / "pages", out / ".multitest-backup-x")
    (out / ".multitest-journal.json").write_text(json.dumps(
        {"run_id": "x", "staging": ".multitest-staging-x", "backup": ".multitest-backup-x",
         "old": ["result.json"], "new": []}))
    with pytest.raises(OutputError, match="symbolic link"):
        read_run(out)
    assert {k: v for k, v in checksums(out).items() if k in before} == before


def test_demo_writes_through_the_transaction(tmp_path, sibling):
    out = tmp_path / "demo"
    (out / "training_time").mkdir(parents=True)
    os.symlink(sibling / "keep.txt", out / "training_time" / LOCK)
    status, _, err = run_cli("demo", "--out", out, cwd=tmp_path)
    assert_one_line_error(status, err, LOCK, "symbolic link")
    os.unlink(out / "training_time" / LOCK)
    os.symlink(sibling / "pages", out / "space_complexity")   # a profile's folder linked out
    status, _, err = run_cli("demo", "--out", out, cwd=tmp_path)
    assert_one_line_error(status, err, "space_complexity", "symbolic link")
    os.unlink(out / "space_complexity")
    status, _, err = run_cli("demo", "--out", out, cwd=tmp_path)
    assert status == 0, err
    for profile in ("training_time", "space_complexity"):
        assert (out / profile / "manifest.json").is_file()


# -- the experiment folder of `multitest run` -----------------------------------------

EXPERIMENT = """\
datasets:
  - sklearn: iris
  - sklearn: wine
algorithms:
  "=nb": {estimator: sklearn.naive_bayes.GaussianNB}
  tree: {estimator: sklearn.tree.DecisionTreeClassifier, params: {max_depth: 2, random_state: 0}}
cv: {replications: 1, folds: 3, seed: SEED}
repeats: 1
"""


def experiment_file(folder, seed=0, text=EXPERIMENT):
    path = folder / f"experiment{seed}.yaml"
    path.write_text(textwrap.dedent(text).replace("SEED", str(seed)))
    return path


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    pytest.importorskip("sklearn")
    pytest.importorskip("distributed")
    folder = tmp_path_factory.mktemp("experiment")
    status, out, err = run_cli("run", experiment_file(folder), "--out", folder / "run",
                               "--workers", "1", cwd=folder)
    assert status == 0, err
    return folder / "run"


def test_run_writes_through_the_transaction_with_its_command(run_folder):
    manifest = json.loads((run_folder / "manifest.json").read_text())
    assert manifest["settings"]["command"] == "run"
    assert sorted(f["name"] for f in manifest["files"]) == sorted(
        ["results.csv", "failures.csv", "provenance.json", "costs/noise.csv"]
        + [f"costs/{m}.yaml" for m in ("fit_time", "fit_cpu_time", "predict_time",
                                        "predict_cpu_time", "peak_memory", "model_size")])


#: 1 replication of 3 folds: the k-fold t test (the default test needs 5x2 folds).
TEST = ("--test", "kfold-t")


@pytest.mark.parametrize("command", [["stability", "-B", "20"], ["rank"]])
def test_analysis_of_a_run_folder_into_itself_is_refused(run_folder, command):
    before = checksums(run_folder)
    status, _, err = run_cli(*command, run_folder, "--costs", "fit_time", *TEST, "--out",
                             run_folder, cwd=run_folder.parent)
    assert_one_line_error(status, err, "multitest run", "choose another --out")
    assert checksums(run_folder) == before


def test_stability_of_a_run_folder_elsewhere_leaves_it_unchanged(run_folder, tmp_path):
    before = checksums(run_folder)
    status, out, err = run_cli("stability", run_folder, "--costs", "fit_time", *TEST, "-B", "20",
                               "--out", tmp_path / "stab", cwd=tmp_path)
    assert status == 0, err
    assert checksums(run_folder) == before
    assert (tmp_path / "stab" / "stability_positions.csv").is_file()


def test_the_runs_formula_name_is_neutralised_and_read_back(run_folder, tmp_path):
    # results.csv holds "'=nb"; rank reads "=nb", the name of the cost profiles (YAML).
    with open(run_folder / "results.csv", newline="") as handle:
        algorithms = {row["algorithm"] for row in csv.DictReader(handle)}
    assert algorithms == {"'=nb", "tree"}
    status, out, err = run_cli("rank", run_folder, "--costs", "fit_time", *TEST, "--out",
                               tmp_path / "ranked", cwd=tmp_path)
    assert status == 0, err
    result = json.loads((tmp_path / "ranked" / "result.json").read_text())
    assert sorted(result["final_order"]) == ["=nb", "tree"]


def test_run_never_replaces_the_outputs_of_rank(tmp_path):
    pytest.importorskip("distributed")
    results, out = results_file(tmp_path), tmp_path / "out"
    assert run_cli(*rank_args(results, out), cwd=tmp_path)[0] == 0
    before = checksums(out)
    status, _, err = run_cli("run", experiment_file(tmp_path), "--out", out, cwd=tmp_path)
    assert_one_line_error(status, err, "multitest rank", "choose another --out")
    assert checksums(out) == before     # refused before the store is opened


def test_a_linked_store_is_refused(tmp_path, sibling):
    pytest.importorskip("distributed")
    out = tmp_path / "run"
    out.mkdir()
    os.symlink(sibling / "keep.txt", out / "store.sqlite")
    status, _, err = run_cli("run", experiment_file(tmp_path), "--out", out, cwd=tmp_path)
    assert_one_line_error(status, err, "store.sqlite", "symbolic link")


#: Fits that last until the test creates the file RELEASE: the second run is refused while
#: the first one fits, however long the second one takes to start on a loaded machine.
HELD = EXPERIMENT.replace('"=nb": {estimator: sklearn.naive_bayes.GaussianNB}',
                          "held: {estimator: run_estimators.WaitFor, params: {path: RELEASE}}") \
    .replace("  - sklearn: wine\n", "")


def test_two_runs_on_one_folder_are_kept_apart_for_the_whole_run(tmp_path):
    """The second run, started while the first fits, stops at once; the first completes."""
    pytest.importorskip("distributed")
    out = tmp_path / "run"
    release = tmp_path / "release"
    held = HELD.replace("RELEASE", str(release))
    first = subprocess.Popen([sys.executable, "-m", "multitest.cli", "run",
                              experiment_file(tmp_path, 1, held), "--out", out, "--workers",
                              "1"], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while not (out / "store.sqlite").exists() and time.monotonic() < deadline:
            time.sleep(0.05)     # the store exists: the first run holds the lock and fits
        assert (out / "store.sqlite").exists() and first.poll() is None
        status, _, err = run_cli("run", experiment_file(tmp_path, 2, held), "--out", out,
                                 cwd=tmp_path)
        assert_one_line_error(status, err, "another multitest run", f"PID {first.pid}")
        assert first.poll() is None, "the first run ended before the second was refused"
        release.touch()
        stdout, stderr = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    assert first.returncode == 0, stderr
    with open(out / "results.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * 3      # 2 algorithms x 3 folds, all of the first run
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["cv"]["seed"] == 1


def test_a_task_that_fails_leaves_no_empty_folder_it_created(tmp_path):
    # hold() creates a missing folder; if the task fails before writing anything, the
    # folder goes again.  A folder that existed, or that holds a file, stays.
    class Refused(Exception):
        pass

    new, existing, written = (tmp_path / name for name in ("new", "existing", "written"))
    existing.mkdir()
    for out in (new, existing, written):
        with pytest.raises(Refused), hold(out):
            if out == written:
                (out / "store.sqlite").write_bytes(b"")
            raise Refused
    assert not new.exists()
    assert existing.is_dir() and not any(existing.iterdir())
    assert [p.name for p in written.iterdir()] == ["store.sqlite"]


def test_the_children_of_a_killed_writer_do_not_keep_its_lock(tmp_path):
    """A forked child (a Dask worker, a fit process) closes its copy of the lock: once the
    writer is SIGKILLed, the folder is free although the child still lives."""
    out = str(tmp_path / "out")
    read, write = os.pipe()
    writer = os.fork()
    if writer == 0:      # the writer: lock, fork a child that outlives it, die by SIGKILL
        try:
            with hold(out):
                if os.fork() == 0:
                    # said from the child itself: its fork hooks (closing the lock) have run
                    os.write(write, str(os.getpid()).encode())
                    time.sleep(60)
                    os._exit(0)
                os.kill(os.getpid(), signal.SIGKILL)
        finally:
            os._exit(1)
    os.close(write)
    child = int(os.read(read, 32))
    try:
        assert os.waitpid(writer, 0)[1] == signal.SIGKILL
        os.kill(child, 0)                  # the child is alive (raises if not)
        with hold(out):                   # and the folder is not "being written"
            pass
    finally:
        os.kill(child, signal.SIGKILL)
        os.close(read)


# -- names that reach a terminal or a spreadsheet ---------------------------------------

def test_names_are_printed_with_their_control_characters_escaped(tmp_path):
    results = results_file(tmp_path, names=CONTROLS[:3])
    status, out, err = run_cli("rank", results, "--order", ",".join(CONTROLS[:3]), cwd=tmp_path)
    assert status == 0, err
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", out)
    for name in CONTROLS[:3]:
        assert escape_terminal(name) in out
    # The one-line error naming an unknown algorithm escapes it too.
    status, _, err = run_cli("rank", results, "--order", ",".join(CONTROLS[:2] + CONTROLS[3:]),
                             cwd=tmp_path)
    assert_one_line_error(status, err, "bidi\\u202eevil", "c1\\x9b2J")
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", err.rstrip("\n"))


def test_escape_terminal_escapes_every_control_and_keeps_text():
    # The characters a terminal acts on (ECMA-48 C0/C1, DEL) and the Unicode bidi
    # controls (UAX #9: LRE..RLO U+202A-U+202E, isolates U+2066-U+2069, marks).
    controls = [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0),
                                 0x061C, 0x200E, 0x200F, *range(0x2028, 0x202F),
                                 *range(0x2066, 0x206A)]]
    escaped = escape_terminal("".join(controls))
    assert escaped.isascii() and escaped.isprintable()
    assert escaped.count("\\") == len(controls)
    text = "knn – ünïcode 名前 \U0001F600\tcolumns\nlines"
    assert escape_terminal(text) == text


def test_csv_outputs_neutralise_formulas_and_raw_csv_keeps_them(tmp_path):
    results = results_file(tmp_path, names=FORMULAS[:3])
    order = ",".join(FORMULAS[:3])
    for flag, expect in ((), neutralize_cell), (("--raw-csv",), lambda name: name):
        out = tmp_path / f"out{len(flag)}"
        status, _, err = run_cli("rank", results, f"--order={order}", "--out", out, *flag,
                                 cwd=tmp_path)
        assert status == 0, err
        cells = set()
        for name in os.listdir(out):
            if name.endswith(".csv"):
                with open(out / name, newline="") as handle:
                    cells.update(cell for row in csv.reader(handle) for cell in row)
        assert {expect(n) for n in FORMULAS[:3]} <= cells
        # (an empty cell, such as an interval not written, is not a formula)
        dangerous = {c for c in cells if c and c[0] in FORMULA_START and not _number(c)}
        assert (dangerous == set()) if not flag else dangerous == set(FORMULAS[:3])
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["settings"].get("raw_csv", False) == bool(flag)
        assert sorted(json.loads((out / "result.json").read_text())["final_order"]) == \
            sorted(FORMULAS[:3])       # JSON keeps the names as they are


def _number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_stability_positions_neutralise_formulas(tmp_path):
    results = results_file(tmp_path, names=FORMULAS[1:4])
    status, _, err = run_cli("stability", results, f"--order={','.join(FORMULAS[1:4])}", "-B", "20",
                             "--out", tmp_path / "stab", cwd=tmp_path)
    assert status == 0, err
    with open(tmp_path / "stab" / "stability_positions.csv", newline="") as handle:
        labels = {row[0] for row in csv.reader(handle)}
    assert {neutralize_cell(n) for n in FORMULAS[1:4]} <= labels


def test_neutralised_names_read_back_as_written(tmp_path):
    names = FORMULAS + ["'=quoted", "''+two", "plain", "it's"]
    frame = make_frame(np.random.default_rng(1).uniform(0, 1, (2, len(names), 10)),
                       algorithms=names)
    path = tmp_path / "results.csv"
    write_csv(frame, path)
    assert load_results(path).algorithms == tuple(names)
    assert [restore_cell(neutralize_cell(n)) for n in names] == names
    assert neutralize_frame(frame)["algorithm"].str[0].isin(list(FORMULA_START)).sum() == 0
