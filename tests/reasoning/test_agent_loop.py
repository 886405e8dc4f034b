"""run_agent_loop / arun_agent_loop: a step of your own on the engine's one loop, against the
fake provider, ending in DeepResearch result lines."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from answerx.agent import (
    NO_ANSWER_FOUND,
    AgentRecord,
    Budget,
    StepLimitReached,
    Termination,
    read_records,
    tally_terminations,
    termination_stats,
    write_records,
)
from answerx.errors import ConfigError
from answerx.reasoning import StepResult, arun_agent_loop, run_agent_loop
from answerx.structured import InstructorClientManager
from answerx.structured.callinfo import Usage
from answerx.support.resources import prompt_template
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

QUESTION = "Who wrote Dune? Search with <search>query</search>; answer in <answer></answer>."
OPENING = [{"role": "user", "content": QUESTION}]
FINAL_PROMPT = prompt_template("final_attempt").template.strip()
FORCE_PROMPT = prompt_template("force_answer").template.strip()
SEARCHING = "I should look this up. <search>author of Dune</search>"
FOUND = "<information>Dune (1965) is a novel by Frank Herbert.</information>"
MakeManager = Callable[..., InstructorClientManager]  # the make_manager fixture of conftest.py


class SearchTool:
    """A step that answers every search with the same document and remembers the replies."""

    def __init__(self, result: str | None = FOUND) -> None:
        self.result = result
        self.replies: list[str] = []

    def __call__(self, reply: str, messages: list[dict[str, Any]]) -> str | None:
        assert messages[-1] == {"role": "assistant", "content": reply}
        self.replies.append(reply)
        return self.result


def last_content(request: RecordedRequest) -> str:
    return str(request.messages[-1]["content"])


def test_the_loop_ends_when_a_reply_holds_an_answer_block(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.text(SEARCHING, usage=(40, 10)),
        Reply.text(
            "The document says Frank Herbert. <answer>Frank Herbert</answer>", usage=(70, 12)
        ),
    )
    search = SearchTool()

    record = run_agent_loop(
        manager, OPENING, step=search, budget=Budget(max_calls=5), answer="Frank Herbert"
    )

    assert (record.prediction, record.termination) == ("Frank Herbert", "answer")
    assert (record.question, record.answer) == (QUESTION, "Frank Herbert")
    assert (record.calls, record.final_attempt) == (2, False)
    assert record.usage == Usage(input_tokens=110, output_tokens=22)
    assert [m["role"] for m in record.messages] == ["user", "assistant", "user", "assistant"]
    assert record.messages[2] == {"role": "user", "content": FOUND}
    assert search.replies == [SEARCHING]
    assert last_content(fake_provider.last_request) == FOUND


def test_a_number_in_a_search_turn_is_not_taken_for_the_answer(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.text("Dune appeared in 1965. <search>Dune 1965 author</search>"),
        Reply.text("<answer>Frank Herbert</answer>"),
    )

    record = run_agent_loop(manager, OPENING, step=SearchTool(), budget=Budget(max_calls=5))

    assert (record.prediction, record.calls) == ("Frank Herbert", 2)


def test_a_spent_call_budget_makes_one_final_attempt_at_temperature_zero(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.text(SEARCHING),
        Reply.text(SEARCHING),
        Reply.text("From the searches: <answer>Frank Herbert</answer>"),
    )

    record = run_agent_loop(
        manager, OPENING, step=SearchTool(), budget=Budget(max_calls=2), temperature=0.8
    )

    regular, final = fake_provider.requests[:2], fake_provider.requests[2]
    assert len(fake_provider.requests) == 3  # two within the budget, then the final attempt
    assert all(r.json["temperature"] == 0.8 for r in regular)
    assert final.json["temperature"] == 0
    assert last_content(final) == FINAL_PROMPT
    assert (record.prediction, record.termination) == ("Frank Herbert", "answer")
    assert (record.final_attempt, record.calls) == (True, 3)
    assert record.messages[-2:] == [
        {"role": "user", "content": FINAL_PROMPT},
        {"role": "assistant", "content": "From the searches: <answer>Frank Herbert</answer>"},
    ]


def test_a_final_attempt_that_finds_nothing_ends_with_exceed_available_llm_calls(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text(SEARCHING), Reply.text("I could not find it."))

    record = run_agent_loop(manager, OPENING, step=SearchTool(), budget=Budget(max_calls=1))

    assert (record.prediction, record.termination) == (
        "No answer found.",
        "exceed available llm calls",
    )
    assert (record.extracted_answer, record.stopped_by) == (None, Termination.EXCEED_CALLS)
    assert (record.final_attempt, record.calls) == (True, 2)


def test_outside_result_mode_a_failed_final_attempt_raises_step_limit_reached(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text(SEARCHING), Reply.text("I could not find it."))

    with pytest.raises(StepLimitReached) as raised:
        run_agent_loop(
            manager, OPENING, step=SearchTool(), budget=Budget(max_calls=1), result_mode=False
        )

    assert raised.value.termination == Termination.EXCEED_CALLS


def test_a_final_call_that_fails_is_recorded_without_a_reply_and_still_counted(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai", transient_retries=0)
    fake_provider.enqueue(Reply.text(SEARCHING, usage=(40, 8)), Reply.server_error())

    record = run_agent_loop(manager, OPENING, step=SearchTool(), budget=Budget(max_calls=1))

    assert (record.prediction, record.termination) == (NO_ANSWER_FOUND, Termination.EXCEED_CALLS)
    assert (record.final_attempt, record.calls) == (True, 2)  # the failed call was made
    assert record.usage == Usage(input_tokens=40, output_tokens=8)
    assert record.messages[-1] == {"role": "user", "content": FINAL_PROMPT}  # no reply


def test_a_token_budget_counts_like_a_call_budget(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.text(SEARCHING, usage=(600, 500)), Reply.text("Sorry, no idea.", usage=(5, 5))
    )

    record = run_agent_loop(
        manager, OPENING, step=SearchTool(), budget=Budget(max_calls=10, max_tokens=1000)
    )

    assert (record.termination, record.calls) == (Termination.EXCEED_CALLS, 2)
    assert record.usage.total_tokens == 1110


def test_a_step_that_stops_without_an_answer_gets_a_final_attempt(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("I have no tool to call."), Reply.text("<answer>42</answer>"))

    record = run_agent_loop(manager, OPENING, step=SearchTool(None), budget=Budget(max_calls=5))

    assert last_content(fake_provider.last_request) == FINAL_PROMPT
    assert (record.prediction, record.termination, record.final_attempt) == ("42", "answer", True)


def test_a_step_that_stops_and_a_fruitless_final_attempt_end_with_answer_not_found(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("I have no tool to call."), Reply.text("Still nothing."))

    record = run_agent_loop(manager, OPENING, step=SearchTool(None), budget=Budget(max_calls=5))

    assert (record.prediction, record.termination) == ("No answer found.", "answer not found")
    assert record.extracted_answer is None


def test_a_step_that_stops_on_the_last_allowed_call_reports_the_spent_budget(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("I have no tool to call."), Reply.text("Still nothing."))

    record = run_agent_loop(manager, OPENING, step=SearchTool(None), budget=Budget(max_calls=1))

    assert (record.prediction, record.termination) == (NO_ANSWER_FOUND, Termination.EXCEED_CALLS)
    assert record.calls == 2


def test_a_step_may_give_the_answer_itself(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text('finish(answer="Frank Herbert")'))

    def finish_tool(reply: str, messages: list[dict[str, Any]]) -> StepResult:
        return StepResult(answer=reply.split('"')[1])

    record = run_agent_loop(manager, OPENING, step=finish_tool, budget=Budget(max_calls=5))

    assert (record.prediction, record.termination, record.calls) == ("Frank Herbert", "answer", 1)


def test_the_time_limit_ends_the_loop_with_a_final_attempt(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    now = [100.0]

    def slow_search(reply: str, messages: list[dict[str, Any]]) -> str:
        now[0] += 30.0  # each search takes half a minute
        return FOUND

    fake_provider.enqueue(Reply.text(SEARCHING), Reply.text(SEARCHING), Reply.text("Unsure."))

    record = run_agent_loop(
        manager,
        OPENING,
        step=slow_search,
        budget=Budget(max_calls=10, time_limit_s=60),
        clock=lambda: now[0],
    )

    # DeepResearch's time-limit string, in its form for this one-minute limit.
    assert record.termination == record.prediction == "No answer found after 0h1mins"
    assert (record.extracted_answer, record.stopped_by, record.calls) == (None, "timeout", 3)
    assert last_content(fake_provider.last_request) == FINAL_PROMPT


def test_a_full_context_forces_an_answer_in_deepresearch_words(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    long_page = "<information>" + "Dune is a 1965 science-fiction novel. " * 40 + "</information>"
    fake_provider.enqueue(
        Reply.text(SEARCHING),
        Reply.text("<think>The page names Herbert.</think>\n<answer>Frank Herbert</answer>"),
    )

    record = run_agent_loop(
        manager,
        OPENING,
        step=SearchTool(long_page),
        budget=Budget(max_calls=10, max_context_tokens=200),
    )

    forced = fake_provider.last_request
    assert last_content(forced) == FORCE_PROMPT
    assert FORCE_PROMPT.startswith("You have now reached the maximum context length")
    assert forced.json["temperature"] == 0
    assert record.termination == "generate an answer as token limit reached"
    assert (record.prediction, record.final_attempt, record.calls) == ("Frank Herbert", True, 2)


def test_a_forced_reply_without_a_block_is_a_format_error_whose_prediction_is_the_reply(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    long_page = "<information>" + "Dune is a 1965 science-fiction novel. " * 40 + "</information>"
    fake_provider.enqueue(Reply.text(SEARCHING), Reply.text("Most likely Frank Herbert.\n"))

    record = run_agent_loop(
        manager,
        OPENING,
        step=SearchTool(long_page),
        budget=Budget(max_calls=10, max_context_tokens=200),
        result_mode=False,
    )

    assert record.termination == "format error: generate an answer as token limit reached"
    assert record.prediction == "Most likely Frank Herbert.\n"  # the whole reply, as written


def test_a_forced_reply_with_an_unclosed_block_is_a_format_error_for_deepresearch(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    long_page = "<information>" + "Dune is a 1965 science-fiction novel. " * 40 + "</information>"
    fake_provider.enqueue(Reply.text(SEARCHING), Reply.text("<answer>Frank Herbert"))

    record = run_agent_loop(
        manager,
        OPENING,
        step=SearchTool(long_page),
        budget=Budget(max_calls=10, max_context_tokens=200),
    )

    # DeepResearch needs both tags: its pair says format error, with the whole reply ...
    assert record.termination == "format error: generate an answer as token limit reached"
    assert record.prediction == "<answer>Frank Herbert"
    # ... while answerx's own reading keeps the answer the cut block states.
    assert (record.extracted_answer, record.stopped_by) == (
        "Frank Herbert",
        Termination.TOKEN_LIMIT_ANSWER,
    )


def test_a_loop_needs_a_limit(manager: InstructorClientManager) -> None:
    with pytest.raises(ConfigError, match="needs a limit"):
        run_agent_loop(manager, OPENING, step=SearchTool(), budget=Budget(max_context_tokens=99))


def test_the_async_loop_takes_an_async_step(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.text(SEARCHING), Reply.text(SEARCHING), Reply.text("<answer>Frank Herbert</answer>")
    )

    async def search(reply: str, messages: list[dict[str, Any]]) -> str:
        await asyncio.sleep(0)
        return FOUND

    record = asyncio.run(arun_agent_loop(manager, OPENING, step=search, budget=Budget(max_calls=2)))

    assert (record.prediction, record.termination, record.final_attempt) == (
        "Frank Herbert",
        "answer",
        True,
    )
    assert last_content(fake_provider.last_request) == FINAL_PROMPT
    assert fake_provider.last_request.json["temperature"] == 0


def test_the_async_loop_forces_an_answer_on_a_full_context(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("<answer>Frank Herbert</answer>"))
    huge_question = [{"role": "user", "content": QUESTION + " context" * 200}]

    record = asyncio.run(
        arun_agent_loop(
            manager,
            huge_question,
            step=SearchTool(),
            budget=Budget(max_calls=3, max_context_tokens=100),
        )
    )

    assert len(fake_provider.requests) == 1  # straight to the forced answer
    assert last_content(fake_provider.last_request) == FORCE_PROMPT
    assert record.termination == Termination.TOKEN_LIMIT_ANSWER


def test_loop_records_round_trip_through_a_jsonl_file_and_tally(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, tmp_path: Any
) -> None:
    fake_provider.enqueue(
        Reply.text("<answer>Frank Herbert</answer>"),
        Reply.text(SEARCHING),
        Reply.text("no idea"),
    )
    records = [
        run_agent_loop(manager, OPENING, step=SearchTool(), budget=Budget(max_calls=1)),
        run_agent_loop(manager, OPENING, step=SearchTool(), budget=Budget(max_calls=1)),
    ]
    path = tmp_path / "results.jsonl"

    write_records(path, records)

    assert read_records(path) == records
    assert isinstance(read_records(path)[0], AgentRecord)
    assert tally_terminations(path) == {"answer": 1, "exceed available llm calls": 1}
    stats = termination_stats(path)
    assert (stats.total, stats.successful, stats.success_rate) == (2, 1, 50.0)
