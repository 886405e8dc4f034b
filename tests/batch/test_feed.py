"""On workers, a CSV or Parquet input is parsed by a reader process of its own, not by
the process every row passes through, and the run writes what one process writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import answerx.batch.files
from answerx.batch.feed import Feed
from answerx.batch.files import run_file
from answerx.errors import UnreadableFile

# Workers fork from this process only where it runs no other thread: alone if need be.
pytestmark = pytest.mark.forks_here

OUTPUTS = ["So the answer is $\\frac{1}{2}$.", "The answer is (B).", "Thus 42.", "no idea"]


def rows(n: int) -> list[dict[str, Any]]:
    return [
        {"id": i, "raw_output": OUTPUTS[i % 4], "gold": ["0.5", "B", "42", "7"][i % 4], "n": i}
        for i in range(n)
    ]


@pytest.fixture
def feeds(monkeypatch: pytest.MonkeyPatch) -> list[Feed]:
    """Every feed a run starts."""
    started: list[Feed] = []

    class Counted(Feed):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(answerx.batch.files, "Feed", Counted)
    return started


def test_parquet_on_workers_is_read_by_a_feed_and_gives_one_workers_rows(
    tmp_path: Path, feeds: list[Feed]
) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(rows(1000)), src, row_group_size=300)

    run_file(src, tmp_path / "one.parquet", workers=1, batch_size=64)
    assert not feeds  # one worker: this process reads
    two = run_file(src, tmp_path / "two.parquet", mode="verify", workers=2, batch_size=64)
    run_file(src, tmp_path / "one-v.parquet", mode="verify", workers=1, batch_size=64)

    assert len(feeds) == 1 and two.written == 1000
    assert pq.read_table(tmp_path / "two.parquet").equals(pq.read_table(tmp_path / "one-v.parquet"))
    assert pq.read_table(tmp_path / "two.parquet").column("n").to_pylist() == list(range(1000))


def test_csv_on_workers_reports_the_malformed_rows_one_worker_reports(
    tmp_path: Path, feeds: list[Feed]
) -> None:
    lines = ["id,raw_output,gold"]
    for i, row in enumerate(rows(600)):
        lines.append(f'{i},"{row["raw_output"]}",{row["gold"]}' + (",extra" if i % 97 == 5 else ""))
    src = tmp_path / "in.csv"
    src.write_text("\n".join(lines) + "\n")

    one = run_file(src, tmp_path / "one.jsonl", workers=1, batch_size=50)
    two = run_file(src, tmp_path / "two.jsonl", workers=2, batch_size=50)

    assert len(feeds) == 1
    reported = [(m.line, m.reason) for m in two.malformed]
    assert reported == [(m.line, m.reason) for m in one.malformed]
    assert two.malformed_count == 7
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_a_parquet_file_damaged_part_way_is_unreadable_on_workers_too(
    tmp_path: Path, feeds: list[Feed]
) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(rows(2000)), src, row_group_size=500)
    data = bytearray(src.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 4096] = b"\xff" * 4096  # a page in the middle, footer intact
    src.write_bytes(bytes(data))

    with pytest.raises(UnreadableFile, match=r"in\.parquet: the Parquet file is damaged") as caught:
        run_file(src, tmp_path / "out.jsonl", workers=2, batch_size=100)

    assert len(feeds) == 1
    assert caught.value.path == str(src)  # raised here as the reader raised it there
    assert not feeds[0].process.is_alive()


def test_a_run_stopped_on_workers_ends_its_feed_and_continues_where_it_stopped(
    tmp_path: Path, feeds: list[Feed]
) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(rows(3000)), src, row_group_size=1000)
    out = tmp_path / "out.jsonl"
    committed: list[int] = []

    first = run_file(
        src, out, workers=2, batch_size=100,
        on_progress=lambda p: committed.append(p.rows),
        stop=lambda: len(committed) >= 5,
    )  # fmt: skip
    assert first.interrupted and not feeds[0].process.is_alive()
    rest = run_file(src, out, workers=2, batch_size=100, resume=True)

    assert not rest.interrupted
    assert [json.loads(line)["n"] for line in out.read_text().splitlines()] == list(range(3000))
