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
import gc
import json
import logging
import multiprocessing
import os
import queue
import select
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

__all__ = [
    "REPLIES_THREAD",
    "GradingPending",
    "SharedTemplate",
    "WorkerPool",
    "defer_while_warming",
    "fork_workers",
    "join_template",
    "serve_copy",
    "shared_pool",
    "shares_templates",
]

log = logging.getLogger(__name__)

REPLY = "answerx-grading:"
#: The name of the thread that reads a worker's replies. It only waits on its pipe and
#: puts lines on its queue, and a forked process drops the pool it read for
#: (:meth:`WorkerPool.forget`): a process may fork while such threads run.
REPLIES_THREAD = "answerx-grading-replies"
_STARTUP_S = 120.0  # importing sympy and math-verify in a fresh process, on a slow machine
_CHILD = "from answerx.grading._worker import serve; serve()"
_CHILD_WARM = "from answerx.grading._worker import serve; serve(warm=False)"
_TEMPLATE = "import sys; from answerx.grading._worker import template; template(int(sys.argv[1]))"
#: Where workers can be forked from a template: a pidfd names each one safely.
_TEMPLATES = hasattr(os, "pidfd_open") and hasattr(socket, "send_fds")
#: Requests sent to a worker at once: small enough for the pipe's buffer, so that a
#: write never blocks behind a worker stuck on an earlier item.
CHUNK_BYTES = 32_768


class _Forked:
    """A grading worker forked from this process: the part of ``subprocess.Popen`` that
    :class:`_Worker` uses (``stdin``, ``stdout``, ``poll``, ``kill``, ``wait``)."""

    def __init__(self) -> None:
        requests_r, requests_w = os.pipe()
        replies_r, replies_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; it never returns
            serve_copy(requests_r, replies_w, warm=_RUN_WARM_UP)
        os.close(requests_r)
        os.close(replies_w)
        self.pid = pid
        self.returncode: int | None = None
        self.stdin: IO[str] | None = open(requests_w, "w", encoding="utf-8")  # noqa: SIM115
        self.stdout: IO[str] | None = open(replies_r, encoding="utf-8")  # noqa: SIM115

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> int:
        if self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


def serve_copy(requests: int, replies: int, *, warm: bool) -> None:  # pragma: no cover
    """In a forked child: the worker's main loop on the two pipes (``warm``: run the
    warm-up first), then exit at once (the parent's ``atexit`` handlers and open files
    are not the child's to run or flush)."""
    code = 1
    try:
        # The caller's objects are never freed here: kept out of the collector's sight,
        # so that collecting does not write to (and so copy) every page they are on.
        gc.freeze()
        os.setsid()  # as a started worker: Ctrl-C in a terminal is the caller's to handle
        os.dup2(requests, 0)
        os.dup2(replies, 1)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        # Nothing else of the caller's stays open here: its pool pipes, its spool files.
        os.closerange(3, _max_fd())
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        # The program a started worker runs (``-c``), run by the copy.
        exec(_CHILD if warm else _CHILD_WARM, {})
        code = 0
    finally:
        os._exit(code)


class _Copy:
    """A worker forked by the pool's template (:class:`_Template`), not by this process:
    the part of ``subprocess.Popen`` that :class:`_Worker` uses. It is known by a pidfd,
    opened while it waits for its first request, so a signal can only ever reach it,
    never a process that took its pid after it ended."""

    def __init__(self, pid: int, requests: int, replies: int) -> None:
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        self.returncode: int | None = None
        self.stdin: IO[str] | None = open(requests, "w", encoding="utf-8")  # noqa: SIM115
        self.stdout: IO[str] | None = open(replies, encoding="utf-8")  # noqa: SIM115

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.pidfd], [], [], 0)[0]:
            self.returncode = -signal.SIGKILL  # ended (its parent, the template, reaps it)
            os.close(self.pidfd)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def wait(self) -> int:
        if self.returncode is None:
            select.select([self.pidfd], [], [], 10.0)
        return self.poll() or 0


