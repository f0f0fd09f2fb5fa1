"""Replacing a file in one rename: a reader sees the old contents or the new, never a part.

The one atomic writer of the package: the output-folder transaction writes its
journal and manifest with it, the figures their HTML pages.  The text goes to
a hidden temporary file beside the target (so that the rename never crosses a
file system) which :func:`os.replace` then puts in the target's place; on any
failure the temporary file is removed and the target is untouched.

This module imports nothing of the package: every layer may use it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import uuid

__all__ = ["write_atomically", "fsync_directory", "file_digest"]

#: Mode of a new file written with ``keep_mode``: read-write for the owner, readable by all.
NEW_FILE_MODE = 0o644


def write_atomically(path, text, *, durable=False, keep_mode=False):
    """Replace the file ``path`` by one holding ``text`` (UTF-8), in one rename.

    Parameters
    ----------
    path : str or os.PathLike
        The target; its folder must exist.
    text : str
    durable : bool
        Flush the file to the disk before the rename and the folder after it
        (:func:`os.fsync`): the new contents survive a power cut once this
        returns.  For bookkeeping files whose loss would lose a run.
    keep_mode : bool
        Give the new file the permission bits of the file it replaces
        (:data:`NEW_FILE_MODE` when there is none).  By default the file gets
        the usual mode of a new file (``0o666`` less the umask).

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    OSError
        The file could not be written; the target is as it was and no
        temporary file is left.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> target = write_atomically(os.path.join(folder, "report.html"), "<p>new</p>")
    >>> open(target).read(), os.listdir(folder)
    ('<p>new</p>', ['report.html'])
    """
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    temporary = os.path.join(folder, f"{_hidden(name)}.{uuid.uuid4().hex}.tmp")
    mode = _mode_of(path) if keep_mode else None
    try:
        # Mode "x" creates the file with the usual permissions (umask), unlike mkstemp.
        with open(temporary, "x", encoding="utf-8") as handle:
            handle.write(text)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    if durable:
        fsync_directory(folder)
    return path


def fsync_directory(path):
    """Flush a folder's entries (the renames and removals in it) to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _hidden(name):
    """``name`` as a hidden file name (unchanged when hidden already)."""
    return name if name.startswith(".") else f".{name}"


def _mode_of(path):
    """Permission bits of the file ``path``, :data:`NEW_FILE_MODE` when there is none."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return NEW_FILE_MODE


def file_digest(path):
    """``{"size": bytes, "sha256": hex digest}`` of the file ``path`` as it is on disk.

    Examples
    --------
    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> _ = open(path, "w").write("abc")
    >>> file_digest(path)["sha256"][:16], file_digest(path)["size"]
    ('ba7816bf8f01cfea', 3)
    """
    sha, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            sha.update(chunk)
            size += len(chunk)
    return {"size": size, "sha256": sha.hexdigest()}
