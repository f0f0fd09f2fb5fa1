"""Reading an output folder: the run it holds (:func:`read_run`) and one file of it
(:func:`read_listed`), after finishing any interrupted commit exactly as the writers do
(:func:`~multitest.outputs._transaction.recover`, under the folder's lock)."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time

from .._errors import OutputError, abbreviate
from .._files import file_digest
from ._lock import FolderLock, link_error
from ._transaction import JOURNAL, MANIFEST, _check_folders, _read_manifest, recover

__all__ = ["read_run", "read_listed"]


def read_run(out, *, verify=True, timeout=10.0):
    """The run ``out`` holds, after finishing any interrupted commit.

    Parameters
    ----------
    out : str or os.PathLike
    verify : bool
        Check the size and SHA-256 of every file against the manifest.
    timeout : float
        Seconds to wait for a commit in progress in another process.

    Returns
    -------
    RunManifest or None
        None if ``out`` holds no run (no manifest).

    Raises
    ------
    OutputError
        A file of the manifest is missing or differs from it.

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> import os, tempfile
    >>> from multitest.outputs import read_run, write_outputs
    >>> out = os.path.join(tempfile.mkdtemp(), "out")
    >>> _ = write_outputs(ranking, out)
    >>> run = read_run(out)
    >>> "result.json" in run.files
    True
    """
    out = os.fspath(out)
    deadline = time.monotonic() + timeout
    while os.path.exists(os.path.join(out, JOURNAL)):
        try:
            with FolderLock(out):
                recover(out)
        except OutputError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)   # a live writer is committing: a few renames
    manifest = _read_manifest(out)
    if manifest is not None and verify:
        for name, expected in manifest.files.items():
            path = os.path.join(out, name)
            if (os.path.islink(path) or not os.path.isfile(path)
                    or file_digest(path) != expected):
                raise OutputError(f"{abbreviate(path)} differs from {MANIFEST} "
                                  f"(run {manifest.run_id})")
    return manifest


def read_listed(out, name):
    """The bytes of `name`, a file of the run ``out`` holds, exactly as its manifest lists
    it (the reader of ``multitest explain``).

    The run is read as :func:`read_run` reads it: an interrupted commit (a journal) is
    finished first (:func:`recover`, the writers' roll forward), or refused naming the
    journal when it cannot be (a folder this process may not write).  Only a file the
    manifest lists is read, opened without following a symbolic link, and only if its
    size and SHA-256 are the manifest's.

    Raises
    ------
    OutputError
        No run in ``out``, `name` not listed, a link, a file that differs from the
        manifest, or a commit that cannot be finished; one line naming the file.

    Examples
    --------
    >>> from multitest import example_results, rank
    >>> ranking = rank(example_results(), "training_time", datasets=["iris", "wine"])
    >>> import json, os, tempfile
    >>> from multitest.outputs import read_listed, write_outputs
    >>> out = os.path.join(tempfile.mkdtemp(), "out")
    >>> _ = write_outputs(ranking, out)
    >>> json.loads(read_listed(out, "result.json"))["final_order"][0]
    '5nn'
    """
    out = os.fspath(out)
    try:
        manifest = read_run(out, verify=False)
    except OSError as exc:
        raise OutputError(f"{abbreviate(os.path.join(out, JOURNAL))}: an interrupted commit, "
                          f"which cannot be finished here ({exc.strerror or exc}); run it "
                          "again where the folder can be written") from None
    if manifest is None:
        raise OutputError(f"no {name} of a multitest run (no {MANIFEST}): give an output "
                          "folder of multitest (--out DIR)", source=out)
    path = os.path.join(out, name)
    if name not in manifest.files:
        raise OutputError(f"no {name} in the run it holds (not in {MANIFEST}, run "
                          f"{manifest.run_id})", source=out)
    _check_folders(out, name)
    expected = manifest.files[name]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_error(path) from None
        raise OutputError(f"cannot read {abbreviate(path)} ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(expected["size"] + 1) if stat.S_ISREG(
            os.fstat(handle.fileno()).st_mode) else None
    if data is None or {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()} != \
            expected:
        raise OutputError(f"{abbreviate(path)} differs from {MANIFEST} (run {manifest.run_id})")
    return data
