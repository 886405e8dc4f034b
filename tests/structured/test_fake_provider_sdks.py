"""The official SDKs and Instructor 1.17 against the fake provider server.

Each test builds real SDK clients (openai.OpenAI/AsyncOpenAI, anthropic.Anthropic/
AsyncAnthropic, cohere.ClientV2/AsyncClientV2) pointed at a loopback
:class:`FakeProviderServer`, so the SDKs' own HTTP, parsing, error and retry
handling is exercised. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anthropic
import cohere
import httpx
import instructor
import openai
import pytest
from cohere import errors as cohere_errors
from pydantic import BaseModel, Field

from answerx.testing import REDACTED, FakeProviderServer, Reply, Usage, WireFormat
from concurrency_checks import Overlap

API_KEY = "test-key-0123456789"
MESSAGES = [{"role": "user", "content": "What is 2+2?"}]
GOOD = {"answer_value": "4", "confidence": 0.9}


class Answer(BaseModel):
    """The answer to the question."""

    answer_value: str = Field(description="Only the final answer value.")
    confidence: float = Field(ge=0, le=1)


@pytest.fixture
def fake() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


# ------------------------------------------------------------- per-SDK adapters


@dataclass(frozen=True)
class Sdk:
    """How to build, call and read one provider's SDK."""

    wire: WireFormat
    sync_client: Callable[..., Any]
    async_client: Callable[..., Any]
    wrap: Callable[..., Any]
    model: str
    extra: dict[str, Any]
    errors: dict[int, type[Exception]]
    timeout_error: type[Exception]

    def client(self, fake: FakeProviderServer, **options: Any) -> Any:
        return self.sync_client(base_url=fake.base_url(self.wire), api_key=API_KEY, **options)

    def aclient(self, fake: FakeProviderServer, **options: Any) -> Any:
        return self.async_client(base_url=fake.base_url(self.wire), api_key=API_KEY, **options)

    def kwargs(self) -> dict[str, Any]:
        return {"model": self.model, "messages": list(MESSAGES), **self.extra}


def _openai_usage(completion: Any) -> tuple[int, int]:
    return completion.usage.prompt_tokens, completion.usage.completion_tokens


def _anthropic_usage(message: Any) -> tuple[int, int]:
    return message.usage.input_tokens, message.usage.output_tokens


def _cohere_usage(response: Any) -> tuple[int, int]:
    billed = response.usage.billed_units
    assert (response.usage.tokens.input_tokens, response.usage.tokens.output_tokens) == (
        billed.input_tokens,
        billed.output_tokens,
    )
    return int(billed.input_tokens), int(billed.output_tokens)


SDKS: dict[str, Sdk] = {
    "openai": Sdk(
        wire="openai",
        sync_client=openai.OpenAI,
        async_client=openai.AsyncOpenAI,
        wrap=instructor.from_openai,
        model="gpt-test",
        extra={},
        errors={
            400: openai.BadRequestError,
            401: openai.AuthenticationError,
            429: openai.RateLimitError,
            500: openai.InternalServerError,
        },
        timeout_error=openai.APITimeoutError,
    ),
    "anthropic": Sdk(
        wire="anthropic",
        sync_client=anthropic.Anthropic,
        async_client=anthropic.AsyncAnthropic,
        wrap=instructor.from_anthropic,
        model="claude-test",
        extra={"max_tokens": 256},
        errors={
            400: anthropic.BadRequestError,
            401: anthropic.AuthenticationError,
            429: anthropic.RateLimitError,
            500: anthropic.InternalServerError,
        },
        timeout_error=anthropic.APITimeoutError,
    ),
    "cohere": Sdk(
        wire="cohere",
        sync_client=cohere.ClientV2,
        async_client=cohere.AsyncClientV2,
        wrap=instructor.from_cohere,
        model="command-test",
        extra={},
        errors={
            400: cohere_errors.BadRequestError,
            401: cohere_errors.UnauthorizedError,
            429: cohere_errors.TooManyRequestsError,
            500: cohere_errors.InternalServerError,
        },
        # cohere has no timeout class of its own: httpx's escapes unchanged
        timeout_error=httpx.TimeoutException,
    ),
}
USAGE_OF: dict[str, Callable[[Any], tuple[int, int]]] = {
    "openai": _openai_usage,
    "anthropic": _anthropic_usage,
    "cohere": _cohere_usage,
}
PROVIDERS = list(SDKS)


