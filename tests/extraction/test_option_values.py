"""In ``multiple_choice`` a short reply whose value equals exactly one option's value
names that option (issue 37 §3): numbers with or without units, in any script."""

from __future__ import annotations

import pytest

from answerx import extract, verify

_AREAS = ["191.5", "1128", "2256", "4512"]


@pytest.mark.parametrize(
    ("raw", "choices", "answer"),
    [
        ("The area of the figure is 2256 square feet.", _AREAS, "C"),
        ("2256 sq ft", _AREAS, "C"),
        ("4.40 meters", ["3.20米", "4.40米", "5.10米"], "B"),
        ("The answer is 4.4 m.", ["3.20米", "4.40米", "5.10米"], "B"),
        ("It costs $12.50 in total.", ["$10.00", "$12.50", "$15.00"], "B"),
        ("Es kostet 7 Euro.", ["5 €", "7 €", "9 €"], "B"),
    ],
)
def test_a_short_reply_stating_one_options_value_names_it(
    raw: str, choices: list[str], answer: str
) -> None:
    assert extract(raw, "multiple_choice", choices=choices).answer == answer


@pytest.mark.parametrize(
    "raw",
    [
        "Either 1128 or 2256 square feet, depending on the scale.",
        "The area is 3000 square feet.",
    ],
)
def test_a_reply_with_several_or_no_option_values_names_none(raw: str) -> None:
    assert extract(raw, "multiple_choice", choices=_AREAS).answer is None


def test_an_option_named_by_value_is_graded_by_its_letter() -> None:
    raw = "The area of the figure is 2256 square feet."
    assert verify(raw, "C", task="multiple_choice", choices=_AREAS).correct is True
    assert verify(raw, "B", task="multiple_choice", choices=_AREAS).correct is False


def test_a_reply_naming_several_values_is_read_by_the_value_it_concludes_on() -> None:
    speeds = ["10 m/s", "5 m/s", "2.5 m/s", "20 m/s"]
    assert (
        extract(
            "由 v = at 得，物体5秒末的速度为 10 m/s。", "multiple_choice", choices=speeds
        ).answer
        == "A"
    )
    assert (
        extract("After 5 s the speed is 10 m/s.", "multiple_choice", choices=speeds).answer == "A"
    )


def test_an_option_with_abbreviation_periods_ends_a_reply() -> None:
    times = ["8:10 P.M.", "5:00 P.M.", "8:35 P.M.", "8:05 P.M."]
    result = extract(
        "The unicycle rider's show begins at 8:10 P.M.", "multiple_choice", choices=times
    )
    assert result.answer == "A"
