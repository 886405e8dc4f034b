"""The response cache of experiment runs: an identical call in a rerun costs nothing.

A call is identified by (provider, model, base URL, kind, messages, response
model schema, parameters, repetition). Repetition is part of the key so that
``repetitions: 3`` at temperature > 0 makes three real samples, not one sample
served three times.

The cache is its own SQLite file (``cache.db`` beside the results database):
results and cache have different lifetimes (deleting a run keeps the cache;
``--no-cache`` or deleting the file resets it).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

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


class ResponseCache:
    """A key → :class:`CacheEntry` table in SQLite, safe to share between asyncio tasks."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection used from the runner's thread (and the service's threadpool):
        # a lock keeps sqlite3's connection use serial.
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, payload TEXT NOT NULL,"
            " info TEXT NOT NULL, created_at TEXT DEFAULT CURRENT_TIMESTAMP)"
        )
        self._lock = threading.Lock()

    def get(self, key: str) -> CacheEntry | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT payload, info FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        return CacheEntry(payload=row[0], info=CallInfo.model_validate_json(row[1]))

    def put(self, key: str, payload: str, info: CallInfo) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, payload, info) VALUES (?, ?, ?)",
                (key, payload, info.model_dump_json()),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
