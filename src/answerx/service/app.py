"""``create_app(settings) -> FastAPI``: the answerx HTTP service.

Requests pass, outermost first: metrics (counts and times everything, errors
included) → the error boundary (a bug becomes a JSON 500, never a traceback)
→ the ``Host`` check (unless a token and no ``ANSWERX_ALLOWED_HOSTS``: against
DNS rebinding) → bearer authentication (when a token is set) → the body-size
limit → FastAPI's routing and exception handlers. Everything is per app:
settings, metrics registry, LLM managers, so two apps in one process (tests)
never share state.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute

from answerx._version import __version__
from answerx.service.auth import BearerAuthMiddleware
from answerx.service.errors import ErrorBoundaryMiddleware, install_exception_handlers
from answerx.service.extract_api import extract_router
from answerx.service.hosts import AllowedHostsMiddleware
from answerx.service.limits import BodySizeLimitMiddleware
from answerx.service.llm import LLMGateway
from answerx.service.llm_api import llm_router
from answerx.service.meta_api import meta_router
from answerx.service.metrics import MetricsMiddleware, ServiceMetrics
from answerx.service.openapi import build_openapi
from answerx.service.settings import ServiceSettings
from answerx.service.verify_api import verify_router

__all__ = ["create_app"]

_DESCRIPTION = """\
The clean final answer out of raw LLM reasoning output, and how it was found.

* `/v1/extract`, `/v1/extract/batch`: deterministic extraction, no LLM involved.
* `/v1/verify`, `/v1/verify/batch`: is the answer right? `/v1/reward`: OpenRLHF's remote reward.
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
            {"name": "verification", "description": "Verdicts against gold answers, rewards."},
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
        verify_router(settings, metrics),
    )
    for router in routers:
        app.include_router(router)
    install_exception_handlers(app)
    if settings.runs_db is not None:  # the run viewer's pages, read-only
        # Imported only then: the viewer brings the experiments layer (a second to load).
        from answerx.viewer import PREFIX, BrowserTokenMiddleware, runs_pages

        app.mount(PREFIX, runs_pages(settings.runs_db))

    # add_middleware puts each one outside the ones added before it.
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes)
    if settings.api_token is not None:
        app.add_middleware(BearerAuthMiddleware, token=settings.api_token)
        if settings.runs_db is not None:  # a browser's token: ?token= once, then a cookie
            token = settings.api_token.get_secret_value()
            app.add_middleware(BrowserTokenMiddleware, token=token, prefix=PREFIX, enforce=False)
    if settings.accepted_hosts is not None:
        app.add_middleware(AllowedHostsMiddleware, hosts=settings.accepted_hosts)
    app.add_middleware(ErrorBoundaryMiddleware)
    paths = frozenset(
        r.path for router in routers for r in router.routes if isinstance(r, APIRoute)
    )
    app.add_middleware(MetricsMiddleware, metrics=metrics, endpoints=paths)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build_openapi(app, settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
