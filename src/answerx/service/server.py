"""``serve(host, port, ...)``: run the service on uvicorn, refusing an open bind without a token.

A server reachable from other machines spends its operator's provider credits
for whoever can reach it, so a non-loopback ``host`` needs ``ANSWERX_API_TOKEN``
unless ``allow_unauthenticated=True`` says that is intended.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import ipaddress
import logging
import os
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, Final

from answerx import earlysignals
from answerx.errors import ConfigError
from answerx.service.redaction import SafeLogFilter, secrets_in
from answerx.service.settings import ENV_VARS, ServiceSettings

__all__ = ["MIN_PUBLIC_TOKEN_LENGTH", "check_bind", "is_loopback", "serve", "uvicorn_options"]

APP_FACTORY: Final = "answerx.service.app:create_app"
ALLOWED_HOSTS_VAR: Final = ENV_VARS["allowed_hosts"]
#: Shortest ``ANSWERX_API_TOKEN`` accepted for a non-loopback bind (guessable otherwise).
MIN_PUBLIC_TOKEN_LENGTH: Final = 16
# Descriptors a worker needs besides its connections: the listening socket, the
# extraction pool's pipes, logs, the event loop's own.
_OTHER_FILES: Final = 128


log = logging.getLogger("answerx.service")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine (``localhost``, 127.0.0.0/8, ::1).

    Any other name counts as open: what it resolves to can change.
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, settings: ServiceSettings, *, allow_unauthenticated: bool) -> None:
    """Raise :class:`ConfigError` for a non-loopback ``host`` without a token (unless
    allowed), or with a token shorter than :data:`MIN_PUBLIC_TOKEN_LENGTH` characters."""
    if is_loopback(host):
        return
    if settings.api_token is not None:
        length = len(settings.api_token.get_secret_value())
        if length < MIN_PUBLIC_TOKEN_LENGTH:
            raise ConfigError(
                f"refusing to listen on {host} with a {length}-character ANSWERX_API_TOKEN: "
                f"a server others can reach needs a token of at least "
                f"{MIN_PUBLIC_TOKEN_LENGTH} characters (for example the output of "
                "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )
        return
    if allow_unauthenticated:
        return
    raise ConfigError(
        f"refusing to listen on {host} without authentication: anyone who can reach it "
        "could use this server's provider credentials. Set ANSWERX_API_TOKEN, bind to "
        "127.0.0.1, or pass --allow-unauthenticated if that is really intended."
    )


def _log_config(secrets: Sequence[str]) -> dict[str, Any]:
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["safe"] = {"()": SafeLogFilter, "secrets": list(secrets)}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("safe")
    config["loggers"]["answerx"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    # Everything else (the SDKs, httpx, asyncio) through the same filtered handler,
    # not through Python's last-resort handler, which would print tracebacks.
    config["root"] = {"handlers": ["default"], "level": "WARNING"}
    return config


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    allow_unauthenticated: bool = False,
    allowed_hosts: Sequence[str] = (),
    workers: int = 1,
    access_log: bool = False,
    log_level: str = "info",
) -> None:
    """Run the service until interrupted; settings come from ``ANSWERX_*`` variables.

    ``allowed_hosts`` adds ``Host`` names to answer besides the loopback ones (to
    ``ANSWERX_ALLOWED_HOSTS``; see :mod:`answerx.service.settings`). ``workers`` > 1
    runs that many processes (each with its own limits and metrics): about one per
    core. The access log is off by default: it puts a log line on the hot path of
    every request.
    """
    # First of all: a SIGTERM while uvicorn and FastAPI are still being imported (a
    # process manager stopping a server it just started) must end it with status 0 too.
    with _exit_status_zero_once_stopped():
        _serve(host, port, allow_unauthenticated, allowed_hosts, workers, access_log, log_level)


def _serve(
    host: str,
    port: int,
    allow_unauthenticated: bool,
    allowed_hosts: Sequence[str],
    workers: int,
    access_log: bool,
    log_level: str,
) -> None:
    import uvicorn

    if allowed_hosts:  # the workers build their app from the environment
        given = os.environ.get(ALLOWED_HOSTS_VAR, "")
        os.environ[ALLOWED_HOSTS_VAR] = ",".join([*filter(None, given.split(",")), *allowed_hosts])
    settings = ServiceSettings.from_env()  # a bad value fails here, not in each worker
    check_bind(host, settings, allow_unauthenticated=allow_unauthenticated)
    if settings.accepted_hosts is not None and not settings.allowed_hosts and not is_loopback(host):
        log.warning(
            "listening on %s without a token: only requests for %s are answered; pass "
            "--allowed-host NAME for each name clients reach this server by",
            host, ", ".join(settings.accepted_hosts),
        )  # fmt: skip
    _raise_open_files_limit(settings.max_connections)
    if workers < 1:
        raise ConfigError(f"workers must be at least 1, got {workers}")
    if workers > 1 and importlib.util.find_spec("uvloop") is None:
        # Measured: 44 ms per response. uvicorn binds the workers' shared socket with
        # protocol 0, so asyncio's loop (unlike uvloop) never sets TCP_NODELAY on its
        # connections, and Nagle's algorithm meets the client's delayed ACK.
        log.warning(
            "uvloop is not installed: with --workers, every response may wait about 40 ms "
            "(pip install 'uvicorn[standard]')"
        )
    uvicorn.run(
        APP_FACTORY,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        access_log=access_log,
        log_level=log_level,
        log_config=_log_config(secrets_in(os.environ)),
        server_header=False,
        **uvicorn_options(settings),
    )


def _raise_open_files_limit(max_connections: int) -> None:
    """Let each worker hold ``max_connections`` sockets and its other files.

    A worker out of descriptors cannot accept the connection that would make room
    (asyncio then stops accepting for a second): raise the soft limit to the hard
    one, as servers do (the workers inherit it), and warn when even that is short.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: no such limit to raise
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    needed = max_connections + _OTHER_FILES
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning(
            "only %d open files allowed: ANSWERX_MAX_CONNECTIONS=%d needs about %d "
            "(raise `ulimit -n` or lower ANSWERX_MAX_CONNECTIONS)",
            soft, max_connections, needed,
        )  # fmt: skip


