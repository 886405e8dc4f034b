"""How answerx opens and guards its SQLite files (the results store and the response cache).

One set of conventions for every file, so both behave alike under load and damage:

- **Connection**: autocommit (``isolation_level=None``; ``BEGIN`` where statements
  are grouped), shared across threads under the owner's lock
  (``check_same_thread=False``).
- **Busy timeout** of :data:`BUSY_TIMEOUT_MS`: a writer waits for another process's
  lock instead of failing at once.
- **WAL** with ``synchronous=NORMAL``: readers never block the writer; switching a
  new file to WAL is retried while another process holds it (SQLite answers
  "locked" there without calling the busy handler).
- **Read-only** (``read_only=True``): nothing is written, not even the WAL switch.
  A file this process may write is opened with SQLite's ``mode=ro`` (a WAL reader
  creates its ``-shm`` index beside the file). One it may not (:func:`may_write`: a
  read-only mount, a file or folder without write permission) is read as
  ``immutable``, creating nothing there, unless commits wait in its ``-wal``: then
  ``mode=ro`` through the writer's ``-shm``, and where there is none, a clear refusal
  (an immutable reader would not see those commits).
- **Errors**: a failure of the *file* (damaged, not a database, locked, disk full,
  read-only) becomes a :class:`~answerx.errors.StoreError` naming the file and what
  to do (:func:`store_error`); answerx's own SQL mistakes (integrity, programming
  errors) stay what they are.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from answerx.errors import StoreError

__all__ = [
    "BUSY_TIMEOUT_MS",
    "guarded",
    "is_fatal",
    "may_write",
    "open_sqlite",
    "set_wal",
    "store_error",
]

#: How long a statement waits for another connection's lock before failing.
BUSY_TIMEOUT_MS = 10_000

#: Turns SQLite's exception on a file into the :class:`StoreError` to raise.
ErrorFor = Callable[[Exception], StoreError]


def open_sqlite(
    path: str | Path, *, wal: bool = True, read_only: bool = False, error: ErrorFor
) -> sqlite3.Connection:
    """A connection to ``path`` set up by the conventions above; ``wal=False`` for
    ``:memory:``, ``read_only`` to read an existing file without writing anything.
    Any failure of the file is raised as ``error(exc)``."""
    if read_only:
        return _open_read_only(Path(path), error)
    db = _connect(str(path), error)
    try:
        if wal:
            set_wal(db)
        db.execute("PRAGMA synchronous = NORMAL")
    except BaseException as exc:
        db.close()
        if isinstance(exc, sqlite3.DatabaseError):
            raise error(exc) from None
        raise
    return db


def _connect(database: str, error: ErrorFor, *, uri: bool = False) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(
            database,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,  # autocommit: each statement commits; BEGIN when grouped
            check_same_thread=False,  # shared across threads under the owner's lock
            uri=uri,
        )
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    except sqlite3.DatabaseError as exc:  # a folder, a path that cannot be created
        raise error(exc) from None
    return db


def may_write(path: str | Path) -> bool:
    """Whether this process may write the SQLite file ``path`` and create files beside it
    (its ``-wal`` and ``-shm``): false on a read-only mount, or for a user without write
    permission on the file or its folder."""
    path = Path(path)
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _open_read_only(path: Path, error: ErrorFor) -> sqlite3.Connection:
    base = path.absolute().as_uri()
    wal = Path(f"{path}-wal")
    pending = wal.is_file() and wal.stat().st_size > 0
    if not may_write(path) and not pending:
        # Nobody writes through a folder or file this process may not write, so the
        # file alone holds the store: read it as immutable, creating nothing beside it
        # (a -shm left by another user would lock its owner out of the store).
        return _probe(_connect(base + "?mode=ro&immutable=1", error, uri=True), error)
    try:
        return _probe(_connect(base + "?mode=ro", error, uri=True), error)
    except StoreError:
        if not pending or may_write(path):
            raise
    # Commits wait in the -wal, and only a reader with its -shm index sees them.
    raise error(
        sqlite3.OperationalError(
            f"read-only, with commits not yet folded into the file in {wal.name}"
        )
    )


def _probe(db: sqlite3.Connection, error: ErrorFor) -> sqlite3.Connection:
    """``db`` once a first read has opened the file (and the WAL index); else the error."""
    try:
        db.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        db.close()
        raise error(exc) from None
    return db


def set_wal(db: sqlite3.Connection) -> None:
    """Switch ``db`` to WAL, retrying while another process holds the file.

    Switching a new file to WAL needs an exclusive lock, and SQLite answers
    "locked" at once (no busy handler) while another process is creating the
    same file, e.g. a report opened while a run starts: retry for a while.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


@contextmanager
def guarded(lock: threading.Lock | threading.RLock, error: ErrorFor) -> Iterator[None]:
    """Hold ``lock``; a failure of the file inside becomes ``error(exc)``."""
    with lock:
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if not is_fatal(exc):
                raise
            raise error(exc) from None


def store_error(
    path: str | Path,
    exc: Exception,
    *,
    what: str = "results store",
    advice: str | None = None,
) -> StoreError:
    """The :class:`StoreError` for SQLite's ``exc`` on the file ``path``: what is wrong
    and what to do about it (``advice``, else chosen by the kind of failure)."""
    name = str(path)
    reason = str(exc) or type(exc).__name__
    advice = advice or _advice(name, exc)
    return StoreError(f"cannot use {what} {name!r} ({reason}): {advice}", path=name)


def _advice(name: str, exc: Exception) -> str:
    reason = str(exc).lower()
    if "not a database" in reason:
        return (
            "it is not a SQLite database (another file in its place?): pass the right --db, "
            "or move the file away to start a new store there"
        )
    if "malformed" in reason or "corrupt" in reason or isinstance(exc, ValueError):
        recovered = Path(name).with_suffix(".recovered.db")
        return (
            "the file is damaged (truncated or overwritten). Keep a copy, then save every "
            f"run and item that can still be read: `answerx runs recover {recovered} --db "
            f"{name}` (or `sqlite3 {name} .recover | sqlite3 {recovered}`), and use "
            f"--db {recovered}; resuming a run there asks its lost items again"
        )
    if "locked" in reason or "busy" in reason:
        return "another process holds it locked: try again when that process has finished"
    if "read-only" in reason or "readonly" in reason:
        return (
            "it cannot be written here (a read-only file, folder or mount): `answerx runs "
            "list|show|report|export` read it as it is; to write to it, copy it (with any "
            "-wal file beside it) to a writable folder and pass that --db"
        )
    return "check the file, its folder's permissions and the free disk space"


def is_fatal(exc: sqlite3.Error) -> bool:
    """A failure of the file, not of answerx's own SQL: integrity errors are handled where
    they happen (a duplicate run id), programming errors (a closed store) are bugs."""
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(
        exc, sqlite3.IntegrityError | sqlite3.ProgrammingError
    )
