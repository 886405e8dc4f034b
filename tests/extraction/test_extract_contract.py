"""The Extraction contract (DESIGN.md): fields, priority, confidence ordering, task detection,
determinism, `span`, `reasoning`, and "no answer" as a value."""

from __future__ import annotations

import pytest

import answerx
from answerx import ConfigError, Extraction, extract
from answerx.extraction import TASKS
from extraction_checks import marker_covers_span

BOXED = r"""We need the sum 1 + 2 + ... + 10 = 10 * 11 / 2 = 55.
So the sum is \boxed{55}. As a check, 55 - 10 = 45 is the sum up to 9."""
ANSWER_BLOCK = "<think>\n10 * 11 / 2 = 55.\n</think>\n<answer>55</answer>"
JSON = '{"reasoning": "10 * 11 / 2", "answer": 55}'
PHRASE = "Using the formula n(n + 1) / 2 with n = 10, the answer is 55."
OUTPUT = "Input: 4 9 10 13\n13 - 9 = 4, 10 - 4 = 6, 4 * 6 = 24\nOutput: (10 - 4) * (13 - 9) = 24"
LAST_NUMBER = "Using the formula n(n + 1) / 2 with n = 10 gives 55."
CHOICE = "Only one option conserves energy: the one labelled (C)."
BOTTOM_SCAN_24 = "13 - 9 = 4, 10 - 4 = 6, 4 * 6 = 24\n(10 - 4) * (13 - 9)"
BOTTOM_SCAN_BOOL = "91 = 7 * 13, so 91 has divisors other than 1 and itself.\nNo, it is not prime."

# (raw, task, kwargs, expected method)
EXPLICIT = [
    (ANSWER_BLOCK, "numeric", {}, "answer_block"),
    (BOXED, "numeric", {}, "boxed"),
    (JSON, "numeric", {}, "json_answer"),
    (PHRASE, "numeric", {}, "final_answer_phrase"),
    (OUTPUT, "game24", {"numbers": [4, 9, 10, 13]}, "output_line"),
]
FALLBACK = [
    (LAST_NUMBER, "numeric", {}, "last_number"),
    (CHOICE, "multiple_choice", {}, "choice_letter"),
    (BOTTOM_SCAN_24, "game24", {"numbers": [4, 9, 10, 13]}, "bottom_scan"),
    (BOTTOM_SCAN_BOOL, "boolean", {}, "bottom_scan"),
    ("Paris is the capital of France.\nParis", "text", {}, "bottom_scan"),
]


def test_headline_example() -> None:
    assert extract("The final answer to 'What is 2+2?' is 4.").answer == "4"


def test_headline_example_is_found_by_the_phrase() -> None:
    result = extract("The final answer to 'What is 2+2?' is 4.")
    assert (result.answer, result.method, result.task) == ("4", "final_answer_phrase", "numeric")


@pytest.mark.parametrize(("raw", "task", "kwargs", "method"), EXPLICIT + FALLBACK)
def test_each_rule_reports_its_method(raw: str, task: str, kwargs: dict, method: str) -> None:
    result = extract(raw, task, **kwargs)
    assert result.method == method
    assert result.answer is not None


def test_explicit_markers_score_above_every_fallback() -> None:
    explicit = [extract(raw, task, **kw).confidence for raw, task, kw, _ in EXPLICIT]
    fallback = [extract(raw, task, **kw).confidence for raw, task, kw, _ in FALLBACK]
    assert min(explicit) > max(fallback)
    assert all(0.0 < c <= 1.0 for c in explicit + fallback)


def test_boxed_confidence_above_last_number() -> None:
    boxed = extract(BOXED, "numeric")
    last = extract(LAST_NUMBER, "numeric")
    assert (boxed.method, last.method) == ("boxed", "last_number")
    assert boxed.answer == last.answer == "55"
    assert boxed.confidence > last.confidence


def test_boxed_answer_beats_trailing_number() -> None:
    result = extract(BOXED, "numeric")
    assert (result.answer, result.method) == ("55", "boxed")


def test_answer_block_beats_box_and_phrase() -> None:
    raw = (
        r"Draft: the answer is \boxed{54}. Recounting the terms gives 55." + "\n<answer>55</answer>"
    )
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == ("55", "answer_block")


def test_explicit_marker_beats_fallback_even_when_earlier() -> None:
    raw = "The answer is 55.\nFor comparison, the sum up to 9 is 45 and up to 11 is 66."
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == ("55", "final_answer_phrase")


def test_unknown_task_raises_config_error_listing_valid_tasks() -> None:
    with pytest.raises(ConfigError) as info:
        extract("The answer is 4.", "gsm8k")
    message = str(info.value)
    assert "gsm8k" in message
    for task in ("auto", "math", "numeric", "multiple_choice", "boolean", "game24", "text"):
        assert task in message
    assert isinstance(info.value, answerx.AnswerxError)


def test_every_documented_task_is_accepted() -> None:
    assert set(TASKS) == {
        "auto",
        "math",
        "numeric",
        "multiple_choice",
        "boolean",
        "game24",
        "text",
        "short_answer",
    }
    for task in TASKS:
        result = extract("The answer is 4.", task)
        assert isinstance(result, Extraction)


