"""LiveBench's answer forms (issue 37): a ``<solution>`` block is an answer block, and a bold
phrase that ends the output states the answer; "72 clips" under ``auto`` is the number."""

from __future__ import annotations

import pytest

from answerx import extract, verify


@pytest.mark.parametrize("task", ["auto", "text"])
def test_a_solution_block_is_an_answer_block(task: str) -> None:
    raw = (
        "The tea drinker is third; the jazz fan keeps the cat.\n\n<solution>jazz, 3, tea</solution>"
    )
    result = extract(raw, task)
    assert (result.answer, result.method) == ("jazz, 3, tea", "answer_block")


@pytest.mark.parametrize(
    ("raw", "task", "answer"),
    [
        (
            "Cutting along the diagonal leaves two pieces, each a right triangle.\n\n**triangle**",
            "auto",
            "triangle",
        ),
        (
            "The cafe person lies, so the zoo person tells the truth. **no, yes, no**",
            "text",
            "no, yes, no",
        ),
        ("The stack closes in reverse.\n\n**So the answer is ] > ).**", "auto", "] > )"),
        ("Adding the rows gives 17 in all.\n__17__", "numeric", "17"),
    ],
)
def test_a_bold_phrase_that_ends_the_output_states_the_answer(
    raw: str, task: str, answer: str
) -> None:
    assert extract(raw, task).answer == answer


def test_a_bold_word_inside_the_reasoning_is_no_answer() -> None:
    raw = "The **diagonal** cut leaves two pieces, each a right triangle, so there are 2 pieces."
    assert extract(raw, "numeric").answer == "2"


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("The answer is 72 clips.", "72"),
        ("So the answer is 4.5 hours", "4.5"),
        ("Answer: negative 3", "-3"),
    ],
)
def test_auto_reads_a_number_with_its_unit_words_or_sign_word_as_the_number(
    raw: str, answer: str
) -> None:
    result = extract(raw, "auto")
    assert (result.answer, result.task) == (answer, "numeric")
    assert verify(raw, answer).correct is True
