"""The schema answerx sends to a grammar server (llama.cpp): bounds its converter keeps."""

from __future__ import annotations

import json
import re

import pytest

from answerx.structured.grammar import (
    CHARS_PER_TOKEN,
    CONFIDENCE_PATTERN,
    ITEM_STRING_CHARS,
    MAX_ITEMS,
    TOP_STRING_CHARS,
    Caps,
    caps_for,
    grammar_model,
    grammar_schema,
    string_pattern,
)
from answerx.structured.models import (
    REASONING_EXTRACTION_MODELS,
    ReasoningExtraction,
    get_extraction_model,
)


def _matches(pattern: str, value: str) -> bool:
    """Whether ``value``, written as a JSON string, has content matching ``pattern``
    (llama.cpp applies a string's pattern to the characters between its quotes)."""
    return re.fullmatch(pattern[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]) is not None


@pytest.mark.parametrize("text", ["0", "1", "0.9", "0.05", "0.123", "1.0", "1.000"])
def test_the_confidence_pattern_admits_numbers_from_0_to_1(text: str) -> None:
    assert re.fullmatch(CONFIDENCE_PATTERN[1:-1], text)


@pytest.mark.parametrize("text", ["1.5", "3", "90", "-0.1", "0.1234", "1.01", ".5", "0.", ""])
def test_the_confidence_pattern_rejects_everything_else(text: str) -> None:
    assert not re.fullmatch(CONFIDENCE_PATTERN[1:-1], text)


def test_confidence_is_sent_as_a_pattern_string_and_read_back_as_a_number() -> None:
    schema = grammar_schema(ReasoningExtraction.model_json_schema())
    confidence = schema["properties"]["confidence"]
    assert (confidence["type"], confidence["pattern"]) == ("string", CONFIDENCE_PATTERN)
    assert "minimum" not in confidence and "confidence" in schema["required"]
    parsed = ReasoningExtraction.model_validate_json(
        '{"full_reasoning_text": "", "answer_value": "4", "confidence": "0.75"}'
    )
    assert parsed.confidence == 0.75


def test_a_free_string_admits_escapes_but_no_raw_control_character() -> None:
    pattern = string_pattern()
    assert _matches(pattern, 'a "quoted"\nline\\with\ttabs é')  # escaped by json.dumps
    raw = re.fullmatch(pattern[1:-1], "line one\nline two")  # a raw newline in the text
    assert raw is None
    # \\u escapes: six characters for one would undo the length caps; é is written as é.
    assert re.fullmatch(pattern[1:-1], "caf\\u00e9") is None


def test_string_length_bounds_are_folded_into_the_pattern() -> None:
    schema = grammar_schema(ReasoningExtraction.model_json_schema())
    answer = schema["properties"]["answer_value"]
    assert answer["pattern"] == string_pattern(1, TOP_STRING_CHARS) and answer["minLength"] == 1
    assert not _matches(answer["pattern"], "") and _matches(answer["pattern"], "4")
    bounded = grammar_schema({"type": "string", "minLength": 2, "maxLength": 3})["pattern"]
    assert [_matches(bounded, s) for s in ("a", "ab", "abc", "abcd")] == [0, 1, 1, 0]


def test_enums_and_consts_are_sent_unchanged() -> None:
    bound = get_extraction_model("chain_of_thought", task="multiple_choice", choices=["x", "y"])
    plain = bound.model_json_schema()["properties"]
    sent = grammar_model(bound).model_json_schema()["properties"]
    assert sent["answer_value"]["enum"] == ["A", "B"] and "pattern" not in sent["answer_value"]
    assert sent["reasoning_type"] == plain["reasoning_type"]


def test_nested_models_and_list_items_are_rewritten_with_the_smaller_cap() -> None:
    tree = grammar_model(REASONING_EXTRACTION_MODELS["tree_of_thought"]).model_json_schema()
    thought = tree["$defs"]["ThoughtBranch"]["properties"]["thought"]
    assert thought["pattern"] == string_pattern(0, ITEM_STRING_CHARS)
    assert tree["properties"]["branches"]["maxItems"] == MAX_ITEMS
    steps = grammar_model(REASONING_EXTRACTION_MODELS["chain_of_thought"]).model_json_schema()
    assert steps["properties"]["steps"]["items"]["pattern"] == string_pattern(0, ITEM_STRING_CHARS)


