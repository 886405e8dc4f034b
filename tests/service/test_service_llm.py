"""The LLM endpoints over real HTTP, against the fake provider server (real SDKs, no network).

The service runs in the test process, so it reads the provider settings that
``fake_env`` (conftest) puts in the environment, as a deployed server reads its own.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx
import pytest

from answerx.service import ServiceSettings
from answerx.service.errors import ApiError
from answerx.service.llm import LLMGateway
from answerx.service.metrics import ServiceMetrics
from answerx.service.redaction import SafeLogFilter, secrets_in
from answerx.testing import FakeProviderServer, Reply
from conftest import SECRET_KEY, StartService, samples

COT = {
    "reasoning_type": "chain_of_thought",
    "full_reasoning_text": "Each box holds 12 eggs, so 3 boxes hold 36.",
    "steps": ["3 boxes of 12", "3 * 12 = 36"],
    "answer_value": "The answer is 36.",
    "confidence": 0.9,
}
STRUCTURED = {
    "raw_output": "Each box holds 12 eggs, so 3 boxes hold 36. The answer is 36.",
    "approach": "chain_of_thought",
    "provider": "openai",
    "model": "gpt-test",
    "task": "numeric",
}


@pytest.fixture
def llm_service(fake_env: FakeProviderServer, start_service: StartService) -> str:
    return start_service()


# --------------------------------------------------------------------------- /v1/extract/structured


def test_structured_extraction_returns_the_approach_model_and_the_call_info(
    llm_service: str, fake_env: FakeProviderServer
) -> None:
    fake_env.enqueue(Reply.tool_call(COT, usage=(120, 30)))

    response = httpx.post(llm_service + "/v1/extract/structured", json=STRUCTURED, timeout=30)

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["extraction"]["reasoning_type"] == "chain_of_thought"
    assert body["extraction"]["answer_value"] == "36"  # cleaned, and normalised for numeric
    assert body["extraction"]["steps"] == COT["steps"]
    info = body["call_info"]
    assert (info["provider"], info["model"], info["mode"], info["attempts"]) == (
        "openai", "gpt-test", "tools", 1,
    )  # fmt: skip
    assert info["usage"] == {"input_tokens": 120, "output_tokens": 30}
    sent = fake_env.last_request
    assert sent.model == "gpt-test" and sent.tool_names == ["ChainOfThoughtExtraction"]
    assert sent.api_key_sent  # the server's own key, from its environment


def test_structured_extraction_counts_tokens_and_requests_in_the_metrics(
    llm_service: str, fake_env: FakeProviderServer
) -> None:
    fake_env.enqueue(Reply.tool_call(COT, usage=(120, 30)), Reply.tool_call(COT, usage=(80, 20)))
    for _ in range(2):
        httpx.post(llm_service + "/v1/extract/structured", json=STRUCTURED, timeout=30)

    text = httpx.get(llm_service + "/metrics").text

    tokens = samples(text, "answerx_llm_tokens_total")
    assert tokens['{direction="input",model="gpt-test",provider="openai"}'] == 200
    assert tokens['{direction="output",model="gpt-test",provider="openai"}'] == 50
    calls = samples(text, "answerx_llm_requests_total")
    assert calls['{endpoint="structured",outcome="ok",provider="openai"}'] == 2
    methods = samples(text, "answerx_extractions_total")
    assert methods['{method="structured_llm",task="numeric"}'] == 2


@pytest.mark.parametrize("field", ["api_key", "base_url"])
def test_a_request_cannot_bring_credentials_or_a_url(llm_service: str, field: str) -> None:
    body = {**STRUCTURED, field: "http://attacker.example" if field == "base_url" else "sk-x"}

    response = httpx.post(llm_service + "/v1/extract/structured", json=body)

    assert response.status_code == 422
    assert f"{field}: Extra inputs are not permitted" in response.json()["error"]["message"]


def test_an_unknown_provider_is_a_422_listing_the_configured_ones(llm_service: str) -> None:
    response = httpx.post(
        llm_service + "/v1/extract/structured", json={**STRUCTURED, "provider": "openia"}
    )

    assert response.status_code == 422
    error = response.json()["error"]
    assert error["type"] == "invalid_request"
    assert "unknown provider 'openia'" in error["message"] and "openai" in error["message"]


def test_an_unknown_approach_is_a_422(llm_service: str) -> None:
    response = httpx.post(
        llm_service + "/v1/extract/structured", json={**STRUCTURED, "approach": "vibes"}
    )

    assert response.status_code == 422
    assert "approach" in response.json()["error"]["message"]


def test_a_provider_without_a_key_on_the_server_is_a_502(
    llm_service: str, fake_env: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")

    response = httpx.post(llm_service + "/v1/extract/structured", json=STRUCTURED)

    assert response.status_code == 502
    assert response.json()["error"] == {
        "type": "provider_not_configured",
        "message": "provider 'openai' has no credentials on this server",
    }
    assert fake_env.chat_requests == []


def test_the_local_provider_is_not_started_from_a_request(llm_service: str) -> None:
    response = httpx.post(
        llm_service + "/v1/extract/structured", json={**STRUCTURED, "provider": "local"}
    )

    assert response.status_code == 502
    assert "ANSWERX_LOCAL_URL" in response.json()["error"]["message"]


#: A key of no known shape: only the manager's redaction of the key it holds can hide it.
UNSHAPED_KEY = "notArealKeyJustUnshapedText"


@pytest.mark.parametrize("key", [SECRET_KEY, UNSHAPED_KEY], ids=["sk-shaped", "unshaped"])
def test_a_refused_key_is_a_502_and_the_key_appears_nowhere(
    llm_service: str,
    fake_env: FakeProviderServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    key: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    # Real providers quote (part of) the key they refused.
    fake_env.enqueue(Reply.unauthorized(f"Incorrect API key provided: {key}"))
    caplog.set_level(logging.DEBUG)

    response = httpx.post(llm_service + "/v1/extract/structured", json=STRUCTURED)

    assert response.status_code == 502
    assert response.json()["error"] == {
        "type": "provider_auth_error",
        "message": "openai/gpt-test refused this server's credentials; "
        "the server's operator must fix them",
        "attempts": 1,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    assert fake_env.last_request.api_key_sent  # the key did reach the provider
    out, err = capfd.readouterr()
    shown = "\n".join([response.text, str(response.headers), caplog.text, out, err])
    assert key not in shown
    assert key[:12] not in shown
    assert "provider call failed: ProviderAuthError" in caplog.text
    ours = [r for r in caplog.records if r.name.startswith(("answerx", "uvicorn"))]
    assert ours and not any(r.exc_info or r.stack_info for r in ours)


@pytest.mark.parametrize("endpoint", ["/v1/extract/structured", "/v1/ask"])
def test_a_provider_error_quoting_the_key_is_not_passed_on_in_a_success(
    llm_service: str, fake_env: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, endpoint: str
) -> None:
    # The first mode is refused with a message that quotes the key; the fallback mode
    # answers. The refusal is the CallInfo's fallback_reason, which the answer carries.
    monkeypatch.setenv("OPENAI_API_KEY", UNSHAPED_KEY)
    fake_env.enqueue(
        Reply.error(400, f"tools are not supported for key {UNSHAPED_KEY}"),
        Reply.text('{"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 1}'),
    )
    body = {"provider": "openai", "approach": "none"}
    body |= {"question": "2 + 2?"} if endpoint == "/v1/ask" else {"raw_output": "It is 4."}

    response = httpx.post(llm_service + endpoint, json=body, timeout=30)

    assert response.status_code == 200, response.text
    assert len(fake_env.chat_requests) == 2  # the fallback did happen
    assert UNSHAPED_KEY not in response.text
    if endpoint == "/v1/extract/structured":
        reason = response.json()["call_info"]["fallback_reason"]
        assert reason == "HTTP 400: tools are not supported for key ***"


def test_a_failed_call_reports_its_attempts_and_tokens(
    llm_service: str, fake_env: FakeProviderServer
) -> None:
    # Both modes get an object that fails validation: tokens spent, no result.
    bad = Reply.tool_call({"reasoning_type": "chain_of_thought"}, usage=(100, 10))
    fake_env.set_default(bad)

    response = httpx.post(llm_service + "/v1/extract/structured", json=STRUCTURED, timeout=30)

    assert response.status_code == 502, response.text
    error = response.json()["error"]
    assert error["type"] == "provider_error"
    attempts = error["attempts"]
    assert attempts >= 2 and len(fake_env.chat_requests) == attempts
    assert error["usage"] == {"input_tokens": 100 * attempts, "output_tokens": 10 * attempts}
    text = httpx.get(llm_service + "/metrics").text
    tokens = samples(text, "answerx_llm_tokens_total")
    assert tokens['{direction="input",model="gpt-test",provider="openai"}'] == 100 * attempts
    calls = samples(text, "answerx_llm_requests_total")
    assert calls['{endpoint="structured",outcome="StructuredOutputError",provider="openai"}'] == 1


def test_a_provider_that_does_not_answer_in_time_is_a_504(
    fake_env: FakeProviderServer, start_service: StartService
) -> None:
    url = start_service(llm_timeout_s=0.5)
    fake_env.enqueue(Reply.hang(5))

    response = httpx.post(url + "/v1/extract/structured", json=STRUCTURED, timeout=30)

    assert response.status_code == 504
    assert response.json()["error"]["type"] in {"timeout", "provider_timeout"}


async def _post_all(url: str, n: int, body: dict[str, Any]) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        return await asyncio.gather(
            *(client.post("/v1/extract/structured", json=body) for _ in range(n))
        )


def test_llm_requests_beyond_the_concurrency_limit_get_429_with_retry_after(
    fake_env: FakeProviderServer, start_service: StartService
) -> None:
    url = start_service(llm_concurrency=2, retry_after_s=3)
    fake_env.set_default(Reply.tool_call(COT, delay=1.0))

    responses = asyncio.run(_post_all(url, 5, STRUCTURED))

    assert sorted(r.status_code for r in responses) == [200, 200, 429, 429, 429]
    refused = [r for r in responses if r.status_code == 429]
    assert all(r.headers["retry-after"] == "3" for r in refused)
    assert refused[0].json()["error"]["type"] == "too_many_requests"
    assert "limit of 2 LLM requests" in refused[0].json()["error"]["message"]
    # The slots are free again afterwards.
    fake_env.set_default(Reply.tool_call(COT))
    assert httpx.post(url + "/v1/extract/structured", json=STRUCTURED).status_code == 200
    assert httpx.get(url + "/readyz").json()["llm_calls_in_flight"] == 0


def test_managers_are_reused_per_provider_and_model(fake_env: FakeProviderServer) -> None:
    gateway = LLMGateway(ServiceSettings(), ServiceMetrics())

    first = gateway.manager("openai", None)

    assert gateway.manager("openai", "gpt-4o-mini") is first  # the provider's default model
    assert gateway.manager("openai", "gpt-test") is not first
    with pytest.raises(ApiError) as caught:
        gateway.manager("nope", None)
    assert caught.value.status == 422


# --------------------------------------------------------------------------- /v1/ask


def test_ask_returns_the_standard_response(llm_service: str, fake_env: FakeProviderServer) -> None:
    answer = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
    fake_env.enqueue(Reply.tool_call(answer, usage=(50, 10)))

    response = httpx.post(
        llm_service + "/v1/ask",
        json={"question": "What is 2 + 2?", "approach": "none", "provider": "openai"},
        timeout=30,
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["extracted_answer"] == "4"
    assert (body["provider"], body["model"]) == ("openai", "gpt-4o-mini")
    assert body["usage"] == {"input_tokens": 50, "output_tokens": 10}
    assert body["metadata"]["reasoning_type"] == "none"
    assert body["metadata"]["strategy"] == "structured"
    tokens = samples(httpx.get(llm_service + "/metrics").text, "answerx_llm_tokens_total")
    assert tokens['{direction="input",model="gpt-4o-mini",provider="openai"}'] == 50


def test_ask_two_stage_extracts_the_answer_from_free_text(
    llm_service: str, fake_env: FakeProviderServer
) -> None:
    fake_env.enqueue(Reply.text("Jupiter is by far the largest planet. The answer is B."))

    response = httpx.post(
        llm_service + "/v1/ask",
        json={
            "question": "Which planet is largest?",
            "approach": "chain_of_thought",
            "strategy": "two_stage",
            "provider": "openai",
            "task": "multiple_choice",
            "choices": ["Mars", "Jupiter", "Venus"],
        },
        timeout=30,
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["extracted_answer"] == "B"
    assert body["metadata"]["stage"] == "deterministic"
    assert len(fake_env.chat_requests) == 1


def test_ask_with_an_unknown_strategy_is_a_422(llm_service: str) -> None:
    response = httpx.post(
        llm_service + "/v1/ask",
        json={"question": "2 + 2?", "provider": "openai", "strategy": "three_stage"},
    )

    assert response.status_code == 422
    assert "(got 'three_stage')" in response.json()["error"]["message"]


# --------------------------------------------------------------------------- hostile requests


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_an_llm_request_not_sent_as_json_is_refused_before_any_call(
    llm_service: str, fake_env: FakeProviderServer, content_type: str | None
) -> None:
    # A web page can make a browser POST these without a CORS preflight: a server on
    # 127.0.0.1 without a token must not spend its credits for it.
    headers = {"content-type": content_type} if content_type else {}
    body = json.dumps({"question": "2 + 2?", "provider": "openai"}).encode()

    response = httpx.post(llm_service + "/v1/ask", content=body, headers=headers)

    assert response.status_code == 415
    assert response.json()["error"]["type"] == "unsupported_media_type"
    assert fake_env.chat_requests == []


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("question", "What is \ud800?", "question: "),
        ("question", " \x1c\u3000\n", "question: Value error, must contain more than whitespace"),
        ("raw_output", "\ud800", "lone surrogate"),
        ("model", "m" * 201, "at most 200 characters"),
        ("provider", "p" * 201, "at most 200 characters"),
    ],
)
def test_an_llm_request_with_bad_text_is_a_422_before_any_call(
    llm_service: str, fake_env: FakeProviderServer, field: str, value: str, problem: str
) -> None:
    endpoint = "/v1/extract/structured" if field == "raw_output" else "/v1/ask"
    body = {"provider": "openai", **({} if field == "raw_output" else {"question": "2?"})}
    body[field] = value

    response = httpx.post(
        llm_service + endpoint,
        content=json.dumps(body).encode(),  # json.dumps writes a lone surrogate as \ud800
        headers={"content-type": "application/json"},
    )

    assert response.status_code == 422
    assert problem in response.json()["error"]["message"]
    assert fake_env.chat_requests == []


def test_choices_without_a_task_make_a_multiple_choice_question(
    llm_service: str, fake_env: FakeProviderServer
) -> None:
    fake_env.enqueue(
        Reply.tool_call({"full_reasoning_text": "Jupiter.", "answer_value": "B", "confidence": 1})
    )
    body = {
        "raw_output": "Jupiter is the largest.",
        "provider": "openai",
        "choices": ["Mars", "Jupiter", "Venus"],
    }

    response = httpx.post(llm_service + "/v1/extract/structured", json=body, timeout=30)

    assert response.status_code == 200, response.text
    assert response.json()["extraction"]["answer_value"] == "B"
    sent = json.dumps(fake_env.last_request.body)
    assert '"enum": ["A", "B", "C"]' in sent  # the answer was bound to the letters


# --------------------------------------------------------------------------- key fragments

#: A 51-character key, like OpenAI's project keys.
LONG_KEY = "sk-proj-4fJ9q2LxT7vB1mN8cR3eW6yZ0aK5hD2gU9iO4pS7tQ1"


def _fragments(key: str) -> list[str]:
    """Every 8-character piece of ``key``: none may be shown anywhere."""
    return [key[i : i + 8] for i in range(len(key) - 7)]


def _echoing(field: str) -> Any:
    """A provider that puts the ``Authorization`` header it received into ``field`` of
    its answer. The fake records headers redacted, so the echo is of the key the test
    configured, once the fake has seen it sent."""

    def respond(request: Any) -> Reply:
        assert request.api_key_sent
        return Reply.tool_call({**COT, field: f"Bearer {LONG_KEY}"}, usage=(10, 5))

    return respond


def test_a_provider_echoing_the_key_into_an_invalid_object_leaks_no_piece_of_it(
    llm_service: str,
    fake_env: FakeProviderServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    # The probe's case: pydantic quotes the echo cut short, input_value='Bearer sk-
    # proj-4fJ9q2LxT...' plus its last characters, which whole-key redaction missed.
    monkeypatch.setenv("OPENAI_API_KEY", LONG_KEY)
    fake_env.set_default(_echoing("confidence"))  # a float field: every mode fails
    caplog.set_level(logging.DEBUG)
    # As `answerx serve` configures its log handlers (this server runs in the test).
    caplog.handler.addFilter(SafeLogFilter(secrets_in()))

    response = httpx.post(llm_service + "/v1/extract/structured", json=STRUCTURED, timeout=30)

    assert response.status_code == 502, response.text
    error = response.json()["error"]
    assert error["type"] == "provider_error"
    assert error["message"].startswith("openai/gpt-test gave no valid answer object in any mode")
    assert "input_value" not in error["message"]  # what was wrong, never the value
    out, err = capfd.readouterr()
    shown = "\n".join([response.text, caplog.text, out, err])
    assert "provider call failed: StructuredOutputError" in caplog.text
    assert "input_value='Bearer ***" in caplog.text  # the log keeps the detail, redacted
    assert [piece for piece in _fragments(LONG_KEY) if piece in shown] == []


@pytest.mark.parametrize("endpoint", ["/v1/extract/structured", "/v1/ask"])
def test_an_answer_echoing_the_key_is_passed_on_without_any_piece_of_it(
    llm_service: str, fake_env: FakeProviderServer, monkeypatch: pytest.MonkeyPatch, endpoint: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", LONG_KEY)
    fake_env.set_default(_echoing("full_reasoning_text"))  # a text field: a valid answer
    body = {"provider": "openai", "approach": "chain_of_thought", "model": "gpt-test"}
    body |= {"question": "3 boxes of 12?"} if endpoint == "/v1/ask" else {"raw_output": "36"}

    response = httpx.post(llm_service + endpoint, json=body, timeout=30)

    assert response.status_code == 200, response.text
    assert "Bearer ***" in response.text  # the echo arrived, and was redacted
    assert [piece for piece in _fragments(LONG_KEY) if piece in response.text] == []
    response.json()  # still JSON
