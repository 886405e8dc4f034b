"""``answerx ask`` and ``answerx approaches list`` against the fake provider server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reasoning_script import CRITIQUE, ScriptedModel, last_user_text
from typer.testing import CliRunner

from answerx.cli import app
from answerx.reasoning import APPROACHES, SEARCH_APPROACHES
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

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
    lines = _rows(out)
    assert lines["answer"].split()[-1] == "4"
    assert "structured_llm (stage structured, confidence 0.90)" in lines["extracted"]
    assert lines["mode"].split()[-1] == "tools"
    assert "11 in, 3 out" in lines["tokens"]
    assert lines["time"].endswith(" s")
    assert lines["termination"].split()[-1] == "answer"
    assert fake.chat_requests[0].model == "gpt-test"


def _rows(out: str) -> dict[str, str]:
    """The summary rows under the reasoning panel, by their first word."""
    rows = [line.rstrip() for line in out.splitlines()]
    return {row.split()[0]: row for row in rows if row and row[0].isalpha()}


def test_ask_two_stage_says_the_rules_found_the_answer_without_a_structured_call(
    fake: FakeProviderServer,
) -> None:
    result = runner.invoke(app, ["ask", "What is 2 + 2?", *OPENAI, "--strategy", "two_stage"])

    assert result.exit_code == 0, result.output
    lines = _rows(result.stdout)
    assert "<answer>4</answer>" in result.stdout  # the free-text reply, verbatim
    assert "answer_block (stage deterministic, confidence 0.95)" in lines["extracted"]
    assert lines["mode"].endswith("text only (no structured call)")
    assert "1 (HTTP requests 1, fallbacks 0)" in lines["calls"]


def test_ask_shows_the_mode_fallback_and_a_structured_call_that_failed_in_every_mode(
    fake: FakeProviderServer, model: ScriptedModel
) -> None:
    model.reject_tools = True
    fell_back = runner.invoke(app, ["ask", "What is 2 + 2?", *OPENAI])

    def every_mode_fails(request: RecordedRequest) -> Reply:
        if request.has_tools:
            return Reply.reject_tools()
        if request.response_format is not None:
            return Reply.invalid_json()
        return Reply.text("I would rather not say.")

    fake.set_default(every_mode_fails)
    failed = runner.invoke(app, ["ask", "What is 2 + 2?", *OPENAI, "--strategy", "two_stage"])

    assert _rows(fell_back.stdout)["mode"].endswith("json_schema (tried tools → json_schema)")
    lines = _rows(failed.stdout)
    assert lines["mode"].endswith("none: every mode failed (tools → json_schema → json)")
    assert lines["answer"].endswith("(none)")
    assert lines["termination"].endswith("answer not found")
    requests = len(fake.chat_requests) - 2  # after the first command's two
    assert f"2 (HTTP requests {requests}, fallbacks 1)" in lines["calls"]


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


def test_ask_passes_game_of_24_numbers_and_a_time_limit(
    fake: FakeProviderServer, model: ScriptedModel
) -> None:
    model.default = "<answer>(10 - 4) * (13 - 9)</answer>"

    result = runner.invoke(app, [
        "ask", "Make 24.", *OPENAI, "-n", "4,9,10,13", "--strategy", "two_stage",
        "--time-limit", "30", "--json",
    ])  # fmt: skip

    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert (payload["extraction"]["task"], payload["extracted_answer"]) == (
        "game24", "(10 - 4) * (13 - 9)"
    )  # fmt: skip
    assert payload["parameters"]["budget"] == {"time_limit_s": 30.0}
    assert "4, 9, 10, 13" in fake.chat_requests[0].text


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
        (["-n", "4,nine"], "--numbers: expected numbers like '4,9,10,13'"),
        (["-c", "[1, 2]"], "--choices: the JSON list must hold strings"),
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

    assert result.exit_code == 5  # a provider failure: its own exit code
    assert "authentication failed" in result.output and "OPENAI_API_KEY" in result.output
    assert "Traceback" not in result.output and "test-key" not in result.output


def test_approaches_list_names_every_approach_with_what_it_does(clean_provider_env: None) -> None:
    result = runner.invoke(app, ["approaches", "list", "--format", "jsonl"])

    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["approach"] for row in rows] == list(APPROACHES)  # the search loops included
    assert [row["approach"] for row in rows if row["searches"]] == list(SEARCH_APPROACHES)
    assert all(len(row["description"].split()) > 2 for row in rows)


def test_ask_without_the_providers_key_exits_5_naming_the_variable(
    fake: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")

    result = runner.invoke(app, ["ask", "What is 2 + 2?", *OPENAI])

    assert result.exit_code == 5
    assert "OPENAI_API_KEY" in result.output and "Traceback" not in result.output
    assert fake.chat_requests == []  # refused before any call