class _Template:
    """One warm worker process that forks the others (``answerx.grading._worker.template``).

    Each worker of a fresh interpreter imports sympy and math-verify and warms them (a
    second and a half of CPU): eight workers paid that eight times. Forked from one
    warm template, they share its pages and start in milliseconds; each is still a
    process of its own, killed alone when it overruns an item's limit.
    """

    def __init__(self, env: dict[str, str], startup_s: float) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _TEMPLATE, str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # as a worker: Ctrl-C is the caller's to handle
            )
        finally:
            theirs.close()
        self.channel = ours
        self.lock = threading.Lock()
        ours.settimeout(startup_s)
        if self._line() != b"ready":
            self.close()
            raise OSError("the grading template process did not start")
        ours.settimeout(30.0)

    def _line(self) -> bytes:
        data = b""
        while not data.endswith(b"\n"):
            more = self.channel.recv(64)
            if not more:
                raise OSError("the grading template process ended")
            data += more
        return data.strip()

    def copy(self) -> _Copy:
        """A new worker, forked by the template."""
        requests_r, requests_w = os.pipe()
        replies_r, replies_w = os.pipe()
        try:
            with self.lock:
                socket.send_fds(self.channel, [b"F"], [requests_r, replies_w])
                pid = int(self._line())
            return _Copy(pid, requests_w, replies_r)
        except BaseException:
            os.close(requests_w)  # a worker made all the same reads its end and exits
            os.close(replies_r)
            raise
        finally:
            os.close(requests_r)
            os.close(replies_w)

    def close(self) -> None:
        """End the template (its workers end when their pipes close)."""
        self.channel.close()  # it reads the end of its channel and exits
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class GradingPending(Exception):
    """Raised instead of a math-verify comparison while the run's grading template is still
    warming (:func:`defer_while_warming`): the item is graded again once it is ready."""


class _Joined(_Template):
    """A client of a :class:`SharedTemplate` another process started: each :meth:`copy`
    (a new worker) is asked for on this process's own connection to it, and waits,
    the first time, until the template is warm."""

    def __init__(self, address: str) -> None:
        channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        channel.settimeout(_STARTUP_S)  # the template answers once math-verify is warm
        try:
            channel.connect(address)
        except OSError:
            channel.close()
            raise
        self.channel = channel
        self.lock = threading.Lock()

    def close(self) -> None:
        """Drop the connection (the template and its other workers go on)."""
        self.channel.close()


def shares_templates() -> bool:
    """Whether this platform can run a :class:`SharedTemplate` (Linux: fork, pidfds and
    descriptors passed over a Unix socket)."""
    return _TEMPLATES and hasattr(os, "fork")


class SharedTemplate:
    """A grading template forked from this process for other processes to draw workers
    from: it warms math-verify (``warm``) on its own while they start at once, then forks
    a worker for each request on a Unix socket at ``directory``/grading.sock
    (:func:`join_template`). ``ready`` is set once it is warm.

    A file run's batch workers use it (:mod:`answerx.batch.workers`): math-verify is loaded
    once, off the path every row waits on, and each batch worker's grading worker is a
    copy of one warm process, as it was of the run's parent before.
    """

    def __init__(self, directory: str, warm: Callable[[], None]) -> None:
        """Raises OSError where the socket cannot be made (a path too long for one)."""
        self.address = os.path.join(directory, "grading.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.address)  # OSError for a path too long for a socket's name
            listener.listen(256)  # every batch worker may connect before it is warm
        except OSError:
            listener.close()
            raise
        self.ready = multiprocessing.get_context("fork").Event()
        lifeline, self._lifeline = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the template; it never returns
            os.close(self._lifeline)  # the caller's end: only the caller's close ends it
            _serve_template(listener, lifeline, self.ready, warm)
        listener.close()
        os.close(lifeline)
        self.pid = pid
        self.closed = False
        self.ended = False

    def settled(self) -> bool:
        """Whether the template is warm, or ended without ever being so (killed): either
        way, nothing is to be waited for (its callers then grade in their own process)."""
        if self.ready.is_set() or self.ended:
            return True
        with contextlib.suppress(ChildProcessError):
            self.ended = os.waitpid(self.pid, os.WNOHANG)[0] != 0
        return self.ended

    def close(self) -> None:
        """End the template (the workers it forked end when their callers close their pipes)."""
        if self.closed:
            return
        self.closed = True
        if not self.ready.is_set():  # still warming: nobody needs it any more
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        os.close(self._lifeline)  # its end of the lifeline reads EOF: it exits
        if not self.ended:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)


