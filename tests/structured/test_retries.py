"""Backoff between retries, and the error each failure kind ends as (structured/retries.py)."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from answerx.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderRequestError,
    ProviderTimeout,
    ProviderUnavailable,
)
from answerx.structured.failures import Failure
from answerx.structured.retries import Backoff, failure_kind, provider_error


class RateLimited(Exception):
    """Shaped like an SDK's 429 error: a status code and the response's headers."""

    status_code = 429

    def __init__(self, retry_after: str | None) -> None:
        super().__init__("rate limited")
        headers = {"retry-after": retry_after} if retry_after is not None else {}
        self.response = SimpleNamespace(headers=headers)


@pytest.mark.parametrize(("failed_try", "step"), [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (6, 4.0)])
def test_the_pause_doubles_with_jitter_up_to_the_cap(failed_try: int, step: float) -> None:
    random.seed(failed_try)
    backoff = Backoff(retries=5, initial=0.5, maximum=4.0)

    pauses = [backoff.pause(None, failed_try) for _ in range(50)]

    assert all(step / 2 <= p <= step for p in pauses)


def test_a_retry_after_is_waited_for_but_never_past_the_cap() -> None:
    backoff = Backoff(retries=3, initial=0.1, maximum=5.0)

    assert backoff.pause(RateLimited("3"), 1) == 3.0
    assert backoff.pause(RateLimited("120"), 1) == 5.0


def test_only_transient_failures_are_retried_and_only_when_retries_are_allowed() -> None:
    assert Backoff(retries=2).transient(RateLimited(None))
    assert not Backoff(retries=0).transient(RateLimited(None))
    assert not Backoff(retries=2).transient(ValueError("no tool call"))
    assert failure_kind(RuntimeError("a bug")) == "unknown"


def test_a_transient_failure_is_tried_again_until_it_passes() -> None:
    replies: list[Exception | str] = [RateLimited("0"), RateLimited("0"), "done"]

    def attempt() -> str:
        reply = replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    assert Backoff(retries=2, initial=0.001, maximum=0.01).call(attempt) == "done"
    assert replies == []


@pytest.mark.parametrize(
    ("kind", "status", "expected", "says"),
    [
        ("auth", 401, ProviderAuthError, "check the MY_KEY environment variable"),
        ("rate_limited", 429, ProviderRateLimited, "rate limited after 3 attempts"),
        ("timeout", None, ProviderTimeout, "no answer within 7.5s after 3 attempts"),
        ("unavailable", 503, ProviderUnavailable, "unavailable after 3 attempts"),
        ("request", 400, ProviderRequestError, "bad"),
    ],
)
def test_each_failure_kind_ends_as_its_own_provider_error_without_the_key(
    kind: str, status: int | None, expected: type[ProviderError], says: str
) -> None:
    failure = Failure(kind, "bad request sk-secret-123", status)  # type: ignore[arg-type]

    error = provider_error(
        failure, provider="p", model="m", tries=3, timeout=7.5, key_env="MY_KEY",
        api_key="sk-secret-123",
    )  # fmt: skip

    assert type(error) is expected
    assert says in str(error) and "sk-secret-123" not in str(error)
    assert (error.provider, error.model, error.status_code) == ("p", "m", status)
