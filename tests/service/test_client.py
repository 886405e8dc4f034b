"""``answerx.client``: Client and AsyncClient against a live service, as a notebook uses them."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

import answerx
from answerx.client import AsyncClient, Client, ServiceError
from answerx.errors import AnswerxError
from answerx.reasoning import StandardResponse
from answerx.service.schemas import ExtractRequest
from answerx.structured import ChainOfThoughtExtraction
from answerx.testing import FakeProviderServer, Reply
from conftest import SECRET_KEY, StartService

TOKEN = "client-test-token"
OUTPUT = "Each box holds 12 eggs, so 3 boxes hold 36. The answer is 36."


def test_extract_returns_the_same_extraction_as_the_library(service: str) -> None:
    with Client(service) as client:
        extraction = client.extract(OUTPUT, task="numeric")

    assert extraction == answerx.extract(OUTPUT, "numeric")
    assert isinstance(extraction, answerx.Extraction)


def test_extract_passes_choices_and_numbers(service: str) -> None:
    with Client(service) as client:
        letter = client.extract("The answer is Venus.", choices=["Mars", "Venus"])
        expression = client.extract("Output: (10 - 4) * (13 - 9)", numbers=[4, 9, 10, 13])

    assert (letter.answer, letter.task) == ("B", "multiple_choice")
    assert (expression.answer, expression.task) == ("(10 - 4) * (13 - 9)", "game24")


def test_a_batch_takes_strings_dicts_and_requests_and_keeps_their_order(service: str) -> None:
    with Client(service) as client:
        batch = client.extract_batch(
            [
                "#### 72",
                {"raw_output": "\\boxed{5}", "task": "math"},
                ExtractRequest(raw_output="<answer>Paris</answer>", task="text"),
                {"raw_output": "x", "task": "poetry"},
            ],
            task="numeric",
        )

    assert [r.extraction.answer if r.extraction else None for r in batch.results] == [
        "72", "5", "Paris", None,
    ]  # fmt: skip
    assert batch.results[0].extraction is not None
    assert batch.results[0].extraction.task == "numeric"
    assert [r.ok for r in batch.results] == [True, True, True, False]
    assert batch.results[3].error is not None and "poetry" in batch.results[3].error.message
    assert (batch.succeeded, batch.failed) == (3, 1)


def test_metadata_methods(service: str) -> None:
    with Client(service) as client:
        assert client.health().status == "ok"
        assert "chain_of_thought" in client.approaches().approaches
        assert client.tasks().default == "auto"


def test_an_error_answer_raises_service_error_with_the_servers_message(service: str) -> None:
    with Client(service) as client, pytest.raises(ServiceError) as caught:
        client.extract("4", task="algebra")

    error = caught.value
    assert isinstance(error, AnswerxError)
    assert (error.status_code, error.error_type) == (422, "validation_error")
    assert "(got 'algebra')" in error.message and str(error).startswith("422 validation_error: ")


def test_the_token_is_sent_and_never_shown(start_service: StartService) -> None:
    url = start_service(api_token=TOKEN)

    with Client(url, token=TOKEN) as client:
        assert client.extract("#### 3").answer == "3"
        assert TOKEN not in repr(client)
    with Client(url) as anonymous, pytest.raises(ServiceError) as caught:
        anonymous.extract("#### 3")

    assert (caught.value.status_code, caught.value.error_type) == (401, "unauthorized")


def test_an_unreachable_service_raises_service_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    with (
        Client(f"http://127.0.0.1:{port}", timeout=2) as client,
        pytest.raises(ServiceError) as caught,
    ):
        client.health()

    assert (caught.value.status_code, caught.value.error_type) == (None, "connection_error")


def test_retry_after_and_non_service_error_bodies() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/tasks":
            return httpx.Response(
                429,
                headers={"retry-after": "2"},
                json={"error": {"type": "too_many_requests", "message": "busy"}},
            )
        return httpx.Response(502, text="<html>bad gateway</html>")  # a proxy in between

    with Client("http://service", transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(ServiceError) as busy:
            client.tasks()
        with pytest.raises(ServiceError) as proxy:
            client.health()

    assert (busy.value.status_code, busy.value.retry_after, busy.value.message) == (
        429,
        2.0,
        "busy",
    )
    assert (proxy.value.status_code, proxy.value.error_type) == (502, "http_error")


def test_the_async_client_mirrors_the_sync_one(service: str) -> None:
    async def main() -> tuple[answerx.Extraction, int, str]:
        async with AsyncClient(service) as client:
            extraction, batch, health = await asyncio.gather(
                client.extract(OUTPUT, "numeric"),
                client.extract_batch(["#### 1", "#### 2"]),
                client.health(),
            )
            with pytest.raises(ServiceError):
                await client.extract("4", task="algebra")
            return extraction, batch.succeeded, health.status

    extraction, succeeded, status = asyncio.run(main())

    assert (extraction.answer, succeeded, status) == ("36", 2, "ok")


# --------------------------------------------------------------------------- LLM endpoints


@pytest.fixture
def llm_service(fake_env: FakeProviderServer, start_service: StartService) -> str:
    return start_service()


def test_structured_extraction_and_ask_through_the_client(
    llm_service: str, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.tool_call(
            {"full_reasoning_text": "3 * 12 = 36", "steps": ["3 * 12"], "answer_value": "36",
             "confidence": 0.8},
        ),
        Reply.tool_call({"full_reasoning_text": "2 + 2 = 4", "answer_value": "4",
                         "confidence": 0.9}),
    )  # fmt: skip

    with Client(llm_service) as client:
        structured = client.extract_structured(
            OUTPUT, provider="openai", approach="chain_of_thought", task="numeric"
        )
        answered = client.ask("What is 2 + 2?", provider="openai", approach="none")

    assert isinstance(structured.extraction, ChainOfThoughtExtraction)
    assert (structured.extraction.answer_value, structured.call_info.mode) == ("36", "tools")
    assert isinstance(answered, StandardResponse) and answered.extracted_answer == "4"


def test_async_structured_extraction(llm_service: str, fake_provider: FakeProviderServer) -> None:
    fake_provider.enqueue(
        Reply.tool_call({"full_reasoning_text": "r", "answer_value": "7", "confidence": 1})
    )

    async def main() -> str:
        async with AsyncClient(llm_service) as client:
            result = await client.extract_structured("The answer is 7.", provider="openai")
            return result.extraction.answer_value

    assert asyncio.run(main()) == "7"


def test_a_failed_provider_call_raises_with_its_cost(
    llm_service: str, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.unauthorized(f"Incorrect API key provided: {SECRET_KEY}"))

    with Client(llm_service) as client, pytest.raises(ServiceError) as caught:
        client.ask("What is 2 + 2?", provider="openai", approach="none")

    error = caught.value
    assert (error.status_code, error.error_type) == (502, "provider_auth_error")
    assert error.detail["attempts"] == 1
    assert error.detail["usage"] == {"input_tokens": 0, "output_tokens": 0}
    assert SECRET_KEY not in str(error) and SECRET_KEY not in str(error.detail)


def test_the_client_imports_without_the_server_or_the_provider_sdks() -> None:
    import subprocess
    import sys

    code = (
        "import sys, answerx.client\n"
        "heavy = {'fastapi', 'uvicorn', 'instructor', 'openai', 'anthropic', 'cohere'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