def _serve_template(
    listener: socket.socket, lifeline: int, ready: Any, warm: Callable[[], None]
) -> None:  # pragma: no cover - runs in the forked template
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller decides what stops
        # Nothing else of the caller's stays open here (its input, output, pipes to its
        # other processes): a process waiting for one of them to close must not wait on it.
        kept = sorted({listener.fileno(), lifeline})
        os.closerange(3, kept[0])
        os.closerange(kept[0] + 1, kept[1])
        os.closerange(kept[1] + 1, _max_fd())
        gc.freeze()  # the caller's objects: never collected here, so never copied
        # A warm-up only: a math-verify that cannot run is for each worker to report,
        # per item (it answers "unavailable"); it must not stop the template.
        with contextlib.suppress(Exception):
            warm()
        gc.freeze()  # what the workers share is never collected (and so never copied)
        signal.signal(signal.SIGCHLD, lambda *_: _reap())
        ready.set()
        with selectors.DefaultSelector() as selector:
            selector.register(listener, selectors.EVENT_READ)
            selector.register(lifeline, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select():
                    if key.fileobj == lifeline:  # the run is over
                        code = 0
                        return
                    if key.fileobj is listener:
                        selector.register(listener.accept()[0], selectors.EVENT_READ)
                    elif not _fork_copy(key.fileobj, listener):  # type: ignore[arg-type]
                        selector.unregister(key.fileobj)
                        key.fileobj.close()  # type: ignore[union-attr]
    finally:
        os._exit(code)  # its workers run on, each until its caller closes its pipes


def _fork_copy(
    channel: socket.socket, listener: socket.socket
) -> bool:  # pragma: no cover - runs in the template
    """Fork one worker for the request waiting on ``channel``; False when the caller
    closed its connection."""
    try:
        _, fds, _, _ = socket.recv_fds(channel, 16, 2)
    except OSError:
        fds = []
    if len(fds) != 2:
        for fd in fds:
            os.close(fd)
        return False
    pid = os.fork()
    if pid == 0:
        serve_copy(fds[0], fds[1], warm=False)
    for fd in fds:
        os.close(fd)
    channel.sendall(b"%d\n" % pid)
    return True


def _reap() -> None:  # pragma: no cover - the template's SIGCHLD handler
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _max_fd() -> int:
    try:
        return int(os.sysconf("SC_OPEN_MAX"))
    except (ValueError, OSError):
        return 1024


class _Worker:
    """One worker process and the thread that reads its replies."""

    def __init__(self, proc: subprocess.Popen[str] | _Forked | _Copy) -> None:
        self.proc = proc
        self.replies: queue.Queue[str | None] = queue.Queue()
        threading.Thread(
            target=_pump, args=(proc.stdout, self.replies), name=REPLIES_THREAD, daemon=True
        ).start()

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
        self._template: _Template | None = None
        self._template_lock = threading.Lock()
        self._joined: _Joined | None = None
        self._ready: Any = None  # the joined template's event: set once it is warm
        self._defer = False
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

        Raises ``RuntimeError`` when no worker process can be started at all, and
        :class:`GradingPending` while deferring and the joined template is not yet warm.
        """
        if self._defer and self._ready is not None and not self._ready.is_set():
            raise GradingPending("the grading template is still warming")
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

    def warm(self, count: int) -> int:
        """Start workers until ``count`` are idle (at most the capacity); returns how many are."""
        self.grow(count)
        while True:
            with self._cond:
                if len(self._idle) >= count or self._failed:
                    return len(self._idle)
            self._warm_one()

    def _warm_one(self) -> None:
        # Started at once, so the next item does not wait for sympy to import.
        worker = self._start()
        if worker is not None:
            with self._cond:
                self._idle.append(worker)

    def _start(self) -> _Worker | None:
        if self._failed:
            return None
        if self._joined is not None:
            return self._start_joined(self._joined)
        if _FORK and self._argv[1:] == ["-c", _CHILD]:
            return self._start_forked()
        src = str(Path(__file__).resolve().parents[2])  # answerx importable even when not installed
        path = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path}
        if _TEMPLATES and self._argv == [sys.executable, "-c", _CHILD]:
            copied = self._copy(env)
            if copied is not None:
                return copied
        try:
            proc = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                env=env,
                # A session of its own: a terminal's Ctrl-C reaches the caller, which ends
                # its workers itself, not every worker mid-item. (On Linux this is also its
                # own scheduler autogroup.) A worker whose caller dies reads EOF and exits.
                start_new_session=True,
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

    def _copy(self, env: dict[str, str]) -> _Worker | None:
        """A worker forked by this pool's template (started on first use); None when
        the template cannot start or serve (then workers start as before)."""
        try:
            with self._template_lock:
                if self._template is None or self._template.proc.poll() is not None:
                    self._template = _Template(env, self._startup_s)
                template = self._template
            worker = _Worker(template.copy())
        except (OSError, ValueError):
            log.debug("no grading template process; starting the worker afresh", exc_info=True)
            return None
        if worker.read(self._startup_s) != "ready":
            worker.kill()
            return None
        return worker

    def _start_joined(self, joined: _Joined) -> _Worker | None:
        try:
            worker = _Worker(joined.copy())
        except (OSError, ValueError):
            log.warning("the run's grading template did not answer; grading in this process")
            self._failed = True
            return None
        if worker.read(self._startup_s) != "ready":
            log.warning("a grading worker of the run's template did not start")
            worker.kill()
            self._failed = True
            return None
        return worker

    def join(self, address: str, ready: Any) -> None:
        """Draw this pool's workers from the :class:`SharedTemplate` at ``address`` (its
        ``ready`` event says when it is warm)."""
        self._joined = _Joined(address)
        self._ready = ready
        # A new source of workers: whether the caller could start any is no longer the
        # question (a forked batch worker inherits its caller's answer).
        self._failed = False

    def defer(self, on: bool) -> None:
        """While ``on``, :meth:`run` raises :class:`GradingPending` until the joined
        template is warm, instead of waiting for it."""
        self._defer = on

    @property
    def deferring(self) -> bool:
        """Whether :meth:`run` defers while the joined template warms (:meth:`defer`)."""
        return self._defer

    @property
    def joined(self) -> bool:
        """Whether this pool's workers are copies of a run's template (:meth:`join`) and
        can be drawn: they have what the template loaded, which this process may not."""
        return self._joined is not None and not self._failed

    @property
    def warming(self) -> bool:
        """Whether a joined template is still warming (its workers would make callers wait)."""
        return self._ready is not None and not self._ready.is_set()

    def _start_forked(self) -> _Worker | None:
        try:
            proc = _Forked()
        except OSError:
            log.warning("cannot fork a grading worker process; grading in this process")
            self._failed = True
            return None
        worker = _Worker(proc)
        if worker.read(self._startup_s) != "ready":
            log.warning("the forked grading worker process did not start; grading in this process")
            worker.kill()
            self._failed = True
            return None
        return worker

    def close(self) -> None:
        """End the idle workers and the template (new ones start on the next call)."""
        with self._cond:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()
        with self._template_lock:
            template, self._template = self._template, None
        if template is not None:
            template.close()

    def forget(self) -> None:
        """After ``fork``: the workers belong to the parent; start new ones when needed."""
        self._cond = threading.Condition()
        self._busy = 0
        self._idle = []
        self._template = None  # the parent's: its channel is not this process's to use
        self._template_lock = threading.Lock()
        self._joined, self._ready, self._defer = None, None, False  # likewise


_FORK = False


_RUN_WARM_UP = True
"""Whether a forked worker runs the warm-up (not when its parent ran it)."""


def fork_workers(*, warmed: bool = False) -> None:
    """Start this process's grading workers by forking it, not as fresh interpreters.

    For a process that runs one thread and has math-verify loaded already: a file
    run's batch worker (:mod:`answerx.batch`), forked itself from a server that
    imported and warmed sympy and math-verify once. Its grading worker is then a
    copy that shares those pages, ready in milliseconds, where a fresh interpreter
    would import them again (a second and a half of CPU per batch worker, which
    made eight workers on two cores slower than one). The per-item time limit and
    the killing of a worker that overruns stay as they are. Never for a process
    that may run other threads (a web server, a progress bar): a fork copies only
    the calling thread, and locks other threads held stay locked in the copy.
    ``warmed``: this process ran the grading worker's warm-up itself (the fork
    server's preload), so a forked worker skips it.
    """
    global _FORK, _RUN_WARM_UP
    _FORK = hasattr(os, "fork")
    _RUN_WARM_UP = not warmed


def join_template(address: str, ready: Any) -> None:
    """Start this process's grading workers as copies of the :class:`SharedTemplate` at
    ``address``, which another process forked and is warming (``ready``: its event).

    For a file run's batch worker (:mod:`answerx.batch`), forked before math-verify was
    loaded: its workers cost it no import and no warm-up of its own, as when they were
    forked from a warm parent (:func:`fork_workers`), and the parent no longer warms
    math-verify before the batch workers can start.
    """
    _POOL.join(address, ready)


@contextlib.contextmanager
def defer_while_warming(on: bool = True) -> Iterator[None]:
    """Within it (``on``), a math-verify comparison raises :class:`GradingPending` while
    this process's joined template (:func:`join_template`) is still warming: the caller
    grades such items later instead of waiting for them."""
    before = _POOL.deferring
    _POOL.defer(on)
    try:
        yield
    finally:
        _POOL.defer(before)


_POOL = WorkerPool(capacity=min(2, os.cpu_count() or 1))
atexit.register(_POOL.close)
if hasattr(os, "register_at_fork"):  # a forked process must not share the parent's pipes
    os.register_at_fork(after_in_child=_POOL.forget)


def shared_pool() -> WorkerPool:
    """The process-wide pool that :func:`answerx.verify` and ``verify_batch`` use."""
    return _POOL
