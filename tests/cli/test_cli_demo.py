"""``answerx demo`` against the fake provider instead of the bundled local model."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from answerx.cli import app
from answerx.examples import load_examples
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

ANSWER = {"full_reasoning_text": "Worked it out.", "answer_value": "26", "confidence": 0.9}


def _model(request: RecordedRequest) -> Reply:
    if request.has_tools or request.response_format is not None:
        return Reply.tool_call(ANSWER, usage=(40, 10))
    return Reply.text("Step by step.\n<answer>26</answer>", usage=(30, 8))


def test_demo_extracts_verifies_then_reasons_and_compares_with_the_llm(
    fake_provider_env: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    fake_provider_env.set_default(_model)
    result = CliRunner().invoke(
        app, ["demo", "--provider", "openai", "--model", "gpt-test", "--limit", "1",
              "--questions", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.output
    sections = ["1. deterministic extraction", "2. verification", "3. reasoning", "4. determ"]
    assert [out.index(s) for s in sections] == sorted(out.index(s) for s in sections)
    judged = sum(e.expected is not None for e in load_examples())
    assert f"bundled outputs: {judged} of {judged} right" in out
    assert "wrong (different)" in out and "right (equivalent)" in out
    assert "rules (answer_block)" in out  # the stage (and rule) that produced the answer
    assert "arith-01" in result.output and "chain_of_thought" in result.output
    assert "reflection" in result.output
    # one structured extraction, then chain_of_thought (1 call) and reflection (3 calls)
    assert len(fake_provider_env.chat_requests) == 1 + 1 + 3


def test_a_failing_question_is_a_row_not_a_crash(
    fake_provider_env: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    fake_provider_env.set_default(Reply.error(400, "model not found"))
    result = CliRunner().invoke(
        app, ["demo", "--provider", "openai", "--model", "gpt-test", "--limit", "0",
              "--questions", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "(error)" in result.output and "model not found" in result.output
