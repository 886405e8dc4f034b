"""The ml-agents Phase-15 Instructor extraction (seed 004): the extraction models and their
cleaning, the models per approach, the provider modes and the fallback, the StandardResponse
of a structured extraction. The parsing configuration and the "tools not supported" wordings
are tested in tests/integration (test_manager_extraction_settings.py,
test_manager_tools_unsupported.py)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from answerx.reasoning import get_approach
from answerx.structured import (
    REASONING_EXTRACTION_MODELS,
    ChainOfThoughtExtraction,
    InstructorClientManager,
    ReasoningExtraction,
)
from answerx.testing import FakeProviderServer, Reply

GOOD = {"full_reasoning_text": "2 + 2 = 4, so four.", "answer_value": "4", "confidence": 0.9}


def test_the_extraction_model_holds_the_reasoning_the_answer_and_a_bounded_confidence() -> None:
    fields = ReasoningExtraction.model_fields

    assert {"full_reasoning_text", "answer_value", "confidence"} <= set(fields)
    with pytest.raises(ValidationError):
        ChainOfThoughtExtraction(full_reasoning_text="x", answer_value="4", confidence=1.5)


@pytest.mark.parametrize(
    ("raw", "clean"),
    # The spec's own test cases, then its other prefixes.
    [("The answer is 4", "4"), ("Therefore, 42.5", "42.5"), ("Final answer: yes", "yes"),
     ("A", "A"), ("Thus, 7", "7"), ("So, 3", "3"), ("Hence, 9", "9"), ("answer: B", "B")],
)  # fmt: skip
def test_answer_value_is_cleaned_of_the_specs_prefixes(raw: str, clean: str) -> None:
    extraction = ChainOfThoughtExtraction(
        full_reasoning_text="Some reasoning", answer_value=raw, confidence=0.9
    )

    assert extraction.answer_value == clean


def test_an_empty_answer_value_is_rejected() -> None:
    with pytest.raises(ValidationError):
        ChainOfThoughtExtraction(full_reasoning_text="x", answer_value="", confidence=0.9)


@pytest.mark.parametrize(
    "approach",
    ["none", "chain_of_thought", "tree_of_thought", "program_of_thought", "reflection",
     "chain_of_verification"],
)  # fmt: skip
def test_each_of_the_specs_approaches_has_its_model_with_a_fixed_reasoning_type(
    approach: str,
) -> None:
    model = REASONING_EXTRACTION_MODELS[approach]

    assert model(**GOOD).reasoning_type == approach  # type: ignore[attr-defined]


def test_a_failed_primary_mode_falls_back_to_the_json_mode(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    # The spec's test_extraction_with_fallback: "TOOLS not supported", then the fallback.
    fake_provider.enqueue(Reply.reject_tools(message="TOOLS not supported"), Reply.json(GOOD))

    result, info = manager.create([{"role": "user", "content": "2 + 2?"}], ReasoningExtraction)

    assert (result.answer_value, info.mode) == ("4", manager.get_fallback_mode())
    assert len(fake_provider.chat_requests) == 2


def test_a_structured_extraction_becomes_the_standard_response(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD))

    response = get_approach("chain_of_thought", manager).execute("What is 2 + 2?")

    # The spec's text is the reasoning alone: answerx's extraction.reasoning. The response's
    # text is the reply as the model reads it back: the reasoning, then its <answer> block.
    assert (response.extraction.reasoning, response.extracted_answer) == (
        "2 + 2 = 4, so four.",
        "4",
    )
    assert response.text == "2 + 2 = 4, so four.\n\n<answer>4</answer>"
    assert (response.provider, response.model) == ("openai", "openai-test-model")
    meta = response.metadata
    assert (meta.reasoning_type, meta.confidence, meta.instructor_mode) == (
        "chain_of_thought",
        0.9,
        manager.get_primary_mode(),
    )
    assert response.usage.total_tokens > 0 and response.generation_time > 0
