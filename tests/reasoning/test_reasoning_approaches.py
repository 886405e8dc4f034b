"""Every approach × both strategies × (single prompt, multi-call) through the real SDKs:
a StandardResponse with the answer, the real usage summed, and the true mode."""

from __future__ import annotations

import asyncio
from typing import Any, get_args

import pytest
from reasoning_script import (
    CRITIQUE,
    EXPAND,
    FINAL_ATTEMPT,
    PLAN,
    PROPOSE,
    SCORE,
    SKELETON,
    STRUCTURED_4,
    VERIFY,
    ScriptedModel,
    last_user_text,
    reported_usage,
)

from answerx.agent import Budget
from answerx.errors import ConfigError
from answerx.extraction import AnswerSpec
from answerx.reasoning import APPROACHES, SEARCH_APPROACHES, StandardResponse, get_approach
from answerx.reasoning.single import MultiCallReasoning
from answerx.structured import Approach, InstructorClientManager, Usage
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

# The reasoning approaches (the search loops, which need a retriever, have their own tests).
REASONING = [name for name in APPROACHES if name not in SEARCH_APPROACHES]
MULTI_CALL = [name for name, cls in APPROACHES.items() if issubclass(cls, MultiCallReasoning)]
VARIANTS = [(name, False) for name in REASONING] + [(name, True) for name in MULTI_CALL]


def _script_every_step(model: ScriptedModel) -> None:
    model.on(CRITIQUE, "All steps are right.\n<verdict>correct</verdict>")
    model.on(PLAN, "1. What is 2 + 2?\n2. Is 4 even?")
    model.on(VERIFY, "Yes, it is 4.")
    model.on(SKELETON, "1. Add the numbers\n2. Check the sum")
    model.on(EXPAND, "Adding 2 and 2 gives 4.")
    model.on(PROPOSE, "Add 2 and 2.")
    model.on(SCORE, "Correct and useful. <score>8</score>")


def test_the_registry_covers_every_approach_of_the_extraction_models() -> None:
    assert tuple(REASONING) == get_args(Approach)
    assert sorted(MULTI_CALL) == [
        "chain_of_verification", "reflection", "skeleton_of_thought", "tree_of_thought",
    ]  # fmt: skip


@pytest.mark.parametrize("run", ["execute", "aexecute"])
@pytest.mark.parametrize("strategy", ["structured", "two_stage"])
@pytest.mark.parametrize(("approach", "multi_call"), VARIANTS)
def test_every_approach_and_strategy_answers_with_the_real_usage_and_mode(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    model: ScriptedModel,
    approach: str,
    multi_call: bool,
    strategy: str,
    run: str,
) -> None:
    _script_every_step(model)
    settings: dict[str, Any] = {"multi_call": True} if multi_call else {}
    reasoning = get_approach(approach, manager, strategy=strategy, **settings)

    if run == "execute":
        response = reasoning.execute("What is 2 + 2?")
    else:
        response = asyncio.run(reasoning.aexecute("What is 2 + 2?"))

    assert isinstance(response, StandardResponse)
    assert response.extracted_answer == "4"
    assert response.usage == reported_usage(fake_provider)
    assert response.usage.input_tokens > 0
    meta = response.metadata
    assert (meta.reasoning_type, meta.strategy, meta.termination) == (approach, strategy, "answer")
    requests = fake_provider.chat_requests
    assert meta.calls == meta.attempts == len(requests)
    assert (meta.calls > 1) is multi_call
    assert meta.fallbacks == 0
    if strategy == "structured":
        # The answer step is one structured call whose tool is the approach's model.
        assert (meta.stage, meta.instructor_mode, meta.modes_tried) == (
            "structured", "tools", ("tools",)
        )  # fmt: skip
        assert response.extraction.method == "structured_llm"
        structured = [r for r in requests if r.has_tools]
        assert structured[-1].tool_names == [MODEL_APPROACHES_MODEL_NAMES[approach]]
    else:
        # The rules read "<answer>4</answer>": no structured call at all.
        assert (meta.stage, meta.instructor_mode) == ("deterministic", None)
        assert response.extraction.method == "answer_block"
        assert not any(r.has_tools for r in requests)
    assert response.provider == "openai" and response.model == "openai-test-model"
    assert response.generation_time > 0
    assert response.parameters["approach"] == approach


