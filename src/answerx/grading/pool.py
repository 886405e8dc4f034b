"""Worker processes that run grading with a per-item time limit, on any thread.

math-verify bounds its work with ``signal.alarm``, which only works on a
process's main thread: from a TRL reward worker, a Ray actor, a web server's
pool or ``asyncio.to_thread`` it cannot be used, and without it one item such
as ``9^{9^{9}}`` (eleven characters; 370 million digits) keeps sympy busy for
minutes. So every math-verify call of answerx runs in a worker process of this
pool, with math-verify's own timers off (``parsing_timeout=None``,
``timeout_seconds=None``): the caller waits for the reply at most the item's
time limit, and a worker that overruns (or dies) is killed and replaced. One
mechanism on every thread, no signals in the caller.

Hand-written rather than ``concurrent.futures.ProcessPoolExecutor`` or
``multiprocessing.Pool``: neither can kill the one process that is stuck on an
item and carry on with the others. The protocol is one JSON request per line on
the worker's stdin and one JSON reply per line on its stdout.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["WorkerPool", "shared_pool"]

log = logging.getLogger(__name__)

REPLY = "answerx-grading:"
_STARTUP_S = 120.0  # importing sympy and math-verify in a fresh process, on a slow machine
_CHILD = "from answerx.grading._worker import serve; serve()"
#: Requests sent to a worker at once: small enough for the pipe's buffer, so that a
#: write never blocks behind a worker stuck on an earlier item.
CHUNK_BYTES = 32_768


class _Worker:
    """One worker process and the thread that reads its replies."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.replies: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, self.replies), daemon=True).start()

    def send(self, lines: Sequence[str]) -> bool:
        if self.proc.stdin is None:
            return False
        try:
            self.proc.stdin.write("".join(line + "\n" for line in lines))
            self.proc.stdin.flush()
        except (OSError, ValueError):  # the worker died (broken pipe)
            return False
        return True

    def read(self, timeout: float) -> Any | None:
        """The next reply, decoded; None when none came within ``timeout`` seconds."""
        try:
            line = self.replies.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None
        if line is None:  # the worker's stdout closed: it died
            return None
        return json.loads(line)

    def kill(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.proc.wait()


def _pump(stream: IO[str], replies: queue.Queue[str | None]) -> None:
    # A reader thread, so the caller can wait on a queue with a timeout (portable, unlike
    # select on pipes). Lines without the prefix (a library printing) are ignored.
    with stream:
        for line in stream:
            if line.startswith(REPLY):
                replies.put(line[len(REPLY) :])
    replies.put(None)


class WorkerPool:
    """Up to ``capacity`` worker processes, started when first needed, shared by threads.

    :meth:`run` sends requests to one idle worker and collects one reply per request,
    each within ``limit_s`` of the previous one; a worker that overruns or dies is
    killed, and the requests it did not answer come back as None. ``argv`` exists for
    tests (a worker that never answers).
    """

    def __init__(
        self,
        capacity: int = 1,
        *,
        argv: Sequence[str] | None = None,
        startup_s: float = _STARTUP_S,
    ) -> None:
        self._argv = list(argv) if argv else [sys.executable, "-c", _CHILD]
        self._startup_s = startup_s
        self._cond = threading.Condition()
        self._capacity = max(1, capacity)
        self._busy = 0
        self._idle: list[_Worker] = []
        self._failed = False
        self.restarts = 0  # workers killed for overrunning or dying (for tests and metrics)

    @property
    def capacity(self) -> int:
        """How many workers may run at once."""
        return self._capacity

    def grow(self, capacity: int) -> None:
        """Allow at least ``capacity`` workers at once."""
        with self._cond:
            if capacity > self._capacity:
                self._capacity = capacity
                self._cond.notify_all()

    @property
    def available(self) -> bool:
        """False once a worker could not be started here (callers then work in-process)."""
        return not self._failed

    def run(self, requests: Sequence[Any], limit_s: float) -> list[Any | None]:
        """One reply per request, in order; None for a request whose worker overran
        ``limit_s`` (or died) and for every request after it in ``requests``.

        Raises ``RuntimeError`` when no worker process can be started at all.
        """
        with self._cond:
            while self._busy >= self._capacity:
                self._cond.wait()
            self._busy += 1
            worker = self._idle.pop() if self._idle else None
        replies: list[Any | None] = []
        try:
            if worker is None or worker.proc.poll() is not None:
                worker = self._start()
            if worker is None:
                raise RuntimeError("no grading worker process can be started")
            if worker.send([json.dumps(r, ensure_ascii=False) for r in requests]):
                for _ in requests:
                    reply = worker.read(limit_s)
                    if reply is None:
                        break
                    replies.append(reply)
            if len(replies) < len(requests):  # overran or died: kill it, warm a replacement
                worker.kill()
                worker = None
                self.restarts += 1
                threading.Thread(target=self._warm_one, daemon=True).start()
        finally:
            with self._cond:
                self._busy -= 1
                if worker is not None:
                    self._idle.append(worker)
                self._cond.notify()
        return replies + [None] * (len(requests) - len(replies))

    def _warm_one(self) -> None:
        # Started at once, so the next item does not wait for sympy to import.
        worker = self._start()
        if worker is not None:
            with self._cond:
                self._idle.append(worker)

    def _start(self) -> _Worker | None:
        if self._failed:
            return None
        src = str(Path(__file__).resolve().parents[2])  # answerx importable even when not installed
        path = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
        try:
            proc = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                env={**os.environ, "PYTHONPATH": path},
            )
        except OSError:
            log.warning("cannot start a grading worker process; grading in this process")
            self._failed = True
            return None
        worker = _Worker(proc)
        started = time.monotonic()
        if worker.read(self._startup_s) != "ready":
            log.warning(
                "the grading worker process did not start within %.0f s; grading in this process",
                time.monotonic() - started,
            )
            worker.kill()
            self._failed = True
            return None
        return worker

    def close(self) -> None:
        """End the idle workers (new ones start on the next call)."""
        with self._cond:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()

    def forget(self) -> None:
        """After ``fork``: the workers belong to the parent; start new ones when needed."""
        self._cond = threading.Condition()
        self._busy = 0
        self._idle = []


_POOL = WorkerPool(capacity=min(2, os.cpu_count() or 1))
atexit.register(_POOL.close)
if hasattr(os, "register_at_fork"):  # a forked process must not share the parent's pipes
    os.register_at_fork(after_in_child=_POOL.forget)


def shared_pool() -> WorkerPool:
    """The process-wide pool that :func:`answerx.verify` and ``verify_batch`` use."""
    return _POOL
