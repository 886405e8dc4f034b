"""The fake provider server itself, driven with plain httpx (no SDK)."""

from __future__ import annotations

import asyncio
import http.client
import json
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from answerx.testing import (
    INVALID_JSON,
    REDACTED,
    FakeProviderServer,
    RecordedRequest,
    Reply,
    Usage,
    WireFormat,
)
from concurrency_checks import Overlap

pytest_plugins = ["pytester"]

SECRET = "sk-live-this-must-never-be-stored"

# (wire format, path, offered tools) for each provider's chat endpoint.
TOOLS: dict[str, list[dict[str, Any]]] = {
    "openai": [{"type": "function", "function": {"name": "Answer", "parameters": {}}}],
    "anthropic": [{"name": "Answer", "input_schema": {"type": "object"}}],
    "cohere": [{"type": "function", "function": {"name": "Answer", "parameters": {}}}],
}
PATHS: dict[str, str] = {
    "openai": "/v1/chat/completions",
    "anthropic": "/v1/messages",
    "cohere": "/v2/chat",
}
WIRES: tuple[WireFormat, ...] = ("openai", "anthropic", "cohere")


@pytest.fixture
def fake() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as server:
        yield server


@pytest.fixture
def client(fake: FakeProviderServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fake.url, timeout=5) as http:
        yield http


def chat(
    client: httpx.Client,
    wire: str,
    *,
    tools: bool = False,
    model: str | None = "model-x",
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> httpx.Response:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "What is 2+2?"}], **extra}
    if model is not None:
        body["model"] = model
    if tools:
        body["tools"] = TOOLS[wire]
    return client.post(PATHS[wire], json=body, headers=headers or {})


def text_of(wire: str, data: dict[str, Any]) -> str:
    if wire == "openai":
        return str(data["choices"][0]["message"]["content"])
    if wire == "anthropic":
        return str(data["content"][0]["text"])
    return str(data["message"]["content"][0]["text"])


def error_message_of(wire: str, data: dict[str, Any]) -> str:
    return str(data["message"] if wire == "cohere" else data["error"]["message"])


# ------------------------------------------------------------------ tool calls


