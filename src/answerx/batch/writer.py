"""A file run's Parquet or CSV output, encoded and written by a process of its own.

Encoding Parquet (or CSV) is per-row work: done in the calling process, it put
every row through the one process a run cannot multiply, after the workers had
done theirs. So where the caller may fork (it runs one thread) and nothing is
written yet, a :class:`WriterProcess` takes over the output (forked, it holds the
same open file) and the caller sends it, in input order, each batch's spooled
Arrow table (:mod:`answerx.batch._jobs`), each checkpoint and the end; it waits
only at the end, so that the file is whole (or, for a stopped run, valid up to
its last checkpoint) when the run returns. At most ``ahead`` batches wait, so
memory stays bounded. What fails there (a full disk) is raised here, at the next
batch or at the end, as it would have been here.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import signal
from typing import Any

import pyarrow as pa

from answerx.batch._jobs import SPOOL_MIN, spool, unspool
from answerx.batch.feed import pickled_exception, unpickled_exception
from answerx.batch.workers import quiet_fork

__all__ = ["WriterProcess"]


class WriterProcess:
    """``output`` (an :class:`~answerx.batch.outputs.Output` that has written nothing)
    written from now on by a forked process; ``close_output`` ends it there."""

    def __init__(self, output: Any, close_output: Any, ahead: int, spooling: str) -> None:
        self.spooling = spooling
        context = multiprocessing.get_context("fork")
        their_requests, self.requests = context.Pipe(duplex=False)  # (read end, write end)
        self.replies, their_replies = context.Pipe(duplex=False)
        self.room = context.Semaphore(max(1, ahead))
        self.process = context.Process(
            target=_serve,
            args=(output, close_output, their_requests, their_replies, self.room),
            daemon=True,
        )
        with quiet_fork():
            self.process.start()
        their_requests.close()  # the child's ends: its exit is then EOF here
        their_replies.close()
        self.closed = False

    def _send(self, message: tuple[str, Any]) -> None:
        self._raise_if_failed(wait=False)
        try:
            self.requests.send(message)
        except (BrokenPipeError, OSError):
            self._raise_if_failed(wait=True)
            raise

    def write(self, payload: Any) -> None:
        """One batch's output (a table, or its spool file)."""
        if isinstance(payload, pa.Table) and payload.nbytes >= SPOOL_MIN:
            payload = spool(payload, self.spooling)  # merged here: not pickled through a pipe
        while not self.room.acquire(timeout=0.5):
            self._raise_if_failed(wait=False)
        self._send(("write", payload))

    def sync(self) -> None:
        """Wait until every batch sent is written."""
        self._send(("sync", None))
        self._wait_for("synced")

    def checkpoint(self, summary: Any) -> None:
        """Record how far the run is, once the batches before are written."""
        self._send(("checkpoint", summary))

    def finish(self) -> None:
        """End the file and wait until it is (the progress record may then go)."""
        self._send(("finish", None))
        self._wait_for("finished")

    def close(self) -> None:
        """Close the output there and wait for it; raises what failed there."""
        if self.closed:
            return
        self.closed = True
        try:
            self.requests.send(("close", None))
            self._wait_for("closed")
        except (BrokenPipeError, OSError):
            self._raise_if_failed(wait=True)
        finally:
            self.requests.close()
            self.process.join(timeout=60)
            if self.process.is_alive():
                self.process.kill()
                self.process.join()

    def _wait_for(self, word: str) -> None:
        try:
            kind, value = self.replies.recv()
        except EOFError:
            raise RuntimeError("the output's writer process ended unexpectedly") from None
        if kind == "error":
            self.closed = True
            raise unpickled_exception(value)
        if kind != word:
            raise RuntimeError(f"the output's writer process said {kind!r}, not {word!r}")

    def _raise_if_failed(self, *, wait: bool) -> None:
        if wait or self.replies.poll():
            try:
                kind, value = self.replies.recv()
            except EOFError:
                raise RuntimeError("the output's writer process ended unexpectedly") from None
            if kind == "error":
                self.closed = True
                raise unpickled_exception(value)


def _serve(
    output: Any, close_output: Any, requests: Any, replies: Any, room: Any
) -> None:  # pragma: no cover - runs in the forked writer
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller decides what stops
    gc.freeze()  # the caller's objects: never collected here, so never copied
    try:
        while True:
            kind, value = requests.recv()
            if kind == "write":
                output.write(unspool(value))
                room.release()
            elif kind == "checkpoint":
                output.checkpoint(value)
            elif kind == "finish":
                output.finish()
                replies.send(("finished", None))
            elif kind == "sync":
                replies.send(("synced", None))
            else:  # close
                break
        close_output()
        replies.send(("closed", None))
    except EOFError:  # the caller is gone: leave the file as it is
        return
    except BaseException as exc:  # raised in the caller, as there
        with contextlib.suppress(BaseException):  # the first failure is the one to report
            close_output()
        replies.send(("error", pickled_exception(exc)))
