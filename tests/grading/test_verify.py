"""verify(): a raw output against its gold answer — extraction, then grading."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import answerx
from answerx.errors import InputError
from answerx.grading import verify

CHOICES = ["Mercury", "Venus", "Earth", "Mars"]

OUTPUTS = [
    # (raw output, gold, task, correct, reason)
    ("6 * 7 = 42, so the answer is 42.", "42", "auto", True, "equivalent"),
    ("Each box holds 12, so 3 boxes hold 36.\n#### 36", 36, "auto", True, "equivalent"),
    (
        "So she has $1,234.50 left.\nThe answer is $1,234.50.",
        "1234.5",
        "numeric",
        True,
        "equivalent",
    ),
    (r"Hence the value is $\boxed{\dfrac{1}{2}}$.", "0.5", "math", True, "equivalent"),
    (r"Hence $\boxed{(x+1)^2}$.", "x^2+2x+1", "math", True, "equivalent"),
    ("Only the second planet fits. The answer is (B).", "B", "auto", True, "equivalent"),
    ("The answer is Venus.", "B", "multiple_choice", True, "equivalent"),
    ("The answer is (C).", "B", "auto", False, "different"),
    ("I am not sure how to solve this.", "42", "numeric", False, "no_answer"),
    ("The answer is 41.", None, "numeric", None, "unreadable_gold"),
]


@pytest.mark.parametrize(("raw", "gold", "task", "correct", "reason"), OUTPUTS)
def test_an_output_is_judged_by_the_answer_it_states(
    raw: str, gold: str | int | None, task: str, correct: bool | None, reason: str
) -> None:
    verdict = verify(raw, gold, task, choices=CHOICES if task == "multiple_choice" else None)
    assert (verdict.correct, verdict.reason) == (correct, reason)
    assert verdict.extraction is not None and verdict.extraction.raw_output == raw


def test_the_verdict_carries_the_answer_the_gold_and_the_time_spent() -> None:
    verdict = answerx.verify("The answer is $\\frac{3}{4}$.", "0.75")
    assert (verdict.answer, verdict.gold, verdict.how) == ("3/4", "0.75", "fraction")
    assert verdict.elapsed_s > 0
    assert verdict.extraction is not None and verdict.extraction.method == "final_answer_phrase"


def test_a_wrong_stated_answer_is_different_not_missing() -> None:
    verdict = verify("3 + 4 = 8. The answer is 8.", "7")
    assert (verdict.correct, verdict.reason, verdict.answer) == (False, "different", "8")


def test_game24_output_is_judged_on_its_numbers() -> None:
    raw = "Input: 4 7 8 8\nSteps: ...\nAnswer: (7 - 8 / 8) * 4 = 24"
    assert verify(raw, None, "game24", numbers=[4, 7, 8, 8]).correct is True
    assert verify(raw.replace("(7 - 8 / 8)", "(7 - 8 / 8 + 1)"), None,
                  numbers=[4, 7, 8, 8]).correct is False  # fmt: skip


def test_raw_output_must_be_text() -> None:
    with pytest.raises(InputError, match="string"):
        verify(None, "4")  # type: ignore[arg-type]


def items() -> list[tuple[str, str, str]]:
    cases = [(raw, str(gold), task) for raw, gold, task, _, _ in OUTPUTS if gold is not None]
    math = [
        (f"The answer is ${a}$.", g, "math")
        for a, g in [(r"\frac{\sqrt2}{2}", r"\sqrt{2}/2"), ("x=3", "2"), ("3,2", "2,3"),
                     (r"\{2, 1\}", r"\{1,2\}"), ("(0,1]", "[0,1)"), ("k < -5", r"(-\infty, -5)"),
                     (r"\pi k + \frac{\pi}{6}", r"\frac{\pi}{6} + k\pi"),
                     (r"\tan^2(y)+1", r"\sec^2(y)"), (r"\cos^2(y)", r"1 - \sin^2(y)")]
    ]  # fmt: skip
    return (cases + math) * 4


def test_verdicts_from_worker_threads_are_the_main_threads_verdicts() -> None:
    cases = items()

    def judge(case: tuple[str, str, str]) -> tuple[object, ...]:
        v = verify(
            case[0], case[1], case[2], choices=CHOICES if case[2] == "multiple_choice" else None
        )
        return (v.correct, v.reason, v.how, v.answer)

    on_main = [judge(c) for c in cases]
    with ThreadPoolExecutor(max_workers=8) as pool:
        off_main = list(pool.map(judge, cases))
    assert off_main == on_main
    hows = {how for _, _, how, _ in on_main}
    assert "equivalent" in {r for _, r, _, _ in on_main}
    assert {"math_verify", "symbolic_fast", "symbolic_interval"} <= hows  # both rungs ran


def test_an_output_cut_off_before_its_answer_is_unfinished() -> None:
    verdict = verify("<think>6 * 7 is 4", "42")
    assert (verdict.correct, verdict.reason, verdict.answer) == (False, "unfinished", None)
    cut = verify("Let me add 40 and 2, which gives", "42", "numeric", finish_reason="length")
    assert cut.reason == "unfinished"


def test_a_malformed_stated_answer_is_reported_as_such() -> None:
    raw = "Input: 4 7 8 8\nAnswer: (7 - 8 / 8) * 4 * 8 = 24"  # uses 8 three times
    verdict = verify(raw, None, "game24", numbers=[4, 7, 8, 8])
    assert (verdict.correct, verdict.reason) == (False, "malformed_answer")
    letter = verify("The answer is (H).", "B", choices=CHOICES)
    assert (letter.correct, letter.reason, letter.answer) == (False, "malformed_answer", "H")
