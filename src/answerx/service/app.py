"""``create_app(settings) -> FastAPI``: the answerx HTTP service.

Requests pass, outermost first: metrics (counts and times everything, errors
included) → the error boundary (a bug becomes a JSON 500, never a traceback)
→ bearer authentication (when a token is set) → the body-size limit → FastAPI's
routing and exception handlers. Everything is per app: settings, metrics
registry, LLM managers, so two apps in one process (tests) never share state.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute

from answerx import __version__
from answerx.service.auth import OPEN_PATHS, BearerAuthMiddleware
from answerx.service.errors import ErrorBoundaryMiddleware, install_exception_handlers
from answerx.service.extract_api import BATCH_REQUEST_REF, extract_router
from answerx.service.limits import BodySizeLimitMiddleware
from answerx.service.llm import LLMGateway
from answerx.service.llm_api import llm_router
from answerx.service.meta_api import meta_router
from answerx.service.metrics import MetricsMiddleware, ServiceMetrics
from answerx.service.schemas import BatchRequest
from answerx.service.settings import ServiceSettings

__all__ = ["create_app"]

_DESCRIPTION = """\
The clean final answer out of raw LLM reasoning output, and how it was found.

* `/v1/extract`, `/v1/extract/batch`: deterministic extraction, no LLM involved.
* `/v1/extract/structured`, `/v1/ask`: call a provider configured on the server, with the
  server's own credentials.

Every error is JSON: `{"error": {"type": "...", "message": "..."}}`.
"""


def create_app(settings: ServiceSettings | None = None) -> FastAPI:
    """The service, configured by ``settings`` (default: from ``ANSWERX_*`` variables).

    For ``uvicorn --factory answerx.service.app:create_app``, which reads the environment.
    """
    settings = settings if settings is not None else ServiceSettings.from_env()
    metrics = ServiceMetrics()
    gateway = LLMGateway(settings, metrics)

    app = FastAPI(
        title="answerx",
        version=__version__,
        description=_DESCRIPTION,
        openapi_tags=[
            {"name": "extraction", "description": "Deterministic extraction (fast, no LLM)."},
            {"name": "llm", "description": "Endpoints that call an LLM provider."},
            {"name": "metadata", "description": "Names the other endpoints accept."},
            {"name": "operations", "description": "Health, readiness and metrics."},
        ],
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.gateway = gateway
    routers = (
        extract_router(settings, metrics),
        llm_router(gateway),
        meta_router(metrics, gateway),
    )
    for router in routers:
        app.include_router(router)
    install_exception_handlers(app)

    # add_middleware puts each one outside the ones added before it.
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes)
    if settings.api_token is not None:
        app.add_middleware(BearerAuthMiddleware, token=settings.api_token)
    app.add_middleware(ErrorBoundaryMiddleware)
    paths = frozenset(
        r.path for router in routers for r in router.routes if isinstance(r, APIRoute)
    )
    app.add_middleware(MetricsMiddleware, metrics=metrics, endpoints=paths)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _openapi(app, settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _openapi(app: FastAPI, settings: ServiceSettings) -> dict[str, Any]:
    """FastAPI's schema, plus the batch body (parsed by hand, see extract_api) and,
    when a token is set, the bearer scheme on every path that needs it."""
    from fastapi.openapi.utils import get_openapi

    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    batch = BatchRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    for name, definition in batch.pop("$defs", {}).items():
        components.setdefault(name, definition)
    components[BATCH_REQUEST_REF.rsplit("/", 1)[-1]] = batch
    _plain_tuples(schema)
    if settings.api_token is not None:
        schema["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        for path, operations in schema["paths"].items():
            if path not in OPEN_PATHS:
                for operation in operations.values():
                    operation["security"] = [{"bearer": []}]
    return schema


def _plain_tuples(node: Any) -> None:
    """Write a tuple of one type (``span``: two integers) as an array of that type with a
    fixed length instead of ``prefixItems``: the same constraint, which OpenAPI 3.0
    tools and schemathesis' response validation (its 4.x releases) read correctly."""
    if isinstance(node, dict):
        items = node.get("prefixItems")
        if isinstance(items, list) and items and all(item == items[0] for item in items):
            del node["prefixItems"]
            node.update(items=items[0], minItems=len(items), maxItems=len(items))
        for value in node.values():
            _plain_tuples(value)
    elif isinstance(node, list):
        for value in node:
            _plain_tuples(value)
