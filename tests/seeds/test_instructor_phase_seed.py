"""The ml-agents Phase-15 Instructor extraction (seed 004): the extraction models and their
cleaning, the models per approach, the provider modes and the fallback, the parsing
configuration, the StandardResponse of a structured extraction. Where answerx's default
differs, the test shows both it and the spec's behaviour through the option that gives it
(``get_extraction_model(…, cleaning="ml-agents")``, ``extraction="ml-agents"``,
``fallback_on="any"``, ``modes=``)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from answerx.errors import ConfigError, ProviderRequestError
from answerx.reasoning import get_approach
from answerx.structured import (
    REASONING_EXTRACTION_MODELS,
    ChainOfThoughtExtraction,
    DirectAnswerExtraction,
    ExtractionSettings,
    InstructorClientManager,
    NoneReasoningExtraction,
    ReasoningExtraction,
    get_extraction_model,
    get_provider,
)
from answerx.testing import FakeProviderServer, Reply
from fake_managers import MakeManager
from seeds.seed_examples import seed_example

GOOD = {"full_reasoning_text": "2 + 2 = 4, so four.", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "test"}]
SPEC_APPROACHES = {
    "none": "none", "chainofthought": "chain_of_thought", "treeofthought": "tree_of_thought",
    "programofthought": "program_of_thought", "reflection": "reflection",
    "chainofverification": "chain_of_verification",
}  # fmt: skip


def _spec_model() -> type[ReasoningExtraction]:
    return get_extraction_model("chainofthought", cleaning="ml-agents")


@seed_example("004", 52, "confidence: float = Field(", option='cleaning="ml-agents"')
@seed_example("004", 53, "ge=0.0,")
def test_the_extraction_model_holds_the_reasoning_the_answer_and_a_bounded_confidence() -> None:
    fields = ReasoningExtraction.model_fields
    assert {"full_reasoning_text", "answer_value", "confidence"} <= set(fields)
    for model in (ChainOfThoughtExtraction, _spec_model()):
        with pytest.raises(ValidationError):
            model(full_reasoning_text="x", answer_value="4", confidence=1.5)

    # answerx's default keeps an answer whose confidence is missing (None) ...
    assert ChainOfThoughtExtraction(full_reasoning_text="x", answer_value="4", confidence=None)
    # ... the spec's field is a required float.
    with pytest.raises(ValidationError):
        _spec_model()(full_reasoning_text="x", answer_value="4", confidence=None)


@seed_example("004", 305, '("The answer is 4", "4"),')
@seed_example("004", 306, '("Therefore, 42.5", "42.5"),')
@seed_example("004", 307, '("Final answer: yes", "yes"),')
@seed_example("004", 308, '("A", "A"),')
def test_answer_value_is_cleaned_of_the_specs_prefixes() -> None:
    model = get_extraction_model("chainofthought")
    # The spec's own test cases, then its other prefixes.
    cases = [("The answer is 4", "4"), ("Therefore, 42.5", "42.5"), ("Final answer: yes", "yes"),
             ("A", "A"), ("Thus, 7", "7"), ("So, 3", "3"), ("Hence, 9", "9"),
             ("answer: B", "B")]  # fmt: skip
    for raw, clean in cases:
        extraction = model(full_reasoning_text="Some reasoning", answer_value=raw, confidence=0.9)
        assert extraction.answer_value == clean


@seed_example("004", 66, "prefixes_to_remove = [", option='cleaning="ml-agents"')
@seed_example("004", 78, "if clean.startswith(prefix):")
def test_the_specs_cleaning_removes_only_its_prefixes_in_its_order() -> None:
    def cleaned(model: type[ReasoningExtraction], raw: str) -> str:
        return model(full_reasoning_text="r", answer_value=raw, confidence=0.9).answer_value

    # answerx cleans as every rule cleans: the phrase, Markdown bold, the final period.
    assert cleaned(ChainOfThoughtExtraction, "Therefore, the answer is 4") == "4"
    assert cleaned(ChainOfThoughtExtraction, "**7**") == "7"
    # The spec removes its prefixes in its order (so "the answer is" after "therefore,"
    # stays) and nothing else.
    assert cleaned(_spec_model(), "Therefore, the answer is 4") == "the answer is 4"
    assert cleaned(_spec_model(), "**7**") == "**7**"


@seed_example("004", 62, "if not v:", option='cleaning="ml-agents"')
@seed_example("004", 63, 'raise ValueError("Answer value cannot be empty")')
def test_an_empty_answer_value_is_rejected() -> None:
    for model in (ChainOfThoughtExtraction, _spec_model()):
        with pytest.raises(ValidationError, match="empty"):
            model(full_reasoning_text="x", answer_value="", confidence=0.9)
    with pytest.raises(ValidationError, match="Answer value cannot be empty"):
        _spec_model()(full_reasoning_text="x", answer_value="", confidence=0.9)

    # answerx also rejects what cleans to nothing (Instructor re-asks); the spec returns "".
    for blank in ("   ", "The answer is"):
        with pytest.raises(ValidationError):
            ChainOfThoughtExtraction(full_reasoning_text="x", answer_value=blank, confidence=0.9)
        spec = _spec_model()(full_reasoning_text="x", answer_value=blank, confidence=0.9)
        assert spec.answer_value == ""


@seed_example("004", 84, "class NoneReasoningExtraction(ReasoningExtraction):")
@seed_example("004", 111, '"chainofthought": ChainOfThoughtExtraction,')
@seed_example(
    "004", 217, "extraction_model = REASONING_EXTRACTION_MODELS[self.approach_name.lower()]"
)
def test_each_of_the_specs_approaches_has_its_model_with_a_fixed_reasoning_type() -> None:
    for spec_name, reasoning_type in SPEC_APPROACHES.items():
        model = REASONING_EXTRACTION_MODELS[spec_name]
        assert model is REASONING_EXTRACTION_MODELS[reasoning_type]  # both spellings
        assert get_extraction_model(spec_name) is model
        assert model(**GOOD).reasoning_type == reasoning_type  # type: ignore[attr-defined]
    assert REASONING_EXTRACTION_MODELS["ChainOfThought".lower()] is ChainOfThoughtExtraction
    assert NoneReasoningExtraction is DirectAnswerExtraction
    assert NoneReasoningExtraction(**GOOD).reasoning_type == "none"  # type: ignore[attr-defined]


@seed_example("004", 24, "| Anthropic | ANTHROPIC_TOOLS | ANTHROPIC_JSON |")
@seed_example("004", 25, "| OpenRouter | TOOLS | JSON |")
@seed_example("004", 26, "| Cohere | JSON | - |", option="modes=")
@seed_example("004", 27, "| Local-OpenAI | TOOLS | JSON |", option="modes=")
def test_the_providers_modes_follow_the_specs_matrix(make_manager: MakeManager) -> None:
    def modes(manager: InstructorClientManager) -> tuple[str, str]:
        return manager.get_primary_mode(), manager.get_fallback_mode()

    assert modes(make_manager("anthropic")) == ("ANTHROPIC_TOOLS", "ANTHROPIC_JSON")
    assert modes(make_manager("openrouter")) == ("TOOLS", "JSON")
    # answerx's defaults: Cohere tries tools first; local servers JSON with the schema.
    assert modes(make_manager("cohere")) == ("COHERE_TOOLS", "COHERE_JSON_SCHEMA")
    assert make_manager("local-openai").modes == ("tools", "json_with_schema", "md_json")
    # The spec's chains, one argument away (Instructor takes no plain JSON for Cohere:
    # its JSON mode there is the schema one).
    assert modes(make_manager("cohere", modes=["json_schema"])) == ("COHERE_JSON_SCHEMA",) * 2
    assert modes(make_manager("local-openai", modes=["tools", "json"])) == ("TOOLS", "JSON")


@seed_example("004", 291, "primary_mode = manager.get_primary_mode()")
@seed_example("004", 148, 'raise ValueError(f"Unsupported provider: {self.provider}")')
@seed_example("004", 165, '"cohere": "JSON",  # Same as primary')
def test_get_primary_mode_and_get_fallback_mode_name_instructors_modes(
    make_manager: MakeManager,
) -> None:
    manager = make_manager("local-openai", modes=["tools"])

    assert (manager.get_primary_mode(), manager.get_fallback_mode()) == ("TOOLS", "TOOLS")
    assert (manager.primary_mode, manager.fallback_mode) == ("tools", "tools")  # answerx's
    with pytest.raises(ValueError, match=r"^Unsupported provider: local-opnai") as raised:
        InstructorClientManager("local-opnai", api_key="not-used")
    assert isinstance(raised.value, ConfigError) and "local-openai" in str(raised.value)


@seed_example("004", 325, 'mock_client.side_effect = [Exception("TOOLS not supported"), Mock()]')
def test_a_failed_primary_mode_falls_back_to_the_json_mode(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.reject_tools(message="TOOLS not supported"), Reply.json(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode) == ("4", manager.fallback_mode)
    assert len(fake_provider.chat_requests) == 2


@seed_example("004", 184, "except Exception:", option='fallback_on="any"')
@seed_example("004", 185, "# Simple fallback to secondary mode")
def test_any_failure_of_the_primary_mode_falls_back_only_when_asked(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    too_long = {"object": "error", "message": "This model's maximum context length is 4096 "
                "tokens.", "type": "BadRequestError", "param": None, "code": 400}  # fmt: skip

    # answerx's default: a failure no other mode can fix is raised at once.
    fake_provider.enqueue(Reply.raw(json.dumps(too_long), status=400))
    with pytest.raises(ProviderRequestError, match="maximum context length"):
        make_manager("local-openai").create(MESSAGES, ReasoningExtraction)
    assert len(fake_provider.chat_requests) == 1

    # The spec's manager: any exception of the primary mode tries the fallback mode.
    fake_provider.enqueue(Reply.raw(json.dumps(too_long), status=400), Reply.json(GOOD))
    manager = make_manager("local-openai", fallback_on="any")
    result, info = manager.create(MESSAGES, ReasoningExtraction)
    assert (result.answer_value, info.mode) == ("4", manager.fallback_mode)
    assert len(fake_provider.chat_requests) == 3


@seed_example("004", 343, "structured_extraction_temperature: float = 0.1",
              option='extraction="ml-agents"')  # fmt: skip
@seed_example("004", 344, "structured_extraction_max_tokens: int = 500")
def test_the_specs_temperature_and_max_tokens_are_the_ml_agents_preset(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD), Reply.tool_call(GOOD))

    make_manager("openai").extract_structured("2 + 2 = 4, so four.", task="numeric")
    default = fake_provider.last_request.json
    make_manager("openai", extraction="ml-agents").extract_structured(
        "2 + 2 = 4, so four.", task="numeric"
    )
    spec = fake_provider.last_request.json

    assert default["temperature"] == 0 and default.get("max_tokens") != 500
    assert (spec["temperature"], spec["max_tokens"]) == (0.1, 500)


@seed_example("004", 355, "confidence_threshold: float = 0.7", option='extraction="ml-agents"')
def test_the_specs_confidence_threshold_is_the_ml_agents_preset(make_manager: MakeManager) -> None:
    default, spec = ExtractionSettings(), make_manager("openai", extraction="ml-agents").extraction

    assert (default.confidence_threshold, spec.confidence_threshold) == (0.0, 0.7)


@seed_example("004", 356, "enable_fallback: bool = True")
def test_the_fallback_is_enabled_by_default(make_manager: MakeManager) -> None:
    assert ExtractionSettings().enable_fallback is make_manager("openai").extraction.enable_fallback
    assert ExtractionSettings().enable_fallback is True


@seed_example("004", 346, "# Provider settings - passed to reasoning classes")
def test_the_parsing_settings_reach_the_extraction_call_of_a_provider(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD))
    manager = make_manager("openai", extraction={"temperature": 0.3, "max_tokens": 700})

    manager.extract_structured("2 + 2 = 4, so four.", task="numeric")

    sent = fake_provider.last_request.json
    assert (sent["temperature"], sent["max_tokens"]) == (0.3, 700)


@seed_example("004", 342, "use_structured_extraction: bool = True")
def test_structured_extraction_is_the_default_strategy(manager: InstructorClientManager) -> None:
    assert get_approach("chain_of_thought", manager).strategy == "structured"


@seed_example("004", 347, "provider_map: Dict[str, str] = {")
@seed_example("004", 351, '"local-openai": "local-openai"')
def test_the_specs_provider_names_are_answerx_provider_names() -> None:
    for name in ("anthropic", "openrouter", "cohere", "local-openai"):
        assert get_provider(name).name == name


@seed_example("004", 229, "text=extraction.full_reasoning_text,",
              option="response.extraction.reasoning")  # fmt: skip
@seed_example("004", 235, 'parameters={"structured_extraction": True},')
@seed_example("004", 239, '"instructor_mode": self.instructor_manager.get_primary_mode(),')
def test_a_structured_extraction_becomes_the_standard_response(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.tool_call(GOOD))

    response = get_approach("chain_of_thought", manager).execute("What is 2 + 2?")

    # answerx's text is the reply as the model reads it back: the reasoning, then its
    # <answer> block; the spec's text is the reasoning alone, response.extraction.reasoning.
    assert response.text == "2 + 2 = 4, so four.\n\n<answer>4</answer>"
    assert (response.extraction.reasoning, response.extracted_answer) == (
        "2 + 2 = 4, so four.",
        "4",
    )
    assert (response.provider, response.model) == ("openai", "openai-test-model")
    meta = response.metadata
    assert (meta.reasoning_type, meta.confidence) == ("chain_of_thought", 0.9)
    # answerx records the mode that answered, in its names; the spec the primary mode.
    assert (meta.instructor_mode, manager.get_primary_mode()) == ("tools", "TOOLS")
    # The spec's parameters={"structured_extraction": True}: answerx's name the strategy.
    assert response.parameters["strategy"] == "structured"
    assert response.usage.total_tokens > 0 and response.generation_time > 0
