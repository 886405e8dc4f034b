"""Sampling options reach providers whose installed SDK takes them, and only those."""

from __future__ import annotations

import asyncio
import logging

import pytest

from answerx.structured import ReasoningExtraction
from answerx.structured.adapters import get_adapter
from answerx.testing import FakeProviderServer, Reply
from fake_managers import MakeManager

ANSWER = {"full_reasoning_text": "2+2=4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2+2?"}]


@pytest.mark.parametrize("provider", ["openai", "cohere", "local-openai"])
def test_temperature_is_sent_where_the_sdk_takes_it(
    make_manager: MakeManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    fake_provider.set_default(Reply.tool_call(ANSWER))
    manager = make_manager(provider)
    manager.create(MESSAGES, ReasoningExtraction, temperature=0.3)
    manager.complete_text(MESSAGES, temperature=0.3)
    assert [r.body.get("temperature") for r in fake_provider.chat_requests] == [0.3, 0.3]


@pytest.mark.skipif(
    not get_adapter("anthropic").dropped_options(),
    reason="this anthropic SDK still takes temperature",
)
def test_anthropic_sdk_without_sampling_options_gets_none_and_one_warning(
    make_manager: MakeManager, fake_provider: FakeProviderServer, caplog: pytest.LogCaptureFixture
) -> None:
    fake_provider.set_default(Reply.tool_call(ANSWER))
    manager = make_manager("anthropic")
    with caplog.at_level(logging.WARNING, logger="answerx.structured"):
        result, _ = manager.create(MESSAGES, ReasoningExtraction, temperature=0.3, top_p=0.9)
        manager.complete_text(MESSAGES, temperature=0.0)
        asyncio.run(manager.acomplete_text(MESSAGES, temperature=0.0))
    assert result.answer_value == "4"
    for request in fake_provider.chat_requests:
        assert not {"temperature", "top_p", "top_k"} & request.body.keys()
    warnings = [r for r in caplog.records if "does not accept" in r.getMessage()]
    assert len(warnings) == 1 and "temperature" in warnings[0].getMessage()
