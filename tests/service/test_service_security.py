"""Authentication, the body limit and the bind check, over real HTTP."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from hashlib import sha256
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from answerx.cli import app as cli
from answerx.errors import ConfigError
from answerx.service import ServiceSettings
from answerx.service.redaction import SafeLogFilter, scrub_json, secrets_in
from answerx.service.server import check_bind, is_loopback, serve
from answerx.testing import FakeProviderServer, Reply
from conftest import ServeProcess, StartService, free_port

TOKEN = "s3cret-token-for-tests"


# --------------------------------------------------------------------------- authentication


@pytest.fixture
def secured(start_service: Any) -> str:
    return str(start_service(api_token=TOKEN))


def test_without_a_token_configured_every_endpoint_is_open(http: httpx.Client) -> None:
    assert http.post("/v1/extract", json={"raw_output": "#### 3"}).status_code == 200
    assert http.get("/metrics").status_code == 200


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "this server needs a bearer token"),
        ({"authorization": "Bearer wrong-token"}, "the bearer token is wrong"),
        ({"authorization": f"Bearer {TOKEN}x"}, "the bearer token is wrong"),
        ({"authorization": f"Basic {TOKEN}"}, "this server needs a bearer token"),
        ({"authorization": "Bearer"}, "this server needs a bearer token"),
    ],
    ids=["missing", "wrong", "longer", "basic-scheme", "empty"],
)
@pytest.mark.parametrize("path", ["/v1/extract", "/v1/extract/batch", "/metrics", "/v1/tasks"])
def test_a_missing_or_wrong_token_is_a_401(
    secured: str, headers: dict[str, str], message: str, path: str
) -> None:
    method = "GET" if path in ("/metrics", "/v1/tasks") else "POST"
    response = httpx.request(method, secured + path, headers=headers, json={"items": []})

    assert response.status_code == 401
    assert response.json() == {"error": {"type": "unauthorized", "message": message}}
    assert response.headers["www-authenticate"] == "Bearer"
    assert TOKEN not in response.text


@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
def test_the_right_token_passes(secured: str, scheme: str) -> None:
    response = httpx.post(
        secured + "/v1/extract",
        json={"raw_output": "#### 3"},
        headers={"authorization": f"{scheme} {TOKEN}"},
    )

    assert response.status_code == 200 and response.json()["answer"] == "3"


def test_health_readiness_and_docs_need_no_token(secured: str) -> None:
    for path in ("/healthz", "/readyz", "/openapi.json", "/docs"):
        assert httpx.get(secured + path).status_code == 200, path


def test_the_schema_declares_the_bearer_scheme_when_a_token_is_set(secured: str) -> None:
    schema = httpx.get(secured + "/openapi.json").json()

    assert schema["components"]["securitySchemes"] == {
        "bearer": {"type": "http", "scheme": "bearer"}
    }
    assert schema["paths"]["/v1/extract"]["post"]["security"] == [{"bearer": []}]
    assert "security" not in schema["paths"]["/healthz"]["get"]


def test_the_token_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import hmac

    from answerx.service import auth

    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    from fastapi.testclient import TestClient

    from answerx.service import create_app

    with TestClient(create_app(ServiceSettings(api_token=TOKEN))) as client:
        client.get("/v1/tasks", headers={"authorization": "Bearer nope"})

    # Digests are compared, so not even the token's length shows in the timing.
    assert calls == [(sha256(b"nope").digest(), sha256(TOKEN.encode()).digest())]


def test_settings_never_show_the_token() -> None:
    settings = ServiceSettings.from_env({"ANSWERX_API_TOKEN": TOKEN})

    assert settings.auth_required
    assert TOKEN not in repr(settings) and TOKEN not in str(settings.model_dump())


def test_an_empty_token_variable_means_no_authentication() -> None:
    assert not ServiceSettings.from_env({"ANSWERX_API_TOKEN": ""}).auth_required


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"ANSWERX_MAX_BATCH": "many"}, "ANSWERX_MAX_BATCH"),
        ({"ANSWERX_LLM_CONCURRENCY": "0"}, "ANSWERX_LLM_CONCURRENCY"),
        ({"ANSWERX_LLM_TIMEOUT_S": "-1"}, "ANSWERX_LLM_TIMEOUT_S"),
    ],
)
def test_a_malformed_setting_is_a_config_error_naming_the_variable(
    env: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        ServiceSettings.from_env(env)


# --------------------------------------------------------------------------- body limit


def _chunks(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    """A JSON body of ``total`` bytes, sent chunked (no Content-Length)."""
    yield b'{"raw_output": "'
    sent = 16
    while sent < total - 2:
        piece = min(size, total - 2 - sent)
        yield b"x" * piece
        sent += piece
    yield b'"}'


@pytest.fixture
def small_limit(start_service: Any) -> str:
    return str(start_service(max_body_bytes=10_000))


def test_a_body_over_the_limit_is_a_413_before_it_is_read(small_limit: str) -> None:
    body = {"raw_output": "x" * 20_000}

    response = httpx.post(small_limit + "/v1/extract", json=body)

    assert response.status_code == 413
    assert response.json() == {
        "error": {
            "type": "payload_too_large",
            "message": "the request body is larger than the limit of 10000 bytes",
        }
    }


@pytest.mark.parametrize("path", ["/v1/extract", "/v1/extract/batch"])
def test_a_chunked_body_without_content_length_is_stopped_at_the_limit(
    small_limit: str, path: str
) -> None:
    response = httpx.post(
        small_limit + path,
        content=_chunks(50_000, size=4096),
        headers={"content-type": "application/json"},
    )

    assert response.status_code == 413
    assert response.json()["error"]["type"] == "payload_too_large"


def test_a_chunked_body_under_the_limit_is_served(small_limit: str) -> None:
    response = httpx.post(
        small_limit + "/v1/extract",
        content=_chunks(5_000, size=1000),
        headers={"content-type": "application/json"},
    )

    assert response.status_code == 200


def test_a_body_longer_than_its_content_length_claims_is_never_read_past_it(
    small_limit: str,
) -> None:
    # The Content-Length claims a small body; the rest is not part of the request
    # at all, so the server answers the small one (and not with the rest inside).
    port = int(small_limit.rsplit(":", 1)[1])
    body = b'{"raw_output": "#### 4"}'
    lie = (
        b"POST /v1/extract HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
        + body + b"x" * 50_000
    )  # fmt: skip
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(lie)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk

    head, _, payload = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert b'"answer":"4"' in payload


def test_the_default_limit_is_one_megabyte() -> None:
    assert ServiceSettings().max_body_bytes == 1_048_576


# --------------------------------------------------------------------------- bind check


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.org", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_an_open_bind_without_a_token_is_refused() -> None:
    with pytest.raises(ConfigError, match="ANSWERX_API_TOKEN") as caught:
        check_bind("0.0.0.0", ServiceSettings(), allow_unauthenticated=False)

    assert "--allow-unauthenticated" in str(caught.value)


def test_an_open_bind_is_allowed_with_a_token_or_the_flag() -> None:
    check_bind("0.0.0.0", ServiceSettings(api_token=TOKEN), allow_unauthenticated=False)
    check_bind("0.0.0.0", ServiceSettings(), allow_unauthenticated=True)
    check_bind("127.0.0.1", ServiceSettings(), allow_unauthenticated=False)


@pytest.mark.parametrize("token", ["Q", "short-token-15c"])
def test_an_open_bind_refuses_a_short_token(token: str) -> None:
    settings = ServiceSettings(api_token=token)

    with pytest.raises(ConfigError, match="at least 16 characters") as caught:
        check_bind("0.0.0.0", settings, allow_unauthenticated=True)

    assert f"{len(token)}-character ANSWERX_API_TOKEN" in str(caught.value)
    assert token not in str(caught.value)
    check_bind("127.0.0.1", settings, allow_unauthenticated=False)  # loopback: any length
    check_bind("0.0.0.0", ServiceSettings(api_token="x" * 16), allow_unauthenticated=False)


def test_serve_refuses_before_starting_anything(
    clean_provider_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("uvicorn was started"))

    with pytest.raises(ConfigError):
        serve("0.0.0.0", 0)


def test_the_serve_command_exits_2_with_the_reason(clean_provider_env: None) -> None:
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "0"])

    assert result.exit_code == 2
    assert "refusing to listen on 0.0.0.0" in result.output


def test_the_serve_command_starts_uvicorn_with_the_factory(
    clean_provider_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    started: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: started.update(app=app, **kw))
    monkeypatch.setenv("ANSWERX_API_TOKEN", TOKEN)

    result = CliRunner().invoke(
        cli, ["serve", "--host", "0.0.0.0", "--port", "9001", "--workers", "2"]
    )

    assert result.exit_code == 0, result.output
    assert started["app"] == "answerx.service.app:create_app" and started["factory"] is True
    assert (started["host"], started["port"], started["workers"]) == ("0.0.0.0", 9001, 2)
    assert started["access_log"] is False


# --------------------------------------------------------------------------- the error boundary


def test_a_bug_is_a_plain_500_and_only_its_type_name_is_logged(
    clean_provider_env: None, caplog: pytest.LogCaptureFixture
) -> None:
    from fastapi.testclient import TestClient

    from answerx.service import create_app

    app = create_app(ServiceSettings())

    async def broken() -> None:
        raise RuntimeError(f"cannot reach db with password {TOKEN}")

    app.add_api_route("/broken", broken)
    with TestClient(app, "http://localhost", raise_server_exceptions=False) as client:
        response = client.get("/broken")

    assert response.status_code == 500
    assert response.json() == {
        "error": {"type": "internal_error", "message": "internal server error"}
    }
    assert "internal error on GET /broken: RuntimeError" in caplog.text
    assert TOKEN not in caplog.text and TOKEN not in response.text
    # The service's own records: an SDK client another test left open may be collected
    # here, and asyncio logs its late close (not this service's log).
    service = [record for record in caplog.records if record.name.startswith("answerx")]
    assert not any(record.exc_info for record in service)


# --------------------------------------------------------------------------- logging


def _log_line(secrets: list[str], msg: object, *args: object) -> str:
    """What a handler with :class:`SafeLogFilter` writes for one record."""
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, msg, args, None)
    try:
        raise RuntimeError(f"boom with {secrets[0]}")
    except RuntimeError:
        import sys

        record.exc_info = sys.exc_info()
    assert SafeLogFilter(secrets).filter(record)
    return logging.Formatter("%(message)s").format(record)


def test_the_log_filter_drops_tracebacks_and_redacts_secrets() -> None:
    key = "notArealKeyJustUnshapedText"

    line = _log_line([key], "provider said %s (%s, %d)", f"bad key {key}", ValueError(key), 3)

    assert line == "provider said bad key *** (***, 3)"
    assert "Traceback" not in line
    assert _log_line([key], ValueError(f"key={key}")) == "key=***"
    assert _log_line([key], "token sk-fake-not-a-key-0123 refused") == "token *** refused"


@pytest.mark.parametrize("token", ["Q", "tok3n", "abcdefg"])
def test_a_short_api_token_is_redacted_where_it_stands_alone(token: str) -> None:
    secrets = secrets_in({"ANSWERX_API_TOKEN": token})

    assert secrets == [token]
    assert _log_line(secrets, "got Bearer %s from %s", token, "10.0.0.1") == (
        "got Bearer *** from 10.0.0.1"
    )
    assert _log_line(secrets, f"authorization={token}; retry") == "authorization=***; retry"
    # inside other words it is left alone: the line stays readable
    assert _log_line(secrets, f"Question{token}s and Answers") == f"Question{token}s and Answers"


def test_the_secrets_to_redact_are_the_credential_variables() -> None:
    env = {
        "OPENAI_API_KEY": "sk-0123456789",
        "ANSWERX_API_TOKEN": TOKEN,
        "CO_API_KEY": "cohere-key-0123",
        "DB_PASSWORD": "hunter2hunter2",
        "ANSWERX_MAX_BATCH": "1000",
        "HOME": "/home/someone",
        "SHORT_KEY": "1",
    }

    assert sorted(secrets_in(env)) == sorted(
        ["sk-0123456789", TOKEN, "cohere-key-0123", "hunter2hunter2"]
    )


def test_scrub_json_removes_secrets_as_json_writes_them() -> None:
    import json

    body = json.dumps({"reason": 'key "Zq7u\\XkP4mWc9" refused', "n": 1})

    scrubbed = scrub_json(body, ["Zq7u\\XkP4mWc9", "absent-secret"])

    assert json.loads(scrubbed) == {"reason": 'key "***" refused', "n": 1}


# --------------------------------------------------------------------------- Host names


def _get(url: str, host: str | None, path: str = "/healthz") -> httpx.Response:
    headers = {"host": host} if host is not None else {}
    return httpx.get(url + path, headers=headers, timeout=10)


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8000", "127.0.0.1", "127.0.0.1:1234", "[::1]", "[::1]:80"]
)
def test_without_a_token_the_loopback_names_are_answered(service: str, host: str) -> None:
    assert _get(service, host, "/v1/tasks").status_code == 200


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.nip.io", ""]
)
def test_without_a_token_another_host_is_refused_as_dns_rebinding_would_send_it(
    service: str, host: str
) -> None:
    # A page on evil.example whose name was made to resolve to 127.0.0.1 sends this.
    response = httpx.post(
        service + "/v1/extract", json={"raw_output": "#### 5"}, headers={"host": host}
    )

    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_host"
    assert "--allowed-host" in response.json()["error"]["message"]
    assert _get(service, host).status_code == 400  # every path, the health check too


def test_allowed_hosts_are_answered_too(start_service: StartService) -> None:
    url = start_service(allowed_hosts=("answerx.internal", "*.lab.example"))

    assert _get(url, "answerx.internal:8000").status_code == 200
    assert _get(url, "gpu3.lab.example").status_code == 200
    assert _get(url, "127.0.0.1").status_code == 200
    assert _get(url, "evil.example").status_code == 400


def test_with_a_token_any_host_is_answered_unless_hosts_are_named(
    start_service: StartService,
) -> None:
    # A page cannot know the token: rebinding gains it nothing.
    open_to_any = start_service(api_token=TOKEN)
    named = start_service(api_token=TOKEN, allowed_hosts=("answerx.internal",))

    assert _get(open_to_any, "answerx.example.com").status_code == 200
    assert _get(named, "answerx.internal").status_code == 200
    assert _get(named, "answerx.example.com").status_code == 400


def test_allowed_hosts_come_from_the_environment_and_are_checked() -> None:
    settings = ServiceSettings.from_env({"ANSWERX_ALLOWED_HOSTS": "A.example, *.lab.example,"})

    assert settings.allowed_hosts == ("a.example", "*.lab.example")
    assert settings.accepted_hosts == ("localhost", "127.0.0.1", "[::1]", *settings.allowed_hosts)
    assert ServiceSettings(allowed_hosts=("*",)).accepted_hosts is None
    with pytest.raises(ConfigError, match="ANSWERX_ALLOWED_HOSTS"):
        ServiceSettings.from_env({"ANSWERX_ALLOWED_HOSTS": "evil*.example"})


def test_the_serve_command_passes_allowed_hosts_to_the_app(
    clean_provider_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: dict[str, Any] = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: started.update(kw, app=app))
    monkeypatch.delenv("ANSWERX_ALLOWED_HOSTS", raising=False)

    result = CliRunner().invoke(
        cli, ["serve", "--allowed-host", "answerx.internal", "--allowed-host", "*.lab.example"]
    )

    assert result.exit_code == 0, result.output
    assert started["factory"] is True
    assert "ANSWERX_ALLOWED_HOSTS" not in os.environ  # the settings go to the app factory
    assert started["app"]().state.settings.accepted_hosts == (
        "localhost", "127.0.0.1", "[::1]", "answerx.internal", "*.lab.example"
    )  # fmt: skip


# --------------------------------------------------------------------------- answerx serve


@pytest.fixture
def child_env(clean_provider_env: None) -> dict[str, str]:
    """The test's environment for an ``answerx serve`` child: no provider settings."""
    return dict(os.environ)


