"""``answerx ask --approach search_r1 --index INDEX.db`` against the fake provider server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reasoning_script import ScriptedModel
from typer.testing import CliRunner

from answerx.cli import app
from answerx.retrieval import bundled_index
from answerx.testing import FakeProviderServer

runner = CliRunner()
OPENAI = ["--provider", "openai", "--model", "gpt-test"]


@pytest.fixture
def fake(
    fake_provider_env: FakeProviderServer, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> FakeProviderServer:
    monkeypatch.delenv("ANSWERX_PROVIDERS", raising=False)
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)
    return fake_provider_env


def test_ask_with_an_index_runs_a_search_loop(
    fake: FakeProviderServer, model: ScriptedModel, tmp_path: Path
) -> None:
    bundled_index(tmp_path / "bundled.db").close()
    model.on("Answer the question below", "<search>Lumen Rail founder</search>")
    model.on("<information>Doc", "<answer>Tomasz Reyl</answer>")

    result = runner.invoke(app, [
        "ask", "Who founded Lumen Rail?", *OPENAI, "--approach", "search_r1",
        "--index", str(tmp_path / "bundled.db"), "--format", "json",
    ])  # fmt: skip

    assert result.exit_code == 0, result.output
    response = json.loads(result.output)
    assert response["extracted_answer"] == "Tomasz Reyl"
    assert response["metadata"]["search"]["steps"][0]["query"] == "Lumen Rail founder?"


def test_ask_a_search_approach_without_or_with_a_missing_index_fails_clearly(
    fake: FakeProviderServer, tmp_path: Path
) -> None:
    no_index = runner.invoke(app, ["ask", "Who?", *OPENAI, "--approach", "search_r1"])
    assert no_index.exit_code == 2 and "--index" in no_index.output

    missing = runner.invoke(
        app, ["ask", "Who?", *OPENAI, "-a", "ircot", "--index", str(tmp_path / "none.db")]
    )
    assert missing.exit_code == 3
