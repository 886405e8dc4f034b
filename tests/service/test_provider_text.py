"""No provider text reaches a client whole: a failed call is summarised, never quoted,
and what a provider writes loses every piece of a configured key, plain or encoded.

Reproductions of issue 35's first point, over real HTTP on 127.0.0.1: the server's
judge (``answerx serve --judge``) and ``answerx ask`` talk to the fake provider
server, which answers with a body quoting the key in 7-character pieces and in
base64 and naming the key's variable.
"""

from __future__ import annotations

import base64
import json
import urllib.parse

import httpx
import pytest
from typer.testing import CliRunner

from answerx.cli import app
from answerx.structured.retries import Backoff
from answerx.testing import FakeProviderServer, Reply
from conftest import StartService

#: Not shaped like any provider's key: only the configured-key redactor can find it.
KEY = "Zx9qL2mP4tR8vW1nB6yK3hD7fG5jQ0aLc8Ve"
VERIFY = {"raw_output": "I am not sure, perhaps Paris or Lyon.", "gold": ["Paris"],
          "question": "Capital?"}  # fmt: skip


def echoes_of(key: str) -> str:
    """A provider's text that quotes ``key`` in every way seen: in 7-character pieces,
    base64 (alone and inside a ``Basic user:key`` header), URL-encoded, and names its
    variable."""
    pieces = " ".join(key[i : i + 7] for i in range(0, len(key), 7))
    basic = base64.b64encode(f"user:{key}".encode()).decode()
    return (
        f"check OPENAI_API_KEY; you sent {pieces}, i.e. {base64.b64encode(key.encode()).decode()}"
        f" (Authorization: Basic {basic}) from ?key={urllib.parse.quote('/' + key)}"
    )


def leaks(text: str, key: str = KEY) -> list[str]:
    """Every 6-character piece of ``key``, of its base64 forms, and of its variable's
    name, found in ``text``."""
    forms = [key, base64.b64encode(key.encode()).decode()[:-4], "OPENAI_API_KEY"]
    return [f[i : i + 6] for f in forms for i in range(len(f) - 5) if f[i : i + 6] in text]


@pytest.fixture
def keyed(fake_env: FakeProviderServer, monkeypatch: pytest.MonkeyPatch) -> FakeProviderServer:
    """The fake provider, the server's key being :data:`KEY`; failed calls retried at once."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setattr(Backoff, "pause", lambda self, exc, failed_try: 0.0)
    return fake_env


@pytest.mark.parametrize(
    ("status", "summary"),
    [(500, "ProviderUnavailable (HTTP 500)"), (401, "ProviderAuthError (HTTP 401)")],
)
def test_a_judge_whose_provider_fails_is_summarised_never_quoted(
    keyed: FakeProviderServer, start_service: StartService, status: int, summary: str
) -> None:
    keyed.set_default(Reply.error(status, echoes_of(KEY)))
    url = start_service(judge="openai/judge-model", judge_cache="off")

    with httpx.Client(base_url=url, timeout=30) as http:
        response = http.post("/v1/verify", json=VERIFY)

    assert response.status_code == 200
    ruling = response.json()["judge"]
    assert ruling["verdict"] is None
    assert ruling["reason"] == f"judge failed: openai/judge-model: {summary}"
    assert leaks(response.text) == []
    assert "you sent" not in response.text


def test_a_judges_reason_loses_every_echo_of_the_key(
    keyed: FakeProviderServer, start_service: StartService
) -> None:
    ruling = {"stated_answer": "Paris", "verdict": "correct", "confidence": 0.9,
              "reason": f"It commits to Paris. {echoes_of(KEY)}"}  # fmt: skip
    keyed.set_default(Reply.tool_call(ruling))
    url = start_service(judge="openai/judge-model", judge_cache="off")

    with httpx.Client(base_url=url, timeout=30) as http:
        verdict = http.post("/v1/verify", json=VERIFY).json()

    assert verdict["judge"]["verdict"] == "correct"
    assert verdict["judge"]["reason"].startswith("It commits to Paris.")
    # The model's own words are passed on (a variable's name among them), its echoes not.
    assert leaks(json.dumps(verdict).replace("OPENAI_API_KEY", "")) == []


def test_ask_json_prints_no_piece_of_a_key_the_model_echoes(
    keyed: FakeProviderServer,
) -> None:
    keyed.set_default(Reply.text(f"I was sent {KEY} and {echoes_of(KEY)}. The answer is 4."))

    result = CliRunner().invoke(
        app, ["ask", "What is 2 + 2?", "--provider", "openai", "--model", "m",
              "--strategy", "two_stage", "--format", "json"],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["extracted_answer"] == "4"
    assert leaks(payload["text"].replace("OPENAI_API_KEY", "")) == []
    assert leaks(result.stdout.replace("OPENAI_API_KEY", "")) == []


def test_ask_as_a_table_prints_no_piece_of_a_key_the_model_echoes(
    keyed: FakeProviderServer,
) -> None:
    keyed.set_default(Reply.text(f"I was sent {KEY}. The answer is {KEY[:12]}."))

    result = CliRunner().invoke(
        app, ["ask", "Key?", "--provider", "openai", "--model", "m", "--strategy", "two_stage"]
    )

    assert result.exit_code == 0, result.output
    assert leaks(result.stdout) == []
