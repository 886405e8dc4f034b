"""The processes a file run's batches go to: this one, or a pool of workers.

A small file needs no pool: one batch runs in this process (:data:`INLINE`), and
so does every batch of a one-worker run. Once a second batch exists the run starts
the pool (:class:`PoolStarter`) and from then on this process only hands batches
out and writes results: a run's CPU per row does not grow with its workers, and
the one process that cannot be multiplied does as little as it can. Batches and
results too big for the pool's pipe travel as files of a spool directory in
shared memory (:func:`spool_dir`, see :mod:`answerx.batch._jobs`).

The workers start warm and cost no start-up of their own: where this process runs
one thread, it loads what they need once (:mod:`answerx.batch._warm`; verifying,
sympy and math-verify too) and forks them from itself, so they share those pages
and begin at once. A fork server (a fresh interpreter that imports answerx again,
about 0.7 s of CPU, 1.7 s with math-verify) is the way only where this process
runs other threads (a progress bar, a web server), which a fork would copy in a
state they never left. A verify run's worker forks its grading worker from
itself (:func:`answerx.grading.pool.fork_workers`). Never more workers than cores
(:func:`workers_for`): on two cores, eight processes only add their switching.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from functools import partial
from typing import Any

from answerx.batch._jobs import ignore_sigint
from answerx.support.workerpool import default_workers, process_pool, start_method

__all__ = [
    "INLINE",
    "PoolStarter",
    "can_fork_here",
    "quiet_fork",
    "spool_dir",
    "workers_for",
]


def workers_for(requested: int) -> int:
    """The worker processes a run asks for, at most one per core this process may use:
    a batch is CPU work, and a process beyond the cores adds only its start and its
    switching (eight workers on two cores cost a fifth more CPU per row than two)."""
    return max(1, min(requested, default_workers()))


class _InlineExecutor(Executor):
    """Runs each job at once in this process (one worker, the first batch, or batches
    while the pool starts)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


INLINE: Executor = _InlineExecutor()


def init_worker(
    grading: bool, forked: bool = False, template: tuple[str, Any] | None = None
) -> None:
    """Pool initializer: Ctrl-C is the parent's to handle; a verify run's worker draws
    its grading worker from the run's grading ``template`` (its address and its ready
    event), or else forks it from itself (math-verify loaded).
    ``forked``: forked from the calling process, which warmed grading itself."""
    ignore_sigint()
    if forked:
        # What the caller loaded is never freed here: kept out of the collector's sight,
        # so that collecting does not write to (and so copy) every page it is on.
        gc.freeze()
    if grading and template is not None:
        from answerx.grading.pool import join_template

        join_template(*template)
    elif grading:
        from answerx.grading.pool import fork_workers

        # Warmed when the fork server preloaded grading (not when it was already up).
        warmed = forked or "answerx.batch._preload_grading" in sys.modules
        fork_workers(warmed=warmed)


def can_fork_here() -> bool:
    """Whether workers may be forked from this process (Linux): it runs no other Python thread (a
    fork copies only the calling one; a lock another held would stay locked in the copy)
    but the grading pool's reply readers, which a fork leaves behind safely.

    The threads pyarrow starts itself (jemalloc's, Arrow's pools) are not counted: they
    are made for it (at-fork handlers), as every fork-based data loader relies on.
    """
    # Linux only: macOS has fork, but its system libraries are not safe to use in a copy.
    if not sys.platform.startswith("linux"):
        return False
    # Not imported here (grading is a quarter second of imports an extract run never
    # needs): where it is not loaded, no grading pool has started a thread.
    grading_pool = sys.modules.get("answerx.grading.pool")
    readers = getattr(grading_pool, "REPLIES_THREAD", None)
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    return all(t.name == readers for t in others)


