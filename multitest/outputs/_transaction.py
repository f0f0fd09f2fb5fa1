"""An output folder as a transaction: it always holds one complete run.

Every writer (``multitest rank``, ``stability``, ``demo`` and those to come)
writes through :func:`transaction`::

    with transaction(out, settings={...}, inputs=[results_csv]) as staging:
        ...write files into staging...

1. The folder is locked (:class:`~multitest.outputs._lock.FolderLock`: ``flock`` on
   ``OUT/.multitest.lock``, released by the kernel when the holder dies, so a lock is
   never stale); a second writer gets a one-line :class:`~multitest._errors.OutputError`.
2. What a killed run left is repaired (:func:`recover`): an interrupted
   commit is rolled forward, leftover staging and backup folders are removed.
3. The files are written to ``OUT/.multitest-staging-<run id>/``: inside the
   destination, so every later move is a rename within one file system
   (``OUT`` may be a symlink, a mount point or under a read-only parent).
4. Before anything in ``OUT`` changes, every output name is checked: it may
   replace only a file of the previous run (listed in its manifest), never a
   user's file, a directory or an input file.
5. ``manifest.json`` (files, sizes, SHA-256, settings, run id, time) is
   written into the staging folder, then the journal
   ``OUT/.multitest-journal.json`` (names of the old and the new files): the
   commit point.  From then on the run is committed; the roll forward moves
   the previous run's files to ``OUT/.multitest-backup-<run id>/``, the new
   files into ``OUT`` (the manifest last), deletes the journal and then the
   backup.  Every step is a rename whose effect the next step can recognise,
   so the roll forward can be repeated from any point by whoever finds the
   journal (:func:`recover`, called by every writer and by
   :func:`~multitest.outputs.read_run`).

Files of ``OUT`` that no manifest lists (the user's files, ``store.sqlite*``
of an experiment store) are never moved, replaced or removed.  No link is
followed inside ``OUT``: the lock is opened with ``O_NOFOLLOW``, a symbolic
link at a bookkeeping name or at a folder an output goes into is refused, and
every name of a manifest or journal read from the disk must stay inside
``OUT``.  A task longer than the final write (``multitest run``) holds the
lock throughout with :func:`hold`.  See ``docs/outputs.md`` for the
guarantees and ``docs/reference/output-folders.md`` for what a reader sees at
every instant.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import json
import os
import shutil
import stat
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .._errors import OutputError, abbreviate
from .._files import file_digest, fsync_directory, write_atomically
from ._lock import FolderLock, link_error

__all__ = ["transaction", "RunManifest"]

MANIFEST = "manifest.json"
JOURNAL = ".multitest-journal.json"
_STAGING = ".multitest-staging-"
_BACKUP = ".multitest-backup-"
#: Names no transaction writes, moves or removes (besides its own bookkeeping):
#: hidden multitest files and the live SQLite store of an experiment folder.
_PROTECTED = (".multitest", "store.sqlite")
_FORMAT = "multitest-run/1"
#: The command whose folder is an experiment (its outputs are the inputs of the others).
_EXPERIMENT_COMMAND = "run"
#: Folders this process holds the lock of (:func:`hold`), by (device, inode).
_HELD = {}
@dataclass(frozen=True)
class RunManifest:
    """Which run an output folder holds (``OUT/manifest.json``).

    Attributes
    ----------
    run_id : str
        Unique id of the run.
    created : str
        UTC time of the commit, ISO 8601.
    settings : dict
        What the writer recorded (command, settings, inputs).
    files : dict
        ``{relative path: {"size": int, "sha256": str}}``; the manifest itself
        is not listed.

    Examples
    --------
    >>> import os, tempfile
    >>> from multitest.outputs import read_run, transaction
    >>> out = os.path.join(tempfile.mkdtemp(), "out")
    >>> with transaction(out, settings={"command": "mine"}) as staging:
    ...     open(os.path.join(staging, "notes.txt"), "w").close()
    >>> run = read_run(out)
    >>> type(run).__name__, run.settings["command"], sorted(run.files)
    ('RunManifest', 'mine', ['notes.txt'])
    """

    run_id: str
    created: str
    settings: dict
    files: dict


# -- the transaction ---------------------------------------------------------------

@contextlib.contextmanager
def transaction(out, *, settings=None, inputs=(), on_step=None, add=False):
    """Write a complete run into ``out``, replacing the previous one as a whole.

    Parameters
    ----------
    out : str or os.PathLike
        The output folder; created if missing.
    settings : dict, optional
        JSON-serializable description of the run, stored in the manifest.
    inputs : iterable of str
        Files the run read; an output that would replace or remove one of
        them is refused.
    on_step : callable, optional
        ``on_step(k)`` is called before each rename of the roll forward
        (``k = 0, 1, ...``) and after the journal is written; for fault tests.
    add : bool
        Add the files to the run in ``out`` instead of replacing it: the previous
        run's files of other names stay, listed in the new manifest with the previous
        run's settings (``multitest.write_figures`` and ``write_report`` from Python);
        a later run replaces them all alike.

    Yields
    ------
    str
        The staging folder to write the run's files into.

    Raises
    ------
    OutputError
        ``out`` is locked by another run, an output name is taken by a user's
        file, a directory or an input, or a file cannot be written; the
        message names ``out`` (never the staging folder).  Nothing in ``out``
        has changed then (except the repair of an earlier killed run).

    Examples
    --------
    >>> import os, tempfile
    >>> from multitest.outputs import transaction
    >>> out = os.path.join(tempfile.mkdtemp(), "out")
    >>> with transaction(out) as staging:
    ...     with open(os.path.join(staging, "notes.txt"), "w", encoding="utf-8") as handle:
    ...         _ = handle.write("one complete run")
    >>> sorted(os.listdir(out))
    ['manifest.json', 'notes.txt']
    """
    out = os.fspath(out)
    held = os.path.isdir(out) and _identity(out) in _HELD
    with contextlib.nullcontext() if held else hold(out):
        run_id = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{uuid.uuid4().hex[:12]}"
        staging = os.path.join(out, _STAGING + run_id)
        try:
            os.mkdir(staging)
            yield staging
            _commit(out, staging, run_id, settings or {}, inputs, on_step, add)
        except OSError as exc:
            raise _output_error(exc, out, staging) from None
        finally:
            if not os.path.lexists(os.path.join(out, JOURNAL)):
                # Without a journal the staging folder is not needed (the run
                # failed or is committed); with one, it is the roll forward's source.
                shutil.rmtree(staging, ignore_errors=True)
                shutil.rmtree(os.path.join(out, _BACKUP + run_id), ignore_errors=True)


@contextlib.contextmanager
def hold(out, *, no_links=(), command=None):
    """Hold the lock of ``out`` for a whole task, not only for its final write.

    The folder is created if missing, with its missing parents (those removed
    again if the task fails while they are empty), locked (a second writer, or
    a second task, gets a one-line :class:`~multitest._errors.OutputError`) and
    what a killed run left is repaired.  A :func:`transaction` into ``out`` inside
    the ``with`` block, in the same process, uses the lock held here.

    Parameters
    ----------
    out : str or os.PathLike
        The folder.
    no_links : tuple of str
        Prefixes of names in ``out`` that the task opens (``("store.sqlite",)``
        for an experiment store): a symbolic link at such a name is refused,
        as one at a bookkeeping name (``.multitest*``) always is.
    command : str, optional
        The command of the task (``"run"``): a folder holding the outputs of a
        command of the other kind is refused now rather than at the final write
        (see :func:`transaction`).

    Yields
    ------
    str
        ``out``.

    Raises
    ------
    OutputError
        ``out`` is not a folder, is locked, holds a link at a refused name or
        the outputs of a command of the other kind.

    Examples
    --------
    >>> import os, tempfile
    >>> out = os.path.join(tempfile.mkdtemp(), "experiment")
    >>> with hold(out):
    ...     store = open(os.path.join(out, "store.sqlite"), "w").close()   # the task's work
    ...     with transaction(out) as staging:   # the final write, under the same lock
    ...         _ = open(os.path.join(staging, "results.csv"), "w").write("a,b\\n")
    >>> sorted(os.listdir(out))
    ['manifest.json', 'results.csv', 'store.sqlite']
    """
    out = os.fspath(out)
    if os.path.lexists(out) and not os.path.isdir(out):
        raise OutputError(f"{abbreviate(out)} exists and is not a folder; choose another --out")
    created = []
    try:
        with contextlib.ExitStack() as stack:
            try:
                _make_folders(out, created)
                _refuse_links(out, no_links)
                key = _identity(out)
                if key in _HELD:
                    raise OutputError(f"{abbreviate(out)} is already held by this process")
                stack.enter_context(FolderLock(out))
                _HELD[key] = out
                stack.callback(_HELD.pop, key)
                recover(out)
                if command is not None:
                    _check_kind(out, _read_manifest(out), {"command": command})
            except OSError as exc:
                raise _output_error(exc, out, None) from None
            yield out
    except BaseException:
        # A task that failed before writing anything leaves no empty folder it created
        # (``--out new/run`` neither ``new/run`` nor ``new``), whatever the error: one of
        # a name too long left the 16 folders made before it (issue 40).
        for folder in created:
            try:
                os.rmdir(folder)
            except OSError:    # not empty (another task's files): nor are its parents
                break
        raise


def _make_folders(out, created):
    """Create `out` and its missing parents, top first, noting in `created` (deepest
    first) each folder this call made, also when a later one fails: a failed task removes
    exactly these (a folder made meanwhile by another process is not among them)."""
    missing = []
    folder = os.path.abspath(out)
    while not os.path.isdir(folder) and folder != os.path.dirname(folder):
        missing.append(folder)
        folder = os.path.dirname(folder)
    for folder in reversed(missing):
        try:
            os.mkdir(folder)
        except FileExistsError:
            if not os.path.isdir(folder):
                raise
            continue
        created.insert(0, folder)


def _commit(out, staging, run_id, settings, inputs, on_step, add=False):
    new = _listing(staging)
    bad = [n for n in new if n == MANIFEST or _protected(n)]
    if bad:
        raise OutputError(f"an output may not be named {abbreviate(bad[0])!r}", source=out)
    previous = _read_manifest(out)
    _check_kind(out, previous, settings)
    old = sorted(previous.files) if previous is not None else []
    kept = {}
    if add and previous is not None:   # the previous run's other files stay, still listed
        kept = {n: d for n, d in previous.files.items() if n not in set(new)}
        old = [n for n in old if n not in kept]
        settings = previous.settings
    _check_targets(out, new, old, inputs)
    _write_manifest(staging, run_id, settings, new, kept)
    journal = {"run_id": run_id, "staging": os.path.basename(staging),
               "backup": _BACKUP + run_id, "old": old + ([MANIFEST] if previous else []),
               "new": new + [MANIFEST]}
    os.mkdir(os.path.join(out, journal["backup"]))
    write_atomically(os.path.join(out, JOURNAL), json.dumps(journal), durable=True)
    step = on_step or (lambda k: None)
    step(0)
    try:
        _apply_moves(out, journal, step)
    except BaseException:
        _roll_back(out, journal)
        raise
    _finish(out, journal)


def _check_kind(out, previous, settings):
    """Refuse to replace an experiment folder by an analysis, or the other way round.

    The files of ``multitest run`` (``results.csv``, ``costs/``, ...) are the
    inputs of ``rank`` and ``stability``: no other command replaces them.
    """
    if previous is None:
        return
    before, now = previous.settings.get("command"), settings.get("command")
    if before is None or now is None or (before == _EXPERIMENT_COMMAND) == (
            now == _EXPERIMENT_COMMAND):
        return
    what = ("the experiment of `multitest run` (results.csv, costs/, provenance.json)"
            if before == _EXPERIMENT_COMMAND else f"the outputs of `multitest {before}`")
    raise OutputError(f"{abbreviate(out)} holds {what}, which `multitest {now}` would "
                      "replace; choose another --out")


def _check_targets(out, new, old, inputs):
    """Refuse, before any change, an output that would replace what is not ours."""
    for name in sorted(set(new) | set(old)):
        _check_folders(out, name)
    input_ids = {}
    for path in inputs:
        with contextlib.suppress(OSError, TypeError, ValueError):
            st = os.stat(path)
            input_ids[(st.st_dev, st.st_ino)] = os.fspath(path)
    for name in sorted(set(new) | set(old)):
        target = os.path.join(out, name)
        try:
            st = os.stat(target)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in input_ids:
            verb = "replace" if name in new else "remove"
            raise OutputError(f"the output {abbreviate(target)} would {verb} the input file "
                              f"{abbreviate(input_ids[(st.st_dev, st.st_ino)])}; choose "
                              "another --out")
    for name in new:
        target = os.path.join(out, name)
        if not os.path.lexists(target):
            continue
        if os.path.isdir(target) and not os.path.islink(target):
            raise OutputError(f"a directory is in the way of the output {abbreviate(target)}")
        if name not in old:
            raise OutputError(f"{abbreviate(target)} exists and is not a file of an earlier "
                              f"multitest run (not in {MANIFEST}); move it away or choose "
                              "another --out")


def _roll_forward(out, journal):
    """Finish a committed run; every step may already be done (idempotent)."""
    for name in journal["old"] + journal["new"]:
        _check_folders(out, name)
    _apply_moves(out, journal, lambda k: None)
    _finish(out, journal)


def _apply_moves(out, journal, step):
    """Old files to the backup folder, then new files into ``out`` (manifest last)."""
    staging = os.path.join(out, journal["staging"])
    backup = os.path.join(out, journal["backup"])
    new = set(journal["new"])
    k = 1
    for name in journal["old"]:
        source = os.path.join(out, name)
        if name in new and not os.path.lexists(os.path.join(staging, name)):
            continue    # already replaced by the new file
        if os.path.lexists(source) and not os.path.lexists(os.path.join(backup, name)):
            step(k)
            k += 1
            _move(source, os.path.join(backup, name))
    for name in journal["new"]:
        source = os.path.join(staging, name)
        if os.path.lexists(source):
            step(k)
            k += 1
            _move(source, os.path.join(out, name))
    step(k)


def _finish(out, journal):
    staging = os.path.join(out, journal["staging"])
    backup = os.path.join(out, journal["backup"])
    os.unlink(os.path.join(out, JOURNAL))
    fsync_directory(out)
    shutil.rmtree(backup, ignore_errors=True)
    shutil.rmtree(staging, ignore_errors=True)
    _remove_empty_directories(out, journal["old"])


def _roll_back(out, journal):
    """Undo an in-process roll forward that failed (the journal stays if this fails too)."""
    staging = os.path.join(out, journal["staging"])
    backup = os.path.join(out, journal["backup"])
    with contextlib.suppress(OSError):
        for name in journal["new"]:
            target = os.path.join(out, name)
            if os.path.lexists(target) and not os.path.lexists(os.path.join(staging, name)):
                _move(target, os.path.join(staging, name))
        for name in journal["old"]:
            if os.path.lexists(os.path.join(backup, name)):
                _move(os.path.join(backup, name), os.path.join(out, name))
        os.unlink(os.path.join(out, JOURNAL))
        shutil.rmtree(backup, ignore_errors=True)


def recover(out):
    """Repair what killed runs left in ``out``; call it holding the lock.

    A journal is rolled forward (the run it names is committed); staging and
    backup folders without a journal are removed.  Files no manifest lists are
    never touched.  A symbolic link at a bookkeeping name (``.multitest*``) is
    refused before anything moves.
    """
    out = os.fspath(out)
    _refuse_links(out, (".multitest",))
    journal = _read_journal(out)
    if journal is not None:
        _roll_forward(out, journal)
    for name in os.listdir(out):
        if name.startswith((_STAGING, _BACKUP)):
            shutil.rmtree(os.path.join(out, name), ignore_errors=True)
        elif name.startswith(JOURNAL + "."):   # a journal being written when killed
            os.unlink(os.path.join(out, name))


# -- reading -----------------------------------------------------------------------

def _read_manifest(out):
    doc = _read_json(out, MANIFEST)
    if doc is None:
        return None
    try:
        if doc.get("format") != _FORMAT:
            raise ValueError
        manifest = RunManifest(run_id=str(doc["run_id"]), created=str(doc["created"]),
                               settings=dict(doc.get("settings", {})),
                               files={f["name"]: {"size": f["size"], "sha256": f["sha256"]}
                                      for f in doc["files"]})
        if not all(map(_inside, manifest.files)):
            raise ValueError
    except (AttributeError, KeyError, TypeError, ValueError):
        raise OutputError(f"{MANIFEST} is not a multitest manifest (or names files outside "
                          "the folder); move it away or choose another --out",
                          source=out) from None
    return manifest


def _read_journal(out):
    journal = _read_json(out, JOURNAL)
    if journal is None:
        return None
    try:
        valid = (journal["staging"].startswith(_STAGING) and journal["backup"].startswith(_BACKUP)
                 and all(_inside(n) for n in [journal["staging"], journal["backup"],
                                              *journal["old"], *journal["new"]])
                 and os.sep not in journal["staging"] + journal["backup"])
    except (AttributeError, KeyError, TypeError):
        valid = False
    if not valid:
        raise OutputError(f"{JOURNAL} is not a multitest journal (or names files outside the "
                          "folder); move it away or choose another --out", source=out)
    return journal


def _read_json(out, name):
    """The JSON document ``out/name`` (None if absent), opened without following a link."""
    path = os.path.join(out, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_error(path) from None
        raise
    try:
        with os.fdopen(fd, encoding="utf-8") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ValueError("not a file")
            return json.load(handle)
    except (OSError, ValueError, RecursionError) as exc:    # RecursionError: nested too deeply
        raise OutputError(f"unreadable {name} ({type(exc).__name__}); move it away or "
                          "choose another --out", source=out) from None


# -- helpers -----------------------------------------------------------------------

def _inside(name):
    """Whether ``name`` is a plain relative path that stays inside its folder."""
    parts = name.split(os.sep) if isinstance(name, str) else [""]
    return not os.path.isabs(name) and "\0" not in name and all(
        part not in ("", ".", "..") for part in parts)


def _check_folders(out, name):
    """Refuse a link, or anything but a folder, where a folder of ``name`` is in ``out``."""
    path = out
    for part in name.split(os.sep)[:-1]:
        path = os.path.join(path, part)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return
        if stat.S_ISLNK(mode):
            raise link_error(path)
        if not stat.S_ISDIR(mode):
            raise OutputError(f"{abbreviate(path)} is in the way of the output "
                              f"{abbreviate(os.path.join(out, name))}: it is not a folder; "
                              "move it away or choose another --out")


def _refuse_links(out, prefixes):
    """Refuse a symbolic link in ``out`` at a name starting with one of ``prefixes``."""
    if not prefixes:
        return
    with os.scandir(out) as entries:
        for entry in entries:
            if entry.name.startswith(prefixes) and entry.is_symlink():
                raise link_error(entry.path)


def _identity(folder):
    st = os.stat(folder)
    return st.st_dev, st.st_ino


def _listing(folder):
    return sorted(os.path.relpath(os.path.join(root, f), folder)
                  for root, _, files in os.walk(folder) for f in files)


def _protected(name):
    return any(part.startswith(_PROTECTED) for part in name.split(os.sep))


def _write_manifest(staging, run_id, settings, names, kept=None):
    """The manifest of the files `names` of `staging`, and of the files `kept` of the
    previous run (``{name: digest}``, a transaction that adds)."""
    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    files = dict(zip(names, _digests(staging, names)), **(kept or {}))
    doc = {"format": _FORMAT, "run_id": run_id, "created": created, "settings": settings,
           "files": [dict(name=n, **files[n]) for n in sorted(files)]}
    write_atomically(os.path.join(staging, MANIFEST), json.dumps(doc, indent=1, default=str),
                     durable=True)


#: Threads hashing the files of a run (SHA-256 and reading release the GIL: at
#: S = 10000 x L = 100, 87 MB of ``pairwise.npz`` beside 40 MB of tables).
_HASH_THREADS = 2


def _digests(folder, names):
    """:func:`~multitest._files.file_digest` of each of `names` in `folder`, in their order,
    the largest files first, on :data:`_HASH_THREADS` threads (the first error is raised)."""
    paths = [os.path.join(folder, n) for n in names]
    largest_first = sorted(paths, key=os.path.getsize, reverse=True)
    with ThreadPoolExecutor(_HASH_THREADS) as pool:
        found = dict(zip(largest_first, pool.map(file_digest, largest_first)))
    return [found[p] for p in paths]


def _move(source, target):
    parent = os.path.dirname(target)
    if parent:
        os.makedirs(parent, exist_ok=True)
    os.replace(source, target)


def _newest(folder):
    paths = [os.path.join(folder, n) for n in _listing(folder)] if os.path.isdir(folder) else []
    return max(paths, key=os.path.getmtime, default=None)


def _remove_empty_directories(out, names):
    for folder in sorted({os.path.dirname(n) for n in names if os.path.dirname(n)},
                         key=len, reverse=True):
        with contextlib.suppress(OSError):
            os.removedirs(os.path.join(out, folder))   # stops at the first non-empty one


def _output_error(exc, out, staging):
    """A one-line error naming ``out`` (and the file), never the staging folder."""
    name = exc.filename if isinstance(exc.filename, str) else None
    if name is None and staging:
        # A failed write() names no file: it is the one being written, the newest.
        name = _newest(staging)
    if name and staging and name.startswith(staging + os.sep):
        name = os.path.join(out, os.path.relpath(name, staging))
    elif name and name.startswith(os.path.join(out, ".multitest")):
        name = out    # the staging folder, the lock or the journal: bookkeeping
    reason = exc.strerror or str(exc)
    where = f"{abbreviate(name)}" if name else abbreviate(out)
    return OutputError(f"cannot write the output folder {abbreviate(out)}: {where}: {reason}")
