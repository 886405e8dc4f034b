"""``answerx runs view``: a local web viewer of experiment runs.

Server-rendered pages (FastAPI + Jinja2, a few lines of plain JavaScript, every asset
served from the package: it works offline) over the results store, read-only: the
runs, a run's accuracy by approach × strategy × model with Wilson intervals, paired
comparisons and breakdowns, its items filtered, sorted, searched and paged in SQLite,
and each item with its whole conversation, the answer's span highlighted in the raw
output, the extraction's rule and the verdict's reason.
"""

from __future__ import annotations

from answerx.viewer.app import PREFIX, create_viewer_app, runs_pages
from answerx.viewer.auth import BrowserTokenMiddleware

__all__ = ["PREFIX", "BrowserTokenMiddleware", "create_viewer_app", "runs_pages"]
