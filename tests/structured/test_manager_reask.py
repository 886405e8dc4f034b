"""Invalid output: Instructor's re-asks inside a mode, then the next mode, then a clear error."""

from __future__ import annotations

from typing import Any

import pytest

from answerx.errors import StructuredOutputError
from answerx.structured import InstructorClientManager
from answerx.structured.callinfo import Usage
from answerx.structured.models import ReasoningExtraction
from answerx.testing import FakeProviderServer, Reply

GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]


def test_invalid_json_is_reasked_and_usage_is_summed_over_both_requests(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.invalid_json(usage=(100, 10)), Reply.tool_call(GOOD, usage=(140, 20))
    )

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert result.answer_value == "4"
    assert info.mode == "tools"
    assert not info.fell_back
    assert info.attempts == 2
    assert info.modes_tried[0].requests == 2
    assert info.usage == Usage(input_tokens=240, output_tokens=30)
    first, reask = fake_provider.chat_requests
    assert len(reask.messages) > len(first.messages)  # the failed answer and the error go back


def test_an_answer_the_validator_rejects_is_reasked_with_the_reason(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    empty = {**GOOD, "answer_value": "The answer is "}  # empty once cleaned
    fake_provider.enqueue(Reply.tool_call(empty), Reply.tool_call(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.attempts, info.mode) == ("4", 2, "tools")
    assert "answer_value is empty" in fake_provider.chat_requests[1].text


@pytest.mark.parametrize("max_retries", [0, 1, 2])
def test_output_still_invalid_after_max_retries_reasks_falls_back_to_the_next_mode(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str, max_retries: int
) -> None:
    manager = make_manager(provider, max_retries=max_retries)
    second = manager.modes[1]
    tries = max_retries + 1
    fake_provider.enqueue(
        *[Reply.invalid_json(usage=(10, 1))] * tries,
        Reply.tool_call(GOOD, usage=(20, 2)),
    )

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode) == ("4", second)
    failed, used = info.modes_tried
    assert (failed.mode, failed.ok, failed.requests) == ("tools", False, tries)
    assert (failed.reason or "").startswith("invalid output")
    assert (used.mode, used.ok, used.requests) == (second, True, 1)
    assert info.fallback_reason == failed.reason
    assert info.attempts == tries + 1
    assert info.usage == Usage(input_tokens=10 * tries + 20, output_tokens=tries + 2)
    assert len(fake_provider.chat_requests) == tries + 1


def test_every_mode_failing_raises_structured_output_error_listing_each_modes_reason(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str, api_key: str
) -> None:
    manager = make_manager(provider, max_retries=1)
    later_modes = manager.modes[1:]
    fake_provider.enqueue(Reply.reject_tools(), *[Reply.invalid_json()] * (2 * len(later_modes)))

    with pytest.raises(StructuredOutputError) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    error = caught.value
    assert [mode for mode, _ in error.failures] == list(manager.modes)
    reasons = dict(error.failures)
    assert reasons["tools"] == "HTTP 400: tools are not supported by this model"
    for mode in later_modes:
        assert reasons[mode].startswith("invalid output")
    message = str(error)
    assert message.startswith(f"{provider}/{provider}-test-model: no mode produced a valid object")
    for mode in manager.modes:
        assert f"{mode}: " in message
    assert (error.provider, error.model) == (provider, f"{provider}-test-model")
    assert api_key not in message
    assert len(fake_provider.chat_requests) == 1 + 2 * len(later_modes)


def test_every_mode_returning_invalid_json_names_the_invalid_output_for_each(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider, max_retries=0)
    fake_provider.enqueue(*[Reply.invalid_json()] * len(manager.modes))

    with pytest.raises(StructuredOutputError) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    assert [mode for mode, _ in caught.value.failures] == list(manager.modes)
    assert all(reason.startswith("invalid output") for _, reason in caught.value.failures)
    fake_provider.assert_all_consumed()
