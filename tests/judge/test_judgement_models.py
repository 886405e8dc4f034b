"""The judge's verdict models: one per task, cleaning what small models write."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from answerx.judge import TASK_RULES, judgement_model


@pytest.mark.parametrize(
    ("written", "verdict"),
    [("Correct.", "correct"), ("CORRECT", "correct"), (True, "correct"), ("wrong", "incorrect"),
     ("Incorrect!", "incorrect"), ("no answer", "no_answer"), ("No_Answer", "no_answer"),
     ("abstain", "no_answer")],
)  # fmt: skip
def test_verdict_spellings_are_read(written: object, verdict: str) -> None:
    model = judgement_model("short_answer")
    ruling = model.model_validate({"reason": "r", "verdict": written, "confidence": 0.5})
    assert ruling.verdict == verdict


@pytest.mark.parametrize(
    ("written", "confidence"), [("85%", 0.85), ("0.7", 0.7), ("high", 0.9), (1, 1.0)]
)
def test_confidence_spellings_are_read(written: object, confidence: float) -> None:
    ruling = judgement_model("math").model_validate(
        {"reason": "r", "verdict": "correct", "confidence": written}
    )
    assert ruling.confidence == pytest.approx(confidence)


@pytest.mark.parametrize(
    "bad",
    [
        {"verdict": "probably"},
        {"confidence": 250},
        {"confidence": 85},
        {"confidence": -0.1},
        {"reason": 3},
    ],
)
def test_what_cannot_be_read_is_rejected_so_the_manager_re_asks(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        judgement_model("short_answer").model_validate(
            {"reason": "r", "verdict": "correct", "confidence": 0.5, **bad}
        )


def test_a_long_reason_is_cut_and_a_missing_answer_is_empty() -> None:
    ruling = judgement_model("numeric").model_validate(
        {"reason": "x " * 500, "verdict": "incorrect", "confidence": 0.9, "stated_answer": None}
    )
    assert len(ruling.reason) == 400 and ruling.reason.endswith("…")
    assert ruling.stated_answer == ""


def test_each_task_sends_its_own_rule_in_the_schema() -> None:
    short = judgement_model("short_answer").model_json_schema()
    math = judgement_model("math").model_json_schema()
    assert short["properties"]["verdict"]["description"].startswith(TASK_RULES["short_answer"])
    assert math["properties"]["verdict"]["description"].startswith(TASK_RULES["math"])
    assert short["title"] == "ShortAnswerJudgement"
    assert judgement_model("short_answer") is judgement_model("short_answer")  # built once
