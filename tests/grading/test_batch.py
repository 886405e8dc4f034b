"""verify_batch(): many outputs, order kept, one verdict per item, in or out of process."""

from __future__ import annotations

import pyarrow as pa
import pytest

from answerx.errors import ConfigError, InputError
from answerx.grading import verify, verify_batch

OUTPUTS = [
    "The answer is 42.",
    "I give up.",
    r"Thus $\boxed{\frac{\sqrt{3}}{2}}$.",
    "The answer is (B).",
    "So the total is 17.",
]
GOLDS = ["42", "7", r"\sqrt3/2", "C", "17"]
EXPECTED = ["equivalent", "no_answer", "equivalent", "different", "equivalent"]


@pytest.mark.parametrize("workers", [None, 1, 2])
def test_verdicts_come_back_in_order_one_per_item(workers: int | None) -> None:
    verdicts = verify_batch(OUTPUTS, GOLDS, workers=workers)
    assert [v.reason for v in verdicts] == EXPECTED
    singles = [verify(o, g) for o, g in zip(OUTPUTS, GOLDS, strict=True)]
    assert [v.model_dump(exclude={"elapsed_s"}) for v in verdicts] == [
        v.model_dump(exclude={"elapsed_s"}) for v in singles
    ]


def test_arrow_arrays_are_read_like_lists() -> None:
    verdicts = verify_batch(pa.array(OUTPUTS), pa.chunked_array([GOLDS[:2], GOLDS[2:]]))
    assert [v.reason for v in verdicts] == EXPECTED


def test_task_choices_and_numbers_are_one_for_all_or_one_per_item() -> None:
    outputs = ["The answer is Venus.", "Answer: (7 - 8 / 8) * 4", "The answer is 3."]
    verdicts = verify_batch(
        outputs,
        ["B", None, "3"],
        task=["multiple_choice", "game24", "numeric"],
        choices=[["Mercury", "Venus"], None, None],
        numbers=[None, [4, 7, 8, 8], None],
    )
    assert [v.correct for v in verdicts] == [True, True, True]
    shared = verify_batch(
        ["The answer is B.", "The answer is A."], ["B", "B"], choices=["Mercury", "Venus"]
    )
    assert [v.correct for v in shared] == [True, False]


def test_an_item_without_text_gets_a_verdict_not_an_exception() -> None:
    verdicts = verify_batch([None, "The answer is 4.", 12], ["4", None, "12"])
    assert [(v.correct, v.reason) for v in verdicts] == [
        (False, "no_answer"), (None, "unreadable_gold"), (False, "no_answer")
    ]  # fmt: skip


def test_mismatched_lengths_and_unknown_tasks_are_the_callers_errors() -> None:
    with pytest.raises(InputError, match="2 outputs but 1 gold"):
        verify_batch(["a", "b"], ["a"])
    with pytest.raises(ConfigError, match="unknown task"):
        verify_batch(["a"], ["a"], task="algebra")
    with pytest.raises(InputError, match="one per item"):
        verify_batch(["a", "b"], ["a", "b"], task=["math"])
