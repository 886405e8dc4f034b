"""Citations: the keys a text cites, the keys retrieved passages carry, and the registry
that gives each passage one key and one number for the whole survey.

A search retrieves each keyword, deduplicates the passages and interleaves them up to
``top_k`` (:func:`interleave_passages`); each passage keeps one citation key
(``textidN``, or its own ``bibkey:`` line) and one citation number (the order it was
first retrieved in; ``textidN`` is number N).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from answerx.retrieval.base import Passage

__all__ = [
    "citation_numbers",
    "cited_keys",
    "interleave_passages",
    "passages_text",
    "retrieved_keys",
]

_CITE = re.compile(r"\\\w*cite(?!style)\w*\{([^{}]*)\}")
_BIBKEY_LINE = re.compile(r"^\s*bibkey:\s*(\S+)\s*$", re.MULTILINE | re.IGNORECASE)


def cited_keys(text: str) -> list[str]:
    """The keys cited with ``\\cite{a, b}`` (and ``\\citep``, …), in order, each once."""
    keys: list[str] = []
    for group in _CITE.findall(text):
        for key in group.split(","):
            key = key.strip()
            if key.lower().startswith("bibkey:"):
                key = key[len("bibkey:") :].strip()
            if key and key != "*" and key not in keys:
                keys.append(key)
    return keys


def retrieved_keys(passages_text: str) -> list[str]:
    """The citation keys of retrieved passages: their ``bibkey:`` lines."""
    return _BIBKEY_LINE.findall(passages_text)


def interleave_passages(
    per_keyword: Sequence[Sequence[Passage]], top_k: int, keys: dict[str, str]
) -> list[tuple[str, Passage]]:
    """The passages of several keyword searches as (citation key, passage), at most
    ``top_k``: first up to ``top_k // len(per_keyword)`` (at least 1) from each
    keyword in turn, then the rest in order to fill up; each passage id once.

    ``keys`` (passage id → key) is the survey's registry: a passage keeps its key
    across searches; a new one gets its own ``bibkey:`` line's key, else ``textidN``,
    N its citation number (the order passages were first retrieved in, see
    :func:`citation_numbers`).
    """
    if not per_keyword:
        return []
    share = max(1, top_k // len(per_keyword))
    chosen: list[Passage] = []
    seen: set[str] = set()
    for rounds in ((p[:share] for p in per_keyword), (p[share:] for p in per_keyword)):
        for passages in rounds:
            for passage in passages:
                if len(chosen) >= top_k:
                    break
                if passage.id not in seen:
                    seen.add(passage.id)
                    chosen.append(passage)
    result = []
    for passage in chosen:
        if passage.id not in keys:
            own = retrieved_keys(passage.contents)
            keys[passage.id] = own[0] if own else f"textid{len(keys) + 1}"
        result.append((keys[passage.id], passage))
    return result


def citation_numbers(keys: Mapping[str, str]) -> dict[str, int]:
    """Citation key → number for a survey's registry (passage id → key): each passage's
    number is the order it was first retrieved in, so ``textidN`` is N and a passage's
    own bibkey gets the number of its place (a key met twice keeps its first)."""
    numbers: dict[str, int] = {}
    for number, key in enumerate(keys.values(), start=1):
        numbers.setdefault(key, number)
    return numbers


def passages_text(cited: Sequence[tuple[str, Passage]]) -> str:
    """Passages as the prompts show them: a ``bibkey:`` line, then the contents."""
    blocks = []
    for key, passage in cited:
        contents = _BIBKEY_LINE.sub("", passage.contents).strip()
        blocks.append(f"bibkey: {key}\n{contents}")
    return "\n\n".join(blocks)
