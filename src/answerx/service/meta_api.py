"""What the service offers and how it is: approaches, tasks, health, readiness, metrics."""

from __future__ import annotations

from typing import Final, get_args

from fastapi import APIRouter
from starlette.responses import Response

from answerx._version import __version__
from answerx.extraction import TASKS, extract
from answerx.reasoning.response import Strategy
from answerx.service.asgi import JSON
from answerx.service.errors import ApiError, error_response, error_responses
from answerx.service.llm import LLMGateway
from answerx.service.metrics import CONTENT_TYPE_LATEST, ServiceMetrics
from answerx.service.openapi import example_response
from answerx.service.schemas import (
    ApproachesResponse,
    HealthResponse,
    ReadyResponse,
    TasksResponse,
)
from answerx.structured import Approach

__all__ = ["meta_router"]

_STRATEGIES: Final = list(get_args(Strategy))
# /v1/ask and /v1/extract/structured take these (the search loops need an index).
_APPROACHES: Final = list(get_args(Approach))
_METRICS_EXAMPLE: Final = (
    "# HELP answerx_http_requests_total HTTP requests served.\n"
    "# TYPE answerx_http_requests_total counter\n"
    'answerx_http_requests_total{endpoint="/v1/extract",method="POST",status="200"} 42.0\n'
)


def meta_router(metrics: ServiceMetrics, gateway: LLMGateway) -> APIRouter:
    """The metadata and operations endpoints of one app."""
    router = APIRouter()

    @router.get(
        "/v1/approaches",
        response_model=ApproachesResponse,
        tags=["metadata"],
        summary="Reasoning approaches, strategies and configured providers",
        responses=error_responses(401),
    )
    async def approaches() -> ApproachesResponse:
        """The names ``approach``, ``strategy`` and ``provider`` accept."""
        return ApproachesResponse(
            approaches=_APPROACHES,
            strategies=_STRATEGIES,
            providers=gateway.provider_names(),
        )

    @router.get(
        "/v1/tasks",
        response_model=TasksResponse,
        tags=["metadata"],
        summary="Task names",
        responses=error_responses(401),
    )
    async def tasks() -> TasksResponse:
        """The names ``task`` accepts; ``auto`` detects the task from the output."""
        return TasksResponse(tasks=list(TASKS), default="auto")

    @router.get("/healthz", response_model=HealthResponse, tags=["operations"], summary="Liveness")
    async def healthz() -> HealthResponse:
        """200 while the process answers (no token needed)."""
        return HealthResponse(status="ok", version=__version__)

    @router.get(
        "/readyz",
        response_model=ReadyResponse,
        tags=["operations"],
        summary="Readiness",
        responses={503: {"description": "Not ready: the provider configuration is broken."}},
    )
    async def readyz() -> Response:
        """200 when the provider configuration loads and extraction runs (no token
        needed); 503 otherwise."""
        try:
            gateway.provider_names()
        except ApiError as exc:
            return error_response(503, "not_ready", exc.message)
        if extract("The answer is 4.").answer != "4":  # pragma: no cover - a broken install
            return error_response(503, "not_ready", "extraction does not work")
        ready = ReadyResponse(
            status="ready",
            llm_calls_in_flight=gateway.slots.in_flight,
            llm_concurrency=gateway.slots.limit,
        )
        return Response(ready.model_dump_json(), media_type=JSON)

    @router.get(
        "/metrics",
        tags=["operations"],
        summary="Prometheus metrics",
        response_class=Response,
        responses={
            **example_response(_METRICS_EXAMPLE, CONTENT_TYPE_LATEST),
            **error_responses(401),
        },
    )
    async def prometheus_metrics() -> Response:
        """Requests, latency, extraction methods and LLM tokens, in the Prometheus text
        format (this worker's counts)."""
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    return router
