"""Replacing a file in one rename: a reader sees the old contents or the new, never a part.

The one atomic writer of the package: the output-folder transaction writes its
journal and manifest with it, the figures their HTML pages.  The text goes to
a hidden temporary file beside the target (so that the rename never crosses a
file system) which :func:`os.replace` then puts in the target's place; on any
failure the temporary file is removed and the target is untouched.

The digests of the files of an output folder's staging folder are kept here too, taken
by whoever writes a file (a thread, or a forked writer whose parent keeps them) while
the others still write, so that the manifest need not read every file again
(:func:`digests_kept_in`, :func:`keep_digests`, :func:`kept_digest`).

This module imports nothing of the package: every layer may use it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import uuid

__all__ = ["write_atomically", "fsync_directory", "file_stamp", "file_digest", "digest_entry",
           "digests_kept_in", "wants_digest", "written_digest", "keep_digests", "hash_written",
           "kept_digest"]

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


# --------------------------------------------------------------------------
# Digests of the files of a staging folder, taken by whoever wrote them
# --------------------------------------------------------------------------

#: Digests taken as soon as a file was written, by absolute path, with the (size, mtime,
#: inode) they were taken at: the manifest uses each while these match (:func:`kept_digest`).
_EARLY_DIGESTS = {}
#: The folders whose files' digests are kept (absolute, ending in a separator).
_KEPT_IN = set()
_DIGESTS_LOCK = threading.Lock()


def _new_lock_in_child():
    """A forked process gets a lock of its own: another thread may hold the parent's."""
    global _DIGESTS_LOCK
    _DIGESTS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_new_lock_in_child)


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
    return digest_entry(path)[1]


def digest_entry(path):
    """What :func:`keep_digests` keeps of the file ``path``: its :func:`file_stamp` and its
    :func:`file_digest` (taken by a forked writer, kept by its parent), from one opening:
    the stamp is taken before the bytes are read, so that a change while they are read
    shows."""
    sha, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        stamp = file_stamp(handle.fileno())
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            sha.update(chunk)
            size += len(chunk)
    return stamp, {"size": size, "sha256": sha.hexdigest()}


@contextlib.contextmanager
def digests_kept_in(folder):
    """Inside, the digests of files written into ``folder`` (its subfolders too) are kept
    (:func:`keep_digests`); forgotten on leaving.  An output transaction's staging folder.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "a.txt")
    >>> _ = open(path, "w").write("abc")
    >>> with digests_kept_in(folder):
    ...     hash_written(path)
    ...     kept_digest(path)["size"]
    3
    >>> wants_digest(path)
    False
    """
    prefix = os.path.join(os.path.abspath(folder), "")
    with _DIGESTS_LOCK:
        _KEPT_IN.add(prefix)
    try:
        yield
    finally:
        with _DIGESTS_LOCK:
            _KEPT_IN.discard(prefix)
            for key in [key for key in _EARLY_DIGESTS if key.startswith(prefix)]:
                del _EARLY_DIGESTS[key]


def wants_digest(path):
    """Whether the digest of the file ``path`` would be kept (:func:`digests_kept_in`)."""
    with _DIGESTS_LOCK:
        return os.path.abspath(path).startswith(tuple(_KEPT_IN))


def written_digest(path):
    """``{path: digest_entry(path)}`` of a file just written if its digest is wanted
    (:func:`wants_digest`), else ``{}``: what a writer (a forked one gives it back to its
    parent) hands to :func:`keep_digests`."""
    return {path: digest_entry(path)} if wants_digest(path) else {}


def keep_digests(entries):
    """Keep ``{path: digest_entry(path)}`` for the manifest; entries of files outside the
    folders of :func:`digests_kept_in` are dropped."""
    with _DIGESTS_LOCK:
        folders = tuple(_KEPT_IN)
        for path, entry in entries.items():
            key = os.path.abspath(path)
            if key.startswith(folders):
                _EARLY_DIGESTS[key] = entry


def hash_written(path):
    """Take the digest of the complete file ``path`` now, on the thread that wrote it while
    others still write, if it is wanted (:func:`wants_digest`)."""
    keep_digests(written_digest(path))


def kept_digest(path):
    """The digest kept of ``path`` (taken off the kept ones) if the file is unchanged since
    it was taken, else None."""
    with _DIGESTS_LOCK:
        stamp, digest = _EARLY_DIGESTS.pop(os.path.abspath(path), (None, None))
    return digest if stamp is not None and stamp == file_stamp(path) else None


def file_stamp(path_or_descriptor):
    """``(size, mtime in ns, inode)`` of a file (a path, or the descriptor of an open file):
    a file with the same stamp as when it was written has not been replaced or written
    since (short of a write that keeps its size within the clock's resolution).

    Examples
    --------
    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> _ = open(path, "w").write("abc")
    >>> file_stamp(path)[0]
    3
    """
    info = os.stat(path_or_descriptor)
    return info.st_size, info.st_mtime_ns, info.st_ino
