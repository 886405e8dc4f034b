"""The breadth sets of issue 23: one realistic set per class of answer statement.

Each set is a JSONL file under ``tests/data/breadth/`` written for the project: outputs
in the styles of several model families (GPT-4o, Claude, Gemini, Qwen/Qwen-VL, Llama,
InternVL/LLaVA, DSPy answer fields), right and wrong answers. A row names its task
(and choices), the answer the output states (``stated``; null when it states none),
the dataset's gold and whether the stated answer is right, and what else the class
promises (``expect``): the rule (``method``), ``unfinished``, ``valid``,
``value_count``, a ``low_confidence`` guess.

Shared by ``bench/extraction.py`` (the breadth table) and ``tests/extraction``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from answerx import Extraction, extract, grade

__all__ = ["CLASSES", "BreadthRow", "agreement", "check", "load_class"]

_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "breadth"

#: class name -> (file, what the class is, whether the stated answer is also graded)
CLASSES: dict[str, tuple[str, str, bool]] = {
    "choices": ("choices.jsonl", "§1 a choice however it is stated (English)", True),
    "languages": ("languages.jsonl", "§1 answer markers in other languages", True),
    "complete_short": ("complete_short.jsonl", "§2 complete short answers are finished", False),
    "isolated": ("isolated.jsonl", "§3 short isolated answers (whole_output)", True),
    "number_words": ("number_words.jsonl", "§4 numbers in words", True),
    "several_values": ("several_values.jsonl", "§5 several values, lists, tuples", False),
    "guesses": ("guesses.jsonl", "§6 low confidence where the rules guess", False),
}
#: Below this confidence, two-stage extraction and the judge take over (the lowest base
#: confidence of an explicit marker: reasoning.settings.MARKER_CONFIDENCE).
GUESS_CONFIDENCE = 0.85


@dataclass(frozen=True)
class BreadthRow:
    id: str
    style: str
    task: str
    output: str
    stated: str | None
    gold: str | None = None
    correct: bool | None = None
    choices: list[str] | None = None
    expect: dict[str, Any] = field(default_factory=dict)


def load_class(name: str) -> list[BreadthRow]:
    """The rows of one class's set."""
    path = _DIR / CLASSES[name][0]
    return [BreadthRow(**json.loads(line)) for line in path.read_text().splitlines() if line]


def _run(row: BreadthRow) -> Extraction:
    return extract(row.output, row.task, choices=row.choices)


def check(row: BreadthRow, graded: bool) -> tuple[bool, str]:
    """(the extraction agrees with the row, what differs)."""
    got = _run(row)
    wrong = []
    if got.answer != row.stated:
        wrong.append(f"answer {got.answer!r} != stated {row.stated!r}")
    checks: dict[str, Callable[[Extraction], object]] = {
        "method": lambda e: e.method,
        "unfinished": lambda e: e.unfinished,
        "valid": lambda e: e.valid,
        "value_count": lambda e: e.value_count,
        "low_confidence": lambda e: e.confidence < GUESS_CONFIDENCE,
    }
    for key, want in row.expect.items():
        have = checks[key](got)
        if have != want:
            wrong.append(f"{key} {have!r} != {want!r}")
    if graded and row.gold is not None and row.correct is not None and got.answer is not None:
        verdict = grade(got.answer, row.gold, row.task, choices=row.choices)
        if verdict.correct is not row.correct:
            wrong.append(f"graded {verdict.correct} ({verdict.how}), labelled {row.correct}")
    return not wrong, "; ".join(wrong)


def agreement(name: str) -> tuple[float, int, list[str]]:
    """(agreement %, items, the misses) of one class."""
    rows = load_class(name)
    graded = CLASSES[name][2]
    misses = []
    for row in rows:
        ok, why = check(row, graded)
        if not ok:
            misses.append(f"{row.id} ({row.style}): {why}")
    return 100.0 * (len(rows) - len(misses)) / max(len(rows), 1), len(rows), misses