# task="auto" picks the task from the output.
@pytest.mark.parametrize(
    ("raw", "kwargs", "answer", "task"),
    [
        pytest.param("48 + 24 = 72 clips.\n#### 72", {}, "72", "numeric", id="gsm8k-numeric"),
        pytest.param(BOXED, {}, "55", "numeric", id="boxed-number"),
        pytest.param(r"So $x = \boxed{\frac{1}{2}}$.", {}, r"\frac{1}{2}", "math", id="latex-math"),
        pytest.param(
            "Only (C) conserves energy.\nThe answer is (C).",
            {},
            "C",
            "multiple_choice",
            id="letter",
        ),
        pytest.param(
            "91 = 7 * 13, so it is composite.\nThe answer is no.", {}, "no", "boolean", id="yes-no"
        ),
        pytest.param(
            "The capital of Australia is Canberra, so the answer is Canberra.",
            {},
            "Canberra",
            "text",
            id="free-text",
        ),
        pytest.param(
            "I prefer the second one.\nThe answer is B.",
            {"choices": ["Red", "Blue"]},
            "B",
            "multiple_choice",
            id="choices-given",
        ),
        pytest.param(
            BOTTOM_SCAN_24,
            {"numbers": [4, 9, 10, 13]},
            "(10 - 4) * (13 - 9)",
            "game24",
            id="numbers-given",
        ),
        pytest.param(
            "Options: (A) 12 (B) 15 (C) 18 (D) 21\n3 * 5 = 15, which is option B.\n"
            "The correct option is **B**",
            {},
            "B",
            "multiple_choice",
            id="mc-without-phrase",
        ),
        pytest.param(
            OUTPUT,
            {},
            "(10 - 4) * (13 - 9)",
            "game24",
            id="game24-output-line",
        ),
        pytest.param(
            "Is 91 prime? 91 = 7 * 13, so it has a divisor other than 1 and itself.\nNo",
            {},
            "no",
            "boolean",
            id="lone-no-line",
        ),
    ],
)
def test_auto_detects_the_task(raw: str, kwargs: dict, answer: str, task: str) -> None:
    result = extract(raw, "auto", **kwargs)
    assert (result.answer, result.task) == (answer, task)


def test_explicit_task_is_reported() -> None:
    result = extract("The answer is 4.", "math")
    assert result.task == "math"


# Determinism: same input, same output, always.
@pytest.mark.parametrize(
    ("raw", "task", "kwargs"),
    [(raw, task, kw) for raw, task, kw, _ in EXPLICIT + FALLBACK]
    + [("Nothing to see here.", "numeric", {}), ("", "auto", {})],
)
def test_extraction_is_deterministic(raw: str, task: str, kwargs: dict) -> None:
    first = extract(raw, task, **kwargs)
    second = extract(raw, task, **kwargs)
    assert first == second
    assert first.model_dump() == second.model_dump()


@pytest.mark.parametrize(("raw", "task", "kwargs", "method"), EXPLICIT + FALLBACK)
def test_span_points_at_the_candidate_and_reasoning_drops_only_the_marker(
    raw: str, task: str, kwargs: dict, method: str
) -> None:
    result = extract(raw, task, **kwargs)
    assert result.span is not None
    start, end = result.span
    assert 0 <= start < end <= len(raw)
    assert raw[start:end] == result.candidate
    assert marker_covers_span(raw, result.reasoning, start, end)
    assert result.raw_output == raw


@pytest.mark.parametrize(
    ("raw", "answer", "reasoning"),
    [
        pytest.param("Sum: 55.\n<answer>55</answer>", "55", "Sum: 55.\n", id="answer-block"),
        pytest.param("Sum: 55.\n\\boxed{55}", "55", "Sum: 55.\n", id="boxed"),
        pytest.param("Sum: 55.\n#### 55", "55", "Sum: 55.\n", id="gsm8k"),
    ],
)
def test_reasoning_is_raw_output_minus_the_marker(raw: str, answer: str, reasoning: str) -> None:
    result = extract(raw, "numeric")
    assert result.answer == answer
    assert result.reasoning == reasoning


@pytest.mark.parametrize(
    ("raw", "task"),
    [
        pytest.param("", "auto", id="empty"),
        pytest.param("   \n\t\n", "auto", id="whitespace"),
        pytest.param("I am not sure how to approach this problem.", "auto", id="prose-auto"),
        pytest.param("I am not sure how to approach this problem.", "math", id="prose-math"),
        pytest.param("I am not sure how to approach this problem.", "numeric", id="prose-numeric"),
        pytest.param("I am not sure which option is right.", "multiple_choice", id="prose-mc"),
        pytest.param("I could not find a way to make 24.", "game24", id="prose-game24"),
        pytest.param("It depends on the definition used.", "boolean", id="prose-boolean"),
        pytest.param("<answer></answer>", "auto", id="empty-answer-block"),
        pytest.param(r"\boxed{", "auto", id="unclosed-box"),
    ],
)
def test_nothing_found_is_a_value(raw: str, task: str) -> None:
    kwargs = {"numbers": [4, 9, 10, 13]} if task == "game24" else {}
    result = extract(raw, task, **kwargs)
    assert (result.answer, result.method, result.confidence) == (None, "none", 0.0)
    assert result.span is None
    assert result.reasoning == raw
    assert result.raw_output == raw
    assert not result.found
