"""The results store: experiment runs and their items in one SQLite file (``runs/answerx.db``).

Why SQLite: one file, no server, and every finished item committed at once, so
a run killed at any moment (even ``kill -9``) keeps everything it finished and
resumes where it stopped.

- **WAL mode** with ``synchronous=NORMAL``: readers (a report, the service) never
  block the writer, and a commit survives the process dying; only an OS crash
  or power loss may lose the last commits.
- **Schema versioned** with ``PRAGMA user_version`` and append-only migrations
  (:data:`MIGRATIONS`), applied when a store is opened for writing. A store opened
  ``read_only`` (``answerx runs list|show|report|export``, or a file that cannot be
  written) is never changed: one of an older schema is read through a view that
  adds what the migrations would have (:func:`_old_schema_columns`).
- **One row per item key** (run, approach, strategy, provider, model, item id,
  repetition). :meth:`ResultStore.add_item` never duplicates: adding a key that
  already finished is ignored, and adding a key whose stored row has an
  ``error`` replaces that row. So a resumed run skips :meth:`ResultStore.done_keys`
  (finished *without* error) and retries errored items, whose new result then
  takes the old one's place.
- **Threads**: one connection per store, opened with ``check_same_thread=False``
  and guarded by a lock, so an asyncio runner (one thread) and a web service
  (a thread pool) can both share one store. For parallel writers, open one
  store per process: SQLite serialises them (``busy_timeout``).

``error`` texts pass through :func:`answerx.errors.redact` before they are
written, so an API key quoted in a provider's error message never reaches the file.

A command on existing runs (``runs list|show|report|export|delete``, ``score``, the
viewer: ``for_reading`` or ``existing=True``) makes one check first,
:func:`check_store_file`: a folder, an empty file, a file that is not SQLite and
another program's SQLite database are refused alike, with the same
:class:`~answerx.errors.StoreError`, before anything is written to them.

A file that SQLite cannot use (damaged pages, a truncated file, another kind of
file in its place, a lock never released, a full disk) raises
:class:`~answerx.errors.StoreError` naming the file and what to do, from every
method, never ``sqlite3``'s own exceptions. What a method claims, it has read:
:meth:`ResultStore.item_counts` counts the rows themselves (not only the index that
lists them), so a count is never given for items a damaged page has lost.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ValidationError

from answerx._version import __version__
from answerx.errors import ConfigError, DuplicateRun, RunNotFound, StoreError, redact
from answerx.experiments.browse import (
    GROUPS,
    ROW_COLUMNS,
    Arm,
    BadRow,
    ItemPage,
    ItemQuery,
    ItemRow,
    Neighbours,
    PairedCounts,
    Tally,
    compile_query,
    order_of,
    paired_sql,
)
from answerx.experiments.export import ExportFormat, export_items, utc_iso
from answerx.experiments.records import VERDICT_FIELDS, ItemKey, ItemRecord, RunRecord, RunStatus
from answerx.experiments.sqlitefile import (
    BUSY_TIMEOUT_MS,
    guarded,
    may_write,
    open_sqlite,
    store_error,
)
from answerx.home import default_db
from answerx.nofollow import output_dir
from answerx.redactor import redact_keys_deep

__all__ = [
    "DEFAULT_DB",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ExportFormat",
    "ResultStore",
    "Salvage",
    "check_store_file",
    "new_run_id",
    "salvage",
    "store_error",
]

#: The results store when ``$ANSWERX_HOME`` is unset (:func:`answerx.home.default_db`).
DEFAULT_DB = Path("runs/answerx.db")

_KEY_COLUMNS = ("approach", "strategy", "provider", "model", "item_id", "repetition")
_ITEM_COLUMNS: tuple[str, ...] = tuple(ItemRecord.model_fields)
_RUN_COLUMNS: tuple[str, ...] = tuple(RunRecord.model_fields)
_JSON_COLUMNS = frozenset({"answers", "choices", "numbers", "verdict_detail", "span"})
_BOOL_COLUMNS = frozenset({"cached", "correct", "valid", "unfinished"})
_TIME_COLUMNS = frozenset({"finished_at", "started_at"})
_PAGE = 500  # rows read per query when iterating items
#: The browsing index's columns: the run first (every query names it), then the columns
#: a reader filters on most, then every other short column it filters, sorts or counts by.
_BROWSE_COLUMNS = (
    "run_id",
    "approach",
    "strategy",
    "provider",
    "model",
    "correct",
    "reason",
    "how",
    "method",
    "termination",
    "unfinished",
    "valid",
    "stage",
    "mode",
    "finish_reason",
    "cached",
    "dataset",
    "task",
    "item_id",
    "repetition",
    "confidence",
    "latency_s",
    "calls",
    "attempts",
    "fallbacks",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "error",
)

_M001 = """
CREATE TABLE runs (
    run_id          TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    config          TEXT NOT NULL,          -- JSON: the validated run configuration
    config_hash     TEXT NOT NULL,
    answerx_version TEXT NOT NULL,
    started_at      TEXT NOT NULL,          -- ISO 8601, UTC
    finished_at     TEXT,
    status          TEXT NOT NULL
);
CREATE INDEX runs_config_hash ON runs (config_hash);
CREATE TABLE items (
    id               INTEGER PRIMARY KEY,   -- insertion order
    run_id           TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    approach         TEXT NOT NULL,
    strategy         TEXT NOT NULL,
    provider         TEXT NOT NULL,
    model            TEXT NOT NULL,
    item_id          TEXT NOT NULL,
    repetition       INTEGER NOT NULL,
    dataset          TEXT NOT NULL,
    task             TEXT NOT NULL,
    question         TEXT NOT NULL,
    gold             TEXT,
    choices          TEXT,                  -- JSON list
    numbers          TEXT,                  -- JSON list
    prompt           TEXT NOT NULL,         -- JSON: the first request's messages
    raw_output       TEXT NOT NULL,
    extracted_answer TEXT,
    method           TEXT NOT NULL,
    confidence       REAL NOT NULL,
    stage            TEXT,
    mode             TEXT,
    attempts         INTEGER NOT NULL,
    fallbacks        INTEGER NOT NULL,
    calls            INTEGER NOT NULL,
    input_tokens     INTEGER NOT NULL,
    output_tokens    INTEGER NOT NULL,
    cost_usd         REAL,                  -- NULL: the model has no price
    latency_s        REAL NOT NULL,
    termination      TEXT NOT NULL,
    error            TEXT,
    cached           INTEGER NOT NULL,      -- 0/1
    correct          INTEGER,               -- 0/1, NULL until scored
    score_method     TEXT,
    finished_at      TEXT
);
CREATE UNIQUE INDEX items_key
    ON items (run_id, approach, strategy, provider, model, item_id, repetition);
