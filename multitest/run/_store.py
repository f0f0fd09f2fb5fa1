"""The store of ``multitest run``: one SQLite database (WAL) in the experiment folder.

Every finished fold is one row, committed in its own transaction as soon as it
arrives, so a run killed at any moment (SIGKILL included) keeps every fold it
had received.  Re-running the experiment asks the store what is done and
submits only the rest.  SQLite in WAL mode with ``synchronous=NORMAL`` keeps
committed transactions across a crash of the process; only a power failure
may lose the last few.

Only the process driving the run (the Dask client) opens the store: workers
return rows, the driver writes them.
"""

from __future__ import annotations

import json
import sqlite3
import time

import pandas as pd

from ._measure import MEASURES

__all__ = ["Store", "STORE_FILE", "KEY"]

STORE_FILE = "store.sqlite"
KEY = ("dataset", "algorithm", "replication", "fold")
_COLUMNS = KEY + ("spec", "status", "score", "loss") + MEASURES + (
    "repeats", "error", "worker", "started", "finished", "run")

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


class Store:
    """The folds of one experiment folder.

    Parameters
    ----------
    path : str
        The SQLite file (created when missing).
    """

    def __init__(self, path):
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self):
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def start_run(self, submitted, info):
        """Open a run record; returns its number (stored with every fold it computes)."""
        cursor = self._db.execute("INSERT INTO runs (started, submitted, completed, info) "
                                  "VALUES (?, ?, 0, ?)",
                                  (time.time(), submitted, json.dumps(info, default=str)))
        return cursor.lastrowid

    def finish_run(self, run, completed):
        self._db.execute("UPDATE runs SET finished = ?, completed = ? WHERE run = ?",
                         (time.time(), completed, run))

    def done(self):
        """``{key: (spec, status)}`` of every stored fold."""
        rows = self._db.execute("SELECT dataset, algorithm, replication, fold, spec, status "
                                "FROM folds")
        return {tuple(r[:4]): (r[4], r[5]) for r in rows}

    def record(self, row, run):
        """Commit one fold (replacing an older row of the same key)."""
        values = dict(row, run=run)
        if values.get("repeats") is not None:
            values["repeats"] = json.dumps(values["repeats"])
        self._db.execute(f"INSERT OR REPLACE INTO folds ({', '.join(_COLUMNS)}) VALUES "
                         f"({', '.join('?' * len(_COLUMNS))})",
                         [values.get(c) for c in _COLUMNS])

    def frame(self):
        """All stored folds as a DataFrame (one row per fold)."""
        return pd.read_sql_query(f"SELECT {', '.join(_COLUMNS)} FROM folds "
                                 "ORDER BY dataset, algorithm, replication, fold", self._db)

    def runs(self):
        return pd.read_sql_query("SELECT * FROM runs ORDER BY run", self._db)
