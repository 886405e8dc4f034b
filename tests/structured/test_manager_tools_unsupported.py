"""Each provider's real "tools not supported" error, as its server sends it, moves the call to
the next structured-output mode at once; any other 400 still stops it (a request that fails
for another reason would fail in every mode, and a wrong key must never be retried).

The bodies are the providers' own, verbatim in wording and shape: OpenRouter's routing
errors and a routed provider's error passed on in ``metadata.raw``; local OpenAI-compatible
servers without tool support (vLLM, llama.cpp, Ollama); Cohere's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from answerx.errors import ProviderRequestError
from answerx.structured.models import ReasoningExtraction
from answerx.testing import FakeProviderServer, Reply
from fake_managers import MakeManager

GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]


def _openrouter_upstream(raw: dict[str, Any], provider_name: str) -> dict[str, Any]:
    """OpenRouter passes a routed provider's error on as a JSON text in metadata.raw."""
    return {
        "error": {
            "message": "Provider returned error", "code": 400,
            "metadata": {"raw": json.dumps(raw), "provider_name": provider_name},
        },
        "user_id": "user_2x0000000000000000000000000",
    }  # fmt: skip


REFUSALS = [
    pytest.param(
        "openrouter", 404,
        {"error": {"message": "No endpoints found that support tool use. To learn more about "
                   "provider routing, visit: https://openrouter.ai/docs/provider-routing",
                   "code": 404}},
        "No endpoints found that support tool use", id="openrouter-no-endpoint-with-tools",
    ),
    pytest.param(
        "openrouter", 404,
        {"error": {"message": "No endpoints found that support the provided 'tool_choice' value. "
                   "To learn more about provider routing, visit: "
                   "https://openrouter.ai/docs/provider-routing", "code": 404}},
        "the provided 'tool_choice' value", id="openrouter-tool-choice",
    ),
    pytest.param(
        "openrouter", 400,
        _openrouter_upstream({"code": 400, "reason": "INVALID_REQUEST_BODY",
                              "message": "model features function calling not support",
                              "metadata": {}}, "Novita"),
        "Provider returned error: model features function calling not support",
        id="openrouter-routed-model-400",
    ),
    pytest.param(
        "local-openai", 400,
        {"object": "error", "message": '"auto" tool choice requires --enable-auto-tool-choice '
         "and --tool-call-parser to be set", "type": "BadRequestError", "param": None,
         "code": 400},
        "--enable-auto-tool-choice", id="vllm-without-tool-parser",
    ),
    pytest.param(
        "local-openai", 500,
        {"error": {"code": 500, "message": "tools param requires --jinja flag",
                   "type": "server_error"}},
        "tools param requires --jinja flag", id="llama.cpp-without-jinja",
    ),
    pytest.param(
        "local-openai", 500,
        {"error": {"code": 500, "message": "Unsupported param: tools", "type": "server_error"}},
        "Unsupported param: tools", id="llama.cpp-unsupported-param",
    ),
    pytest.param(
        "local-openai", 400,
        {"error": {"message": "registry.ollama.ai/library/smollm2:135m does not support tools",
                   "type": "api_error", "param": None, "code": None}},
        "does not support tools", id="ollama-openai-endpoint",
    ),
    pytest.param(
        "local-openai", 400,
        {"error": "registry.ollama.ai/library/gemma2:latest does not support tools"},
        "gemma2:latest does not support tools", id="ollama-bare-error",
    ),
    pytest.param(
        "cohere", 400,
        {"message": "invalid request: tool use is not supported by the provided model: "
                    "command-light."},
        "tool use is not supported by the provided model", id="cohere-model-without-tools",
    ),
    pytest.param(
        "cohere", 422, {"message": "No valid tool call or response generated"},
        "No valid tool call", id="cohere-no-valid-tool-call",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("provider", "status", "body", "wording"), REFUSALS)
def test_a_real_tools_refusal_falls_back_to_the_next_mode_at_once(
    make_manager: MakeManager,
    fake_provider: FakeProviderServer,
    provider: str,
    status: int,
    body: dict[str, Any],
    wording: str,
) -> None:
    manager = make_manager(provider)
    fake_provider.enqueue(Reply.raw(json.dumps(body), status=status), Reply.tool_call(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert result.answer_value == "4"
    assert info.mode == manager.fallback_mode != "tools"
    assert info.modes_tried[0].requests == 1  # classified at once: no transient retry of a 500
    assert wording in (info.fallback_reason or "")
    assert len(fake_provider.chat_requests) == 2


UNRELATED = [
    pytest.param(
        "openrouter",
        _openrouter_upstream(
            {"error": {"type": "invalid_request_error", "code": "invalid_request_error",
                       "message": "Model 'moonshotai/kimi-k2.6' supports at most 1 image per "
                                  "prompt."}}, "Crucible"),
        "supports at most 1 image", id="openrouter-routed-other-400",
    ),
    pytest.param(
        "local-openai",
        {"object": "error", "message": "This model's maximum context length is 4096 tokens.",
         "type": "BadRequestError", "param": None, "code": 400},
        "maximum context length", id="vllm-context-length",
    ),
    pytest.param(
        "cohere", {"message": "invalid request: temperature must be between 0 and 5"},
        "temperature must be", id="cohere-bad-parameter",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("provider", "body", "wording"), UNRELATED)
def test_an_unrelated_400_is_raised_without_trying_another_mode(
    make_manager: MakeManager,
    fake_provider: FakeProviderServer,
    provider: str,
    body: dict[str, Any],
    wording: str,
) -> None:
    manager = make_manager(provider)
    fake_provider.enqueue(Reply.raw(json.dumps(body), status=400), Reply.tool_call(GOOD))

    with pytest.raises(ProviderRequestError, match=wording) as caught:
        manager.create(MESSAGES, ReasoningExtraction)

    assert caught.value.status_code == 400
    assert len(fake_provider.chat_requests) == 1
