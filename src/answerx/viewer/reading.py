"""Opening the store for one page: read-only, checked as ``answerx runs list`` checks it,
and leaving nothing beside the file.

A read-only SQLite connection to a WAL store creates the ``-wal`` and ``-shm`` files it
needs to read, and, being read-only, never removes them when it closes: a viewer that
only looked at a store would leave two files next to it. SQLite removes them when the
last connection that may write closes, so after a page a plain connection is opened and
closed at once: if no one else has the store open (no experiment running, no other
page), its close removes them; if someone has, it leaves them to that one, as SQLite
always does. It writes nothing to the store: it is only done while the ``-wal`` holds
no commit that closing would fold into the file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from answerx.experiments.sqlitefile import may_write
from answerx.experiments.store import ResultStore

__all__ = ["read_store"]


@contextmanager
def read_store(path: Path | str) -> Iterator[ResultStore]:
    """The store at ``path`` (a file, or a ``postgresql://`` URL) opened read-only (every
    fault a :class:`~answerx.errors.StoreError`, as ``runs list`` raises it), closed after
    use with no ``-wal`` or ``-shm`` left by this reader."""
    store = ResultStore.open(path, "read_only")
    try:
        yield store
    finally:
        store.close()
        if isinstance(path, Path):
            _tidy(path)


def _tidy(path: Path) -> None:
    """Let SQLite remove the ``-wal`` and ``-shm`` a read-only connection left, when no
    other connection uses them and the ``-wal`` holds nothing to fold into the file."""
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    if not shm.exists() or not may_write(path):
        return  # nothing left, or opened as immutable (nothing was created)
    try:
        if wal.exists() and wal.stat().st_size > 0:
            return  # a writer's commits: its own close folds them in
        db = sqlite3.connect(path, timeout=0.05)
        try:
            db.execute("PRAGMA schema_version").fetchone()
        finally:
            db.close()
    except (OSError, sqlite3.Error):
        pass  # busy or gone: the files stay, as any reader's would; the page is unharmed
