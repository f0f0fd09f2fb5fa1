"""Tests of multitest.outputs._transaction: an output folder is one run, never a mix.

Reference for the manifest: sizes from os.stat and SHA-256 from hashlib,
computed here on the files as found.  Kills are real SIGKILLs of forked
children, one at every step of the commit.
"""
import hashlib
import json
import os
import signal
import subprocess
import time

import pytest
from helpers import mounted

from multitest._errors import OutputError
from multitest.outputs import read_run, transaction
from multitest.outputs._lock import LOCK
from multitest.outputs._transaction import JOURNAL, MANIFEST, recover

OLD = {"result.json": "old result", "table.csv": "old table", "only_old.dot": "old figure"}
NEW = {"result.json": "new result", "table.csv": "new table", "only_new.svg": "new figure"}
USER = {"notes.txt": "the user's notes", "store.sqlite": "live store",
        "store.sqlite-wal": "live wal"}


def write_run(out, files, **options):
    with transaction(out, **options) as staging:
        for name, text in files.items():
            with open(os.path.join(staging, name), "w") as handle:
                handle.write(text)


def visible(out):
    """Files of ``out`` except the hidden bookkeeping (lock, journal, staging)."""
    return {name: open(os.path.join(out, name)).read() for name in os.listdir(out)
            if not name.startswith(".multitest") and os.path.isfile(os.path.join(out, name))
            and name != MANIFEST}


def assert_one_run(out, files, user=USER):
    manifest = read_run(out)
    assert visible(out) == {**files, **user}
    assert set(manifest.files) == set(files)
    for name in files:
        data = open(os.path.join(out, name), "rb").read()
        assert manifest.files[name] == {"size": len(data),
                                        "sha256": hashlib.sha256(data).hexdigest()}
    assert not [n for n in os.listdir(out) if n.startswith((".multitest-", JOURNAL))]
    return manifest


