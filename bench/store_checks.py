"""What the results store's damage checks cost: ``runs list`` and ``runs show`` count items
from the rows themselves (issue 30 §6), against the index-only count they used before, a
whole-file ``PRAGMA quick_check``, and reading a run's items as ``report``/``export`` do.

    python bench/store_checks.py [--runs 3] [--items 15000]

Builds a temporary store of ``runs`` x ``items`` items of about 2 KB each (the size of
a reasoning output), then times each way of reading it (best of 3, after a first pass
that warms the OS page cache).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from answerx.experiments.records import ItemRecord
from answerx.experiments.store import ResultStore


def _item(run_id: str, number: int) -> ItemRecord:
    return ItemRecord(
        run_id=run_id,
        approach="none",
        strategy="structured",
        provider="openai",
        model="gpt-bench",
        item_id=f"bench/{number:06d}",
        question=f"What is {number} + 1?",
        gold=str(number + 1),
        raw_output=f"Adding one. <answer>{number + 1}</answer>" + " padding" * 250,
        extracted_answer=str(number + 1),
        finished_at=datetime(2026, 11, 21, tzinfo=UTC),
    )


def _best(action: Callable[[], object], times: int = 3) -> float:
    action()  # warm the page cache
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--items", type=int, default=15_000, help="items per run")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="answerx-bench-") as folder:
        path = Path(folder) / "answerx.db"
        with ResultStore(path) as store:
            runs = [store.start_run(f"run-{i}", {}, "0" * 64).run_id for i in range(args.runs)]
            for run_id in runs:
                store.add_items(_item(run_id, n) for n in range(args.items))
        size = path.stat().st_size / 1e6
        with ResultStore(path) as store:
            index = _best(lambda: [store.count_items(r) for r in runs])
            listed = _best(store.item_counts)
            shown = _best(lambda: store.item_counts([runs[-1]]))
            read = _best(lambda: sum(1 for _ in store.items(runs[-1])), times=1)
        db = sqlite3.connect(path)
        checked = _best(lambda: db.execute("PRAGMA quick_check").fetchall(), times=1)
        db.close()
    print(f"store: {args.runs} runs x {args.items:,} items, {size:.0f} MB")
    print("| read | ms | vs index-only count |")
    print("|---|---:|---:|")
    for label, seconds in (
        ("index-only counts of every run (runs list before)", index),
        ("rows of every run counted (runs list)", listed),
        ("rows of one run counted (runs show)", shown),
        ("PRAGMA quick_check of the file", checked),
        ("one run's items read whole (report, export)", read),
    ):
        print(f"| {label} | {seconds * 1000:,.1f} | {seconds / index:,.0f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
