"""Multiple choice read however the choice is stated (issue 23 §1): the prompt's own phrases,
a reply-style "A:" followed by the option's text, a letter with its text (and what happens
when the two disagree), the bare option text, a yes/no reply, a letter ending a sentence."""

from __future__ import annotations

import pytest

from answerx import extract

MC = "multiple_choice"
FRUIT = ["Apple", "Banana", "Cherry", "Date"]
YES_NO = ["Yes", "No"]
SEASONS = ["Winter", "Spring and summer", "Autumn", "Summer and autumn"]
COUNTS = ["3", "5", "7", "9"]


@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        (
            "Only one fruit is yellow when ripe. Thus, the correct option letter is B.",
            "B",
            "choice_phrase",
        ),
        ("The correct option is (C)", "C", "choice_phrase"),
        ("Comparing both readings, the right choice would be D.", "D", "choice_phrase"),
        ("Correct answer: A", "A", "final_answer_phrase"),
        ("Best option: (B)", "B", "choice_phrase"),
        ("After weighing each option, I pick C.", "C", "choice_phrase"),
        ("We will select option A, since it is the only edible one.", "A", "choice_phrase"),
        ("Let's go with (D).", "D", "choice_phrase"),
        ("Option B is correct.", "B", "choice_phrase"),
        ("(C) is the right one.", "C", "choice_phrase"),
        ("D is the correct answer.", "D", "choice_phrase"),
        ("Yellow skin and a curved shape point to one fruit, so it's B.", "B", "choice_phrase"),
    ],
)
def test_the_letter_after_a_choice_phrase_is_the_answer(raw: str, answer: str, method: str) -> None:
    result = extract(raw, MC, choices=FRUIT)
    assert (result.answer, result.method, result.unfinished) == (answer, method, False)
    assert result.confidence >= 0.85


@pytest.mark.parametrize(
    "raw",
    [
        "Option A is correct only if the fruit is green, which it is not. Let me check the rest",
        "Let me consider each choice:\n(A) is red\n(B) is yellow",
        "I choose to look at the colours first, then the shapes, then the sizes of each fruit.",
        "The correct option is not (A), since apples are red.",
    ],
)
def test_a_phrase_that_states_no_choice_is_not_an_answer(raw: str) -> None:
    result = extract(raw, MC, choices=FRUIT)
    assert result.method not in ("choice_phrase", "final_answer_phrase")


@pytest.mark.parametrize(
    ("raw", "choices", "answer"),
    [
        ("A: Yes", YES_NO, "A"),
        ("A: Yes", ["No", "Yes"], "B"),  # "A:" is "Answer:", the text decides
        ("A: No, the red car is parked behind the blue one.", YES_NO, "B"),
        ("Q: Is the cup full?\nA: No, it is about half empty.", YES_NO, "B"),
        ("A: Cherry", FRUIT, "C"),
    ],
)
def test_a_reply_style_prefix_is_followed_by_the_option_text(
    raw: str, choices: list[str], answer: str
) -> None:
    assert extract(raw, MC, choices=choices).answer == answer


def test_a_letter_with_its_own_text_is_that_letter() -> None:
    result = extract("(B) Spring and summer", MC, choices=SEASONS)
    assert (result.answer, result.valid, result.problem) == ("B", True, None)


def test_a_letter_with_another_options_text_keeps_the_letter_and_says_so() -> None:
    agrees = extract("(D) Summer and autumn", MC, choices=SEASONS)
    differs = extract("(D) Spring and summer", MC, choices=SEASONS)
    assert (differs.answer, differs.valid) == ("D", False)
    assert differs.problem == "letter D, but 'Spring and summer' is option B"
    assert differs.confidence < agrees.confidence


@pytest.mark.parametrize(
    ("raw", "answer", "method"),
    [
        ("Cherry", "C", "whole_output"),
        ("cherry.", "C", "whole_output"),
        ("**Banana**", "B", "whole_output"),
        ("A banana", "B", "whole_output"),
        ("It is a banana", "B", "choice_phrase"),
        ("The answer is Date.", "D", "final_answer_phrase"),
        ("Final answer: apple", "A", "final_answer_phrase"),
    ],
)
def test_the_bare_option_text_is_its_letter(raw: str, answer: str, method: str) -> None:
    result = extract(raw, MC, choices=FRUIT)
    assert (result.answer, result.method) == (answer, method)


@pytest.mark.parametrize(
    "raw",
    ["Not a banana", "Either an apple or a cherry", "Kiwi", "Bananas and apples are both sweet."],
)
def test_a_reply_that_names_no_single_option_gets_no_option(raw: str) -> None:
    assert extract(raw, MC, choices=FRUIT).answer is None


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("No, the lamp is shorter than the shelf.", "B"),
        ("Yes. Both dogs are facing left.", "A"),
        ("No - there are only two birds on the wire.", "B"),
        ("yes, the door is open", "A"),
    ],
)
def test_a_yes_no_reply_opens_with_its_answer(raw: str, answer: str) -> None:
    result = extract(raw, MC, choices=YES_NO)
    assert (result.answer, result.method, result.unfinished) == (answer, "leading_answer", False)


def test_an_option_text_that_opens_a_short_reply_is_the_answer() -> None:
    result = extract("Cherry, because it is the only stone fruit listed.", MC, choices=FRUIT)
    assert (result.answer, result.method) == ("C", "leading_answer")


def test_a_walk_through_the_options_does_not_answer_with_its_first_letter() -> None:
    raw = "A. Apples are red.\nB. Bananas are yellow.\nC. Cherries are red."
    assert extract(raw, MC, choices=FRUIT).answer != "A"


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("The bar on the left reaches 42, higher than the others. A", "A"),
        ("Counting the dots in each square gives the largest total for the third. C", "C"),
        ("Looking at the graph carefully:\nB", "B"),
    ],
)
def test_a_letter_on_its_own_after_a_sentence_is_the_answer(raw: str, answer: str) -> None:
    result = extract(raw, MC)
    assert (result.answer, result.unfinished) == (answer, False)


def test_a_short_reply_ending_on_an_option_text_names_that_option() -> None:
    raw = "Looking at the picture, the fruit in the bowl is a cherry."
    result = extract(raw, MC, choices=FRUIT)
    assert (result.answer, result.method) == ("C", "choice_text")


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("Correct answer: C", "C"),  # the letter, not the option "7"... which is also C
        ("The correct option is (B).", "B"),
        ("The answer is 7.", "C"),  # the option whose text is 7
        ("(A) 3", "A"),
        ("9", "D"),
    ],
)
def test_options_that_are_numbers_are_read_by_letter_or_by_text(raw: str, answer: str) -> None:
    assert extract(raw, MC, choices=COUNTS).answer == answer


def test_options_that_are_letters_are_matched_by_their_text() -> None:
    letters = ["K", "M", "O", "Q"]  # "Which letter comes next: E, G, I, ?"
    assert extract("The correct option is (A).", MC, choices=letters).answer == "A"
    assert extract("K", MC, choices=letters).answer == "A"
