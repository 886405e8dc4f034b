"""A browser's way through the service's token: ``?token=`` once, then a cookie.

A browser following a link cannot send ``Authorization: Bearer``, which the service's
token rules ask for on any bind other than loopback. So, on the viewer's pages only
(paths under ``prefix``, GET and HEAD only, which change nothing):

- ``?token=TOKEN`` in an address is checked, then the browser is sent to the same
  address without it (so a copied link never carries the token) with the token in an
  ``HttpOnly``, ``SameSite=Lax`` cookie scoped to ``prefix``;
- that cookie is passed on as the ``Authorization`` header the token check reads.

``enforce=True`` (``answerx runs view``) also refuses a page without the right token;
under ``answerx serve`` the service's own bearer check does that. Tokens are compared
as SHA-256 digests with :func:`hmac.compare_digest`, as the service compares them.
"""

from __future__ import annotations

import hashlib
import hmac
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, quote, unquote, urlencode

from markupsafe import escape
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["COOKIE", "BrowserTokenMiddleware"]

#: The cookie that carries the token after the first ``?token=``.
COOKIE = "answerx_token"
_READING = frozenset({"GET", "HEAD"})


def _digest(token: str | bytes) -> bytes:
    return hashlib.sha256(token.encode() if isinstance(token, str) else token).digest()


class BrowserTokenMiddleware:
    """Let a browser present the service's token on the pages under ``prefix``."""

    def __init__(self, app: ASGIApp, token: str, prefix: str = "/runs", *, enforce: bool) -> None:
        self.app = app
        self._digest = _digest(token)
        self.prefix = prefix.rstrip("/")
        self.enforce = enforce

    def __repr__(self) -> str:  # never shows the token
        return f"BrowserTokenMiddleware(prefix={self.prefix!r}, token=***)"

    def _matches(self, presented: str | bytes | None) -> bool:
        return presented is not None and hmac.compare_digest(_digest(presented), self._digest)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        ours = path == self.prefix or path.startswith(self.prefix + "/")
        if scope["type"] != "http" or not ours:
            await self.app(scope, receive, send)
            return
        if scope.get("method") not in _READING:
            await _refuse(send, 405, "the run viewer only reads: GET and HEAD")
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = [value for name, value in query if name == "token"]
        if given:
            if not self._matches(given[-1]):
                await _refuse(send, 401, "the token in this address is wrong")
                return
            rest = urlencode([(n, v) for n, v in query if n != "token"])
            location = quote(path, safe="/") + (f"?{rest}" if rest else "")
            await _send_on(send, location, given[-1], self.prefix)
            return
        headers = list(scope.get("headers", []))
        bearer = _bearer(headers)
        if bearer is None:
            bearer = _cookie(headers)
            if bearer is not None:
                headers.append((b"authorization", b"Bearer " + bearer.encode("latin-1")))
                scope = {**scope, "headers": headers}
        if self.enforce and not self._matches(bearer):
            await _refuse(
                send,
                401,
                "this viewer needs its token: open the address answerx printed "
                "with ?token=YOUR_ANSWERX_API_TOKEN added, once",
            )
            return
        await self.app(scope, receive, send)


def _bearer(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name == b"authorization":
            scheme, _, credentials = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and credentials.strip():
                return credentials.strip()
    return None


def _cookie(headers: list[tuple[bytes, bytes]]) -> str | None:
    for name, value in headers:
        if name == b"cookie":
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed Cookie header: as if none were sent
                continue
            if COOKIE in jar:
                return unquote(jar[COOKIE].value)
    return None


async def _send_on(send: Send, location: str, token: str, prefix: str) -> None:
    cookie = f"{COOKIE}={quote(token, safe='')}; Path={prefix}; HttpOnly; SameSite=Lax"
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", location.encode("latin-1")),
                (b"set-cookie", cookie.encode("latin-1")),
                (b"cache-control", b"no-store"),
                (b"content-length", b"0"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})


async def _refuse(send: Send, status: int, message: str) -> None:
    body = (
        f"<!doctype html><meta charset=utf-8><title>answerx runs</title><p>{escape(message)}</p>"
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
