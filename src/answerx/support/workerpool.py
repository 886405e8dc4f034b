"""The worker processes answerx starts: how many by default, and how they start.

The file runs (:mod:`answerx.batch`) and the service's extraction pool
(:mod:`answerx.service.pool`) both start theirs here, so both follow one rule:
as many workers as the cores this process may run on, forked from a fork
server (a clean process that has imported answerx once) where the platform has
one, else spawned. Forking the calling process itself is never safe: it may run
threads (a progress bar, a web server's event loop).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

__all__ = ["default_workers", "process_pool", "start_method"]


def default_workers() -> int:
    """The CPU cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - not Linux


def start_method() -> str:
    """``forkserver`` where the platform has it, else ``spawn``."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def process_pool(
    workers: int | None = None, *, initializer: Callable[[], object] | None = None
) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (default: :func:`default_workers`) started the one
    way; ``initializer`` runs in each worker first."""
    context = multiprocessing.get_context(start_method())
    return ProcessPoolExecutor(
        max_workers=workers or default_workers(), mp_context=context, initializer=initializer
    )
