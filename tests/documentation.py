"""The documentation's text, for tests that check what it says against the code.

The README is the front page; everything else lives in the site's pages under docs/
(issue 43). A test that checks "the docs say X" reads all of it, so moving a paragraph
from one page to another never breaks it.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def documentation_pages() -> list[Path]:
    """README.md and every Markdown page under docs/ (not the generator's folder)."""
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "_gen" not in p.parts)
    return [ROOT / "README.md", *docs]


def documentation_text() -> str:
    """The text of every documentation page, one after the other."""
    return "\n\n".join(p.read_text(encoding="utf-8") for p in documentation_pages())
