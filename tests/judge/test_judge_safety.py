"""The judge made safe to use (issue 38): a confidence floor by default, a confidence
outside [0, 1] asked again rather than rescaled, failures said, "asked" counted as the
calls made within the budget, and a refusal of tools mode remembered for the run."""

from __future__ import annotations

from typing import Any

from answerx import verify
from answerx.grading.judgement import DEFAULT_JUDGE_MIN_CONFIDENCE
from answerx.grading.residue import judge_totals
from answerx.judge import LLMJudge
from answerx.testing import FakeProviderServer, Reply
from fake_managers import MakeManager

SURE = {"stated_answer": "Lyon", "reason": "It commits to Lyon.", "verdict": "correct",
        "confidence": 0.9}  # fmt: skip
QUESTION = "Which city is the capital of Gaul's silk trade?"


def _ask(judge: LLMJudge, output: str = "Maybe Lyon, or perhaps Paris.") -> Any:
    return verify(output, ["Lyon"], question=QUESTION, judge=judge)


def test_a_low_confidence_ruling_leaves_the_rules_verdict_by_default(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"))
    assert judge.min_confidence == DEFAULT_JUDGE_MIN_CONFIDENCE == 0.5
    fake_provider.enqueue(Reply.tool_call({**SURE, "confidence": 0.3}))

    verdict = _ask(judge)

    assert (verdict.correct, verdict.how) == (False, "several_candidates")
    assert verdict.judge is not None and verdict.judge.verdict is None
    assert verdict.judge.reason.startswith("judge unsure (0.30 < 0.50)")


def test_a_confidence_outside_zero_to_one_is_asked_again_not_rescaled(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"))
    fake_provider.enqueue(Reply.tool_call({**SURE, "confidence": 85}), Reply.tool_call(SURE))

    verdict = _ask(judge)

    assert verdict.judge is not None and verdict.judge.confidence == 0.9
    _, again = fake_provider.chat_requests
    assert "confidence" in again.text and "less than or equal to 1" in again.text


def test_a_judge_failing_on_every_call_says_so_with_the_reason(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai", max_retries=1))
    fake_provider.set_default(Reply.unauthorized())

    verdicts = [_ask(judge, output) for output in ("Maybe Lyon.", "Perhaps Lyon?")]

    summary = judge.summary
    assert summary.failed_on_all and summary.failed == 2
    assert summary.failure is not None and summary.failure.startswith("judge failed")
    totals = judge_totals(verdicts)  # what a run's closing line reads
    assert totals.failed_on_all and totals.failure == summary.failure


def test_a_judge_that_answered_once_has_not_failed_on_all(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai", max_retries=1))
    fake_provider.enqueue(Reply.tool_call(SURE))
    fake_provider.set_default(Reply.unauthorized())

    verdicts = [_ask(judge, "Maybe Lyon."), _ask(judge, "Perhaps Lyon?")]

    assert judge.summary.failed == 1 and not judge.summary.failed_on_all
    assert not judge_totals(verdicts).failed_on_all


def test_asked_counts_only_the_calls_the_budget_allowed(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"), max_calls=1)
    fake_provider.set_default(Reply.tool_call(SURE))

    verdicts = [_ask(judge, out) for out in ("Maybe Lyon.", "Perhaps Lyon?", "Lyon, I guess.")]

    assert (judge.summary.asked, judge.summary.skipped_budget) == (1, 2)
    totals = judge_totals(verdicts)
    assert (totals.doubtful, totals.asked, totals.judged) == (3, 1, 1)


def test_a_server_that_rejects_tools_is_asked_in_json_mode_from_then_on(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"))
    fake_provider.enqueue(Reply.reject_tools(), Reply.json(SURE), Reply.json(SURE))

    _ask(judge, "Maybe Lyon.")
    _ask(judge, "Perhaps Lyon?")

    first_tools, first_json, second = fake_provider.chat_requests
    assert first_tools.has_tools and not first_json.has_tools
    assert not second.has_tools  # one request for the second question
    assert judge.summary.requests == 3
