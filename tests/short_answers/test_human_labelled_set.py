"""The human-labelled set of ``bench/short_answers_human.py`` (issue 38): where it comes
from, its tune/check halves, and the rules at least as good as cover on the tune half."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from answerx import verify

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "nq301_human.jsonl"


def _items() -> list[dict[str, Any]]:
    with DATA.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_every_item_names_its_source_and_licence_and_its_half() -> None:
    items = _items()
    assert len(items) == 1490
    assert {it["source"] for it in items} == {"ehsk/OpenQA-eval@8b9317d (MIT)"}
    assert {it["split"] for it in items} == {"tune", "check"}
    # a question's answers all sit in one half: no question is tuned on and checked
    halves: dict[str, set[str]] = {}
    for it in items:
        halves.setdefault(it["question"], set()).add(it["split"])
    assert all(len(h) == 1 for h in halves.values())


def test_on_the_tune_half_the_rules_agree_with_people_at_least_as_well_as_cover() -> None:
    tune = [it for it in _items() if it["split"] == "tune"]
    rules = cover = doubt = 0
    for it in tune:
        v = verify(it["output"], it["golds"], question=it["question"], finish_reason="stop")
        label = bool(it["label"])
        rules += (v.correct is True) == label
        cover += bool(v.scores and v.scores.cover) == label
        doubt += v.doubt is not None
    assert rules >= cover + 0.05 * len(tune)  # 80.8 % against 75.0 % when written
    assert doubt <= 0.15 * len(tune)
