"""Small pieces the service's pure ASGI middlewares share.

The middlewares are pure ASGI rather than Starlette's ``BaseHTTPMiddleware``,
which runs the rest of the app in a task of its own with its own body streams:
no small cost next to a 15 µs extraction.
"""

from __future__ import annotations

from typing import Final

from starlette.types import Message, Scope, Send

__all__ = ["JSON", "WatchedSend", "header"]

#: The media type of every request and response body but ``/metrics``.
JSON: Final = "application/json"


class WatchedSend:
    """``send``, noting the status of the response once it has started.

    A middleware that must answer an error itself can do so only while
    :attr:`started` is false: after that, the client already has a status line.
    """

    __slots__ = ("_send", "status")

    def __init__(self, send: Send) -> None:
        self._send = send
        #: The response's status; None until ``http.response.start`` is sent.
        self.status: int | None = None

    @property
    def started(self) -> bool:
        """Whether the response's status line has been sent."""
        return self.status is not None

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        await self._send(message)


def header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of header ``name`` (lower case, as ASGI gives names), or None."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None
