"""``answerx serve``: the HTTP service on uvicorn (FastAPI is imported only when it starts)."""

from __future__ import annotations

from typing import Annotated

import typer

from answerx.cli._common import command_boundary

__all__ = ["HELP", "serve_command"]

HELP = (
    "Serve the HTTP API (POST /v1/extract, /v1/extract/batch, /v1/extract/structured, /v1/ask, "
    "/v1/verify, /v1/verify/batch, and /v1/reward: OpenRLHF's remote reward, "
    "--remote_rm_url http://HOST:PORT/v1/reward --label_key <gold column>, its task set by "
    "--reward-task; docs at /docs). Settings from ANSWERX_API_TOKEN, ANSWERX_MAX_BODY_BYTES, "
    "ANSWERX_MAX_BATCH, "
    "ANSWERX_LLM_TIMEOUT_S, ANSWERX_LLM_CONCURRENCY, ANSWERX_RETRY_AFTER_S, "
    "ANSWERX_EXTRACT_WORKERS, ANSWERX_HEADER_TIMEOUT_S, ANSWERX_KEEP_ALIVE_S, "
    "ANSWERX_MAX_CONNECTIONS, ANSWERX_ALLOWED_HOSTS, ANSWERX_RUNS_DB (that results store's runs "
    "shown read-only under /runs/, as answerx runs view); provider keys from their usual "
    "variables. A non-loopback --host needs an ANSWERX_API_TOKEN of 16+ characters; without a "
    "token only requests for localhost, 127.0.0.1 and [::1] are answered unless --allowed-host "
    "says otherwise. Stops gracefully on SIGTERM or Ctrl-C (exit status 0)."
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
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="A Host name to answer besides localhost, 127.0.0.1 and [::1] (repeatable; "
            "'*.example.com' for subdomains, '*' for any). Without a token, requests naming "
            "another host are refused (a web page cannot drive the server by DNS rebinding).",
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes (about one per CPU core).")
    ] = 1,
    access_log: Annotated[
        bool, typer.Option("--access-log", help="Log every request (slower).")
    ] = False,
    reward_task: Annotated[
        str | None,
        typer.Option(help="/v1/reward's task when a request names none (default auto)."),
    ] = None,
    reward_choices_field: Annotated[
        str | None, typer.Option(help="/v1/reward: the label-object field with the options.")
    ] = None,
    reward_numbers_field: Annotated[
        str | None, typer.Option(help="/v1/reward: the label-object field with game24 numbers.")
    ] = None,
) -> None:
    """Serve the answerx HTTP API until SIGTERM or Ctrl-C."""
    with command_boundary():
        from answerx.service.verify_api import configure_reward

        # Through the environment, so that every worker process reads the same.
        configure_reward(
            task=reward_task, choices_field=reward_choices_field, numbers_field=reward_numbers_field
        )
        from answerx.service.server import serve

        serve(
            host,
            port,
            allow_unauthenticated=allow_unauthenticated,
            allowed_hosts=allowed_host or (),
            workers=workers,
            access_log=access_log,
        )
