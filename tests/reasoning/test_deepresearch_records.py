"""DeepResearch result lines come from the engine: every approach's ``record`` (and
``run_agent_loop``) writes DeepResearch's prediction/termination strings, with answerx's
typed fields beside them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from reasoning_script import FINAL_ATTEMPT, SKELETON, ScriptedModel

from answerx.agent import Budget, Termination, termination_stats, timeout_termination
from answerx.errors import ConfigError
from answerx.reasoning import get_approach, run_agent_loop
from answerx.retrieval import Index, bundled_index
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer, Reply

QUESTION = "Who founded the company that operates the Tarn Valley Railway?"
SEARCH_R1 = "Answer the question below"
INFORMATION = "<information>Doc"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with bundled_index(tmp_path_factory.mktemp("index") / "bundled.db") as built:
        yield built


def test_a_search_agent_that_answers_records_its_answer_and_conversation(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel,
    index: Index,
) -> None:  # fmt: skip
    model.on(SEARCH_R1, "<search>Tarn Valley Railway operator</search>")
    model.on(INFORMATION, "Lumen Rail, founded by Tomasz Reyl. <answer>Tomasz Reyl</answer>")
    agent = get_approach("search_r1", manager, retriever=index)

    record = agent.record(QUESTION, gold="Tomasz Reyl")

    assert (record.question, record.answer) == (QUESTION, "Tomasz Reyl")
    assert (record.prediction, record.termination) == ("Tomasz Reyl", "answer")
    assert (record.extracted_answer, record.stopped_by) == ("Tomasz Reyl", Termination.ANSWER)
    assert [m["role"] for m in record.messages] == ["user", "assistant", "user", "assistant"]
    assert record.messages[2]["content"].startswith("<information>Doc 1")
    assert (record.calls, record.final_attempt) == (2, False)
    assert record.usage.total_tokens > 0


def test_a_search_agent_at_its_turn_limit_records_deepresearchs_no_answer(
    manager: InstructorClientManager, model: ScriptedModel, index: Index
) -> None:
    model.on(SEARCH_R1, "<search>Tarn Valley Railway</search>")
    model.on(INFORMATION, "<search>Lumen Rail</search>")
    model.on(FINAL_ATTEMPT, "I cannot tell.")
    agent = get_approach("search_r1", manager, retriever=index, max_turns=2)  # not result mode

    record = agent.record(QUESTION)  # never raises: the line says why it stopped

    assert (record.prediction, record.termination) == (
        "No answer found.",
        "exceed available llm calls",
    )
    assert (record.extracted_answer, record.stopped_by) == (None, Termination.EXCEED_CALLS)
    assert record.final_attempt and record.calls == 3
    # The transcript ends with the final prompt and its reply.
    assert FINAL_ATTEMPT in record.messages[-2]["content"]
    assert record.messages[-1] == {"role": "assistant", "content": "I cannot tell."}


def test_a_time_limit_is_recorded_in_deepresearchs_words(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    model.on(SKELETON, "1. One\n2. Two", delay=0.3)
    model.on(FINAL_ATTEMPT, "No idea.")
    approach = get_approach(
        "skeleton_of_thought", manager, strategy="two_stage", multi_call=True,
        budget=Budget(time_limit_s=0.2),
    )  # fmt: skip

    record = approach.record("What is 2 + 2?", gold="4")

    assert record.termination == record.prediction == timeout_termination(0.2)
    assert record.termination == "No answer found after 0.2s"
    assert (record.extracted_answer, record.stopped_by) == (None, Termination.TIMEOUT)
    assert termination_stats([record]).success_rate == 0.0


def test_an_approach_without_a_budget_records_its_answer(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    approach = get_approach("chain_of_thought", manager, strategy="two_stage")

    record = asyncio.run(approach.arecord("What is 2 + 2?", gold="4"))

    assert (record.prediction, record.termination, record.answer) == ("4", "answer", "4")
    assert record.messages[-1]["role"] == "assistant"
    assert termination_stats([record]).model_dump() == {
        "total": 1, "successful": 1, "by_termination": {"answer": 1}, "success_rate": 100.0,
    }  # fmt: skip


def test_a_sync_loop_refuses_an_async_step(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("<search>Dune author</search>"))

    async def search(reply: str, messages: list[dict[str, Any]]) -> str:
        return "<information>Frank Herbert</information>"

    with pytest.raises(ConfigError, match="async"):
        run_agent_loop(
            manager, [{"role": "user", "content": "Who wrote Dune?"}],
            step=search, budget=Budget(max_calls=3),  # type: ignore[arg-type]
        )  # fmt: skip
