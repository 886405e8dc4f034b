"""Unit tests for answerx.structured.models: the per-approach extraction models.

The Instructor tests run the real ``instructor.from_openai`` path (request
preparation, tool-call parsing, re-ask) over an ``httpx.MockTransport``: no network.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from string import Template
from typing import Any, get_args

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from answerx.errors import ConfigError
from answerx.structured import (
    REASONING_EXTRACTION_MODELS,
    AnswerSpec,
    AnyReasoningExtraction,
    Approach,
    ChainOfThoughtExtraction,
    ReasoningExtraction,
    TreeOfThoughtExtraction,
    extraction_prompt_fields,
    get_extraction_model,
)

PROMPT = Path(__file__).resolve().parents[2] / "prompts" / "extraction.txt"
BACKSPACE = "\x08"  # what json.loads makes of the "\b" in an unescaped "\boxed"

#: The approaches with an extraction model, in order.
APPROACHES = get_args(Approach)


def answer(value: object, context: dict[str, Any] | None = None) -> str:
    """The validated answer_value of a base model holding ``value``."""
    data = {"full_reasoning_text": "reasoning", "answer_value": value, "confidence": 0.8}
    return ReasoningExtraction.model_validate(data, context=context).answer_value


# --------------------------------------------------------------------------- cleaning


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("The answer is 4", "4"),
        ("Therefore, 42.5", "42.5"),
        ("Final answer: yes", "yes"),
        ("A", "A"),
        ("$" + BACKSPACE + "oxed{7}$", "7"),
        ("the answer is: The Answer Is 12", "12"),
        ("Final answer: $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}"),
        ("**Final answer: 7**", "7"),
        ("  \\text{Paris}  ", "Paris"),
    ],
)
def test_answer_value_is_cleaned_without_context(raw: str, expected: str) -> None:
    assert answer(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [(4, "4"), (42.5, "42.5"), (True, "yes")])
def test_json_scalar_answer_becomes_text(raw: object, expected: str) -> None:
    assert answer(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "\n\t", "The answer is", "\\boxed{}", "Answer: ."])
def test_empty_answer_is_rejected_with_an_instruction(raw: str) -> None:
    with pytest.raises(ValidationError, match=r"answer_value is empty\. Put the final answer"):
        answer(raw)


def test_without_context_no_shape_is_enforced() -> None:
    assert answer("about seven") == "about seven"


# --------------------------------------------------------------------------- task shapes


@pytest.mark.parametrize(
    ("raw", "context", "expected"),
    [
        ("1,234.50", {"task": "numeric"}, "1234.5"),
        ("The answer is $7$.", {"task": "numeric"}, "7"),
        ("-3", {"task": "numeric"}, "-3"),
        ("4", {"task": "multiple_choice", "choices": ["3", "4", "5"]}, "B"),
        ("(B)", {"task": "multiple_choice"}, "B"),
        ("Option C", {"task": "multiple_choice", "choices": ["w", "x", "y", "z"]}, "C"),
        ("Yes.", {"task": "boolean"}, "yes"),
        ("False", {"task": "boolean"}, "no"),
        ("(7 - 8/8) * 4", {"task": "game24", "numbers": [4, 7, 8, 8]}, "(7 - 8/8) * 4"),
        ("(B)", {"task": "auto"}, "B"),
        ("x^2 + 1", {"task": "math"}, "x^2 + 1"),
        ("4", {"task": None, "extra": "ignored"}, "4"),
    ],
)
def test_context_task_normalises_like_deterministic_extraction(
    raw: str, context: dict[str, Any], expected: str
) -> None:
    assert answer(raw, context) == expected


@pytest.mark.parametrize(
    ("raw", "context", "message"),
    [
        ("about seven", {"task": "numeric"}, "is not a single number in digits"),
        ("K", {"task": "multiple_choice", "choices": ["a", "b", "c", "d"]}, "A, B, C or D"),
        ("E", {"task": "multiple_choice", "choices": ["a", "b", "c", "d"]}, "A, B, C or D"),
        ("maybe", {"task": "boolean"}, "is not yes or no"),
        ("(7 - 8/8) * 4", {"task": "game24", "numbers": [1, 2, 3, 4]}, "each of 1, 2, 3, 4"),
        ("x" * 401, {"task": "text"}, "at most 400 characters"),
    ],
)
def test_wrong_answer_shape_is_rejected_with_an_instruction(
    raw: str, context: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)) as caught:
        answer(raw, context)
    assert "Put only the final answer into answer_value" in str(caught.value)


def test_malformed_context_raises_instead_of_reasking() -> None:
    with pytest.raises(TypeError, match="unknown task 'bogus'; valid tasks: auto, math"):
        answer("4", {"task": "bogus"})


def test_context_task_overrides_the_bound_task() -> None:
    model = get_extraction_model("none", task="numeric")
    data = {"full_reasoning_text": "", "answer_value": "(C)", "confidence": 1.0}
    parsed = model.model_validate(data, context={"task": "multiple_choice"})
    assert parsed.answer_value == "C"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("0.75", 0.75), ("90%", 0.9), (1, 1.0), (0, 0.0)],
)
def test_confidence_accepts_numbers_and_percent_text(raw: object, expected: float) -> None:
    data = {"full_reasoning_text": "", "answer_value": "4", "confidence": raw}
    assert ReasoningExtraction.model_validate(data).confidence == pytest.approx(expected)


@pytest.mark.parametrize("raw", [-0.1, 1.5, 90, "high"])
def test_confidence_outside_zero_to_one_is_rejected(raw: object) -> None:
    data = {"full_reasoning_text": "", "answer_value": "4", "confidence": raw}
    with pytest.raises(ValidationError, match="confidence"):
        ReasoningExtraction.model_validate(data)


# --------------------------------------------------------------------------- approaches

REALISTIC: dict[str, dict[str, Any]] = {
    "none": {"full_reasoning_text": "", "answer_value": "Paris", "confidence": 0.95},
    "chain_of_thought": {
        "full_reasoning_text": "Each box holds 12 eggs. 3 boxes hold 3 * 12 = 36 eggs.",
        "answer_value": "The answer is 36.",
        "confidence": 0.9,
        "steps": ["Each box holds 12 eggs.", "3 * 12 = 36"],
    },
    "tree_of_thought": {
        "full_reasoning_text": "Try 8 / (3 - 8/3): 3 - 8/3 = 1/3, 8 / (1/3) = 24. Works.",
        "answer_value": "8 / (3 - 8/3)",
        "confidence": 0.8,
        "branches": [
            {"thought": "8 * 3 = 24, but then 3 and 8 are left over", "evaluation": "impossible"},
            {"thought": "8 / (3 - 8/3)", "evaluation": "sure"},
        ],
        "selected_branch": "8 / (3 - 8/3)",
    },
    "program_of_thought": {
        "full_reasoning_text": "I compute the sum in Python; it prints 5050.",
        "answer_value": "5050",
        "confidence": 1.0,
        "code": "```python\nprint(sum(range(1, 101)))\n```",
    },
    "reasoning_as_planning": {
        "full_reasoning_text": "Plan: find the rate, then the time. 60 km/h, so 180 km takes 3 h.",
        "answer_value": "3",
        "confidence": 0.85,
        "plan": "1. Find the rate.\n2. Divide the distance by the rate.",
    },
    "reflection": {
        "full_reasoning_text": "First I said 12. Checking: 3 * 5 = 15, not 12. So 15.",
        "answer_value": "Final answer: 15",
        "confidence": 0.7,
        "critique": "The first attempt multiplied wrongly.",
        "corrections": ["3 * 5 = 15, not 12"],
    },
    "chain_of_verification": {
        "full_reasoning_text": "Draft: Canberra. Is Canberra the capital of Australia? Yes.",
        "answer_value": "Canberra",
        "confidence": 0.9,
        "verifications": [
            {"question": "Is Canberra the capital of Australia?", "answer": "Yes"},
            "Is Sydney the capital?",
        ],
    },
    "skeleton_of_thought": {
        "full_reasoning_text": "1. Photosynthesis needs light. 2. It makes glucose. So: glucose.",
        "answer_value": "glucose",
        "confidence": 0.6,
        "skeleton_points": ["needs light", "makes glucose"],
    },
}


EXPECTED_ANSWERS = {
    "none": "Paris",
    "chain_of_thought": "36",
    "tree_of_thought": "8 / (3 - 8/3)",
    "program_of_thought": "5050",
    "reasoning_as_planning": "3",
    "reflection": "15",
    "chain_of_verification": "Canberra",
    "skeleton_of_thought": "glucose",
}


def test_registry_covers_every_approach_in_order() -> None:
    assert tuple(REASONING_EXTRACTION_MODELS) == APPROACHES == get_args(Approach)
    assert tuple(REALISTIC) == tuple(EXPECTED_ANSWERS) == APPROACHES


def test_registry_is_read_only() -> None:
    with pytest.raises(TypeError):
        REASONING_EXTRACTION_MODELS["new"] = ReasoningExtraction  # type: ignore[index]


@pytest.mark.parametrize("approach", APPROACHES)
def test_each_approach_validates_a_realistic_response(approach: str) -> None:
    parsed = get_extraction_model(approach).model_validate(REALISTIC[approach])
    assert isinstance(parsed, ReasoningExtraction)
    assert parsed.reasoning_type == approach  # type: ignore[attr-defined]
    assert parsed.answer_value == EXPECTED_ANSWERS[approach]


def test_approach_fields_are_parsed_leniently() -> None:
    tot = TreeOfThoughtExtraction.model_validate(
        {
            "full_reasoning_text": "",
            "answer_value": "4",
            "confidence": 0.5,
            "branches": ["a bare thought", {"thought": "scored", "evaluation": 0.8}],
            "selected_branch": None,
        }
    )
    assert [(b.thought, b.evaluation) for b in tot.branches] == [
        ("a bare thought", ""),
        ("scored", "0.8"),
    ]
    assert tot.selected_branch == ""
    pot = get_extraction_model("program_of_thought").model_validate(REALISTIC["program_of_thought"])
    assert pot.code == "print(sum(range(1, 101)))"  # type: ignore[attr-defined]
    plan = get_extraction_model("reasoning_as_planning").model_validate(
        REALISTIC["reasoning_as_planning"]
    )
    assert plan.plan == ["1. Find the rate.", "2. Divide the distance by the rate."]  # type: ignore[attr-defined]


@pytest.mark.parametrize("approach", APPROACHES)
def test_approach_extra_fields_are_optional(approach: str) -> None:
    minimal = {"full_reasoning_text": "", "answer_value": "4", "confidence": 1.0}
    assert get_extraction_model(approach).model_validate(minimal).answer_value == "4"


@pytest.mark.parametrize("approach", APPROACHES)
def test_reasoning_type_is_fixed_to_the_approach(approach: str) -> None:
    model = get_extraction_model(approach)
    minimal = {"full_reasoning_text": "", "answer_value": "4", "confidence": 1.0}
    assert model.model_validate(minimal).reasoning_type == approach  # type: ignore[attr-defined]
    spelled = approach.replace("_", "-").title()
    assert model.model_validate({**minimal, "reasoning_type": spelled}).reasoning_type == approach  # type: ignore[attr-defined]
    other = next(a for a in APPROACHES if a != approach)
    with pytest.raises(ValidationError, match="reasoning_type"):
        model.model_validate({**minimal, "reasoning_type": other})


def _descriptions_missing(schema: dict[str, Any], where: str = "") -> list[str]:
    missing = [] if schema.get("description") else [where or "<model>"]
    for name, prop in schema.get("properties", {}).items():
        if not prop.get("description"):
            missing.append(f"{where}.{name}")
    for name, sub in schema.get("$defs", {}).items():
        missing += _descriptions_missing(sub, name)
    return missing


@pytest.mark.parametrize("approach", APPROACHES)
def test_json_schema_describes_the_model_and_every_field(approach: str) -> None:
    schema = get_extraction_model(approach).model_json_schema()
    assert _descriptions_missing(schema) == []
    assert set(schema["required"]) == {"full_reasoning_text", "answer_value", "confidence"}


@pytest.mark.parametrize("approach", APPROACHES)
def test_json_schema_puts_the_answer_after_the_reasoning(approach: str) -> None:
    names = list(get_extraction_model(approach).model_json_schema()["properties"])
    assert names[0] == "reasoning_type"
    assert names[-2:] == ["answer_value", "confidence"]


@pytest.mark.parametrize("approach", APPROACHES)
def test_models_round_trip_through_json(approach: str) -> None:
    model = get_extraction_model(approach)
    parsed = model.model_validate(REALISTIC[approach])
    assert model.model_validate_json(parsed.model_dump_json()) == parsed
    stored = TypeAdapter(AnyReasoningExtraction).validate_json(parsed.model_dump_json())
    assert type(stored) is model
    assert stored == parsed


def test_unknown_approach_error_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        get_extraction_model("chain_of_thoughts")
    message = str(caught.value)
    assert "'chain_of_thoughts'" in message
    assert all(name in message for name in APPROACHES)


# --------------------------------------------------------------------------- bound models


def test_bound_model_enforces_its_task_without_context() -> None:
    model = get_extraction_model("chain_of_thought", task="multiple_choice", choices=["3", "4"])
    data = {"full_reasoning_text": "", "answer_value": "4", "confidence": 1.0}
    assert model.model_validate(data).answer_value == "B"
    with pytest.raises(ValidationError, match="one option letter: A or B"):
        model.model_validate({**data, "answer_value": "C"})


def test_bound_model_keeps_the_name_and_states_the_shape() -> None:
    model = get_extraction_model("chain_of_thought", task="numeric")
    assert issubclass(model, ChainOfThoughtExtraction)
    assert model.__name__ == "ChainOfThoughtExtraction"
    schema = model.model_json_schema()
    assert schema["title"] == "ChainOfThoughtExtraction"
    assert "single number in digits" in schema["properties"]["answer_value"]["description"]
    assert get_extraction_model("chain_of_thought", task="numeric") is model
    assert get_extraction_model("chain_of_thought") is ChainOfThoughtExtraction


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"task": "bogus"}, "unknown task 'bogus'"),
        ({"choices": ["a", "b"]}, "need a task"),
        ({"task": "multiple_choice", "choices": "ab"}, "list of option texts"),
        ({"task": "multiple_choice", "choices": [str(i) for i in range(27)]}, "at most 26"),
        ({"task": "game24", "numbers": ["4", "7"]}, "list of numbers"),
    ],
)
def test_bad_task_arguments_raise_config_error(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        get_extraction_model("none", **kwargs)


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        (AnswerSpec("multiple_choice", ("only",)), "one option letter: A"),
        (AnswerSpec("multiple_choice", ("x", "y", "z")), "one option letter: A, B or C"),
        (AnswerSpec("multiple_choice"), "one option letter: A, B, C, D, E, F, G, H, I or J"),
        (AnswerSpec("game24", numbers=(4.0, 7, 8, 8)), "uses each of 4, 7, 8, 8 once"),
        (AnswerSpec("boolean"), "yes or no"),
    ],
)
def test_answer_spec_hint_names_the_allowed_values(spec: AnswerSpec, hint: str) -> None:
    assert hint in spec.hint


def test_answer_spec_from_context_ignores_non_mappings() -> None:
    assert AnswerSpec.from_context(None) is None
    assert AnswerSpec.from_context({"choices": ["a"]}) is None
    assert AnswerSpec.from_context({"task": "boolean"}) == AnswerSpec("boolean")


# --------------------------------------------------------------------------- prompt


def test_extraction_prompt_substitutes_every_placeholder() -> None:
    template = Template(PROMPT.read_text(encoding="utf-8"))
    raw = "Cost: $5 each, so $$10 in total. \\boxed{10}"
    fields = extraction_prompt_fields(
        raw, question="What do 2 cost?", task="multiple_choice", choices=["10", "12"]
    )
    prompt = template.substitute(fields)
    assert raw in prompt
    assert "<problem>\nWhat do 2 cost?\n</problem>" in prompt
    assert "Write answer_value as one option letter: A or B." in prompt
    assert "A. 10\nB. 12" in prompt
    assert "Do not solve the problem yourself" in prompt
    assert not re.search(r"\{[{%#]", template.template)  # nothing Jinja would render


@pytest.mark.parametrize("task", ["numeric", "math", None])
def test_what_the_model_reads_offers_no_answer_value_to_copy(task: str | None) -> None:
    # Small local models copied "42.5" from "for example 4, yes, B, 42.5" as the answer
    # of "17 + 25 = 42. Therefore, the answer is 42." (bench/README.md, issue 18).
    raw = "17 + 25 = 42. Therefore, the answer is 42."
    prompt = Template(PROMPT.read_text(encoding="utf-8")).substitute(
        extraction_prompt_fields(raw, task=task)
    )
    instructions = prompt.replace(raw, "")
    schema = get_extraction_model("none", task=task).model_json_schema()
    described = schema["properties"]["answer_value"]["description"]
    with pytest.raises(ValidationError) as empty:  # the re-ask's instruction
        get_extraction_model("none").model_validate(
            {"full_reasoning_text": "x", "answer_value": " ", "confidence": 1}
        )
    example_value = re.compile(r"(for example|such as|e\.g\.)[^.]*?(\d|\\frac)")
    for text in (instructions, described, str(empty.value)):
        assert not example_value.search(text), text


def test_extraction_prompt_fields_reject_choices_without_a_task() -> None:
    with pytest.raises(ConfigError, match="need a task"):
        extraction_prompt_fields("B", choices=["x", "y"])


def test_extraction_prompt_without_question_or_task_has_no_leftovers() -> None:
    prompt = Template(PROMPT.read_text(encoding="utf-8")).substitute(
        extraction_prompt_fields("It is 4.")
    )
    assert "<problem>" not in prompt
    assert "Write answer_value as" not in prompt
    assert "$raw_output" not in prompt
    assert "<output>\nIt is 4.\n</output>" in prompt


# --------------------------------------------------------------------------- through Instructor


def _tool_call_reply(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call-1",
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _scripted_instructor(answers: list[object]) -> tuple[Any, list[dict[str, Any]]]:
    """An Instructor client over the real OpenAI SDK whose replies are tool calls
    carrying ``answers`` in turn; returns it with the list of request bodies."""
    httpx = pytest.importorskip("httpx")
    openai = pytest.importorskip("openai")
    instructor = pytest.importorskip("instructor")
    requests: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        body = json.loads(request.content)
        requests.append(body)
        arguments = {
            "full_reasoning_text": "2 + 2 = 4",
            "answer_value": answers[len(requests) - 1],
            "confidence": 0.9,
        }
        name = body["tools"][0]["function"]["name"]
        return httpx.Response(200, json=_tool_call_reply(name, arguments))

    client = openai.OpenAI(
        api_key="test-key",
        base_url="http://fake.invalid/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    return instructor.from_openai(client, mode=instructor.Mode.TOOLS), requests


def test_instructor_reasks_a_wrong_shape_and_returns_the_normalised_answer() -> None:
    client, requests = _scripted_instructor(["about four", "The answer is 4."])
    model = get_extraction_model("chain_of_thought", task="numeric")
    latex = "Compute \\frac{{a}}{b} with {#1}."
    parsed = client.chat.completions.create(
        model="fake",
        messages=[{"role": "user", "content": latex}],
        response_model=model,
        max_retries=2,
    )
    assert parsed.answer_value == "4"
    assert len(requests) == 2
    tool = requests[0]["tools"][0]["function"]
    assert tool["name"] == "ChainOfThoughtExtraction"
    answer_schema = tool["parameters"]["properties"]["answer_value"]
    assert "single number in digits" in answer_schema["description"]
    reask = json.dumps(requests[1]["messages"])
    assert "is not a single number in digits" in reask
    assert requests[0]["messages"][0]["content"] == latex  # untouched: no context was passed


def test_instructor_passes_its_context_to_the_validator() -> None:
    client, _ = _scripted_instructor(["4"])
    parsed: BaseModel = client.chat.completions.create(
        model="fake",
        messages=[{"role": "user", "content": "Which option is 2 + 2?"}],
        response_model=ChainOfThoughtExtraction,
        context={"task": "multiple_choice", "choices": ["3", "4", "5"]},
        max_retries=1,
    )
    assert isinstance(parsed, ChainOfThoughtExtraction)
    assert parsed.answer_value == "B"


def test_instructor_context_renders_messages_as_jinja() -> None:
    """Why task-bound models exist: with ``context=``, Instructor renders each
    message as a Jinja template, which eats LaTeX braces. If this starts failing,
    Instructor stopped doing that and ``context=`` becomes safe for raw outputs."""
    client, requests = _scripted_instructor(["4"])
    client.chat.completions.create(
        model="fake",
        messages=[{"role": "user", "content": "x = \\frac{{a}}{b}"}],
        response_model=ChainOfThoughtExtraction,
        context={"task": "numeric"},
        max_retries=1,
    )
    assert requests[0]["messages"][0]["content"] != "x = \\frac{{a}}{b}"
