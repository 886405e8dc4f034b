"""File runs in bounded memory whatever a line's length, and a verify run's grading workers
forked from its batch workers (math-verify loaded once), with the verdicts of one worker."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

from answerx.batch._jobs import Settings
from answerx.batch.files import run_file
from answerx.batch.inputs import open_reader
from answerx.errors import UnreadableFile
from answerx.extraction.files import MalformedLine
from answerx.grading import pool as grading_pool
from answerx.grading.pool import WorkerPool


class Zeros(io.RawIOBase):
    """An endless input of NUL bytes, as /dev/zero is."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer)
        view[:] = bytes(len(view))
        return len(view)


def test_a_jsonl_line_over_the_maximum_is_malformed_with_its_number_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    long = json.dumps({"id": 2, "raw_output": "x" * 5000})
    src = tmp_path / "in.jsonl"
    src.write_text(
        '{"id": 1, "raw_output": "#### 7"}\n' + long + '\n{"id": 3, "raw_output": "#### 9"}\n'
    )
    reported: list[MalformedLine] = []

    summary = run_file(
        src, tmp_path / "out.jsonl", workers=1, max_line_bytes=1000, on_error=reported.append
    )

    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [(r["id"], r["answer"]) for r in rows] == [(1, "7"), (3, "9")]
    assert [b.line for b in reported] == [2]
    assert "longer than the maximum of 1,000 bytes" in reported[0].reason
    assert (summary.read, summary.written, summary.malformed_count) == (3, 2, 1)


def test_an_input_with_no_line_end_stops_the_run_as_unreadable(tmp_path: Path) -> None:
    endless = io.BufferedReader(Zeros(), buffer_size=1 << 16)

    with pytest.raises(UnreadableFile, match="has no end"):
        run_file(endless, tmp_path / "out.jsonl", workers=1, max_line_bytes=1 << 16)


def test_a_resumed_run_skips_a_long_line_as_one_line(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(
        json.dumps({"id": 1, "raw_output": "y" * 3000}) + '\n{"id": 2, "raw_output": "#### 5"}\n'
    )

    with open_reader(src, "jsonl", 10, Settings(), max_line=1000) as reader:
        reader.skip(1)  # what a run stopped after the first line did
        pieces = list(reader)

    assert [(p.job.first if p.job else None, p.consumed) for p in pieces] == [(2, 1)]


MATH = [
    ("So the answer is $\\frac{\\sqrt{2}}{2}$.", "\\sqrt{2}/2"),
    ("The answer is $(x+1)^2$.", "x^2+2x+1"),
    ("The answer is $\\{1, 2\\}$.", "\\{2,1\\}"),
    ("#### 72", "72"),
    ("The answer is 3.", "4"),
]


def test_a_verify_run_on_workers_gives_one_workers_verdicts(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps({"id": i, "raw_output": out, "gold": gold, "task": "math"})
        for i, (out, gold) in enumerate(MATH * 8)
    ]
    src.write_text("\n".join(lines) + "\n")

    run_file(src, tmp_path / "one.jsonl", mode="verify", workers=1, batch_size=4)
    run_file(src, tmp_path / "two.jsonl", mode="verify", workers=2, batch_size=4)

    assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    reasons = [json.loads(x)["reason"] for x in (tmp_path / "two.jsonl").read_text().splitlines()]
    assert reasons[:5] == ["equivalent", "equivalent", "equivalent", "equivalent", "different"]


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's grading workers forked from it, as a batch worker's are."""
    monkeypatch.setattr(grading_pool, "_FORK", True)
    monkeypatch.setattr(grading_pool, "_RUN_WARM_UP", True)


@pytest.mark.usefixtures("forking")
def test_a_forked_grading_worker_is_a_copy_of_its_caller_not_a_new_interpreter() -> None:
    pool = WorkerPool()
    try:
        assert pool.run([["math", "\\frac{1}{2}", "0.5"]], 60) == ["equal"]
        (worker,) = pool._idle
        child = Path(f"/proc/{worker.proc.pid}/cmdline").read_bytes()
        assert child == Path(f"/proc/{os.getpid()}/cmdline").read_bytes()
    finally:
        pool.close()


@pytest.mark.usefixtures("forking")
def test_a_forked_grading_worker_that_overruns_is_killed_and_replaced() -> None:
    pool = WorkerPool()
    try:
        assert pool.run([["math", "9^{9^{9}}", "2"]], 1) == [None]
        assert pool.restarts == 1
        assert pool.run([["math", "2", "2"]], 60) == ["equal"]
    finally:
        pool.close()


def test_the_ray_reader_gives_a_line_over_the_maximum_a_row_of_its_own_with_its_error() -> None:
    from answerx.integrations.ray import _annotate_file_batch, line_tables

    data = b'{"raw_output": "#### 1"}\n' + b"x" * 5000 + b'\n\n{"raw_output": "#### 3"}\n'

    lines = pa.concat_tables(line_tables(io.BytesIO(data), "in.jsonl", max_line=1000))
    out = _annotate_file_batch(lines, Settings())

    assert lines.column("__answerx_line").to_pylist() == [1, 2, 4]
    assert out.column("answer").to_pylist() == ["1", None, "3"]
    errors = out.column("error").to_pylist()
    assert errors[0] is None and errors[2] is None
    assert errors[1].startswith("in.jsonl, line 2: line longer than the maximum")


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_pools_workers_are_forked_from_one_warm_template_not_started_afresh() -> None:
    pool = WorkerPool(capacity=3)
    try:
        assert pool.warm(3) == 3
        parents = {_parent_of(worker.proc.pid) for worker in pool._idle}
        assert len(parents) == 1 and parents != {os.getpid()}  # one template, not this process
        assert pool.run([["math", "\\frac{1}{2}", "0.5"]], 60) == ["equal"]
    finally:
        pool.close()


def test_verify_batch_on_workers_gives_the_verdicts_of_this_process() -> None:
    from answerx.grading import verify_batch

    outputs, golds = zip(*(MATH * 4), strict=True)

    here = verify_batch(list(outputs), list(golds), task="math")
    there = verify_batch(list(outputs), list(golds), task="math", workers=3)

    assert [v.model_dump(exclude={"elapsed_s"}) for v in there] == [
        v.model_dump(exclude={"elapsed_s"}) for v in here
    ]
