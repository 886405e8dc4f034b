"""The async path (acreate, acomplete_text, aextract_structured) behaves like the sync one,
and 50 concurrent calls each get their own answer and their own CallInfo."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pytest

from answerx.errors import ProviderAuthError, ProviderRateLimited, ProviderTimeout
from answerx.structured import InstructorClientManager
from answerx.structured.callinfo import ModeAttempt, Usage
from answerx.structured.models import ReasoningExtraction
from answerx.testing import FakeProviderServer, RecordedRequest, Reply
from concurrency_checks import Overlap
from fake_managers import MakeManager

GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]


def test_acreate_returns_the_parsed_model_with_call_info(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD, usage=(123, 45)))

    result, info = asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert (result.answer_value, result.confidence) == ("4", 0.9)
    assert (info.provider, info.mode, info.attempts) == (provider, "tools", 1)
    assert info.modes_tried == (ModeAttempt(mode="tools", ok=True, requests=1),)
    assert info.usage == Usage(input_tokens=123, output_tokens=45)
    assert info.latency_s > 0


def test_acreate_falls_back_when_tools_are_rejected(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.reject_tools(), Reply.tool_call(GOOD))

    _, info = asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert info.mode == manager.modes[1]
    assert [(m.mode, m.ok) for m in info.modes_tried] == [
        ("tools", False),
        (manager.modes[1], True),
    ]
    assert "tools are not supported" in (info.fallback_reason or "")


def test_acreate_reasks_invalid_json_and_sums_usage(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.invalid_json(usage=(100, 10)), Reply.tool_call(GOOD, usage=(140, 20))
    )

    _, info = asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert (info.mode, info.attempts) == ("tools", 2)
    assert info.usage == Usage(input_tokens=240, output_tokens=30)


def test_acreate_falls_back_when_output_stays_invalid(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider, max_retries=1)
    fake_provider.enqueue(*[Reply.invalid_json()] * 2, Reply.tool_call(GOOD))

    _, info = asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert info.mode == manager.modes[1]
    assert info.modes_tried[0].requests == 2
    assert (info.fallback_reason or "").startswith("invalid output")


def test_acreate_raises_auth_error_at_once_without_the_key(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, api_key: str
) -> None:
    fake_provider.enqueue(Reply.unauthorized(f"Incorrect API key provided: {api_key}"))

    with pytest.raises(ProviderAuthError) as caught:
        asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert manager.spec.api_key_env in str(caught.value)
    assert api_key not in str(caught.value) and api_key not in repr(caught.value)
    assert len(fake_provider.chat_requests) == 1


def test_acreate_waits_for_retry_after_then_succeeds(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.rate_limited(retry_after=0.15), Reply.tool_call(GOOD))

    started = time.perf_counter()
    _, info = asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert time.perf_counter() - started >= 0.15
    assert (info.mode, info.attempts) == ("tools", 2)


def test_acreate_raises_rate_limited_when_429_persists(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.set_default(Reply.rate_limited(retry_after=0.02))

    with pytest.raises(ProviderRateLimited) as caught:
        asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert caught.value.retry_after == pytest.approx(0.02)
    assert len(fake_provider.chat_requests) == 3


def test_acreate_raises_timeout_after_every_transient_retry(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider, timeout=0.1, transient_retries=1)
    fake_provider.set_default(Reply.hang(5))

    with pytest.raises(ProviderTimeout) as caught:
        asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert "no answer within 0.1s after 2 attempts" in str(caught.value)
    assert len(fake_provider.chat_requests) == 2


def test_acomplete_text_returns_the_text_and_usage(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.rate_limited(retry_after=0.01), Reply.text("Four.", usage=(9, 2)))

    text, info = asyncio.run(manager.acomplete_text(MESSAGES))

    assert text == "Four."
    assert (info.mode, info.attempts) == ("text", 2)
    assert info.usage == Usage(input_tokens=9, output_tokens=2)


def test_aextract_structured_reasks_a_wrong_shaped_answer(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    reasoning = "Half of 14 is 7."
    fake_provider.enqueue(
        Reply.tool_call({"full_reasoning_text": reasoning, "answer_value": "about seven",
                         "confidence": 0.7}),
        Reply.tool_call({"full_reasoning_text": reasoning, "answer_value": "7",
                         "confidence": 0.7}),
    )  # fmt: skip

    result, info = asyncio.run(
        manager.aextract_structured("Half of 14 is 7. The answer is 7.", task="numeric")
    )
    assert isinstance(result, ReasoningExtraction)

    assert (result.answer_value, info.attempts) == ("7", 2)
    assert "'about seven' is not a single number" in fake_provider.chat_requests[1].text


def _question_number(request: RecordedRequest) -> int:
    match = re.search(r"question #(\d+)", request.text)
    assert match, request.text
    return int(match.group(1))


def test_50_concurrent_acreate_calls_each_get_their_own_answer_and_call_info(
    make_manager: MakeManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    def answer(request: RecordedRequest) -> Reply:
        n = _question_number(request)
        payload = {"full_reasoning_text": f"worked on #{n}", "answer_value": str(n),
                   "confidence": 1.0}  # fmt: skip
        return Reply.tool_call(payload, usage=(1000 + n, n))

    # Each request is held until all 50 are in flight: calls made one after another
    # never get there. The manager's timeout outlasts the gate's, so a serial client
    # fails on the peak below rather than on a timeout.
    overlap = Overlap(answer, together=50, timeout=30)
    fake_provider.set_default(overlap)
    manager = make_manager(provider, timeout=60.0)

    async def ask_all() -> list[tuple[ReasoningExtraction, Any]]:
        return await asyncio.gather(
            *[
                manager.acreate(
                    [{"role": "user", "content": f"This is question #{n}."}], ReasoningExtraction
                )
                for n in range(50)
            ]
        )

    results = asyncio.run(ask_all())

    for n, (result, info) in enumerate(results):
        assert result.answer_value == str(n)
        assert result.full_reasoning_text == f"worked on #{n}"
        assert (info.mode, info.attempts) == ("tools", 1)
        assert info.usage == Usage(input_tokens=1000 + n, output_tokens=n)
    assert len(fake_provider.chat_requests) == 50
    assert overlap.peak == 50


def test_a_manager_serves_one_asyncio_run_after_another(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.set_default(Reply.tool_call(GOOD))

    calls = [
        asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))[1],
        asyncio.run(manager.acomplete_text(MESSAGES))[1],
        asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))[1],
    ]

    assert [info.attempts for info in calls] == [1, 1, 1]
    assert len(fake_provider.chat_requests) == 3
