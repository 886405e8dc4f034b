"""The response cache of experiment runs: an identical call in a rerun costs nothing.

A call is identified by (provider, model, base URL, kind, messages, response
model schema, parameters, repetition). Repetition is part of the key so that
``repetitions: 3`` at temperature > 0 makes three real samples, not one sample
served three times.

The cache is its own SQLite file (``cache.db`` beside the results database):
results and cache have different lifetimes (deleting a run keeps the cache;
``--no-cache`` or deleting the file resets it). A store on a PostgreSQL server keeps
its cache in the server instead, shared by every worker of a run
(:mod:`answerx.experiments.store.responses`, the same keys and redaction).

What is stored passes the key redactor first, as the results store's records do
(:mod:`answerx.redactor`): a provider that echoes a key (or a piece of one) into its
reply leaves ``***`` in the cache file, and a rerun served from the cache sees that.

A cache file SQLite cannot use (damaged, not a database, locked) raises
:class:`~answerx.errors.StoreError` saying to delete it or run with ``--no-cache``:
it holds nothing a run cannot get again.
"""

from __future__ import annotations

import hashlib
import json
import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from answerx.errors import StoreError
from answerx.experiments.sqlitefile import guarded, open_sqlite, store_error
from answerx.redactor import redact_keys, redact_keys_deep
from answerx.structured.callinfo import CallInfo

__all__ = ["CacheEntry", "ResponseCache", "cache_key"]


class CacheEntry(BaseModel):
    """One stored call: the reply (JSON of the response model, or the text) and its CallInfo."""

    payload: str
    info: CallInfo


def cache_key(**parts: Any) -> str:
    """A stable hash of the call's identifying parts (JSON, sorted keys)."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _redacted(payload: str) -> str:
    """``payload`` without a piece of a configured key. A JSON reply is redacted value by
    value, so that it stays valid JSON whatever characters a key (a password) holds."""
    clean = redact_keys(payload)
    if clean == payload:
        return payload  # the usual case: nothing of a key in it
    try:
        document = json.loads(payload)
    except ValueError:
        return clean  # a text reply
    return json.dumps(redact_keys_deep(document), ensure_ascii=False)


class ResponseCache:
    """A key → :class:`CacheEntry` table in SQLite, safe to share between asyncio tasks."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection used from the runner's thread (and the service's threadpool):
        # a lock keeps sqlite3's connection use serial.
        self._lock = threading.Lock()
        # The store's conventions: busy timeout, WAL (retried while locked), errors.
        self._conn = open_sqlite(self.path, error=self._error)
        try:
            with self._guard():
                self._conn.execute(
                    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY,"
                    " payload TEXT NOT NULL, info TEXT NOT NULL,"
                    " created_at TEXT DEFAULT CURRENT_TIMESTAMP)"
                )
        except StoreError:
            self._conn.close()
            raise

    def _error(self, exc: Exception) -> StoreError:
        return store_error(
            self.path,
            exc,
            what="response cache",
            advice="it holds only responses to reuse: delete the file when no run is using "
            "it (or run with --no-cache), and nothing is lost",
        )

    def _guard(self) -> AbstractContextManager[None]:
        return guarded(self._lock, self._error)

    def get(self, key: str) -> CacheEntry | None:
        """The stored call of ``key``, or None."""
        row = self._read(key)
        if row is None:
            return None
        try:
            return CacheEntry(payload=row[0], info=CallInfo.model_validate_json(row[1]))
        except ValueError:  # bytes overwritten inside a page SQLite still reads
            raise self._error(ValueError("a cached response is unreadable")) from None

    def put(self, key: str, payload: str, info: CallInfo) -> None:
        """Store (or replace) the call of ``key``; no run of 8+ characters of a configured
        key is stored, in the reply or in its CallInfo."""
        document = redact_keys_deep(info.model_dump(mode="json"))
        self._write(key, _redacted(payload), json.dumps(document, ensure_ascii=False))

    # Where the rows live: this file; a store on a server keeps them in its own table
    # (answerx.experiments.store.responses), the key and the redaction above unchanged.
    def _read(self, key: str) -> tuple[str, str] | None:
        with self._guard():
            row = self._conn.execute(
                "SELECT payload, info FROM responses WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else (row[0], row[1])

    def _write(self, key: str, payload: str, info: str) -> None:
        with self._guard():
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, payload, info) VALUES (?, ?, ?)",
                (key, payload, info),
            )

    def __len__(self) -> int:
        with self._guard():
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