@pytest.mark.slow
def test_answerx_serve_serves_and_exits_cleanly_on_sigterm(
    child_env: dict[str, str], serve_process: Callable[..., ServeProcess]
) -> None:
    server = serve_process({**child_env, "ANSWERX_API_TOKEN": TOKEN})

    health = server.wait_until_up()
    refused = httpx.post(server.url + "/v1/extract", json={"raw_output": "#### 3"})
    served = httpx.post(
        server.url + "/v1/extract",
        json={"raw_output": "#### 3"},
        headers={"authorization": f"Bearer {TOKEN}"},
    )
    status = server.stop()

    assert health.json()["status"] == "ok"
    assert (refused.status_code, served.json()["answer"]) == (401, "3")
    assert "server" not in {name.lower() for name in served.headers}  # no version banner
    assert status == 0, server.output
    assert "Uvicorn running on" in server.output
    assert "Shutting down" in server.output and "Finished server process" in server.output
    assert TOKEN not in server.output and "Traceback" not in server.output


@pytest.mark.slow
def test_answerx_serve_never_shows_a_refused_provider_key(
    child_env: dict[str, str],
    serve_process: Callable[..., ServeProcess],
    fake_provider: FakeProviderServer,
) -> None:
    # A key of no known shape, in the server's environment; the provider refuses it
    # and quotes it back, as real providers do.
    key = "notArealKeyJustUnshapedText"
    server = serve_process({**child_env, **fake_provider.env(api_key=key)})
    fake_provider.enqueue(Reply.unauthorized(f"Incorrect API key provided: {key}"))
    server.wait_until_up()

    response = httpx.post(
        server.url + "/v1/extract/structured",
        json={"raw_output": "The answer is 4.", "provider": "openai", "model": "gpt-test"},
        timeout=30,
    )
    status = server.stop()

    assert response.status_code == 502
    assert response.json()["error"]["type"] == "provider_auth_error"
    assert fake_provider.last_request.api_key_sent  # the key reached the provider
    assert "provider call failed: ProviderAuthError" in server.output  # the log was written
    assert key not in response.text and key not in str(response.headers)
    assert key not in server.output and key[:12] not in server.output
    assert "Traceback" not in server.output
    assert status == 0, server.output


