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
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, cast

from answerx._version import __version__
from answerx.errors import ConfigError, DuplicateRun, RunNotFound, StoreError, redact
from answerx.experiments.records import VERDICT_FIELDS, ItemKey, ItemRecord, RunRecord, RunStatus
from answerx.experiments.sqlitefile import guarded, may_write, open_sqlite, store_error
from answerx.experiments.store.export import ExportFormat, export_items, utc_iso
from answerx.experiments.store.health import (
    check_answerx_tables,
    check_store_file,
    peek_at_tables,
)
from answerx.experiments.store.queries import BrowseQueries
from answerx.experiments.store.schema import (
    ITEM_COLUMNS,
    KEY_COLUMNS,
    MIGRATIONS,
    RUN_COLUMNS,
    SCHEMA_VERSION,
    from_sql,
    old_schema_columns,
    to_sql,
)
from answerx.experiments.store.url import is_store_url
from answerx.redactor import redact_keys_deep
from answerx.support.home import default_db

__all__ = ["DEFAULT_DB", "OpenMode", "ResultStore", "new_run_id", "register_server"]

#: The results store when ``$ANSWERX_HOME`` is unset (:func:`answerx.support.home.default_db`).
DEFAULT_DB = Path("runs/answerx.db")

_PAGE = 500  # rows read per query when iterating items

#: The lease of an item a worker has finished: it never runs out (no one asks it again).
FINISHED_LEASE = 1e18

#: How a command opens a store (:meth:`ResultStore.open`).
OpenMode = Literal["write", "existing", "read", "read_only"]

#: The stores on a server, by kind: filled by their modules (:mod:`.postgres` registers
#: itself when the package is imported), so this one never imports them.
_SERVERS: dict[str, Callable[[str, OpenMode], ResultStore]] = {}


def register_server(kind: str, opener: Callable[[str, OpenMode], ResultStore]) -> None:
    """Let :meth:`ResultStore.open` open a server's URL of ``kind`` with ``opener``."""
    _SERVERS[kind] = opener


