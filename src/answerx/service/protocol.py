"""uvicorn's HTTP protocol with a deadline for request headers and a connection cap
that one client cannot fill.

uvicorn closes an idle keep-alive connection after ``timeout_keep_alive``, but
it arms that timer only once a response is complete: a connection that never
sends a whole request line and headers (1,000 "slow-loris" sockets, say) stays
open for ever. These subclasses of its two HTTP implementations (httptools when
installed, h11 otherwise) add what it lacks, as small overrides of its own
protocol classes rather than a server of our own:

- **header deadline**: from the moment a connection opens, and from the first byte
  of each further request on it, the request line and headers must be complete
  within ``header_timeout_s``; otherwise the connection is closed;
- **connection cap that makes room**: at most ``max_connections`` are open at once
  (per worker process). A connection beyond it does not wait for a slot, nor is
  it turned away while others merely wait: the connection *waiting longest for a
  request* is closed to make room for it, first among those that never completed
  a request's headers (idle or slow-loris sockets), then among idle keep-alive
  connections (clients reconnect: httpx checks a pooled connection before reusing
  it). A connection with a request in progress is never closed for room; only when
  every open connection has one is the newcomer closed at once. So requests in
  flight are bounded too (one per connection; no 503).

- **header limits**: a request's line and headers may hold at most
  ``max_header_bytes`` bytes and ``max_headers`` header fields. The bytes of an
  unfinished request head are counted *before* the parser sees them, so a
  connection sending megabytes of headers is answered ``431 Request Header Fields
  Too Large`` (the service's JSON error) once it passes the limit, and whatever it
  sends after is read and dropped until it closes, for a second at most (a lingering
  close: closing at once, with its bytes unread, would reset the connection and
  lose the 431). Neither uvicorn nor its parsers bound a request head: httptools
  buffers an unfinished header of any length (a 30 MB one was answered 200), and
  h11 gives up at its own buffer size with a 400 that does not say why.

So 1,100 idle connections held by one client (unauthenticated: it needs no token
to connect) cost it its oldest ones as others arrive, and ``/healthz`` and
authenticated requests keep being answered (``bench/service.py --hoarding``)
instead of being reset until a slot frees at the header deadline.

So the memory a connection can make the server hold for its head is about
``max_header_bytes`` plus one read (64 KiB + 256 KiB by default), and at the
connection cap about 0.3 GB at worst, for as long as the header deadline, instead
of the 5 GB that 1,000 connections each holding 5 MB of headers took
(``bench/service.py --headers``). The run viewer (``answerx runs view``) is served
with the same protocol and the same limits.

The limits come from :class:`~answerx.service.settings.ServiceSettings`
(``ANSWERX_HEADER_TIMEOUT_S``, ``ANSWERX_MAX_CONNECTIONS``,
``ANSWERX_MAX_HEADER_BYTES``, ``ANSWERX_MAX_HEADERS``), read from the
environment when this module is imported, so that uvicorn's worker processes,
which import it by name, get them too. A request *body* sent slowly is bounded by
the body-size limit but not by a deadline, and its connection is not closed for
room; put a reverse proxy in front of a server open to the internet.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final

from uvicorn.protocols.http.h11_impl import H11Protocol

from answerx.service.errors import error_body
from answerx.service.settings import ServiceSettings

if TYPE_CHECKING:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
else:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools is an optional part of uvicorn[standard]
        HttpToolsProtocol = H11Protocol

__all__ = ["GuardedH11Protocol", "GuardedHttpToolsProtocol", "guarded_protocol", "protocol_path"]

_FROM_ENV: Final = ServiceSettings.from_env()
# The blank line that ends a request head (h11 and llhttp both take bare LF endings).
_HEAD_END: Final = re.compile(rb"\n\r?\n")
# How long a connection answered 431 may go on sending before it is closed.
_LINGER_S: Final = 1.0


@dataclass
class _Waiting:
    """One server's connections with no request in progress, oldest first: the ones
    it may close to make room for a new connection."""

    fresh: dict[Any, None] = field(default_factory=dict)  # no request's headers yet
    idle: dict[Any, None] = field(default_factory=dict)  # between keep-alive requests
    closing: int = 0  # closed here, not yet gone from uvicorn's set of connections

    def oldest(self, besides: object) -> Any | None:
        for group in (self.fresh, self.idle):
            for connection in group:
                if connection is not besides:
                    return connection
        return None

    def discard(self, connection: object) -> None:
        self.fresh.pop(connection, None)
        self.idle.pop(connection, None)


# Per uvicorn server (its ServerState, which every connection of it shares).
_WAITING: Final[weakref.WeakKeyDictionary[object, _Waiting]] = weakref.WeakKeyDictionary()


class _Guard:
    """The deadline and the cap, mixed into one of uvicorn's protocol classes."""

    header_timeout_s: ClassVar[float] = _FROM_ENV.header_timeout_s
    max_connections: ClassVar[int] = _FROM_ENV.max_connections
    max_header_bytes: ClassVar[int] = _FROM_ENV.max_header_bytes
    max_headers: ClassVar[int] = _FROM_ENV.max_headers

    # Attributes of uvicorn's protocol classes this mixin uses.
    transport: asyncio.Transport
    connections: set[Any]
    server_state: Any
    cycle: Any
    loop: asyncio.AbstractEventLoop
    _header_timer: asyncio.TimerHandle | None = None
    _closed_here = False
    _head_bytes = 0  # of the request head being received
    _head_lines = 0  # line ends in it: the request line's, then one per header field
    _head_tail = b""  # its last two bytes, for a blank line split across two reads
    _refused = False  # answered 431: what it sends now is dropped

    def _waiting(self) -> _Waiting:
        return _WAITING.setdefault(self.server_state, _Waiting())

    def _admit(self) -> bool:
        """Make room for this new connection, closing the one waiting longest for a
        request if the cap is reached; False (and closed) when there is none."""
        waiting = self._waiting()
        while len(self.connections) - waiting.closing > self.max_connections:
            victim = waiting.oldest(besides=self)
            if victim is None:
                self._close_here(waiting)
                return False
            victim._close_here(waiting)
        waiting.fresh[self] = None
        return True

    def _close_here(self, waiting: _Waiting) -> None:
        waiting.discard(self)
        if not self._closed_here:
            self._closed_here = True
            waiting.closing += 1
        self.transport.close()

    def _request_started(self) -> None:
        """A request's headers are complete: busy, no longer one to close for room."""
        self._cancel_header_timer()
        self._head_bytes, self._head_lines, self._head_tail = 0, 0, b""
        self._waiting().discard(self)

    def _head_fits(self, data: bytes) -> bool:
        """Count ``data``, received while a request head is unfinished, against the
        header limits; when it goes past one, answer 431 and return False (``data``
        must then not reach the parser)."""
        seen = self._head_tail + data
        end = _HEAD_END.search(seen)
        if end is None:
            head = data
            self._head_tail = seen[-2:]
        else:  # what follows the blank line is a body or the next request: not head
            head = data[: max(0, end.end() - len(self._head_tail))]
            self._head_tail = b""
        self._head_bytes += len(head)
        self._head_lines += head.count(b"\n")
        fields = self._head_lines - (2 if end is not None else 1)  # not the request line
        if self._head_bytes > self.max_header_bytes:
            self._refuse_head(f"the request line and headers exceed {self.max_header_bytes} bytes")
            return False
        if fields > self.max_headers:
            self._refuse_head(f"the request has more than {self.max_headers} header fields")
            return False
        return True

    def _refuse_head(self, why: str) -> None:
        """431 and a lingering close: the reply is sent and the write side shut, what
        the client still sends is dropped, and the connection closed when it closes
        its end or after :data:`_LINGER_S`."""
        self._refused = True
        self._cancel_header_timer()
        body = error_body("request_header_fields_too_large", why)
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/json\r\n"
            b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
        )
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(_LINGER_S, self.transport.close)

    def _received(self, data: bytes) -> bool:
        """The guard's part of ``data_received``: arm the deadline when a request
        starts, count its head; False when ``data`` must be dropped."""
        if self._refused:
            return False
        if self._between_requests():
            self._arm_header_timer()  # a new request starts: its headers have a deadline
            return self._head_fits(data)
        return True

    def _response_sent(self) -> None:
        if not self.transport.is_closing() and self._between_requests():
            waiting = self._waiting()
            waiting.discard(self)
            waiting.idle[self] = None  # the newest idle one: the last to be closed

    def _gone(self) -> None:
        self._cancel_header_timer()
        waiting = self._waiting()
        waiting.discard(self)
        if self._closed_here:
            waiting.closing -= 1

    def _arm_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _between_requests(self) -> bool:
        return self.cycle is None or bool(self.cycle.response_complete)


