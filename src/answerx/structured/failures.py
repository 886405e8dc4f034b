"""The one seam where SDK and Instructor exceptions become answerx's failure kinds.

Each provider SDK raises its own exception classes, and Instructor wraps them
again; the manager only needs to know what to *do*:
retry with backoff, try the next mode, or stop with a clear error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

import httpx
from pydantic import ValidationError

__all__ = ["FALLBACK", "TRANSIENT", "Failure", "classify"]

Kind = Literal[
    "auth", "rate_limited", "timeout", "unavailable", "mode_rejected", "request",
    "invalid_output", "truncated",
]  # fmt: skip
#: Failures worth the same request again after a pause.
TRANSIENT: frozenset[str] = frozenset({"rate_limited", "timeout", "unavailable"})
#: Failures another structured-output mode can fix.
FALLBACK: frozenset[str] = frozenset({"mode_rejected", "invalid_output"})

# A refusal that names the structured-output mechanism: the next mode may work.
_MODE_WORDS = re.compile(
    r"tool|function.?call|response_format|json.?schema|json_object|json mode|grammar"
    r"|structured output|schema",
    re.IGNORECASE,
)
_MESSAGE_LIMIT = 300


@dataclass(frozen=True, slots=True)
class Failure:
    kind: Kind
    message: str
    status: int | None = None
    retry_after: float | None = None


def classify(exc: BaseException) -> Failure:
    """What kind of failure ``exc`` is (unwrapping Instructor's retry exception)."""
    cause = _unwrap(exc)
    name = type(cause).__name__
    if name == "IncompleteOutputException":
        return Failure("truncated", "the output was cut off at max_tokens")
    if isinstance(cause, ValidationError | json.JSONDecodeError) or name in (
        "ResponseParsingError", "AsyncValidationError", "InstructorRetryException",
    ):  # fmt: skip
        return Failure("invalid_output", f"invalid output: {_short(str(cause))}")
    if _is_timeout(cause):
        return Failure("timeout", "no answer within the timeout")
    status = _status(cause)
    if status is None:
        if _is_connection_error(cause):
            return Failure("unavailable", f"connection failed: {_short(str(cause))}")
        # Instructor's parsers raise plain errors when a reply has no tool call.
        if name in ("AssertionError", "IndexError", "KeyError", "AttributeError", "ValueError"):
            return Failure("invalid_output", f"no usable structured output ({name})")
        raise exc  # a bug, not a provider failure: let it surface
    message = _short(_body_text(cause))
    if status in (401, 403):
        return Failure("auth", message, status)
    if status == 429:
        return Failure("rate_limited", message, status, _retry_after(cause))
    if status in (400, 404, 422, 500) and _MODE_WORDS.search(message):
        return Failure("mode_rejected", f"HTTP {status}: {message}", status)
    if status >= 500 or status in (408, 409):
        return Failure("unavailable", f"HTTP {status}: {message}", status, _retry_after(cause))
    return Failure("request", f"HTTP {status}: {message}", status)


def _unwrap(exc: BaseException) -> BaseException:
    seen = 0
    while type(exc).__name__ == "InstructorRetryException" and exc.__cause__ and seen < 5:
        exc, seen = exc.__cause__, seen + 1
    return exc


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, httpx.TimeoutException | TimeoutError) or "Timeout" in type(exc).__name__


def _is_connection_error(exc: BaseException) -> bool:
    return isinstance(exc, httpx.TransportError) or "Connection" in type(exc).__name__


def _body_text(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return getattr(exc, "message", None) or str(exc)


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or getattr(exc, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: fall back to exponential backoff


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_LIMIT else text[: _MESSAGE_LIMIT - 1] + "…"
