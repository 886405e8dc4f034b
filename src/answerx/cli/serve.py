"""``answerx serve``: the HTTP service on uvicorn (FastAPI is imported only when it starts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from answerx.cli._common import command_boundary

if TYPE_CHECKING:
    from answerx.service.settings import ServiceSettings

__all__ = ["HELP", "serve_command", "serve_settings"]

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
    "says otherwise. --judge PROVIDER/MODEL (ANSWERX_JUDGE) gives /v1/verify and "
    "/v1/verify/batch an LLM judge for the items the rules cannot decide, with the server's "
    "credentials and budget (--judge-max-calls, --judge-max-cost: per worker process); a "
    "request can decline it, never choose it. Stops gracefully on SIGTERM or Ctrl-C "
    "(exit status 0)."
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
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            metavar="PROVIDER/MODEL",
            show_default=False,
            help="The LLM judge /v1/verify asks about the items the rules cannot decide "
            "(ANSWERX_JUDGE).",
        ),
    ] = None,
    judge_max_calls: Annotated[
        int | None,
        typer.Option(min=0, show_default=False, help="The judge's questions per worker, at most."),
    ] = None,
    judge_max_cost: Annotated[
        float | None,
        typer.Option(
            min=0.0, metavar="USD", show_default=False, help="The judge's cost cap per worker."
        ),
    ] = None,
    judge_concurrency: Annotated[
        int | None,
        typer.Option(min=1, show_default=False, help="Judge calls in flight per worker (4)."),
    ] = None,
    judge_min_confidence: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            show_default=False,
            help="A judge's ruling below this confidence leaves the rules' verdict (0.5).",
        ),
    ] = None,
) -> None:
    """Serve the answerx HTTP API until SIGTERM or Ctrl-C."""
    with command_boundary():
        settings = serve_settings(
            reward={"task": reward_task, "choices_field": reward_choices_field,
                    "numbers_field": reward_numbers_field},
            judge=judge, judge_max_calls=judge_max_calls, judge_max_cost_usd=judge_max_cost,
            judge_concurrency=judge_concurrency, judge_min_confidence=judge_min_confidence,
        )  # fmt: skip
        from answerx.service.server import serve

        serve(
            host,
            port,
            settings=settings,
            allow_unauthenticated=allow_unauthenticated,
            allowed_hosts=allowed_host or (),
            workers=workers,
            access_log=access_log,
        )


def serve_settings(reward: dict[str, str | None], **judge: Any) -> ServiceSettings:
    """The ``ANSWERX_*`` settings with the command's options over them, handed to the server
    (never written into the environment). The judge is built once here: a provider without
    a key, or a cost cap without a price, fails before the server starts."""
    from answerx.service.judge import server_judge
    from answerx.service.metrics import ServiceMetrics
    from answerx.service.settings import ServiceSettings

    base = ServiceSettings.from_env()
    settings = base.updated(reward=base.reward.updated(**reward), **judge)
    limits = {name: value for name, value in judge.items() if name != "judge"}
    if settings.judge is None and any(value is not None for value in limits.values()):
        from answerx.cli._common import ExitCode, fail

        fail("--judge-max-calls/--judge-max-cost/--judge-concurrency/--judge-min-confidence "
             "need --judge", ExitCode.USAGE)  # fmt: skip
    server_judge(settings, ServiceMetrics())
    return settings