def test_tool_call_is_rendered_in_openai_shape(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.tool_call({"answer": "4"}, usage=(12, 3)))
    data = chat(client, "openai", tools=True).json()
    assert data["object"] == "chat.completion"
    assert data["id"].startswith("chatcmpl-")
    assert data["model"] == "model-x"
    choice = data["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    call = choice["message"]["tool_calls"][0]
    assert call["type"] == "function"
    assert call["function"]["name"] == "Answer"
    assert json.loads(call["function"]["arguments"]) == {"answer": "4"}
    assert data["usage"] == {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}


def test_tool_call_is_rendered_in_anthropic_shape(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.tool_call({"answer": "4"}, usage=(12, 3)))
    data = chat(client, "anthropic", tools=True).json()
    assert data["type"] == "message"
    assert data["role"] == "assistant"
    assert data["id"].startswith("msg_")
    assert data["model"] == "model-x"
    assert data["stop_reason"] == "tool_use"
    block = data["content"][0]
    assert block["type"] == "tool_use"
    assert block["name"] == "Answer"
    assert block["input"] == {"answer": "4"}
    assert data["usage"]["input_tokens"] == 12
    assert data["usage"]["output_tokens"] == 3


def test_tool_call_is_rendered_in_cohere_v2_shape(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.tool_call({"answer": "4"}, usage=(12, 3)))
    data = chat(client, "cohere", tools=True).json()
    assert data["finish_reason"] == "TOOL_CALL"
    call = data["message"]["tool_calls"][0]
    assert call["function"]["name"] == "Answer"
    assert json.loads(call["function"]["arguments"]) == {"answer": "4"}
    tokens = {"input_tokens": 12, "output_tokens": 3}
    assert data["usage"] == {"billed_units": tokens, "tokens": tokens}


def test_openai_path_without_v1_prefix_is_served(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.text("hi"))
    response = client.post("/chat/completions", json={"model": "m", "messages": []})
    assert response.status_code == 200
    assert fake.last_request.wire == "openai"


@pytest.mark.parametrize(
    ("wire", "tool_choice"),
    [
        ("openai", {"type": "function", "function": {"name": "Second"}}),
        ("anthropic", {"type": "tool", "name": "Second"}),
    ],
)
def test_tool_forced_by_tool_choice_is_called(
    fake: FakeProviderServer, client: httpx.Client, wire: str, tool_choice: dict[str, Any]
) -> None:
    fake.enqueue(Reply.tool_call({"x": 1}))
    tools = [*TOOLS[wire], json.loads(json.dumps(TOOLS[wire][0]).replace("Answer", "Second"))]
    data = client.post(
        PATHS[wire],
        json={"model": "m", "messages": [], "tools": tools, "tool_choice": tool_choice},
    ).json()
    if wire == "openai":
        assert data["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "Second"
        assert data["choices"][0]["finish_reason"] == "stop"  # forced calls end with "stop"
    else:
        assert data["content"][0]["name"] == "Second"
    assert fake.last_request.forced_tool == "Second"


@pytest.mark.parametrize("wire", WIRES)
def test_tool_call_without_offered_tools_becomes_json_text(
    fake: FakeProviderServer, client: httpx.Client, wire: str
) -> None:
    fake.enqueue(Reply.tool_call({"answer": "4"}))
    data = chat(client, wire, tools=False).json()
    assert json.loads(text_of(wire, data)) == {"answer": "4"}


def test_tool_call_with_explicit_name_needs_no_tools(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.tool_call({"a": 1}, name="Custom"))
    data = chat(client, "openai").json()
    assert data["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "Custom"


# ----------------------------------------------------------------- text replies


@pytest.mark.parametrize("wire", WIRES)
def test_text_json_and_fenced_json_are_the_assistant_content(
    fake: FakeProviderServer, client: httpx.Client, wire: str
) -> None:
    fenced = '```json\n{"answer": "4"}\n```'
    fake.enqueue(Reply.text("plain"), Reply.json({"answer": "4"}), Reply.text(fenced))
    assert text_of(wire, chat(client, wire).json()) == "plain"
    assert json.loads(text_of(wire, chat(client, wire).json())) == {"answer": "4"}
    assert text_of(wire, chat(client, wire).json()) == fenced


@pytest.mark.parametrize(
    ("wire", "finish"),
    [("openai", "stop"), ("anthropic", "end_turn"), ("cohere", "COMPLETE")],
)
def test_text_reply_reports_a_natural_stop(
    fake: FakeProviderServer, client: httpx.Client, wire: str, finish: str
) -> None:
    fake.enqueue(Reply.text("hi"))
    data = chat(client, wire).json()
    reason = {
        "openai": lambda d: d["choices"][0]["finish_reason"],
        "anthropic": lambda d: d["stop_reason"],
        "cohere": lambda d: d["finish_reason"],
    }[wire](data)
    assert reason == finish


@pytest.mark.parametrize(
    ("wire", "finish"),
    [("openai", "length"), ("anthropic", "max_tokens"), ("cohere", "MAX_TOKENS")],
)
def test_truncated_reply_reports_the_token_limit(
    fake: FakeProviderServer, client: httpx.Client, wire: str, finish: str
) -> None:
    fake.enqueue(Reply.text('{"answer": ', truncated=True))
    data = chat(client, wire).json()
    reason = {
        "openai": lambda d: d["choices"][0]["finish_reason"],
        "anthropic": lambda d: d["stop_reason"],
        "cohere": lambda d: d["finish_reason"],
    }[wire](data)
    assert reason == finish


@pytest.mark.parametrize("wire", WIRES)
def test_invalid_json_is_sent_as_text_without_tools(
    fake: FakeProviderServer, client: httpx.Client, wire: str
) -> None:
    fake.enqueue(Reply.invalid_json())
    content = text_of(wire, chat(client, wire).json())
    assert content == INVALID_JSON
    with pytest.raises(ValueError):
        json.loads(content)


@pytest.mark.parametrize("wire", WIRES)
def test_invalid_json_is_sent_as_tool_arguments_with_tools(
    fake: FakeProviderServer, client: httpx.Client, wire: str
) -> None:
    fake.enqueue(Reply.invalid_json())
    data = chat(client, wire, tools=True).json()
    if wire == "openai":
        arguments = data["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    elif wire == "anthropic":  # input is always an object there
        arguments = data["content"][0]["input"]["_invalid_json"]
    else:
        arguments = data["message"]["tool_calls"][0]["function"]["arguments"]
    assert arguments == INVALID_JSON


# ------------------------------------------------------------------------ usage


@pytest.mark.parametrize("wire", WIRES)
def test_default_usage_is_reported_when_a_reply_sets_none(
    client: httpx.Client, fake: FakeProviderServer, wire: str
) -> None:
    fake.default_usage = Usage(input_tokens=40, output_tokens=2)
    fake.enqueue(Reply.text("hi"))
    usage = chat(client, wire).json()["usage"]
    if wire == "openai":
        assert (usage["prompt_tokens"], usage["completion_tokens"]) == (40, 2)
    elif wire == "anthropic":
        assert (usage["input_tokens"], usage["output_tokens"]) == (40, 2)
    else:
        assert usage["billed_units"] == {"input_tokens": 40, "output_tokens": 2}


def test_model_falls_back_to_the_server_model_when_the_request_names_none() -> None:
    with FakeProviderServer(model="my-model") as server, httpx.Client(base_url=server.url) as c:
        server.enqueue(Reply.text("hi"))
        assert chat(c, "anthropic", model=None).json()["model"] == "my-model"


# ----------------------------------------------------------------------- errors


@pytest.mark.parametrize("wire", WIRES)
def test_error_reply_uses_the_provider_error_shape(
    fake: FakeProviderServer, client: httpx.Client, wire: str
) -> None:
    fake.enqueue(Reply.error(404, "model not found", headers={"x-extra": "1"}))
    response = chat(client, wire)
    assert response.status_code == 404
    assert response.headers["x-extra"] == "1"
    data = response.json()
    assert error_message_of(wire, data) == "model not found"
    if wire == "openai":
        assert data["error"]["type"] == "not_found_error"
        assert set(data["error"]) == {"message", "type", "param", "code"}
    elif wire == "anthropic":
        assert data["type"] == "error"
        assert data["error"]["type"] == "not_found_error"


@pytest.mark.parametrize("wire", WIRES)
def test_reject_tools_is_a_400_saying_tools_are_not_supported(
    fake: FakeProviderServer, client: httpx.Client, wire: str
) -> None:
    fake.enqueue(Reply.reject_tools())
    response = chat(client, wire, tools=True)
    assert response.status_code == 400
    message = error_message_of(wire, response.json()).lower()
    assert "tools" in message and "not supported" in message


def test_reject_response_format_says_so(fake: FakeProviderServer, client: httpx.Client) -> None:
    fake.enqueue(Reply.reject_response_format(status=422))
    response = chat(client, "openai", response_format={"type": "json_object"})
    assert response.status_code == 422
    assert "response_format" in response.json()["error"]["message"]


@pytest.mark.parametrize("wire", WIRES)
def test_rate_limited_is_a_429_with_retry_after(
    fake: FakeProviderServer, client: httpx.Client, wire: str
) -> None:
    fake.enqueue(Reply.rate_limited(retry_after=0.05))
    response = chat(client, wire)
    assert response.status_code == 429
    assert float(response.headers["retry-after"]) == pytest.approx(0.05)
    assert float(response.headers["retry-after-ms"]) == pytest.approx(50)
    if wire == "anthropic":
        assert response.json()["error"]["type"] == "rate_limit_error"


@pytest.mark.parametrize(
    ("reply", "status", "anthropic_type"),
    [
        (Reply.server_error(), 500, "api_error"),
        (Reply.server_error(529), 529, "overloaded_error"),
        (Reply.unauthorized(), 401, "authentication_error"),
        (Reply.unauthorized(status=403), 403, "permission_error"),
    ],
)
def test_error_shortcuts_have_their_status(
    fake: FakeProviderServer,
    client: httpx.Client,
    reply: Reply,
    status: int,
    anthropic_type: str,
) -> None:
    fake.enqueue(reply, reply)
    assert chat(client, "openai").status_code == status
    response = chat(client, "anthropic")
    assert response.status_code == status
    assert response.json()["error"]["type"] == anthropic_type


def test_raw_reply_is_sent_verbatim(fake: FakeProviderServer, client: httpx.Client) -> None:
    fake.enqueue(Reply.raw("<html>bad gateway</html>", status=502, content_type="text/html"))
    response = chat(client, "openai")
    assert response.status_code == 502
    assert response.headers["content-type"] == "text/html"
    assert response.text == "<html>bad gateway</html>"


# ----------------------------------------------------------------- the queue


def test_replies_are_consumed_one_per_request_in_order(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.text("first"), Reply.text("second"))
    fake.enqueue(Reply.text("third"))
    assert fake.pending == 3
    contents = [text_of("openai", chat(client, "openai").json()) for _ in range(3)]
    assert contents == ["first", "second", "third"]
    assert fake.pending == 0
    fake.assert_all_consumed()


@pytest.mark.parametrize("wire", WIRES)
def test_empty_queue_answers_500_no_scripted_reply_left(
    fake: FakeProviderServer, client: httpx.Client, wire: str
) -> None:
    response = chat(client, wire)
    assert response.status_code == 500
    assert "no scripted reply left" in error_message_of(wire, response.json())
    assert response.headers["x-should-retry"] == "false"  # SDKs must not hide the mistake
    assert fake.last_request.reply is None


def test_unused_replies_fail_assert_all_consumed(fake: FakeProviderServer) -> None:
    fake.enqueue(Reply.text("never asked for"), Reply.rate_limited())
    with pytest.raises(AssertionError, match="2 scripted replies were never used"):
        fake.assert_all_consumed()


def test_default_reply_answers_when_the_queue_is_empty(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.set_default(Reply.text("default"))
    fake.enqueue(Reply.text("queued"))
    contents = [text_of("cohere", chat(client, "cohere").json()) for _ in range(3)]
    assert contents == ["queued", "default", "default"]


def test_default_responder_builds_replies_from_the_request(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    def echo_model(request: RecordedRequest) -> Reply:
        return Reply.text(f"you asked {request.model}")

    fake.set_default(echo_model)
    assert text_of("openai", chat(client, "openai", model="m-1").json()) == "you asked m-1"


def test_responder_in_the_queue_is_called_once(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    calls: list[int] = []

    def responder(request: RecordedRequest) -> Reply:
        calls.append(request.index)
        return Reply.text("dynamic")

    fake.enqueue(responder)
    assert text_of("openai", chat(client, "openai").json()) == "dynamic"
    assert chat(client, "openai").status_code == 500
    assert calls == [0]


def test_failing_responder_answers_500_naming_the_error(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    def broken(request: RecordedRequest) -> Reply:
        raise KeyError("boom")

    fake.enqueue(broken)
    response = chat(client, "openai")
    assert response.status_code == 500
    assert "boom" in response.json()["error"]["message"]


def test_replies_can_be_matched_by_wire_format(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.text("for anthropic"), wire="anthropic")
    fake.enqueue(Reply.text("for openai or cohere"), wire=["openai", "cohere"])
    assert text_of("cohere", chat(client, "cohere").json()) == "for openai or cohere"
    assert text_of("anthropic", chat(client, "anthropic").json()) == "for anthropic"


def test_replies_can_be_matched_by_a_predicate(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.text("json mode"), when=lambda request: not request.has_tools)
    fake.enqueue(Reply.tool_call({"a": 1}), when=lambda request: request.has_tools)
    tool_data = chat(client, "openai", tools=True).json()
    assert tool_data["choices"][0]["message"]["tool_calls"]
    assert text_of("openai", chat(client, "openai").json()) == "json mode"


def test_unknown_wire_format_is_refused(fake: FakeProviderServer) -> None:
    with pytest.raises(ValueError, match="unknown wire format"):
        fake.enqueue(Reply.text("x"), wire="gemini")  # type: ignore[arg-type]


def test_reset_forgets_queue_requests_and_default(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.text("a"), Reply.text("b"))
    fake.set_default(Reply.text("d"))
    chat(client, "openai")
    fake.default_delay = 1.0
    fake.reset()
    assert fake.pending == 0
    assert fake.requests == []
    assert fake.default_delay == 0.0
    assert chat(client, "openai").status_code == 500


# ------------------------------------------------------------------- recording


def test_requests_are_recorded_with_secrets_redacted(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.set_default(Reply.text("ok"))
    chat(client, "openai", tools=True, headers={"Authorization": f"Bearer {SECRET}"})
    chat(client, "anthropic", headers={"x-api-key": SECRET, "anthropic-version": "2023-06-01"})
    chat(client, "cohere", headers={"Authorization": f"bearer {SECRET}", "x-goog-api-key": SECRET})

    first, second, third = fake.requests
    assert (first.method, first.path, first.wire, first.endpoint) == (
        "POST",
        "/v1/chat/completions",
        "openai",
        "chat",
    )
    assert first.headers["authorization"] == REDACTED
    assert first.api_key_sent
    assert first.model == "model-x"
    assert first.tool_names == ["Answer"]
    assert first.messages == [{"role": "user", "content": "What is 2+2?"}]
    assert first.reply == Reply.text("ok")
    assert second.headers["x-api-key"] == REDACTED
    assert second.headers["anthropic-version"] == "2023-06-01"
    assert third.headers["x-goog-api-key"] == REDACTED
    assert [r.index for r in fake.requests] == [0, 1, 2]
    assert SECRET not in repr(fake.requests)
    assert fake.requests_for("anthropic") == [second]


def test_recorded_request_joins_all_message_text(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.text("ok"))
    client.post(
        "/v1/messages",
        json={
            "model": "m",
            "system": "Be brief.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "2+2?"}]}],
        },
    )
    assert fake.last_request.text == "Be brief.\n2+2?"


def test_last_request_before_any_request_is_a_lookup_error(fake: FakeProviderServer) -> None:
    with pytest.raises(LookupError):
        _ = fake.last_request


def test_models_endpoint_lists_the_configured_models() -> None:
    with FakeProviderServer(models=["a", "b"]) as server, httpx.Client(base_url=server.url) as c:
        listing = c.get("/v1/models").json()
        assert listing["object"] == "list"
        assert [m["id"] for m in listing["data"]] == ["a", "b"]
        assert c.get("/v1/models/gpt-x").json()["id"] == "gpt-x"
        assert server.last_request.endpoint == "models"
        assert server.chat_requests == []


def test_unknown_route_is_a_404(fake: FakeProviderServer, client: httpx.Client) -> None:
    response = client.post("/v1/embeddings", json={"input": "x"})
    assert response.status_code == 404
    assert "no route" in response.json()["error"]["message"]


def test_non_json_body_is_a_400(fake: FakeProviderServer, client: httpx.Client) -> None:
    fake.enqueue(Reply.text("unused"))
    response = client.post("/v1/chat/completions", content=b"not json")
    assert response.status_code == 400
    assert fake.pending == 1  # a malformed request consumes no reply


def test_streaming_request_is_refused_without_consuming_a_reply(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.text("unused"))
    response = chat(client, "anthropic", stream=True)
    assert response.status_code == 400
    assert "streaming is not supported" in response.json()["error"]["message"]
    assert fake.pending == 1


def test_chunked_request_body_is_read(fake: FakeProviderServer, client: httpx.Client) -> None:
    fake.enqueue(Reply.text("ok"))
    body = json.dumps({"model": "m", "messages": []}).encode()
    response = client.post("/v2/chat", content=iter([body[:5], body[5:]]))  # no Content-Length
    assert response.status_code == 200
    assert fake.last_request.body == {"model": "m", "messages": []}


def test_connection_is_kept_alive_between_requests(fake: FakeProviderServer) -> None:
    fake.set_default(Reply.text("ok"))
    connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
    try:
        for _ in range(3):
            connection.request("POST", "/v1/chat/completions", body=b"{}")
            response = connection.getresponse()
            assert response.status == 200
            assert response.getheader("connection") == "keep-alive"
            response.read()
        assert connection.sock is not None  # the same socket served all three
    finally:
        connection.close()


# ------------------------------------------------------------- delays, hangs


def test_reply_delay_and_server_default_delay(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.default_delay = 0.15
    fake.enqueue(Reply.text("default delay"), Reply.text("own delay", delay=0.0))
    started = time.perf_counter()
    chat(client, "openai")
    assert time.perf_counter() - started >= 0.15
    # A reply's own delay wins over the server's: under a 60 s default it still answers
    # within the client's 5 s timeout (a lower bound above is safe on a loaded machine,
    # an upper bound of a fraction of a second is not).
    fake.default_delay = 60
    assert text_of("openai", chat(client, "openai").json()) == "own delay"


def test_hang_outlasts_the_client_timeout_without_blocking_others(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.hang(60), wire="openai")
    fake.enqueue(Reply.text("fast"), wire="anthropic")
    with (
        httpx.Client(base_url=fake.url, timeout=0.2) as impatient,
        pytest.raises(httpx.ReadTimeout),
    ):
        chat(impatient, "openai")
    # Served while the hang still holds its thread (60 s, far beyond the client's 5 s).
    assert text_of("anthropic", chat(client, "anthropic").json()) == "fast"
    assert fake.requests[0].reply is not None and fake.requests[0].reply.name == "hang"


def test_hang_answers_late_with_its_then_reply(
    fake: FakeProviderServer, client: httpx.Client
) -> None:
    fake.enqueue(Reply.hang(0.1, then=Reply.json({"late": True})))
    assert json.loads(text_of("openai", chat(client, "openai").json())) == {"late": True}


def test_stop_does_not_wait_for_a_hanging_reply() -> None:
    server = FakeProviderServer().start()
    server.enqueue(Reply.hang(3600))
    url = server.url

    async def hang_then_stop() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=3600) as http:
            request = asyncio.ensure_future(http.post(PATHS["openai"], json={"messages": []}))
            while not server.requests:
                await asyncio.sleep(0.01)
            # An hour's hang: a stop that waited for it would outlast the 60 s given here.
            await asyncio.wait_for(asyncio.to_thread(server.stop), timeout=60)
            with pytest.raises(httpx.HTTPError):  # dropped, never answered
                await request

    asyncio.run(hang_then_stop())
    assert not server.running


def test_200_concurrent_requests_are_all_in_flight_at_once() -> None:
    # One httpx client per request: httpcore's pool is quadratic in queued requests,
    # and this test measures the server, not the client's pool. Each request is held
    # until all 200 are held: a server that served them one at a time never gets there.
    overlap = Overlap(Reply.tool_call({"answer": "4"}), together=200, timeout=30)
    with FakeProviderServer(default=overlap) as server:

        async def burst() -> list[httpx.Response]:
            tls = ssl.create_default_context()  # unused on http://, but built once, not 200 times
            clients = [
                httpx.AsyncClient(base_url=server.url, timeout=60, verify=tls) for _ in range(200)
            ]
            body = {"model": "m", "messages": [], "tools": TOOLS["openai"]}
            try:
                return await asyncio.gather(
                    *(http.post(PATHS["openai"], json=body) for http in clients)
                )
            finally:
                await asyncio.gather(*(http.aclose() for http in clients))

        responses = asyncio.run(burst())
        assert len(server.requests) == 200
    assert all(r.status_code == 200 for r in responses)
    assert overlap.peak == 200


# -------------------------------------------------------------------- lifecycle


def test_base_urls_point_each_sdk_at_the_server(fake: FakeProviderServer) -> None:
    root = f"http://127.0.0.1:{fake.port}"
    assert fake.url == root
    assert fake.openai_base_url == f"{root}/v1"
    assert fake.anthropic_base_url == root
    assert fake.cohere_base_url == root
    assert fake.base_url("openai") == fake.openai_base_url
    env = fake.env(api_key="k")
    assert env["OPENAI_BASE_URL"] == fake.openai_base_url
    assert env["ANTHROPIC_API_KEY"] == "k"
    assert env["CO_API_URL"] == root


def test_start_and_stop_without_a_with_block() -> None:
    server = FakeProviderServer()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.port
    server.start()
    try:
        with pytest.raises(RuntimeError, match="already running"):
            server.start()
        assert httpx.get(f"{server.url}/health").json() == {"status": "ok"}
    finally:
        server.stop()
    server.stop()  # idempotent
    assert not server.running
    with server:  # and it can serve again
        assert httpx.get(f"{server.url}/health").status_code == 200


def test_stop_closes_idle_keep_alive_connections() -> None:
    server = FakeProviderServer(default=Reply.text("ok")).start()
    http = httpx.Client(base_url=server.url)
    try:
        assert chat(http, "openai").status_code == 200  # leaves a pooled connection open
        # A stop that waited for the idle connection's next request would never return.
        stopping = threading.Thread(target=server.stop)
        stopping.start()
        stopping.join(timeout=30)
        assert not stopping.is_alive() and not server.running
    finally:
        http.close()


@pytest.mark.parametrize(
    "build",
    [
        lambda: Reply.text("x", delay=-1),
        lambda: Reply.error(200, "not an error"),
        lambda: Reply.server_error(404),
        lambda: Reply.rate_limited(retry_after=-1),
        lambda: Reply.hang(-1),
        lambda: Usage(input_tokens=-1),
    ],
)
def test_invalid_scripts_are_refused_at_once(build: Any) -> None:
    with pytest.raises(ValueError):
        build()


def test_enqueue_refuses_what_is_not_a_reply(fake: FakeProviderServer) -> None:
    with pytest.raises(TypeError):
        fake.enqueue("just a string")  # type: ignore[arg-type]


# ----------------------------------------------------------------- pytest plugin


def test_pytest_plugin_provides_fresh_servers(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(
        """
        import os
        import httpx
        from answerx.testing import Reply

        def test_fixture_serves(fake_provider):
            fake_provider.enqueue(Reply.text("hi"))
            r = httpx.post(fake_provider.openai_base_url + "/chat/completions",
                           json={"model": "m", "messages": []})
            assert r.json()["choices"][0]["message"]["content"] == "hi"

        def test_each_test_gets_a_fresh_server(fake_provider):
            assert fake_provider.requests == [] and fake_provider.pending == 0

        def test_env_fixture_points_sdks_at_the_server(fake_provider_env):
            assert os.environ["OPENAI_BASE_URL"] == fake_provider_env.openai_base_url
            assert os.environ["ANTHROPIC_API_KEY"] == "test-key"
        """
    )
    result = pytester.runpytest_inprocess("-p", "answerx.testing.pytest_plugin", "-q")
    result.assert_outcomes(passed=3)
