"""RunClientManager: the response cache and the per-provider limits of experiment runs."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from answerx.experiments.cache import ResponseCache
from answerx.experiments.calls import ItemTally, ProviderLimits, RunClientManager, current_tally
from answerx.structured import ReasoningExtraction
from answerx.testing import FakeProviderServer, Reply

ANSWER = {"full_reasoning_text": "2+2=4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2+2?"}]


def make(fake: FakeProviderServer, tmp_path: Path, **options: object) -> RunClientManager:
    return RunClientManager(
        "openai",
        "gpt-test",
        api_key="sk-test-cache",
        base_url=fake.openai_base_url,
        cache=ResponseCache(tmp_path / "cache.db"),
        **options,  # type: ignore[arg-type]
    )


def test_an_identical_structured_call_is_served_from_the_cache(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.tool_call(ANSWER, usage=(30, 7)))
    manager = make(fake_provider, tmp_path)
    first, info = manager.create(MESSAGES, ReasoningExtraction)
    again, cached_info = manager.create(MESSAGES, ReasoningExtraction)
    assert again.model_dump() == first.model_dump() and again.answer_value == "4"
    assert len(fake_provider.requests) == 1
    assert cached_info.usage == info.usage  # the record keeps what the answer cost once


def test_the_cache_survives_a_new_manager_and_process(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.text("The answer is 4.", usage=(12, 5)))
    make(fake_provider, tmp_path).complete_text(MESSAGES)
    text, _ = make(fake_provider, tmp_path).complete_text(MESSAGES)
    assert text == "The answer is 4."
    assert len(fake_provider.requests) == 1


def test_different_parameters_or_repetitions_are_different_calls(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.text("4"))
    manager = make(fake_provider, tmp_path)

    async def run() -> None:
        for repetition in (0, 1):
            token = current_tally().set(ItemTally(repetition=repetition))
            try:
                await manager.acomplete_text(MESSAGES)
                await manager.acomplete_text(MESSAGES, temperature=0.7)
            finally:
                current_tally().reset(token)

    asyncio.run(run())
    assert len(fake_provider.requests) == 4


def test_the_item_tally_counts_hits_and_paid_usage(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.text("4", usage=(10, 2)))
    manager = make(fake_provider, tmp_path)

    async def item() -> ItemTally:
        tally = ItemTally()
        current_tally().set(tally)
        await manager.acomplete_text(MESSAGES)
        await asyncio.gather(manager.acomplete_text(MESSAGES), manager.acomplete_text(MESSAGES))
        return tally

    first = asyncio.run(item())
    assert (first.calls, first.cache_hits) == (3, 2)
    assert (first.paid.input_tokens, first.paid.output_tokens) == (10, 2)
    again = asyncio.run(item())
    assert again.all_cached and again.paid.total_tokens == 0


def test_no_cache_means_every_call_goes_out(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.text("4"))
    manager = RunClientManager(
        "openai", "gpt-test", api_key="sk-test", base_url=fake_provider.openai_base_url
    )
    manager.complete_text(MESSAGES)
    manager.complete_text(MESSAGES)
    assert len(fake_provider.requests) == 2


def test_per_provider_concurrency_is_bounded(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.text("4").with_delay(0.1))
    manager = make(fake_provider, tmp_path, limits=ProviderLimits(concurrency=2))
    manager.cache = None

    async def run() -> float:
        started = time.perf_counter()
        await asyncio.gather(*(manager.acomplete_text(MESSAGES) for _ in range(6)))
        return time.perf_counter() - started

    elapsed = asyncio.run(run())
    assert elapsed >= 0.3 - 0.02  # six requests, two at a time, 0.1 s each


@pytest.mark.slow
def test_the_request_rate_holds_the_configured_rate(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(Reply.text("4"))
    limits = ProviderLimits(requests_per_minute=600)  # 10 per second
    manager = make(fake_provider, tmp_path, limits=limits)
    manager.cache = None

    async def run() -> list[float]:
        await asyncio.gather(*(manager.acomplete_text(MESSAGES) for _ in range(30)))
        return [r.received_at for r in fake_provider.requests]

    times = sorted(asyncio.run(run()))
    # A one-second bucket (10 requests) may go at once; the other 20 follow at 10/s.
    assert times[-1] - times[0] >= 1.8
    window = [t for t in times if t - times[0] >= 1.0]
    rate = (len(window) - 1) / (window[-1] - window[0])
    assert rate <= 10 * 1.15
