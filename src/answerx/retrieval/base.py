"""What every retriever shares: :class:`Passage`, the :class:`Retriever` protocol, corpora."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from answerx.errors import InputError

__all__ = ["CorpusRecord", "Passage", "Retriever", "read_corpus"]


class CorpusRecord(BaseModel):
    """One line of a corpus file: UltraRAG's ``{"id", "contents"}`` (contents may start
    with a title line)."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    contents: str = Field(min_length=1)


class Passage(BaseModel):
    """A retrieved passage: its corpus ``id``, ``contents`` and the engine's ``score``
    (higher is better; comparable only within one search)."""

    model_config = ConfigDict(frozen=True)

    id: str
    contents: str
    score: float = 0.0

    @property
    def title(self) -> str:
        """The first line of the contents (UltraRAG corpora put the title there)."""
        return self.contents.split("\n", 1)[0].strip()


@runtime_checkable
class Retriever(Protocol):
    """What the search agents need of a retriever: plug in a dense index or a web search
    API by writing these two methods (see the README, "Search agents")."""

    def search(self, query: str, k: int = 5) -> list[Passage]:
        """The ``k`` best passages for ``query``, best first (fewer when fewer match)."""
        ...

    def search_many(self, queries: Sequence[str], k: int = 5) -> list[list[Passage]]:
        """:meth:`search` for each query, in order."""
        ...


def read_corpus(path: str | Path) -> Iterator[CorpusRecord]:
    """The records of a JSONL corpus, in file order; blank lines are skipped.

    Raises :class:`InputError` naming the file and line for a line that is not a JSON
    object with non-empty string ``id`` and ``contents``, and for a repeated ``id``
    (a retriever returns ids; two passages under one id could not be told apart).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"corpus file {str(path)!r} does not exist")
    seen: set[str] = set()
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            record = _record(path, number, line)
            if record.id in seen:
                raise InputError(f"{path}: duplicate passage id {record.id!r}", line=number)
            seen.add(record.id)
            yield record


def _record(path: Path, number: int, line: str) -> CorpusRecord:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not JSON ({exc.msg})", line=number) from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object with id and contents", line=number)
    if isinstance(data.get("id"), int) and not isinstance(data.get("id"), bool):
        data = {**data, "id": str(data["id"])}  # numeric ids are common; keep them as text
    for field in ("id", "contents"):
        value = data.get(field)
        if not isinstance(value, str) or not value.strip():
            raise InputError(
                f"{path}: {field!r} must be a non-empty string, got {value!r:.60}", line=number
            )
    return CorpusRecord(id=data["id"], contents=data["contents"])
