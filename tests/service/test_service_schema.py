"""Schemathesis against the service's own OpenAPI schema: no 5xx, no response off its schema.

Runs in-process through ASGI (no socket). Schemathesis' default checks apply: no
server error, status codes, content types, headers and bodies as documented, and
invalid input refused. The LLM endpoints run against the fake provider server,
which refuses the server's key: a 502 is then their documented answer (checked
against its schema, attempts and usage included), so there only a 500 counts
as a server error.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from answerx.service import ServiceSettings, create_app
from answerx.service.schemas import NOT_BLANK_PATTERN
from answerx.testing import FakeProviderServer, Reply
from conftest import PROVIDER_ENV, SECRET_KEY

# Through ASGI, requests name the host "testserver" (Starlette's test client):
# allowed, as a deployment allows the names its clients use.
ASGI_HOST = ("testserver",)

schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(ServiceSettings(max_batch=50, allowed_hosts=ASGI_HOST))
).include(
    path=[
        "/v1/extract",
        "/v1/extract/batch",
        "/v1/approaches",
        "/v1/tasks",
        "/healthz",
        "/readyz",
        "/metrics",
    ]
)


@schema.parametrize()
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_service_keeps_its_openapi_contract(case: schemathesis.Case) -> None:
    case.call_and_validate()


# One app and one fake provider for all the LLM endpoints' examples: the app keeps
# its provider clients between requests, as a deployed one does.
llm_schema = schemathesis.openapi.from_asgi(
    "/openapi.json", create_app(ServiceSettings(llm_timeout_s=5, allowed_hosts=ASGI_HOST))
).include(path=["/v1/extract/structured", "/v1/ask"])


@pytest.fixture(scope="module")
def refusing_provider() -> Iterator[FakeProviderServer]:
    """A fake provider that refuses every key, and the environment pointing at it."""
    with FakeProviderServer() as fake, pytest.MonkeyPatch.context() as env:
        for name in PROVIDER_ENV:
            env.delenv(name, raising=False)
        for name, value in fake.env(api_key=SECRET_KEY).items():
            env.setenv(name, value)
        fake.set_default(Reply.unauthorized(f"Incorrect API key provided: {SECRET_KEY}"))
        yield fake


def no_internal_error(ctx: Any, response: Any, case: schemathesis.Case) -> None:
    assert response.status_code != 500, f"500 from {case.operation.label}: {response.text}"


@llm_schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_llm_endpoints_keep_their_openapi_contract(
    case: schemathesis.Case, refusing_provider: FakeProviderServer
) -> None:
    if isinstance(case.body, dict) and "provider" in case.body:
        case.body["provider"] = "openai"  # a configured provider, so that calls are made
    response = case.call_and_validate(
        excluded_checks=[not_a_server_error], additional_checks=[no_internal_error]
    )
    assert SECRET_KEY not in response.text


def test_the_not_blank_pattern_is_pythons_idea_of_whitespace() -> None:
    # The schema's pattern and the server's check (str.strip) must agree on every
    # character, or schemathesis' valid requests would be refused.
    pattern = re.compile(NOT_BLANK_PATTERN)

    disagree = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if bool(pattern.fullmatch(chr(code))) == chr(code).isspace()
    ]

    assert disagree == []
