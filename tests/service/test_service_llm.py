"""The LLM endpoints over real HTTP, against the fake provider server (real SDKs, no network).

The service runs in the test process, so it reads the provider settings that
``fake_env`` puts in the environment, as a deployed server reads its own.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import pytest

from answerx.service import ServiceSettings
from answerx.service.errors import ApiError
from answerx.service.llm import LLMGateway
from answerx.service.metrics import ServiceMetrics
from answerx.testing import FakeProviderServer, Reply
from conftest import SECRET_KEY, StartService

pytestmark = pytest.mark.filterwarnings(
    "ignore:The `__fields__` attribute is deprecated:DeprecationWarning"
)

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
def fake_env(
    clean_provider_env: None, fake_provider: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> FakeProviderServer:
    """The fake provider, with the SDKs' URL and key variables pointing at it."""
    for name, value in fake_provider.env(api_key=SECRET_KEY).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)
    return fake_provider


@pytest.fixture
def llm_service(fake_env: FakeProviderServer, start_service: StartService) -> str:
    return start_service()


def _samples(text: str, name: str) -> dict[str, float]:
    found = {}
    for line in text.splitlines():
        if line.startswith(name + "{"):
            labels, value = line[len(name) :].rsplit(" ", 1)
            found[labels] = float(value)
    return found


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

    tokens = _samples(text, "answerx_llm_tokens_total")
    assert tokens['{direction="input",model="gpt-test",provider="openai"}'] == 200
    assert tokens['{direction="output",model="gpt-test",provider="openai"}'] == 50
    calls = _samples(text, "answerx_llm_requests_total")
    assert calls['{endpoint="structured",outcome="ok",provider="openai"}'] == 2
    methods = _samples(text, "answerx_extractions_total")
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


def test_a_refused_key_is_a_502_and_the_key_appears_nowhere(
    llm_service: str,
    fake_env: FakeProviderServer,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    # Real providers quote (part of) the key they refused.
    fake_env.enqueue(Reply.unauthorized(f"Incorrect API key provided: {SECRET_KEY}"))
    caplog.set_level(logging.DEBUG)

    response = httpx.post(llm_service + "/v1/extract/structured", json=STRUCTURED)

    assert response.status_code == 502
    assert response.json()["error"] == {
        "type": "provider_auth_error",
        "message": "openai/gpt-test refused this server's credentials; "
        "the server's operator must fix them",
    }
    out, err = capfd.readouterr()
    shown = "\n".join([response.text, str(response.headers), caplog.text, out, err])
    assert SECRET_KEY not in shown
    assert SECRET_KEY[:12] not in shown
    assert "provider call failed: ProviderAuthError" in caplog.text
    ours = [r for r in caplog.records if r.name.startswith(("answerx", "uvicorn"))]
    assert ours and not any(r.exc_info or r.stack_info for r in ours)


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
    tokens = _samples(httpx.get(llm_service + "/metrics").text, "answerx_llm_tokens_total")
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
