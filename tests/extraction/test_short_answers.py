"""Short replies (issue 23 §2 and §3): a complete short answer is not "unfinished", and an
output that is one short line with no reasoning *is* the stated answer (``whole_output``,
high confidence), not a last-number guess."""

from __future__ import annotations

import pytest

from answerx import extract
from answerx.reasoning import MARKER_CONFIDENCE

MONTHS = ["January and February", "March and April", "May and June"]


@pytest.mark.parametrize(
    ("raw", "task", "choices", "answer"),
    [
        ("(B) March and April", "multiple_choice", MONTHS, "B"),
        ("Answer: C", "multiple_choice", None, "C"),
        ("A: Yes", "multiple_choice", ["Yes", "No"], "A"),
        ("答案:B", "multiple_choice", None, "B"),
        ("roughly 15 years", "numeric", None, "15"),
        ("around 250 grams", "numeric", None, "250"),
        ("nearly twenty minutes", "numeric", None, "twenty"),
        ("It's B", "multiple_choice", None, "B"),
        ("Yes, it is", "boolean", None, "yes"),
        ("Paris, France", "text", None, "Paris, France"),
    ],
)
def test_a_complete_short_reply_is_answered_and_not_unfinished(
    raw: str, task: str, choices: list[str] | None, answer: str
) -> None:
    result = extract(raw, task, choices=choices)
    assert (result.answer, result.unfinished) == (answer, False)


@pytest.mark.parametrize(
    "raw",
    [
        "To find the total we first add the cost of the pens to the cost of the paper, which is 4",
        "Looking at the two bars, the taller one is the one labelled with the number 7 and the",
        "First, 12 * 3 = 36. Then we subtract the 8 that were eaten, leaving 28, and we split",
    ],
)
def test_long_reasoning_that_stops_mid_thought_is_still_unfinished(raw: str) -> None:
    result = extract(raw, "numeric")
    assert (result.answer, result.unfinished) == (None, True)


def test_finish_reason_still_decides_first() -> None:
    cut = extract("roughly 15 years", "numeric", finish_reason="length")
    assert (cut.answer, cut.unfinished) == ("15", True)  # an explicit reply, cut by the provider
    finished = extract(
        "The total is the sum of the two parts, 12 and", "numeric", finish_reason="stop"
    )
    assert (finished.answer, finished.unfinished) == ("12", False)


@pytest.mark.parametrize(
    ("raw", "task", "answer", "answer_task"),
    [
        ("18", "auto", "18", "numeric"),
        ("$18.00", "auto", "18", "numeric"),
        ("€ 7.50", "numeric", "7.5", "numeric"),
        ("Mars", "auto", "Mars", "text"),
        ("x = 5", "auto", "5", "numeric"),
        ("x = 5", "math", "5", "math"),
        ("three", "auto", "three", "numeric"),
        ("three", "numeric", "three", "numeric"),
        ("1,024", "numeric", "1024", "numeric"),
        ("0.75.", "numeric", "0.75", "numeric"),
        ("12 cm", "numeric", "12", "numeric"),
        ("\\frac{5}{8}", "math", "\\frac{5}{8}", "math"),
        ("$3\\sqrt{2}$", "math", "3\\sqrt{2}", "math"),
        ("(-1, 4)", "math", "(-1, 4)", "math"),
        ("Leonardo da Vinci", "text", "Leonardo da Vinci", "text"),
        ("No", "boolean", "no", "boolean"),
        ("(C)", "multiple_choice", "C", "multiple_choice"),
    ],
)
def test_a_short_isolated_answer_is_the_whole_output(
    raw: str, task: str, answer: str, answer_task: str
) -> None:
    result = extract(raw, task)
    assert (result.answer, result.method, result.task) == (answer, "whole_output", answer_task)
    assert result.confidence >= MARKER_CONFIDENCE  # no LLM second stage for a clean field
    assert result.span == (0, len(raw))


def test_the_answer_after_a_think_section_is_the_whole_output() -> None:
    raw = "<think>\n7 * 6 = 42, so there are 42 eggs.\n</think>\n\n42"
    result = extract(raw, "numeric")
    assert (result.answer, result.method) == ("42", "whole_output")


@pytest.mark.parametrize(
    ("raw", "task"),
    [
        ("There are 13 bars.", "numeric"),  # a sentence: the fallbacks read it
        ("Adding 12 and 30 gives 42.", "auto"),
        ("I don't know", "text"),
        ("Sorry, no idea.", "auto"),
        ("Still nothing.", "auto"),
        ("Let me check the table again", "auto"),
        ("Unable to determine", "text"),
        ("Paris is the capital of France and its largest city.", "text"),
        ("<answer></answer>", "auto"),
        ("What is the total?", "text"),
    ],
)
def test_a_sentence_a_refusal_or_markup_is_no_isolated_answer(raw: str, task: str) -> None:
    assert extract(raw, task).method != "whole_output"


@pytest.mark.parametrize("raw", ["No, I don't know.", "Yes, sorry, I cannot tell from the image."])
def test_a_refusal_opening_with_yes_or_no_is_no_leading_answer(raw: str) -> None:
    assert extract(raw).method != "leading_answer"


def test_an_isolated_answer_scores_like_a_marked_one() -> None:
    import answerx

    marked = answerx.verify("The answer is 18.", 18)
    isolated = answerx.verify("18", 18)
    assert marked.correct is isolated.correct is True
    assert isolated.extraction is not None and isolated.extraction.confidence >= 0.85


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("The Who", "The Who"),
        ("The United States and Canada", "The United States and Canada"),
        ("Utah, Nevada, Arizona, New Mexico", "Utah, Nevada, Arizona, New Mexico"),
        ("two hundred and six", "two hundred and six"),
        ("Skadden Arps Slate Meagher & Flom", "Skadden Arps Slate Meagher & Flom"),
        ("24/10/1945 is my guess", "24/10/1945 is my guess"),
    ],
)
def test_an_open_domain_reply_of_one_short_line_is_complete(raw: str, answer: str) -> None:
    # Without a finish reason, the mid-sentence test once withheld these as cut off.
    result = extract(raw, "short_answer")
    assert (result.answer, result.method, result.unfinished) == (answer, "whole_output", False)


@pytest.mark.parametrize(
    "raw", ["I don't know", "Who wrote it?", "The author of the novel was:", "Paris. Or Lyon"]
)
def test_a_refusal_a_question_or_two_sentences_is_no_short_answer_reply(raw: str) -> None:
    assert extract(raw, "short_answer").method != "whole_output"


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("roughly 300000 km per second", "300000"),
        ("about -3.5 degrees", "-3.5"),
        ("approximately 2,500 people", "2500"),
        ("300000 km per second", "300000"),
    ],
)
def test_a_math_reply_that_is_a_number_with_units_is_the_whole_output(
    raw: str, answer: str
) -> None:
    result = extract(raw, "math")
    assert (result.answer, result.method, result.unfinished) == (answer, "whole_output", False)
