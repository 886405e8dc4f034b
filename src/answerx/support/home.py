"""Where answerx keeps the user's state: ``$ANSWERX_HOME``, else ``./runs``.

The default results store (``answerx.db``), its response cache (``cache.db``,
beside the store) and the reports (``reports/RUN_ID``) live there unless a
config or an option names other paths. Read at each call, not at import, so a
changed environment (a test, a service started elsewhere) is honoured.

A bottom-layer utility (standard library only): the CLI reads it without loading
the experiments package.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["HOME_ENV", "answerx_home", "default_db", "default_report_dir"]

#: The environment variable naming the folder of answerx's state.
HOME_ENV = "ANSWERX_HOME"


def answerx_home() -> Path:
    """``$ANSWERX_HOME``, or ``runs`` (relative to the working directory) when unset."""
    return Path(os.environ.get(HOME_ENV) or "runs")


def default_db() -> Path:
    """The default results store: ``answerx.db`` in :func:`answerx_home`."""
    return answerx_home() / "answerx.db"


def default_report_dir() -> Path:
    """The default folder of reports: ``reports`` in :func:`answerx_home`."""
    return answerx_home() / "reports"
