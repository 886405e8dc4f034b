"""What `run_file` reads: a named pipe opened once and read as a stream, a CSV quote that
never closes reported as one malformed row, a Parquet file that cannot be read said to
be unreadable, and a sink that takes each result row (the command line's table)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from answerx.batch.files import run_file
from answerx.batch.outputs import ResultRow
from answerx.errors import UnreadableFile
from answerx.extraction.files import MalformedLine

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")


def outputs(n: int) -> list[dict[str, object]]:
    return [{"id": i, "raw_output": f"Step one.\nThe answer is {i}."} for i in range(n)]


def feed(fifo: Path, records: list[dict[str, object]], writers: int) -> list[threading.Thread]:
    """Write ``records`` into ``fifo`` from ``writers`` threads at once, each with its own
    share, one line per write (atomic on a pipe); the pipe ends when the last one closes."""

    def write(share: list[dict[str, object]]) -> None:
        with open(fifo, "wb", buffering=0) as f:  # blocks until the reader opens the pipe
            for record in share:
                f.write(json.dumps(record).encode() + b"\n")

    threads = [
        threading.Thread(target=write, args=(records[k::writers],), daemon=True)
        for k in range(writers)
    ]
    for thread in threads:
        thread.start()
    return threads


@pytest.mark.parametrize("writers", [1, 3])
def test_a_named_pipe_is_opened_once_and_read_to_its_end(tmp_path: Path, writers: int) -> None:
    fifo = tmp_path / "in.jsonl"
    os.mkfifo(fifo)
    threads = feed(fifo, outputs(300), writers)
    out = tmp_path / "out.jsonl"

    summary = run_file(fifo, out, workers=1, batch_size=64)

    for thread in threads:
        thread.join(timeout=10)
    assert (summary.read, summary.written, summary.malformed_count) == (300, 300, 0)
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == list(range(300))  # every record of every writer, none lost


def test_a_csv_quote_that_never_closes_is_one_malformed_row_and_the_rest_are_kept(
    tmp_path: Path,
) -> None:
    src = tmp_path / "answers.csv"
    rows = "".join(f"{i},The answer is {i}\n" for i in range(1, 6))
    src.write_text(f'id,raw_output\n{rows}6,"unclosed quote\n7,The answer is 7\n')
    told: list[MalformedLine] = []

    summary = run_file(src, tmp_path / "out.jsonl", workers=1, on_error=told.append)

    assert (summary.read, summary.written, summary.malformed_count) == (7, 6, 1)
    assert [(m.line, m.reason.split(" (")[0]) for m in told] == [
        (6, "a quoted cell opened in this row is never closed")
    ]
    assert told[0].reason.endswith("(line 7)")
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [(r["id"], r["answer"]) for r in written][-1] == ("7", "7")


def parquet_file(path: Path, rows: int = 2000) -> Path:
    pq.write_table(pa.Table.from_pylist(outputs(rows)), path, row_group_size=500)
    return path


def test_a_truncated_parquet_file_is_unreadable_not_malformed(tmp_path: Path) -> None:
    src = parquet_file(tmp_path / "in.parquet")
    src.write_bytes(src.read_bytes()[: src.stat().st_size // 2])
    out = tmp_path / "out.jsonl"

    with pytest.raises(UnreadableFile, match=r"in\.parquet: not a readable Parquet file") as caught:
        run_file(src, out, workers=1)

    assert caught.value.path == str(src)
    assert not out.exists()  # the input is read first: nothing was created


def test_a_parquet_file_damaged_part_way_is_unreadable(tmp_path: Path) -> None:
    src = parquet_file(tmp_path / "in.parquet")
    data = bytearray(src.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 4096] = b"\xff" * 4096  # a page in the middle, footer intact
    src.write_bytes(bytes(data))

    with pytest.raises(UnreadableFile, match=r"in\.parquet: the Parquet file is damaged part-way"):
        run_file(src, tmp_path / "out.jsonl", workers=1, batch_size=100)


class Rows:
    """A sink that keeps what it is given."""

    def __init__(self) -> None:
        self.rows: list[ResultRow] = []

    def add(self, row: ResultRow) -> None:
        self.rows.append(row)


@pytest.mark.parametrize("suffix", ["jsonl", "csv", "parquet"])
def test_a_sink_gets_each_result_row_with_its_number_and_task(tmp_path: Path, suffix: str) -> None:
    records = [
        {"id": "a", "raw_output": "The answer is 4."},
        {"id": "b", "raw_output": "Answer: (B)"},
        {"id": "c", "raw_output": "So $\\boxed{x^2}$."},
    ]
    src = tmp_path / f"in.{suffix}"
    if suffix == "jsonl":
        src.write_text("".join(json.dumps(r) + "\n" for r in records))
    elif suffix == "csv":
        src.write_text(
            "id,raw_output\n" + "".join(f'{r["id"]},"{r["raw_output"]}"\n' for r in records)
        )
    else:
        pq.write_table(pa.Table.from_pylist(records), src)
    sink = Rows()

    summary = run_file(src, sink, workers=1)

    assert summary.written == 3
    assert [(r.number, r.record["id"], r.record["answer"]) for r in sink.rows] == [
        (1, "a", "4"),
        (2, "b", "B"),
        (3, "c", "x^2"),
    ]
    assert [r.task for r in sink.rows] == ["numeric", "multiple_choice", "math"]
