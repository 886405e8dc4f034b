"""DeepResearch's answer extraction pattern, terminations and result files (seed 000), on the
seed's own examples, through answerx's one agent loop and its records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from answerx import extract
from answerx.agent import (
    AgentRecord,
    Budget,
    BudgetTracker,
    Termination,
    estimate_tokens,
    extract_answer_from_response,
    read_records,
    termination_stats,
    write_records,
)
from answerx.reasoning import run_agent_loop
from answerx.structured import InstructorClientManager
from answerx.support.resources import prompt_template
from answerx.testing import FakeProviderServer, Reply
from seeds.seed_examples import seed_example

# The seed's example responses.
RESPONSE_WITH_ANSWER = """
<think>
Based on my research, I found multiple sources confirming that Paris is the capital of France.
The city has been the capital since 987 CE.
</think>
<answer>
Paris is the capital of France.
</answer>
"""
RESPONSE_WITHOUT_ANSWER = """
<think>
I need to search for more information to answer this question accurately.
</think>
<tool_call>
{"name": "search", "arguments": {"query": "capital of France"}}
</tool_call>
"""
# The seed's FORCE_ANSWER_PROMPT (its line breaks are the page's wrapping).
SEED_FORCE_ANSWER_PROMPT = """You have now reached the maximum context length you can handle.
You should stop making tool calls and, based on all the information above,
think again and provide what you consider the most likely answer in the
following format:<think>your final thinking</think>
<answer>your answer</answer>"""
QUESTION = [{"role": "user", "content": "What is the capital of France?"}]
TOOL_RESPONSE = "<tool_response>Paris is the capital and largest city of France.</tool_response>"


def _search(reply: str, messages: list[dict[str, Any]]) -> str:
    return TOOL_RESPONSE


def _words(text: str) -> str:
    return " ".join(text.split())


@seed_example("000", 75, "if '<answer>' in messages[-1]['content']:")
@seed_example("000", 76, "prediction = messages[-1]['content'].split('<answer>')[1]")
def test_an_answer_tag_in_the_last_reply_is_the_prediction_and_the_answer_termination(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text(RESPONSE_WITHOUT_ANSWER), Reply.text(RESPONSE_WITH_ANSWER))

    record = run_agent_loop(manager, QUESTION, step=_search, budget=Budget(max_calls=5))

    # The seed's slice, as written: its line breaks are kept.
    assert (record.prediction, record.termination) == (
        "\nParis is the capital of France.\n",
        "answer",
    )
    assert record.extracted_answer == "Paris is the capital of France"  # answerx's, cleaned
    assert record.calls == 2  # the tool-call reply has no answer: the loop went on


@seed_example("000", 75, "if '<answer>' in messages[-1]['content']:")
def test_an_unclosed_answer_tag_is_the_prediction_up_to_the_end_of_the_reply(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text("<think>Found it.</think>\n<answer>Kell."))

    record = run_agent_loop(manager, QUESTION, step=_search, budget=Budget(max_calls=5))

    assert (record.prediction, record.termination) == ("Kell.", "answer")
    assert record.extracted_answer == "Kell"


@seed_example("000", 109, "if '<answer>' in response and '</answer>' in response:")
@seed_example("000", 111, "return prediction.strip(), 'answer'")
@seed_example("000", 112, "return 'No answer found.', 'answer not found'",
              option="extract_answer_from_response")  # fmt: skip
def test_a_reply_without_answer_tags_gives_no_answer() -> None:
    # answerx's default: the answer is cleaned, and a reply without tags has no block.
    assert extract(RESPONSE_WITH_ANSWER).answer == "Paris is the capital of France"
    assert extract(RESPONSE_WITHOUT_ANSWER).method != "answer_block"
    # The seed's function: the first block, stripped, and its no-answer pair.
    assert extract_answer_from_response(RESPONSE_WITH_ANSWER) == (
        "Paris is the capital of France.",
        "answer",
    )
    assert extract_answer_from_response(RESPONSE_WITHOUT_ANSWER) == (
        "No answer found.",
        "answer not found",
    )
    drafts = "<answer>draft</answer> then <answer>final</answer>"
    assert (extract(drafts).answer, extract_answer_from_response(drafts)[0]) == ("final", "draft")


@seed_example("000", 79, "prediction = 'No answer found.'")
@seed_example("000", 80, "termination = 'answer not found'", option="Budget(final_attempt=False)")
def test_no_answer_is_recorded_as_no_answer_found_and_answer_not_found(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    def stop(reply: str, messages: list[dict[str, Any]]) -> None:
        return None

    # answerx's default: one final attempt, which answers here.
    fake_provider.enqueue(Reply.text("I give up."), Reply.text("<answer>Paris</answer>"))
    record = run_agent_loop(manager, QUESTION, step=stop, budget=Budget(max_calls=5))
    assert (record.prediction, record.termination, record.final_attempt) == (
        "Paris",
        "answer",
        True,
    )

    # DeepResearch's: no final attempt, no answer.
    fake_provider.enqueue(Reply.text("I give up."))
    record = run_agent_loop(
        manager, QUESTION, step=stop, budget=Budget(max_calls=5, final_attempt=False)
    )
    assert (record.prediction, record.termination) == ("No answer found.", "answer not found")
    assert (record.extracted_answer, record.final_attempt, record.calls) == (None, False, 1)


@seed_example("000", 81, "if num_llm_calls_available == 0:")
@seed_example("000", 82, "termination = 'exceed available llm calls'",
              option="Budget(final_attempt=False)")  # fmt: skip
def test_no_calls_left_is_recorded_as_exceed_available_llm_calls(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    # answerx's default: the final attempt answers.
    fake_provider.enqueue(Reply.text(RESPONSE_WITHOUT_ANSWER), Reply.text("<answer>Paris</answer>"))
    record = run_agent_loop(manager, QUESTION, step=_search, budget=Budget(max_calls=1))
    assert (record.prediction, record.termination, record.calls) == ("Paris", "answer", 2)

    # DeepResearch's: the calls are spent, so that is the termination.
    fake_provider.enqueue(Reply.text(RESPONSE_WITHOUT_ANSWER))
    record = run_agent_loop(
        manager, QUESTION, step=_search, budget=Budget(max_calls=1, final_attempt=False)
    )
    assert (record.prediction, record.termination, record.calls) == (
        "No answer found.",
        "exceed available llm calls",
        1,
    )


@seed_example(
    "000", 230, 'FORCE_ANSWER_PROMPT = """You have now reached the maximum context length'
)
def test_the_forced_answer_prompt_is_deepresearchs_wording() -> None:
    prompt = prompt_template("force_answer").safe_substitute()

    assert _words(prompt) == _words(SEED_FORCE_ANSWER_PROMPT)


