"""The service's limits: request body size, LLM concurrency, and the LLM deadline.

The body limit is pure ASGI middleware that counts the bytes as they arrive, so
a chunked body, or one longer than a lying ``Content-Length``, is stopped at the
limit instead of being read whole into memory. It is written here rather than
taken from Starlette's ``RequestBodyLimitMiddleware`` because that one answers
some over-limit requests in plain text, and every error here is JSON.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from answerx.service.asgi import WatchedSend, header
from answerx.service.errors import ApiError, send_error

__all__ = ["BodySizeLimitMiddleware", "BodyTooLarge", "LLMSlots"]


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` when a body passes the limit.

    An :class:`HTTPException`, so that FastAPI's body reading re-raises it as it
    is (any other exception there becomes a 400) and the exception handlers
    answer it as JSON.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than the limit of {limit} bytes")


class BodySizeLimitMiddleware:
    """Answer 413 to a body longer than ``max_bytes``, declared or not."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            # Refused before a byte of it is read.
            await send_error(send, 413, "payload_too_large", BodyTooLarge(limit).detail)
            return

        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        watched = WatchedSend(send)
        try:
            await self.app(scope, counting_receive, watched)
        except BodyTooLarge as exc:  # read outside the exception handlers' reach
            if not watched.started:
                await send_error(send, 413, "payload_too_large", exc.detail)


def _content_length(scope: Scope) -> int | None:
    value = header(scope, b"content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None  # the HTTP server rejects it; the count above still applies


class LLMSlots:
    """At most ``limit`` LLM requests at once, each within ``timeout_s``.

    Beyond the limit a request is refused at once (429 with ``Retry-After``)
    rather than queued: a queue would only turn overload into timeouts. One
    event loop per worker process, so a plain counter is enough.
    """

    def __init__(self, limit: int, timeout_s: float, retry_after_s: int) -> None:
        self.limit = limit
        self.timeout_s = timeout_s
        self.retry_after_s = retry_after_s
        self.in_flight = 0

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one slot for the block, cancelled with a 504 after ``timeout_s``."""
        if self.in_flight >= self.limit:
            raise ApiError(
                429,
                "too_many_requests",
                f"the server is already running its limit of {self.limit} LLM requests; "
                f"retry after {self.retry_after_s} s",
                headers={"Retry-After": str(self.retry_after_s)},
            )
        self.in_flight += 1
        try:
            async with asyncio.timeout(self.timeout_s):
                yield
        except TimeoutError:
            raise ApiError(
                504, "timeout", f"no answer from the provider within {self.timeout_s:g} s"
            ) from None
        finally:
            self.in_flight -= 1
