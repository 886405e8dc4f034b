"""InstructorClientManager.create: the mode chain, what CallInfo records, and the wire.

Real SDKs and Instructor talk HTTP to the fake provider server; the recorded
requests show what each mode actually sent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from answerx.structured import InstructorClientManager
from answerx.structured.callinfo import ModeAttempt, Usage
from answerx.structured.models import ReasoningExtraction
from answerx.structured.providers import get_provider
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]
TOOL = "ReasoningExtraction"

#: The default chain of each provider (config/providers.yaml).
CHAINS = {
    "anthropic": ("tools", "json"),
    "openai": ("tools", "json_schema", "json"),
    "openrouter": ("tools", "json"),
    "cohere": ("tools", "json_schema"),
    "local-openai": ("tools", "json_with_schema", "md_json"),
}


def _fenced(obj: dict[str, Any]) -> str:
    return f"Here it is:\n```json\n{json.dumps(obj)}\n```"


def _good_reply(mode: str) -> Reply:
    """A valid answer as a model in ``mode`` writes it."""
    return Reply.text(_fenced(GOOD)) if mode == "md_json" else Reply.tool_call(GOOD)


def assert_wire_shape(request: RecordedRequest, sdk: str, mode: str) -> None:
    """The request looks like what ``mode`` sends with ``sdk``."""
    body = request.json
    if mode == "tools":
        if sdk == "openai":
            assert request.tool_names == [TOOL]
            assert body["tool_choice"] == {"type": "function", "function": {"name": TOOL}}
            assert "response_format" not in body
        elif sdk == "anthropic":
            assert request.tool_names == [TOOL]
            assert body["tool_choice"]["type"] == "tool"
            assert body["tool_choice"]["name"] == TOOL
        else:  # Instructor 1.17's Cohere TOOLS mode puts the schema in the prompt
            assert not request.has_tools
            assert f"Extract a valid {TOOL} object" in request.text
        return
    assert not request.has_tools, f"{mode} must not offer tools"
    if mode == "json_schema":
        if sdk == "openai":
            assert body["response_format"]["type"] == "json_schema"
            assert body["response_format"]["json_schema"]["name"] == TOOL
            schema = body["response_format"]["json_schema"]["schema"]
        else:  # Cohere v2: a JSON object constrained by the schema
            assert body["response_format"]["type"] == "json_object"
            schema = body["response_format"]["schema"]
        assert set(schema["required"]) == {"full_reasoning_text", "answer_value", "confidence"}
    elif mode == "json":
        if sdk == "openai":
            assert body["response_format"] == {"type": "json_object"}
        else:  # Anthropic: the schema goes into the system prompt
            assert "answer_value" in json.dumps(body["system"])
    elif mode == "json_with_schema":
        assert body["response_format"] == {
            "type": "json_object",
            "schema": ReasoningExtraction.model_json_schema(),
        }
    elif mode == "md_json":
        assert "response_format" not in body
        assert "answer_value" in request.text  # the schema is in the prompt
    else:  # pragma: no cover - a new mode needs a row here
        raise AssertionError(f"no wire check for mode {mode!r}")


# ----------------------------------------------------------------- first mode works


def test_chains_in_these_tests_match_the_provider_config() -> None:
    assert {name: get_provider(name).modes for name in CHAINS} == CHAINS


def test_tools_mode_returns_the_parsed_model_with_call_info(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD, usage=(123, 45)))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert isinstance(result, ReasoningExtraction)
    assert (result.answer_value, result.confidence) == ("4", 0.9)
    assert result.full_reasoning_text == "2 + 2 = 4"
    assert info.provider == provider
    assert info.model == f"{provider}-test-model"
    assert info.mode == "tools"
    assert info.modes_tried == (ModeAttempt(mode="tools", ok=True, requests=1),)
    assert info.attempts == 1
    assert info.fallback_reason is None
    assert not info.fell_back
    assert info.usage == Usage(input_tokens=123, output_tokens=45)
    assert info.latency_s > 0
    (request,) = fake_provider.chat_requests
    assert request.model == f"{provider}-test-model"
    assert request.api_key_sent
    assert "What is 2 + 2?" in request.text
    assert_wire_shape(request, manager.spec.sdk, "tools")


#: Options each SDK's create() accepts (anthropic 2.x has no ``temperature``).
OPTIONS: dict[str, dict[str, Any]] = {
    "openai": {"temperature": 0.0, "max_tokens": 77},
    "anthropic": {"stop_sequences": ["</answer>"], "max_tokens": 77},
    "cohere": {"temperature": 0.0, "max_tokens": 77},
}


def test_provider_options_are_sent_on_the_wire(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    options = OPTIONS[manager.spec.sdk]
    fake_provider.enqueue(Reply.tool_call(GOOD))

    manager.create(MESSAGES, ReasoningExtraction, **options)

    body = fake_provider.last_request.json
    assert {name: body[name] for name in options} == options


def test_max_tokens_defaults_to_the_provider_setting(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD))

    manager.create(MESSAGES, ReasoningExtraction)

    assert fake_provider.last_request.json["max_tokens"] == manager.spec.max_tokens == 1024


@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
def test_the_providers_default_model_is_used_when_none_is_given(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str
) -> None:
    manager = make_manager(provider, model=None)
    fake_provider.enqueue(Reply.tool_call(GOOD))

    _, info = manager.create(MESSAGES, ReasoningExtraction)

    default = get_provider(provider).default_model
    assert info.model == default
    assert fake_provider.last_request.model == default


def test_a_second_call_reports_only_its_own_requests_and_usage(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.invalid_json(usage=(50, 5)),
        Reply.tool_call(GOOD, usage=(60, 6)),
        Reply.tool_call(GOOD, usage=(7, 3)),
    )

    _, first = manager.create(MESSAGES, ReasoningExtraction)
    _, second = manager.create(MESSAGES, ReasoningExtraction)

    assert (first.attempts, first.usage) == (2, Usage(input_tokens=110, output_tokens=11))
    assert (second.attempts, second.usage) == (1, Usage(input_tokens=7, output_tokens=3))
    assert second.modes_tried == (ModeAttempt(mode="tools", ok=True, requests=1),)


# ----------------------------------------------------------------- fallback


def test_rejected_tools_fall_back_to_the_next_mode_and_say_why(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    second = CHAINS[provider][1]
    fake_provider.enqueue(Reply.reject_tools(), _good_reply(second))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert result.answer_value == "4"
    assert info.mode == second
    assert info.fell_back
    assert [(m.mode, m.ok, m.requests) for m in info.modes_tried] == [
        ("tools", False, 1),
        (second, True, 1),
    ]
    assert "tools are not supported by this model" in (info.modes_tried[0].reason or "")
    assert info.fallback_reason == info.modes_tried[0].reason
    assert "400" in (info.fallback_reason or "")
    assert info.attempts == 2
    tools_request, fallback_request = fake_provider.chat_requests
    assert_wire_shape(tools_request, manager.spec.sdk, "tools")
    assert_wire_shape(fallback_request, manager.spec.sdk, second)


def test_openai_falls_back_to_plain_json_mode_when_json_schema_is_rejected(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai")
    fake_provider.enqueue(Reply.reject_tools(), Reply.reject_response_format(), Reply.json(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode) == ("4", "json")
    assert [m.mode for m in info.modes_tried] == ["tools", "json_schema", "json"]
    assert "response_format is not supported" in (info.modes_tried[1].reason or "")
    assert info.fallback_reason is not None and "tools" in info.fallback_reason
    requests = fake_provider.chat_requests
    for request, mode in zip(requests, ["tools", "json_schema", "json"], strict=True):
        assert_wire_shape(request, "openai", mode)


def test_local_openai_sends_the_schema_in_response_format_when_tools_are_rejected(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("local-openai")
    fake_provider.enqueue(Reply.reject_tools(), Reply.json(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode) == ("4", "json_with_schema")
    body = fake_provider.chat_requests[1].json
    assert body["response_format"] == {
        "type": "json_object",
        "schema": ReasoningExtraction.model_json_schema(),
    }
    assert "tools" not in body and "tool_choice" not in body


def test_local_openai_falls_back_to_markdown_json_when_response_format_is_rejected(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("local-openai")
    fake_provider.enqueue(
        Reply.reject_tools(),
        Reply.reject_response_format(message="response_format.schema: grammar not supported"),
        Reply.text(_fenced(GOOD), usage=(30, 9)),
    )

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode) == ("4", "md_json")
    assert [(m.mode, m.ok) for m in info.modes_tried] == [
        ("tools", False),
        ("json_with_schema", False),
        ("md_json", True),
    ]
    assert "grammar not supported" in (info.modes_tried[1].reason or "")
    assert info.attempts == 3
    assert info.usage == Usage(input_tokens=30, output_tokens=9)
    for request, mode in zip(fake_provider.chat_requests, CHAINS["local-openai"], strict=True):
        assert_wire_shape(request, "openai", mode)


def test_a_reply_without_a_tool_call_falls_back_after_the_reasks(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    second = CHAINS[provider][1]
    prose = Reply.text("I think the answer is 4.", usage=(10, 4))
    tries = manager.max_retries + 1
    fake_provider.enqueue(*[prose] * tries, _good_reply(second))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode) == ("4", second)
    assert info.modes_tried[0].mode == "tools"
    assert info.modes_tried[0].requests == tries
    assert info.attempts == tries + 1
    assert info.usage.input_tokens == 10 * tries + 10


REJECTIONS = [
    pytest.param(400, "tools are not supported by this model", id="400-tools"),
    pytest.param(404, "tool use is not supported for this model", id="404-tool-use"),
    pytest.param(422, "Invalid schema for function 'ReasoningExtraction'", id="422-schema"),
    pytest.param(500, "this model does not support tools", id="500-tools"),
]


@pytest.mark.parametrize(("status", "message"), REJECTIONS)
def test_a_status_that_rejects_the_mode_falls_back_at_once_without_a_retry(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    provider: str,
    status: int,
    message: str,
) -> None:
    second = CHAINS[provider][1]
    fake_provider.enqueue(Reply.error(status, message), _good_reply(second))

    _, info = manager.create(MESSAGES, ReasoningExtraction)

    assert info.mode == second
    assert info.modes_tried[0].requests == 1  # not retried as a transient failure
    assert info.fallback_reason == f"HTTP {status}: {message}"
    assert len(fake_provider.chat_requests) == 2


# ----------------------------------------------------------------- each mode alone

FORCED_MODES = [
    pytest.param(
        provider,
        mode,
        id=f"{provider}-{mode}",
    )
    for provider in CHAINS
    for mode in sorted(get_provider(provider).adapter.modes)
]


@pytest.mark.parametrize(("provider", "mode"), FORCED_MODES)
def test_each_mode_the_provider_allows_produces_the_object_with_its_own_wire_shape(
    make_manager: Any, fake_provider: FakeProviderServer, provider: str, mode: str
) -> None:
    manager = make_manager(provider, modes=[mode])
    fake_provider.enqueue(_good_reply(mode))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode, info.attempts) == ("4", mode, 1)
    assert_wire_shape(fake_provider.last_request, manager.spec.sdk, mode)


def test_a_mode_override_replaces_the_providers_chain(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai", modes=["json", "md_json"])
    fake_provider.enqueue(Reply.reject_response_format(), Reply.text(_fenced(GOOD)))

    _, info = manager.create(MESSAGES, ReasoningExtraction)

    assert manager.modes == ("json", "md_json")
    assert [m.mode for m in info.modes_tried] == ["json", "md_json"]
    assert_wire_shape(fake_provider.chat_requests[0], "openai", "json")
    assert_wire_shape(fake_provider.chat_requests[1], "openai", "md_json")
