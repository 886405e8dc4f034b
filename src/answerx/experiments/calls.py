"""The manager an experiment hands to approaches: cache, rate limits and concurrency per provider.

:class:`RunClientManager` is an :class:`InstructorClientManager` whose four call
methods first look in the :class:`~answerx.experiments.cache.ResponseCache`,
then wait for the provider's concurrency slot and rate limiters, then call the
provider. Approaches never know: they call ``acreate`` / ``acomplete_text`` as
usual (``extract_structured`` goes through ``create`` too).

What a single item cost is tallied in an :class:`ItemTally` held in a context
variable: the runner sets one per item, and every call made while answering that
item (including concurrent ones from ``asyncio.gather``, which copy the context)
adds to it, failed calls included: their attempts used tokens too. The tally also
keeps each call as sent and as answered (:class:`~answerx.experiments.records.CallRecord`,
in the order the calls were sent), so the stored item holds its whole conversation.

The run's ``seed`` goes to every call of a provider whose API takes one (its SDK
adapter's ``takes_seed``), as ``seed + repetition``: a repeated item at
temperature > 0 is a different, reproducible sample, not the same one again.
Where the API has no seed, none is sent.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiolimiter import AsyncLimiter
from pydantic import BaseModel

from answerx.agent.budget import estimate_tokens
from answerx.errors import ProviderError, redact
from answerx.experiments.cache import ResponseCache, cache_key
from answerx.experiments.records import CallRecord
from answerx.structured.callinfo import CallInfo, Usage
from answerx.structured.manager import InstructorClientManager, Messages

__all__ = ["ItemTally", "ProviderLimits", "RunClientManager", "current_tally"]

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


@dataclass
class ItemTally:
    """Calls made for one item: how many came from the cache, and the usage actually paid."""

    repetition: int = 0
    calls: int = 0
    cache_hits: int = 0
    paid: Usage = field(default_factory=Usage)
    prompt: list[dict[str, Any]] | None = None  # the item's first request, for the record
    log: list[CallRecord] = field(default_factory=list)  # every call, in the order sent

    @property
    def all_cached(self) -> bool:
        return self.calls > 0 and self.cache_hits == self.calls

    def sent(self, messages: Messages, response_model: type[BaseModel] | None) -> int:
        """Record a call as it is sent; returns its place in :attr:`log`."""
        self.log.append(
            CallRecord(
                kind="text" if response_model is None else "structured",
                response_model=None if response_model is None else response_model.__name__,
                messages=[dict(m) for m in messages],
            )
        )
        return len(self.log) - 1

    def answered(
        self,
        place: int,
        *,
        reply: str | None = None,
        info: CallInfo | None = None,
        cached: bool = False,
        error: str | None = None,
    ) -> None:
        """Fill in the reply (or the failure) of the call recorded at ``place``."""
        self.log[place] = self.log[place].model_copy(
            update={"reply": reply, "info": info, "cached": cached, "error": error}
        )


_TALLY: contextvars.ContextVar[ItemTally | None] = contextvars.ContextVar(
    "answerx_item_tally", default=None
)


def current_tally() -> contextvars.ContextVar[ItemTally | None]:
    """The context variable the runner sets per item."""
    return _TALLY


class ProviderLimits:
    """Concurrency and request/token rates shared by every manager of one provider.

    Limits apply per manager call: the retries, re-asks and mode fallbacks the
    manager makes inside one call are not counted again.
    """

    def __init__(
        self,
        *,
        concurrency: int | None = None,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
    ) -> None:
        self.semaphore = asyncio.Semaphore(concurrency) if concurrency else None
        self.requests: AsyncLimiter | None = None
        if requests_per_minute:
            # A bucket of one second's worth (at least one request), refilled at the
            # configured rate: the rate holds over any window longer than the bucket
            # instead of allowing a minute's burst first. Below 60 a minute the bucket
            # is one request, refilled every 60/rpm seconds.
            size = max(1.0, requests_per_minute / 60.0)
            self.requests = AsyncLimiter(size, size * 60.0 / requests_per_minute)
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
        """Wait until one more request of about ``expected_tokens`` tokens fits the rates."""
        if self.requests is not None:
            await self.requests.acquire()
        if self.tokens is not None and self.tokens_per_minute:
            # The bucket cannot hand out more than its size in one go.
            await self.tokens.acquire(min(float(expected_tokens), self.tokens_per_minute))


class RunClientManager(InstructorClientManager):
    """An :class:`InstructorClientManager` with a response cache, per-provider limits and
    the run's seed (see the module docstring)."""

    def __init__(
        self,
        provider: str,
        model: str | None = None,
        *,
        cache: ResponseCache | None = None,
        limits: ProviderLimits | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        # aiohttp: a run is many concurrent calls, where the SDKs' aiohttp transport
        # costs less CPU per call than httpx's connection pool.
        kwargs.setdefault("async_transport", "aiohttp")
        super().__init__(provider, model, **kwargs)
        self.cache = cache
        self.limits = limits or ProviderLimits()
        self.seed = seed if self.adapter.takes_seed else None

    # ------------------------------------------------------------------ structured
    def create(self, messages: Messages, response_model: type[T], **kw: Any) -> tuple[T, CallInfo]:
        """:meth:`InstructorClientManager.create`, answered from the cache when it can be."""
        kw, key, sent = self._prepare(messages, response_model, kw)
        hit = self._cached(key, sent)
        if hit is not None:
            return response_model.model_validate_json(hit[0]), hit[1]
        result, info = _paid(sent, super().create, messages, response_model, **kw)
        self._store(key, result.model_dump_json(), info, sent)
        return result, info

    async def acreate(
        self, messages: Messages, response_model: type[T], **kw: Any
    ) -> tuple[T, CallInfo]:
        """Async :meth:`create`, after the provider's concurrency slot and rate limits."""
        kw, key, sent = self._prepare(messages, response_model, kw)
        hit = self._cached(key, sent)
        if hit is not None:
            return response_model.model_validate_json(hit[0]), hit[1]
        result, info = await self._limited(sent, super().acreate, messages, response_model, **kw)
        self._store(key, result.model_dump_json(), info, sent)
        return result, info

    # ------------------------------------------------------------------ text
    def complete_text(self, messages: Messages, **kw: Any) -> tuple[str, CallInfo]:
        """:meth:`InstructorClientManager.complete_text`, answered from the cache when it can be."""
        kw, key, sent = self._prepare(messages, None, kw)
        hit = self._cached(key, sent)
        if hit is not None:
            return hit
        text, info = _paid(sent, super().complete_text, messages, **kw)
        self._store(key, text, info, sent)
        return text, info

    async def acomplete_text(self, messages: Messages, **kw: Any) -> tuple[str, CallInfo]:
        """Async :meth:`complete_text`, after the provider's concurrency slot and rate limits."""
        kw, key, sent = self._prepare(messages, None, kw)
        hit = self._cached(key, sent)
        if hit is not None:
            return hit
        text, info = await self._limited(sent, super().acomplete_text, messages, **kw)
        self._store(key, text, info, sent)
        return text, info

    # ------------------------------------------------------------------ plumbing
    def _prepare(
        self, messages: Messages, response_model: type[BaseModel] | None, kw: dict[str, Any]
    ) -> tuple[dict[str, Any], str, _Sent]:
        """The call's options (with the seed), its cache key ("" without a cache), and
        where the item's tally records it."""
        tally = _TALLY.get()
        repetition = tally.repetition if tally else 0
        sent = _Sent(tally, tally.sent(messages, response_model) if tally else 0)
        if tally is not None and tally.prompt is None:
            tally.prompt = list(messages)
        if self.seed is not None and "seed" not in kw:
            kw = {**kw, "seed": self.seed + repetition}
        if self.cache is None:
            return kw, "", sent
        schema = None if response_model is None else _schema_of(response_model)
        key = cache_key(
            provider=self.provider,
            model=self.model,
            base_url=self.endpoint_identity,
            modes=self.modes,
            kind="text" if response_model is None else "structured",
            messages=list(messages),
            schema=schema,
            params=kw,
            max_tokens=self.max_tokens,
            repetition=repetition,
        )
        return kw, key, sent

    def _cached(self, key: str, sent: _Sent) -> tuple[str, CallInfo] | None:
        """The cached (payload, CallInfo) for ``key``, counted as a hit; None on a miss."""
        entry = self.cache.get(key) if self.cache is not None and key else None
        if entry is None:
            return None
        _count(entry.info, hit=True)
        sent.answered(reply=entry.payload, info=entry.info, cached=True)
        return entry.payload, entry.info

    async def _limited(
        self,
        sent: _Sent,
        call: Callable[..., Awaitable[R]],
        messages: Messages,
        *args: Any,
        **kw: Any,
    ) -> R:
        """``await call(messages, *args, **kw)`` in a concurrency slot, within the rates."""
        expected = estimate_tokens(messages) + int(kw.get("max_tokens") or self.max_tokens or 0)
        async with self.limits:
            await self.limits.wait_for_rate(expected)
            try:
                return await call(messages, *args, **kw)
            except Exception as exc:
                _count_failure(exc, sent)
                raise

    def _store(self, key: str, payload: str, info: CallInfo, sent: _Sent) -> None:
        _count(info, hit=False)
        sent.answered(reply=payload, info=info)
        if self.cache is not None and key:
            self.cache.put(key, payload, info)


@dataclass(frozen=True)
class _Sent:
    """Where the item's tally recorded a call (nothing to fill in outside a run's item)."""

    tally: ItemTally | None
    place: int

    def answered(self, **outcome: Any) -> None:
        if self.tally is not None:
            self.tally.answered(self.place, **outcome)


@functools.lru_cache(maxsize=1024)
def _schema_of(response_model: type[BaseModel]) -> dict[str, Any]:
    """The response model's part of a cache key, built once per model: a JSON schema
    build costs more than the rest of the key, on every call of a run."""
    return {"name": response_model.__name__, "schema": response_model.model_json_schema()}


def _count(info: CallInfo, *, hit: bool) -> None:
    tally = _TALLY.get()
    if tally is None:
        return
    tally.calls += 1
    if hit:
        tally.cache_hits += 1
    else:
        tally.paid = tally.paid + info.usage


def _paid(sent: _Sent, call: Callable[..., R], *args: Any, **kw: Any) -> R:
    """``call(*args, **kw)``, its usage tallied even when it fails."""
    try:
        return call(*args, **kw)
    except Exception as exc:
        _count_failure(exc, sent)
        raise


def _count_failure(error: Exception, sent: _Sent) -> None:
    info = error.call_info if isinstance(error, ProviderError) else None
    sent.answered(info=info, error=redact(f"{type(error).__name__}: {error}"))
    # A failed call's attempts were paid for: the manager hands their usage on the error.
    if info is not None:
        _count(info, hit=False)
