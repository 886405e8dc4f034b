"""The live comparison the symbolic rung's tests make against math-verify itself.

A rung rule may decide a pair only where math-verify's verdict is certain; these sweeps
run both on every answer × gold pair and list where they differ.
"""

from __future__ import annotations

import importlib.util

import pytest

from answerx.grading.mathverify import compare
from answerx.grading.symbolic import decide

needs_math_verify = pytest.mark.skipif(
    importlib.util.find_spec("math_verify") is None, reason="math-verify not installed"
)


def math_verify_verdict(answer: str, gold: str) -> bool | None:
    """math-verify's own verdict on the pair (generous time limit), or None where it gives
    none (a timeout, a gold it cannot read, math-verify missing)."""
    result = compare(answer, gold, 30.0)
    return None if result in ("timeout", "unreadable_gold", "unavailable") else result == "equal"


def sweep(
    answers: list[str], golds: list[str]
) -> tuple[int, list[tuple[str, str, tuple[bool, str]]]]:
    """How many answer × gold pairs the rung decides, and those where math-verify's
    verdict is not the rung's (no verdict from math-verify counts as a difference)."""
    decided, disagreements = 0, []
    for answer in answers:
        for gold in golds:
            fast = decide(answer, gold)
            if fast is None:
                continue
            decided += 1
            if fast[0] is not math_verify_verdict(answer, gold):
                disagreements.append((answer, gold, fast))
    return decided, disagreements
