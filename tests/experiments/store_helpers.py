"""Damaged results stores, made deterministically from real SQLite files.

``damage(path, how)`` does to a closed store what disks, copies and people do:
overwrite pages in the middle, cut the file short, or put another file in its place.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from answerx.experiments.records import ItemRecord
from answerx.experiments.store import ResultStore

Damage = Literal["pages", "truncated", "replaced"]
DAMAGES: tuple[Damage, ...] = ("pages", "truncated", "replaced")

PAGE = 4096  # SQLite's default page size, which ResultStore keeps
# The start of a PNG: what a store "replaced by another file" holds instead.
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 16


def filler_item(run_id: str, number: int, **fields: Any) -> ItemRecord:
    """A stored item with a 2 KB output, so that a few hundred fill a few hundred pages."""
    values: dict[str, Any] = {
        "run_id": run_id,
        "approach": "none",
        "strategy": "structured",
        "provider": "openai",
        "model": "gpt-test",
        "item_id": f"filler/{number:04d}",
        "dataset": "filler",
        "task": "numeric",
        "question": f"What is {number} + 1?",
        "gold": str(number + 1),
        "prompt": json.dumps([{"role": "user", "content": f"What is {number} + 1?"}]),
        "raw_output": f"Adding one. <answer>{number + 1}</answer>" + " padding" * 250,
        "extracted_answer": str(number + 1),
        "method": "answer_block",
        "confidence": 0.95,
        "calls": 1,
        "input_tokens": 100,
        "output_tokens": 500,
        "cost_usd": None,
        "latency_s": 0.1,
        "finished_at": datetime(2026, 11, 21, 14, 30, tzinfo=UTC),
    }
    values.update(fields)
    return ItemRecord(**values)


def pad_run(db: Path, run_id: str, count: int = 300) -> None:
    """Add ``count`` filler items to a stored run (the file then spans ~``count`` pages)."""
    with ResultStore(db) as store:
        store.add_items(filler_item(run_id, n) for n in range(count))


def damage(path: Path, how: Damage) -> None:
    """Damage the closed store at ``path`` (its WAL already folded into the file).

    - ``pages``: three pages at 40%, 50% and 60% of the file overwritten with a
      pattern (the header and the schema on page 1 stay intact, so it still opens);
    - ``truncated``: the file cut to half its length;
    - ``replaced``: another file (the start of a PNG) in its place.
    """
    size = path.stat().st_size
    assert size >= 20 * PAGE, "pad the store first: too few pages to damage the middle"
    if how == "pages":
        pages = size // PAGE
        with path.open("r+b") as f:
            for fraction in (0.4, 0.5, 0.6):
                f.seek(int(pages * fraction) * PAGE)
                f.write(b"\xde\xad\xbe\xef" * (PAGE // 4))
    elif how == "truncated":
        with path.open("r+b") as f:
            f.truncate(size // 2)
    else:
        path.write_bytes(PNG)
