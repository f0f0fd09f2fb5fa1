"""multitest.run._store: a store that cannot be opened, read or written is one line naming
store.sqlite and what to do, exit 2, with every committed fold kept (issue 17, item 3).

Through the CLI as real processes, on real SQLite files: damaged, truncated, foreign schema,
locked by another connection, a folder, a symbolic link, read-only (immutable), a full disk
(a small tmpfs) and a file-size limit reached mid-run (``ulimit -f``; SIGXFSZ would
otherwise kill the run).  Each time: no traceback, nothing
outside the folder changed (sibling checksums).
"""
import os
import resource
import shutil
import sqlite3
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("distributed")
from cli_helpers import assert_one_line_error, checksums, run_cli, sibling  # noqa: E402
from run_cluster import ENV  # noqa: E402

from multitest.run._store import Store  # noqa: E402

EXPERIMENT = """\
datasets:
  - sklearn: iris
algorithms:
  nb: {estimator: sklearn.naive_bayes.GaussianNB}
  tree: {estimator: sklearn.tree.DecisionTreeClassifier, params: {random_state: 0}}
cv: {replications: 2, folds: 2, seed: 0}
repeats: 1
"""


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """An experiment file and the store of its complete run (8 folds)."""
    folder = tmp_path_factory.mktemp("finished")
    (folder / "experiment.yaml").write_text(EXPERIMENT)
    code, _, stderr = run_cli("run", folder / "experiment.yaml", "--out", folder / "out",
                              "--workers", "1")
    assert code == 0, stderr
    return folder / "experiment.yaml", folder / "out" / "store.sqlite"


def _run(tmp_path, experiment, **popen):
    folder, before = sibling(tmp_path)
    code, out, err = run_cli("run", experiment, "--out", tmp_path / "out", "--workers", "1",
                             **popen)
    assert checksums(folder) == before
    return code, out, err


def _folds(store):
    with Store(str(store)) as opened:
        return opened.frame()