MODEL_APPROACHES_MODEL_NAMES = {
    "none": "DirectAnswerExtraction",
    "chain_of_thought": "ChainOfThoughtExtraction",
    "tree_of_thought": "TreeOfThoughtExtraction",
    "program_of_thought": "ProgramOfThoughtExtraction",
    "reasoning_as_planning": "ReasoningAsPlanningExtraction",
    "reflection": "ReflectionExtraction",
    "chain_of_verification": "ChainOfVerificationExtraction",
    "skeleton_of_thought": "SkeletonOfThoughtExtraction",
}


@pytest.mark.parametrize(("approach", "multi_call"), VARIANTS)
def test_a_tools_rejection_records_the_fallback_mode_actually_used(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    model: ScriptedModel,
    approach: str,
    multi_call: bool,
) -> None:
    _script_every_step(model)
    model.reject_tools = True
    settings: dict[str, Any] = {"multi_call": True} if multi_call else {}

    response = get_approach(approach, manager, **settings).execute("What is 2 + 2?")

    meta = response.metadata
    assert response.extracted_answer == "4"
    assert (meta.instructor_mode, meta.modes_tried) == ("json_schema", ("tools", "json_schema"))
    # One structured answer step (the critique finds nothing to fix): one fallback,
    # one extra HTTP request; every other call is free text.
    assert (meta.fallbacks, meta.attempts) == (1, meta.calls + 1)
    assert meta.attempts == len(fake_provider.chat_requests)
    assert response.usage == reported_usage(fake_provider)  # the 400 reported no usage


