"""Each precise error of answerx's tree answers with its own HTTP status and type."""

from __future__ import annotations

import json

import pytest

from answerx.errors import (
    AnswerxError,
    ConfigError,
    CredentialsMissing,
    DuplicateRun,
    ProviderError,
    ProviderRequestError,
    ProviderUnavailable,
    RunNotFound,
    StoreError,
    StructuredOutputError,
    UnknownName,
)
from answerx.service.errors import answerx_error_response


@pytest.mark.parametrize(
    ("error", "status", "type_"),
    [
        (CredentialsMissing("no API key: set OPENAI_API_KEY", provider="openai"), 502,
         "provider_not_configured"),
        (RunNotFound("no run 'x'", run_id="x"), 404, "not_found"),
        (DuplicateRun("a run with id 'x' already exists", run_id="x"), 409, "conflict"),
        (StoreError("cannot use results store 'a.db'", path="a.db"), 503, "store_unavailable"),
        (UnknownName("task", "numerc", ["numeric", "math"]), 422, "invalid_request"),
        (ConfigError("bad setting"), 422, "invalid_request"),
    ],
)  # fmt: skip
def test_each_error_answers_with_its_status_and_type(
    error: AnswerxError, status: int, type_: str
) -> None:
    response = answerx_error_response(error)

    assert response.status_code == status
    assert json.loads(bytes(response.body))["error"]["type"] == type_


def test_missing_credentials_do_not_tell_the_client_which_variable_the_server_lacks() -> None:
    error = CredentialsMissing("no API key: set the OPENAI_API_KEY variable", provider="openai")

    body = json.loads(bytes(answerx_error_response(error).body))

    assert "OPENAI_API_KEY" not in body["error"]["message"]


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (ProviderUnavailable("HTTP 503: upstream said PROVIDER-TEXT", provider="openai",
                             model="m", status_code=503),
         "openai/m is unavailable after every retry (HTTP 503)"),
        (ProviderRequestError("HTTP 400: PROVIDER-TEXT is not allowed", provider="openai",
                              model="m", status_code=400),
         "openai/m refused the request (HTTP 400)"),
        (StructuredOutputError("no mode produced a valid object", provider="openai", model="m",
                               failures=[("tools", "input_value='PROVIDER-TEXT'"),
                                         ("json", "PROVIDER-TEXT")]),
         "openai/m gave no valid answer object in any mode; modes tried: tools, json"),
        (ProviderError("PROVIDER-TEXT", provider="openai"), "openai failed"),
    ],
)  # fmt: skip
def test_a_provider_failure_says_what_failed_never_what_the_provider_said(
    error: ProviderError, message: str
) -> None:
    body = json.loads(bytes(answerx_error_response(error).body))

    assert body["error"]["type"] == "provider_error"
    assert body["error"]["message"] == message + "; the server's log has the provider's message"
    assert "PROVIDER-TEXT" not in json.dumps(body)
