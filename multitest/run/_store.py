"""The store of ``multitest run``: one SQLite database (WAL) in the experiment folder.

Every finished fold is one row, committed as soon as it arrives (the folds of
one batch, which arrive together, in one transaction), so a run killed at any
moment (SIGKILL included) keeps every fold it had received.  Re-running the
experiment asks the store what is done and submits only the rest.  SQLite in WAL
mode with ``synchronous=NORMAL`` keeps committed transactions across a crash of
the process; only a power failure may lose the last few.  A run that stops before
its first fold is stored removes the store it created (:meth:`Store.__exit__`).

Only the process driving the run (the Dask client) opens the store: workers
return rows, the driver writes them.

A store that cannot be opened, read or written (a symbolic link, a folder, a
damaged or foreign file, locked by another process, read-only, a full disk
or a file-size limit) raises :class:`~multitest._errors.OutputError`: one
line naming the file and what to do.  Every fold committed before stays.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time

import pandas as pd

from .._errors import OutputError
from ._measure import MEASURES

__all__ = []

STORE_FILE = "store.sqlite"
KEY = ("dataset", "algorithm", "replication", "fold")
_COLUMNS = KEY + ("spec", "status", "score", "loss") + MEASURES + (
    "repeats", "error", "worker", "started", "finished", "run")

#: Seconds to wait for another process's lock on the store before giving up.
BUSY_TIMEOUT = 5
_RUNS_COLUMNS = ("run", "started", "finished", "submitted", "completed", "info")

#: What to do, by SQLite's primary error code.
_ADVICE = {
    "SQLITE_BUSY": "is locked by another process (another multitest run on this folder?): "
                   "wait for it to end or use another --out",
    "SQLITE_LOCKED": "is locked by another process (another multitest run on this folder?): "
                     "wait for it to end or use another --out",
    "SQLITE_READONLY": "cannot be written (a read-only file or folder): make it writable or "
                       "use another --out",
    "SQLITE_FULL": "cannot be written (disk full or file-size limit): free space and run the "
                   "same command again; the folds stored so far are kept",
    "SQLITE_IOERR": "cannot be written (disk full, file-size limit or I/O error): free space "
                    "and run the same command again; the folds stored so far are kept",
    "SQLITE_NOTADB": "is damaged or not a multitest store: move it away to start afresh (its "
                     "folds are recomputed) or restore it from a copy",
    "SQLITE_CORRUPT": "is damaged or not a multitest store: move it away to start afresh (its "
                      "folds are recomputed) or restore it from a copy",
    "SQLITE_CANTOPEN": "cannot be opened (a folder, or no permission to create it?): use "
                       "another --out",
    "SQLITE_PERM": "cannot be opened (no permission): use another --out",
}


@contextlib.contextmanager
def _faults(path):
    """SQLite's errors as one :class:`OutputError` naming the store and what to do."""
    try:
        yield
    except (sqlite3.Error, pd.errors.DatabaseError) as exc:
        cause = exc if isinstance(exc, sqlite3.Error) else exc.__cause__
        code = (getattr(cause, "sqlite_errorname", None) or "").split("_")[:2]
        advice = _ADVICE.get("_".join(code), "cannot be used: use another --out")
        raise OutputError(f"{advice} (SQLite: {cause or exc})", source=path) from None


