"""The per-step helpers of UltraRAG's search agents, as plain functions (no LLM, no I/O).

- :func:`ircot_first_sentence`: IRCoT retrieves with the first sentence of each
  new reasoning step;
- :func:`iter_retgen_query`: IterRetGen retrieves with the question and the
  previous round's generation;
- :class:`RunningList` / :class:`SearchO1Lists`: Search-o1's per-question running
  lists (sub-queries, reasoning steps, final information), which start as the
  ``<PAD>`` placeholder;
- :func:`merge_passages`, :func:`format_passages`: passage lists joined without
  repeats, and rendered for insertion into a turn;
- :func:`assign_citation_ids` and :class:`CitationRegistry`: ``[n] text``
  citations, numbered per question.

Query parsing is not here: :func:`answerx.extraction.queries.extract_query` reads
every tag convention (and, unlike R1-Searcher's upstream pattern
``<|begin_of_query|>([^<]*)``, a closed ``<|end_of_query|>`` tag is never part
of the query).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from answerx.extraction.queries import NO_QUERY
from answerx.retrieval.base import Passage

__all__ = [
    "PAD",
    "CitationRegistry",
    "RunningList",
    "SearchO1Lists",
    "assign_citation_ids",
    "format_passages",
    "ircot_first_sentence",
    "iter_retgen_query",
    "merge_passages",
    "search_r1_query_extract",
]

#: The placeholder Search-o1's running lists start with.
PAD: Final = "<PAD>"
# Western and full-width (CJK) sentence ends: IRCoT's sentence boundary.
_SENTENCE_END = re.compile(r"[.?!。！？]")


def ircot_first_sentence(text: str) -> str:
    """The first sentence of ``text``: up to and including the first ``. ? ! 。！？``,
    stripped; the whole stripped text when there is no terminator.

    As in IRCoT, a period is a boundary wherever it is (``3.5`` ends a sentence
    after ``3.``): the step's first sentence is only a retrieval query, and a short
    query retrieves as well as a long one.

    >>> ircot_first_sentence("  Lumen Rail was founded by Tomasz Reyl. He was born in 1852.")
    'Lumen Rail was founded by Tomasz Reyl.'
    """
    stripped = text.strip()
    end = _SENTENCE_END.search(stripped)
    return stripped if end is None else stripped[: end.end()].strip()


_SEARCH_R1_QUERY = re.compile(r"<search>([^<]*)")


def search_r1_query_extract(text: str) -> str:
    """UltraRAG's ``search_r1_query_extract``, to the letter: the stripped text of the
    last ``<search>([^<]*)`` match (so a query stops at its first ``<``, an empty last
    tag is an empty query), ``"There is no query."`` without one, and ``?`` added to a
    query that does not end with one.

    answerx's own reading is :func:`answerx.extraction.queries.extract_query`, which
    keeps a ``<`` inside a query and skips empty tags and mentions.

    >>> search_r1_query_extract("<search>rivers with length < 100 km</search>")
    'rivers with length?'
    """
    found = _SEARCH_R1_QUERY.findall(text)
    if not found:
        return NO_QUERY
    query = found[-1].strip()
    return query if query.endswith("?") else f"{query}?"


def iter_retgen_query(question: str, answer: object) -> str:
    """IterRetGen's next retrieval query, UltraRAG's ``f"{q} {ans}"``: the question, a
    space, the previous generation as given (any value, written as an f-string writes
    it; an empty one leaves the trailing space). ``None`` means there is no previous
    generation (before the first round, or no answer was read): the question alone.

    >>> iter_retgen_query("Who founded it?", 42), iter_retgen_query("Who founded it?", "")
    ('Who founded it? 42', 'Who founded it? ')
    """
    if answer is None:
        return question
    return f"{question} {answer}"


@dataclass(slots=True)
class RunningList:
    """One of Search-o1's running lists: it starts as ``[PAD]``; the first real entry
    replaces the placeholder, later ones are appended. Empty entries and ``PAD``
    itself are not real entries and are ignored."""

    items: list[str] = field(default_factory=lambda: [PAD])

    def add(self, entry: str) -> None:
        entry = entry.strip()
        if not entry or entry == PAD:
            return
        if self.items == [PAD]:
            self.items[0] = entry
        else:
            self.items.append(entry)

    @property
    def entries(self) -> list[str]:
        """The real entries (none while only the placeholder is there)."""
        return [] if self.items == [PAD] else list(self.items)

    def __contains__(self, entry: object) -> bool:
        return isinstance(entry, str) and entry.strip() in self.entries


@dataclass(slots=True)
class SearchO1Lists:
    """The running lists of one Search-o1 question."""

    queries: RunningList = field(default_factory=RunningList)
    reasoning: RunningList = field(default_factory=RunningList)
    information: RunningList = field(default_factory=RunningList)


def merge_passages(
    *lists: Iterable[Passage], limit: int | None = None, dedupe: bool = True
) -> list[Passage]:
    """The passages of ``lists`` in order, each id once (its first occurrence), at most
    ``limit`` of them. ``dedupe=False`` appends every list whole, repeats included, as
    UltraRAG's ``merge_passages`` does (``ret_psg + temp_psg``)."""
    merged: list[Passage] = []
    seen: set[str] = set()
    for passages in lists:
        for passage in passages:
            if dedupe and passage.id in seen:
                continue
            seen.add(passage.id)
            merged.append(passage)
            if limit is not None and len(merged) >= limit:
                return merged
    return merged


