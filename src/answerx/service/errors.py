"""Every error the service answers, as JSON ``{"error": {"type", "message"}}``.

- 400 ``invalid_json``: the body is not JSON at all; ``invalid_host``: a ``Host``
  header the server does not answer (:mod:`answerx.service.hosts`).
- 401 ``unauthorized``: missing or wrong bearer token.
- 404 ``not_found``, 405 ``method_not_allowed``: no such endpoint or method.
- 413 ``payload_too_large``: the body is over ``ANSWERX_MAX_BODY_BYTES``;
  ``batch_too_large``: a batch has more than ``ANSWERX_MAX_BATCH`` items.
- 415 ``unsupported_media_type``: a body without ``Content-Type: application/json``
  (a browser sends a cross-site POST without preflight only with another type).
- 409 ``conflict``: a run with that id already exists (:class:`~answerx.errors.DuplicateRun`);
  404 ``not_found`` also answers a run id that is not in the store (``RunNotFound``).
- 503 ``store_unavailable``: the server's results store is damaged or locked (``StoreError``).
- 422 ``validation_error``: JSON of the wrong shape (an unknown task, a missing
  field ...); ``invalid_request``: an unknown provider, bad choices.
- 429 ``too_many_requests``: the LLM endpoints are at their concurrency limit;
  ``provider_rate_limited``: the provider rate-limits the server (both with
  ``Retry-After``).
- 502 ``provider_error``, ``provider_auth_error``, ``provider_not_configured``:
  the provider failed, refused the server's credentials, or has none here
  (``CredentialsMissing``).
- 504 ``timeout``, ``provider_timeout``: no answer within the deadline.
- 500 ``internal_error``: a bug; a fixed message, nothing more (and
  ``extraction_error`` if extraction itself ever fails on an input).

When a provider call failed after requests were made (429/502/504 of the LLM
endpoints), the error also has ``attempts`` and ``usage``: what the failed call
cost, from its :class:`~answerx.structured.CallInfo` (numbers only; the failure
reasons it also holds are provider text, kept out of responses).

A provider error's message says what failed (refused, unavailable, no valid object
in any mode, the HTTP status), never what the provider said or returned: that can
quote anything, a key it echoed included. The server's log has it, redacted of
every run of 8+ characters of a configured key. A bug's exception reaches the
log as its type name only; a client gets no stack trace, no key, no request body.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterable, Sequence
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from answerx.errors import (
    AnswerxError,
    ConfigError,
    CredentialsMissing,
    DuplicateRun,
    InputError,
    ProviderAuthError,
    ProviderError,
    ProviderRateLimited,
    ProviderRequestError,
    ProviderTimeout,
    ProviderUnavailable,
    RunNotFound,
    StoreError,
    StructuredOutputError,
    redact,
)
from answerx.service.asgi import JSON, WatchedSend
from answerx.service.redaction import secrets_in
from answerx.service.schemas import ErrorResponse

__all__ = [
    "ERROR_RESPONSES",
    "JSON_REQUIRED",
    "ApiError",
    "ErrorBoundaryMiddleware",
    "answerx_error_response",
    "error_body",
    "error_response",
    "error_responses",
    "install_exception_handlers",
    "send_error",
    "validation_message",
]

log = logging.getLogger("answerx.service")

_STATUS_TYPES: Final = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "too_many_requests",
}
_MAX_PROBLEMS = 5  # a message lists this many validation problems, then "and N more"
_ECHO_LIMIT = 40  # a wrong value (or field name) this short is quoted back whole
# FastAPI's detail when the body parser itself fails (JSON nested too deep, say).
_FASTAPI_PARSE_ERROR: Final = "There was an error parsing the body"
_INVALID_JSON: Final = "the request body is not valid JSON"
#: The message of a 415.
JSON_REQUIRED: Final = "send the request body as JSON, with Content-Type: application/json"

_DESCRIPTIONS: Final = {
    400: "The body is not valid JSON, or the Host header is not one this server answers.",
    401: "Missing or wrong bearer token (when the server has ANSWERX_API_TOKEN).",
    413: "The body is larger than ANSWERX_MAX_BODY_BYTES, or a batch has more items than "
    "ANSWERX_MAX_BATCH.",
    415: "The body was not sent with Content-Type: application/json.",
    422: "The JSON does not match the request schema (an unknown task, a missing field ...).",
    429: "Too many LLM requests at once, or the provider rate-limited the server; see Retry-After.",
    502: "The provider failed, refused the server's credentials, or has none on this server.",
    504: "The provider did not answer within ANSWERX_LLM_TIMEOUT_S.",
}


def error_responses(
    *statuses: int, model: type[BaseModel] = ErrorResponse
) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses=`` entries for these error statuses, with body ``model``."""
    return {s: {"model": model, "description": _DESCRIPTIONS[s]} for s in statuses}


