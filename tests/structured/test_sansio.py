"""One body, two drivers: ``run`` calls each step, ``arun`` awaits it; both give the same."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from answerx.structured.sansio import Steps, arun, run


def doubled_sum(fetch: Callable[[int], Any]) -> Steps[int]:
    """A body: two calls, each a step; a failed call counts as 0."""
    total = 0
    for n in (1, 2):
        try:
            total += 2 * (yield lambda n=n: fetch(n))
        except LookupError:
            total += 0
    return total


def test_the_sync_and_the_async_driver_give_what_the_body_returns() -> None:
    async def afetch(n: int) -> int:
        return n

    assert run(doubled_sum(lambda n: n)) == 6
    assert asyncio.run(arun(doubled_sum(afetch))) == 6


def test_a_steps_exception_is_thrown_in_at_its_yield() -> None:
    def fetch(n: int) -> int:
        if n == 1:
            raise KeyError(n)
        return n

    async def afetch(n: int) -> int:
        return fetch(n)

    assert run(doubled_sum(fetch)) == 4
    assert asyncio.run(arun(doubled_sum(afetch))) == 4


def test_an_error_the_body_raises_after_catching_one_does_not_chain_it() -> None:
    def body(step: Callable[[], Any]) -> Steps[None]:
        failed = False
        try:
            yield step
        except KeyError:
            failed = True
        if failed:  # raised outside the except block, as the manager raises its errors
            raise ValueError("clear error")

    def secret() -> None:
        raise KeyError("sk-the-key")

    with pytest.raises(ValueError) as raised:
        run(body(secret))
    assert raised.value.__context__ is None and raised.value.__cause__ is None


def test_a_cancellation_closes_the_body_so_its_clean_up_runs() -> None:
    cleaned: list[str] = []

    def body(step: Callable[[], Awaitable[None]]) -> Steps[None]:
        try:
            yield step
        finally:
            cleaned.append("closed")

    async def main() -> None:
        task = asyncio.ensure_future(arun(body(lambda: asyncio.sleep(10))))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert cleaned == ["closed"]
