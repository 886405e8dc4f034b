"""The short-answer bench set (bench/data/short_answers.jsonl) is well formed, and on it
the verdict keeps beating cover match while leaving at most a tenth to a judge."""

from __future__ import annotations

import json
from pathlib import Path

from answerx import verify

DATA = Path(__file__).parents[2] / "bench" / "data" / "short_answers.jsonl"


def _items() -> list[dict[str, object]]:
    with DATA.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def test_the_set_holds_labelled_items_of_every_kind() -> None:
    items = _items()
    assert len(items) >= 300
    assert len({i["id"] for i in items}) == len(items)
    for item in items:
        assert isinstance(item["label"], bool) and isinstance(item["question"], str)
        assert isinstance(item["golds"], list) and item["golds"]
    kinds = {i["category"] for i in items}
    assert {"name", "date", "number", "place", "list", "hedge", "refusal", "alias"} <= kinds
    share_right = sum(bool(i["label"]) for i in items) / len(items)
    assert 0.35 < share_right < 0.65  # right and wrong replies alike


def test_the_verdict_beats_cover_match_and_leaves_little_to_a_judge() -> None:
    items = _items()
    verdicts = [
        verify(str(i["output"]), i["golds"], question=str(i["question"]), finish_reason="stop")
        for i in items
    ]
    labels = [bool(i["label"]) for i in items]
    ours = sum((v.correct is True) == lab for v, lab in zip(verdicts, labels, strict=True))
    cover = sum(
        bool(v.scores and v.scores.cover) == lab for v, lab in zip(verdicts, labels, strict=True)
    )
    assert ours - cover >= 0.05 * len(items)
    assert sum(v.doubt is not None for v in verdicts) <= 0.10 * len(items)
