"""AnswerSpec: the one value an item's answer shape travels as (task, choices, numbers)."""

from __future__ import annotations

import pytest

from answerx.errors import ConfigError
from answerx.extraction import AnswerSpec
from answerx.structured import AnswerSpec as StructuredAnswerSpec
from answerx.structured import get_extraction_model


@pytest.mark.parametrize(
    ("task", "choices", "numbers", "expected"),
    [
        ("auto", ["red", "blue"], None, AnswerSpec("multiple_choice", ("red", "blue"))),
        ("auto", None, [4, 7, 8, 8], AnswerSpec("game24", numbers=(4, 7, 8, 8))),
        ("auto", None, None, AnswerSpec("auto")),
        ("numeric", [], [], AnswerSpec("numeric")),
    ],
)
def test_an_items_spec_resolves_auto_as_extract_does(
    task: str, choices: list[str] | None, numbers: list[int] | None, expected: AnswerSpec
) -> None:
    assert AnswerSpec.for_item(task, choices, numbers) == expected


def test_a_given_spec_wins_and_mixing_it_with_choices_is_refused() -> None:
    spec = AnswerSpec("boolean")
    assert AnswerSpec.given(spec, "numeric") is spec
    assert AnswerSpec.given(None, "auto", ["a", "b"]).task == "multiple_choice"
    with pytest.raises(ConfigError, match="not both"):
        AnswerSpec.given(spec, choices=["a", "b"])


def test_structured_still_exports_the_same_answer_spec() -> None:
    assert StructuredAnswerSpec is AnswerSpec


def test_the_extraction_model_binds_to_a_spec_like_to_its_parts() -> None:
    spec = AnswerSpec.for_item("auto", ["x", "y", "z"])
    by_spec = get_extraction_model("none", spec=spec)
    by_parts = get_extraction_model("none", task="multiple_choice", choices=["x", "y", "z"])
    assert by_spec is by_parts
    assert get_extraction_model("none", spec=AnswerSpec("auto")) is get_extraction_model("none")
    with pytest.raises(ConfigError, match="not both"):
        get_extraction_model("none", task="boolean", spec=spec)