@pytest.mark.parametrize("damage, words", [
    (lambda path, good: path.write_bytes(b"this is not a database" * 100),
     ["is damaged or not a multitest store"]),
    (lambda path, good: path.write_bytes(good.read_bytes()[: good.stat().st_size // 2]),
     ["is damaged or not a multitest store"]),
    (lambda path, good: sqlite3.connect(path).execute("CREATE TABLE folds (x)").connection
     .commit(), ["is not a store of this version of multitest", "'folds'"]),
    (lambda path, good: path.mkdir(), ["cannot be opened"]),
])
def test_a_store_that_cannot_be_opened_is_one_line(tmp_path, finished, damage, words):
    experiment, good = finished
    store = tmp_path / "out" / "store.sqlite"
    store.parent.mkdir()
    damage(store, good)
    code, _, stderr = _run(tmp_path, experiment)
    assert_one_line_error(code, stderr, "store.sqlite", *words)


def test_a_store_locked_by_another_process_is_one_line(tmp_path, finished):
    experiment, good = finished
    store = tmp_path / "out" / "store.sqlite"
    store.parent.mkdir()
    shutil.copy(good, store)
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, _, stderr = _run(tmp_path, _more(experiment, tmp_path))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert_one_line_error(code, stderr, "store.sqlite", "is locked by another process")
    assert len(_folds(store)) == 8


def _more(experiment, folder):
    """The experiment with one more learner: 4 folds to compute, 8 in the store."""
    path = folder / "more.yaml"
    path.write_text(experiment.read_text().replace(
        "cv:", "  slow: {estimator: run_estimators.Sleep, params: {seconds: 0.3}}\ncv:"))
    return path


def test_a_symbolic_link_as_store_is_refused_and_its_target_untouched(tmp_path, finished):
    experiment, _ = finished
    (tmp_path / "out").mkdir()
    folder, before = sibling(tmp_path)
    os.symlink(folder / "keep.txt", tmp_path / "out" / "store.sqlite")
    code, _, stderr = _run(tmp_path, experiment)
    assert_one_line_error(code, stderr, "store.sqlite", "is a symbolic link")
    assert checksums(folder) == before


def test_a_file_size_limit_mid_run_keeps_every_committed_fold(tmp_path, finished):
    # The store holds 8 folds; 4 more are to be computed under `ulimit -f` of a few pages
    # of write-ahead log: the run stops with one line once the limit is reached, the 8
    # folds and those committed before stay, and the same command without the limit
    # computes exactly the rest.
    experiment, good = finished
    store = tmp_path / "out" / "store.sqlite"
    store.parent.mkdir()
    shutil.copy(good, store)
    more = _more(experiment, tmp_path)
    limit = 6 * 4096

    def ulimit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    code, _, stderr = _run(tmp_path, more, preexec_fn=ulimit)
    assert_one_line_error(code, stderr, "store.sqlite", "file-size limit",
                          "the folds stored so far are kept")
    kept = _folds(store)
    assert 8 <= len(kept) < 12 and set(kept["run"]) <= {1, 2}
    code, output, stderr = _run(tmp_path, more)
    assert code == 0, stderr
    after = _folds(store)
    assert len(after) == 12
    assert f"{12 - len(kept)} computed, {len(kept)} from the store" in output
    merged = after.merge(kept, on=["dataset", "algorithm", "replication", "fold"],
                         suffixes=("", "_kept"))
    assert (merged["finished"] == merged["finished_kept"]).all()


def test_a_store_fault_mid_run_stops_the_run_at_once(tmp_path, monkeypatch):
    # The third commit fails: the run stops there (the fault is not taken for a lost fold
    # and the run does not go on), and the two folds committed before stay.
    from multitest import OutputError
    from multitest.run import run_experiment

    (tmp_path / "experiment.yaml").write_text(EXPERIMENT)
    calls = []
    record = Store.record

    def failing(self, rows, run):
        calls.append(rows)
        if len(calls) == 3:
            raise OutputError("cannot be written (disk full)", source=self.path)
        return record(self, rows, run)

    monkeypatch.setattr(Store, "record", failing)
    with pytest.raises(OutputError, match="disk full"):
        run_experiment(str(tmp_path / "experiment.yaml"), tmp_path / "out", workers=1,
                       show_progress=False)
    monkeypatch.undo()
    assert len(calls) == 3
    # The first two batches (commits) are single folds: nothing measured yet on iris.
    assert [len(rows) for rows in calls[:2]] == [1, 1]
    assert len(_folds(tmp_path / "out" / "store.sqlite")) == 2


def test_the_folds_of_a_batch_are_one_transaction(tmp_path):
    # A batch whose second row cannot be stored (no status: NOT NULL) stores none of its
    # rows: one line naming the store; the batch committed before stays whole.
    from multitest import OutputError

    def row(fold, status="ok"):
        return {"dataset": "d", "algorithm": "a", "replication": 1, "fold": fold,
                "spec": "s", "status": status, "loss": 0.25, "repeats": [{"fit_time": 1.0}]}

    with Store(str(tmp_path / "store.sqlite")) as store:
        run = store.start_run(4, {})
        store.record([row(1), row(2)], run)
        with pytest.raises(OutputError, match="store.sqlite"):
            store.record([row(3), row(4, status=None)], run)
        stored = store.frame()
    assert stored["fold"].tolist() == [1, 2] and (stored["run"] == run).all()
    assert stored["repeats"].tolist() == ['[{"fit_time": 1.0}]'] * 2


def test_a_read_only_store_is_one_line(tmp_path, finished):
    # Root writes any file whatever its mode: the store is made immutable (chattr +i).
    experiment, good = finished
    store = tmp_path / "out" / "store.sqlite"
    store.parent.mkdir()
    shutil.copy(good, store)
    if subprocess.run(["chattr", "+i", str(store)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        code, _, stderr = _run(tmp_path, _more(experiment, tmp_path))
    finally:
        subprocess.run(["chattr", "-i", str(store)], check=True)
    assert_one_line_error(code, stderr, "store.sqlite", "read-only")
    assert len(_folds(store)) == 8


def test_a_full_disk_mid_run_keeps_every_committed_fold(tmp_path, finished):
    # The experiment folder on a tmpfs of 80 KiB in a mount namespace of the run's own
    # (unshare -m): the store (20 KiB), its shared memory (32 KiB) and a few commits of
    # write-ahead log fit, then the disk is full.  The folder is copied out after the run.
    experiment, good = finished
    if not shutil.which("unshare") or subprocess.run(
            ["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("needs unshare -m (root)")
    disk, after = tmp_path / "disk", tmp_path / "after"
    disk.mkdir()
    more = _more(experiment, tmp_path)
    script = (f"mount -t tmpfs -o size=80k tmpfs {disk} && mkdir {disk}/out && "
              f"cp {good} {disk}/out/store.sqlite && "
              f"{sys.executable} -m multitest.cli run {more} --out {disk}/out --workers 1; "
              f"code=$?; cp -r {disk}/out {after}; exit $code")
    folder, before = sibling(tmp_path)
    process = subprocess.run(["unshare", "-m", "sh", "-c", script], env=ENV, capture_output=True,
                             text=True, timeout=300, start_new_session=True)
    assert checksums(folder) == before
    assert_one_line_error(process.returncode, process.stderr, "store.sqlite", "disk full",
                          "the folds stored so far are kept")
    kept = _folds(after / "store.sqlite")
    assert 8 <= len(kept) < 12


EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
COMMANDS = {
    "run": ["run", os.path.join(EXAMPLES, "experiment", "experiment.yaml")],
    "rank": ["rank", os.path.join(EXAMPLES, "ulas2008", "accuracy.csv"), "--costs",
             "training_time"],
    "stability": ["stability", os.path.join(EXAMPLES, "ulas2008", "accuracy.csv"), "--costs",
                  "training_time", "-B", "5"],
}


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0
                    or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run the command as the user nobody")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_out_root_as_an_ordinary_user_is_one_line(command):
    # `--out /` as a user who cannot write there: one line naming the folder, exit 2.
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    process = subprocess.run([*drop, sys.executable, "-m", "multitest.cli", *COMMANDS[command],
                              "--out", "/"], env=ENV, capture_output=True, text=True,
                             timeout=300, start_new_session=True, cwd="/")
    assert_one_line_error(process.returncode, process.stderr, "output folder /",
                          "Permission denied")
