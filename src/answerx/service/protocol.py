"""uvicorn's HTTP protocol with a deadline for request headers and a connection cap.

uvicorn closes an idle keep-alive connection after ``timeout_keep_alive``, but
it arms that timer only once a response is complete: a connection that never
sends a whole request line and headers (1,000 "slow-loris" sockets, say) stays
open for ever. These subclasses of its two HTTP implementations (httptools when
installed, h11 otherwise) add what it lacks, as small overrides of its own
protocol classes rather than a server of our own:

- **header deadline**: from the moment a connection opens, and from the first byte
  of each further request on it, the request line and headers must be complete
  within ``header_timeout_s``; otherwise the connection is closed;
- **connection cap**: a connection beyond ``max_connections`` open at once (per
  worker process) is closed as soon as it is accepted. Requests beyond uvicorn's
  ``limit_concurrency`` (set to the same number) are answered 503.

The limits come from :class:`~answerx.service.settings.ServiceSettings`
(``ANSWERX_HEADER_TIMEOUT_S``, ``ANSWERX_MAX_CONNECTIONS``), read from the
environment when this module is imported, so that uvicorn's worker processes,
which import it by name, get them too. A request *body* sent slowly is bounded by
the body-size limit but not by a deadline; put a reverse proxy in front of a
server open to the internet.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import TYPE_CHECKING, Any, ClassVar, Final

from uvicorn.protocols.http.h11_impl import H11Protocol

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


class _Guard:
    """The deadline and the cap, mixed into one of uvicorn's protocol classes."""

    header_timeout_s: ClassVar[float] = _FROM_ENV.header_timeout_s
    max_connections: ClassVar[int] = _FROM_ENV.max_connections

    # Attributes of uvicorn's protocol classes this mixin uses.
    transport: asyncio.Transport
    connections: set[Any]
    cycle: Any
    loop: asyncio.AbstractEventLoop
    _header_timer: asyncio.TimerHandle | None = None

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

    def _over_the_cap(self) -> bool:
        return len(self.connections) > self.max_connections


class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):
    """uvicorn's httptools protocol with the header deadline and the connection cap."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._over_the_cap():
            transport.close()
            return
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm_header_timer()  # a new request starts: its headers have a deadline
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._cancel_header_timer()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)


class GuardedH11Protocol(_Guard, H11Protocol):
    """uvicorn's h11 protocol with the header deadline and the connection cap."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self._over_the_cap():
            transport.close()
            return
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm_header_timer()
        super().data_received(data)
        if not self._between_requests():  # h11 parsed a whole request line and headers
            self._cancel_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
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
    }
    return type(base.__name__, (base,), attributes)
