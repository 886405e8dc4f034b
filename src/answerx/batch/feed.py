"""A file run's CSV or Parquet input, read in a process of its own.

Decoding Parquet pages or parsing CSV into Arrow is per-row work: done in the
calling process, it put every row through the one process a run cannot multiply
(12 to 14 % of a two-worker Parquet run's CPU there, which bounds sixteen workers
well below twelve times one). So where the caller may fork (it runs one thread),
a :class:`Feed` process takes over the reader where it stands (forked, it holds
the same open file and the same position) and leaves each batch in the run's
spool directory as an Arrow IPC file (:func:`answerx.batch._jobs.spool`); the
caller receives only the pieces' small descriptions and hands them to the
workers, which map the batches without a copy. JSONL needs no feed: its blocks
of raw lines are cut without parsing, and the workers parse them.

At most ``ahead`` pieces wait in the pipe, so memory stays bounded whatever the
file's length. What stops the reader (a damaged page, a resume past the end) is
raised in the caller, as it would have been there.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import pickle
import signal
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pyarrow as pa

from answerx.batch._jobs import spool
from answerx.batch.inputs import Piece
from answerx.batch.workers import quiet_fork

__all__ = ["Feed"]

_END = "end"
_ERROR = "error"


class Feed:
    """The pieces of ``pieces`` (an iterator of this process's reader), read from now on
    by a forked process and handed over with their batches spooled in ``directory``."""

    def __init__(self, pieces: Iterator[Piece], directory: str, ahead: int) -> None:
        context = multiprocessing.get_context("fork")
        self.receive, send = context.Pipe(duplex=False)
        self.room = context.Semaphore(max(1, ahead))
        self.process = context.Process(
            target=_read, args=(pieces, directory, send, self.room), daemon=True
        )
        with quiet_fork():
            self.process.start()
        send.close()  # the child's end: its exit is then this end's EOF
        self.ended = False

    def __iter__(self) -> Iterator[Piece]:
        while not self.ended:
            try:
                kind, value = self.receive.recv()
            except EOFError:  # the reader died without a word (killed)
                raise RuntimeError("the input's reader process ended unexpectedly") from None
            if kind == _END:
                self.ended = True
                return
            if kind == _ERROR:
                self.ended = True
                raise _unpickled(value)
            self.room.release()
            yield value

    def close(self) -> None:
        """Stop the reader (when the run stops before the input's end) and wait for it."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.receive.close()


def _read(
    pieces: Iterator[Piece], directory: str, send: Any, room: Any
) -> None:  # pragma: no cover - runs in the forked reader
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller decides what stops
    gc.freeze()  # the caller's objects: never collected here, so never copied
    try:
        for piece in pieces:
            room.acquire()
            job = piece.job
            if job is not None and isinstance(job.batch, pa.RecordBatch | pa.Table):
                piece = replace(piece, job=replace(job, batch=spool(job.batch, directory)))
            send.send(("piece", piece))
        send.send((_END, None))
    except BrokenPipeError:
        return  # the caller stopped reading: nothing to tell
    except BaseException as exc:  # raised in the caller, as there
        with contextlib.suppress(BrokenPipeError):
            send.send((_ERROR, _pickled(exc)))
    finally:
        send.close()


def _pickled(exc: BaseException) -> bytes:
    """``exc`` as its type, arguments and attributes (an :class:`~answerx.errors.UnreadableFile`
    keeps its ``path``), or, for one that cannot travel, a RuntimeError saying it."""
    try:
        data = pickle.dumps((type(exc), exc.args, vars(exc)))
        _unpickled(data)
    except Exception:
        data = pickle.dumps((RuntimeError, (f"{type(exc).__name__}: {exc}",), {}))
    return data


def _unpickled(data: bytes) -> BaseException:
    kind, args, attributes = pickle.loads(data)
    exc: BaseException = kind.__new__(kind)
    exc.args = args
    vars(exc).update(attributes)
    return exc
