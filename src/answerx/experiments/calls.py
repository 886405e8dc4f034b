"""The manager an experiment hands to approaches: cache, rate limits and concurrency per provider.

:class:`RunClientManager` is an :class:`InstructorClientManager` whose four call
methods first look in the :class:`~answerx.experiments.cache.ResponseCache`,
then wait for the provider's concurrency slot and rate limiters, then call the
provider. Approaches never know: they call ``acreate`` / ``acomplete_text`` as
usual (``extract_structured`` goes through ``create`` too).

What a single item cost is tallied in an :class:`ItemTally` held in a context
variable: the runner sets one per item, and every call made while answering that
item (including concurrent ones from ``asyncio.gather``, which copy the context)
adds to it.
"""

from __future__ import annotations

import asyncio
import contextvars
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiolimiter import AsyncLimiter
from pydantic import BaseModel

from answerx.agent.budget import estimate_tokens
from answerx.experiments.cache import ResponseCache, cache_key
from answerx.structured.callinfo import CallInfo, Usage
from answerx.structured.manager import InstructorClientManager, Messages

__all__ = ["ItemTally", "ProviderLimits", "RunClientManager", "current_tally"]

T = TypeVar("T", bound=BaseModel)


@dataclass
class ItemTally:
    """Calls made for one item: how many came from the cache, and the usage actually paid."""

    repetition: int = 0
    calls: int = 0
    cache_hits: int = 0
    paid: Usage = field(default_factory=Usage)
    prompt: list[dict[str, Any]] | None = None  # the item's first request, for the record

    @property
    def all_cached(self) -> bool:
        return self.calls > 0 and self.cache_hits == self.calls


_TALLY: contextvars.ContextVar[ItemTally | None] = contextvars.ContextVar(
    "answerx_item_tally", default=None
)


def current_tally() -> contextvars.ContextVar[ItemTally | None]:
    """The context variable the runner sets per item."""
    return _TALLY


class ProviderLimits:
    """Concurrency and request/token rates shared by every manager of one provider."""

    def __init__(
        self,
        *,
        concurrency: int | None = None,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
    ) -> None:
        self.semaphore = asyncio.Semaphore(concurrency) if concurrency else None
        # Requests: a bucket of one second's worth, so the configured rate holds over
        # any window longer than a second instead of allowing a minute's burst first.
        self.requests = (
            AsyncLimiter(max(1.0, requests_per_minute / 60.0), 1.0) if requests_per_minute else None
        )
        # Tokens: providers count per minute, so a minute's bucket matches what they enforce.
        self.tokens = AsyncLimiter(tokens_per_minute, 60.0) if tokens_per_minute else None
        self.tokens_per_minute = tokens_per_minute

    async def __aenter__(self) -> None:
        if self.semaphore is not None:
            await self.semaphore.acquire()

    async def __aexit__(self, *_: object) -> None:
        if self.semaphore is not None:
            self.semaphore.release()

    async def wait_for_rate(self, expected_tokens: int) -> None:
        if self.requests is not None:
            await self.requests.acquire()
        if self.tokens is not None and self.tokens_per_minute:
            # The bucket cannot hand out more than its size in one go.
            await self.tokens.acquire(min(float(expected_tokens), self.tokens_per_minute))


