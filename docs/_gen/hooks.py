"""MkDocs hooks: fill the generated reference pages at build time.

A page holds a marker comment where the generated part goes, so its introduction is
written by hand and its tables come from the code (``reference.py``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent


def _reference() -> Any:
    # Loaded by path: docs/_gen is not a package, and MkDocs loads this file the same way.
    spec = importlib.util.spec_from_file_location("answerx_docs_reference", _HERE / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


MARKERS = {
    "<!-- generated: cli reference -->": "render_cli",
    "<!-- generated: configuration reference -->": "render_config",
}


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each marker with the reference it names."""
    for marker, renderer in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, getattr(_reference(), renderer)())
    return markdown
