"""Provider failures: authentication stops at once, rate limits, 5xx and timeouts are
retried with backoff, and every error is clear and never carries the API key."""

from __future__ import annotations

import socket
import time
import traceback
from typing import Any

import pytest

from answerx.errors import (
    ProviderAuthError,
    ProviderRateLimited,
    ProviderRequestError,
    ProviderTimeout,
    ProviderUnavailable,
    StructuredOutputError,
)
from answerx.structured import CallInfo, InstructorClientManager
from answerx.structured.models import ReasoningExtraction
from answerx.structured.providers import get_provider
from answerx.testing import FakeProviderServer, Reply
from fake_managers import FAKEABLE_PROVIDERS

GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]

#: Each provider's key variable, as config/providers.yaml names it.
KEY_ENV = {name: get_provider(name).api_key_env for name in FAKEABLE_PROVIDERS}


def exception_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception reachable through ``__cause__`` and ``__context__``."""
    seen: list[BaseException] = []
    todo = [exc]
    while todo:
        current = todo.pop()
        if any(current is known for known in seen):
            continue
        seen.append(current)
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return seen


def shown_text(exc: BaseException) -> str:
    """What a user or a log sees of ``exc``: str, repr and the formatted traceback."""
    return "\n".join([str(exc), repr(exc), *traceback.format_exception(exc)])


# ----------------------------------------------------------------- authentication


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_raises_auth_error_naming_the_env_var_without_fallback(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    provider: str,
    api_key: str,
    status: int,
) -> None:
    fake_provider.enqueue(Reply.unauthorized(status=status))

    with pytest.raises(ProviderAuthError) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    error = caught.value
    assert len(fake_provider.chat_requests) == 1  # no retry, no fallback
    assert (error.provider, error.model, error.status_code) == (
        provider,
        f"{provider}-test-model",
        status,
    )
    assert KEY_ENV[provider] in str(error)
    assert "authentication failed" in str(error)
    assert api_key not in shown_text(error)
    for linked in exception_chain(error):
        assert api_key not in str(linked)
        assert api_key not in repr(linked)


def test_a_key_echoed_by_the_provider_is_redacted_from_the_error(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, api_key: str
) -> None:
    fake_provider.enqueue(Reply.unauthorized(f"Incorrect API key provided: {api_key}."))

    with pytest.raises(ProviderAuthError) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    assert "Incorrect API key provided: ***" in str(caught.value)
    assert api_key not in shown_text(caught.value)


def test_a_key_echoed_by_the_provider_is_not_reachable_through_the_exception_chain(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, api_key: str
) -> None:
    fake_provider.enqueue(Reply.unauthorized(f"Incorrect API key provided: {api_key}."))

    with pytest.raises(ProviderAuthError) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    leaking = [
        type(linked).__name__
        for linked in exception_chain(caught.value)
        if api_key in str(linked) or api_key in repr(linked)
    ]
    assert leaking == []


def test_an_auth_error_in_a_fallback_mode_stops_the_chain(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.reject_tools(), Reply.unauthorized())

    with pytest.raises(ProviderAuthError):
        manager.create(MESSAGES, ReasoningExtraction)

    assert len(fake_provider.chat_requests) == 2


# ----------------------------------------------------------------- rate limits


def test_429_is_retried_after_the_retry_after_wait_then_succeeds(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    retry_after = 0.15  # far above the 0.01 s backoff: only Retry-After explains the wait
    fake_provider.enqueue(Reply.rate_limited(retry_after=retry_after), Reply.tool_call(GOOD))

    started = time.perf_counter()
    result, info = manager.create(MESSAGES, ReasoningExtraction)
    elapsed = time.perf_counter() - started

    assert result.answer_value == "4"
    assert (info.mode, info.attempts, info.fell_back) == ("tools", 2, False)
    assert info.modes_tried[0].requests == 2
    assert elapsed >= retry_after
    limited, retried = fake_provider.chat_requests
    assert retried.received_at - limited.received_at >= retry_after


def test_429_on_every_attempt_raises_rate_limited_with_retry_after(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    fake_provider.set_default(Reply.rate_limited(retry_after=0.02))

    with pytest.raises(ProviderRateLimited) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    error = caught.value
    assert error.retry_after == pytest.approx(0.02)
    assert (error.provider, error.status_code) == (provider, 429)
    assert "rate limited after 3 attempts" in str(error)
    assert len(fake_provider.chat_requests) == manager.transient_retries + 1 == 3


def test_no_transient_retries_means_a_single_request(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider, transient_retries=0)
    fake_provider.set_default(Reply.rate_limited(retry_after=0.01))

    with pytest.raises(ProviderRateLimited):
        manager.create(MESSAGES, ReasoningExtraction)

    assert len(fake_provider.chat_requests) == 1


# ----------------------------------------------------------------- server errors

SERVER_ERRORS = [
    pytest.param(Reply.server_error(500), id="500"),
    pytest.param(Reply.server_error(503, "overloaded"), id="503"),
    pytest.param(
        Reply.raw("<html><h1>502 Bad Gateway</h1></html>", status=502, content_type="text/html"),
        id="502-html",
    ),
]


@pytest.mark.parametrize("failure", SERVER_ERRORS)
def test_a_server_error_is_retried_then_succeeds(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    failure: Reply,
) -> None:
    fake_provider.enqueue(failure, Reply.tool_call(GOOD, usage=(11, 2)))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert result.answer_value == "4"
    assert (info.mode, info.attempts, info.fell_back) == ("tools", 2, False)
    assert (info.usage.input_tokens, info.usage.output_tokens) == (11, 2)


def test_a_server_error_on_every_attempt_raises_unavailable(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    fake_provider.set_default(Reply.server_error(503, "overloaded"))

    with pytest.raises(ProviderUnavailable) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    assert caught.value.status_code == 503
    assert "unavailable after 3 attempts" in str(caught.value)
    assert "overloaded" in str(caught.value)
    assert len(fake_provider.chat_requests) == 3


def test_a_500_saying_tools_are_unsupported_falls_back_instead_of_retrying(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.reject_tools(status=500), Reply.tool_call(GOOD))

    _, info = manager.create(MESSAGES, ReasoningExtraction)

    assert info.mode == manager.modes[1]
    assert info.modes_tried[0].requests == 1
    assert len(fake_provider.chat_requests) == 2


def test_a_request_error_that_no_mode_fixes_is_raised_without_fallback(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    fake_provider.enqueue(Reply.error(404, "model 'nope' not found"))

    with pytest.raises(ProviderRequestError) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    assert caught.value.status_code == 404
    assert "model 'nope' not found" in str(caught.value)
    assert len(fake_provider.chat_requests) == 1


# ----------------------------------------------------------------- timeouts and connections


def test_a_hanging_provider_raises_timeout_after_every_transient_retry(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider, timeout=0.1, transient_retries=1)
    fake_provider.set_default(Reply.hang(60))  # a manager that waited would get the answer

    started = time.perf_counter()
    with pytest.raises(ProviderTimeout) as caught:
        manager.create(MESSAGES, ReasoningExtraction)
    elapsed = time.perf_counter() - started

    assert str(caught.value) == (
        f"{provider}/{provider}-test-model: no answer within 0.1s after 2 attempts"
    )
    assert caught.value.provider == provider
    assert len(fake_provider.chat_requests) == manager.transient_retries + 1 == 2
    assert elapsed >= 0.2  # two 0.1 s timeouts (the ProviderTimeout says it never waited 60 s)


def test_a_timeout_then_an_answer_succeeds(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider, timeout=0.2, transient_retries=1)
    fake_provider.enqueue(Reply.hang(5), Reply.tool_call(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode, info.attempts) == ("4", "tools", 2)


def test_a_refused_connection_raises_unavailable(make_manager: Any, provider: str) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    suffix = "/v1" if provider not in ("anthropic", "cohere") else ""
    manager = make_manager(provider, base_url=f"http://127.0.0.1:{port}{suffix}")

    with pytest.raises(ProviderUnavailable) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    assert "connection failed" in str(caught.value)
    assert "after 3 attempts" in str(caught.value)


def test_a_failed_call_carries_what_its_attempts_cost(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    fake_provider.set_default(Reply.invalid_json(usage=(21, 4)))
    manager = make_manager("openai", max_retries=1)
    with pytest.raises(StructuredOutputError) as caught:
        manager.create([{"role": "user", "content": "2+2?"}], ReasoningExtraction)
    info = caught.value.call_info
    assert isinstance(info, CallInfo)
    assert info.mode is None and info.attempts == len(fake_provider.chat_requests)
    assert info.usage.input_tokens == 21 * info.attempts


def test_a_fallback_reason_quoting_the_key_is_redacted(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    key = "plainsecretwithoutshape"  # no key shape: only redacting the manager key hides it
    fake_provider.enqueue(
        Reply.reject_tools(message=f"tools are not supported for key {key}"), Reply.json(GOOD)
    )
    manager = make_manager("openai", api_key=key)
    result, info = manager.create(MESSAGES, ReasoningExtraction)
    assert result.answer_value == "4" and info.fell_back
    assert key not in info.model_dump_json()
    assert "tools are not supported" in (info.fallback_reason or "")
