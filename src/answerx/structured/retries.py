"""Retries with backoff, and the error each failure kind ends as: the manager's side of
:mod:`answerx.structured.failures`.

:func:`answerx.structured.failures.classify` says what kind of failure an SDK or
Instructor exception is; :class:`Backoff` retries the transient kinds (rate limits,
5xx, timeouts, lost connections) with exponential backoff and jitter, never sooner
than the provider's ``Retry-After``; :func:`provider_error` turns the failure that
ends a call into the one :class:`~answerx.errors.ProviderError` subclass callers
catch, its message redacted of the key.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from tenacity import AsyncRetrying, RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from answerx.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderRequestError,
    ProviderTimeout,
    ProviderUnavailable,
    redact,
)
from answerx.structured.failures import TRANSIENT, Failure, classify

__all__ = ["Backoff", "failure_kind", "provider_error"]

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Backoff:
    """Up to ``retries`` more tries of a call that failed transiently, after pauses
    growing from ``initial`` seconds to at most ``maximum``."""

    retries: int = 4
    initial: float = 0.5
    maximum: float = 20.0

    def call(self, attempt: Callable[[], R]) -> R:
        """``attempt()``, retried with exponential backoff and jitter on transient failures.

        The first try runs bare: building and driving a tenacity ``Retrying`` costs
        ~10 µs a call, as much as the rest of the manager's own work, and only a
        transient failure needs it."""
        try:
            return attempt()
        except Exception as exc:
            if not self.transient(exc):
                raise
            pause = self.pause(exc, 1)
        time.sleep(pause)
        return Retrying(**self._later_tries())(attempt)

    async def acall(self, attempt: Callable[[], Awaitable[R]]) -> R:
        """Async :meth:`call`."""
        try:
            return await attempt()
        except Exception as exc:
            if not self.transient(exc):
                raise
            pause = self.pause(exc, 1)
        await asyncio.sleep(pause)
        return await AsyncRetrying(sleep=asyncio.sleep, **self._later_tries())(attempt)

    def transient(self, exc: BaseException) -> bool:
        """Whether ``exc`` is worth another try (and retries are allowed at all)."""
        return self.retries > 0 and failure_kind(exc) in TRANSIENT

    def pause(self, exc: BaseException | None, failed_try: int) -> float:
        """Exponential backoff with jitter (between half and all of the step), and never
        sooner than the provider's ``Retry-After`` — both capped at ``maximum``."""
        backoff = min(self.maximum, self.initial * 2 ** (failed_try - 1))
        wait = random.uniform(backoff / 2, backoff)
        retry_after = classify(exc).retry_after if exc is not None else None
        return min(self.maximum, max(wait, retry_after or 0.0))

    def _later_tries(self) -> dict[str, Any]:
        """tenacity settings for tries 2 to ``retries + 1``."""
        return {
            "retry": retry_if_exception(lambda e: failure_kind(e) in TRANSIENT),
            "stop": stop_after_attempt(self.retries),
            "wait": self._wait,
            "reraise": True,
        }

    def _wait(self, state: RetryCallState) -> float:
        # tenacity counts from the second try, which call() made bare.
        exc = state.outcome.exception() if state.outcome else None
        return self.pause(exc, state.attempt_number + 1)


def failure_kind(exc: BaseException) -> str:
    """The failure kind of ``exc``; ``"unknown"`` (never retried) for a bug."""
    try:
        return classify(exc).kind
    except Exception:  # an unknown exception is never retried
        return "unknown"


def provider_error(
    failure: Failure,
    *,
    provider: str,
    model: str,
    tries: int,
    timeout: float,
    key_env: str,
    api_key: str | None,
) -> ProviderError:
    """The error a call that ended in ``failure`` raises, after ``tries`` tries: auth →
    :class:`ProviderAuthError` naming ``key_env``, 429 → :class:`ProviderRateLimited`,
    timeout → :class:`ProviderTimeout`, 5xx or no connection →
    :class:`ProviderUnavailable`, any other refusal → :class:`ProviderRequestError`.
    ``api_key`` is redacted from the provider's message."""
    message = redact(failure.message, api_key)
    attempts = f"{tries} attempt" if tries == 1 else f"{tries} attempts"
    where: dict[str, Any] = {"provider": provider, "model": model, "status_code": failure.status}
    if failure.kind == "auth":
        return ProviderAuthError(
            f"authentication failed ({message}); check the {key_env} environment variable",
            **where,
        )
    if failure.kind == "rate_limited":
        return ProviderRateLimited(
            f"rate limited after {attempts}: {message}", retry_after=failure.retry_after, **where
        )
    if failure.kind == "timeout":
        return ProviderTimeout(f"no answer within {timeout:g}s after {attempts}", **where)
    if failure.kind == "unavailable":
        return ProviderUnavailable(f"unavailable after {attempts}: {message}", **where)
    return ProviderRequestError(message, **where)