def test_two_stage_asks_the_llm_only_when_the_rules_find_nothing(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.default = "I would rather not commit to anything here."
    model.reject_tools = True

    response = get_approach("chain_of_thought", manager, strategy="two_stage").execute(
        "What is 2 + 2?"
    )

    meta = response.metadata
    assert (response.extracted_answer, meta.stage) == ("4", "structured_llm")
    assert response.extraction.method == "structured_llm"
    assert response.extraction.raw_output == model.default  # what the answer was read from
    assert response.text == model.default
    assert (meta.instructor_mode, meta.calls, meta.fallbacks) == ("json_schema", 2, 1)
    extraction_request = fake_provider.chat_requests[-1]
    assert model.default in extraction_request.text  # the reply went to extraction
    assert response.usage == reported_usage(fake_provider)


def test_two_stage_keeps_a_weak_rule_answer_below_a_lowered_threshold(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.default = "Adding gives 4"  # only the last-number fallback (confidence 0.3) finds it

    asked = get_approach("chain_of_thought", manager, strategy="two_stage").execute("2 + 2?")
    kept = get_approach(
        "chain_of_thought", manager, strategy="two_stage", min_confidence=0.2
    ).execute("2 + 2?")

    assert (asked.metadata.stage, asked.metadata.calls) == ("structured_llm", 2)
    assert (kept.metadata.stage, kept.metadata.calls) == ("deterministic", 1)
    assert (kept.extraction.method, kept.extraction.confidence) == ("last_number", 0.3)


def test_multiple_choice_lists_lettered_options_and_binds_the_answer_to_a_letter(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.structured = {"full_reasoning_text": "Plants.", "answer_value": "(B)", "confidence": 1}

    response = get_approach("chain_of_thought", manager).execute(
        "Where does photosynthesis happen?", choices=["Mitochondrion", "Chloroplast"]
    )

    assert response.extracted_answer == "B"
    assert response.extraction.task == "multiple_choice"
    request = fake_provider.chat_requests[0]
    assert "A. Mitochondrion\nB. Chloroplast" in request.text
    schema = request.tools[0]["function"]["parameters"]
    assert schema["properties"]["answer_value"]["enum"] == ["A", "B"]


def test_an_items_spec_binds_the_answer_as_its_choices_do(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.structured = {"full_reasoning_text": "Plants.", "answer_value": "(B)", "confidence": 1}
    spec = AnswerSpec.for_item("auto", ["Mitochondrion", "Chloroplast"])

    response = get_approach("chain_of_thought", manager, task="text").execute(
        "Where does photosynthesis happen?", spec=spec
    )

    assert (response.extracted_answer, response.extraction.task) == ("B", "multiple_choice")
    schema = fake_provider.chat_requests[0].tools[0]["function"]["parameters"]
    assert schema["properties"]["answer_value"]["enum"] == ["A", "B"]
    with pytest.raises(ConfigError, match="not both"):
        get_approach("none", manager).execute("2 + 2?", spec=spec, choices=["3", "4"])


def test_aexecute_gives_the_same_response_as_execute(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    _script_every_step(model)
    approach = get_approach("chain_of_verification", manager, multi_call=True)

    sync = approach.execute("What is 2 + 2?")
    sync_requests = [r.text for r in fake_provider.chat_requests]
    fake_provider.reset()
    fake_provider.set_default(model)
    async_ = asyncio.run(approach.aexecute("What is 2 + 2?"))

    assert async_.extracted_answer == sync.extracted_answer == "4"
    assert async_.metadata.calls == sync.metadata.calls
    assert sorted(r.text for r in fake_provider.chat_requests) == sorted(sync_requests)
    assert async_.text == sync.text


def test_execute_works_inside_a_running_event_loop(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    async def notebook_cell() -> StandardResponse:
        return get_approach("chain_of_thought", manager).execute("What is 2 + 2?")

    assert asyncio.run(notebook_cell()).extracted_answer == "4"


def _extraction_always_fails(request: RecordedRequest) -> Reply:
    """Tools refused (no usage), JSON modes answered with invalid JSON that still costs
    tokens, free text that the rules cannot read, and a final attempt that answers."""
    if request.has_tools:
        return Reply.reject_tools()
    if request.response_format is not None:
        return Reply.invalid_json(usage=(30, 7))
    if FINAL_ATTEMPT in last_user_text(request):
        return Reply.text("<answer>4</answer>", usage=(5, 1))
    return Reply.text("I would rather not say.", usage=(20, 6))


@pytest.mark.parametrize("run", ["execute", "aexecute"])
def test_two_stage_keeps_the_rules_result_when_every_extraction_mode_fails(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, run: str
) -> None:
    fake_provider.set_default(_extraction_always_fails)
    approach = get_approach("chain_of_thought", manager, strategy="two_stage")

    if run == "execute":
        response = approach.execute("2 + 2?")
    else:
        response = asyncio.run(approach.aexecute("2 + 2?"))

    meta = response.metadata
    assert (response.extracted_answer, meta.termination) == (None, "answer not found")
    assert (meta.stage, response.extraction.method) == ("deterministic", "none")
    assert "no mode produced a valid object" in meta.structured_extraction_error  # type: ignore[attr-defined]
    # The failed extraction call counts: its requests, its modes and the tokens it used.
    assert meta.calls == 2  # the text call and the failed extraction call
    assert meta.attempts == len(fake_provider.chat_requests) == 4  # text, tools, schema, json
    assert (meta.instructor_mode, meta.modes_tried) == (None, ("tools", "json_schema", "json"))
    assert response.usage == Usage(input_tokens=20 + 30 + 30, output_tokens=6 + 7 + 7)


def test_a_cut_off_extraction_keeps_the_rules_result_and_the_provider_max_tokens(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    """The extraction copies the whole reasoning: it is not held to the steps' short cap,
    and when it is cut off anyway the rules' (weak) answer stands, with the reason."""

    def replies(request: RecordedRequest) -> Reply:
        if request.has_tools:
            return Reply.tool_call(STRUCTURED_4, truncated=True, usage=(30, 7))
        return Reply.text("We add them and get 4 at the end", usage=(20, 6))

    fake_provider.set_default(replies)
    approach = get_approach("chain_of_thought", manager, strategy="two_stage", max_tokens=64)

    response = approach.execute("2 + 2?")

    text_call, extraction_call = fake_provider.chat_requests[:2]
    assert text_call.body["max_tokens"] == 64
    assert extraction_call.body["max_tokens"] == manager.max_tokens  # the provider's default
    assert (response.extracted_answer, response.metadata.stage) == ("4", "deterministic")
    assert response.extraction.method == "last_number"
    assert "cut off" in response.metadata.structured_extraction_error  # type: ignore[attr-defined]


def test_the_budget_counts_the_tokens_of_a_failed_extraction(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.set_default(_extraction_always_fails)
    # The draft's 26 tokens leave room; with the failed extraction's 74 the critique has none.
    approach = get_approach(
        "reflection", manager, strategy="two_stage", multi_call=True,
        budget=Budget(max_tokens=50),
    )  # fmt: skip

    response = approach.execute("2 + 2?")

    meta = response.metadata
    assert (meta.stage, meta.budget_exhausted) == ("final_attempt", "max_tokens")  # type: ignore[attr-defined]
    assert not any(CRITIQUE in last_user_text(r) for r in fake_provider.chat_requests)
    assert (response.extracted_answer, meta.calls) == ("4", 3)
    assert response.usage == Usage(input_tokens=20 + 60 + 5, output_tokens=6 + 14 + 1)


@pytest.mark.parametrize(
    ("stated", "answer"),
    [
        ("(10 - 4) * (13 - 9)", "(10 - 4) * (13 - 9)"),
        ("(10 - 4) * 4", None),  # 24, but not with the given numbers: refused in every mode
    ],
)
def test_two_stage_extraction_of_a_game_of_24_is_bound_to_the_numbers(
    manager: InstructorClientManager,
    fake_provider: FakeProviderServer,
    model: ScriptedModel,
    stated: str,
    answer: str | None,
) -> None:
    model.default = "Combining them somehow gives twenty-four, I believe."
    model.structured = {"full_reasoning_text": "Combine.", "answer_value": stated, "confidence": 1}

    response = get_approach("chain_of_thought", manager, strategy="two_stage").execute(
        "Make 24 from 4, 9, 10 and 13.", numbers=[4, 9, 10, 13]
    )

    assert response.extraction.task == "game24"
    assert response.extracted_answer == answer
    extraction_request = fake_provider.chat_requests[1]
    assert extraction_request.has_tools
    assert "uses each of 4, 9, 10, 13 once" in extraction_request.text


def test_two_stage_forces_an_answer_instead_of_extracting_from_a_cut_off_reply(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    """A reply cut at the token limit that states nothing has nothing to extract: one
    force_answer call (as the agent layer makes at its context limit), no extraction call."""

    def replies(request: RecordedRequest) -> Reply:
        if "maximum context length" in request.text:
            return Reply.text("<think>2 + 2 is 4.</think>\n<answer>4</answer>", usage=(40, 9))
        return Reply.text("We start by adding 2 and 2, which gives", truncated=True, usage=(20, 64))

    fake_provider.set_default(replies)
    response = get_approach("chain_of_thought", manager, strategy="two_stage").execute("2 + 2?")

    assert len(fake_provider.chat_requests) == 2
    assert not any(r.has_tools for r in fake_provider.chat_requests)  # no extraction call
    meta = response.metadata
    assert (response.extracted_answer, meta.stage) == ("4", "final_attempt")
    assert meta.forced_answer == "generate an answer as token limit reached"  # type: ignore[attr-defined]
    assert meta.calls == 2


def test_two_stage_reports_the_finish_reason_of_the_last_reply(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.set_default(Reply.text("2 + 2 = 4. The answer is 4."))
    response = get_approach("chain_of_thought", manager, strategy="two_stage").execute("2 + 2?")
    assert (response.extracted_answer, response.metadata.finish_reason) == ("4", "stop")
