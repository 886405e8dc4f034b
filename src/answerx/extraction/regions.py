"""Where in a raw output the answer may be: ``<think>`` sections and runaway few-shot text.

The engine runs its rules on a region ``[lo, hi)`` of the raw output rather than on
a copy, so every reported span points into the original text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Region", "answer_regions"]

# Matched on the lowercased text (see engine.ascii_lower).
_THINK_OPEN = re.compile(r"<\s*think\s*>")
_THINK_CLOSE = re.compile(r"<\s*/\s*think\s*>")
_THINK_AT_START = re.compile(r"\s*<\s*think\s*>")
# A base model that answered and then went on with a new few-shot item.
# (Not IGNORECASE: a pattern starting with a literal "\n" is scanned much faster.)
_NEW_QUESTION = re.compile(r"\n[ \t]*(?:Question|QUESTION|question|Q)[ \t]*:")
# A chat model that answered, then recites its answers to all the few-shot questions
# ("Now that I have provided the answers to the questions, ... 1. The answer is (F).
# 2. ..."): the recap's letters answer other questions, so the answer ends before it.
_RECAP = re.compile(r"\n[ \t]*Now that (?:I|we)(?: have|'ve) [^\n]{0,160}?\bquestions\b")


class Region(NamedTuple):
    lo: int
    hi: int
    factor: float = 1.0  # confidence multiplier (answers from inside <think> are weaker)
    cut: bool = False  # ends where a new few-shot "Question:" (or a recap of them) starts


def answer_regions(text: str, lower: str, stop: int | None = None) -> list[Region]:
    """Regions to search, best first; the engine uses the first that yields an answer.

    ``lower`` is ``text`` lowercased with every index unchanged; ``stop`` is where an
    end-of-sequence token ended the model's own text (a run-on follows it)."""
    lo, hi, factor = 0, len(text), 1.0
    # Every think tag has a "<": one memchr for it spares most outputs the slower
    # substring scan for "think".
    if "<" in lower and "think" in lower:
        lo, hi, factor = _outside_think(text, lower)
    regions = []
    # Cheap tests first; a one-character test is a memchr, far faster than a substring
    # scan, and rules most outputs out before it.
    cut = (
        _NEW_QUESTION.search(text, lo, hi)
        if (
            "uestion" in text
            or ("U" in text and "UESTION" in text)
            or ("Q" in text and "\nQ" in text)
        )
        else None
    )
    recap = _RECAP.search(text, lo, hi) if "N" in text and "Now that" in text else None
    if recap is not None and (cut is None or recap.start() < cut.start()):
        cut = recap
    if stop is not None and lo < stop < hi and (cut is None or stop < cut.start()):
        regions.append(Region(lo, stop, factor, cut=True))
    if cut is not None and text[lo : cut.start()].strip():
        regions.append(Region(lo, cut.start(), factor, cut=True))
    regions.append(Region(lo, hi, factor))
    return regions


def _outside_think(text: str, lower: str) -> tuple[int, int, float]:
    close = None
    for close in _THINK_CLOSE.finditer(lower):  # noqa: B007 - we want the last one
        pass
    if close is not None:
        if text[close.end() :].strip():
            return close.end(), len(text), 1.0  # never the source when text follows it
        opened = _THINK_OPEN.search(lower, 0, close.start())
        return (opened.end() if opened else 0), close.start(), 0.8
    opened = _THINK_AT_START.match(lower)
    if opened:  # unclosed <think> at the start: a reasoning model cut off mid-thought
        return opened.end(), len(text), 0.8
    return 0, len(text), 1.0
