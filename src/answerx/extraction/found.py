"""What every extraction rule shares: the :class:`Found` candidate, the :class:`Rule` row,
and the bounds that keep each scan linear.

A module of its own so that the rule modules (``rules.py``, ``choices.py``,
``languages.py``, ``replies.py``) can each build a :class:`Found` without importing the
rule table that lists them.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from answerx.extraction.models import Method
from answerx.extraction.number_words import number_text, stated_number_words
from answerx.extraction.tasks import Accepted, Acceptor

__all__ = [
    "FALLBACK_TIER",
    "MAX_TRIES",
    "SENTENCE_WINDOW",
    "Found",
    "Rule",
    "RuleFn",
    "accept_words",
    "found",
    "keyword_hits",
    "last_matches",
    "matches_near",
]

#: Rules of this tier and above are fallbacks: they guess from the reasoning when no
#: explicit marker states an answer, so they need the task's shape and a finished output.
FALLBACK_TIER = 800
#: Occurrences of one marker tried before giving up on it.
MAX_TRIES = 24
#: Characters after a phrase marker that may hold its answer.
SENTENCE_WINDOW = 400


class Found(NamedTuple):
    """A candidate a rule found and the task's acceptor took.

    (A NamedTuple rather than a frozen dataclass: it is built on the hot path,
    and a NamedTuple is several times cheaper to construct.)
    """

    answer: str
    task: str
    candidate: str
    start: int  # candidate span in raw_output
    end: int
    marker_start: int  # whole marker span (removed from `reasoning`)
    marker_end: int
    # Lowers confidence: an <answer> block cut off before its closing tag, a letter whose
    # text names another option.
    weak: bool = False
    problem: str | None = None  # why the stated answer is not well-formed (None: it is)

    @property
    def stated_empty(self) -> bool:
        """The model explicitly gave an empty answer (``"answer": ""``): no answer,
        and no fallback may guess one from the reasoning."""
        return self.answer == ""


def found(
    got: Accepted, text: str, start: int, end: int, marker_start: int, marker_end: int
) -> Found:
    """The :class:`Found` for the candidate ``text[start:end]`` an acceptor took as ``got``,
    stated by the marker ``text[marker_start:marker_end]``."""
    return Found(
        got.answer, got.task, text[start:end], start, end, marker_start, marker_end,
        got.weak, got.problem,
    )  # fmt: skip


# (text, ascii-lowercased text of the same length, lo, hi, acceptor) -> Found | None
RuleFn = Callable[[str, str, int, int, Acceptor], Found | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the rule table: its reported name, tier and base confidence.

    A rule takes what it finds as stated (the task's lenient acceptor) unless ``strict``:
    the fallbacks, and a rule that reads a reply with no marker at all (the whole output,
    its opening words), need the task's shape (``rules.fallback_rules`` sets it)."""

    name: Method
    tier: int
    confidence: float
    find: RuleFn
    strict: bool = False


def last_matches(
    pattern: re.Pattern[str], text: str, lo: int, hi: int, needs: re.Pattern[str] | None = None
) -> list[re.Match[str]]:
    """The last matches of ``pattern`` in ``text[lo:hi]``, last first, found by searching
    windows that grow from the end, so a match near the end costs little. ``needs`` is a
    character class every match contains: one fast scan for it spares megabytes of
    text without it (all braces, all newlines) the slower full pattern."""
    if hi - lo > 65_536 and needs is not None and needs.search(text, lo, hi) is None:
        return []
    window = 512
    while True:
        start = max(lo, hi - window)
        # A match near the window's start may be cut short by it: keep only those
        # well inside, and widen the window when there are none.
        hits = [
            m for m in pattern.finditer(text, start, hi) if start == lo or m.start() > start + 64
        ]
        if hits or start == lo:
            return hits[::-1][:MAX_TRIES]
        window *= 4


def accept_words(words: str, accept: Acceptor) -> Accepted | None:
    """What ``accept`` makes of the number ``words`` states (``"three"``, ``"about twenty
    years"``), checked by its value in digits and answered as stated: a task's strict
    acceptor takes digits only (a structured answer must be written in digits), while a
    rule that reads the words keeps them as the model wrote them."""
    stated = stated_number_words(words)
    if stated is None:
        return None
    got = accept(number_text(stated[2]))
    return got._replace(answer=words[stated[0] : stated[1]]) if got else None


def keyword_hits(
    lower: str, lo: int, hi: int, keywords: tuple[str, ...], limit: int = 4 * MAX_TRIES
) -> Iterator[tuple[int, str]]:
    """``(position, keyword)`` of the occurrences of ``keywords`` in ``lower[lo:hi]``, last
    first, at most ``limit`` of them: each found with ``str.rfind`` (C speed), so a rule
    whose markers hold a keyword never runs a slow pattern over the whole text."""
    heap = []
    for keyword in keywords:
        at = lower.rfind(keyword, lo, hi)
        if at != -1:
            heap.append((-at, keyword))
    heapq.heapify(heap)
    for _ in range(limit):
        if not heap:
            return
        neg, keyword = heapq.heappop(heap)
        at = -neg
        earlier = lower.rfind(keyword, lo, at)
        if earlier != -1:
            heapq.heappush(heap, (-earlier, keyword))
        yield at, keyword


def matches_near(
    pattern: re.Pattern[str],
    lower: str,
    lo: int,
    hi: int,
    keywords: tuple[str, ...],
    reach: int = 64,
) -> Iterator[re.Match[str]]:
    """The matches of ``pattern`` in ``lower[lo:hi]`` that hold one of ``keywords``, last
    first (lazily): the pattern runs only within ``reach`` characters of each keyword
    (see :func:`keyword_hits`), so the cost stays linear and small."""
    seen: set[tuple[int, int]] = set()
    for at, keyword in keyword_hits(lower, lo, hi, keywords):
        window_end = min(hi, at + len(keyword) + reach)
        for m in pattern.finditer(lower, max(lo, at - reach), window_end):
            if m.start() <= at < m.end() and m.span() not in seen:
                seen.add(m.span())
                yield m
