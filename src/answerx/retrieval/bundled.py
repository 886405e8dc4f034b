"""The corpus bundled with answerx: 60 passages about a fictional world, and 15 multi-hop
questions with gold answers and the passages that support them.

Written for the project: the people, places and companies (Ostrand, the Varrow
Republic, Brightwater Instruments, …) do not exist, so a model can only answer
from what it retrieves, never from memory. Each question needs two or three
passages (the founder of the company that …). It ships in the wheel; the demo,
the tests and ``bench/retrieval.py`` use it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import as_file, files
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from answerx.retrieval.base import read_corpus
from answerx.retrieval.fts import Index, build_index_from

__all__ = ["BundledQuestion", "bundled_corpus_path", "bundled_index", "bundled_questions"]


class BundledQuestion(BaseModel):
    """A multi-hop question over the bundled corpus."""

    model_config = ConfigDict(frozen=True)

    id: str
    question: str
    answer: str
    supporting: tuple[str, ...]  # ids of the passages the answer needs


def bundled_corpus_path() -> Path:
    """The bundled ``corpus.jsonl`` (a real file in an installed package)."""
    with as_file(files(__package__) / "data" / "corpus.jsonl") as path:
        return Path(path)


@cache
def bundled_questions() -> tuple[BundledQuestion, ...]:
    """The bundled questions, in order."""
    text = (files(__package__) / "data" / "questions.jsonl").read_text(encoding="utf-8")
    return tuple(BundledQuestion.model_validate(json.loads(line)) for line in text.splitlines()
                 if line.strip())  # fmt: skip


def bundled_index(index_path: str | Path) -> Index:
    """The bundled corpus indexed into ``index_path`` (60 passages: milliseconds)."""
    return build_index_from(read_corpus(bundled_corpus_path()), index_path)
