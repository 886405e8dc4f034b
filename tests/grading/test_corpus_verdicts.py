"""Verdicts against the correctness labels of ../shared/data/corpus (the issue's target).

Skipped when the corpus is not beside the checkout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from answerx import verify_batch
from corpus import CORPUS_FILES, corpus_dir

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(corpus_dir() is None, reason="../shared/data/corpus not present"),
]


def labelled(name: str) -> list[dict[str, object]]:
    folder = corpus_dir()
    assert folder is not None
    filename, _ = CORPUS_FILES[name]
    with (folder / filename).open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return [r for r in rows if r["model_correct"] is not None]


def test_verdicts_agree_with_the_correctness_labels_on_995_per_mille() -> None:
    agreed = total = 0
    misses: list[str] = []
    for name, (_, task) in CORPUS_FILES.items():
        rows = labelled(name)
        verdicts = verify_batch(
            [r["raw_output"] for r in rows],
            [r["gold"] for r in rows],
            task=task,
            choices=[r.get("choices") for r in rows],
        )
        for row, verdict in zip(rows, verdicts, strict=True):
            total += 1
            if verdict.correct == row["model_correct"]:
                agreed += 1
            else:
                misses.append(f"{row['id']}: label {row['model_correct']}, {verdict.reason}")
    assert agreed / total >= 0.995, "\n".join(misses)
