"""CSV reading speed of the record-file layer against the answerx under another folder.

    python bench/recordfiles.py --compare /work/base/src --rows 200000

Reads one CSV file of corpus outputs (``../shared/data/corpus``: real generations,
many of them multi-line quoted cells, repeated to ``--rows`` rows) with the CSV
reader of this answerx (``answerx.recordfiles.csvfile.CsvReader``, which also
checks that every quote is in place before pyarrow parses a block) and with the
one of the answerx under ``--compare`` (``answerx.batch.files._CsvReader`` at
commit 0655c9a), both in this process, one after the other, alternating which
goes first, ``--passes`` times. Prints MB/s and rows/s of each (the best pass)
and the ratio this/before. Only the reading is timed: no extraction. Then a
whole run, ``run_file`` CSV to JSONL on one worker over the first ``--run-rows``
rows, the same way: what the reading's share of a run comes to.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import io
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def build_csv(rows: int, work: Path, seed: int = 20261126) -> Path:
    """``rows`` rows (id, task, raw_output) of corpus outputs, quoted where needed."""
    from corpus import CORPUS_FILES, load  # type: ignore[import-not-found]

    path = work / f"records-{rows}.csv"
    if path.exists():
        return path
    items = [item for name in CORPUS_FILES for item in load(name)]
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "task", "raw_output"])
        for i in range(rows):
            item = items[rng.randrange(len(items))]
            writer.writerow([i, item.task, item.raw_output])
    return path


def _load(src: str, module: str) -> Any:
    """``module`` of the answerx under ``src``, loaded beside this one (the modules are
    swapped out of ``sys.modules`` and back)."""
    mine = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split(".")[0] == "answerx"}
    sys.path.insert(0, src)
    try:
        return importlib.import_module(module)
    finally:
        sys.path.remove(src)
        for k in [k for k in sys.modules if k.split(".")[0] == "answerx"]:
            del sys.modules[k]
        sys.modules.update(mine)


def read_before(files: Any, data: bytes) -> int:
    stream = io.BytesIO(data)
    names, head = files._read_header(stream, "bench")
    return sum(
        piece.job.batch.num_rows
        for piece in files._CsvReader(stream, names, head, 1024)
        if piece.job is not None
    )


def read_now(data: bytes) -> int:
    from answerx.recordfiles.csvfile import CsvReader

    return sum(
        block.rows.num_rows
        for block in CsvReader(io.BytesIO(data), where="bench")
        if block.rows is not None
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compare", required=True, help="the src/ folder of the answerx before")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--run-rows", type=int, default=20_000)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "answerx-bench")
    args = ap.parse_args()

    data = build_csv(args.rows, args.work).read_bytes()
    before = _load(args.compare, "answerx.batch.files")
    readers: dict[str, Callable[[], int]] = {
        "before": lambda: read_before(before, data),
        "now": lambda: read_now(data),
    }
    counts = {name: read() for name, read in readers.items()}  # warm both
    assert counts["before"] == counts["now"] == args.rows, counts
    times: dict[str, list[float]] = {name: [] for name in readers}
    for p in range(args.passes):
        order = list(readers) if p % 2 == 0 else list(reversed(readers))
        for name in order:
            started = time.perf_counter()
            readers[name]()
            times[name].append(time.perf_counter() - started)
    mb = len(data) / 1e6
    for name in readers:
        t = min(times[name])
        rate = f"{mb / t:8.1f} MB/s  {args.rows / t:12,.0f} rows/s"
        print(f"{name:<7} {rate}  (best of {args.passes})")
    print(f"ratio now/before: {min(times['before']) / min(times['now']):.2f}x "
          f"({mb:.0f} MB, {args.rows:,} rows)")  # fmt: skip
    whole_run(before, args)


def whole_run(before: Any, args: argparse.Namespace) -> None:
    """``run_file`` CSV -> JSONL, one worker, both answerx, alternating, best of 3."""
    from answerx.batch.files import run_file

    src = build_csv(args.run_rows, args.work)
    out = args.work / "run-out.jsonl"
    runs: dict[str, Callable[[], Any]] = {
        "before": lambda: before.run_file(src, out, workers=1),
        "now": lambda: run_file(src, out, workers=1),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    for p in range(3):
        for name in list(runs) if p % 2 == 0 else list(reversed(runs)):
            started = time.perf_counter()
            summary = runs[name]()
            times[name].append(time.perf_counter() - started)
            assert summary.written == args.run_rows, summary
    for name in runs:
        print(f"run_file {name:<7} {args.run_rows / min(times[name]):10,.0f} rows/s (CSV -> JSONL)")
    print(f"run_file ratio now/before: {min(times['before']) / min(times['now']):.2f}x")


if __name__ == "__main__":
    main()
