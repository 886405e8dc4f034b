"""RunClientManager: the response cache and the per-provider limits of experiment runs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from answerx.errors import StructuredOutputError
from answerx.experiments.cache import ResponseCache
from answerx.experiments.calls import ItemTally, ProviderLimits, RunClientManager, current_tally
from answerx.structured import ReasoningExtraction
from answerx.structured.callinfo import CallInfo
from answerx.testing import FakeProviderServer, RecordedRequest, Reply
from concurrency_checks import (
    Overlap,
    assert_each_request_after_its_release,
    assert_within_bucket,
    record_returns,
)

ANSWER = {"full_reasoning_text": "2+2=4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2+2?"}]

T = TypeVar("T")


def run_closing(manager: RunClientManager, coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)``, then the manager's async client closed on that loop."""

    async def main() -> T:
        try:
            return await coroutine
        finally:
            await manager.aclose()

    return asyncio.run(main())


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


def test_the_bundled_model_is_cached_by_model_not_by_its_port(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The auto-started local server takes a new loopback port each run: the second run
    # (of `make demo`, say) must still be answered from the cache.
    import answerx.local

    port = fake_provider.openai_base_url.split(":")[-1]
    urls = iter([fake_provider.openai_base_url, f"http://localhost:{port}"])
    monkeypatch.setattr(answerx.local, "ensure_local_server", lambda model_path=None: next(urls))
    fake_provider.set_default(Reply.text("The answer is 4."))

    second = [{"role": "user", "content": "And 3+3?"}]
    for _ in range(2):  # two runs, two calls each (the first call starts the server)
        manager = RunClientManager("local", cache=ResponseCache(tmp_path / "cache.db"))
        for messages in (MESSAGES, second):
            text, _ = manager.complete_text(messages)
            assert text == "The answer is 4."
        assert manager.endpoint_identity == "autostart:bundled"

    assert len(fake_provider.requests) == 2


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

    run_closing(manager, run())
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

    first = run_closing(manager, item())
    assert (first.calls, first.cache_hits) == (3, 2)
    assert (first.paid.input_tokens, first.paid.output_tokens) == (10, 2)
    again = run_closing(manager, item())
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
    # Requests are held until two are in flight, then a while longer: without the cap
    # all six would be held at once; with it, never more than two.
    overlap = Overlap(Reply.text("4"), together=2, hold=0.1)
    fake_provider.set_default(overlap)
    manager = make(fake_provider, tmp_path, limits=ProviderLimits(concurrency=2))
    manager.cache = None

    async def run() -> None:
        await asyncio.gather(*(manager.acomplete_text(MESSAGES) for _ in range(6)))

    run_closing(manager, run())
    assert len(fake_provider.chat_requests) == 6
    assert overlap.peak == 2


@pytest.mark.slow
def test_the_request_rate_holds_the_configured_rate(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_provider.set_default(Reply.text("4"))
    released = record_returns(monkeypatch, ProviderLimits, "wait_for_rate")
    limits = ProviderLimits(requests_per_minute=600)  # 10 per second
    manager = make(fake_provider, tmp_path, limits=limits)
    manager.cache = None

    async def run() -> None:
        await asyncio.gather(*(manager.acomplete_text(MESSAGES) for _ in range(30)))

    run_closing(manager, run())
    # A one-second bucket (10 requests) may go at once; the other 20 follow at 10/s.
    # Checked on the limiter's own events, so a busy machine cannot break it.
    assert len(released) == 30
    assert_within_bucket(released, bucket=10, per_second=10)
    assert_each_request_after_its_release(
        [r.received_at for r in fake_provider.chat_requests], released
    )


def test_the_requests_bucket_below_sixty_a_minute_is_one_request_per_interval() -> None:
    slow = ProviderLimits(requests_per_minute=30).requests
    fast = ProviderLimits(requests_per_minute=600).requests
    assert slow is not None and (slow.max_rate, slow.time_period) == (1.0, 2.0)
    assert fast is not None and (fast.max_rate, fast.time_period) == (10.0, 1.0)


@pytest.mark.slow
def test_a_rate_below_one_a_second_spaces_the_requests(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_provider.set_default(Reply.text("4"))
    manager = make(fake_provider, tmp_path)
    manager.cache = None
    released = record_returns(monkeypatch, ProviderLimits, "wait_for_rate")

    async def run() -> None:
        await manager.acomplete_text(MESSAGES)  # the client is set up before the two calls
        manager.limits = ProviderLimits(requests_per_minute=50)
        await asyncio.gather(*(manager.acomplete_text(MESSAGES) for _ in range(2)))

    run_closing(manager, run())
    _, first, second = released
    # A bucket of one request refilled every 60/50 = 1.2 s (not every second).
    assert_within_bucket([first, second], bucket=1, per_second=50 / 60)
    assert_each_request_after_its_release(
        [r.received_at for r in fake_provider.chat_requests[1:]], [first, second]
    )


# --- seed ------------------------------------------------------------------------------------


async def _ask_as_repetition(manager: RunClientManager, repetition: int, **kw: object) -> None:
    token = current_tally().set(ItemTally(repetition=repetition))
    try:
        await manager.acreate(MESSAGES, ReasoningExtraction, **kw)
        await manager.acomplete_text(MESSAGES, **kw)
    finally:
        current_tally().reset(token)


@pytest.mark.parametrize("provider", ["openai", "cohere"])
def test_the_seed_goes_out_as_seed_plus_repetition(
    fake_provider: FakeProviderServer, tmp_path: Path, provider: str
) -> None:
    if provider == "cohere":  # Instructor reads Cohere's object from the reply's text
        fake_provider.set_default(Reply.text(json.dumps(ANSWER)))
    else:
        fake_provider.set_default(_answer)
    url = fake_provider.openai_base_url if provider == "openai" else fake_provider.cohere_base_url
    manager = RunClientManager(provider, "m", api_key="sk-test", base_url=url, seed=100)

    run_closing(manager, _ask_as_repetition(manager, 0))
    run_closing(manager, _ask_as_repetition(manager, 3))
    run_closing(manager, _ask_as_repetition(manager, 3, seed=7))  # an explicit seed is kept

    assert [r.json.get("seed") for r in fake_provider.requests] == [100, 100, 103, 103, 7, 7]


def test_no_seed_is_sent_to_anthropic_whose_api_has_none(
    fake_provider: FakeProviderServer,
) -> None:
    fake_provider.set_default(_answer)
    manager = RunClientManager(
        "anthropic", "claude-test", api_key="sk-test", base_url=fake_provider.anthropic_base_url,
        seed=100,
    )  # fmt: skip

    run_closing(manager, _ask_as_repetition(manager, 1))

    assert manager.seed is None
    assert [("seed" in r.json) for r in fake_provider.requests] == [False, False]


def test_a_different_seed_is_a_different_call_for_the_cache(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(_answer)
    for seed in (1, 2, 1):
        manager = make(fake_provider, tmp_path, seed=seed)
        run_closing(manager, _ask_as_repetition(manager, 0))
    assert len(fake_provider.requests) == 4  # seed 1 asked once, seed 2 once; then cached


def _answer(request: RecordedRequest) -> Reply:
    if request.has_tools or request.response_format is not None:
        return Reply.tool_call(ANSWER)
    return Reply.text("4")


# --- what a failed call cost -----------------------------------------------------------------


def test_the_tokens_of_a_call_that_failed_are_counted_as_paid(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    # Every mode answers with text that is no object: the call fails after its re-asks.
    fake_provider.set_default(Reply.text("I refuse to answer in JSON.", usage=(25, 5)))
    manager = make(fake_provider, tmp_path)
    tally = ItemTally()

    async def run() -> None:
        current_tally().set(tally)
        await manager.acreate(MESSAGES, ReasoningExtraction)

    with pytest.raises(StructuredOutputError) as failed:
        run_closing(manager, run())

    info = failed.value.call_info
    assert isinstance(info, CallInfo) and info.usage.input_tokens == 25 * info.attempts
    assert (tally.calls, tally.cache_hits) == (1, 0)
    assert tally.paid == info.usage
    assert len(manager.cache or []) == 0  # a failure is never cached