def test_unbounded_strings_and_lists_get_caps_so_a_whole_object_fits_in_the_reply() -> None:
    schema = grammar_model(REASONING_EXTRACTION_MODELS["chain_of_thought"]).model_json_schema()
    reasoning = schema["properties"]["full_reasoning_text"]["pattern"]
    assert _matches(reasoning, "x" * TOP_STRING_CHARS)
    assert not _matches(reasoning, "x" * (TOP_STRING_CHARS + 1))
    assert schema["properties"]["steps"]["maxItems"] == MAX_ITEMS
    declared = grammar_schema(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "maxLength": 3},
                "b": {"type": "array", "maxItems": 9},
            },
        }
    )
    assert declared["properties"]["a"]["pattern"] == string_pattern(0, 3)
    assert declared["properties"]["b"]["maxItems"] == 9  # a bound of its own is kept


def test_the_grammar_model_keeps_the_name_docstring_and_validation_of_its_model() -> None:
    model = REASONING_EXTRACTION_MODELS["reflection"]
    sent = grammar_model(model)
    assert issubclass(sent, model) and sent.__name__ == model.__name__
    assert sent.model_json_schema()["title"] == model.__name__
    assert sent.model_json_schema()["description"] == model.model_json_schema()["description"]
    assert grammar_model(model) is sent  # cached: one class per model
    assert model.model_json_schema()["properties"]["confidence"]["type"] == "number"


def _longest_instance(node: dict[str, object], defs: dict[str, object]) -> object:
    """The longest JSON value a rewritten schema allows (each string at its cap)."""
    if "$ref" in node:
        return _longest_instance(defs[str(node["$ref"]).rsplit("/", 1)[-1]], defs)  # type: ignore[arg-type]
    if "enum" in node:
        return max(node["enum"], key=lambda v: len(json.dumps(v)))  # type: ignore[arg-type]
    if "const" in node:
        return node["const"]
    if node.get("type") == "string":
        if node.get("pattern") == CONFIDENCE_PATTERN:
            return "1.000"
        if "maxLength" in node and "pattern" in node:  # a shaped answer (numeric): its cap
            return "9" * int(node["maxLength"])  # type: ignore[call-overload]
        upper = re.search(r"\{\d+,(\d+)\}\$$", str(node["pattern"]))
        assert upper, f"an unbounded string: {node}"
        return "x" * int(upper.group(1))
    if node.get("type") == "array":
        return [_longest_instance(node["items"], defs)] * int(node["maxItems"])  # type: ignore[arg-type]
    props = node.get("properties") or {}
    return {k: _longest_instance(v, defs) for k, v in props.items()}  # type: ignore[union-attr]


@pytest.mark.parametrize("max_tokens", [96, 512])
@pytest.mark.parametrize("approach", list(REASONING_EXTRACTION_MODELS))
def test_the_longest_object_the_schema_allows_fits_in_the_reply(
    approach: str, max_tokens: int
) -> None:
    # Below ~96 tokens the keys of the larger models alone no longer fit.
    model = get_extraction_model(approach, task="numeric")
    schema = grammar_model(model, max_tokens).model_json_schema()
    longest = json.dumps(_longest_instance(schema, schema.get("$defs", {})))
    assert len(longest) <= CHARS_PER_TOKEN * max_tokens


def test_a_larger_reply_allows_longer_strings() -> None:
    model = REASONING_EXTRACTION_MODELS["chain_of_thought"]
    small, large = caps_for(model.model_json_schema(), 96), caps_for(model.model_json_schema(), 512)
    assert small.top < large.top <= TOP_STRING_CHARS and small.items <= large.items
    assert caps_for(model.model_json_schema(), None) == Caps()
