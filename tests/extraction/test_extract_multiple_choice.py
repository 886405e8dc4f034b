"""Multiple choice (letters A–Z; A–J when an item lists no choices): every way a model
writes its letter, option text, and the article "A" in prose, which is never an answer."""

from __future__ import annotations

import pytest

from answerx import extract

MC = "multiple_choice"
ORGANELLES = ["Nucleus", "Mitochondrion", "Ribosome", "Golgi apparatus"]

PAREN = """Option (A) describes the nucleus, which stores DNA, and (C) the ribosome,
which builds proteins. The powerhouse of the cell is the mitochondrion, so I'll go with (B)"""

RIGHT_PAREN = """The nucleus stores DNA and the ribosome builds proteins, neither makes ATP.
Therefore B) is the organelle we are looking for."""

BOLD = """The nucleus stores DNA and the ribosome builds proteins, neither makes ATP.
The best option is **B**"""

BOXED = r"""The nucleus stores DNA and the ribosome builds proteins, neither makes ATP.
Hence \boxed{B}"""

DOLLAR = """The nucleus stores DNA and the ribosome builds proteins, neither makes ATP.
So the correct choice is $B$."""

THE_ANSWER_IS = """The nucleus stores DNA and the ribosome builds proteins, neither makes ATP.
The answer is (B)."""

ANSWER_COLON = """The nucleus stores DNA and the ribosome builds proteins, neither makes ATP.
Answer: B"""

OPTION_WORD = """The nucleus stores DNA and the ribosome builds proteins, neither makes ATP.
I'll go with option C after all, since the question asks about protein synthesis."""

LONE_LETTER_LINE = """The nucleus stores DNA and the ribosome builds proteins, neither makes ATP.

B"""

LAST_LETTER_WINS = """At first I leaned towards (A), since the nucleus controls the cell.
But the question asks about energy production, which is the mitochondrion.
The answer is (A)... no, wait. The answer is (B)."""

OPTION_J = """There are ten options and only the last one lists all four conditions.
The answer is (J)."""

LOWER_CASE = """Only the second option has the right units.
The answer is (b)."""


@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        pytest.param(PAREN, "B", "choice_phrase", id="paren-B"),
        pytest.param(RIGHT_PAREN, "B", "choice_letter", id="B-right-paren"),
        pytest.param(BOLD, "B", "choice_phrase", id="bold-B"),
        pytest.param(BOXED, "B", "boxed", id="boxed-B"),
        pytest.param(DOLLAR, "B", "choice_phrase", id="dollar-B"),
        pytest.param(THE_ANSWER_IS, "B", "final_answer_phrase", id="the-answer-is-(B)"),
        pytest.param(ANSWER_COLON, "B", "final_answer_phrase", id="answer-colon-B"),
        pytest.param(OPTION_WORD, "C", "choice_letter", id="option-C"),
        pytest.param(LONE_LETTER_LINE, "B", "choice_letter", id="lone-letter-line"),
        pytest.param(LAST_LETTER_WINS, "B", "final_answer_phrase", id="last-wins"),
        pytest.param(OPTION_J, "J", "final_answer_phrase", id="letter-J"),
        pytest.param(LOWER_CASE, "B", "final_answer_phrase", id="lower-case-(b)"),
        pytest.param(
            "Only one conserves energy.\nThe answer is option B.",
            "B",
            "final_answer_phrase",
            id="the-answer-is-option-B",
        ),
        pytest.param(
            "Only one conserves energy.\nThe answer is choice (B).",
            "B",
            "final_answer_phrase",
            id="the-answer-is-choice-(B)",
        ),
        pytest.param(
            "Only one conserves energy.\nThe answer is [B].",
            "B",
            "final_answer_phrase",
            id="brackets-[B]",
        ),
        pytest.param(
            "3 * 5 = 15.\nThe answer is (B) 15.", "B", "final_answer_phrase", id="letter-then-value"
        ),
        pytest.param(
            "3 * 5 = 15.\nThe answer is B: 15.", "B", "final_answer_phrase", id="letter-colon-value"
        ),
        pytest.param(
            "Between the options, the answer is: **C**",
            "C",
            "final_answer_phrase",
            id="the-answer-is-bold-C",
        ),
        pytest.param(
            "Final answer: (C)\n\nWhy not A? A ignores friction.",
            "C",
            "final_answer_phrase",
            id="explanation-after-answer",
        ),
    ],
)
def test_choice_letter_forms(raw: str, answer: str, method: str) -> None:
    result = extract(raw, MC)
    assert (result.answer, result.method) == (answer, method)
    assert result.task == MC


