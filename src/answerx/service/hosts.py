"""Only the ``Host`` names the server is meant to answer (against DNS rebinding).

A web page on ``evil.example`` can make its name resolve to 127.0.0.1 and then send
requests to a loopback server "same-origin": the browser lets the page read the
answers, and a server without a token would spend its provider credits for it. The
page cannot change the ``Host`` header, which still names ``evil.example``: a
server that answers only its own names is out of its reach.
:attr:`~answerx.service.settings.ServiceSettings.accepted_hosts` says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from answerx.service.asgi import header
from answerx.service.errors import send_error

__all__ = ["AllowedHostsMiddleware"]

_ACCEPTED: Final = "answerx.host_accepted"  # set in the scope by the check's inner app
_ECHO_LIMIT: Final = 60  # a refused Host is quoted back this long at most


class AllowedHostsMiddleware:
    """Answer 400 ``invalid_host`` to a request whose ``Host`` is not one of ``hosts``
    (any port; ``*.example.com`` matches its subdomains).

    The matching is Starlette's :class:`TrustedHostMiddleware` (its parser knows
    ports and bracketed IPv6 literals); only its plain-text refusal is replaced by
    the service's JSON error.
    """

    def __init__(self, app: ASGIApp, hosts: Sequence[str]) -> None:
        self.app = app
        self.hosts = tuple(hosts)
        self._check = TrustedHostMiddleware(_accept, allowed_hosts=self.hosts, www_redirect=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self._check(scope, receive, _discard)
        if scope.pop(_ACCEPTED, False):
            await self.app(scope, receive, send)
            return
        given = (header(scope, b"host") or b"").decode("latin-1")
        shown = given if len(given) <= _ECHO_LIMIT else given[: _ECHO_LIMIT - 3] + "..."
        await send_error(
            send,
            400,
            "invalid_host",
            f"this server answers requests for {', '.join(self.hosts)} only, not Host: "
            f"{shown!r} (its operator can add a name with answerx serve --allowed-host)",
        )


async def _accept(scope: Scope, receive: Receive, send: Send) -> None:
    scope[_ACCEPTED] = True


async def _discard(message: Message) -> None:
    """Where Starlette's own refusal goes: the service sends its JSON one instead."""
