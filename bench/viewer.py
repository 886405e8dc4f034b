"""What the run viewer's pages cost on a 100,000-item run (issue 28: a filtered page of the
items table in <= 200 ms, memory flat; issue 41: the comparison pages in <= 300 ms, an
export of every item streamed in flat memory).

    python bench/viewer.py [--items 100000] [--requests 7]

Builds a temporary store holding one synthetic run (``viewer_data.py``: four approaches,
~2.5 KB outputs with their conversations, every third item wrong, one in twenty cut off),
then times whole pages served by the viewer's app in this process (routing, SQLite,
templates: what a browser waits for, less the network), median and best of
``--requests`` after one warm-up request. A run's figures (the run page, the items
list's filter choices) are counted once per change of the store and kept: their first
load, by a fresh app each time, is timed apart. Side by side, in the same process:

- the same filtered page read through what the store offered before the viewer
  (``ResultStore.items(run_id, **filters)``, then a page sliced from it), and
- the same pages without the browsing index (dropped from the bench's own store at the
  end), as an older store read read-only has them.

Memory: the Python heap's peak during one filtered page (tracemalloc), and the process's
resident memory before and after 200 filtered pages (flat: the pages hold nothing).
"""

from __future__ import annotations

import argparse
import resource
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from answerx.experiments.store import ResultStore
from answerx.experiments.store.browse import ItemQuery
from answerx.viewer import create_viewer_app
from answerx.viewer.export import stream_items
from viewer_data import items_pages, synthetic_run, timed

TARGET_MS = 200
COMPARE_TARGET_MS = 300  # issue 41: the comparison pages


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="answerx-bench-viewer-") as folder:
        db = Path(folder) / "answerx.db"
        started = time.perf_counter()
        run_id = synthetic_run(db, args.items)
        print(
            f"store: {args.items:,} items, {db.stat().st_size / 1e6:,.0f} MB "
            f"(built in {time.perf_counter() - started:.0f} s)"
        )
        client = TestClient(create_viewer_app(db))
        with ResultStore(db, read_only=True) as store:
            row = store.item_page(run_id, None, offset=args.items // 2, limit=1).rows[0].row
        base = f"/runs/{run_id}"
        arms = "&".join(
            f"arm={run_id}%7C{approach}%7Ctwo_stage%7Copenai%7Cgpt-bench"
            for approach in ("none", "tree_of_thought")
        )
        pages = {
            **items_pages(run_id, row),
            "runs page": "/runs/",
            "items, search in every raw output": f"{base}/items?q=wait,+1234+",
            "charts page (9 charts, each bar a link)": f"{base}/charts",
            "arms compared (none vs tree), where they differ": f"/runs/arms?{arms}",
            "arms compared, A right B wrong, page 40": f"/runs/arms?{arms}&show=a_only&page=40",
            "arms compared, one question (both outputs, word diff)": f"/runs/arms/question"
            f"?{arms}&at=500",
        }

        def get(url: str) -> Callable[[], object]:
            def fetch() -> object:
                response = client.get(url)
                assert response.status_code == 200, (url, response.status_code)
                return response

            return fetch

        measured = {name: timed(get(url), args.requests) for name, url in pages.items()}
        filtered = pages["items, tree_of_thought wrong, page 1"]

        def first_load(url: str) -> Callable[[], object]:
            def fetch() -> object:
                with TestClient(create_viewer_app(db)) as fresh:  # nothing counted yet
                    assert fresh.get(url).status_code == 200

            return fetch

        first = {
            name: timed(first_load(pages[name]), max(1, args.requests // 2))
            for name in ("items, tree_of_thought wrong, page 1",
                         "run page (accuracy, comparisons, breakdowns)",
                         "charts page (9 charts, each bar a link)",
                         "arms compared (none vs tree), where they differ")
        }  # fmt: skip

        # Before the viewer: the store's only way to a filtered page read every match.
        def before() -> object:
            with ResultStore(db, read_only=True) as store:
                found = list(store.items(run_id, approach="tree_of_thought", correct=False))
                return len(found), found[:50]

        old_median, _ = timed(before, max(1, args.requests // 3))
        tracemalloc.start()
        get(filtered)()
        page_peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.reset_peak()
        before()
        old_peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        rss_before = _rss_mb()
        for _ in range(200):
            get(filtered)()
        rss_after = _rss_mb()

        # The whole run exported as CSV through the viewer's stream (what a download
        # reads): its time, and the Python heap's peak while it streams (flat: chunks).
        tracemalloc.start()
        started = time.perf_counter()
        exported = sum(len(c) for c in stream_items(db, run_id, ItemQuery(), "csv"))
        export_s = time.perf_counter() - started
        export_peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()

        # The same pages without the browsing index (an older store read read-only).
        plain = sqlite3.connect(db)
        plain.execute("DROP INDEX items_browse")
        plain.execute("DROP INDEX items_pair")
        plain.close()
        without = {
            name: timed(get(url), max(1, args.requests // 3))
            for name, url in pages.items()
            if name.startswith("items,") and "search" not in name
        }

    print(f"\nserved page time, median (best) of {args.requests}; target {TARGET_MS} ms")
    for name, (median, best) in measured.items():
        note = ""
        if name in without:
            note = f" | without the browsing index: {without[name][0]:,.0f} ms"
        if name == "items, tree_of_thought wrong, page 1":
            note += f" | store.items() then a slice: {old_median:,.0f} ms"
        print(f"  {name:52} {median:7,.1f} ms ({best:,.1f}){note}")
    for name, (median, best) in first.items():
        print(f"  first load, {name:41} {median:7,.1f} ms ({best:,.1f})")
    wrong = measured["items, tree_of_thought wrong, page 1"][0]
    print(
        f"\nfiltered page vs reading the matches through store.items(): "
        f"{old_median / wrong:,.0f}x faster"
    )
    print(
        f"memory: one filtered page peaks at {page_peak:,.1f} MB of Python heap "
        f"(store.items(): {old_peak:,.0f} MB); resident {rss_before:,.0f} MB before 200 "
        f"filtered pages, {rss_after:,.0f} MB after"
    )
    print(
        f"export: all {args.items:,} items as CSV, {exported / 1e6:,.0f} MB streamed in "
        f"{export_s:,.1f} s; Python heap peak while streaming {export_peak:,.1f} MB"
    )
    compared = [median for name, (median, _) in measured.items() if name.startswith("arms")]
    print(
        f"every comparison and chart page within {COMPARE_TARGET_MS} ms: "
        f"{'yes' if max(compared) <= COMPARE_TARGET_MS else 'NO'}"
    )
    filters_ok = all(
        median <= TARGET_MS
        for name, (median, _) in measured.items()
        if name.startswith("items,") and "search" not in name
    )
    print(f"every filtered items page within {TARGET_MS} ms: {'yes' if filters_ok else 'NO'}")
    return 0 if filters_ok else 1


if __name__ == "__main__":
    sys.exit(main())
