"""The one seam where SDK and Instructor exceptions become answerx's failure kinds.

Each provider SDK raises its own exception classes, and Instructor wraps them
again; the manager only needs to know what to *do*:
retry with backoff, try the next mode, or stop with a clear error.

"The structured-output mode is refused" (``mode_rejected``: try the next mode) is an
HTTP 400/404/422/500 whose message names the mechanism (tools, function calling,
``response_format``, JSON schema, grammar). Every provider's real wording is covered,
in the shapes each sends it (``tests/structured/test_manager_tools_unsupported.py``):
OpenRouter's "No endpoints found that support tool use" (404) and, for a routed model,
"Provider returned error" (400) with the upstream's own error in ``metadata.raw``
("model features function calling not support"); vLLM's '"auto" tool choice requires
--enable-auto-tool-choice …' (400, message at the top level); llama.cpp's "tools param
requires --jinja flag" and "Unsupported param: tools" (500); Ollama's "… does not
support tools" (400, also as a bare ``{"error": "…"}``); Cohere's "invalid request: tool
use is not supported by the provided model" (400) and "No valid tool call or response
generated" (422). Any other 400 (a bad parameter, a wrong model) is not retried in
another mode: it would fail there too, and a wrong key never is.
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
    """The provider's own words: the error body's message, and where a router passes an
    upstream provider's error on (OpenRouter's "Provider returned error" with the routed
    provider's reply in ``metadata.raw``), that error's message too."""
    body = getattr(exc, "body", None)
    texts: list[str] = []
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, str):  # {"error": "… does not support tools"} (Ollama, TGI)
            texts.append(err)
        elif isinstance(err, dict):
            texts += [err[key] for key in ("message", "detail") if isinstance(err.get(key), str)]
            metadata = err.get("metadata")
            if isinstance(metadata, dict) and metadata.get("raw"):
                texts.append(_upstream_text(metadata["raw"]))
        if err is not body and isinstance(body.get("message"), str):
            texts.append(body["message"])
    elif isinstance(body, str) and body.strip():
        texts.append(body)
    if texts:
        return ": ".join(dict.fromkeys(t.strip() for t in texts if t.strip()))
    return getattr(exc, "message", None) or str(exc)


def _upstream_text(raw: object, depth: int = 0) -> str:
    """The message of an upstream provider's error as a router passes it on: a JSON text
    or an object (``{"error": {"message": …}}``, ``{"message": …}``, ``{"data": "…"}``),
    or plain text."""
    if isinstance(raw, str):
        try:
            loaded = json.loads(raw)
        except json.JSONDecodeError:
            return raw
        if isinstance(loaded, str):
            return loaded
        raw = loaded
    if isinstance(raw, dict) and depth < 4:
        for key in ("error", "message", "data", "detail"):
            if key in raw:
                found = _upstream_text(raw[key], depth + 1)
                if found:
                    return found
    return ""


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