"""

# The provider's finish reason of the item's last free-text reply ("length": cut off).
_M002 = "ALTER TABLE items ADD COLUMN finish_reason TEXT"

# Schemas 1-2 kept one name per verdict (score_method), translated from grading's
# reason and how with detail lost; schema 3 keeps grading's own words. What each old
# name says in them: math_verify and numeric each covered several predicates (exact,
# fraction, math-verify ...), so their `how` is not known (NULL), and the old name stays
# in verdict_detail. One SQL expression per column, for the migration and for reading
# an old store that cannot be migrated (read-only).
_OLD_REASONS = {
    "no_gold": "unreadable_gold",
    "no_answer": "no_answer",
    "math_verify_timeout": "timeout",
}
_OLD_HOWS = {
    "no_gold": "none",
    "no_answer": "none",
    "math_verify_timeout": "math_verify",
    "choice_letter": "letter",
    "choice_text": "option_text",
    "boolean": "boolean",
    "text": "normalised_text",
    "game24": "game24",
}


def _from_score_method(table: dict[str, str], otherwise: str) -> str:
    whens = " ".join(f"WHEN score_method = '{old}' THEN '{new}'" for old, new in table.items())
    return f"CASE WHEN score_method IS NULL THEN NULL {whens} ELSE {otherwise} END"


_OLD_VERDICT = {
    "reason": _from_score_method(
        _OLD_REASONS,
        "CASE correct WHEN 1 THEN 'equivalent' WHEN 0 THEN 'different' ELSE 'unreadable_gold' END",
    ),
    "how": _from_score_method(_OLD_HOWS, "NULL"),
    # Text, not json_object(): SQLite builds without JSON functions exist.
    "verdict_detail": """CASE WHEN score_method IS NULL THEN NULL
        ELSE '{"score_method": "' || score_method || '"}' END""",
}

# The verdict in grading's own words, and what extraction found about the answer
# (malformed_answer and unfinished are judged from them). score_method stays, unused:
# DROP COLUMN needs SQLite 3.35, older than some systems' still.
_M003 = f"""
ALTER TABLE items ADD COLUMN valid INTEGER;             -- 0/1, NULL: not checked
ALTER TABLE items ADD COLUMN problem TEXT;
ALTER TABLE items ADD COLUMN unfinished INTEGER NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN reason TEXT;               -- NULL until scored
ALTER TABLE items ADD COLUMN how TEXT;
ALTER TABLE items ADD COLUMN verdict_detail TEXT;       -- JSON object
UPDATE items SET reason = {_OLD_VERDICT["reason"]},
    how = {_OLD_VERDICT["how"]},
    verdict_detail = {_OLD_VERDICT["verdict_detail"]}
"""

# What a reader needs to audit an item (a run viewer): where the answer was read from
# (span: JSON [start, end) in raw_output), and every call the item made (conversation:
# a JSON list of calls). Items stored before keep NULL spans and no conversation. (No
# comment after the last column: SQLite keeps its text inside the table's definition.)
#
# items_browse holds every column a reader filters, sorts or counts by (browse.py), so
# those queries read the index alone: the verdict's columns sit after the long texts in
# each row, and reading them from the table would walk every row's overflow pages (a
# filtered page of a 100,000-item run: 0.2-0.6 s without it; bench/viewer.py).
# items_pair finds the same question's item in another arm with its verdict, for paired
# comparisons (0.36 s -> 0.07 s for two arms of 25,000 items).
_M004 = f"""
ALTER TABLE items ADD COLUMN candidate TEXT;
ALTER TABLE items ADD COLUMN span TEXT;
ALTER TABLE items ADD COLUMN conversation TEXT NOT NULL DEFAULT '';
CREATE INDEX items_browse ON items ({", ".join(_BROWSE_COLUMNS)});
CREATE INDEX items_pair ON items
    (run_id, approach, strategy, provider, model, item_id, repetition, dataset, correct)
