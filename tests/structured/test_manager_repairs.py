"""Replies repaired before validation, for every provider: raw control characters inside
JSON strings, and a confidence outside [0, 1] (re-asked naming the bound, then kept as
missing so the answer survives). Every repair is listed in ``CallInfo.repairs``."""

from __future__ import annotations

from typing import Any

import pytest

from answerx.structured import InstructorClientManager
from answerx.structured.models import REASONING_EXTRACTION_MODELS, ReasoningExtraction
from answerx.testing import FakeProviderServer, Reply

GOOD = {"full_reasoning_text": "17 + 25 = 42.\nTherefore 42.", "answer_value": "42",
        "confidence": 0.9}  # fmt: skip
MESSAGES = [{"role": "user", "content": "Extract the final answer: 17 + 25 = 42."}]
#: The mode of each provider whose JSON arrives as text (Anthropic's tool input is an object).
JSON_TEXT_MODE = {
    "anthropic": "json", "openai": "json", "openrouter": "json", "cohere": "json_schema",
    "local-openai": "json_with_schema",
}  # fmt: skip
KEPT = "confidence 1.5 stayed outside [0, 1] after the re-asks: answer kept"


def test_raw_control_characters_in_json_text_are_escaped_and_recorded(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    mode = JSON_TEXT_MODE[provider]
    manager = make_manager(provider, modes=[mode])
    fake_provider.enqueue(Reply.control_characters(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert result.full_reasoning_text == "17 + 25 = 42.\nTherefore 42."
    assert (result.answer_value, info.mode, info.attempts) == ("42", mode, 1)  # no re-ask
    assert info.repairs == (f"{mode}: escaped 1 raw control character inside JSON strings",)


@pytest.mark.parametrize("provider", ["openai", "openrouter", "cohere", "local-openai"])
def test_raw_control_characters_in_tool_arguments_are_escaped_in_tools_mode(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    reply = {**GOOD, "full_reasoning_text": "step 1\tadd\nstep 2\tcheck"}
    fake_provider.enqueue(Reply.control_characters(reply))

    result, info = manager.create(MESSAGES, REASONING_EXTRACTION_MODELS["chain_of_thought"])

    assert result.full_reasoning_text == "step 1\tadd\nstep 2\tcheck"
    assert (info.mode, info.attempts) == ("tools", 1)
    assert info.repairs == ("tools: escaped 3 raw control characters inside JSON strings",)


def test_a_reply_that_needs_no_repair_records_none(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD))
    _, info = manager.create(MESSAGES, ReasoningExtraction)
    assert info.repairs == ()


def test_a_confidence_out_of_range_is_reasked_with_a_message_naming_the_bound(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.out_of_range(GOOD, confidence=1.5), Reply.tool_call(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, result.confidence, info.attempts) == ("42", 0.9, 2)
    assert info.repairs == ()
    reask = fake_provider.chat_requests[1].text
    assert "outside [0, 1]" in reask and "a number from 0 to 1" in reask


@pytest.mark.parametrize("max_retries", [0, 2])
def test_a_confidence_still_out_of_range_after_the_reasks_keeps_the_answer_without_it(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str, max_retries: int
) -> None:
    manager = make_manager(provider, max_retries=max_retries)
    fake_provider.enqueue(*[Reply.out_of_range(GOOD, confidence=1.5)] * (max_retries + 1))

    result, info = manager.create(MESSAGES, REASONING_EXTRACTION_MODELS["chain_of_thought"])

    assert type(result) is REASONING_EXTRACTION_MODELS["chain_of_thought"]
    assert (result.answer_value, result.confidence) == ("42", None)
    assert (info.mode, info.attempts, info.fell_back) == ("tools", max_retries + 1, False)
    (repair,) = info.repairs
    assert repair.startswith(f"tools: {KEPT}") and "recorded as missing" in repair


def test_a_kept_answer_still_needs_every_other_field_valid(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai", max_retries=0)
    broken = {**GOOD, "answer_value": "", "confidence": 1.5}  # the answer is what is kept
    fake_provider.enqueue(Reply.out_of_range(broken, confidence=1.5), Reply.tool_call(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, result.confidence) == ("42", 0.9)
    assert info.fell_back and info.modes_tried[0].mode == "tools"


def test_async_calls_repair_and_keep_the_answer_the_same_way(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    import asyncio

    manager = make_manager("openai", max_retries=0)
    fake_provider.enqueue(Reply.control_characters({**GOOD, "confidence": 3}))

    result, info = asyncio.run(manager.acreate(MESSAGES, ReasoningExtraction))

    assert (result.answer_value, result.confidence) == ("42", None)
    assert info.repairs[0] == "tools: escaped 1 raw control character inside JSON strings"
    assert info.repairs[1].startswith("tools: confidence 3.0 stayed outside [0, 1]")


def test_plain_text_calls_keep_the_text_as_written(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    text = 'Reasoning: {"draft": "line one\nline two"}'
    fake_provider.enqueue(Reply.text(text))
    written, info = make_manager("openai").complete_text(MESSAGES)
    assert written == text and info.repairs == ()