def _forced(manager: InstructorClientManager, fake: FakeProviderServer, reply: str) -> AgentRecord:
    fake.enqueue(Reply.text(RESPONSE_WITHOUT_ANSWER), Reply.text(reply))
    page = TOOL_RESPONSE * 30  # the context outgrows the limit after the first search
    return run_agent_loop(
        manager,
        QUESTION,
        step=lambda r, m: page,
        budget=Budget(max_calls=9, max_context_tokens=300),
    )


@seed_example("000", 247, "if '<answer>' in response and '</answer>' in response:")
@seed_example("000", 249, "termination = 'generate an answer as token limit reached'")
@pytest.mark.parametrize(
    ("reply", "prediction"),
    # Both tags anywhere make an answer, in either order: the seed tests with `in`.
    [("<think>Paris.</think>\n<answer>Paris</answer>", "Paris"),
     ("</answer> oops <answer>Kell", "Kell")],
)  # fmt: skip
def test_a_forced_reply_with_both_tags_is_an_answer_as_token_limit_reached(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, reply: str, prediction: str
) -> None:
    record = _forced(manager, fake_provider, reply)

    assert _words(fake_provider.last_request.messages[-1]["content"]) == _words(
        SEED_FORCE_ANSWER_PROMPT
    )
    assert (record.prediction, record.termination) == (
        prediction,
        "generate an answer as token limit reached",
    )


