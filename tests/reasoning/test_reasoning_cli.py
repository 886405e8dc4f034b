"""``answerx ask`` and ``answerx approaches`` against the fake provider server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reasoning_script import CRITIQUE, ScriptedModel, last_user_text
from typer.testing import CliRunner

from answerx.cli import app
from answerx.reasoning import APPROACHES
from answerx.testing import FakeProviderServer, Reply

pytestmark = pytest.mark.filterwarnings(
    "ignore:The `__fields__` attribute is deprecated:DeprecationWarning"
)

runner = CliRunner()
OPENAI = ["--provider", "openai", "--model", "gpt-test"]


@pytest.fixture
def fake(
    fake_provider_env: FakeProviderServer, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> FakeProviderServer:
    """The fake server, with OPENAI_BASE_URL and a dummy OPENAI_API_KEY pointing at it."""
    monkeypatch.delenv("ANSWERX_PROVIDERS", raising=False)
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)
    return fake_provider_env


def test_ask_prints_the_reasoning_answer_method_mode_tokens_and_time(
    fake: FakeProviderServer,
) -> None:
    result = runner.invoke(app, ["ask", "What is 2 + 2?", *OPENAI])

    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "2 + 2 = 4." in out  # the reasoning
    assert "chain_of_thought · structured · openai/gpt-test" in out
    rows = [line.rstrip() for line in out.splitlines()]
    lines = {row.split()[0]: row for row in rows if row and row[0].isalpha()}
    assert lines["answer"].split()[-1] == "4"
    assert "structured_llm (stage structured, confidence 0.90)" in lines["extracted"]
    assert lines["mode"].split()[-1] == "tools"
    assert "11 in, 3 out" in lines["tokens"]
    assert lines["time"].endswith(" s")
    assert lines["termination"].split()[-1] == "answer"
    assert fake.chat_requests[0].model == "gpt-test"


def test_ask_json_prints_the_whole_standard_response(fake: FakeProviderServer) -> None:
    result = runner.invoke(
        app, ["ask", "What is 2 + 2?", *OPENAI, "--strategy", "two_stage", "--json"]
    )

    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["extracted_answer"] == "4"
    assert payload["metadata"]["stage"] == "deterministic"
    assert payload["extraction"]["method"] == "answer_block"
    assert payload["usage"] == {"input_tokens": 11, "output_tokens": 3}


def test_ask_passes_choices_settings_budget_and_prompt_dir(
    fake: FakeProviderServer, model: ScriptedModel, tmp_path: Path
) -> None:
    model.on(CRITIQUE, "<verdict>correct</verdict>")
    (tmp_path / "chain_of_thought.txt").write_text("MY PROMPT $question$choices_block")

    result = runner.invoke(app, [
        "ask", "Which is 2 + 2?", *OPENAI, "-a", "reflection", "--strategy", "two_stage",
        "-c", "3", "-c", "4", "--set", "multi_call=true", "--set", "rounds=1",
        "--max-calls", "5", "--prompt-dir", str(tmp_path), "--json",
    ])  # fmt: skip

    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["parameters"]["settings"]["rounds"] == 1
    assert payload["parameters"]["budget"] == {"max_calls": 5}
    assert payload["metadata"]["calls"] == 2  # draft, critique (nothing to fix)
    assert last_user_text(fake.chat_requests[0]) == (
        "MY PROMPT Which is 2 + 2?\nOptions:\nA. 3\nB. 4"
    )


def test_ask_reads_the_question_from_stdin(fake: FakeProviderServer) -> None:
    result = runner.invoke(app, ["ask", "-", *OPENAI, "--json"], input="What is 2 + 2?\n")

    assert result.exit_code == 0, result.output
    assert "What is 2 + 2?" in fake.chat_requests[0].text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-a", "socratic"], "valid approaches: none, chain_of_thought"),
        (["--strategy", "guess"], "valid strategies: structured, two_stage"),
        (["--set", "multi_call"], "--set: expected KEY=VALUE"),
        (["-a", "reflection", "--set", "rounds=2"], "only apply with multi_call=True"),
    ],
)
def test_ask_usage_errors_exit_2_with_the_valid_choices(
    fake: FakeProviderServer, args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["ask", "What is 2 + 2?", *OPENAI, *args])

    assert result.exit_code == 2
    assert message in result.output
    assert fake.chat_requests == []  # refused before any call


def test_ask_reports_a_provider_error_without_a_traceback_or_the_key(
    fake: FakeProviderServer,
) -> None:
    fake.enqueue(Reply.unauthorized())

    result = runner.invoke(app, ["ask", "What is 2 + 2?", *OPENAI])

    assert result.exit_code == 1
    assert "authentication failed" in result.output and "OPENAI_API_KEY" in result.output
    assert "Traceback" not in result.output and "test-key" not in result.output


def test_approaches_lists_every_approach_on_one_line(clean_provider_env: None) -> None:
    result = runner.invoke(app, ["approaches"])

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(APPROACHES)
    assert all(len(line.split()) > 2 for line in lines)
