"""The answerx HTTP service (FastAPI on uvicorn): ``answerx serve``.

``create_app(settings)`` builds the app; ``serve(host, port, ...)`` runs it;
``ServiceSettings`` holds its limits and token, read from ``ANSWERX_*``
variables. Request and response bodies live in :mod:`answerx.service.schemas`
and :mod:`answerx.service.llm_schemas`; :mod:`answerx.client` calls the service.
FastAPI and uvicorn are imported only when ``create_app`` or ``serve`` is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from answerx.service.settings import ServiceSettings

if TYPE_CHECKING:
    from answerx.service.app import create_app
    from answerx.service.server import serve

__all__ = ["ServiceSettings", "create_app", "serve"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from answerx.service.app import create_app

        return create_app
    if name == "serve":
        from answerx.service.server import serve

        return serve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
