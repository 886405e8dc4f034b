"""Is this file a results store? The checks every command on existing runs makes first.

A folder, an empty file, a file that is not SQLite and another program's SQLite
database are refused alike, with the same :class:`~answerx.errors.StoreError`, before
anything is written to them (:func:`check_store_file`, :func:`check_answerx_tables`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from answerx.experiments.sqlitefile import BUSY_TIMEOUT_MS, store_error

__all__ = ["WRONG_FILE", "check_answerx_tables", "check_store_file", "peek_at_tables"]

_SQLITE_HEADER = b"SQLite format 3\x00"


def check_store_file(path: str | Path) -> None:
    """The one check of an existing store that every command reading it makes, so the
    same fault gives the same :class:`StoreError` (exit 4) whichever command met it: a
    folder, an empty file (SQLite would take it for a new store and write its schema
    into it) and a file that is not SQLite are refused here, before SQLite opens them;
    a missing file is SQLite's own error ("unable to open"). Reads 16 bytes at most."""
    where = Path(path)
    if where.is_dir():
        fault = "it is a folder, not a store file"
        raise store_error(where, sqlite3.DatabaseError(fault), advice=WRONG_FILE)
    try:
        with where.open("rb") as f:
            header = f.read(len(_SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise store_error(where, exc) from None
    if not header:
        raise store_error(where, sqlite3.DatabaseError("an empty file"), advice=WRONG_FILE)
    if header != _SQLITE_HEADER:
        raise store_error(where, sqlite3.DatabaseError("file is not a database"))


def check_answerx_tables(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a SQLite file that holds no answerx store (another program's database): a
    command on existing runs must not take it for an empty store, nor migrate it."""
    tables = {row[0] for row in db.execute("SELECT name FROM main.sqlite_master")}
    if not {"runs", "items"} <= tables:
        fault = sqlite3.DatabaseError("a SQLite database without answerx's runs and items")
        raise store_error(path, fault, advice=WRONG_FILE)


def peek_at_tables(path: Path) -> None:
    """:func:`check_answerx_tables` through a plain connection, which reads without
    switching the file to WAL (a write) and, closing last, leaves nothing beside it."""
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        check_answerx_tables(db, path)
    except sqlite3.DatabaseError as exc:
        raise store_error(path, exc) from None
    finally:
        db.close()


WRONG_FILE = (
    "it is not a results store: pass the store's file with --db, or move this one away "
    "to start a new store there"
)