def format_passages(passages: Sequence[Passage]) -> str:
    """Passages as Search-R1 inserts them: ``Doc 1(Title: …) text`` lines; the title is
    the passage's first line when it has several."""
    lines = []
    for number, passage in enumerate(passages, start=1):
        title, sep, body = passage.contents.partition("\n")
        text = body.strip() if sep else title
        lines.append(f"Doc {number}(Title: {title.strip()}) {text}".rstrip())
    return "\n".join(lines)


def assign_citation_ids(batch: Sequence[Sequence[Passage | str]]) -> list[list[str]]:
    """``[n] text`` for each question's passages, numbered from 1 per question.

    >>> assign_citation_ids([["a", "b"], ["c"]])
    [['[1] a', '[2] b'], ['[1] c']]
    """
    return [[f"[{n}] {_text(p)}" for n, p in enumerate(passages, start=1)] for passages in batch]


class CitationRegistry:
    """Citation numbers per question that stay put across steps.

    Keyed by a stable question id (not by the question's position in a batch,
    which shifts when finished questions drop out); a passage cited again keeps
    the number it first got. One registry per run, not one per process.

    >>> registry = CitationRegistry()
    >>> registry.cite("q1", [Passage(id="a", contents="A"), Passage(id="b", contents="B")])
    ['[1] A', '[2] B']
    >>> registry.cite("q1", [Passage(id="b", contents="B"), Passage(id="c", contents="C")])
    ['[2] B', '[3] C']
    """

    def __init__(self) -> None:
        self._numbers: dict[str, dict[str, int]] = {}

    def number(self, question_id: str, passage: Passage | str) -> int:
        """The passage's citation number for the question (a new one the first time)."""
        numbers = self._numbers.setdefault(question_id, {})
        key = _key(passage)
        if key not in numbers:
            numbers[key] = len(numbers) + 1
        return numbers[key]

    def cite(self, question_id: str, passages: Iterable[Passage | str]) -> list[str]:
        """``[n] text`` for each passage, with its stable number."""
        return [f"[{self.number(question_id, p)}] {_text(p)}" for p in passages]

    def citations(self, question_id: str) -> dict[str, int]:
        """Passage key (its id, or the text of a plain string) → number, in number order."""
        return dict(self._numbers.get(question_id, {}))

    def reset(self, question_id: str | None = None) -> None:
        """Forget one question's numbers, or every question's."""
        if question_id is None:
            self._numbers.clear()
        else:
            self._numbers.pop(question_id, None)


def _key(passage: Passage | str) -> str:
    return passage.id if isinstance(passage, Passage) else passage


def _text(passage: Passage | str) -> str:
    return passage.contents if isinstance(passage, Passage) else passage
