"""``answerx runs view``: the run viewer on a local address (uvicorn, imported when it starts)."""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Annotated, Any
from urllib.parse import urlencode

import typer

from answerx.cli._common import command_boundary, stderr, stdout
from answerx.cli.options import DbOption, existing_store

__all__ = ["VIEW_HELP", "VIEW_SHORT_HELP", "view_command"]

VIEW_SHORT_HELP = (
    "A local web page of runs: accuracy, comparisons, each item with its answer marked."
)

VIEW_HELP = """Look at runs in a web page: accuracy by approach x strategy x model with
Wilson intervals, paired comparisons, breakdowns, every item's conversation with the
answer's span highlighted in its raw output, filters in the address (shareable).

Serves the results store read-only on 127.0.0.1 (nothing leaves the machine; every asset
comes from answerx) and prints the address. RUN_ID (or a prefix) opens that run; two open
them compared; without any, the list of runs. A non-loopback --host follows the rules of
answerx serve: it needs ANSWERX_API_TOKEN (16+ characters; a browser gives it once as
?token=...), or --allow-unauthenticated. Stops on Ctrl-C."""


def view_command(
    run_ids: Annotated[
        list[str] | None,
        typer.Argument(help="Runs to show (ids or prefixes); none: every run.", show_default=False),
    ] = None,
    db: DbOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")
    ] = 8765,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the address in a browser, where there is one.")
    ] = False,
    allow_unauthenticated: Annotated[
        bool,
        typer.Option(
            "--allow-unauthenticated",
            help="Listen on a non-loopback address without ANSWERX_API_TOKEN (anyone who "
            "reaches it can then read every run's questions and outputs).",
        ),
    ] = False,
) -> None:
    """Serve the run viewer until Ctrl-C."""
    path = existing_store(db)  # the same check, fault and exit code as every runs command
    with command_boundary():
        shown = _resolve(path, run_ids or [])
        token = _token_for(host, allow_unauthenticated)
        listening = _bind(host, port)
    from answerx.viewer import PREFIX, create_viewer_app

    address = _address(host, listening.getsockname()[1], PREFIX, shown)
    stdout().print(f"answerx runs view: {address}  (Ctrl-C stops it)", soft_wrap=True)
    if token is not None:
        stderr().print("open it with ?token=<your ANSWERX_API_TOKEN> added, once")
    if open_browser:
        import webbrowser

        if not webbrowser.open(address):
            stderr().print("no browser found here: open the address yourself")
    import uvicorn

    app = create_viewer_app(path, run_ids=shown or None, token=token)
    if token is None and _loopback(host):
        # As answerx serve: a loopback viewer without a token answers only loopback names,
        # so a page on another site cannot read the runs through a rebinding name.
        from answerx.service.hosts import AllowedHostsMiddleware
        from answerx.service.settings import LOOPBACK_HOSTS

        app.add_middleware(AllowedHostsMiddleware, hosts=LOOPBACK_HOSTS)
    config = uvicorn.Config(
        app, log_level="warning", server_header=False, access_log=False, **_connection_limits()
    )
    with _stopping_is_success():
        uvicorn.Server(config).run(sockets=[listening])


def _connection_limits() -> dict[str, Any]:
    """The service's connection limits (``ANSWERX_HEADER_TIMEOUT_S``,
    ``ANSWERX_MAX_CONNECTIONS``, ``ANSWERX_MAX_HEADER_BYTES``, ...): a viewer on
    ``--host 0.0.0.0`` meets the same slow or oversized requests as a server."""
    from answerx.service.server import uvicorn_options
    from answerx.service.settings import ServiceSettings

    with command_boundary():  # a malformed variable: a usage error naming it
        settings = ServiceSettings.from_env()
    return uvicorn_options(settings, in_process=True)


def _loopback(host: str) -> bool:
    from answerx.service.server import is_loopback

    return is_loopback(host)


@contextmanager
def _stopping_is_success() -> Iterator[None]:
    """Exit with status 0 when stopped by Ctrl-C or SIGTERM: uvicorn shuts down
    gracefully, then raises the signal again to the handlers it found, these."""

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _resolve(path: Path | str, run_ids: list[str]) -> list[str]:
    """The full ids of the runs named (ids or prefixes); RunNotFound for one not there."""
    from answerx.experiments.store import ResultStore

    with ResultStore.open(path, "read") as store:
        return list(dict.fromkeys(store.get_run(r).run_id for r in run_ids))


def _token_for(host: str, allow_unauthenticated: bool) -> str | None:
    """The token pages need (ANSWERX_API_TOKEN), under ``answerx serve``'s rules for a bind
    others can reach: a token of 16+ characters, or ``--allow-unauthenticated``."""
    from answerx.errors import ConfigError
    from answerx.service.server import MIN_PUBLIC_TOKEN_LENGTH, is_loopback
    from answerx.service.settings import ServiceSettings

    secret = ServiceSettings.from_env().api_token
    token = secret.get_secret_value() if secret is not None else None
    if is_loopback(host):
        return token
    if token is None and not allow_unauthenticated:
        raise ConfigError(
            f"refusing to listen on {host} without authentication: anyone who can reach it "
            "could read every run's questions and outputs. Set ANSWERX_API_TOKEN, bind to "
            "127.0.0.1, or pass --allow-unauthenticated if that is really intended."
        )
    if token is not None and len(token) < MIN_PUBLIC_TOKEN_LENGTH:
        raise ConfigError(
            f"refusing to listen on {host} with a {len(token)}-character ANSWERX_API_TOKEN: "
            f"a viewer others can reach needs a token of at least {MIN_PUBLIC_TOKEN_LENGTH} "
            "characters"
        )
    return token


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; a port in use or an address that is not
    this machine's is a usage error that says so."""
    from answerx.errors import ConfigError

    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, where = info[0]
        listening = socket.socket(family, kind, proto)
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind(where)
        listening.listen(128)
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}): pick another --port "
            "(0: any free one) or --host"
        ) from None
    return listening


def _address(host: str, port: int, prefix: str, shown: list[str]) -> str:
    """The page to open: the run (one named), the comparison (two), else the runs."""
    name = f"[{host}]" if ":" in host else host
    page = f"{prefix}/"
    if len(shown) == 1:
        page = f"{prefix}/{shown[0]}"
    elif len(shown) == 2:
        page = f"{prefix}/compare?{urlencode([('run', r) for r in shown])}"
    return f"http://{name}:{port}{page}"
