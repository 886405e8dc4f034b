"""Sync and async APIs from one body: a generator of steps, run by one of two drivers.

A body that makes blocking calls is written once, as a generator that yields each
call as a zero-argument function and receives its value (or has its exception
thrown in at the ``yield``). :func:`run` calls each step; :func:`arun` awaits it, so
the async body's steps return awaitables. The body learns which it is from an
``is_async`` argument where it must pick a sync or an async client; the rest of
its logic exists once. ``reasoning/engine.py`` drives approaches the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from types import TracebackType
from typing import Any, Generic, TypeVar

__all__ = ["Steps", "arun", "run"]

R = TypeVar("R")

#: A body: yields steps (``run`` calls them, ``arun`` awaits what they return), returns R.
Steps = Generator[Callable[[], Any], Any, R]


def run(steps: Steps[R]) -> R:
    """Drive ``steps`` synchronously: each step's value is sent back in."""
    body = _Body(steps)
    while (step := body.next_step()) is not None:
        with body:
            body.value = step()
    return body.result


async def arun(steps: Steps[R]) -> R:
    """Drive ``steps`` asynchronously: each step's awaitable is awaited, its value sent in."""
    body = _Body(steps)
    while (step := body.next_step()) is not None:
        with body:
            body.value = await step()
    return body.result


class _Body(Generic[R]):
    """One body being driven: what its last step gave, and what it returned.

    As a context manager it wraps one step (a class, not ``@contextmanager``: it runs
    twice per structured call, where a few microseconds count): the step's exception is
    kept for the body, to be thrown in at its ``yield``; an interrupt or a cancellation
    closes the body, so that its own clean-up runs, and goes on."""

    __slots__ = ("failure", "result", "steps", "value")

    def __init__(self, steps: Steps[R]) -> None:
        self.steps = steps
        self.value: Any = None
        self.failure: Exception | None = None
        self.result: R

    def next_step(self) -> Callable[[], Any] | None:
        """The body's next step, given the last one's value or failure; None when done."""
        failure, self.failure = self.failure, None
        try:
            # Thrown in here, outside any except block, so that an error the body raises
            # after catching it does not carry it as its __context__.
            return self.steps.send(self.value) if failure is None else self.steps.throw(failure)
        except StopIteration as done:
            self.result = done.value
            return None

    def __enter__(self) -> None:
        self.value = None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if exc is None:
            return False
        if isinstance(exc, Exception):
            self.failure = exc
            return True
        self.steps.close()
        return False
