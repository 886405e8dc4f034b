"""A list of items, as the viewer shows it, downloaded as CSV, JSONL or Parquet, streamed.

The export's writer (:func:`~answerx.experiments.store.export.write_items`, the one ``answerx
runs export`` uses) runs in a thread and writes into a pipe of a few chunks; the
response sends each chunk as it comes. So the first bytes leave at once, memory stays
flat whatever the run's size (the writer waits while the pipe is full), and a reader who
goes away stops the writer at its next chunk.

The thread opens the store itself: the page's own connection is closed once the
response starts, before the file is written.
"""

from __future__ import annotations

import io
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

from answerx.experiments.store.browse import ItemQuery
from answerx.experiments.store.export import write_items
from answerx.viewer.reading import read_store

__all__ = ["EXPORTS", "stream_items"]

#: Each format a list is exported as, with its media type.
EXPORTS: dict[str, str] = {
    "csv": "text/csv; charset=utf-8",
    "jsonl": "application/x-ndjson",
    "parquet": "application/vnd.apache.parquet",
}
_CHUNKS = 8  # chunks waiting in the pipe at most (each one write of the writer)
_DONE = object()


class _Gone(Exception):
    """The reader went away: the writer stops."""


class _Pipe(io.RawIOBase):
    """A write-only stream whose writes go to a bounded queue (pyarrow asks its place)."""

    def __init__(self, chunks: queue.Queue[object], stop: threading.Event) -> None:
        super().__init__()
        self.chunks, self.stop, self.written = chunks, stop, 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        chunk = bytes(data)
        while True:
            if self.stop.is_set():
                raise _Gone
            try:
                self.chunks.put(chunk, timeout=0.5)
            except queue.Full:
                continue
            self.written += len(chunk)
            return len(chunk)

    def tell(self) -> int:
        return self.written


def stream_items(db: Path | str, run_id: str, query: ItemQuery, kind: str) -> Iterator[bytes]:
    """The run's items that ``query`` picks, in its order, as ``kind`` (of
    :data:`EXPORTS`), chunk by chunk. A store fault after the first bytes ends the
    download early (the file is then incomplete, as any cut download)."""
    chunks: queue.Queue[object] = queue.Queue(maxsize=_CHUNKS)
    stop = threading.Event()

    def write() -> None:
        try:
            with read_store(db) as store:
                pipe = cast(IO[bytes], _Pipe(chunks, stop))  # a binary stream, as a file
                write_items(store.items_matching(run_id, query), pipe, kind)
        except _Gone:
            return
        except Exception as exc:  # handed to the response, which raises it
            _hand_over(chunks, stop, exc)
            return
        _hand_over(chunks, stop, _DONE)

    writer = threading.Thread(target=write, name="answerx-export", daemon=True)
    writer.start()
    try:
        while True:
            chunk = chunks.get()
            if chunk is _DONE:
                return
            if isinstance(chunk, Exception):
                raise chunk
            assert isinstance(chunk, bytes)
            yield chunk
    finally:
        stop.set()


def _hand_over(chunks: queue.Queue[object], stop: threading.Event, value: object) -> None:
    while not stop.is_set():
        try:
            chunks.put(value, timeout=0.5)
            return
        except queue.Full:
            continue