@pytest.mark.slow
def test_answerx_serve_logs_no_piece_of_a_key_its_provider_echoed(
    child_env: dict[str, str],
    serve_process: Callable[..., ServeProcess],
    fake_provider: FakeProviderServer,
) -> None:
    # The provider puts the Authorization header it got into a float field: every
    # mode fails, and pydantic quotes the echo cut to its first and last characters.
    key = "sk-proj-4fJ9q2LxT7vB1mN8cR3eW6yZ0aK5hD2gU9iO4pS7tQ1"
    echo = {"full_reasoning_text": "r", "answer_value": "4", "confidence": f"Bearer {key}"}
    fake_provider.set_default(Reply.tool_call(echo))
    server = serve_process({**child_env, **fake_provider.env(api_key=key)})
    server.wait_until_up()

    response = httpx.post(
        server.url + "/v1/extract/structured",
        json={"raw_output": "The answer is 4.", "provider": "openai", "model": "gpt-test"},
        timeout=30,
    )
    status = server.stop()

    assert response.status_code == 502
    assert "provider call failed: StructuredOutputError" in server.output
    shown = response.text + server.output
    assert [key[i : i + 8] for i in range(len(key) - 7) if key[i : i + 8] in shown] == []
    assert status == 0, server.output


# A SIGTERM that reaches `answerx` while it is still loading: this script sends it to
# itself as soon as the named module starts to be imported, then runs the console
# script's entry point (answerx.__main__:main) with the given arguments.
_SIGTERM_DURING_IMPORT = """
import os, signal, sys
from importlib.abc import MetaPathFinder

LOADING, *ARGS = sys.argv[1:]

class SigtermOnImport(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == LOADING:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGTERM)
        return None

sys.meta_path.insert(0, SigtermOnImport())
from answerx.__main__ import main
sys.argv = ["answerx", *ARGS]
main()
"""


