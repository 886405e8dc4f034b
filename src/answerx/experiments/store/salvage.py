"""Recovering a damaged store: every run and item that can still be read, copied into a
new store (``answerx runs recover``)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from answerx.errors import ConfigError, StoreError
from answerx.experiments.records import ItemRecord, RunRecord
from answerx.experiments.sqlitefile import store_error
from answerx.experiments.store.core import ResultStore
from answerx.experiments.store.schema import old_schema_columns
from answerx.support.nofollow import output_dir

__all__ = ["Salvage", "salvage"]

_SALVAGE_CHUNK = 256  # rows per read while nothing fails
_SALVAGE_PROBES = 200_000  # reads at most, however the damage falls
_Record = TypeVar("_Record", RunRecord, ItemRecord)


class Salvage(BaseModel):
    """What :func:`salvage` saved from a damaged store, and what it could not read."""

    runs: int
    items: int
    unreadable_runs: int
    unreadable_items: int
    end_lost: bool = False  # the end of a table was lost: how many rows it held is unknown

    @property
    def complete(self) -> bool:
        """Nothing was lost."""
        return not (self.unreadable_runs or self.unreadable_items or self.end_lost)


def salvage(source: str | Path, target: str | Path) -> Salvage:
    """Copy every run and item that can still be read from a damaged store into a new one.

    Rows are read by ranges of row ids; a range that SQLite cannot read is split in
    halves down to single rows, so damaged pages cost only the rows on them. A row
    that reads but does not make a valid record is left out too, and so is an item
    whose run is lost. The new store is a normal store: resuming one of its runs
    asks the lost items again. Works with Python's own SQLite (the ``sqlite3``
    command's ``.recover`` needs a build with the ``sqlite_dbpage`` table, which
    some Linux distributions leave out).

    ``target`` must not exist yet. A ``source`` whose schema cannot be read (its
    first page is lost, or it is not a database) raises :class:`StoreError`.
    """
    source, target = Path(source), Path(target)
    if os.path.lexists(target):  # a link to nowhere too: SQLite would create through it
        raise ConfigError(f"{str(target)!r} already exists: give a new file to recover into")
    if not source.is_file():
        raise ConfigError(f"no results store at {str(source)!r}")
    # Read from a copy whose header is fitted to its length: SQLite refuses a whole
    # file whose header counts more pages than it holds (a truncated store). The copy is
    # never written through a link planted at its name.
    copy = target.with_name(f".{target.name}.reading")
    with output_dir(copy.parent, follow=True) as folder:
        for suffix in ("", "-wal"):  # -wal: committed items not yet folded into the file
            if suffix == "" or Path(f"{source}{suffix}").is_file():
                with (
                    open(f"{source}{suffix}", "rb") as src,
                    folder.open(copy.name + suffix, "wb") as dst,
                ):
                    shutil.copyfileobj(src, dst)
    _fit_page_count(copy)
    try:
        db = sqlite3.connect(copy, isolation_level=None)
    except sqlite3.DatabaseError as exc:
        _remove(copy)
        raise store_error(source, exc) from None
    db.row_factory = sqlite3.Row
    try:
        try:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError as exc:
            unreadable = "not even its list of tables can be read: nothing to save"
            foreign = "not a database" in str(exc)
            raise store_error(source, exc, advice=None if foreign else unreadable) from None
        if not {"runs", "items"} <= tables:
            raise StoreError(
                f"{str(source)!r} holds no answerx runs (tables: {', '.join(sorted(tables))})",
                path=str(source),
            )
        lost_runs, lost_items = _Losses(), _Losses()
        saved_runs: set[str] = set()
        saved_items = 0
        with ResultStore(target) as out:
            for runs in _readable(db, "runs", out._run_from_row, lost_runs):
                for run in runs:
                    out.create_run(run)
                    saved_runs.add(run.run_id)
            items_columns = old_schema_columns(db)  # an older store's items read as new
            for items in _readable(db, "items", out._item_from_row, lost_items, items_columns):
                kept = [item for item in items if item.run_id in saved_runs]
                lost_items.rows += len(items) - len(kept)  # items of a run that is lost
                saved_items += out.add_items(kept)
    except BaseException:
        _remove(target)
        raise
    finally:
        db.close()
        _remove(copy)
    return Salvage(
        runs=len(saved_runs),
        items=saved_items,
        unreadable_runs=lost_runs.rows,
        unreadable_items=lost_items.rows,
        end_lost=lost_runs.tail or lost_items.tail,
    )


def _remove(path: Path) -> None:
    """Delete a SQLite file and its WAL and shared-memory files."""
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)


def _fit_page_count(path: Path) -> None:
    """Make the header's page count (bytes 28-31) match the file's length, when the
    file is shorter than the header says; anything that is not a SQLite header is
    left alone (SQLite then says what it is not)."""
    with path.open("r+b") as f:
        header = f.read(100)
        if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
            return
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        if page_size < 512:
            return
        pages = path.stat().st_size // page_size
        if pages < int.from_bytes(header[28:32], "big"):
            f.seek(28)
            f.write(pages.to_bytes(4, "big"))


@dataclass
class _Losses:
    """Rows of one table that could not be saved; ``tail``: its last pages are lost, so
    how many rows they held is unknown."""

    rows: int = 0
    tail: bool = False


def _readable(
    db: sqlite3.Connection,
    table: str,
    parse: Callable[[sqlite3.Row], _Record],
    lost: _Losses,
    columns: str = "*",
) -> Iterator[list[_Record]]:
    """Every row of ``table`` (its ``columns``) that can be read and parsed, a batch at a
    time, in row id order; ``lost`` counts the rows that could not be."""
    try:
        top = int(db.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0)
        known_top = True
    except sqlite3.DatabaseError:
        # The last pages are lost: bound the ids by what the file could hold.
        top = max(1, int(db.execute("PRAGMA page_count").fetchone()[0] or 1) * 64)
        known_top = False
    stack = [(lo, min(lo + _SALVAGE_CHUNK - 1, top)) for lo in range(1, top + 1, _SALVAGE_CHUNK)]
    stack.reverse()  # popped in row id order
    failed: list[int] = []  # ids whose page could not be read
    last_read = probes = 0
    while stack and probes < _SALVAGE_PROBES:
        lo, hi = stack.pop()
        probes += 1
        try:
            rows = db.execute(
                f"SELECT rowid AS _rowid, {columns} FROM {table} WHERE rowid BETWEEN ? AND ? "
                "ORDER BY rowid",
                (lo, hi),
            ).fetchall()
        except sqlite3.DatabaseError:
            if lo == hi:
                failed.append(lo)
            else:  # read the halves apart: only the rows on damaged pages are lost
                mid = (lo + hi) // 2
                stack += [(mid + 1, hi), (lo, mid)]
            continue
        batch: list[_Record] = []
        for row in rows:
            last_read = row["_rowid"]
            try:
                batch.append(parse(row))
            except StoreError:  # the row reads, but its values are garbage
                lost.rows += 1
        yield batch
    # An id that could not be read below one that could held a row (ids only grow);
    # past the last readable row, with the table's end lost, nobody knows.
    lost.rows += sum(1 for i in failed if known_top or i < last_read)
    lost.tail = bool(stack) or (not known_top and any(i > last_read for i in failed))
