"""Each precise error of answerx's tree answers with its own HTTP status and type."""

from __future__ import annotations

import json

import pytest

from answerx.errors import (
    AnswerxError,
    ConfigError,
    CredentialsMissing,
    DuplicateRun,
    RunNotFound,
    StoreError,
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
