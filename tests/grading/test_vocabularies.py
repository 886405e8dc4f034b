"""One table per vocabulary: the option letters, LaTeX layout and one Game-of-24 evaluator,
so that extraction and grading cannot disagree about them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import answerx
from answerx.extraction import extract
from answerx.extraction.game24 import UnarySign, evaluate
from answerx.extraction.models import OPTION_LETTERS, UNLISTED_LETTERS
from answerx.grading import check_game24, grade, verify
from answerx.grading.symbolic.lexer import LAYOUT_COMMANDS, tokenize

SRC = Path(answerx.__file__).parent


# A run of option letters spelled out, or the old range of them ("[A-J]", "letters A-J").
_SPELLED = re.compile(r"ABCDEFG|A-J")


def test_the_option_letters_are_spelled_out_in_one_place() -> None:
    spelled = []
    for path in SRC.rglob("*.py"):
        if path == SRC / "extraction" / "models.py":
            continue  # the table itself (its docstring shows the letters)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and _SPELLED.search(text):
                spelled.append(f"{path.relative_to(SRC).as_posix()}: {text[:60]!r}")
    assert spelled == []  # every pattern builds its letters from extraction/models.py's table
    assert (OPTION_LETTERS, UNLISTED_LETTERS) == ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "ABCDEFGHIJ")


def test_an_item_with_eighteen_options_is_read_and_graded_to_its_last_letter() -> None:
    # BIG-Bench Hard's colour questions letter eighteen options, (A) to (R).
    choices = [
        *("red", "orange", "yellow", "green", "blue", "brown", "magenta", "fuchsia", "mauve"),
        *("teal", "turquoise", "burgundy", "silver", "gold", "black", "grey", "purple", "pink"),
    ]
    raw = "The pen is pink, the last of the colours listed. So the answer is (R)."
    assert extract(raw, "multiple_choice", choices=choices).answer == "R"
    assert verify(raw, "R", task="multiple_choice", choices=choices).correct is True
    assert verify("(K)", "K", task="multiple_choice", choices=choices).correct is True


def test_a_late_letter_is_an_option_only_when_the_item_lists_that_many() -> None:
    # Without the list, "K" in "… is (K)." is a unit or a name, not an eleventh option.
    eleven = list("abcdefghijk")
    assert extract("The answer is (K).", "multiple_choice").valid is False
    assert extract("The answer is (K).", "multiple_choice", choices=eleven).answer == "K"
    assert extract("The answer is (L).", "multiple_choice", choices=eleven).valid is False


def test_a_stated_none_of_the_above_is_the_answer_not_a_letter_of_the_reasoning() -> None:
    raw = "(A) is plain. (B) is plain too. None is sarcastic. So the answer is (None of the above)."
    found = extract(raw, "multiple_choice", choices=["a joke", "a jab"])
    assert (found.answer, found.valid) == ("(None of the above)", False)
    assert verify(raw, "B", task="multiple_choice", choices=["a joke", "a jab"]).correct is False
    # An option that says so is that option.
    assert verify(raw, "C", task="multiple_choice", choices=["x", "y", "None of the above"]).correct


def test_a_letter_past_the_options_is_malformed_in_grade_as_in_extract() -> None:
    choices = ["red", "blue"]
    assert extract("The answer is (C).", choices=choices).valid is False
    assert grade("C", "A", choices=choices).reason == "malformed_answer"


# --- Game of 24: one evaluator, one rule on a sign on its own --------------------------------


def test_a_negated_number_is_malformed_in_extract_and_in_verify_alike() -> None:
    # The game's rule (LeetCode 679, Rosetta Code's 24 game): every operation joins two
    # numbers, so "- -2" is not a move, though (4 - -2) * 4 makes 24.
    raw, numbers = "Answer: (4 - -2) * 4", [2, 4, 4]
    found = extract(raw, "game24", numbers=numbers)
    assert (found.answer, found.valid) == ("(4 - -2) * 4", False)
    assert found.problem is not None and "negates a number" in found.problem
    assert verify(raw, None, "game24", numbers=numbers).reason == "malformed_answer"
    assert check_game24("(4 - -2) * 4", numbers) is False


def test_a_solution_is_valid_in_extract_and_right_in_verify_alike() -> None:
    raw, numbers = "Answer: (4 + 2) * 4", [2, 4, 4]
    assert extract(raw, "game24", numbers=numbers).valid is True
    assert verify(raw, None, "game24", numbers=numbers).correct is True


def test_the_evaluator_is_exact_and_refuses_all_but_four_operations() -> None:
    assert evaluate("8 / (3 - 8 / 3)") == 24
    with pytest.raises(UnarySign):
        evaluate("-2 * -12")
    for text in ("2 ** 3", "abs(2)", "x + 1"):
        with pytest.raises(ValueError):
            evaluate(text)
    with pytest.raises(ZeroDivisionError):
        evaluate("4 / (2 - 2)")


# --- LaTeX layout: one table for the plain comparison and the fast rung ---------------------


@pytest.mark.parametrize("command", sorted(LAYOUT_COMMANDS))
def test_layout_commands_change_no_verdict_in_either_comparison(command: str) -> None:
    sized = rf"\{command}( 1, 2 \{command})"
    assert grade(sized, "(1,2)", "math").how == "normalised_math"
    plain = [t for t in tokenize("(1, 2)") or []]
    assert tokenize(sized) == plain


def test_every_fraction_spelling_is_one_fraction_in_the_plain_comparison() -> None:
    for spelling in ("dfrac", "tfrac", "cfrac"):
        assert grade(rf"\{spelling}{{1}}{{x}}", r"\frac{1}{x}", "math").how == "normalised_math"
