"""The LLM judge over real HTTP: the real SDKs and Instructor against the loopback fake
provider server. Tools mode first, the JSON modes after, re-asks on an invalid verdict,
and a failed call that leaves the rules' verdict standing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from answerx import verify, verify_batch
from answerx.errors import ConfigError
from answerx.experiments.cache import ResponseCache
from answerx.grading.judgement import JudgeRequest
from answerx.grading.residue import judge_totals
from answerx.judge import LLMJudge, MemoryJudgeCache
from answerx.testing import FakeProviderServer, Reply
from concurrency_checks import Overlap
from fake_managers import DUMMY_API_KEY, FAKEABLE_PROVIDERS, MakeManager

RULING = {"stated_answer": "Paris", "reason": "It commits to Paris.", "verdict": "correct",
          "confidence": 0.9}  # fmt: skip
HEDGED = "I'm not sure, perhaps Paris."
QUESTION = "What is the capital of France?"


class Flat:
    """A price: $1 per million tokens either way."""

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens + output_tokens) / 1_000_000


def _verify(judge: LLMJudge, output: str = HEDGED) -> Any:
    return verify(output, ["Paris", "City of Light"], question=QUESTION, judge=judge)


@pytest.mark.parametrize("provider", FAKEABLE_PROVIDERS)
def test_the_judge_rules_in_tools_mode_on_every_provider(
    make_manager: MakeManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    judge = LLMJudge(make_manager(provider))
    fake_provider.enqueue(Reply.tool_call(RULING, usage=(320, 45)))

    verdict = _verify(judge)

    assert (verdict.correct, verdict.reason, verdict.how) == (True, "equivalent", "llm_judge")
    ruling = verdict.judge
    assert ruling is not None
    assert (ruling.verdict, ruling.reason, ruling.confidence) == (
        "correct", "It commits to Paris.", 0.9
    )  # fmt: skip
    assert (ruling.calls, ruling.input_tokens, ruling.output_tokens) == (1, 320, 45)
    assert ruling.judge == f"{provider}/{provider}-test-model"
    (request,) = fake_provider.chat_requests
    for shown in (QUESTION, "- Paris", "- City of Light", HEDGED):
        assert shown in request.text


def test_a_provider_that_rejects_tools_is_asked_in_a_json_mode(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"))
    fake_provider.enqueue(Reply.reject_tools(), Reply.json({**RULING, "verdict": "incorrect"}))

    verdict = _verify(judge)

    assert (verdict.correct, verdict.how) == (False, "llm_judge")
    tools, json_mode = fake_provider.chat_requests
    assert tools.has_tools and not json_mode.has_tools
    assert judge.summary.requests == 2


def test_a_sloppy_verdict_is_cleaned_without_asking_again(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"))
    sloppy = {"stated_answer": None, "reason": "  Commits\n to   Paris. ",
              "verdict": "Correct.", "confidence": "85%"}  # fmt: skip
    fake_provider.enqueue(Reply.tool_call(sloppy))

    ruling = _verify(judge).judge

    assert ruling is not None
    assert (ruling.verdict, ruling.reason, ruling.confidence) == (
        "correct", "Commits to Paris.", 0.85
    )  # fmt: skip
    assert len(fake_provider.chat_requests) == 1


def test_a_malformed_verdict_is_asked_again_with_the_reason(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"))
    fake_provider.enqueue(
        Reply.tool_call({**RULING, "verdict": "probably"}), Reply.tool_call(RULING)
    )

    verdict = _verify(judge)

    assert verdict.how == "llm_judge" and verdict.correct is True
    _, again = fake_provider.chat_requests
    assert "verdict must be one of correct, incorrect, no_answer" in again.text


@pytest.mark.parametrize(
    "failure",
    [
        [Reply.server_error(503)] * 2,  # transient, retried once, then given up
        [Reply.unauthorized()],
        [Reply.invalid_json()] * 12,  # no mode yields a valid object
    ],
    ids=["server_error", "unauthorized", "never_valid"],
)
def test_a_failed_judge_call_leaves_the_rules_verdict_standing(
    make_manager: MakeManager, fake_provider: FakeProviderServer, failure: list[Reply]
) -> None:
    judge = LLMJudge(make_manager("openai", max_retries=1))
    fake_provider.set_default(failure[-1])
    fake_provider.enqueue(*failure)

    verdict = _verify(judge)

    assert (verdict.correct, verdict.reason, verdict.how) == (False, "different", "hedged_answer")
    ruling = verdict.judge
    assert ruling is not None and ruling.verdict is None
    assert ruling.reason.startswith("judge failed: openai/")  # summarised, never quoted
    assert DUMMY_API_KEY not in ruling.reason
    assert judge.summary.failed == 1


def test_the_budget_of_calls_stops_the_judge_and_says_so(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"), max_calls=1)
    fake_provider.set_default(Reply.tool_call(RULING))

    first = _verify(judge, "Maybe Paris.")
    second = _verify(judge, "Perhaps Paris?")

    assert first.how == "llm_judge"
    assert (second.how, second.correct) == ("hedged_answer", False)
    assert second.judge is not None and second.judge.verdict is None
    assert second.judge.reason == "not asked: the judge's budget of 1 calls is spent"
    assert len(fake_provider.chat_requests) == 1
    summary = judge.summary
    assert (summary.calls, summary.skipped_budget) == (1, 1)
    assert summary.stopped == "the judge's budget of 1 calls is spent"


def test_the_cost_cap_stops_the_judge_once_reached(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"), max_cost_usd=0.0005, price=Flat())
    fake_provider.set_default(Reply.tool_call(RULING, usage=(400, 100)))  # $0.0005 a call

    first, second = _verify(judge, "Maybe Paris."), _verify(judge, "Perhaps Paris?")

    assert first.judge is not None and first.judge.cost_usd == pytest.approx(0.0005)
    assert second.judge is not None and second.judge.verdict is None
    assert "cost cap of $0.0005 is reached" in second.judge.reason
    assert judge.summary.cost_usd == pytest.approx(0.0005)


def test_a_cost_cap_without_a_price_is_refused(make_manager: MakeManager) -> None:
    with pytest.raises(ConfigError, match="needs the judge model's price"):
        LLMJudge(make_manager("openai"), max_cost_usd=1.0)


def test_a_ruling_below_min_confidence_is_not_used(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"), min_confidence=0.5)
    fake_provider.enqueue(Reply.tool_call({**RULING, "confidence": 0.3}))

    verdict = _verify(judge)

    assert verdict.how == "hedged_answer"
    assert verdict.judge is not None and verdict.judge.reason.startswith("judge unsure (0.30")


def test_a_cached_ruling_costs_nothing_the_second_time(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    cache = MemoryJudgeCache()
    judge = LLMJudge(make_manager("openai"), cache=cache, price=Flat())
    fake_provider.enqueue(Reply.tool_call(RULING, usage=(300, 40)))

    first, again = _verify(judge), _verify(judge)

    assert len(fake_provider.chat_requests) == 1 and len(cache) == 1
    assert again.judge is not None and again.judge.cached
    assert (again.judge.calls, again.judge.cost_usd, again.correct) == (0, 0.0, True)
    assert first.judge is not None and not first.judge.cached
    assert judge.summary.cache_hits == 1


def test_the_experiments_response_cache_plugs_into_the_judge(
    make_manager: MakeManager, fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.enqueue(Reply.tool_call(RULING))
    cache = ResponseCache(tmp_path / "cache.db")
    _verify(LLMJudge(make_manager("openai"), cache=cache))
    cache.close()

    reopened = ResponseCache(tmp_path / "cache.db")  # a re-run, a new process
    again = _verify(LLMJudge(make_manager("openai"), cache=reopened))

    assert again.judge is not None and again.judge.cached and again.correct is True
    assert len(fake_provider.chat_requests) == 1


def test_verify_batch_sends_the_residue_to_the_judge_a_few_at_a_time(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("openai"))
    overlap = Overlap(Reply.tool_call(RULING), together=2, hold=0.05, timeout=5)
    fake_provider.set_default(overlap)
    outputs = ["<answer>Paris</answer>"] * 4 + [f"Maybe Paris ({i})." for i in range(6)]

    verdicts = verify_batch(
        outputs, [["Paris"]] * 10, questions=[QUESTION] * 10, judge=judge, judge_concurrency=2
    )

    assert [v.how for v in verdicts] == ["exact_match"] * 4 + ["llm_judge"] * 6
    assert len(fake_provider.chat_requests) == 6
    assert overlap.peak == 2  # two at once, never more
    totals = judge_totals(verdicts)
    assert (totals.doubtful, totals.judged, totals.overturned) == (6, 6, 6)


def test_the_judge_can_be_awaited(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    judge = LLMJudge(make_manager("anthropic"))
    fake_provider.enqueue(Reply.tool_call({**RULING, "verdict": "no_answer"}))
    request = JudgeRequest(
        task="short_answer", raw_output=HEDGED, answer=HEDGED, golds=("Paris",),
        question=QUESTION, doubt="guard_fired", rules_how="hedged_answer", rules_correct=False,
    )  # fmt: skip

    ruling = asyncio.run(judge.ajudge(request))

    assert (ruling.verdict, ruling.calls) == ("no_answer", 1)


def test_a_long_output_is_shown_as_its_head_and_tail(make_manager: MakeManager) -> None:
    judge = LLMJudge(make_manager("openai"), max_output_chars=600)
    output = "Question restated. " + "step " * 2000 + "So the answer is maybe Paris."
    request = JudgeRequest(
        task="short_answer", raw_output=output, answer="maybe Paris", golds=("Paris",),
        doubt="guard_fired", rules_how="hedged_answer", rules_correct=False,
    )  # fmt: skip

    prompt = judge.prompt(request)

    assert "Question restated." in prompt and "So the answer is maybe Paris." in prompt
    assert "characters left out" in prompt and len(prompt) < 4000
