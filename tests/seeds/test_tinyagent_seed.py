"""tinyAgent's final attempt at the step limit (seed 001): ReactAgent asks once more for its
best answer at temperature 0, reads an ``answer`` from the reply, and raises StepLimitReached
only when that finds nothing either; TinyCodeAgent raises at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from answerx.agent import Budget, StepLimitReached, Termination, final_attempt, raise_if_unanswered
from answerx.reasoning import run_agent_loop
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer, Reply
from seeds.seed_examples import seed_example

STEP = [{"role": "user", "content": "What is 6 * 7? Think in steps."}]
WORKING = '{"thought": "I should compute it step by step.", "action": "calculate"}'
OBSERVATION = "Observation: 6 * 7 = 42"
SEED_PROMPT = "Return your best final answer now."


def _observe(reply: str, messages: list[dict[str, Any]]) -> str:
    return OBSERVATION


@seed_example("001", 39, 'Uses specific prompt**: "Return your best final answer now."',
              option="prompt_dir")  # fmt: skip
def test_the_step_limit_gets_one_final_attempt_asking_for_the_best_answer_now(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.enqueue(Reply.text(WORKING), Reply.text(WORKING), Reply.text('{"answer": 42}'))

    record = run_agent_loop(manager, STEP, step=_observe, budget=Budget(max_calls=2))

    # answerx's default: tinyAgent's sentence, then a request for an <answer> block.
    prompt = fake_provider.last_request.messages[-1]["content"]
    assert prompt.startswith(SEED_PROMPT) and prompt != SEED_PROMPT
    assert (record.extracted_answer, record.final_attempt, record.calls) == ("42", True, 3)

    # The tool's prompt word for word: a prompt directory overrides the template.
    (tmp_path / "final_attempt.txt").write_text(SEED_PROMPT + "\n")
    fake_provider.enqueue(Reply.text('{"answer": 42}'))
    final_attempt(manager, STEP, prompt_dir=tmp_path)
    assert fake_provider.last_request.messages[-1] == {"role": "user", "content": SEED_PROMPT}


@seed_example("001", 48, "0,")
@seed_example("001", 76, "ReactAgent uses temperature=0 for final attempt")
def test_the_final_attempt_runs_at_temperature_zero(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text(WORKING), Reply.text('{"answer": 42}'))

    run_agent_loop(manager, STEP, step=_observe, budget=Budget(max_calls=1), temperature=0.7)

    assert fake_provider.chat_requests[0].json["temperature"] == 0.7
    assert fake_provider.last_request.json["temperature"] == 0


@seed_example(
    "001", 47, 'messages + [{"role": "user", "content": "Return your best final answer now."}]'
)
def test_the_final_prompt_is_appended_after_the_last_observation(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text(WORKING), Reply.text(WORKING), Reply.text('{"answer": 42}'))

    record = run_agent_loop(manager, STEP, step=_observe, budget=Budget(max_calls=2))

    sent = fake_provider.last_request.messages
    # messages + [prompt]: the conversation whole, its last observation included.
    assert sent[:-1] == [
        *STEP,
        {"role": "assistant", "content": WORKING},
        {"role": "user", "content": OBSERVATION},
        {"role": "assistant", "content": WORKING},
        {"role": "user", "content": OBSERVATION},
    ]
    assert sent[-1]["content"].startswith(SEED_PROMPT)
    assert record.messages[: len(sent)] == sent


@seed_example("001", 52, 'if "answer" in payload:')
@seed_example("001", 53, 'return payload["answer"]')
def test_an_answer_field_of_the_final_reply_is_the_answer(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text('{"answer": "42"}'))

    final = final_attempt(manager, STEP)

    assert (final.prediction, final.extraction.method) == ("42", "json_answer")
    assert final.termination == Termination.ANSWER


@seed_example("001", 52, 'if "answer" in payload:', option='answer_field="answer"')
@pytest.mark.parametrize(("reply", "value"), [('{"answer": ""}', ""), ('{"answer": null}', None)])
def test_an_empty_or_null_answer_field_is_returned_as_tinyagent_returns_it(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, reply: str, value: Any
) -> None:
    # answerx's default: an empty answer is no answer, so the step limit is raised.
    fake_provider.enqueue(Reply.text(reply))
    with pytest.raises(StepLimitReached):
        raise_if_unanswered(final_attempt(manager, STEP))

    # tinyAgent's: the field's value, as given.
    fake_provider.enqueue(Reply.text(reply))
    final = raise_if_unanswered(final_attempt(manager, STEP, answer_field="answer"))
    assert (final.prediction, final.termination) == (value, Termination.ANSWER)


@seed_example("001", 54, 'raise StepLimitReached("Exceeded max steps without an answer.")')
def test_a_final_attempt_without_an_answer_raises_step_limit_reached(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.text(WORKING), Reply.text("I am not sure."))

    with pytest.raises(StepLimitReached) as raised:
        run_agent_loop(manager, STEP, step=_observe, budget=Budget(max_calls=1), result_mode=False)

    assert str(raised.value) == "Exceeded max steps without an answer."
    assert raised.value.termination == Termination.EXCEED_CALLS
    assert len(fake_provider.chat_requests) == 2  # the final attempt was made first


@seed_example("001", 59, "Raises StepLimitReached without any final attempt",
              option="Budget(final_attempt=False)")  # fmt: skip
def test_tinycodeagents_immediate_raise_is_a_budget_without_the_final_attempt(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    # answerx's default follows ReactAgent everywhere: a final attempt, which answers.
    fake_provider.enqueue(Reply.text(WORKING), Reply.text('{"answer": 42}'))
    record = run_agent_loop(manager, STEP, step=_observe, budget=Budget(max_calls=1))
    assert (record.extracted_answer, record.calls) == ("42", 2)

    # TinyCodeAgent's: the step limit raises at once, no further call.
    fake_provider.enqueue(Reply.text(WORKING))
    with pytest.raises(StepLimitReached) as raised:
        run_agent_loop(
            manager, STEP, step=_observe, budget=Budget(max_calls=1, final_attempt=False),
            result_mode=False,
        )  # fmt: skip
    assert raised.value.termination == Termination.EXCEED_CALLS
    assert len(fake_provider.chat_requests) == 3
