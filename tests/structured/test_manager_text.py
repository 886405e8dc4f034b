"""complete_text: plain generation through the same provider settings, retries and usage."""

from __future__ import annotations

from typing import Any

import pytest

from answerx.errors import ProviderAuthError, ProviderRateLimited, ProviderTimeout
from answerx.structured import InstructorClientManager
from answerx.structured.callinfo import ModeAttempt, Usage
from answerx.testing import FakeProviderServer, Reply

SYSTEM = "You are a terse assistant."
QUESTION = "What is 2 + 2?"
MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]


def test_complete_text_returns_the_text_and_usage(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    fake_provider.enqueue(Reply.text("2 + 2 = 4. The answer is 4.", usage=(31, 12)))

    text, info = manager.complete_text(MESSAGES)

    assert text == "2 + 2 = 4. The answer is 4."
    assert (info.provider, info.model) == (provider, f"{provider}-test-model")
    assert (info.mode, info.attempts, info.fallback_reason) == ("text", 1, None)
    assert info.modes_tried == (ModeAttempt(mode="text", ok=True, requests=1),)
    assert info.usage == Usage(input_tokens=31, output_tokens=12)
    assert info.latency_s > 0
    request = fake_provider.last_request
    assert not request.has_tools
    assert "response_format" not in request.json
    assert request.json["max_tokens"] == manager.spec.max_tokens


def test_anthropic_gets_the_system_message_as_its_system_parameter(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("anthropic")
    fake_provider.enqueue(Reply.text("4"))

    manager.complete_text(MESSAGES)

    body = fake_provider.last_request.json
    assert body["system"] == SYSTEM
    assert body["messages"] == [{"role": "user", "content": QUESTION}]


def test_anthropic_without_a_system_message_sends_no_system_parameter(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("anthropic")
    fake_provider.enqueue(Reply.text("4"))

    manager.complete_text([{"role": "user", "content": QUESTION}])

    assert "system" not in fake_provider.last_request.json


@pytest.mark.parametrize("provider", ["openai", "openrouter", "cohere", "local-openai"])
def test_other_providers_keep_the_system_message_in_the_messages(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider)
    fake_provider.enqueue(Reply.text("4"))

    manager.complete_text(MESSAGES)

    assert fake_provider.last_request.messages == MESSAGES


def test_complete_text_sends_the_callers_options(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("4"))

    manager.complete_text(MESSAGES, max_tokens=64)

    assert fake_provider.last_request.json["max_tokens"] == 64


def test_complete_text_retries_429_and_5xx_and_sums_usage(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.rate_limited(retry_after=0.01), Reply.server_error(), Reply.text("4", usage=(5, 1))
    )

    text, info = manager.complete_text(MESSAGES)

    assert (text, info.attempts) == ("4", 3)
    assert info.modes_tried == (ModeAttempt(mode="text", ok=True, requests=3),)
    assert info.usage == Usage(input_tokens=5, output_tokens=1)


def test_complete_text_raises_auth_error_at_once(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, api_key: str
) -> None:
    fake_provider.enqueue(Reply.unauthorized())

    with pytest.raises(ProviderAuthError) as caught:
        manager.complete_text(MESSAGES)

    assert manager.spec.api_key_env in str(caught.value)
    assert api_key not in str(caught.value)
    assert len(fake_provider.chat_requests) == 1


def test_complete_text_raises_rate_limited_when_429_persists(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.set_default(Reply.rate_limited(retry_after=0.02))

    with pytest.raises(ProviderRateLimited) as caught:
        manager.complete_text(MESSAGES)

    assert caught.value.retry_after == pytest.approx(0.02)
    assert len(fake_provider.chat_requests) == 3


def test_complete_text_raises_timeout_with_a_clear_message(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider, timeout=0.2, transient_retries=0)
    fake_provider.set_default(Reply.hang(5))

    with pytest.raises(ProviderTimeout, match=r"no answer within 0\.2s after 1 attempt"):
        manager.complete_text(MESSAGES)

    assert len(fake_provider.chat_requests) == 1


# What each SDK reports for a reply cut at the token limit (OpenAI-compatible: "length").
_LENGTH = {"anthropic": "max_tokens", "cohere": "MAX_TOKENS"}


def test_complete_text_reports_the_providers_finish_reason(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    fake_provider.enqueue(Reply.text("We add 2 and 2, which", truncated=True))
    _, cut = manager.complete_text(MESSAGES)
    fake_provider.enqueue(Reply.text("The answer is 4."))
    _, finished = manager.complete_text(MESSAGES)

    assert cut.finish_reason == _LENGTH.get(provider, "length")
    assert finished.finish_reason is not None and finished.finish_reason != cut.finish_reason