def _sigterm_while_loading(env: dict[str, str], loading: str, *args: str) -> Any:
    return subprocess.run(
        [sys.executable, "-c", _SIGTERM_DURING_IMPORT, loading, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


# answerx.cli: the first thing the command imports (the whole CLI, ~1 s); then typer,
# then what `serve` itself loads.
@pytest.mark.slow
@pytest.mark.parametrize("loading", ["answerx.cli", "typer", "uvicorn", "fastapi"])
def test_a_sigterm_while_serve_is_starting_exits_0(child_env: dict[str, str], loading: str) -> None:
    # The probe saw -15 for a SIGTERM within 0.3 s of the start: it came before any
    # handler. The entry point now holds SIGTERM from its first line, and serve takes it.
    done = _sigterm_while_loading(child_env, loading, "serve", "--port", str(free_port()))

    assert done.returncode == 0, done.stdout + done.stderr
    assert "Uvicorn running on" not in done.stdout + done.stderr


@pytest.mark.slow
def test_other_commands_still_die_of_a_sigterm_that_came_while_loading(
    child_env: dict[str, str],
) -> None:
    # Held, not swallowed: a batch command asked to stop must not look successful.
    done = _sigterm_while_loading(child_env, "answerx.cli", "extract", "The answer is 4.")

    assert done.returncode == -signal.SIGTERM, done.stdout + done.stderr
    assert "4" not in done.stdout
