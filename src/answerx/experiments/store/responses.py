"""The response cache of a store on a server: every worker of a run shares one.

A run's cache is where its store is (:func:`cache_for`): beside a SQLite file
(``cache.db``, its own file, so deleting it resets the cache and keeps the runs), and
in the server's ``responses`` table for a ``postgresql://`` store, so that workers on
several machines working through one run (``answerx run --join``, ``answerx runs
work``) reuse each other's responses: a call one worker paid for is a cache hit for
the next, as it would be for one worker alone. The key and the redaction of what is
stored are :class:`~answerx.experiments.cache.ResponseCache`'s, unchanged; only where
the rows live differs.
"""

from __future__ import annotations

from pathlib import Path

from answerx.errors import StoreError
from answerx.experiments.cache import ResponseCache
from answerx.experiments.store.postgres import server_connection
from answerx.experiments.store.url import display_url, is_store_url

__all__ = ["ServerResponseCache", "cache_for"]


class ServerResponseCache(ResponseCache):
    """A :class:`ResponseCache` whose rows live in the ``responses`` table of the
    PostgreSQL store at ``url`` (made by the store's migrations: open the store for
    writing first). Each call takes a connection of the process's pool to the server,
    so the cache never waits on the store's own connection."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.path = Path(display_url(url))  # what messages name: no password
        self._display = display_url(url)

    def _error(self, exc: Exception) -> StoreError:
        return StoreError(
            f"cannot use the response cache in {self._display!r} ({type(exc).__name__}): "
            "it holds only responses to reuse; run with --no-cache to do without it",
            path=self._display,
        )

    def _read(self, key: str) -> tuple[str, str] | None:
        with server_connection(self.url, self._error) as db:
            row = db.execute("SELECT payload, info FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else (row[0], row[1])

    def _write(self, key: str, payload: str, info: str) -> None:
        with server_connection(self.url, self._error) as db:
            db.execute(
                "INSERT INTO responses (key, payload, info) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET payload = excluded.payload, info = excluded.info",
                (key, payload, info),
            )

    def __len__(self) -> int:
        with server_connection(self.url, self._error) as db:
            return int(db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Nothing to close: the connections belong to the process's pool."""


def cache_for(db: Path | str) -> ResponseCache:
    """The response cache of runs stored in ``db``: ``cache.db`` beside a file store (every
    process using that file shares it), the server's ``responses`` table for a URL."""
    if is_store_url(db):
        return ServerResponseCache(str(db))
    return ResponseCache(Path(db).with_name("cache.db"))
