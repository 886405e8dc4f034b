"""docs/SEEDS.md: every behaviour row names a test that exists, and says same or differs."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "docs" / "SEEDS.md"
_TEST = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")
_ROW = re.compile(r"^\| ([DTUGI]\d+) \|(.*)\|\s*$", re.MULTILINE)


@cache
def _tests_of(path: str) -> frozenset[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    )


def _rows() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _ROW.finditer(SEEDS.read_text(encoding="utf-8"))]


def test_every_row_names_a_test_that_exists() -> None:
    rows = _rows()
    assert len(rows) >= 43

    missing = [
        f"{row}: {path}::{name}"
        for row, text in rows
        for path, name in _TEST.findall(text)
        if not (ROOT / path).is_file() or name not in _tests_of(path)
    ]
    assert missing == []
    assert [row for row, text in rows if not _TEST.search(text)] == []


def test_every_row_says_same_or_differs_and_rows_are_numbered_once() -> None:
    rows = _rows()
    verdicts = [text.rsplit("|", 1)[-1].strip() for _, text in rows]

    assert [r for (r, _), v in zip(rows, verdicts, strict=True) if not v.startswith(
        ("same", "differs", "answerx follows"))] == []  # fmt: skip
    assert len({row for row, _ in rows}) == len(rows)


def test_the_count_at_the_end_matches_the_table() -> None:
    rows = _rows()
    verdicts = [text.rsplit("|", 1)[-1].strip() for _, text in rows]
    differ = sum(v.startswith("differs") for v in verdicts)
    text = SEEDS.read_text(encoding="utf-8")

    assert f"{len(rows)} behaviours" in text
    assert f"{len(rows) - differ} are the same" in text and f"{differ} differ" in text
