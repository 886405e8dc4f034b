"""The breadth sets of issue 23 (``tests/data/breadth``, read by ``bench/breadth.py``): one
realistic set per class, in the styles of several model families, right and wrong answers;
each has 30 items or more and agrees with the stated answers on 98 % of them or more."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from breadth import CLASSES, agreement, load_class


@pytest.mark.parametrize("name", list(CLASSES))
def test_each_class_agrees_on_98_percent_of_its_set(name: str) -> None:
    pct, n, misses = agreement(name)
    assert n >= 30
    assert pct >= 98.0, f"{pct:.1f}%; misses:\n" + "\n".join(misses)


@pytest.mark.parametrize("name", list(CLASSES))
def test_each_set_has_several_styles_and_right_and_wrong_answers(name: str) -> None:
    rows = load_class(name)
    families = Counter(row.style.split("-")[0] for row in rows)
    assert len(families) >= 4, families
    assert len({row.id for row in rows}) == len(rows)
    if CLASSES[name][2]:  # graded sets hold wrong answers too
        assert {row.correct for row in rows} >= {True, False}
