"""`answerx.experiments.goldcheck`: a data set's gold answers written the way models state
them must verify; the ones that do not are named, with how each form was read."""

from __future__ import annotations

import json
from pathlib import Path

from answerx.experiments.datasets import DatasetItem
from answerx.experiments.goldcheck import FORMS, check_golds


def test_a_bundled_sample_has_golds_that_verify_in_every_form() -> None:
    result = check_golds("arithmetic")

    assert result.ok and result.failed == []
    assert result.checked > 0 and result.no_gold == 0


def test_a_gold_that_is_not_an_answer_is_named_with_each_form_that_fails(tmp_path: Path) -> None:
    path = tmp_path / "golds.jsonl"
    rows = [
        {"id": "ok", "question": "2 + 2?", "answer": "4"},
        {"id": "words", "question": "How many?", "answer": "a lot"},
        {"id": "none", "question": "Why?"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    result = check_golds(path, task="numeric")

    assert (result.checked, result.no_gold, result.ok) == (2, 1, False)
    [failure] = result.failed
    assert (failure.id, failure.gold) == ("words", "a lot")
    assert set(failure.forms) == {name for name, _ in FORMS}
    # a numeric task reads no number in "a lot": no answer, whatever the form
    assert {(f.reason, f.answer) for f in failure.forms.values()} == {("no_answer", None)}


def test_items_already_loaded_can_be_checked() -> None:
    items = [DatasetItem(id="1", question="Pick", gold="B", choices=["x", "y"])]

    assert check_golds(items, task="multiple_choice").ok
