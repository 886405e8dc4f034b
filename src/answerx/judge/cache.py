"""Where judge answers are kept so that a re-run costs nothing: the cache hook.

A judge cache is anything with ``get(key)`` returning an entry with ``payload`` and
``info`` (or None) and ``put(key, payload, info)``: exactly the interface of the
experiments' :class:`~answerx.experiments.cache.ResponseCache`, which plugs in as it
is (a judge question is one more call of the run). :class:`MemoryJudgeCache` keeps
answers for the life of the process. Keys hash everything that decides the answer:
provider, model, endpoint, modes, the prompt's version, the question's parts (the
question, the gold list, the answer, the output, the task), the verdict model's
schema and the call's options; as canonical JSON of those parts, never of the
rendered prompt, where a gold holding a line break could pass for two golds.

Where the file is has one rule, :func:`cache_location`: ``cache.db`` beside the
results store (a run's ``--db``; else the default store, so ``$ANSWERX_HOME/cache.db``),
with one override, ``ANSWERX_JUDGE_CACHE`` (a file, or ``off``).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Final, Protocol

from pydantic import BaseModel

from answerx.callinfo import CallInfo
from answerx.support.home import default_db

__all__ = [
    "JUDGE_CACHE_ENV",
    "CachedReply",
    "JudgeCache",
    "MemoryJudgeCache",
    "cache_location",
    "cache_override",
    "judge_cache_key",
]

#: The one override of where judge answers are cached: a file, or ``off``.
JUDGE_CACHE_ENV: Final = "ANSWERX_JUDGE_CACHE"
_OFF: Final = frozenset({"off", "none", "no", "false", "0"})


def cache_override(override: str | Path | None = None) -> str:
    """The place a caller (``override``) or ``$ANSWERX_JUDGE_CACHE`` names for the cache: a
    file or ``off``; ``""`` when neither names one (the cache then follows the store)."""
    return str(override if override is not None else os.environ.get(JUDGE_CACHE_ENV, "")).strip()


def cache_location(override: str | Path | None = None, *, store: Path | None = None) -> Path | None:
    """Where judge (and LLM-extractor) answers are cached; None: nowhere.

    ``override`` (else ``$ANSWERX_JUDGE_CACHE``): a file, or ``off``. Without one,
    ``cache.db`` beside the results store ``store`` (else beside the default store in
    ``$ANSWERX_HOME``): the response cache a run's own calls use, so what a run asked
    costs nothing when its items are judged or re-scored later.
    """
    where = cache_override(override)
    if where:
        return None if where.lower() in _OFF else Path(where)
    return (store if store is not None else default_db()).with_name("cache.db")


class CachedReply(Protocol):
    """One stored judge call: the verdict model's JSON and the call's CallInfo."""

    @property
    def payload(self) -> str: ...

    @property
    def info(self) -> CallInfo: ...


class JudgeCache(Protocol):
    """The cache hook of :class:`~answerx.judge.LLMJudge` (thread-safe implementations only)."""

    def get(self, key: str) -> CachedReply | None:
        """The stored call of ``key``, or None."""
        ...

    def put(self, key: str, payload: str, info: CallInfo) -> None:
        """Store the call of ``key``."""
        ...


class _Entry(BaseModel):
    payload: str
    info: CallInfo


class MemoryJudgeCache:
    """A :class:`JudgeCache` in a dict, for the life of the process (thread-safe)."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: str, payload: str, info: CallInfo) -> None:
        with self._lock:
            self._entries[key] = _Entry(payload=payload, info=info)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def judge_cache_key(**parts: Any) -> str:
    """A stable hash of a judge call's identifying parts (canonical JSON: sorted keys,
    lists kept as lists), the same recipe as the response cache's keys."""
    blob = json.dumps({"kind": "judge", **parts}, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
