"""Numbers as each language writes them (issue 37): full-width and other scripts' digits
are digits, and in the languages that write a decimal comma a dot or a space between
groups of three digits separates thousands."""

from __future__ import annotations

import pytest

from answerx import extract, verify


@pytest.mark.parametrize("task", ["auto", "numeric"])
@pytest.mark.parametrize(
    ("output", "answer"),
    [
        ("Sie zahlt 3 * 1.500 = 4.500 Euro. Die Antwort lautet 4.500.", "4500"),
        ("En total son 2.350.000 habitantes. La respuesta es 2.350.000.", "2350000"),
        ("A resposta é 1.024.", "1024"),
        ("Donc il reste 12 500 litres. La réponse est 12 500.", "12500"),
        ("Итого 3 600 рублей. Ответ: 3 600.", "3600"),
        ("La risposta è 1.200,75 euro.", "1200.75"),
    ],
)
def test_thousands_written_as_a_decimal_comma_language_writes_them(
    output: str, answer: str, task: str
) -> None:
    assert extract(output, task).answer == answer
    assert verify(output, answer, task=task).correct


@pytest.mark.parametrize("task", ["auto", "numeric"])
def test_a_dot_before_fewer_or_more_than_three_digits_stays_a_decimal_point(task: str) -> None:
    # Only whole groups of three are thousands: "0.125" and "2.5" keep their point.
    assert extract("Die Antwort lautet 0.125.", task).answer == "0.125"
    assert extract("La respuesta es 2.5.", task).answer == "2.5"
    assert extract("La respuesta es 3,75.", task).answer == "3.75"


def test_an_english_answer_keeps_its_decimal_point() -> None:
    assert extract("The answer is 1.248.", "numeric").answer == "1.248"


@pytest.mark.parametrize("task", ["auto", "numeric"])
@pytest.mark.parametrize(
    ("output", "answer"),
    [
        ("全部で２４個です。答えは２４です。", "24"),
        ("合计 １２．５ 元。答案：１２．５", "12.5"),
        ("The answer is ٣٤.", "34"),
    ],
)
def test_digits_of_other_widths_and_scripts_are_digits(output: str, answer: str, task: str) -> None:
    assert extract(output, task).answer == answer
    assert verify(output, answer, task=task).correct
