"""Budgets: when they run out, one final attempt (or a forced answer) ends the approach."""

from __future__ import annotations

import asyncio

import pytest
from reasoning_script import (
    CRITIQUE,
    FINAL_ATTEMPT,
    FORCE_ANSWER,
    SKELETON,
    ScriptedModel,
    last_user_text,
    reported_usage,
)

from answerx.agent import Budget, StepLimitReached, Termination
from answerx.reasoning import get_approach
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer, Reply


def _endless_reflection(model: ScriptedModel) -> None:
    model.default = "2 + 2 = 5.\n<answer>5</answer>"
    model.on(CRITIQUE, "Wrong.\n<verdict>revise</verdict>")


def test_a_call_budget_hit_ends_with_the_final_attempt_on_the_conversation_so_far(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    _endless_reflection(model)
    model.on(FINAL_ATTEMPT, "My best answer: <answer>4</answer>")
    approach = get_approach(
        "reflection", manager, strategy="two_stage", multi_call=True, rounds=5,
        budget=Budget(max_calls=2), temperature=0.8, max_tokens=300,
    )  # fmt: skip

    response = approach.execute("What is 2 + 2?")

    # draft, critique, then no room for the revision: the final attempt instead.
    assert model.log == ["default", CRITIQUE, FINAL_ATTEMPT]
    *steps, final = fake_provider.chat_requests
    # The conversation whole (the revision prompt it had no call left for included), then
    # the final prompt: tinyAgent's messages + [prompt].
    roles = ["user", "assistant", "user", "assistant", "user", "user"]
    assert [m["role"] for m in final.messages] == roles
    assert final.messages[3]["content"] == "Wrong.\n<verdict>revise</verdict>"
    # The steps sample at the caller's temperature; the last word is at 0.
    assert [r.json["temperature"] for r in steps] == [0.8, 0.8]
    assert (final.json["temperature"], final.json["max_tokens"]) == (0, 300)
    assert response.extracted_answer == "4"
    meta = response.metadata
    assert (meta.stage, meta.termination, meta.calls) == ("final_attempt", "answer", 3)
    assert meta.budget_exhausted == "max_calls"  # type: ignore[attr-defined]
    assert response.extraction.method == "answer_block"
    assert response.usage == reported_usage(fake_provider)
    assert response.text.endswith("[final attempt]\nMy best answer: <answer>4</answer>")


def test_a_final_attempt_that_finds_nothing_raises_step_limit_reached(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    _endless_reflection(model)
    model.on(FINAL_ATTEMPT, "I cannot tell.")
    approach = get_approach(
        "reflection", manager, strategy="two_stage", multi_call=True, budget=Budget(max_calls=2)
    )

    with pytest.raises(StepLimitReached) as caught:
        approach.execute("What is 2 + 2?")

    assert caught.value.termination == Termination.EXCEED_CALLS


def test_result_mode_returns_the_termination_instead_of_raising(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    _endless_reflection(model)
    model.on(FINAL_ATTEMPT, "I cannot tell.")
    approach = get_approach(
        "reflection", manager, strategy="two_stage", multi_call=True,
        budget=Budget(max_calls=2), result_mode=True,
    )  # fmt: skip

    response = approach.execute("What is 2 + 2?")

    assert response.extracted_answer is None
    assert response.metadata.termination == "exceed available llm calls"
    assert (response.metadata.stage, response.extraction.method) == ("final_attempt", "none")


def test_a_failed_final_call_raises_step_limit_reached(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    _endless_reflection(model)
    fake_provider.enqueue(Reply.unauthorized(), when=lambda r: FINAL_ATTEMPT in last_user_text(r))
    approach = get_approach(
        "reflection", manager, strategy="two_stage", multi_call=True, budget=Budget(max_calls=2)
    )

    with pytest.raises(StepLimitReached, match="the final call failed") as caught:
        approach.execute("What is 2 + 2?")

    assert caught.value.termination == Termination.EXCEED_CALLS
    assert "sk-test" not in str(caught.value)


def test_a_concurrent_batch_starts_only_when_the_budget_allows_all_of_it(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.on(SKELETON, "1. One\n2. Two\n3. Three")
    model.on(FINAL_ATTEMPT, "<answer>4</answer>")
    approach = get_approach(
        "skeleton_of_thought", manager, strategy="two_stage", multi_call=True,
        budget=Budget(max_calls=3),
    )  # fmt: skip

    response = approach.execute("What is 2 + 2?")

    assert model.log == [SKELETON, FINAL_ATTEMPT]  # three expansions would pass max_calls
    assert (response.extracted_answer, response.metadata.calls) == ("4", 2)


def test_a_token_budget_counts_the_provider_reported_tokens(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    _endless_reflection(model)
    model.on(FINAL_ATTEMPT, "<answer>4</answer>")
    # The first reply reports 11 + 3 tokens, the second 12 + 4: 30 > 20 after two calls.
    approach = get_approach(
        "reflection", manager, strategy="two_stage", multi_call=True,
        budget=Budget(max_tokens=20),
    )  # fmt: skip

    response = approach.execute("What is 2 + 2?")

    assert model.log == ["default", CRITIQUE, FINAL_ATTEMPT]
    assert response.metadata.budget_exhausted == "max_tokens"  # type: ignore[attr-defined]
    assert response.metadata.termination == "answer"


def test_the_time_limit_ends_with_the_final_attempt_and_timeout_when_it_finds_nothing(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    model.on(SKELETON, "1. One\n2. Two", delay=0.3)
    model.on(FINAL_ATTEMPT, "No idea.")
    approach = get_approach(
        "skeleton_of_thought", manager, strategy="two_stage", multi_call=True,
        budget=Budget(time_limit_s=0.2), result_mode=True,
    )  # fmt: skip

    response = approach.execute("What is 2 + 2?")

    assert model.log == [SKELETON, FINAL_ATTEMPT]
    assert response.metadata.termination == "timeout"
    assert response.metadata.budget_exhausted == "time_limit_s"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("reply", "prediction", "termination"),
    [
        ("<think>Long.</think>\n<answer>4</answer>", "4", Termination.TOKEN_LIMIT_ANSWER),
        ("Probably four", "Probably four", Termination.TOKEN_LIMIT_FORMAT_ERROR),
    ],
)
def test_the_context_limit_forces_an_answer(
    manager: InstructorClientManager,
    model: ScriptedModel,
    reply: str,
    prediction: str,
    termination: Termination,
) -> None:
    model.default = "2 + 2 = 4 " * 40 + "<answer>4</answer>"  # a long draft
    model.on(FORCE_ANSWER, reply)
    approach = get_approach(
        "reflection", manager, strategy="two_stage", multi_call=True,
        budget=Budget(max_context_tokens=150),
    )  # fmt: skip

    response = approach.execute("What is 2 + 2?")

    assert model.log == ["default", FORCE_ANSWER]  # the critique's context would be too long
    assert response.extracted_answer == prediction
    assert response.metadata.termination == termination
    assert response.metadata.budget_exhausted == "max_context_tokens"  # type: ignore[attr-defined]


def test_aexecute_respects_the_budget_too(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    _endless_reflection(model)
    model.on(FINAL_ATTEMPT, "<answer>4</answer>")
    approach = get_approach(
        "reflection", manager, strategy="two_stage", multi_call=True, budget=Budget(max_calls=2)
    )

    response = asyncio.run(approach.aexecute("What is 2 + 2?"))

    assert model.log == ["default", CRITIQUE, FINAL_ATTEMPT]
    assert (response.extracted_answer, response.metadata.stage) == ("4", "final_attempt")


def test_a_budget_writes_out_only_its_limits_and_a_final_attempt_switched_off() -> None:
    # Run parameters, experiment configs and the JSON schema hold data, not a function.
    counted = Budget(max_calls=3, count_tokens=len)

    assert counted.model_dump() == {
        "max_calls": 3, "max_tokens": None, "max_context_tokens": None, "time_limit_s": None,
    }  # fmt: skip
    assert Budget(final_attempt=False).model_dump(exclude_none=True) == {"final_attempt": False}
    assert "count_tokens" not in Budget.model_json_schema()["properties"]
