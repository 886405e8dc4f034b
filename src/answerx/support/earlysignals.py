"""A SIGTERM held from the first line of the ``answerx`` command until the command decides.

The command's imports take a second or more (typer, pydantic, pyarrow, ...). A
process manager that stops a server it has just started sends SIGTERM in that
window, and Python's default action ends the process with status -15 before
``answerx serve`` can install the handler that makes a requested stop exit 0.
:func:`hold` records the signal instead; the command then either takes it
(:func:`take`: ``serve`` exits 0 as it would once running) or lets it act as it
would have (:func:`release`: every other command dies of it as before).
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

__all__ = ["hold", "release", "take"]

_pending: list[int] = []
_previous: dict[int, Any] = {}


def _record(signum: int, frame: FrameType | None) -> None:
    _pending.append(signum)


def hold() -> None:
    """Record SIGTERM instead of dying of it, until :func:`release` or :func:`take`."""
    if threading.current_thread() is threading.main_thread() and not _previous:
        _previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, _record)


def take() -> bool:
    """Whether a SIGTERM came while held; it is consumed (the caller handles it)."""
    came = bool(_pending)
    _pending.clear()
    return came


def release() -> None:
    """Restore the handler found by :func:`hold` and deliver a SIGTERM that came meanwhile."""
    if not _previous:
        return
    signal.signal(signal.SIGTERM, _previous.pop(signal.SIGTERM))
    if take():
        signal.raise_signal(signal.SIGTERM)