@pytest.fixture
def out(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    for name, text in USER.items():
        (folder / name).write_text(text)
    return str(folder)


def test_outdir_new_run_replaces_the_old_one_whole(out):
    write_run(out, OLD, settings={"datasets": 5})
    first = assert_one_run(out, OLD)
    write_run(out, NEW, settings={"datasets": 3})
    second = assert_one_run(out, NEW)            # only_old.dot is gone, user files stay
    assert second.run_id != first.run_id and second.settings == {"datasets": 3}
    doc = json.loads(open(os.path.join(out, MANIFEST)).read())
    assert doc["created"].endswith("+00:00") and doc["run_id"] == second.run_id


def test_outdir_failed_writer_changes_nothing(out):
    write_run(out, OLD)
    with pytest.raises(RuntimeError):
        with transaction(out) as staging:
            open(os.path.join(staging, "result.json"), "w").write("half")
            raise RuntimeError("the writer failed")
    assert_one_run(out, OLD)


@pytest.mark.parametrize("name", ["notes.txt", "store.sqlite", ".multitest-x", MANIFEST])
def test_outdir_never_overwrites_a_users_file(out, name):
    write_run(out, OLD)
    with pytest.raises(OutputError, match="may not be named|not a file of an earlier"):
        write_run(out, {**NEW, name: "replacement"})
    assert_one_run(out, OLD)


def test_outdir_directory_in_the_way_fails_before_any_change(out):
    write_run(out, OLD)
    os.unlink(os.path.join(out, "only_old.dot"))
    os.mkdir(os.path.join(out, "only_new.svg"))
    with pytest.raises(OutputError, match=r"a directory is in the way of the output .*only_new"):
        write_run(out, NEW)
    os.rmdir(os.path.join(out, "only_new.svg"))
    assert visible(out) == {**USER, "result.json": "old result", "table.csv": "old table"}


def test_outdir_refuses_to_replace_or_remove_an_input(out):
    source = os.path.join(out, "table.csv")
    with open(source, "w") as handle:
        handle.write("the input")
    with pytest.raises(OutputError) as info:
        write_run(out, NEW, inputs=[source])
    assert str(info.value) == (f"the output {source} would replace the input file {source}; "
                               "choose another --out")
    os.unlink(source)
    write_run(out, OLD)
    # only_old.dot of the previous run is now read as an input: not removed either.
    with pytest.raises(OutputError, match="would remove the input file"):
        write_run(out, NEW, inputs=[os.path.join(out, "only_old.dot")])
    assert_one_run(out, OLD)


def _killed_at(out, step):
    """Fork a writer of NEW that SIGKILLs itself at commit step ``step``."""
    def on_step(k):
        if k == step:
            os.kill(os.getpid(), signal.SIGKILL)
    pid = os.fork()
    if pid == 0:   # pragma: no cover - the child never returns
        try:
            write_run(out, NEW, on_step=on_step)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def test_outdir_kill_at_every_step_of_the_commit_leaves_one_run(out):
    # Step 0 is just after the journal (the commit point), then one step per
    # rename: 4 old files (with the manifest) to the backup, 4 new ones in, and
    # the journal's removal.  A step past the end lets the run finish.
    mixes = 0
    for step in range(12):
        write_run(out, OLD)
        killed = _killed_at(out, step)
        if killed:
            # Raw state: the journal says "committed"; before any reader or
            # writer rolls it forward, the folder may show a mix of files.
            assert os.path.exists(os.path.join(out, JOURNAL))
            mixes += visible(out) not in ({**OLD, **USER}, {**NEW, **USER})
        assert_one_run(out, NEW)     # read_run rolled the commit forward
    assert mixes > 0     # the raw window exists; docs/reference/output-folders.md says so
    # A killed staging (no journal yet) is the old run plus a hidden folder.
    write_run(out, OLD)
    pid = os.fork()
    if pid == 0:   # pragma: no cover
        with transaction(out) as staging:
            open(os.path.join(staging, "result.json"), "w").write("partial")
            os.kill(os.getpid(), signal.SIGKILL)
    os.waitpid(pid, 0)
    assert [n for n in os.listdir(out) if n.startswith(".multitest-staging-")]
    assert visible(out) == {**OLD, **USER}
    write_run(out, NEW)          # the next run cleans it
    assert_one_run(out, NEW)


def test_outdir_second_writer_gets_one_line_and_a_killed_lock_is_not_stale(out):
    write_run(out, OLD)
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:   # pragma: no cover
        with transaction(out):
            os.write(ready_w, b"x")
            time.sleep(60)
        os._exit(0)
    try:
        os.read(ready_r, 1)
        with pytest.raises(OutputError) as info:
            write_run(out, NEW)
        assert str(info.value) == (f"another multitest run (PID {pid} on {os.uname().nodename})"
                                   f" is writing to {out}; wait for it to finish or choose "
                                   "another --out")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert os.path.exists(os.path.join(out, LOCK))     # the killed holder left its file
    write_run(out, NEW)                                # ... but no lock
    assert_one_run(out, NEW)
    assert not os.path.exists(os.path.join(out, LOCK))


def test_outdir_through_a_symlink_to_another_file_system(tmp_path):
    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm")
    target = tmp_path / "target"
    elsewhere = f"/dev/shm/multitest-outdir-{os.getpid()}"
    os.mkdir(elsewhere)
    try:
        os.symlink(elsewhere, target)
        write_run(str(target), OLD)
        write_run(str(target), NEW)
        assert_one_run(elsewhere, NEW, user={})
        assert os.listdir(tmp_path) == ["target"]    # nothing staged beside the link
    finally:
        subprocess.run(["rm", "-rf", elsewhere], check=True)


def test_outdir_mount_point_under_a_read_only_parent(tmp_path):
    with mounted(tmp_path / "parent", "size=1m") as parent:
        os.mkdir(os.path.join(parent, "out"))
        subprocess.run(["mount", "-o", "remount,ro", parent], check=True)
        with mounted(os.path.join(parent, "out"), "size=1m") as out:
            write_run(out, OLD)
            write_run(out, NEW)
            assert_one_run(out, NEW, user={})
            with pytest.raises(OutputError) as info:    # a new folder in the parent: refused
                write_run(os.path.join(parent, "new"), NEW)
            assert str(info.value) == (f"cannot write the output folder {parent}/new: "
                                       f"{parent}/new: Read-only file system")


def test_outdir_disk_full_names_the_file_in_out_and_keeps_the_old_run(tmp_path):
    with mounted(tmp_path / "small", "size=256k") as out:
        write_run(out, OLD)
        with pytest.raises(OutputError) as info:
            with transaction(out) as staging:
                with open(os.path.join(staging, "pairwise.npz"), "wb") as handle:
                    handle.write(b"0" * (1 << 20))
        assert str(info.value) == (f"cannot write the output folder {out}: "
                                   f"{out}/pairwise.npz: No space left on device")
        assert_one_run(out, OLD, user={})


def test_outdir_read_only_out_names_out_not_the_staging_folder(tmp_path):
    with mounted(tmp_path / "ro", "size=64k,ro") as out:
        with pytest.raises(OutputError) as info:
            write_run(out, NEW)
        assert str(info.value) == (f"cannot write the output folder {out}: {out}: "
                                   "Read-only file system")


def test_outdir_read_run_detects_a_changed_file(out):
    write_run(out, OLD)
    with open(os.path.join(out, "table.csv"), "a") as handle:
        handle.write("edited")
    with pytest.raises(OutputError, match="table.csv differs from manifest.json"):
        read_run(out)
    assert read_run(out, verify=False).files.keys() == OLD.keys()


def test_outdir_recover_without_a_journal_removes_only_leftovers(out):
    write_run(out, OLD)
    os.mkdir(os.path.join(out, ".multitest-staging-dead"))
    os.mkdir(os.path.join(out, ".multitest-backup-dead"))
    recover(out)
    assert_one_run(out, OLD)


@pytest.mark.parametrize("step", [1, 4, 6])
def test_outdir_failed_rename_is_rolled_back(out, step):
    # A rename failing inside the process (here raised before step `step`):
    # the moves made so far are undone and the previous run stays whole.
    def on_step(k):
        if k == step:
            raise PermissionError(13, "Permission denied", os.path.join(out, "table.csv"))
    write_run(out, OLD)
    with pytest.raises(OutputError, match=r"table.csv: Permission denied$"):
        write_run(out, NEW, on_step=on_step)
    assert_one_run(out, OLD)


def test_outdir_out_that_is_a_file_is_refused(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("the user's file")
    with pytest.raises(OutputError) as info:
        write_run(str(path), NEW)
    assert str(info.value) == f"{path} exists and is not a folder; choose another --out"
    assert path.read_text() == "the user's file"


def test_outdir_a_failed_writer_removes_the_parents_it_created_and_only_they(tmp_path):
    # `--out new/run/deeper` failing left `new/run` behind (only the last folder was removed);
    # a parent that holds something else, and every folder above it, stays.
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "notes.txt").write_text("the user's")
    for out, gone, stays in ((tmp_path / "new" / "run" / "deeper", tmp_path / "new", tmp_path),
                             (tmp_path / "kept" / "run" / "deeper", tmp_path / "kept" / "run",
                              tmp_path / "kept")):
        with pytest.raises(RuntimeError, match="the writer failed"):
            with transaction(out):
                raise RuntimeError("the writer failed")
        assert not gone.exists() and stays.is_dir()
    assert (tmp_path / "kept" / "notes.txt").read_text() == "the user's"


def test_outdir_a_name_too_long_leaves_none_of_the_folders_made_before_it(tmp_path):
    # 20 names of 249 characters: the first 16 folders are made, the 17th is longer than
    # PATH_MAX (4096; ENAMETOOLONG). The clean-up began with the deepest folder, never
    # made, and stopped at its error: 16 empty folders stayed (issue 40).
    (tmp_path / "kept.txt").write_text("the user's")
    out = os.path.join(tmp_path, *["d" * 249] * 20)
    with pytest.raises(OutputError, match="cannot write the output folder"):
        write_run(out, NEW)
    assert os.listdir(tmp_path) == ["kept.txt"]


def _explain(out):
    """``(exit status, stdout, stderr)`` of ``multitest explain OUT`` in a process."""
    from cli_helpers import run_cli

    return run_cli("explain", out)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two finished runs of ``multitest rank`` (the bundled data, two cost profiles)."""
    from cli_helpers import run_cli

    from multitest import example_path

    folder = tmp_path_factory.mktemp("explain")
    for name in ("training_time", "space_complexity"):
        code, _, err = run_cli("rank", example_path(), "--costs", name, "--out", folder / name)
        assert code == 0, err
    return folder


def _copy_run(source, out, on_step=None):
    """Commit the files of the run in `source` into `out` (a writer of them)."""
    import shutil

    with transaction(out, on_step=on_step) as staging:
        for name in sorted(read_run(source).files):
            os.makedirs(os.path.dirname(os.path.join(staging, name)), exist_ok=True)
            shutil.copyfile(os.path.join(source, name), os.path.join(staging, name))


def test_explain_finishes_an_interrupted_commit_as_the_writers_do(two_runs, tmp_path):
    # A writer of the second run killed after moving 2 of its files, journal present:
    # explain said "no result.json" and exited 2, while read_run recovered the run
    # (issue 40). Now explain rolls the commit forward (recover) and explains the new run.
    old, new, out = two_runs / "training_time", two_runs / "space_complexity", tmp_path / "o"
    _copy_run(old, out)
    n_old, n_new = len(read_run(old).files) + 1, len(read_run(new).files) + 1
    step = n_old + 3     # killed before its 3rd new file: the old run moved out, 2 in

    def on_step(k):
        if k == step:
            os.kill(os.getpid(), signal.SIGKILL)
    pid = os.fork()
    if pid == 0:   # pragma: no cover - the child never returns
        try:
            _copy_run(new, out, on_step)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and (out / JOURNAL).exists() and n_new > 10
    assert not (out / MANIFEST).exists()
    assert len([n for n in os.listdir(out) if not n.startswith(".multitest")]) == 2
    code, said, err = _explain(out)
    assert (code, err) == (0, "") and said == _explain(new)[1] != _explain(old)[1]
    assert not (out / JOURNAL).exists()
    assert read_run(out).files == read_run(new).files


def test_explain_reads_only_the_result_json_its_manifest_lists(two_runs, tmp_path):
    # A symbolic link at result.json was followed, and a file other than the manifest's
    # printed (issue 40): each refused in one line, exit 2.
    import shutil

    out = tmp_path / "o"
    _copy_run(two_runs / "training_time", out)
    result = out / "result.json"
    text = result.read_text()
    result.unlink()
    result.symlink_to(two_runs / "space_complexity" / "result.json")
    code, said, err = _explain(out)
    assert (code, said) == (2, "") and err == (
        f"multitest: error: {result} is a symbolic link; multitest follows no link inside "
        "an output folder: remove it or choose another --out\n")
    result.unlink()
    result.write_text(text.replace("training", "trainin'"))
    code, said, err = _explain(out)
    assert (code, said) == (2, "") and err.startswith(f"multitest: error: {result} differs "
                                                      f"from {MANIFEST} (run ")
    assert err.count("\n") == 1
    shutil.rmtree(out)
    out.mkdir()
    shutil.copyfile(two_runs / "training_time" / "result.json", result)   # no manifest
    code, said, err = _explain(out)
    assert (code, said) == (2, "") and err == (
        f"multitest: error: {out}: no result.json of a multitest run (no {MANIFEST}): give "
        "an output folder of multitest (--out DIR)\n")