@contextlib.contextmanager
def quiet_fork() -> Iterator[None]:
    """Around a fork that :func:`can_fork_here` allowed: Python 3.12 warns of any other
    thread at a fork, and pyarrow's own are fork-safe (Python's were counted)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
        yield


class PoolStarter:
    """Starts the worker pool: forked from this process, warmed first, where it runs one
    thread (milliseconds, on this thread); else from a fork server, started in a thread
    while the calling process goes on reading the input (a fresh interpreter importing
    answerx, about half a second, overlapping the reading). ``grading``: the workers
    verify; ``arrow``: they build Arrow arrays (not for JSONL in and out).

    Verifying, the workers are forked with grading's rules loaded but not math-verify:
    a :class:`~answerx.grading.pool.SharedTemplate`, forked first, loads and warms it
    (two thirds of a second) while they run, and every worker's grading worker is a copy
    of it. The rows that need math-verify before it is ready wait (the file run grades
    them once it is, :mod:`answerx.batch.files`); the others, nearly all, do not. Where
    no template can run, math-verify is warmed here before the workers fork, as before.
    ``directory``: where the template's socket goes (the run's spool directory).
    """

    def __init__(
        self,
        workers: int,
        *,
        grading: bool = False,
        arrow: bool = True,
        directory: str | None = None,
    ) -> None:
        self.workers = workers
        self.grading = grading
        self.arrow = arrow
        self.directory = directory
        self.template: Any = None  # the SharedTemplate, when the workers draw on one
        self.pool: ProcessPoolExecutor | None = None
        self.started: ProcessPoolExecutor | None = None
        self.error: BaseException | None = None
        self.forked = can_fork_here()
        if self.forked:
            self._fork()
            self.thread = threading.Thread(target=lambda: None)
        else:
            _start_fork_server(grading)  # on the calling thread: it may set signal handlers
            self.thread = threading.Thread(target=self._start, name="answerx-pool", daemon=True)
        self.thread.start()

    def _fork(self) -> None:
        """The pool, its workers forked now, from this process, on this thread (with the
        fork method all start at the first submission, before the pool's own threads)."""
        from answerx.batch import _warm

        try:
            warm_extraction = _warm.warm_extraction
            warm_extraction(arrow=self.arrow)
            template = None
            if self.grading and self.directory is not None and _shares_templates():
                self.template = _start_template(self.directory)
            if self.template is not None:
                template = (self.template.address, self.template.ready)
                _warm.warm_grading_rules()
            elif self.grading:
                _warm.warm_grading()
            initializer = partial(init_worker, self.grading, True, template)
            context = multiprocessing.get_context("fork")
            self.pool = ProcessPoolExecutor(self.workers, context, initializer=initializer)
            with quiet_fork():
                futures = [self.pool.submit(os.getpid) for _ in range(self.workers)]
            for future in futures:
                future.result()
            self.started = self.pool
        except BaseException as exc:  # raised by ready() and wait(), as a thread's would be
            self.error = exc

    def _start(self) -> None:
        try:
            initializer = partial(init_worker, self.grading)
            self.pool = process_pool(self.workers, initializer=initializer)
            # One call per worker makes the pool start them all now, not on demand.
            for future in [self.pool.submit(os.getpid) for _ in range(self.workers)]:
                future.result()
            self.started = self.pool
        except BaseException as exc:  # raised in the caller's thread by ready()
            self.error = exc

    def grading_ready(self) -> bool:
        """Whether math-verify is warm for the workers (always, without a template)."""
        return self.template is None or self.template.settled()

    def ready(self) -> ProcessPoolExecutor | None:
        """The pool once its workers are up; None before."""
        if self.error is not None:
            raise self.error
        return self.started

    def wait(self) -> ProcessPoolExecutor:
        """The pool, once its workers are up (raises what stopped it from starting)."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        assert self.started is not None
        return self.started

    def shutdown(self) -> None:
        """Wait for the pool's start, then stop it (jobs not started are cancelled)."""
        self.thread.join()
        try:
            if self.pool is not None:
                self.pool.shutdown(wait=True, cancel_futures=True)
        finally:
            if self.template is not None:
                self.template.close()


def _start_template(directory: str) -> Any:
    """The run's grading template, forked now so that it warms while the rest starts;
    None where its socket cannot be made (a path too long for one: a deep ``TMPDIR``)."""
    from answerx.batch import _warm
    from answerx.grading.pool import SharedTemplate

    try:
        with quiet_fork():
            # Looked up at the call, so that a benchmark can time it wherever it runs.
            return SharedTemplate(directory, lambda: _warm.warm_grading())
    except OSError:
        return None


def _shares_templates() -> bool:
    from answerx.grading.pool import shares_templates

    return shares_templates()


def _start_fork_server(grading: bool = False) -> None:
    """Start the pool's fork server (where there is one) with Ctrl-C ignored.

    The server inherits that, and so do the workers it forks: a Ctrl-C while it
    imports answerx (the first second of a run) cannot kill it with a traceback,
    and the run alone decides what stops. It also loads ``__main__`` (as
    multiprocessing does by default), so a worker does not import the main script
    again (the CLI: typer, rich, ...). ``grading``: it loads math-verify too, when it
    is started for a verify run (a server already running is used as it is).
    """
    if start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    preload = ["__main__", "answerx.batch._preload"]
    if grading:
        preload.append("answerx.batch._preload_grading")
    forkserver.set_forkserver_preload(preload)
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are the application's
        forkserver.ensure_running()
        return
    try:
        forkserver.ensure_running()  # spawns the server; does not wait for its imports
    finally:
        signal.signal(signal.SIGINT, previous)


SHM_MIN_FREE = 1 << 30
"""Shared memory a run spools to only with this much free (bytes): a container's
``/dev/shm`` is often 64 MiB, which a run's batches in flight could fill."""


def spool_dir() -> str:
    """A new directory for the files that carry batches between processes: in shared
    memory (``/dev/shm``) where there is one with room, so they never reach a disk;
    else in the temporary directory."""
    shm = "/dev/shm"
    base = shm if _room(shm) >= SHM_MIN_FREE and os.access(shm, os.W_OK) else None
    return tempfile.mkdtemp(prefix="answerx-batch-", dir=base)


def _room(path: str) -> int:
    try:
        stat = os.statvfs(path)
    except OSError:  # none there
        return 0
    return stat.f_bavail * stat.f_frsize