@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        pytest.param(
            "The organelle that makes most of the ATP is the mitochondrion.\n"
            "The answer is Mitochondrion.",
            "B",
            "final_answer_phrase",
            id="the-answer-is-option-text",
        ),
        pytest.param(
            "Proteins are assembled by ribosomes reading mRNA.\nAnswer: ribosome",
            "C",
            "final_answer_phrase",
            id="answer-colon-option-text-lower-case",
        ),
        pytest.param(
            "Vesicles are sorted and shipped by one organelle.\n<answer>Golgi apparatus</answer>",
            "D",
            "answer_block",
            id="answer-block-option-text",
        ),
        pytest.param(
            "Vesicles are sorted and shipped by one organelle.\nThe answer is (D) Golgi apparatus.",
            "D",
            "final_answer_phrase",
            id="letter-and-option-text",
        ),
    ],
)
def test_option_text_maps_to_its_letter(raw: str, answer: str, method: str) -> None:
    result = extract(raw, MC, choices=ORGANELLES)
    assert (result.answer, result.method) == (answer, method)


# Issue 12: a stated letter that is not an option is still what the model answered; it is
# returned, and marked not well-formed (before, these gave no answer).
def test_stated_letter_outside_the_given_choices_is_returned_and_marked() -> None:
    raw = "None of the four options fits, so the answer is (F)."
    result = extract(raw, MC, choices=ORGANELLES)
    assert (result.answer, result.method) == ("F", "final_answer_phrase")
    assert (result.valid, result.problem) == (False, "letter F is not an option")


def test_stated_letter_beyond_J_is_returned_and_marked() -> None:
    raw = "Looking at the labels on the diagram, the answer is (K)."
    result = extract(raw, MC)
    assert (result.answer, result.valid, result.problem) == (
        "K",
        False,
        "letter K is not an option",
    )


def test_a_letter_outside_the_choices_is_never_guessed_by_the_fallback() -> None:
    raw = "Options (E) and (F) were in last year's exam, not this one."
    result = extract(raw, MC, choices=ORGANELLES)
    assert (result.answer, result.method) == (None, "none")


def test_a_stated_option_letter_is_valid() -> None:
    result = extract("The answer is (B).", MC, choices=ORGANELLES)
    assert (result.answer, result.valid, result.problem) == ("B", True, None)


# The article "A" in prose is never an answer.
@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(
            "A photon has no rest mass, so its energy is carried by its momentum.\n"
            "A careful look at the options is needed before choosing.",
            id="sentences-starting-with-A",
        ),
        pytest.param(
            "A: The question is ambiguous. A reasonable reading would need more context.",
            id="A-colon-then-prose",
        ),
        pytest.param(
            "Night blindness is the classic sign of a vitamin deficiency.\n"
            "Vitamin A is needed to make rhodopsin in the rods of the retina.",
            id="vitamin-A",
        ),
        pytest.param(
            "A, B and C all look plausible at first. A closer look at the units rules out\n"
            "two of them, but I am not sure which one is left.",
            id="A-comma-listing",
        ),
        pytest.param(
            "The answer is a bit subtle. A lot depends on how friction is modelled.",
            id="the-answer-is-a-bit",
        ),
    ],
)
def test_article_A_in_prose_is_never_taken(raw: str) -> None:
    result = extract(raw, MC)
    assert result.answer != "A"