_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS folds (
    dataset TEXT NOT NULL, algorithm TEXT NOT NULL, replication INTEGER NOT NULL,
    fold INTEGER NOT NULL, spec TEXT NOT NULL, status TEXT NOT NULL, score REAL, loss REAL,
    {", ".join(f"{m} REAL" for m in MEASURES)},
    repeats TEXT, error TEXT, worker TEXT, started REAL, finished REAL, run INTEGER,
    PRIMARY KEY (dataset, algorithm, replication, fold)
);
CREATE TABLE IF NOT EXISTS runs (
    run INTEGER PRIMARY KEY AUTOINCREMENT, started REAL, finished REAL, submitted INTEGER,
    completed INTEGER, info TEXT
);
"""


def _value(row, column, run):
    """The value of `column` for a fold's row (``repeats`` as JSON, the run's number)."""
    if column == "run":
        return run
    value = row.get(column)
    return json.dumps(value) if column == "repeats" and value is not None else value


class Store:
    """The folds of one experiment folder.

    Parameters
    ----------
    path : str
        The SQLite file (created when missing; used as a context manager, removed again
        when the block fails before a fold is stored in it).
    """

    def __init__(self, path):
        self.path = path
        self._created = not os.path.lexists(path)
        for name in (path, path + "-wal", path + "-shm"):
            if os.path.islink(name):
                raise OutputError("is a symbolic link; multitest opens no link in its folder: "
                                  "replace it with the file it points to or use another --out",
                                  source=name)
        self._db = None
        try:
            with _faults(path):
                self._db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                check = self._db.execute("PRAGMA quick_check").fetchone()[0]
                if check != "ok":
                    raise OutputError(f"{_ADVICE['SQLITE_CORRUPT']} (SQLite: {check})",
                                      source=path)
                self._db.executescript(_SCHEMA)
                self._check_schema()
        except OutputError:
            self._abandon()
            raise

    def _check_schema(self):
        for table, columns in (("folds", _COLUMNS), ("runs", _RUNS_COLUMNS)):
            found = tuple(r[1] for r in self._db.execute(f"PRAGMA table_info({table})"))
            if found != columns:
                raise OutputError(f"is not a store of this version of multitest (its table "
                                  f"{table!r} has other columns): move it away or use another "
                                  "--out", source=self.path)

    def close(self):
        if self._db is not None:
            with _faults(self.path):
                self._db.close()
            self._db = None

    def __enter__(self):
        return self

    def _abandon(self):
        """Close after a failure: that failure is the one to report, not the close's."""
        with contextlib.suppress(OutputError):
            self.close()

    def __exit__(self, *exc):
        if exc[0] is None:
            self.close()
            return False
        # A run that stops before its first fold is stored (an unreachable scheduler, a
        # cluster that does not start, Ctrl-C) leaves no empty store it created.
        empty = self._created and self._holds_no_fold()
        self._abandon()
        if empty:
            for name in (self.path, self.path + "-wal", self.path + "-shm"):
                with contextlib.suppress(OSError):    # the failure is the one to report
                    os.remove(name)
        return False

    def _holds_no_fold(self):
        """Whether no fold is stored; false if that cannot be read (the store is kept)."""
        try:
            return self._db.execute("SELECT COUNT(*) FROM folds").fetchone()[0] == 0
        except sqlite3.Error:
            return False

    def start_run(self, submitted, info):
        """Open a run record; returns its number (stored with every fold it computes)."""
        with _faults(self.path):
            cursor = self._db.execute("INSERT INTO runs (started, submitted, completed, info) "
                                  "VALUES (?, ?, 0, ?)",
                                      (time.time(), submitted,
                                       json.dumps(info, default=str)))
        return cursor.lastrowid

    def finish_run(self, run, completed):
        with _faults(self.path):
            self._db.execute("UPDATE runs SET finished = ?, completed = ? WHERE run = ?",
                             (time.time(), completed, run))

    def done(self):
        """``{key: (spec, status)}`` of every stored fold."""
        with _faults(self.path):
            rows = self._db.execute("SELECT dataset, algorithm, replication, fold, spec, "
                                    "status FROM folds").fetchall()
        return {tuple(r[:4]): (r[4], r[5]) for r in rows}

    def record(self, rows, run):
        """Commit the folds `rows` in one transaction (replacing older rows of the same keys).

        The folds of one batch arrive at once: one commit for all of them; if it
        fails, none of them is stored, and every fold committed before stays.
        """
        records = [[_value(row, c, run) for c in _COLUMNS] for row in rows]
        with _faults(self.path), self._db:     # BEGIN ... COMMIT, or ROLLBACK on an error
            self._db.execute("BEGIN")
            self._db.executemany(f"INSERT OR REPLACE INTO folds ({', '.join(_COLUMNS)}) "
                                 f"VALUES ({', '.join('?' * len(_COLUMNS))})", records)

    def frame(self):
        """All stored folds as a DataFrame (one row per fold)."""
        with _faults(self.path):
            return pd.read_sql_query(f"SELECT {', '.join(_COLUMNS)} FROM folds "
                                     "ORDER BY dataset, algorithm, replication, fold", self._db)

    def runs(self):
        """Every run record (number, times, folds submitted and completed, command)."""
        with _faults(self.path):
            return pd.read_sql_query("SELECT * FROM runs ORDER BY run", self._db)