def new_run_id(now: datetime | None = None) -> str:
    """A short, sortable run id: UTC time and 4 random hex digits (``20261121-143012-ab12``)."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"{moment:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


class ResultStore(BrowseQueries):
    """Experiment runs and items in a SQLite file; see the module docstring for guarantees.

    Opened by :meth:`open`; the browse queries are :class:`.queries.BrowseQueries`'.

    >>> with ResultStore(":memory:") as store:
    ...     run = store.start_run("demo", {"approaches": ["none"]}, "0" * 64)
    ...     store.get_run(run.run_id).status
    'running'
    """

    #: What the driver raises for a broken key or a missing run (a duplicate, no run).
    _INTEGRITY: type[Exception] = sqlite3.IntegrityError
    #: The items table read through its key index alone (its rows, not the browsing
    #: index, which would claim items a damaged page has lost).
    _ITEMS_BY_KEY = "main.items INDEXED BY items_key"

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
            peek_at_tables(self.path)  # before the WAL switch writes to another's file
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
                    check_answerx_tables(self._db, self.path)
                self._read_old_schema()
            else:
                self._migrate()
        except BaseException as exc:
            self._db.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise self._error(exc) from None
            raise

    @classmethod
    def open(cls, path: str | Path | None = None, mode: OpenMode = "write") -> ResultStore:
        """The one way a command opens the store at ``path`` (None: ``$ANSWERX_HOME``'s).

        - ``write``: a run's store, created (with its folder) when missing, migrated.
        - ``existing``: a command that changes existing runs (``runs score``, ``delete``):
          the file must already be a store (:func:`check_store_file`).
        - ``read``: a command that only reads (``runs list|show|report|export``): as
          ``existing``, and read-only where this process may not write the file.
        - ``read_only``: nothing is ever written, migrations included (the viewer).

        Every mode but ``write`` refuses a missing file (:class:`StoreError`). A
        ``postgresql://`` URL opens the store on that server
        (:class:`~answerx.experiments.store.postgres.PostgresStore`) in the same modes.
        """
        path = default_db() if path is None else path
        if is_store_url(path):
            return _SERVERS["postgresql"](str(path), mode)
        if mode != "write" and str(path) != ":memory:" and not Path(path).exists():
            # SQLite would create an empty store there: a typo'd --db must not pass.
            raise StoreError(
                f"no results store at {str(path)!r}: run an experiment first, or pass its --db",
                path=str(path),
            )
        if mode == "read":
            return cls.for_reading(path)
        return cls(path, read_only=mode == "read_only", existing=mode == "existing")

    @property
    def where(self) -> str:
        """The store as messages name it: its file (a server's URL without credentials)."""
        return str(self.path)

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

    def change_stamp(self) -> str | None:
        """A value that differs after every commit, cheap to ask for: None for a file (its
        readers compare the file's own size and time); on a server, its current snapshot
        (``PostgresStore.change_stamp``)."""
        return None

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
                f"results store {self.where!r} has schema version {version}, "
                f"newer than this answerx ({__version__}) knows ({SCHEMA_VERSION}): "
                "upgrade answerx",
                path=self.where,
            )
        return version

    def _read_old_schema(self) -> None:
        """Read a store of an older schema as if migrated, without changing it: a
        temporary view named ``items`` (the connection's own, in memory) adds the
        columns the file lacks and comes before the file's table in every statement."""
        if self._known_version() == SCHEMA_VERSION:
            return
        with self._guard():
            columns = old_schema_columns(self._db)
            self._db.execute(f"CREATE TEMP VIEW items AS SELECT {columns} FROM main.items")

    # --- runs --------------------------------------------------------------------------

    def create_run(self, record: RunRecord) -> RunRecord:
        """Store a new run; a run id already in the store raises ConfigError."""
        values = redact_keys_deep(record.model_dump())
        values["config"] = json.dumps(values["config"], sort_keys=True)
        row = [to_sql(c, values[c]) if c != "config" else values[c] for c in RUN_COLUMNS]
        with self._guard():
            try:
                self._db.execute(
                    f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(RUN_COLUMNS))})",
                    row,
                )
            except self._INTEGRITY:
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
                f"no run {run_id!r} in {self.where}; `answerx runs list` shows the runs there",
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

    # --- many workers, one run (answerx run --join) -------------------------------------

    def join_run(self, name: str, config: Mapping[str, Any], config_hash: str) -> RunRecord:
        """The run the workers of this configuration share: the newest run of
        ``config_hash`` not yet finished (resumed, its old claims cleared, unless it is
        running), else a new one. One worker at a time decides, so workers started
        together join one run."""
        with self._guard(), self._transaction():
            self._lock_runs()
            row = self._db.execute(
                "SELECT * FROM runs WHERE config_hash = ? AND status <> 'finished' "
                "ORDER BY started_at DESC, run_id DESC LIMIT 1",
                (config_hash,),
            ).fetchone()
            if row is None:
                return self.start_run(name, config, config_hash)
            run = self._run_from_row(row)
            if run.status != "running":  # nobody works on it: earlier claims mean nothing
                self._db.execute("DELETE FROM claims WHERE run_id = ?", (run.run_id,))
                self._update_run(run.run_id, "running", None)
        return self.get_run(run.run_id)

    def _lock_runs(self) -> None:
        """Hold the store's lock on starting runs until the transaction ends (SQLite's
        ``BEGIN IMMEDIATE`` already holds the whole file's)."""

    def claim(self, run_id: str, key: ItemKey, worker: str, lease_s: float) -> bool:
        """Take item ``key`` of run ``run_id`` for ``worker`` for ``lease_s`` seconds, if no
        other worker holds it (never held, or its lease ran out); atomic, so two workers
        never both take one item."""
        now = time.time()
        keys = ", ".join(KEY_COLUMNS)
        with self._guard():
            cursor = self._db.execute(
                f"INSERT INTO claims (run_id, {keys}, worker, leased_until) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                f"ON CONFLICT (run_id, {keys}) DO UPDATE SET worker = excluded.worker, "
                "leased_until = excluded.leased_until WHERE claims.leased_until < ?",
                (run_id, *key, worker, now + lease_s, now),
            )
        return int(cursor.rowcount) > 0

    def renew_claims(self, run_id: str, worker: str, lease_s: float) -> None:
        """Extend every unfinished lease ``worker`` holds (its heartbeat)."""
        with self._guard():
            self._db.execute(
                "UPDATE claims SET leased_until = ? "
                "WHERE run_id = ? AND worker = ? AND leased_until < ?",
                (time.time() + lease_s, run_id, worker, FINISHED_LEASE),
            )

    def finish_claim(self, run_id: str, key: ItemKey, worker: str) -> None:
        """Mark ``worker``'s item ``key`` finished: its lease never runs out."""
        where = " AND ".join(f"{c} = ?" for c in KEY_COLUMNS)
        with self._guard():
            self._db.execute(
                f"UPDATE claims SET leased_until = ? WHERE run_id = ? AND {where} AND worker = ?",
                (FINISHED_LEASE, run_id, *key, worker),
            )

    def finished_claims(self, run_id: str) -> set[ItemKey]:
        """The keys of the run's items some worker has finished since the run was joined."""
        with self._guard():
            rows = self._db.execute(
                f"SELECT {', '.join(KEY_COLUMNS)} FROM claims "
                "WHERE run_id = ? AND leased_until >= ?",
                (run_id, FINISHED_LEASE),
            ).fetchall()
        return {cast(ItemKey, tuple(row)) for row in rows}

    def count_finished_claims(self, run_id: str) -> int:
        """How many of the run's items workers have finished since the run was joined."""
        with self._guard():
            row = self._db.execute(
                "SELECT count(*) FROM claims WHERE run_id = ? AND leased_until >= ?",
                (run_id, FINISHED_LEASE),
            ).fetchone()
        return int(row[0])

    def join_run_id(self, run_id: str) -> RunRecord:
        """Join the run ``run_id`` (``answerx runs work``): as :meth:`join_run` does for the
        run it picks, a run nobody works on is marked running again, its old claims cleared."""
        run = self.get_run(run_id)
        with self._guard(), self._transaction():
            self._lock_runs()
            status = self._db.execute(
                "SELECT status FROM runs WHERE run_id = ?", (run.run_id,)
            ).fetchone()[0]
            if status != "running":
                self._db.execute("DELETE FROM claims WHERE run_id = ?", (run.run_id,))
                self._update_run(run.run_id, "running", None)
        return self.get_run(run.run_id)

    # --- a run's budgets, shared by its workers -----------------------------------------

    def open_budget(self, run_id: str, name: str, calls: int, cost_usd: float) -> None:
        """Make sure the run's budget ``name`` has its row, with at least ``calls`` and
        ``cost_usd`` spent (what the run's stored items show it spent before)."""
        with self._guard():
            self._db.execute(
                "INSERT INTO budgets (run_id, name, calls, cost_usd) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (run_id, name) DO UPDATE SET "
                "calls = CASE WHEN excluded.calls > budgets.calls "
                "THEN excluded.calls ELSE budgets.calls END, "
                "cost_usd = CASE WHEN excluded.cost_usd > budgets.cost_usd "
                "THEN excluded.cost_usd ELSE budgets.cost_usd END",
                (run_id, name, calls, cost_usd),
            )

    def take_budget(
        self, run_id: str, name: str, *, max_calls: int | None, max_cost_usd: float | None
    ) -> bool:
        """Count one more call of the run's budget ``name`` if its caps allow it: one
        atomic UPDATE, so workers asking together never pass ``max_calls`` between them."""
        caps = ""
        params: list[Any] = [run_id, name]
        if max_calls is not None:
            caps += " AND calls < ?"
            params.append(max_calls)
        if max_cost_usd is not None:
            caps += " AND cost_usd < ?"
            params.append(max_cost_usd)
        with self._guard():
            cursor = self._db.execute(
                f"UPDATE budgets SET calls = calls + 1 WHERE run_id = ? AND name = ?{caps}",
                params,
            )
        return int(cursor.rowcount) > 0

    def spend_budget(self, run_id: str, name: str, cost_usd: float) -> None:
        """Add what a call of the run's budget ``name`` cost."""
        with self._guard():
            self._db.execute(
                "UPDATE budgets SET cost_usd = cost_usd + ? WHERE run_id = ? AND name = ?",
                (cost_usd, run_id, name),
            )

    def budget_spent(self, run_id: str, name: str) -> tuple[int, float]:
        """(calls, cost in USD) the run has spent of its budget ``name``, every worker's."""
        with self._guard():
            row = self._db.execute(
                "SELECT calls, cost_usd FROM budgets WHERE run_id = ? AND name = ?",
                (run_id, name),
            ).fetchone()
        return (0, 0.0) if row is None else (int(row[0]), float(row[1]))

    def delete_run(self, run_id: str) -> int:
        """Delete a run and all its items; returns the number of items deleted."""
        run_id = self.get_run(run_id).run_id
        with self._guard(), self._transaction():
            deleted = self._db.execute("DELETE FROM items WHERE run_id = ?", (run_id,)).rowcount
            self._db.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
        return int(deleted)

    def _run_from_row(self, row: sqlite3.Row) -> RunRecord:
        try:
            values = {c: from_sql(c, row[c]) for c in RUN_COLUMNS}
            values["config"] = json.loads(row["config"])
            return RunRecord.model_validate(values)
        except ValueError:  # bytes overwritten inside a page SQLite still reads
            damaged = ValueError(f"the stored run {row['run_id']!r} is unreadable")
            raise self._error(damaged) from None

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
        columns = ", ".join(ITEM_COLUMNS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in ITEM_COLUMNS)
        try:
            cursor = self._db.execute(
                f"INSERT INTO items ({columns}) VALUES ({', '.join('?' * len(ITEM_COLUMNS))}) "
                f"ON CONFLICT (run_id, {', '.join(KEY_COLUMNS)}) "
                f"DO UPDATE SET {updates} WHERE items.error IS NOT NULL",
                [to_sql(c, values[c]) for c in ITEM_COLUMNS],
            )
        except self._INTEGRITY as exc:
            if "foreign key" in str(exc).lower():
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
                f"SELECT {', '.join(KEY_COLUMNS)} FROM {self._ITEMS_BY_KEY} "
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
            f"WHERE run_id = ? AND {' AND '.join(f'{c} = ?' for c in KEY_COLUMNS)}"
        )
        with self._guard(), self._transaction():
            for item in items:
                verdict = [to_sql(c, getattr(item, c)) for c in VERDICT_FIELDS]
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
            raise self._error(damaged)
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

    def _where(self, run_id: str, filters: Mapping[str, Any]) -> tuple[str, list[Any]]:
        clauses, params = ["run_id = ?"], [run_id]
        for name, value in filters.items():
            if name not in ITEM_COLUMNS or name == "run_id":
                raise ConfigError(
                    f"cannot filter items by {name!r}; filter by one of: "
                    + ", ".join(c for c in ITEM_COLUMNS if c != "run_id")
                )
            if value is None:
                clauses.append(f"{name} IS NULL")
            elif isinstance(value, list | tuple | set | frozenset):
                values = list(value)
                clauses.append(f"{name} IN ({', '.join('?' * len(values))})" if values else "1 = 0")
                params.extend(to_sql(name, v) for v in values)
            else:
                clauses.append(f"{name} = ?")
                params.append(to_sql(name, value))
        return " AND ".join(clauses), params

    def _item_from_row(self, row: sqlite3.Row) -> ItemRecord:
        # Columns the row lacks (salvaged from a store of an older schema) take the
        # record's defaults.
        present = set(row.keys())
        try:
            return ItemRecord.model_validate(
                {c: from_sql(c, row[c]) for c in ITEM_COLUMNS if c in present}
            )
        except ValueError:  # bytes overwritten inside a page SQLite still reads
            damaged = ValueError(f"the stored item in row {row['id']} is unreadable")
            raise self._error(damaged) from None

    def _transaction(self) -> AbstractContextManager[None]:
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

        See :func:`answerx.experiments.store.export.export_items` for the formats.
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
