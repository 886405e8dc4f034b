"""extract_structured: the model splits a raw output into reasoning and final answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from answerx.errors import ConfigError
from answerx.structured import InstructorClientManager
from answerx.structured.models import (
    REASONING_EXTRACTION_MODELS,
    ChainOfThoughtExtraction,
    ReasoningExtraction,
)
from answerx.testing import FakeProviderServer, Reply

# A realistic chain-of-thought output: LaTeX (also inside JSON-looking braces), Jinja-like
# "{{ }}", "{% %}" and "{# #}", dollar signs and the prompt's own placeholder names.
RAW_OUTPUT = r"""Let's solve this step by step.

Step 1: The probability of heads is $\frac{1}{2}$, so over 14 tosses we expect
$14 \cdot \frac{1}{2} = 7$ heads. In set notation {{H, T}} has {% two %} outcomes {# sic #}.
Step 2: A price of $5 and $$x^2$$ are not the answer; neither is $raw_output or ${task_hint}.

Therefore, the answer is $\boxed{7}$."""
QUESTION = "A fair coin is tossed 14 times. How many heads do you expect?"
REASONING = RAW_OUTPUT.rsplit("\n\n", 1)[0]


def _extraction(answer: Any, **extra: Any) -> dict[str, Any]:
    return {"full_reasoning_text": REASONING, "answer_value": answer, "confidence": 0.9, **extra}


def test_extract_structured_returns_the_approach_model_and_sends_the_raw_output_verbatim(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, provider: str
) -> None:
    steps = ["P(heads) = 1/2", "14 * 1/2 = 7"]
    fake_provider.enqueue(
        Reply.tool_call(_extraction(r"\boxed{7}", reasoning_type="chain_of_thought", steps=steps))
    )

    result, info = manager.extract_structured(RAW_OUTPUT, "chain_of_thought", question=QUESTION)

    assert isinstance(result, ChainOfThoughtExtraction)
    assert (result.answer_value, result.steps, result.reasoning_type) == (
        "7",
        steps,
        "chain_of_thought",
    )
    assert result.full_reasoning_text == REASONING
    assert (info.provider, info.mode, info.attempts) == (provider, "tools", 1)
    request = fake_provider.last_request
    assert RAW_OUTPUT in request.text  # LaTeX, braces and dollar signs untouched
    assert f"<output>\n{RAW_OUTPUT}\n</output>" in request.text
    assert QUESTION in request.text
    if manager.spec.sdk != "cohere":  # Cohere's TOOLS mode offers no tool on the wire
        assert request.tool_names == ["ChainOfThoughtExtraction"]


def test_the_raw_output_is_sent_verbatim_in_a_fallback_mode_too(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.reject_tools(), Reply.tool_call(_extraction("7")))

    result, info = manager.extract_structured(RAW_OUTPUT, question=QUESTION)

    assert isinstance(result, ReasoningExtraction)
    assert (result.answer_value, info.mode) == ("7", manager.modes[1])
    assert RAW_OUTPUT in fake_provider.last_request.text


def test_a_numeric_task_reasks_an_answer_in_words(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(
        Reply.tool_call(_extraction("about seven"), usage=(300, 40)),
        Reply.tool_call(_extraction("7"), usage=(380, 30)),
    )

    result, info = manager.extract_structured(RAW_OUTPUT, question=QUESTION, task="numeric")

    assert isinstance(result, ReasoningExtraction)
    assert result.answer_value == "7"
    assert (info.mode, info.attempts) == ("tools", 2)
    assert (info.usage.input_tokens, info.usage.output_tokens) == (680, 70)
    first, reask = fake_provider.chat_requests
    assert "a single number in digits" in first.text  # the task hint is in the prompt
    assert "'about seven' is not a single number in digits" in reask.text


@pytest.mark.parametrize(
    ("answer", "letter"),
    [("(B)", "B"), ("**B**", "B"), ("B) 14", "B"), ("14", "B"), ("Option C", "C")],
)
def test_a_multiple_choice_answer_becomes_its_letter(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, answer: str, letter: str
) -> None:
    choices = ["7", "14", "21"]
    fake_provider.enqueue(Reply.tool_call(_extraction(answer)))

    result, _ = manager.extract_structured(
        "I pick the second option.", question="2 * 7?", task="multiple_choice", choices=choices
    )

    assert isinstance(result, ReasoningExtraction)
    assert result.answer_value == letter
    prompt = fake_provider.last_request.text
    assert "A. 7\nB. 14\nC. 21" in prompt


def test_a_multiple_choice_answer_outside_the_choices_is_reasked(
    manager: InstructorClientManager, fake_provider: FakeProviderServer
) -> None:
    fake_provider.enqueue(Reply.tool_call(_extraction("E")), Reply.tool_call(_extraction("A")))

    result, info = manager.extract_structured(
        "The answer is A.", task="multiple_choice", choices=["yes", "no"]
    )

    assert isinstance(result, ReasoningExtraction)
    assert (result.answer_value, info.attempts) == ("A", 2)
    assert "one option letter: A or B" in fake_provider.chat_requests[1].text


@pytest.mark.parametrize(("answer", "value"), [("Yes.", "yes"), (False, "no")])
def test_a_boolean_answer_is_normalised(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, answer: Any, value: str
) -> None:
    fake_provider.enqueue(Reply.tool_call(_extraction(answer)))

    result, _ = manager.extract_structured("It is prime, so yes.", task="boolean")

    assert isinstance(result, ReasoningExtraction)
    assert result.answer_value == value


@pytest.mark.parametrize("approach", list(REASONING_EXTRACTION_MODELS))
def test_each_approach_gets_its_own_model_and_tool(
    make_manager: Any, fake_provider: FakeProviderServer, approach: str
) -> None:
    manager = make_manager("openai")
    fake_provider.enqueue(Reply.tool_call(_extraction("7", reasoning_type=approach)))

    result, _ = manager.extract_structured(RAW_OUTPUT, approach)

    model = REASONING_EXTRACTION_MODELS[approach]
    assert isinstance(result, model)
    assert result.answer_value == "7"
    assert fake_provider.last_request.tool_names == [model.__name__]
    schema = fake_provider.last_request.tools[0]["function"]["parameters"]
    assert schema["properties"]["reasoning_type"]["const"] == approach


def test_an_unknown_approach_is_a_config_error_before_any_request(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai")

    with pytest.raises(ConfigError, match="valid approaches: none, chain_of_thought"):
        manager.extract_structured(RAW_OUTPUT, "chain_of_thougth")

    assert fake_provider.chat_requests == []


def test_the_extracted_object_serialises_with_its_approach(
    make_manager: Any, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("anthropic")
    fake_provider.enqueue(Reply.tool_call(_extraction("7", code="```python\nprint(7)\n```")))

    result, _ = manager.extract_structured(RAW_OUTPUT, "program_of_thought", task="numeric")

    assert isinstance(result, ReasoningExtraction)
    stored = json.loads(result.model_dump_json())
    assert (stored["reasoning_type"], stored["answer_value"]) == ("program_of_thought", "7")
    assert stored["code"] == "print(7)"