class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):
    """uvicorn's httptools protocol with the header deadline and the connection cap."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._admit():
            self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        if self._received(data):
            super().data_received(data)

    def on_headers_complete(self) -> None:
        self._request_started()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._response_sent()

    def connection_lost(self, exc: Exception | None) -> None:
        self._gone()
        super().connection_lost(exc)


class GuardedH11Protocol(_Guard, H11Protocol):
    """uvicorn's h11 protocol with the header deadline and the connection cap."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._admit():
            self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        if not self._received(data):
            return
        super().data_received(data)
        if not self._between_requests():  # h11 parsed a whole request line and headers
            self._request_started()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._response_sent()

    def connection_lost(self, exc: Exception | None) -> None:
        self._gone()
        super().connection_lost(exc)


def _httptools() -> bool:
    return importlib.util.find_spec("httptools") is not None


def protocol_path() -> str:
    """The guarded protocol class uvicorn's workers import (``module:Class``)."""
    name = "GuardedHttpToolsProtocol" if _httptools() else "GuardedH11Protocol"
    return f"{__name__}:{name}"


def guarded_protocol(settings: ServiceSettings) -> type[asyncio.Protocol]:
    """The guarded protocol class with ``settings``' limits (for a server run in this
    process: a subclass made here cannot be imported by other worker processes)."""
    base: type[_Guard] = GuardedHttpToolsProtocol if _httptools() else GuardedH11Protocol
    attributes = {
        "header_timeout_s": settings.header_timeout_s,
        "max_connections": settings.max_connections,
        "max_header_bytes": settings.max_header_bytes,
        "max_headers": settings.max_headers,
    }
    return type(base.__name__, (base,), attributes)
