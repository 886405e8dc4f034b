"""The run viewer's items pages on a PostgreSQL store at 100,000 items (issue 42: the
viewer's filtered pages stay <= 200 ms on a server too).

    python bench/viewer_postgres.py [--items 100000] [--requests 7]

Starts a PostgreSQL server in a temporary folder (``tests/postgres_server.py``, as the
tests start one; skipped, saying why, where none can be had), fills it with the synthetic
run of ``bench/viewer.py`` (``viewer_data.py``), then times the same items pages served by
the viewer's app in this process over the server: median and best of ``--requests``
after one warm-up request. ``bench/viewer.py`` times them, and much more, on SQLite.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from answerx.experiments.store import ResultStore
from answerx.viewer import create_viewer_app
from viewer_data import items_pages, synthetic_run, timed

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from postgres_server import start_server, unavailable

TARGET_MS = 200


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=7)
    args = parser.parse_args(argv)
    why = unavailable()
    if why is not None:
        print(f"skipped: PostgreSQL cannot be had here: {why}")
        return 0
    import psycopg

    server = start_server()
    try:
        with psycopg.connect(server.url(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE bench")
        url = server.url("bench")
        started = time.perf_counter()
        run_id = synthetic_run(url, args.items)
        with psycopg.connect(url, autocommit=True) as db:
            # What autovacuum does soon after a bulk load: the statistics, and the
            # visibility map that lets a count read the browsing index alone.
            db.execute("VACUUM ANALYZE")
            size = db.execute("SELECT pg_database_size('bench')").fetchone()
        print(
            f"store: {args.items:,} items on PostgreSQL, {size[0] / 1e6:,.0f} MB "
            f"(built in {time.perf_counter() - started:.0f} s)"
        )
        with ResultStore.open(url, "read_only") as store:
            row = store.item_page(run_id, None, offset=args.items // 2, limit=1).rows[0].row
        client = TestClient(create_viewer_app(url))

        def get(page: str) -> Callable[[], object]:
            def fetch() -> object:
                response = client.get(page)
                assert response.status_code == 200, (page, response.status_code)
                return response

            return fetch

        pages = items_pages(run_id, row)
        measured = {name: timed(get(page), args.requests) for name, page in pages.items()}
    finally:
        server.stop()
    print(f"\nserved page time, median (best) of {args.requests}; target {TARGET_MS} ms")
    for name, (median, best) in measured.items():
        print(f"  {name:52} {median:7,.1f} ms ({best:,.1f})")
    filters_ok = all(m <= TARGET_MS for n, (m, _) in measured.items() if n.startswith("items,"))
    print(f"every items page within {TARGET_MS} ms: {'yes' if filters_ok else 'NO'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