def uvicorn_options(settings: ServiceSettings, *, in_process: bool = False) -> dict[str, Any]:
    """uvicorn's connection limits for ``settings``: the header deadline, the header
    limits and the connection cap (:mod:`answerx.service.protocol`), the keep-alive
    timeout.

    ``in_process``: for a server run in this process (tests), the protocol class
    itself, with ``settings``' limits; otherwise its import path, which worker
    processes import with the limits of the environment.
    """
    from answerx.service.protocol import guarded_protocol, protocol_path

    return {
        "http": guarded_protocol(settings) if in_process else protocol_path(),
        # No limit_concurrency: the cap bounds the connections, and so the requests in
        # flight (one per connection); uvicorn's own check would count a connection
        # closed to make room until its close completes (after the loop's I/O phase,
        # with uvloop) and answer the newcomer's request 503.
        "timeout_keep_alive": settings.keep_alive_s,
        # h11's own bound on an unfinished head (16 KiB unless set) would answer a
        # long head 400 before the guard's 431; above the guard's limit plus a read,
        # it never does.
        "h11_max_incomplete_event_size": settings.max_header_bytes + 262_144,
    }


@contextmanager
def _exit_status_zero_once_stopped() -> Iterator[None]:
    """Exit with status 0 on SIGTERM or Ctrl-C, once uvicorn has shut down gracefully.

    uvicorn handles both signals itself while it runs; after its graceful shutdown it
    restores the handlers it found and raises the signal again, so that the process
    would die of it: status -15 (143 in a shell) for SIGTERM, Click's "Aborted!" and
    status 1 for Ctrl-C. Here the handlers it finds and restores end the process
    with status 0: a server that stopped when asked to has not failed. (A signal
    that comes before uvicorn takes over ends it the same way, at once.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread; uvicorn skips them too
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if earlysignals.take():  # a SIGTERM while the `answerx serve` command was loading
            raise SystemExit(0)
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
