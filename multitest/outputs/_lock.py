"""The lock of an output folder: one writer at a time, never a stale lock.

An exclusive ``flock`` on ``OUT/.multitest.lock`` (:class:`FolderLock`), opened with
``O_NOFOLLOW``; the kernel releases it when its holder dies.  A forked child (a Dask
worker, a fit process) closes its copies of the locks, so it never keeps its parent's
folder locked.  Used by :func:`multitest.outputs.transaction`,
:func:`~multitest.outputs._transaction.hold` and :func:`~multitest.outputs.read_run`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import stat
import time

from .._errors import OutputError, abbreviate

__all__: list[str] = []

LOCK = ".multitest.lock"
#: File descriptors of the locks this process holds (closed in a forked child).
_LOCK_FDS = set()


def _close_locks_in_child():
    """A forked child (a Dask worker, a fit process) does not keep its parent's locks.

    ``flock`` belongs to the open file, which a fork shares: without this, the
    workers of a killed ``multitest run`` would keep its folder locked.  Closing
    the child's copy leaves the parent's lock held.
    """
    for fd in _LOCK_FDS:
        with contextlib.suppress(OSError):
            os.close(fd)
    _LOCK_FDS.clear()


os.register_at_fork(after_in_child=_close_locks_in_child)


def link_error(path):
    """The error for a symbolic link found where multitest reads or writes in ``OUT``."""
    return OutputError(f"{abbreviate(path)} is a symbolic link; multitest follows no link "
                       "inside an output folder: remove it or choose another --out")


class FolderLock:
    """An exclusive ``flock`` on ``OUT/.multitest.lock`` holding the owner's PID.

    The kernel drops the lock when its holder dies, so a killed run never
    leaves a stale lock.  The holder removes the file on release; a process
    that locked a file meanwhile removed retries on the new one.
    """

    def __init__(self, out):
        self.out = out
        self.path = os.path.join(out, LOCK)
        self.fd = None

    def __enter__(self):
        for _ in range(100):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK,
                             0o644)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise link_error(self.path) from None
                raise
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise OutputError(f"{abbreviate(self.path)} is not a file; remove it or "
                                  "choose another --out")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                raise OutputError(f"another multitest run ({self._owner()}) is writing to "
                                  f"{abbreviate(self.out)}; wait for it to finish or choose "
                                  "another --out") from None
            if _same_file(fd, self.path):
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
                self.fd = fd
                _LOCK_FDS.add(fd)
                return self
            os.close(fd)    # the file was removed by its last holder: lock the new one
        raise OutputError(f"cannot lock {abbreviate(self.path)}")

    def __exit__(self, *exc_info):
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        _LOCK_FDS.discard(self.fd)
        os.close(self.fd)
        return False

    def _owner(self):
        """The holder in words.  Its line is written just after it locked the file, so an
        empty file is read again for up to :data:`_OWNER_WAIT` seconds."""
        deadline = time.monotonic() + _OWNER_WAIT
        while True:
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                with os.fdopen(fd, encoding="utf-8") as handle:
                    pid, _, host = handle.read(200).strip().partition(" ")
                return f"PID {int(pid)} on {abbreviate(host, 40)}"
            except (OSError, ValueError):
                if time.monotonic() >= deadline:
                    return "another process"
                time.sleep(0.01)


#: Seconds a refused writer waits for the lock holder's line (see ``FolderLock._owner``).
_OWNER_WAIT = 1.0


def _same_file(fd, path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    fst = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (fst.st_dev, fst.st_ino)
