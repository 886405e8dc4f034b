"""The residue: rules decide first, a judge is asked only where they are unsure, and a
judge that cannot answer leaves the rules' verdict standing."""

from __future__ import annotations

import threading
import time

import pytest

from answerx import verify, verify_batch
from answerx.errors import ProviderUnavailable
from answerx.grading.judgement import Judge, JudgeRequest, JudgeRuling
from answerx.grading.residue import judge_totals


class ScriptedJudge:
    """A judge double: answers ``verdict`` for every request and records what it saw."""

    def __init__(self, verdict: str | None = "correct", *, pause_s: float = 0.0) -> None:
        self.verdict = verdict
        self.pause_s = pause_s
        self.requests: list[JudgeRequest] = []
        self._lock = threading.Lock()
        self.in_flight = self.peak = 0

    def judge(self, request: JudgeRequest) -> JudgeRuling:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        time.sleep(self.pause_s)  # holds the slot so that overlapping calls can be counted
        with self._lock:
            self.in_flight -= 1
        return JudgeRuling(
            verdict=self.verdict,  # type: ignore[arg-type]
            reason="scripted" if self.verdict else "budget spent",
            confidence=0.9 if self.verdict else None,
            judge="script",
            calls=1 if self.verdict else 0,
            input_tokens=100,
            output_tokens=20,
            cost_usd=0.001,
        )


def test_the_scripted_judge_is_a_judge() -> None:
    assert isinstance(ScriptedJudge(), Judge)


def test_a_confident_verdict_never_reaches_the_judge() -> None:
    judge = ScriptedJudge("incorrect")
    verdict = verify("<answer>Paris</answer>", ["Paris"], judge=judge)
    assert (verdict.correct, verdict.how, verdict.judge) == (True, "exact_match", None)
    assert judge.requests == []


def test_a_guarded_short_answer_is_put_to_the_judge_with_the_question() -> None:
    judge = ScriptedJudge("correct")
    verdict = verify(
        "I'm not sure, perhaps Paris.", ["Paris", "City of Light"],
        question="What is the capital of France?", judge=judge,
    )  # fmt: skip
    (request,) = judge.requests
    assert request.question == "What is the capital of France?"
    assert request.golds == ("Paris", "City of Light")
    assert (request.doubt, request.rules_how, request.rules_correct) == (
        "guard_fired", "hedged_answer", False
    )  # fmt: skip
    assert (verdict.correct, verdict.reason, verdict.how) == (True, "equivalent", "llm_judge")
    assert verdict.judge is not None
    assert (verdict.judge.reason, verdict.judge.rules_how) == ("scripted", "hedged_answer")


def test_a_finished_output_with_no_answer_is_put_to_the_judge() -> None:
    judge = ScriptedJudge("no_answer")
    verdict = verify("Let me look that up in the documents.", ["Paris"], "math", judge=judge)
    assert judge.requests[0].doubt == "nothing_extracted"
    assert (verdict.reason, verdict.how) == ("no_answer", "llm_judge")


def test_an_unfinished_output_is_not_put_to_the_judge() -> None:
    judge = ScriptedJudge()
    verdict = verify("<think>Let me see, the capital", ["Paris"], judge=judge)
    assert (verdict.reason, verdict.doubt, judge.requests) == ("unfinished", None, [])


def test_a_fallback_guess_out_of_a_longer_output_is_put_to_the_judge() -> None:
    judge = ScriptedJudge("incorrect")
    verdict = verify("Several steps.\nThen 12 apples and 30 pears remain.", "30", judge=judge)
    assert judge.requests[0].doubt == "low_confidence_guess"
    assert (verdict.correct, verdict.how) == (False, "llm_judge")


def test_an_output_that_is_only_the_answer_is_no_guess() -> None:
    assert verify("30", "30").doubt is None
    assert verify("Paris", ["Paris"]).doubt is None


def test_a_judge_that_does_not_rule_leaves_the_rules_verdict() -> None:
    verdict = verify("Maybe Paris.", ["Paris"], judge=ScriptedJudge(None))
    assert (verdict.correct, verdict.how) == (False, "hedged_answer")
    assert verdict.judge is not None and verdict.judge.verdict is None
    assert verdict.judge.reason == "budget spent"


def test_a_judge_that_raises_a_provider_error_leaves_the_rules_verdict() -> None:
    class Down:
        def judge(self, request: JudgeRequest) -> JudgeRuling:
            raise ProviderUnavailable("HTTP 503", provider="openai", model="m")

    verdict = verify("Maybe Paris.", ["Paris"], judge=Down())
    assert (verdict.correct, verdict.how) == (False, "hedged_answer")
    assert verdict.judge is not None and "ProviderUnavailable" in verdict.judge.reason


def test_without_a_judge_the_residue_is_still_marked() -> None:
    verdict = verify("Either Paris or Lyon.", ["Paris"])
    assert (verdict.correct, verdict.doubt, verdict.judge) == (False, "guard_fired", None)


@pytest.mark.parametrize("workers", [None, 1])
def test_verify_batch_asks_the_judge_about_the_residue_only(workers: int | None) -> None:
    judge = ScriptedJudge("correct")
    verdicts = verify_batch(
        ["<answer>Paris</answer>", "Maybe Paris", "<answer>Lyon</answer>", "Paris or Lyon"],
        [["Paris"]] * 4, questions=["Capital of France?"] * 4, judge=judge, workers=workers,
    )  # fmt: skip
    assert [v.how for v in verdicts] == ["exact_match", "llm_judge", "no_match", "llm_judge"]
    assert sorted(r.raw_output for r in judge.requests) == ["Maybe Paris", "Paris or Lyon"]
    totals = judge_totals(verdicts)
    assert (totals.items, totals.doubtful, totals.asked, totals.judged) == (4, 2, 2, 2)
    assert (totals.overturned, totals.calls, totals.input_tokens) == (2, 2, 200)
    assert totals.cost_usd == pytest.approx(0.002)
    assert totals.residue_share == 0.5


def test_verify_batch_bounds_the_judge_calls_in_flight() -> None:
    judge = ScriptedJudge("correct", pause_s=0.05)
    verify_batch(["Maybe Paris"] * 12, [["Paris"]] * 12, judge=judge, judge_concurrency=3)
    assert len(judge.requests) == 12
    assert 1 <= judge.peak <= 3


def test_judge_concurrency_must_be_positive() -> None:
    from answerx.errors import InputError

    with pytest.raises(InputError, match="judge_concurrency"):
        verify_batch(["x"], ["x"], judge=ScriptedJudge(), judge_concurrency=0)