"""

# Several accepted answers per item (aliases), and the three measures open-domain QA
# reports (exact match, token F1, cover match): columns, as reports average them the
# way they count `correct`. NULL in older rows (one gold; not measured until re-scored).
# answers: a JSON list; NULL when the gold is the only accepted answer.
_M005 = """
ALTER TABLE items ADD COLUMN answers TEXT;
ALTER TABLE items ADD COLUMN em REAL;
ALTER TABLE items ADD COLUMN f1 REAL;
ALTER TABLE items ADD COLUMN cover REAL
"""

#: Append-only: (name, SQL). Migration *n* brings the schema to ``user_version`` *n*.
MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("m001_runs_and_items", _M001),
    ("m002_items_finish_reason", _M002),
    ("m003_items_verdict_reason_how", _M003),
    ("m004_items_span_conversation", _M004),
    ("m005_items_answers_and_qa_measures", _M005),
)
SCHEMA_VERSION = len(MIGRATIONS)


def _old_schema_columns(db: sqlite3.Connection) -> str:
    """The select list that reads the file's ``items`` table as the current schema has
    it: every column the table has, then one expression for each column that later
    migrations add (the old verdict in grading's words, else the column's default)."""
    present = {row[1] for row in db.execute("PRAGMA main.table_info(items)")}
    if not present:
        raise sqlite3.DatabaseError("it holds no answerx items table")
    added = []
    for column in _ITEM_COLUMNS:
        if column in present:
            continue
        if column in _OLD_VERDICT and "score_method" in present:
            added.append(f"{_OLD_VERDICT[column]} AS {column}")
        else:
            default = {"unfinished": "0", "conversation": "''"}.get(column, "NULL")
            added.append(f"{default} AS {column}")
    return ", ".join(["*", *added])


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
        raise store_error(where, sqlite3.DatabaseError(fault), advice=_WRONG_FILE)
    try:
        with where.open("rb") as f:
            header = f.read(len(_SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise store_error(where, exc) from None
    if not header:
        raise store_error(where, sqlite3.DatabaseError("an empty file"), advice=_WRONG_FILE)
    if header != _SQLITE_HEADER:
        raise store_error(where, sqlite3.DatabaseError("file is not a database"))


def _check_answerx_tables(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a SQLite file that holds no answerx store (another program's database): a
    command on existing runs must not take it for an empty store, nor migrate it."""
    tables = {row[0] for row in db.execute("SELECT name FROM main.sqlite_master")}
    if not {"runs", "items"} <= tables:
        fault = sqlite3.DatabaseError("a SQLite database without answerx's runs and items")
        raise store_error(path, fault, advice=_WRONG_FILE)


def _peek_at_tables(path: Path) -> None:
    """:func:`_check_answerx_tables` through a plain connection, which reads without
    switching the file to WAL (a write) and, closing last, leaves nothing beside it."""
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        _check_answerx_tables(db, path)
    except sqlite3.DatabaseError as exc:
        raise store_error(path, exc) from None
    finally:
        db.close()


_WRONG_FILE = (
    "it is not a results store: pass the store's file with --db, or move this one away "
    "to start a new store there"
)