def raw_call(provider: str, client: Any, **kwargs: Any) -> Any:
    """One plain chat call through the SDK, without Instructor."""
    if provider == "openai":
        return client.chat.completions.create(**kwargs)
    if provider == "anthropic":
        return client.messages.create(**kwargs)
    return client.chat(**kwargs)


def wrap(sdk: Sdk, client: Any, mode: instructor.Mode) -> Any:
    """Instructor-wrap a client, failing on any warning (deprecated mode names)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return sdk.wrap(client, mode=mode)


def instructor_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    """Warnings Instructor itself raised (the SDKs' own are not our business)."""
    return [str(w.message) for w in caught if "instructor" in w.filename]


def error_chain(error: BaseException | None) -> list[BaseException]:
    chain: list[BaseException] = []
    while error is not None and len(chain) < 10:
        chain.append(error)
        error = error.__cause__ or error.__context__
    return chain


def assert_no_key_stored(fake: FakeProviderServer) -> None:
    assert fake.requests
    for request in fake.requests:
        assert request.api_key_sent
        assert API_KEY not in repr(request)


# -------------------------------------------------------------- Instructor: tools


@pytest.mark.parametrize("provider", PROVIDERS)
def test_instructor_tools_mode_parses_a_scripted_tool_call(
    fake: FakeProviderServer, provider: str
) -> None:
    sdk = SDKS[provider]
    fake.enqueue(Reply.tool_call(GOOD, usage=(123, 45)))
    client = wrap(sdk, sdk.client(fake, max_retries=0), instructor.Mode.TOOLS)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answer, raw = client.chat.completions.create_with_completion(
            response_model=Answer, **sdk.kwargs()
        )
    assert instructor_warnings(caught) == []

    assert answer.model_dump() == GOOD
    assert USAGE_OF[provider](raw) == (123, 45)
    request = fake.last_request
    assert request.wire == provider
    assert request.model == sdk.model
    if provider == "cohere":
        # Instructor 1.17's Cohere TOOLS mode is prompt-based: no tools are sent,
        # the schema is in the prompt and the payload comes back as JSON text.
        assert not request.has_tools
        assert "Answer" in request.text
    else:
        assert request.tool_names == ["Answer"]
        assert request.forced_tool == "Answer"
    assert_no_key_stored(fake)


def test_openai_sdk_parses_tool_call_and_usage_without_instructor(
    fake: FakeProviderServer,
) -> None:
    fake.enqueue(Reply.tool_call(GOOD, usage=Usage(input_tokens=7, output_tokens=3)))
    tools = [{"type": "function", "function": {"name": "Answer", "parameters": {}}}]
    completion = (
        SDKS["openai"]
        .client(fake)
        .chat.completions.create(model="gpt-test", messages=MESSAGES, tools=tools)
    )
    call = completion.choices[0].message.tool_calls[0]
    assert call.function.name == "Answer"
    assert Answer.model_validate_json(call.function.arguments) == Answer(**GOOD)
    assert completion.choices[0].finish_reason == "tool_calls"
    assert completion.usage.total_tokens == 10
    assert completion.model == "gpt-test"


def test_anthropic_sdk_parses_tool_use_block(fake: FakeProviderServer) -> None:
    fake.enqueue(Reply.tool_call(GOOD))
    message = (
        SDKS["anthropic"]
        .client(fake)
        .messages.create(
            model="claude-test",
            max_tokens=64,
            messages=MESSAGES,
            tools=[{"name": "Answer", "input_schema": {"type": "object"}}],
        )
    )
    block = message.content[0]
    assert isinstance(block, anthropic.types.ToolUseBlock)
    assert (block.name, block.input) == ("Answer", GOOD)
    assert message.stop_reason == "tool_use"


def test_cohere_sdk_parses_tool_calls(fake: FakeProviderServer) -> None:
    fake.enqueue(Reply.tool_call(GOOD, usage=(30, 6)))
    response = (
        SDKS["cohere"]
        .client(fake)
        .chat(
            model="command-test",
            messages=MESSAGES,
            tools=[{"type": "function", "function": {"name": "Answer", "parameters": {}}}],
        )
    )
    assert response.finish_reason == "TOOL_CALL"
    call = response.message.tool_calls[0]
    assert call.function.name == "Answer"
    assert Answer.model_validate_json(call.function.arguments) == Answer(**GOOD)
    assert _cohere_usage(response) == (30, 6)


# ------------------------------------------------------------ Instructor: JSON


JSON_MODES = [
    ("openai", instructor.Mode.JSON, Reply.json(GOOD)),
    ("openai", instructor.Mode.JSON_SCHEMA, Reply.json(GOOD)),
    ("openai", instructor.Mode.MD_JSON, Reply.text(f"Sure:\n```json\n{json.dumps(GOOD)}\n```")),
    ("anthropic", instructor.Mode.JSON, Reply.json(GOOD)),
    ("cohere", instructor.Mode.JSON_SCHEMA, Reply.json(GOOD)),
]


@pytest.mark.parametrize(
    ("provider", "mode", "reply"),
    JSON_MODES,
    ids=[f"{provider}-{mode.name}" for provider, mode, _ in JSON_MODES],
)
def test_instructor_json_modes_parse_json_text(
    fake: FakeProviderServer, provider: str, mode: instructor.Mode, reply: Reply
) -> None:
    sdk = SDKS[provider]
    fake.enqueue(reply)
    client = wrap(sdk, sdk.client(fake, max_retries=0), mode)
    answer = client.chat.completions.create(response_model=Answer, **sdk.kwargs())
    assert answer.model_dump() == GOOD
    request = fake.last_request
    assert not request.has_tools
    if mode is instructor.Mode.JSON and provider == "openai":
        assert request.response_format == {"type": "json_object"}
    elif mode is instructor.Mode.JSON_SCHEMA:
        assert request.response_format["type"] in ("json_schema", "json_object")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_instructor_reasks_after_invalid_json(fake: FakeProviderServer, provider: str) -> None:
    sdk = SDKS[provider]
    fake.enqueue(Reply.invalid_json(usage=(10, 2)), Reply.tool_call(GOOD, usage=(20, 4)))
    client = wrap(sdk, sdk.client(fake, max_retries=0), instructor.Mode.TOOLS)
    answer = client.chat.completions.create(response_model=Answer, max_retries=2, **sdk.kwargs())
    assert answer.model_dump() == GOOD
    first, second = fake.chat_requests
    assert first.reply is not None and first.reply.name == "invalid_json"
    assert len(second.messages) > len(first.messages)  # the re-ask carries the error
    fake.assert_all_consumed()


# -------------------------------------------------------------------- async


@pytest.mark.parametrize("provider", PROVIDERS)
def test_async_clients_parse_a_tool_call(fake: FakeProviderServer, provider: str) -> None:
    sdk = SDKS[provider]
    fake.enqueue(Reply.tool_call(GOOD, usage=(9, 8)))

    async def run() -> tuple[Answer, Any]:
        client = wrap(sdk, sdk.aclient(fake, max_retries=0), instructor.Mode.TOOLS)
        result: tuple[Answer, Any] = await client.chat.completions.create_with_completion(
            response_model=Answer, **sdk.kwargs()
        )
        return result

    answer, raw = asyncio.run(run())
    assert answer.model_dump() == GOOD
    assert USAGE_OF[provider](raw) == (9, 8)


def test_50_concurrent_async_instructor_calls_are_all_in_flight_at_once(
    fake: FakeProviderServer,
) -> None:
    sdk = SDKS["openai"]
    overlap = Overlap(Reply.tool_call(GOOD), together=50, timeout=30)
    fake.set_default(overlap)

    async def run() -> list[Answer]:
        client = wrap(sdk, sdk.aclient(fake, max_retries=0, timeout=60), instructor.Mode.TOOLS)
        return await asyncio.gather(
            *(
                client.chat.completions.create(response_model=Answer, **sdk.kwargs())
                for _ in range(50)
            )
        )

    answers = asyncio.run(run())
    assert [a.model_dump() for a in answers] == [GOOD] * 50
    assert len(fake.chat_requests) == 50
    assert overlap.peak == 50  # each request was held until all 50 were


# ---------------------------------------------------------------------- errors


ERRORS = [
    (400, Reply.reject_tools(), "not supported"),
    (401, Reply.unauthorized(), "invalid API key"),
    (429, Reply.rate_limited(retry_after=0.05), "rate limit"),
    (500, Reply.server_error(), "server had an error"),
]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("status", "reply", "words"), ERRORS, ids=[str(status) for status, _, _ in ERRORS]
)
def test_sdk_raises_its_own_error_class(
    fake: FakeProviderServer, provider: str, status: int, reply: Reply, words: str
) -> None:
    sdk = SDKS[provider]
    fake.enqueue(reply)
    client = sdk.client(fake, max_retries=0)
    with pytest.raises(sdk.errors[status]) as caught:
        raw_call(provider, client, **sdk.kwargs())
    assert words in str(caught.value)
    assert API_KEY not in str(caught.value)
    assert len(fake.requests) == 1  # max_retries=0: no retry


