"""tinyAgent's final attempt at the step limit (seed 001): ReactAgent asks once more for its
best answer at temperature 0, reads an ``answer`` from the reply, and raises StepLimitReached
only when that finds nothing either."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from answerx.agent import Budget, StepLimitReached, Termination, final_attempt
from answerx.reasoning import run_agent_loop
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer, Reply

STEP = [{"role": "user", "content": "What is 6 * 7? Think in steps."}]
WORKING = '{"thought": "I should compute it step by step.", "action": "calculate"}'


def _observe(reply: str, messages: list[dict[str, Any]]) -> str:
    return "Observation: 6 * 7 = 42"


def test_the_step_limit_gets_one_final_attempt_asking_for_the_best_answer_now(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text(WORKING), Reply.text(WORKING), Reply.text('{"answer": 42}'))

    record = run_agent_loop(manager, STEP, step=_observe, budget=Budget(max_calls=2))

    final = fake_provider.last_request
    # tinyAgent's sentence, then answerx's request for an <answer> block.
    assert final.messages[-1]["content"].startswith("Return your best final answer now.")
    assert final.messages[:-1] == record.messages[:-2]  # messages + [the prompt]: appended
    assert final.json["temperature"] == 0
    assert (record.extracted_answer, record.final_attempt, record.calls) == ("42", True, 3)


def test_a_prompt_directory_gives_tinyagents_final_prompt_word_for_word(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    (tmp_path / "final_attempt.txt").write_text("Return your best final answer now.\n")
    fake_provider.enqueue(Reply.text('{"answer": 42}'))

    final_attempt(manager, STEP, prompt_dir=tmp_path)

    sent = fake_provider.last_request.messages[-1]
    assert sent == {"role": "user", "content": "Return your best final answer now."}


def test_an_answer_field_of_the_final_reply_is_the_answer(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text('{"answer": "42"}'))

    final = final_attempt(manager, STEP)

    assert (final.prediction, final.extraction.method) == ("42", "json_answer")
    assert final.termination == Termination.ANSWER


def test_a_final_attempt_without_an_answer_raises_step_limit_reached(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text(WORKING), Reply.text("I am not sure."))

    with pytest.raises(StepLimitReached) as raised:
        run_agent_loop(manager, STEP, step=_observe, budget=Budget(max_calls=1), result_mode=False)

    assert raised.value.termination == Termination.EXCEED_CALLS