def new_run_id(now: datetime | None = None) -> str:
    """A short, sortable run id: UTC time and 4 random hex digits (``20261121-143012-ab12``)."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"{moment:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


def _to_sql(column: str, value: Any) -> Any:
    if value is None:
        return None
    if column in _JSON_COLUMNS:
        return json.dumps(value)
    if column in _BOOL_COLUMNS:
        return int(bool(value))
    if column in _TIME_COLUMNS:
        return utc_iso(value)
    return value


def _from_sql(column: str, value: Any) -> Any:
    if value is None:
        return None
    if column in _JSON_COLUMNS:
        return json.loads(value)
    if column in _BOOL_COLUMNS:
        return bool(value)
    if column in _TIME_COLUMNS:
        return datetime.fromisoformat(value)
    return value


class ResultStore:
    """Experiment runs and items in a SQLite file; see the module docstring for guarantees.

    >>> with ResultStore(":memory:") as store:
    ...     run = store.start_run("demo", {"approaches": ["none"]}, "0" * 64)
    ...     store.get_run(run.run_id).status
    'running'
    """

    def __init__(
        self, path: str | Path | None = None, *, read_only: bool = False, existing: bool = False
    ) -> None:
        """Open (or create) the store at ``path``. ``read_only`` opens an existing store
        without writing anything to it, migrations included: what a command that only
        reads uses, and all a read-only file, folder or mount allows. ``existing``: the
        store must already be one (a command on its runs); like ``read_only`` it refuses
        a folder, an empty file or a file that is not an answerx store
        (:func:`check_store_file`) before anything is written to it."""
        # None: the default store in $ANSWERX_HOME, looked up now (not at import).
        path = default_db() if path is None else path
        self.path = Path(path)
        in_memory = str(path) == ":memory:"
        self.read_only = read_only and not in_memory
        if (existing or self.read_only) and not in_memory:
            check_store_file(self.path)
        if existing and not in_memory and not self.read_only and may_write(self.path):
            _peek_at_tables(self.path)  # before the WAL switch writes to another's file
        if not in_memory and not self.read_only:
            if self.path.exists() and not may_write(self.path):
                # Refused before SQLite leaves a -shm of this user's beside the file.
                raise self._error(sqlite3.OperationalError("read-only for this user"))
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = open_sqlite(path, wal=not in_memory, read_only=self.read_only, error=self._error)
        try:
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA foreign_keys = ON")
            if self.read_only:
                with self._guard():
                    _check_answerx_tables(self._db, self.path)
                self._read_old_schema()
            else:
                self._migrate()
        except BaseException as exc:
            self._db.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise self._error(exc) from None
            raise

    @classmethod
    def for_reading(cls, path: str | Path | None = None) -> ResultStore:
        """The store at ``path`` opened to be read, by every command that only reads
        (``runs list|show|report|export``, the viewer): read-only, so nothing is ever
        written to it (an older schema is read as migrated, the file left as it is), and
        a folder, an empty file or another program's file is refused with the same
        :class:`StoreError` (:func:`check_store_file`) whichever command met it."""
        path = default_db() if path is None else path
        return cls(path, read_only=str(path) != ":memory:" and not may_write(path), existing=True)

    # --- lifecycle ---------------------------------------------------------------------

    def _error(self, exc: Exception) -> StoreError:
        return store_error(self.path, exc)

    @contextmanager
    def _guard(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, with SQLite's failures of the file turned into
        :class:`StoreError` (one place, so every method reports a damaged file alike)."""
        with guarded(self._lock, self._error):
            yield self._db

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def journal_mode(self) -> str:
        """SQLite's journal mode for this file (``wal`` for a file store)."""
        with self._guard():
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    @property
    def schema_version(self) -> int:
        with self._guard():
            return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        if self.schema_version == SCHEMA_VERSION:
            return  # the usual case: no write lock taken, so readers open freely
        with self._guard(), self._transaction():  # one process migrates; the others wait
            version = self._known_version()  # again, inside the lock
            for _name, sql in MIGRATIONS[version:]:
                # Statement by statement: executescript() would COMMIT the open transaction.
                for statement in sql.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _known_version(self) -> int:
        """The file's schema version; a newer one than this answerx knows is refused."""
        version = self.schema_version
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"results store {str(self.path)!r} has schema version {version}, "
                f"newer than this answerx ({__version__}) knows ({SCHEMA_VERSION}): "
                "upgrade answerx",
                path=str(self.path),
            )
        return version

    def _read_old_schema(self) -> None:
        """Read a store of an older schema as if migrated, without changing it: a
        temporary view named ``items`` (the connection's own, in memory) adds the
        columns the file lacks and comes before the file's table in every statement."""
        if self._known_version() == SCHEMA_VERSION:
            return
        with self._guard():
            columns = _old_schema_columns(self._db)
            self._db.execute(f"CREATE TEMP VIEW items AS SELECT {columns} FROM main.items")

    # --- runs --------------------------------------------------------------------------

    def create_run(self, record: RunRecord) -> RunRecord:
        """Store a new run; a run id already in the store raises ConfigError."""
        values = redact_keys_deep(record.model_dump())
        values["config"] = json.dumps(values["config"], sort_keys=True)
        row = [_to_sql(c, values[c]) if c != "config" else values[c] for c in _RUN_COLUMNS]
        with self._guard():
            try:
                self._db.execute(
                    f"INSERT INTO runs ({', '.join(_RUN_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(_RUN_COLUMNS))})",
                    row,
                )
            except sqlite3.IntegrityError:
                raise DuplicateRun(
                    f"a run with id {record.run_id!r} already exists", run_id=record.run_id
                ) from None
        return record

    def start_run(
        self, name: str, config: Mapping[str, Any], config_hash: str, *, run_id: str | None = None
    ) -> RunRecord:
        """Create a ``running`` run with a fresh id, now, and this answerx's version."""
        for _ in range(5):  # a fresh id collides only within the same second, rarely
            record = RunRecord(
                run_id=run_id or new_run_id(),
                name=name,
                config=dict(config),
                config_hash=config_hash,
                answerx_version=__version__,
                started_at=datetime.now(UTC),
            )
            try:
                return self.create_run(record)
            except ConfigError:
                if run_id is not None:
                    raise
        raise ConfigError("could not find a free run id")  # pragma: no cover - 5 collisions

    def get_run(self, run_id: str) -> RunRecord:
        """The run ``run_id``, or the only run whose id starts with it; else ConfigError."""
        with self._guard():
            row = self._db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None and run_id:
                matches = self._db.execute(
                    "SELECT * FROM runs WHERE substr(run_id, 1, ?) = ? ORDER BY run_id",
                    (len(run_id), run_id),
                ).fetchall()
                if len(matches) > 1:
                    ids = ", ".join(m["run_id"] for m in matches[:10])
                    raise ConfigError(f"run id {run_id!r} is ambiguous: it starts {ids}")
                row = matches[0] if matches else None
        if row is None:
            raise RunNotFound(
                f"no run {run_id!r} in {self.path}; `answerx runs list` shows the runs there",
                run_id=run_id,
            )
        return self._run_from_row(row)

    def list_runs(self) -> list[RunRecord]:
        """Every run, newest first."""
        with self._guard():
            rows = self._db.execute(
                "SELECT * FROM runs ORDER BY started_at DESC, run_id DESC"
            ).fetchall()
        return [self._run_from_row(row) for row in rows]

    def latest_run(self) -> RunRecord | None:
        """The most recently started run, or None in an empty store."""
        runs = self.list_runs()
        return runs[0] if runs else None

    def find_runs(self, config_hash: str) -> list[RunRecord]:
        """The runs made with this config hash, newest first (to resume "the same config")."""
        with self._guard():
            rows = self._db.execute(
                "SELECT * FROM runs WHERE config_hash = ? ORDER BY started_at DESC, run_id DESC",
                (config_hash,),
            ).fetchall()
        return [self._run_from_row(row) for row in rows]

    def finish_run(self, run_id: str, status: RunStatus = "finished") -> RunRecord:
        """Record how a run ended (``finished``, ``interrupted``, ``failed``) and when."""
        finished = None if status == "running" else utc_iso(datetime.now(UTC))
        self._update_run(run_id, status, finished)
        return self.get_run(run_id)

    def resume_run(self, run_id: str) -> RunRecord:
        """Mark a run as ``running`` again (its end time cleared) before resuming it."""
        self._update_run(run_id, "running", None)
        return self.get_run(run_id)

    def _update_run(self, run_id: str, status: str, finished_at: str | None) -> None:
        with self._guard():
            cursor = self._db.execute(
                "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                (status, finished_at, run_id),
            )
        if cursor.rowcount == 0:
            self.get_run(run_id)  # raises the "no run" error

    def delete_run(self, run_id: str) -> int:
        """Delete a run and all its items; returns the number of items deleted."""
        run_id = self.get_run(run_id).run_id
        with self._guard(), self._transaction():
            deleted = self._db.execute("DELETE FROM items WHERE run_id = ?", (run_id,)).rowcount
            self._db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
        return int(deleted)

    def _run_from_row(self, row: sqlite3.Row) -> RunRecord:
        try:
            values = {c: _from_sql(c, row[c]) for c in _RUN_COLUMNS}
            values["config"] = json.loads(row["config"])
            return RunRecord.model_validate(values)
        except ValueError:  # bytes overwritten inside a page SQLite still reads
            damaged = ValueError(f"the stored run {row['run_id']!r} is unreadable")
            raise store_error(self.path, damaged) from None

    # --- items -------------------------------------------------------------------------

    def add_item(self, item: ItemRecord) -> bool:
        """Store one finished item, committed at once. Never duplicates a key.

        Returns True when the item was written: a new key, or a key whose stored
        row has an error (a retry replaces it). Returns False, writing nothing,
        when the key already finished without error.
        """
        with self._guard():
            return self._upsert(item) > 0

    def add_items(self, items: Iterable[ItemRecord]) -> int:
        """Store several items in one transaction (same rules as :meth:`add_item`);
        returns how many were written."""
        written = 0
        with self._guard(), self._transaction():
            for item in items:
                written += self._upsert(item)
        return written

    def _upsert(self, item: ItemRecord) -> int:
        values = redact_keys_deep(item.model_dump())  # no piece of a key is stored
        if values["error"] is not None:
            values["error"] = redact(values["error"])
        columns = ", ".join(_ITEM_COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in _ITEM_COLUMNS)
        try:
            cursor = self._db.execute(
                f"INSERT INTO items ({columns}) VALUES ({', '.join('?' * len(_ITEM_COLUMNS))}) "
                f"ON CONFLICT (run_id, {', '.join(_KEY_COLUMNS)}) "
                f"DO UPDATE SET {updates} WHERE items.error IS NOT NULL",
                [_to_sql(c, values[c]) for c in _ITEM_COLUMNS],
            )
        except sqlite3.IntegrityError as exc:
            if "FOREIGN KEY" in str(exc):
                raise RunNotFound(
                    f"no run {item.run_id!r}: create the run first", run_id=item.run_id
                ) from None
            raise
        return int(cursor.rowcount)

    def done_keys(self, run_id: str) -> set[ItemKey]:
        """The keys of the run's items that finished without error (to skip on resume)."""
        # Through the key index and the rows themselves: the browsing index holds the key
        # and the error too, and would claim as done an item whose row a damaged page lost.
        with self._guard():
            rows = self._db.execute(
                f"SELECT {', '.join(_KEY_COLUMNS)} FROM main.items INDEXED BY items_key "
                "WHERE run_id = ? AND error IS NULL",
                (run_id,),
            ).fetchall()
        return {cast(ItemKey, tuple(row)) for row in rows}

    def items(self, run_id: str, **filters: Any) -> Iterator[ItemRecord]:
        """The run's items in the order they were stored, optionally filtered.

        Each filter is an :class:`ItemRecord` field: ``approach="none"``,
        ``correct=None`` (unscored), ``provider=["openai", "anthropic"]`` (any of).
        Rows are read a page at a time, so a large run iterates in flat memory.
        """
        where, params = self._where(run_id, filters)
        last = 0
        while True:
            with self._guard():
                rows = self._db.execute(
                    f"SELECT * FROM items WHERE {where} AND id > ? ORDER BY id LIMIT {_PAGE}",
                    [*params, last],
                ).fetchall()
            for row in rows:
                yield self._item_from_row(row)
            if len(rows) < _PAGE:
                return
            last = rows[-1]["id"]

    def items_matching(self, run_id: str, query: ItemQuery) -> Iterator[ItemRecord]:
        """The run's whole items that ``query`` picks, in its order (what a viewer's list
        shows, for an export): their row ids first, then the rows a page at a time, so
        a 100,000-item run is written in flat memory."""
        where, params = compile_query(run_id, query)
        with self._guard():
            ids = [
                row[0]
                for row in self._db.execute(
                    f"SELECT id FROM items WHERE {where} ORDER BY {order_of(query)}", params
                )
            ]
        for start in range(0, len(ids), _PAGE):
            chunk = ids[start : start + _PAGE]
            with self._guard():
                rows = self._db.execute(
                    f"SELECT * FROM items WHERE id IN ({', '.join('?' * len(chunk))})", chunk
                ).fetchall()
            found = {row["id"]: row for row in rows}
            yield from (self._item_from_row(found[i]) for i in chunk if i in found)

    def count_items(self, run_id: str, **filters: Any) -> int:
        """How many of the run's items match the filters (as in :meth:`items`)."""
        where, params = self._where(run_id, filters)
        with self._guard():
            return int(
                self._db.execute(f"SELECT COUNT(*) FROM items WHERE {where}", params).fetchone()[0]
            )

    def update_verdicts(self, run_id: str, items: Iterable[ItemRecord]) -> int:
        """Store the verdict (:data:`~answerx.experiments.records.VERDICT_FIELDS`) of each
        item of ``items``, found by its key in run ``run_id``, in one transaction; returns
        the number of items updated (keys not in the run are skipped)."""
        updated = 0
        sql = (
            f"UPDATE items SET {', '.join(f'{c} = ?' for c in VERDICT_FIELDS)} "
            f"WHERE run_id = ? AND {' AND '.join(f'{c} = ?' for c in _KEY_COLUMNS)}"
        )
        with self._guard(), self._transaction():
            for item in items:
                verdict = [_to_sql(c, getattr(item, c)) for c in VERDICT_FIELDS]
                updated += self._db.execute(sql, (*verdict, run_id, *item.key)).rowcount
        return updated

    def item_counts(self, run_ids: Iterable[str] | None = None) -> dict[str, int]:
        """How many items each run holds (every run, or those of ``run_ids``), counted
        from the rows themselves, not only from the index that lists them.

        The check is the count's own cost: it reads the pages of the counted rows once
        (a run's range of rows, or the whole table for every run), never their long
        texts. A page among them that SQLite cannot read, or an index that lists rows
        the table no longer has, raises :class:`StoreError` (damaged, with how to
        recover) instead of a count that promises items no one can read.
        """
        with self._guard(), self._reading():
            if run_ids is None:
                rows = self._db.execute(
                    "SELECT run_id, count(*) FROM main.items NOT INDEXED GROUP BY run_id"
                ).fetchall()
                listed = self._db.execute(
                    "SELECT run_id, count(*) FROM main.items INDEXED BY items_key GROUP BY run_id"
                ).fetchall()
                counts, indexed = dict(map(tuple, rows)), dict(map(tuple, listed))
            else:
                counts, indexed = {}, {}
                for run_id in run_ids:
                    counts[run_id], indexed[run_id] = self._count_run(run_id)
        if counts != indexed:
            run_id = min(
                r for r in counts.keys() | indexed.keys() if counts.get(r) != indexed.get(r)
            )
            damaged = ValueError(
                f"its index lists {indexed.get(run_id, 0)} items of run {run_id!r}, "
                f"its table holds {counts.get(run_id, 0)}"
            )
            raise store_error(self.path, damaged)
        return counts

    def _count_run(self, run_id: str) -> tuple[int, int]:
        """(rows read, rows the index lists) of one run: its rows are read over the range
        of row ids the index gives them (a run's rows lie together, in insertion order)."""
        listed, low, high = self._db.execute(
            "SELECT count(*), min(id), max(id) FROM main.items WHERE run_id = ?", (run_id,)
        ).fetchone()
        if not listed:
            return 0, 0
        read = self._db.execute(
            "SELECT count(*) FROM main.items NOT INDEXED WHERE id BETWEEN ? AND ? AND run_id = ?",
            (low, high, run_id),
        ).fetchone()[0]
        return int(read), int(listed)

    # --- browsing: pages of a run's items (answerx runs view) ---------------------------

    def item_page(
        self, run_id: str, query: ItemQuery | None = None, *, offset: int = 0, limit: int = 50
    ) -> ItemPage:
        """A page of the run's items matching ``query``, in its order, without their long
        texts (:class:`~answerx.experiments.browse.ItemRow`), and how many match in all.

        The rows are chosen over the columns of the browsing index, then only the page's
        rows are read: a page of a 100,000-item run reads 50 rows, not all. A search,
        which must read every text, reads them once for both the page and the count.
        """
        query = query or ItemQuery()
        where, params = compile_query(run_id, query)
        select = f"SELECT id FROM items WHERE {where} ORDER BY {order_of(query)}"
        offset, limit = max(0, offset), max(0, limit)
        with self._guard(), self._reading():
            if query.search:
                every = [row[0] for row in self._db.execute(select, params)]
                total, ids = len(every), every[offset : offset + limit]
            else:
                found = self._db.execute(f"SELECT count(*) FROM items WHERE {where}", params)
                total = int(found.fetchone()[0])
                paged = self._db.execute(f"{select} LIMIT ? OFFSET ?", [*params, limit, offset])
                ids = [row[0] for row in paged]
            columns = ", ".join(ROW_COLUMNS)
            rows = {
                row["id"]: row
                for row in self._db.execute(
                    f"SELECT id, {columns} FROM items WHERE id IN ({', '.join('?' * len(ids))})",
                    ids,
                )
            }
        return ItemPage(rows=[self._row_from_sql(rows[i]) for i in ids if i in rows], total=total)

    def count_rows(self, run_id: str, query: ItemQuery | None = None) -> int:
        """How many of the run's items match ``query``."""
        where, params = compile_query(run_id, query or ItemQuery())
        with self._guard():
            found = self._db.execute(f"SELECT count(*) FROM items WHERE {where}", params)
            return int(found.fetchone()[0])

    def item_at(self, run_id: str, row: int) -> ItemRecord | None:
        """The whole item stored in ``row`` (:attr:`ItemRow.row`) of run ``run_id``; None
        when that row holds no item of the run."""
        with self._guard():
            found = self._db.execute(
                "SELECT * FROM items WHERE id = ? AND run_id = ?", (row, run_id)
            ).fetchone()
        return None if found is None else self._item_from_row(found)

    def neighbours(
        self, run_id: str, row: int, query: ItemQuery | None = None
    ) -> Neighbours | None:
        """Where ``row`` stands among the run's items matching ``query`` (its place, the
        rows before and after it); None when it does not match the query."""
        query = query or ItemQuery()
        where, params = compile_query(run_id, query)
        if query.sort == "id" and not query.search:
            return self._neighbours_in_stored_order(where, params, row, query.descending)
        with self._guard():
            found = self._db.execute(
                "SELECT place, previous, following, total FROM ("
                "SELECT id, row_number() OVER w AS place, lag(id) OVER w AS previous, "
                "lead(id) OVER w AS following, count(*) OVER () AS total "
                f"FROM items WHERE {where} WINDOW w AS (ORDER BY {order_of(query)})"
                ") WHERE id = ?",
                [*params, row],
            ).fetchone()
        if found is None:
            return None
        place, previous, following, total = found
        return Neighbours(position=place, total=total, previous=previous, next=following)

    def _neighbours_in_stored_order(
        self, where: str, params: list[Any], row: int, descending: bool
    ) -> Neighbours | None:
        """:meth:`neighbours` in the stored order, in one pass over the browsing index
        (half the time of the window functions, which sort every match first)."""
        before, after = ("<", ">") if not descending else (">", "<")
        first, last = ("max", "min") if not descending else ("min", "max")
        with self._guard():
            total, place, previous, following, there = self._db.execute(
                f"SELECT count(*), coalesce(sum(id {before} ?), 0), "
                f"{first}(CASE WHEN id {before} ? THEN id END), "
                f"{last}(CASE WHEN id {after} ? THEN id END), coalesce(sum(id = ?), 0) "
                f"FROM items WHERE {where}",
                [row, row, row, row, *params],
            ).fetchone()
        if not there:
            return None
        return Neighbours(position=place + 1, total=total, previous=previous, next=following)

    def tally(
        self, run_id: str, by: tuple[str, ...] = (), query: ItemQuery | None = None
    ) -> list[Tally]:
        """The run's items matching ``query``, counted per group of the ``by`` columns
        (of :data:`~answerx.experiments.browse.GROUPS`): verdicts, failures, tokens,
        cost and mean latency, in SQL (nothing but the counts is read into memory)."""
        unknown = sorted(set(by) - set(GROUPS))
        if unknown:
            raise ConfigError(
                f"cannot group items by {unknown[0]!r}; group by: {', '.join(GROUPS)}"
            )
        where, params = compile_query(run_id, query or ItemQuery())
        keys = ", ".join(by)
        sql = (
            f"SELECT {keys + ', ' if by else ''}count(*) AS n, count(correct) AS scored, "
            "coalesce(sum(correct), 0) AS correct, "
            "coalesce(sum(error IS NOT NULL), 0) AS errors, "
            "coalesce(sum(unfinished), 0) AS unfinished, coalesce(sum(cached), 0) AS cached, "
            "coalesce(sum(input_tokens), 0) AS input_tokens, "
            "coalesce(sum(output_tokens), 0) AS output_tokens, "
            "sum(cost_usd) AS cost, count(cost_usd) AS priced, "
            "coalesce(avg(latency_s), 0) AS latency_s "
            f"FROM items WHERE {where}" + (f" GROUP BY {keys} ORDER BY {keys}" if by else "")
        )
        with self._guard():
            rows = self._db.execute(sql, params).fetchall()
        return [
            Tally(
                group={c: _from_sql(c, row[c]) for c in by},
                n=row["n"],
                scored=row["scored"],
                correct=row["correct"],
                errors=row["errors"],
                unfinished=row["unfinished"],
                cached=row["cached"],
                input_tokens=row["input_tokens"],
                output_tokens=row["output_tokens"],
                # One unpriced item makes the sum unknown, never an undercount.
                cost_usd=(row["cost"] or 0.0) if row["priced"] == row["n"] else None,
                latency_s=row["latency_s"],
            )
            for row in rows
            if row["n"]
        ]

    def value_counts(
        self, run_id: str, by: tuple[str, ...], query: ItemQuery | None = None
    ) -> list[tuple[dict[str, Any], int]]:
        """How many of the run's items matching ``query`` have each combination of values
        of the ``by`` columns (of :data:`~answerx.experiments.browse.GROUPS`): a lighter
        :meth:`tally` that counts only (grouped in the browsing index's column order, it
        reads the index once without sorting)."""
        unknown = sorted(set(by) - set(GROUPS)) or ([] if by else ["(none)"])
        if unknown:
            raise ConfigError(
                f"cannot group items by {unknown[0]!r}; group by: {', '.join(GROUPS)}"
            )
        where, params = compile_query(run_id, query or ItemQuery())
        keys = ", ".join(by)
        sql = f"SELECT {keys}, count(*) FROM items WHERE {where} GROUP BY {keys} ORDER BY {keys}"
        with self._guard():
            rows = self._db.execute(sql, params).fetchall()
        return [({c: _from_sql(c, row[c]) for c in by}, row[len(by)]) for row in rows]

    def paired_counts(self, a: Arm, b: Arm) -> PairedCounts:
        """Arms ``a`` and ``b`` (of one run or two) on the same questions (dataset, item,
        repetition) that both have a verdict for: what McNemar's test needs."""
        sql, params = paired_sql(a, b)
        with self._guard():
            pairs, a_correct, b_correct, only_a, only_b = self._db.execute(sql, params).fetchone()
        return PairedCounts(
            pairs=pairs, a_correct=a_correct, b_correct=b_correct, only_a=only_a, only_b=only_b
        )

    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """The rows of one SELECT that a query module wrote
        (:mod:`answerx.experiments.compare`), read under the store's guard: a damaged
        file is a :class:`StoreError` here as from every other method."""
        with self._guard():
            return self._db.execute(sql, list(params)).fetchall()

    def _row_from_sql(self, row: sqlite3.Row) -> ItemRow | BadRow:
        try:
            return ItemRow.model_validate(
                {"row": row["id"], **{c: _from_sql(c, row[c]) for c in ROW_COLUMNS}}
            )
        except ValueError as exc:  # a value answerx does not allow: this row only
            if isinstance(exc, ValidationError):
                problem = "; ".join(
                    f"{e['loc'][0]}={str(e.get('input'))[:60]!r}: {e['msg']}"
                    for e in exc.errors()[:3]
                )
            else:
                problem = str(exc)[:200]
            return BadRow(row=row["id"], item_id=str(row["item_id"]), problem=problem)

    def _where(self, run_id: str, filters: Mapping[str, Any]) -> tuple[str, list[Any]]:
        clauses, params = ["run_id = ?"], [run_id]
        for name, value in filters.items():
            if name not in _ITEM_COLUMNS or name == "run_id":
                raise ConfigError(
                    f"cannot filter items by {name!r}; filter by one of: "
                    + ", ".join(c for c in _ITEM_COLUMNS if c != "run_id")
                )
            if value is None:
                clauses.append(f"{name} IS NULL")
            elif isinstance(value, list | tuple | set | frozenset):
                values = list(value)
                clauses.append(f"{name} IN ({', '.join('?' * len(values))})" if values else "0")
                params.extend(_to_sql(name, v) for v in values)
            else:
                clauses.append(f"{name} = ?")
                params.append(_to_sql(name, value))
        return " AND ".join(clauses), params

    def _item_from_row(self, row: sqlite3.Row) -> ItemRecord:
        # Columns the row lacks (salvaged from a store of an older schema) take the
        # record's defaults.
        present = set(row.keys())
        try:
            return ItemRecord.model_validate(
                {c: _from_sql(c, row[c]) for c in _ITEM_COLUMNS if c in present}
            )
        except ValueError:  # bytes overwritten inside a page SQLite still reads
            damaged = ValueError(f"the stored item in row {row['id']} is unreadable")
            raise store_error(self.path, damaged) from None

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """One read transaction: statements inside see the same snapshot of the file
        (WAL), whatever another process commits meanwhile."""
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            self._db.execute("COMMIT")

    # --- export ------------------------------------------------------------------------

    def export(self, run_id: str, path: str | Path, format: ExportFormat | None = None) -> int:
        """Write the run's items to ``path`` as CSV, JSONL or Parquet; returns the row count.

        See :func:`answerx.experiments.export.export_items` for the formats.
        """
        run_id = self.get_run(run_id).run_id
        return export_items(self.items(run_id), path, format)


class _Transaction:
    """BEGIN … COMMIT, or ROLLBACK when the block raises (the connection is in autocommit)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._db.execute("ROLLBACK" if exc_type is not None else "COMMIT")


# --- salvage ---------------------------------------------------------------------------

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
            items_columns = _old_schema_columns(db)  # an older store's items read as new
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