@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        pytest.param(
            "The answer is (C). A quick sanity check: only (C) conserves momentum.",
            "C",
            "final_answer_phrase",
            id="A-sentence-after-answer",
        ),
        pytest.param(
            "A block slides down a frictionless ramp. A force diagram shows that option (D)"
            " is the only consistent one.",
            "D",
            "choice_letter",
            id="A-sentences-around-letter",
        ),
        pytest.param(
            "A careful check of each option leaves only one.\nAnswer: A",
            "A",
            "final_answer_phrase",
            id="A-is-the-answer",
        ),
        pytest.param(
            "Only the first option is consistent with the data.\nThe answer is A.",
            "A",
            "final_answer_phrase",
            id="the-answer-is-A",
        ),
        pytest.param(
            "Only the first option is consistent with the data, so I choose (A).",
            "A",
            "choice_phrase",
            id="I-choose-paren-A",
        ),
        pytest.param(
            "Only the first option, (A), is consistent with the data.",
            "A",
            "choice_letter",
            id="paren-A",
        ),
    ],
)
def test_letter_A_as_an_answer_is_still_found(raw: str, answer: str, method: str) -> None:
    result = extract(raw, MC)
    assert (result.answer, result.method) == (answer, method)


def test_article_A_is_not_taken_by_auto() -> None:
    raw = (
        "A train leaves at 3 pm and travels 120 km at 60 km/h.\n"
        "A two-hour trip means it arrives at 5 pm."
    )
    result = extract(raw)
    assert result.answer == "5"
    assert result.task != MC


# A base model answers, then rambles on into the next few-shot item.
RAMBLE_PHRASE = """The answer is (B).

Question: Which planet is known as the Red Planet?
(A) Venus
(B) Jupiter
(C) Mars
(D) Saturn
Answer: (C)

Question: What is the chemical symbol for gold?"""

RAMBLE_LETTER = """ (B) Mitochondrion

Question: Which gas makes up most of Earth's atmosphere?
(A) Nitrogen (B) Oxygen (C) Argon (D) Carbon dioxide
Answer: (A)"""

RAMBLE_Q = """Light travels fastest in a vacuum, so the answer is (D).
Q: Which is the largest ocean on Earth?
A: The answer is (A)."""


@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        pytest.param(RAMBLE_PHRASE, "B", "final_answer_phrase", id="phrase-then-Question"),
        pytest.param(RAMBLE_LETTER, "B", "whole_output", id="letter-then-Question"),
        pytest.param(RAMBLE_Q, "D", "final_answer_phrase", id="phrase-then-Q"),
    ],
)
def test_rambling_into_a_new_question_is_cut_off(raw: str, answer: str, method: str) -> None:
    result = extract(raw, MC)
    assert (result.answer, result.method) == (answer, method)
    assert result.span is not None
    assert result.span[1] <= raw.index("Q")  # found before the new question


# A chat model answers, then recites its answers to the few-shot questions it was shown
# (seen in MMLU-Pro's Qwen1.5 outputs): the recap's letters answer other questions.
RECAP_LIST = """PEST stands for Political, Economic, Social and Technological. The answer is (I).

Now that I have considered all the options and their relevance to the questions, I can provide \
the final answer for each question.
Answer:
1. The answer is (F).
2. The answer is (D).
3. The answer is (A)."""

RECAP_LINE = """The dimensions they use are customer participation and environmental acquisition. \
The answer is (D).

Now that I have provided the answers to the questions, I can combine them to form my final answer.
Answer: The answer is (F). Business ethics management, Decentralized, Email marketing."""


@pytest.mark.parametrize(
    "raw",
    [pytest.param(RECAP_LIST, id="numbered-recap"), pytest.param(RECAP_LINE, id="one-line-recap")],
)
def test_a_recap_of_the_few_shot_answers_is_cut_off(raw: str) -> None:
    result = extract(raw, MC)
    assert result.method == "final_answer_phrase"
    assert result.answer == raw[raw.index("The answer is (") + 15]  # the first statement
    assert result.span is not None and result.span[1] < raw.index("Now that")


def test_now_that_about_one_question_keeps_the_later_answer() -> None:
    raw = (
        "At first (A) looked right.\n"
        "Now that I have checked the units, only one option fits.\nThe answer is (C)."
    )
    assert extract(raw, MC).answer == "C"
