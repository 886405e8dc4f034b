"""Bearer-token authentication, as pure ASGI middleware (present only when a token is set).

``Authorization: Bearer <token>`` is checked by comparing SHA-256 digests with
:func:`hmac.compare_digest`: its time depends neither on where the two differ
nor (the digests being of one length) on how long the presented token is. The
health checks and the API docs stay open: a load balancer or a person reading
the schema needs no token, and neither reveals anything but the API's shape.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Final

from pydantic import SecretStr
from starlette.types import ASGIApp, Receive, Scope, Send

from answerx.service.asgi import header
from answerx.service.errors import send_error

__all__ = ["OPEN_PATHS", "BearerAuthMiddleware"]

#: Paths served without a token.
OPEN_PATHS: Final = frozenset({"/healthz", "/readyz", "/docs", "/openapi.json", "/redoc"})

_CHALLENGE: Final = ((b"www-authenticate", b"Bearer"),)


class BearerAuthMiddleware:
    """Answer 401 to any request but :data:`OPEN_PATHS` without the right bearer token."""

    def __init__(
        self, app: ASGIApp, token: SecretStr, open_paths: frozenset[str] = OPEN_PATHS
    ) -> None:
        self.app = app
        self._digest = _digest(token.get_secret_value().encode())
        self.open_paths = open_paths

    def __repr__(self) -> str:  # never shows the token
        return "BearerAuthMiddleware(token=***)"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        presented = _bearer_token(scope)
        if presented is None:
            await send_error(
                send, 401, "unauthorized", "this server needs a bearer token", _CHALLENGE
            )
            return
        if not hmac.compare_digest(_digest(presented), self._digest):
            await send_error(send, 401, "unauthorized", "the bearer token is wrong", _CHALLENGE)
            return
        await self.app(scope, receive, send)


def _digest(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


def _bearer_token(scope: Scope) -> bytes | None:
    value = header(scope, b"authorization")
    if value is None:
        return None
    scheme, _, credentials = value.partition(b" ")
    if scheme.lower() == b"bearer" and credentials.strip():
        return credentials.strip()
    return None
