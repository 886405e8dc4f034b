"""The run viewer as ASGI apps: :func:`runs_pages` to mount under ``/runs`` (``answerx
serve`` does, read-only, when it has a store), :func:`create_viewer_app` for
``answerx runs view`` (the same pages under ``/runs/``, so a link works with either).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

from answerx._version import __version__
from answerx.experiments.store.url import store_location
from answerx.viewer.auth import BrowserTokenMiddleware
from answerx.viewer.pages import ViewerSettings, install_problem_pages, viewer_router

__all__ = ["PREFIX", "create_viewer_app", "runs_pages"]

#: Where the pages live, standalone and in ``answerx serve`` alike.
PREFIX = "/runs"
_STATIC = Path(__file__).parent / "static"


def runs_pages(db: str | Path, *, run_ids: Sequence[str] | None = None) -> FastAPI:
    """The viewer's pages over the store at ``db`` (``run_ids``: only these runs), as an
    app to mount (its stylesheet and script served from the package, under ``static/``)."""
    app = FastAPI(
        title="answerx runs", version=__version__, docs_url=None, redoc_url=None, openapi_url=None
    )
    app.mount("/static", StaticFiles(directory=_STATIC), name="static")
    app.state.viewer = ViewerSettings(
        db=store_location(db), run_ids=tuple(run_ids) if run_ids is not None else None
    )
    app.state.figures, app.state.figures_lock = {}, threading.Lock()  # pages.py: _cached
    app.include_router(viewer_router())
    install_problem_pages(app)
    return app


def create_viewer_app(
    db: str | Path, *, run_ids: Sequence[str] | None = None, token: str | None = None
) -> FastAPI:
    """``answerx runs view``: the pages under ``/runs/`` (``/`` leads there); with a
    ``token``, a page needs it (:class:`~answerx.viewer.auth.BrowserTokenMiddleware`)."""
    app = FastAPI(
        title="answerx runs", version=__version__, docs_url=None, redoc_url=None, openapi_url=None
    )

    @app.get("/", include_in_schema=False)
    def home() -> RedirectResponse:
        return RedirectResponse(f"{PREFIX}/", status_code=303)

    app.mount(PREFIX, runs_pages(db, run_ids=run_ids))
    if token is not None:
        app.add_middleware(BrowserTokenMiddleware, token=token, prefix=PREFIX, enforce=True)
    return app
