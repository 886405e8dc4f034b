"""The multi-call variants make the calls of their method, in order, with the right context."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pytest
from reasoning_script import (
    CRITIQUE,
    EXPAND,
    PLAN,
    PROPOSE,
    REVISE,
    SCORE,
    SKELETON,
    VERIFIED,
    VERIFY,
    ScriptedModel,
    last_user_text,
    reported_usage,
)

from answerx.errors import ConfigError, ProviderAuthError
from answerx.reasoning import get_approach
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer, Reply
from concurrency_checks import Overlap


def _roles(messages: list[dict[str, str]]) -> list[str]:
    return [m["role"] for m in messages]


# --------------------------------------------------------------------------- reflection


def test_reflection_drafts_critiques_revises_and_stops_when_the_critique_finds_nothing(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.default = "2 + 2 = 5.\n<answer>5</answer>"  # the draft
    model.on(
        CRITIQUE,
        "The sum is wrong: 2 + 2 is 4.\n<verdict>revise</verdict>",
        "Everything checks out.\n<verdict>correct</verdict>",
    )
    model.on(REVISE, "Fixed: 2 + 2 = 4.\n<answer>4</answer>")

    approach = get_approach("reflection", manager, strategy="two_stage", multi_call=True, rounds=3)
    response = approach.execute("What is 2 + 2?")

    assert model.log == ["default", CRITIQUE, REVISE, CRITIQUE]
    assert response.extracted_answer == "4"
    meta = response.metadata
    assert (meta.calls, meta.revisions, meta.stopped_early) == (4, 1, True)  # type: ignore[attr-defined]
    # One conversation: the revision sees the draft and the critique before it.
    revision = fake_provider.chat_requests[2]
    assert _roles(revision.messages) == ["user", "assistant", "user", "assistant", "user"]
    assert "2 + 2 = 5." in revision.messages[1]["content"]
    assert "The sum is wrong" in revision.messages[3]["content"]
    assert response.text.index("[draft]") < response.text.index("[revision 1]")


def test_reflection_stops_after_the_rounds_allowed(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    model.default = "2 + 2 = 5.\n<answer>5</answer>"
    model.on(CRITIQUE, "Still doubtful.")  # no verdict: counts as "revise"
    model.on(REVISE, "<answer>4</answer>")

    approach = get_approach("reflection", manager, strategy="two_stage", multi_call=True, rounds=2)
    response = approach.execute("What is 2 + 2?")

    assert model.log == ["default", CRITIQUE, REVISE, CRITIQUE, REVISE]
    assert (response.metadata.revisions, response.metadata.stopped_early) == (2, False)  # type: ignore[attr-defined]


def test_reflection_with_the_structured_strategy_makes_every_answer_step_structured(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.on(CRITIQUE, "<verdict>revise</verdict>", "<verdict>correct</verdict>")

    response = get_approach("reflection", manager, multi_call=True).execute("What is 2 + 2?")

    assert model.log == ["structured", CRITIQUE, "structured", CRITIQUE]
    assert [r.tool_names for r in fake_provider.chat_requests] == [
        ["ReflectionExtraction"], [], ["ReflectionExtraction"], [],
    ]  # fmt: skip
    # The structured draft is read back to the model as reasoning plus an answer block.
    critique = fake_provider.chat_requests[1]
    assert critique.messages[1]["content"] == "2 + 2 = 4.\n\n<answer>4</answer>"
    assert response.metadata.instructor_mode == "tools"


# --------------------------------------------------------------------------- verification


def test_chain_of_verification_answers_each_question_without_the_baseline(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    question = "What is 17 * 23?"
    model.default = "BASELINE: 17 * 23 = 381.\n<answer>381</answer>"
    model.on(PLAN, "1. What is 17 * 20?\n2. What is 17 * 3?\n3. What is 340 + 51?\n4. Extra?")
    model.on(VERIFY, lambda prompt: "340." if "17 * 20" in prompt else "51 or 391.")
    model.on(VERIFIED, "So 340 + 51 = 391.\n<answer>391</answer>")

    response = get_approach(
        "chain_of_verification", manager, strategy="two_stage", multi_call=True, max_questions=3
    ).execute(question)

    # baseline, plan, the checks (at most max_questions), the verified answer
    assert model.log == ["default", PLAN, VERIFY, VERIFY, VERIFY, VERIFIED]
    assert response.extracted_answer == "391"
    checks = fake_provider.chat_requests[2:5]
    for check in checks:
        assert len(check.messages) == 1  # a conversation of its own
        assert "BASELINE" not in check.text and question not in check.text
    assert sorted(re.search(r"Question: (.*)", c.text)[1] for c in checks) == [  # type: ignore[index]
        "What is 17 * 20?", "What is 17 * 3?", "What is 340 + 51?",
    ]  # fmt: skip
    final = fake_provider.chat_requests[5]
    assert "BASELINE" in final.text  # back in the conversation
    assert "What is 17 * 20?\n   Answer: 340." in last_user_text(final)
    assert response.metadata.verification_questions == [  # type: ignore[attr-defined]
        "What is 17 * 20?", "What is 17 * 3?", "What is 340 + 51?",
    ]  # fmt: skip


def test_the_temperature_reaches_every_step_and_extraction_runs_at_zero(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.on(PLAN, "1. What is 2 + 2?\n2. Is 4 even?")
    model.on(VERIFY, "Yes.")
    model.on(VERIFIED, "Having checked it, I am sure of my sum now.")  # the rules find nothing

    response = get_approach(
        "chain_of_verification", manager, strategy="two_stage", multi_call=True,
        temperature=0.3, max_tokens=200,
    ).execute("What is 2 + 2?")  # fmt: skip

    assert model.log == ["default", PLAN, VERIFY, VERIFY, VERIFIED, "structured"]
    assert response.metadata.stage == "structured_llm"
    *steps, extraction = fake_provider.chat_requests
    assert [(r.json["temperature"], r.json["max_tokens"]) for r in steps] == [(0.3, 200)] * 5
    # Extraction copies the answer, it does not create one: temperature 0; and it copies the
    # whole reasoning, so the provider's max_tokens rather than the steps' short cap.
    assert extraction.json["temperature"] == 0
    assert extraction.json["max_tokens"] == manager.max_tokens != 200


# --------------------------------------------------------------------------- skeleton


@pytest.mark.parametrize("run", ["execute", "aexecute"])
def test_skeleton_of_thought_expands_its_points_concurrently(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    model: ScriptedModel,
    run: str,
) -> None:
    model.on(SKELETON, "1. Read the numbers\n2. Add them\n3. Check the sum")
    model.on(EXPAND, lambda p: "Expanded: " + re.search(r"point (\d)", p)[1])  # type: ignore[index]
    # Each expansion is held until all three are in flight: one after another never gets there.
    overlap = Overlap(model, together=3, timeout=5, when=lambda r: EXPAND in last_user_text(r))
    fake_provider.set_default(overlap)

    approach = get_approach("skeleton_of_thought", manager, strategy="two_stage", multi_call=True)
    if run == "execute":
        response = approach.execute("What is 2 + 2?")
    else:
        response = asyncio.run(approach.aexecute("What is 2 + 2?"))

    assert model.log == [SKELETON, EXPAND, EXPAND, EXPAND, "default"]  # outline, points, answer
    assert overlap.peak == 3  # the three expansions were in flight at the same time
    expansions = fake_provider.chat_requests[1:4]
    for request in expansions:  # each sees the whole outline
        assert "1. Read the numbers\n2. Add them\n3. Check the sum" in request.text
    answer_prompt = last_user_text(fake_provider.chat_requests[4])
    assert "1. Read the numbers\nExpanded: 1" in answer_prompt
    assert "3. Check the sum\nExpanded: 3" in answer_prompt
    assert response.extracted_answer == "4"
    assert response.metadata.skeleton_points == ["Read the numbers", "Add them", "Check the sum"]  # type: ignore[attr-defined]
    assert response.usage == reported_usage(fake_provider)


def test_a_failed_call_in_a_concurrent_batch_ends_the_approach_after_the_others(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.on(SKELETON, "1. One\n2. Two\n3. Three")
    model.on(EXPAND, "Expanded.", delay=0.2)
    fake_provider.enqueue(Reply.unauthorized(), when=lambda r: "point 2" in last_user_text(r))

    approach = get_approach("skeleton_of_thought", manager, strategy="two_stage", multi_call=True)
    with pytest.raises(ProviderAuthError, match="OPENAI_API_KEY"):
        approach.execute("What is 2 + 2?")

    assert model.log == [SKELETON, EXPAND, EXPAND]  # the other points were still expanded
    assert len(fake_provider.chat_requests) == 4  # and no answer step followed


# --------------------------------------------------------------------------- tree of thought


def test_tree_of_thought_keeps_the_best_scored_thoughts_and_answers_from_the_best_leaf(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    counter = iter(range(1, 100))
    model.on(PROPOSE, lambda _: f"idea {next(counter)}")
    # A thought's score is its number: the latest proposals of each level score best.
    model.on(SCORE, lambda p: "<score>{}</score>".format(
        re.search(r"Proposed next step:\nidea (\d+)", p)[1]  # type: ignore[index]
    ))  # fmt: skip

    response = get_approach(
        "tree_of_thought", manager, strategy="two_stage",
        multi_call=True, thoughts_per_step=3, breadth=1, depth=2,
    ).execute("What is 2 + 2?")  # fmt: skip

    assert model.log == [PROPOSE] * 3 + [SCORE] * 3 + [PROPOSE] * 3 + [SCORE] * 3 + ["default"]
    meta = response.metadata
    assert meta.best_path == ["idea 3", "idea 6"]  # type: ignore[attr-defined]
    assert (meta.best_score, meta.thoughts_scored, meta.calls) == (0.6, 6, 13)  # type: ignore[attr-defined]
    requests = fake_provider.chat_requests
    # Level 2 grows only from the kept node (breadth 1): the best of level 1.
    for proposal in requests[6:9]:
        assert "Step 1: idea 3" in proposal.text
    # Proposals are sampled; scores and the answer use the caller's settings.
    assert {r.json.get("temperature") for r in requests[:3]} == {0.7}
    assert {r.json.get("temperature") for r in requests[3:6] + requests[12:]} == {None}
    assert "Step 1: idea 3\nStep 2: idea 6" in requests[12].text
    assert response.extracted_answer == "4"


def test_tree_of_thought_with_more_breadth_expands_every_kept_node(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    model.on(PROPOSE, "Add them.")
    model.on(SCORE, "<score>5</score>")

    response = get_approach(
        "tree_of_thought", manager, multi_call=True, thoughts_per_step=2, breadth=2, depth=2
    ).execute("What is 2 + 2?")

    # Level 1: 2 proposals + 2 scores; level 2: 2 nodes × 2 = 4 + 4; then the answer.
    assert response.metadata.calls == 2 + 2 + 4 + 4 + 1
    assert model.log[-1] == "structured"


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    ("approach", "setting"),
    [
        ("reflection", {"rounds": 2}),
        ("chain_of_verification", {"max_questions": 2}),
        ("skeleton_of_thought", {"max_points": 4}),
        ("tree_of_thought", {"depth": 3}),
    ],
)
def test_a_multi_call_setting_without_multi_call_is_refused(
    manager: InstructorClientManager, approach: str, setting: dict[str, int]
) -> None:
    with pytest.raises(ConfigError, match="only apply with multi_call=True"):
        get_approach(approach, manager, **setting)


# --------------------------------------------------------------------------- providers


@pytest.mark.parametrize(
    "provider", ["anthropic", "openai", "openrouter", "cohere", "local-openai"]
)
def test_a_multi_call_conversation_works_through_every_providers_sdk(
    make_manager: Callable[..., InstructorClientManager],
    fake_provider: FakeProviderServer,
    model: ScriptedModel,
    provider: str,
) -> None:
    model.on(CRITIQUE, "Wrong.\n<verdict>revise</verdict>", "<verdict>correct</verdict>")
    manager = make_manager(provider)

    response = get_approach("reflection", manager, multi_call=True, temperature=0.3).execute(
        "What is 2 + 2?"
    )

    assert model.log == ["structured", CRITIQUE, "structured", CRITIQUE]
    assert (response.extracted_answer, response.metadata.calls) == ("4", 4)
    assert response.usage == reported_usage(fake_provider)
    assert response.metadata.instructor_mode == manager.modes[0]
    # The setting reaches every call; the manager drops it where the SDK takes none.
    dropped = "temperature" in manager.adapter.dropped_options()
    sent = {r.json.get("temperature") for r in fake_provider.chat_requests}
    assert sent == ({None} if dropped else {0.3})
