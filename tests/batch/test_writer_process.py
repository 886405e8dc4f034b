"""On workers, a Parquet or CSV output is encoded and written by a process of its own, not
by the process every row passes through; the file is what one process writes."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from answerx.batch.files import run_file
from answerx.batch.writer import WriterProcess
from answerx.recordfiles.writers import ArrowWriter

# Workers fork from this process only where it runs no other thread: alone if need be.
pytestmark = pytest.mark.forks_here

OUTPUTS = ["So the answer is $\\frac{1}{2}$.", "The answer is (B).", "Thus 42.", "no idea"]


def jsonl(path: Path, n: int) -> Path:
    path.write_text(
        "".join(
            json.dumps({"id": i, "raw_output": OUTPUTS[i % 4], "gold": "0.5"}) + "\n"
            for i in range(n)
        )
    )
    return path


@pytest.fixture
def writers(monkeypatch: pytest.MonkeyPatch) -> list[WriterProcess]:
    """Every writer process a run starts."""
    started: list[WriterProcess] = []

    class Counted(WriterProcess):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr("answerx.batch.writer.WriterProcess", Counted)
    return started


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_arrow_output_on_workers_is_written_there_and_is_one_workers_file(
    tmp_path: Path, writers: list[WriterProcess], suffix: str
) -> None:
    src = jsonl(tmp_path / "in.jsonl", 700)

    run_file(src, tmp_path / f"one.{suffix}", mode="verify", workers=1, batch_size=64)
    assert not writers
    two = run_file(src, tmp_path / f"two.{suffix}", mode="verify", workers=2, batch_size=64)

    assert len(writers) == 1 and two.written == 700
    assert not writers[0].process.is_alive()
    if suffix == "csv":
        assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()
    else:
        one = pq.read_table(tmp_path / "one.parquet")
        assert one.equals(pq.read_table(tmp_path / "two.parquet"))


def test_a_stopped_run_leaves_a_valid_parquet_file_that_continues_to_the_whole(
    tmp_path: Path, writers: list[WriterProcess]
) -> None:
    src = tmp_path / "in.parquet"
    rows = [{"id": i, "raw_output": OUTPUTS[i % 4]} for i in range(3000)]
    pq.write_table(pa.Table.from_pylist(rows), src)
    out = tmp_path / "out.parquet"
    seen: list[int] = []

    first = run_file(
        src, out, workers=2, batch_size=100,
        on_progress=lambda p: seen.append(p.rows), stop=lambda: len(seen) >= 6,
    )  # fmt: skip
    kept = pq.read_table(out)  # valid as it was left: closed there before the run returned
    rest = run_file(src, out, workers=2, batch_size=100, resume=True)

    assert first.interrupted and kept.num_rows == first.written >= 600
    assert kept.column("id").to_pylist() == list(range(kept.num_rows))
    assert not rest.interrupted
    assert pq.read_table(out).column("id").to_pylist() == list(range(3000))


def test_a_write_that_fails_there_is_raised_here(
    tmp_path: Path, writers: list[WriterProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: ArrowWriter, payload: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ArrowWriter, "write", full)  # the forked writer has it too
    src = jsonl(tmp_path / "in.jsonl", 500)

    with pytest.raises(OSError, match="No space left"):
        run_file(src, tmp_path / "out.parquet", workers=2, batch_size=50)

    assert len(writers) == 1 and not writers[0].process.is_alive()
