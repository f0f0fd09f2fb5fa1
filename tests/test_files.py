"""Tests of multitest._files: the one atomic writer (reports, pages, journal, manifest)."""

import os
import stat

import pytest

from multitest import _files
from multitest._files import write_atomically
from multitest.outputs._transaction import JOURNAL, recover


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_writes_the_text_and_leaves_nothing_else(tmp_path):
    target = tmp_path / "report.html"
    assert write_atomically(target, "<p>é</p>") == str(target)
    assert target.read_text(encoding="utf-8") == "<p>é</p>"
    write_atomically(str(target), "second")
    assert target.read_text() == "second" and os.listdir(tmp_path) == ["report.html"]


def test_the_target_is_replaced_in_one_rename(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    target.write_text("old")
    renames = []
    real = os.replace

    def spy(source, destination):
        # At the rename the new text is complete beside the target, which is still the old.
        renames.append((source, destination))
        assert open(source).read() == "new" and target.read_text() == "old"
        real(source, destination)

    monkeypatch.setattr(_files.os, "replace", spy)
    write_atomically(target, "new")
    assert len(renames) == 1
    source, destination = renames[0]
    assert destination == str(target) and os.path.dirname(source) == str(tmp_path)
    assert os.path.basename(source).startswith(".report.html.")
    assert target.read_text() == "new" and not os.path.exists(source)


@pytest.mark.parametrize("fail_at", ["write", "rename", "interrupt"])
def test_a_failure_leaves_the_target_and_no_temporary_file(tmp_path, monkeypatch, fail_at):
    target = tmp_path / "stability.html"
    target.write_text("old")
    text = "new"
    if fail_at == "write":
        text = "\udcff"       # not encodable: the write fails half way
    else:
        error = OSError(28, "No space left on device") if fail_at == "rename" \
            else KeyboardInterrupt()

        def fail(source, destination):
            raise error
        monkeypatch.setattr(_files.os, "replace", fail)
    with pytest.raises((OSError, UnicodeEncodeError, KeyboardInterrupt)):
        write_atomically(target, text)
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["stability.html"]


def test_modes_new_files_replaced_files_and_kept_modes(tmp_path, umask_022):
    new = tmp_path / "new.html"
    write_atomically(new, "x")
    assert _mode(new) == 0o644                      # the umask's, as open() makes it
    private = tmp_path / "private.html"
    private.write_text("x")
    os.chmod(private, 0o600)
    write_atomically(private, "y")
    assert _mode(private) == 0o644                  # a new file (the report's rule)
    os.chmod(private, 0o600)
    write_atomically(private, "z", keep_mode=True)
    assert _mode(private) == 0o600                  # the stability report's rule
    fresh = tmp_path / "fresh.html"
    os.umask(0o077)
    write_atomically(fresh, "x", keep_mode=True)
    assert _mode(fresh) == _files.NEW_FILE_MODE == 0o644


def test_durable_writes_flush_the_file_and_the_folder(tmp_path, monkeypatch):
    synced = []
    real = os.fsync

    def spy(fd):
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real(fd)

    monkeypatch.setattr(_files.os, "fsync", spy)
    write_atomically(tmp_path / "a", "x")
    assert synced == []
    write_atomically(tmp_path / "b", "x", durable=True)
    assert synced == [False, True]


def test_a_journal_left_half_written_is_recognised_by_recover(tmp_path, monkeypatch):
    # A hidden target keeps its name as the prefix of the temporary file: a journal being
    # written when the process was killed is JOURNAL.<random>.tmp, which recover() removes.
    names = []
    real = os.replace

    def spy(source, destination):
        names.append(os.path.basename(source))
        real(source, destination)

    monkeypatch.setattr(_files.os, "replace", spy)
    write_atomically(tmp_path / JOURNAL, "{}")
    assert names[0].startswith(JOURNAL + ".") and names[0].endswith(".tmp")
    os.unlink(tmp_path / JOURNAL)
    (tmp_path / names[0]).write_text("{")          # what a kill would have left
    recover(tmp_path)
    assert os.listdir(tmp_path) == []