#: The errors every endpoint with a JSON body may answer.
ERROR_RESPONSES: Final = error_responses(400, 401, 413, 415, 422)


class ApiError(Exception):
    """An error the service answers as it is: status, type, message and extra headers."""

    def __init__(
        self,
        status: int,
        type: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.type = type
        self.message = message
        self.headers = headers or {}
        super().__init__(f"{status} {type}: {message}")


def error_body(type: str, message: str, **extra: Any) -> bytes:
    """The JSON body of an error response (``extra``: more fields of the error object)."""
    return json.dumps({"error": {"type": type, "message": message, **extra}}).encode()


def error_response(
    status: int,
    type: str,
    message: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    """An error as a Starlette response."""
    body = error_body(type, message, **extra)
    return Response(body, status, headers=headers, media_type=JSON)


async def send_error(
    send: Send,
    status: int,
    type: str,
    message: str,
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Send an error response from pure ASGI middleware."""
    body = error_body(type, message)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", JSON.encode()),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def validation_message(errors: Sequence[Any], *, at: str | None = None) -> str:
    """One sentence for pydantic's errors: ``field: problem (got 'x'); ...``.

    ``at`` names what was validated when it is part of the body (``items[3]`` of a
    batch): each field then reads ``items[3].task``, and a problem with the value
    as a whole ``items[3]``, not ``body``. A wrong value is quoted only when it is a
    short string (an unknown task name, say): a client's raw output is never echoed
    back at length.
    """
    parts: list[str] = []
    for err in errors[:_MAX_PROBLEMS]:
        # A field name is the client's too (an unknown key): shortened like a value.
        fields = [_clip(str(p)) for p in err.get("loc", ()) if p != "body"]
        loc = ".".join([at, *fields] if at is not None else fields) or "body"
        text = f"{loc}: {err.get('msg', 'invalid value')}"
        given = err.get("input")
        short = isinstance(given, str) and len(given) <= _ECHO_LIMIT
        if err.get("type") == "literal_error" and short:
            text += f" (got {given!r})"
        parts.append(text)
    if len(errors) > _MAX_PROBLEMS:
        parts.append(f"and {len(errors) - _MAX_PROBLEMS} more")
    return "; ".join(parts)


def _clip(text: str) -> str:
    return text if len(text) <= _ECHO_LIMIT else text[: _ECHO_LIMIT - 3] + "..."


def _is_bad_json(errors: Sequence[Any]) -> bool:
    return any(err.get("type") == "json_invalid" for err in errors)


def _is_not_json(errors: Sequence[Any]) -> bool:
    """FastAPI hands a body that was not sent as JSON to validation as raw bytes."""
    return any(
        err.get("loc") == ("body",) and isinstance(err.get("input"), bytes) for err in errors
    )


async def _on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if _is_bad_json(errors):
        return error_response(400, "invalid_json", _INVALID_JSON)
    if _is_not_json(errors):
        return error_response(415, "unsupported_media_type", JSON_REQUIRED)
    return error_response(422, "validation_error", validation_message(errors))


async def _on_http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 400 and exc.detail == _FASTAPI_PARSE_ERROR:
        return error_response(400, "invalid_json", _INVALID_JSON)
    type_ = _STATUS_TYPES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else type_.replace("_", " ")
    return error_response(exc.status_code, type_, message, dict(exc.headers or {}))


async def _on_api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.type, exc.message, exc.headers)


async def _on_answerx_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AnswerxError)
    return answerx_error_response(exc)


def answerx_error_response(exc: AnswerxError) -> Response:
    """The status and message for an error of answerx's own tree."""
    if isinstance(exc, CredentialsMissing):  # the server's environment, not the request
        log.warning("provider not usable: %s", redact(str(exc)))
        return error_response(502, "provider_not_configured", "the provider has no credentials")
    if isinstance(exc, RunNotFound):
        return error_response(404, "not_found", redact(str(exc)))
    if isinstance(exc, DuplicateRun):
        return error_response(409, "conflict", redact(str(exc)))
    if isinstance(exc, StoreError):  # the operator must fix the file; the client may retry
        log.error("results store not usable: %s", redact(str(exc)))
        return error_response(503, "store_unavailable", "the server's results store is unusable")
    if isinstance(exc, ConfigError | InputError):
        return error_response(422, "invalid_request", redact(str(exc)))
    if isinstance(exc, ProviderError):
        return _provider_error_response(exc)
    log.warning("extraction failed: %s", type(exc).__name__)
    return error_response(500, "extraction_error", "extraction failed on this input")


def _provider_error_response(exc: ProviderError) -> Response:
    where = f"{exc.provider}/{exc.model}" if exc.model else exc.provider
    # The operator needs the detail (redacted where it was raised, and again here);
    # the client does not need to learn how the server's credentials are set up.
    detail = redact(str(exc), *secrets_in())
    log.warning("provider call failed: %s: %s", type(exc).__name__, detail)
    cost = _cost(exc)
    if isinstance(exc, ProviderAuthError):
        return error_response(
            502,
            "provider_auth_error",
            f"{where} refused this server's credentials; the server's operator must fix them",
            **cost,
        )
    if isinstance(exc, ProviderTimeout):
        return error_response(504, "provider_timeout", f"{where} did not answer in time", **cost)
    if isinstance(exc, ProviderRateLimited):
        headers = {}
        if exc.retry_after is not None and math.isfinite(exc.retry_after):
            headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after)))
        return error_response(
            429, "provider_rate_limited", f"{where} is rate limiting this server", headers, **cost
        )
    return error_response(502, "provider_error", _what_failed(exc, where), **cost)