@seed_example("000", 240, "messages[-1]['content'] = FORCE_ANSWER_PROMPT")
def test_the_forced_prompt_takes_the_place_of_the_last_tool_response(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    _forced(manager, fake_provider, "<answer>Paris</answer>")

    sent = fake_provider.last_request.messages
    # DeepResearch overwrites the last message (the tool response) with the prompt.
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"] == RESPONSE_WITHOUT_ANSWER
    assert _words(sent[2]["content"]) == _words(SEED_FORCE_ANSWER_PROMPT)


@seed_example("000", 251, "prediction = response  # Use full response as fallback")
@seed_example("000", 252, "termination = 'format error: generate an answer as token limit reached'")
@pytest.mark.parametrize(
    "reply", ["Most likely Paris.\n", "<think>Paris.</think>\n<answer>Paris", ""]
)
def test_a_forced_reply_without_both_tags_is_a_format_error_with_the_whole_reply(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, reply: str
) -> None:
    record = _forced(manager, fake_provider, reply)

    assert (record.prediction, record.termination) == (
        reply,
        "format error: generate an answer as token limit reached",
    )


@seed_example("000", 72, '"No answer found after 2h30mins" - Time limit')
def test_the_time_limit_is_recorded_as_no_answer_found_after_2h30mins(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    now = [0.0]

    def slow_search(reply: str, messages: list[dict[str, Any]]) -> str:
        now[0] += 100 * 60  # each search takes 100 minutes of the 150
        return TOOL_RESPONSE

    fake_provider.enqueue(*[Reply.text(RESPONSE_WITHOUT_ANSWER)] * 2, Reply.text("Unsure."))

    record = run_agent_loop(
        manager, QUESTION, step=slow_search, budget=Budget(time_limit_s=150 * 60),
        clock=lambda: now[0],
    )  # fmt: skip

    assert record.prediction == record.termination == "No answer found after 2h30mins"
    assert record.stopped_by == Termination.TIMEOUT


@seed_example("000", 84, "result = {")
@seed_example("000", 89, '"termination": termination # Exit reason')
def test_a_result_line_holds_deepresearchs_five_fields(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.enqueue(Reply.text(RESPONSE_WITH_ANSWER))
    record = run_agent_loop(
        manager, QUESTION, step=_search, budget=Budget(max_calls=3), answer="Paris"
    )
    path = tmp_path / "iter1.jsonl"

    write_records(path, [record])

    line = json.loads(path.read_text(encoding="utf-8"))
    assert {"question", "answer", "messages", "prediction", "termination"} <= set(line)
    assert (line["question"], line["answer"]) == ("What is the capital of France?", "Paris")
    assert line["messages"][-1]["content"] == RESPONSE_WITH_ANSWER


@seed_example("000", 287, "stats['success_rate'] = stats['successful'] / stats['total'] * 100")
@seed_example("000", 300, "'success_rate': 85.0")
def test_the_evaluation_counts_as_deepresearchs_example(tmp_path: Path) -> None:
    reasons = (
        ["answer"] * 85
        + ["exceed available llm calls"] * 10
        + ["generate an answer as token limit reached"] * 5
    )
    path = tmp_path / "results.jsonl"
    lines = [{"question": f"q{i}", "answer": "a", "messages": [], "prediction": "p",
              "termination": reason} for i, reason in enumerate(reasons)]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    assert termination_stats(path).model_dump() == {
        "total": 100,
        "successful": 85,
        "by_termination": {
            "answer": 85,
            "exceed available llm calls": 10,
            "generate an answer as token limit reached": 5,
        },
        "success_rate": 85.0,
    }
    assert len(read_records(path)) == 100


@seed_example("000", 277, "result = json.loads(line)")
@seed_example("000", 280, "termination = result['termination']")
def test_result_files_are_read_line_by_line_as_deepresearch_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "iter1.jsonl"
    line = {"question": "What is quantum computing?", "answer": "A type of computation",
            "messages": [], "prediction": "No answer found.",
            "termination": "exceed available llm calls"}  # fmt: skip
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")

    [record] = read_records(path)

    assert (record.prediction, record.termination) == (line["prediction"], line["termination"])
    assert (record.stopped_by, record.extracted_answer) == (Termination.EXCEED_CALLS, None)


@seed_example("000", 311, "Implementation:Alibaba_NLP_DeepResearch_count_tokens",
              option="Budget(count_tokens=…)")  # fmt: skip
def test_the_context_limit_is_checked_on_an_estimate_of_tokens() -> None:
    messages = [{"role": "user", "content": "x" * 400}]
    # answerx's default: characters / 4, no tokenizer to download.
    assert estimate_tokens(messages) == 100
    assert BudgetTracker(Budget(max_context_tokens=99)).context_exceeded(messages)

    # DeepResearch counts with the model's tokenizer: any counter can be given.
    def one_token_per_message(request: list[dict[str, Any]]) -> int:
        return len(request)

    counted = Budget(max_context_tokens=99, count_tokens=one_token_per_message)
    assert not BudgetTracker(counted).context_exceeded(messages)
