"""Deterministic readers for the intermediate replies of multi-call approaches.

Control steps (a critique's verdict, verification questions, skeleton points, a
thought's score) are free-text calls read by these functions rather than
structured calls: they then work with any provider and any strategy, and cost
no re-asks. Each reader degrades to a safe default on text that does not follow
the prompt. Patterns are anchored per line or bounded, so time is linear.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["last_code_block", "last_output_line", "numbered_items", "score_of", "verdict_of"]

_VERDICT: Final = re.compile(r"<\s*verdict\s*>\s*([A-Za-z ]{1,40}?)\s*<\s*/\s*verdict\s*>", re.I)
_ITEM: Final = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?(?:(?:point|step|question|q)[ \t]*)?"
    r"(?:\d{1,2}[.):]|[-*•])(?:\*\*)?[ \t]+(?:\*\*)?(\S[^\n]*?)[ \t]*$",
    re.I | re.M,
)
_SCORE_TAG: Final = re.compile(r"<\s*score\s*>\s*(-?\d{1,3}(?:\.\d{1,4})?)", re.I)
_SCORE_PHRASE: Final = re.compile(
    r"\b(?:score|rating|rate it)\b[^\d\n]{0,20}(-?\d{1,3}(?:\.\d{1,4})?)", re.I
)
_FENCE: Final = re.compile(
    r"^[ \t]*```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)^[ \t]*```", re.I | re.M | re.S
)

SCORE_MAX: Final = 10.0


def verdict_of(critique: str) -> bool | None:
    """The last ``<verdict>`` of a critique: True for "correct", False for "revise"
    (or anything else), None when there is none."""
    verdicts = _VERDICT.findall(critique)
    if not verdicts:
        return None
    word = verdicts[-1].strip().lower()
    return word in {"correct", "no issues", "none", "ok", "no changes"}


def numbered_items(text: str, limit: int) -> list[str]:
    """The numbered or bulleted lines of ``text`` (markers and ``**`` removed), at most
    ``limit``, duplicates dropped."""
    items: list[str] = []
    for match in _ITEM.finditer(text):
        item = match.group(1).strip().strip("*").strip()
        if item and item not in items:
            items.append(item)
            if len(items) == limit:
                break
    return items


def score_of(evaluation: str) -> float:
    """A thought's score in [0, 1]: the last ``<score>N</score>`` (else "score: N")
    out of 10, clamped; 0.0 when the evaluation gives none."""
    found = _SCORE_TAG.findall(evaluation) or _SCORE_PHRASE.findall(evaluation)
    if not found:
        return 0.0
    return min(max(float(found[-1]) / SCORE_MAX, 0.0), 1.0)


def last_code_block(text: str) -> str | None:
    """The body of the last fenced Python (or untagged) code block, or None."""
    blocks = _FENCE.findall(text)
    if not blocks:
        return None
    code: str = blocks[-1]
    return code if code.strip() else None


def last_output_line(stdout: str) -> tuple[str, int, int] | None:
    """The last non-empty line of a program's output, stripped, with its span."""
    end = len(stdout)
    while end > 0:
        start = stdout.rfind("\n", 0, end) + 1
        line = stdout[start:end]
        if line.strip():
            lead = len(line) - len(line.lstrip())
            return line.strip(), start + lead, start + lead + len(line.strip())
        end = start - 1
    return None