@pytest.mark.parametrize("provider", PROVIDERS)
def test_instructor_lets_sdk_errors_through(fake: FakeProviderServer, provider: str) -> None:
    sdk = SDKS[provider]
    fake.enqueue(Reply.unauthorized())
    client = wrap(sdk, sdk.client(fake, max_retries=0), instructor.Mode.TOOLS)
    with pytest.raises(Exception) as caught:
        client.chat.completions.create(response_model=Answer, max_retries=0, **sdk.kwargs())
    chain = error_chain(caught.value)
    assert any(isinstance(e, sdk.errors[401]) for e in chain), chain


@pytest.mark.parametrize("provider", PROVIDERS)
def test_sdk_retries_honour_retry_after(fake: FakeProviderServer, provider: str) -> None:
    sdk = SDKS[provider]
    # 1.5 s, longer than any SDK's own first backoff (0.5 s openai/anthropic, 1 s ± 10 %
    # cohere): a retry that came this late waited for Retry-After. (A lower bound holds
    # on a loaded machine; "came soon after 50 ms" did not.)
    fake.enqueue(Reply.rate_limited(retry_after=1.5), Reply.tool_call(GOOD))
    client = wrap(sdk, sdk.client(fake, max_retries=2), instructor.Mode.TOOLS)
    answer = client.chat.completions.create(response_model=Answer, **sdk.kwargs())
    assert answer.model_dump() == GOOD
    first, retry = fake.chat_requests
    assert retry.received_at - first.received_at >= 1.5
    if provider != "cohere":
        assert fake.chat_requests[1].headers["x-stainless-retry-count"] == "1"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_sdk_timeout_fires_when_the_server_hangs(fake: FakeProviderServer, provider: str) -> None:
    sdk = SDKS[provider]
    fake.enqueue(Reply.hang(60))  # the SDK's timeout error, not a late answer
    client = wrap(sdk, sdk.client(fake, max_retries=0, timeout=0.2), instructor.Mode.TOOLS)
    with pytest.raises(Exception) as caught:
        client.chat.completions.create(response_model=Answer, max_retries=0, **sdk.kwargs())
    chain = error_chain(caught.value)
    assert any(isinstance(e, sdk.timeout_error) for e in chain), chain


def test_openai_sdk_lists_the_fake_models(fake: FakeProviderServer) -> None:
    models = SDKS["openai"].client(fake).models.list()
    assert [m.id for m in models.data] == ["fake-model"]


def test_recorded_headers_never_hold_the_key(fake: FakeProviderServer) -> None:
    fake.set_default(Reply.text("ok"))
    for provider in PROVIDERS:
        sdk = SDKS[provider]
        raw_call(provider, sdk.client(fake, max_retries=0), **sdk.kwargs())
    assert [r.wire for r in fake.requests] == PROVIDERS
    assert_no_key_stored(fake)
    assert all(
        REDACTED in (r.headers.get("authorization"), r.headers.get("x-api-key"))
        for r in fake.requests
    )
