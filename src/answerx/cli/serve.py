"""``answerx serve``: the HTTP service on uvicorn (FastAPI is imported only when it starts)."""

from __future__ import annotations

from typing import Annotated

import typer

from answerx.cli._common import command_boundary

__all__ = ["HELP", "serve_command"]

HELP = (
    "Serve the HTTP API (POST /v1/extract, /v1/extract/batch, /v1/extract/structured, /v1/ask; "
    "docs at /docs). Settings from ANSWERX_API_TOKEN, ANSWERX_MAX_BODY_BYTES, ANSWERX_MAX_BATCH, "
    "ANSWERX_LLM_TIMEOUT_S, ANSWERX_LLM_CONCURRENCY, ANSWERX_RETRY_AFTER_S, "
    "ANSWERX_EXTRACT_WORKERS, ANSWERX_HEADER_TIMEOUT_S, ANSWERX_KEEP_ALIVE_S, "
    "ANSWERX_MAX_CONNECTIONS; provider keys from their usual variables. ANSWERX_RUNS_DB=PATH "
    "shows that results store's runs read-only under /runs/ (as answerx runs view). A non-loopback "
    "--host needs an ANSWERX_API_TOKEN of 16+ characters. Stops gracefully on SIGTERM or "
    "Ctrl-C (exit status 0)."
)


def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    allow_unauthenticated: Annotated[
        bool,
        typer.Option(
            "--allow-unauthenticated",
            help="Listen on a non-loopback address without ANSWERX_API_TOKEN (anyone who "
            "reaches the server can then use its provider credentials).",
        ),
    ] = False,
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes (about one per CPU core).")
    ] = 1,
    access_log: Annotated[
        bool, typer.Option("--access-log", help="Log every request (slower).")
    ] = False,
) -> None:
    """Serve the answerx HTTP API until SIGTERM or Ctrl-C."""
    with command_boundary():
        from answerx.service.server import serve

        serve(
            host,
            port,
            allow_unauthenticated=allow_unauthenticated,
            workers=workers,
            access_log=access_log,
        )
