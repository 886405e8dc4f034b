"""Several accepted answers (aliases) in grade, verify and verify_batch: right when any
matches, and the verdict names the one that did."""

from __future__ import annotations

import pytest

from answerx import grade, verify, verify_batch
from answerx.errors import InputError
from answerx.grading.golds import clean_golds, infer_task


def test_any_accepted_answer_makes_the_answer_right_and_is_named() -> None:
    verdict = verify("<answer>City of Light</answer>", ["Paris", "City of Light"])
    assert (verdict.correct, verdict.matched_gold, verdict.gold) == (
        True, "City of Light", "City of Light"
    )  # fmt: skip


def test_no_accepted_answer_matching_is_wrong_and_names_none() -> None:
    verdict = verify("<answer>Lyon</answer>", ["Paris", "City of Light"])
    assert (verdict.correct, verdict.matched_gold, verdict.gold) == (False, None, "Paris")


@pytest.mark.parametrize(
    ("answer", "golds", "task", "how", "matched"),
    [
        ("0.5", [r"\frac{1}{2}", "1/2"], "auto", "fraction", r"\frac{1}{2}"),
        ("72", [70, 72], "numeric", "exact", "72"),
        ("72.0", [70, 72], "auto", "variant_match", "72"),  # a list of numbers: short answers
        ("B", ["A", "B"], "multiple_choice", "letter", "B"),
        ("yes", ["no", "yes"], "boolean", "boolean", "yes"),
        ("3", ["3", "three"], "auto", "exact_match", "3"),
    ],
)
def test_aliases_work_for_every_task(
    answer: str, golds: list[object], task: str, how: str, matched: str
) -> None:
    verdict = grade(answer, golds, task)  # type: ignore[arg-type]
    assert (verdict.correct, verdict.how, verdict.matched_gold) == (True, how, matched)


def test_a_single_gold_is_matched_too() -> None:
    assert grade("42", 42).matched_gold == "42"
    assert grade("41", 42).matched_gold is None


def test_an_empty_list_of_golds_cannot_be_judged() -> None:
    verdict = verify("The answer is Paris.", [])
    assert (verdict.correct, verdict.reason) == (None, "unreadable_gold")
    assert grade("Paris", ["", None]).reason == "unreadable_gold"


def test_a_gold_that_is_neither_text_nor_number_is_refused_clearly() -> None:
    with pytest.raises(InputError, match="gold answer must be text or a number"):
        grade("4", [{"answer": "4"}])  # type: ignore[list-item]


def test_golds_are_cleaned_and_repeats_dropped() -> None:
    assert clean_golds(["Paris", "$Paris$", " ", None, 3]) == ("Paris", "3")


@pytest.mark.parametrize(
    ("golds", "task"),
    [
        (("Paris", "City of Light"), "short_answer"),
        (("3", "three"), "short_answer"),
        (("72", "72.00"), "short_answer"),
        (("Hydrogen", "H"), "short_answer"),
        (("A", "B"), "multiple_choice"),
        ((r"\frac{1}{2}", "0.5"), "math"),
        (("A long sentence " * 5,), "text"),
    ],
)
def test_auto_reads_the_task_from_all_accepted_answers(golds: tuple[str, ...], task: str) -> None:
    assert infer_task(golds) == task


@pytest.mark.parametrize("workers", [None, 1])
def test_verify_batch_takes_a_list_of_aliases_per_item(workers: int | None) -> None:
    verdicts = verify_batch(
        ["<answer>Fab Four</answer>", "The answer is 42.", "<answer>Lyon</answer>"],
        [["The Beatles", "Fab Four"], 42, ["Paris"]],
        workers=workers,
    )
    assert [(v.correct, v.matched_gold) for v in verdicts] == [
        (True, "Fab Four"), (True, "42"), (False, None)
    ]  # fmt: skip


def test_the_surname_rule_follows_the_question_of_each_item_in_a_batch() -> None:
    verdicts = verify_batch(
        ["<answer>Curie</answer>"] * 2,
        [["Marie Curie"]] * 2,
        questions=["Who discovered polonium?", "What did she discover?"],
    )
    assert [v.how for v in verdicts] == ["surname_match", "no_match"]