# What a provider failure was, in the words of the service: a provider's message can
# quote anything it was sent or returned (a key it echoed, cut short by pydantic's
# ``input_value='…'``), so no part of it is passed on to the client; the log has it.
_FAILURES: Final[tuple[tuple[type[ProviderError], str], ...]] = (
    (StructuredOutputError, "gave no valid answer object in any mode"),
    (ProviderUnavailable, "is unavailable after every retry"),
    (ProviderRequestError, "refused the request"),
)


def _what_failed(exc: ProviderError, where: str) -> str:
    what = next((text for kind, text in _FAILURES if isinstance(exc, kind)), "failed")
    status = f" (HTTP {exc.status_code})" if exc.status_code is not None else ""
    tried = ""
    if isinstance(exc, StructuredOutputError) and exc.failures:
        modes = ", ".join(dict.fromkeys(mode for mode, _ in exc.failures))
        tried = f"; modes tried: {modes}"
    return f"{where} {what}{status}{tried}; the server's log has the provider's message"


def _cost(exc: ProviderError) -> dict[str, Any]:
    """``attempts`` and ``usage`` of the failed call (nothing when the manager gave none)."""
    info = exc.call_info
    if info is None:
        return {}
    return {"attempts": info.attempts, "usage": info.usage.model_dump()}


def install_exception_handlers(app: FastAPI) -> None:
    """Answer validation errors, HTTP errors and answerx's errors as JSON."""
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(HTTPException, _on_http_exception)
    app.add_exception_handler(ApiError, _on_api_error)
    app.add_exception_handler(AnswerxError, _on_answerx_error)


class ErrorBoundaryMiddleware:
    """The last line: any other exception becomes a 500 with a fixed message.

    Starlette's own handler would re-raise it after answering, and uvicorn would
    then log its traceback, which may quote request data or a provider's reply:
    here only the exception's type name is logged.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        watched = WatchedSend(send)
        try:
            await self.app(scope, receive, watched)
        except Exception as exc:  # the boundary: every bug stops here
            log.error(
                "internal error on %s %s: %s",
                scope.get("method"),
                scope.get("path"),
                type(exc).__name__,
            )
            if not watched.started:
                await send_error(send, 500, "internal_error", "internal server error")