class RunClientManager(InstructorClientManager):
    """An :class:`InstructorClientManager` with a response cache and per-provider limits."""

    def __init__(
        self,
        provider: str,
        model: str | None = None,
        *,
        cache: ResponseCache | None = None,
        limits: ProviderLimits | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(provider, model, **kwargs)
        self.cache = cache
        self.limits = limits or ProviderLimits()

    # ------------------------------------------------------------------ keys and tallies
    def _key(self, kind: str, messages: Messages, schema: Any, kw: dict[str, Any]) -> str:
        tally = _TALLY.get()
        return cache_key(
            provider=self.provider,
            model=self.model,
            base_url=self.base_url,
            modes=self.modes,
            kind=kind,
            messages=list(messages),
            schema=schema,
            params=kw,
            max_tokens=self.max_tokens,
            repetition=tally.repetition if tally else 0,
        )

    @staticmethod
    def _note_prompt(messages: Messages) -> None:
        tally = _TALLY.get()
        if tally is not None and tally.prompt is None:
            tally.prompt = list(messages)

    @staticmethod
    def _count(info: CallInfo, *, hit: bool) -> None:
        tally = _TALLY.get()
        if tally is None:
            return
        tally.calls += 1
        if hit:
            tally.cache_hits += 1
        else:
            tally.paid = tally.paid + info.usage

    def _expected_tokens(self, messages: Messages, kw: dict[str, Any]) -> int:
        return estimate_tokens(messages) + int(kw.get("max_tokens") or self.max_tokens or 0)

    # ------------------------------------------------------------------ structured
    def create(self, messages: Messages, response_model: type[T], **kw: Any) -> tuple[T, CallInfo]:
        """:meth:`InstructorClientManager.create`, answered from the cache when it can be."""
        self._note_prompt(messages)
        key = self._structured_key(messages, response_model, kw)
        hit = self._cached_model(key, response_model)
        if hit is not None:
            return hit
        result, info = super().create(messages, response_model, **kw)
        self._store(key, result.model_dump_json(), info)
        return result, info

    async def acreate(
        self, messages: Messages, response_model: type[T], **kw: Any
    ) -> tuple[T, CallInfo]:
        """Async :meth:`create`, after the provider's concurrency slot and rate limits."""
        self._note_prompt(messages)
        key = self._structured_key(messages, response_model, kw)
        hit = self._cached_model(key, response_model)
        if hit is not None:
            return hit
        async with self.limits:
            await self.limits.wait_for_rate(self._expected_tokens(messages, kw))
            result, info = await super().acreate(messages, response_model, **kw)
        self._store(key, result.model_dump_json(), info)
        return result, info

    # ------------------------------------------------------------------ text
    def complete_text(self, messages: Messages, **kw: Any) -> tuple[str, CallInfo]:
        """:meth:`InstructorClientManager.complete_text`, answered from the cache when it can be."""
        self._note_prompt(messages)
        key = self._key("text", messages, None, kw) if self.cache is not None else ""
        hit = self._cached_text(key)
        if hit is not None:
            return hit
        text, info = super().complete_text(messages, **kw)
        self._store(key, text, info)
        return text, info

    async def acomplete_text(self, messages: Messages, **kw: Any) -> tuple[str, CallInfo]:
        """Async :meth:`complete_text`, after the provider's concurrency slot and rate limits."""
        self._note_prompt(messages)
        key = self._key("text", messages, None, kw) if self.cache is not None else ""
        hit = self._cached_text(key)
        if hit is not None:
            return hit
        async with self.limits:
            await self.limits.wait_for_rate(self._expected_tokens(messages, kw))
            text, info = await super().acomplete_text(messages, **kw)
        self._store(key, text, info)
        return text, info

    # ------------------------------------------------------------------ cache plumbing
    def _structured_key(
        self, messages: Messages, response_model: type[BaseModel], kw: dict[str, Any]
    ) -> str:
        if self.cache is None:
            return ""
        schema = {"name": response_model.__name__, "schema": response_model.model_json_schema()}
        return self._key("structured", messages, schema, kw)

    def _cached_model(self, key: str, response_model: type[T]) -> tuple[T, CallInfo] | None:
        entry = self.cache.get(key) if self.cache is not None and key else None
        if entry is None:
            return None
        result = response_model.model_validate_json(entry.payload)
        self._count(entry.info, hit=True)
        return result, entry.info

    def _cached_text(self, key: str) -> tuple[str, CallInfo] | None:
        entry = self.cache.get(key) if self.cache is not None and key else None
        if entry is None:
            return None
        self._count(entry.info, hit=True)
        return entry.payload, entry.info

    def _store(self, key: str, payload: str, info: CallInfo) -> None:
        self._count(info, hit=False)
        if self.cache is not None and key:
            self.cache.put(key, payload, info)
