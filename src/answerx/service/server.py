"""``serve(host, port, ...)``: run the service on uvicorn, refusing an open bind without a token.

A server reachable from other machines spends its operator's provider credits
for whoever can reach it, so a non-loopback ``host`` needs ``ANSWERX_API_TOKEN``
unless ``allow_unauthenticated=True`` says that is intended.
"""

from __future__ import annotations

import contextlib
import copy
import functools
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

from pydantic import SecretStr

from answerx.errors import ConfigError
from answerx.service.redaction import SafeLogFilter, secrets_in
from answerx.service.settings import ENV_VARS, ServiceSettings
from answerx.service.verify_schemas import REWARD_ENV_VARS
from answerx.support import earlysignals

__all__ = [
    "MIN_PUBLIC_TOKEN_LENGTH",
    "check_bind",
    "is_loopback",
    "serve",
    "settings_environment",
    "uvicorn_options",
]

APP_FACTORY: Final = "answerx.service.app:create_app"
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
    settings: ServiceSettings | None = None,
    allow_unauthenticated: bool = False,
    allowed_hosts: Sequence[str] = (),
    workers: int = 1,
    access_log: bool = False,
    log_level: str = "info",
) -> None:
    """Run the service of ``settings`` (default: from ``ANSWERX_*`` variables) until interrupted.

    The app is built by :func:`answerx.service.app.create_app` from those settings; this
    process's environment is never written. ``allowed_hosts`` adds ``Host`` names to answer
    besides the loopback ones (to ``allowed_hosts``; see :mod:`answerx.service.settings`).
    ``workers`` > 1
    runs that many processes (each with its own limits and metrics): about one per
    core. The access log is off by default: it puts a log line on the hot path of
    every request.
    """
    # First of all: a SIGTERM while uvicorn and FastAPI are still being imported (a
    # process manager stopping a server it just started) must end it with status 0 too.
    with _exit_status_zero_once_stopped():
        given = settings if settings is not None else ServiceSettings.from_env()
        _serve(given, host, port, allow_unauthenticated, allowed_hosts, workers, access_log,
               log_level)  # fmt: skip


def _serve(
    settings: ServiceSettings,
    host: str,
    port: int,
    allow_unauthenticated: bool,
    allowed_hosts: Sequence[str],
    workers: int,
    access_log: bool,
    log_level: str,
) -> None:
    import uvicorn

    if allowed_hosts:
        settings = settings.updated(allowed_hosts=(*settings.allowed_hosts, *allowed_hosts))
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
    options: dict[str, Any] = {
        "host": host, "port": port, "workers": workers, "access_log": access_log,
        "log_level": log_level, "log_config": _log_config(secrets_in(os.environ)),
        "server_header": False,
    }  # fmt: skip
    if workers == 1:  # the app of these settings, built in this process
        from answerx.service.app import create_app

        app = functools.partial(create_app, settings)
        uvicorn.run(app, factory=True, **options, **uvicorn_options(settings, in_process=True))
        return
    # uvicorn's worker processes import the app factory by name and build their own app
    # and protocol from the environment they start with: the settings travel there, in
    # the variables that hold them, for as long as the workers run.
    with _environment_for_workers(settings):
        uvicorn.run(APP_FACTORY, factory=True, **options, **uvicorn_options(settings))


@contextmanager
def _environment_for_workers(settings: ServiceSettings) -> Iterator[None]:
    """``settings`` as the ``ANSWERX_*`` variables worker processes read, restored after."""
    wanted = settings_environment(settings)
    before = {name: os.environ.get(name) for name in wanted}
    try:
        _set_environment(wanted)
        yield
    finally:
        _set_environment(before)


def _set_environment(values: dict[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def settings_environment(settings: ServiceSettings) -> dict[str, str | None]:
    """The ``ANSWERX_*`` variables that give ``settings`` (None: unset), so that
    ``ServiceSettings.from_env(...)`` of them equals ``settings``."""
    fields = {**dict(settings), **{f: getattr(settings.reward, f) for f in REWARD_ENV_VARS}}
    return {
        variable: _spelled(fields[name])
        for name, variable in (*ENV_VARS.items(), *REWARD_ENV_VARS.items())
    }


def _spelled(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


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
