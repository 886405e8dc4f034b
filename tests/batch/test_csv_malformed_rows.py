"""CSV input to `answerx.batch.run_file`: a malformed row (wrong number of fields, bytes
that are not UTF-8) is reported with its row number and line, counted, and skipped;
it never stops the run, and a resumed run reports it exactly once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from answerx.batch.files import BatchSummary, run_file
from answerx.cli import app
from answerx.extraction.files import MalformedLine
from answerx.recordfiles import csvfile

LATIN1 = "not valid UTF-8 (byte 0xe9): save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"


def write(path: Path, text: bytes) -> Path:
    path.write_bytes(text)
    return path


def ids(path: Path) -> list[str]:
    return [str(json.loads(line)["id"]) for line in path.read_text("utf-8").splitlines()]


def run(src: Path, dst: Path, **options: object) -> tuple[BatchSummary, list[MalformedLine]]:
    """``run_file`` that also returns what ``on_error`` was told."""
    told: list[MalformedLine] = []
    summary = run_file(src, dst, on_error=told.append, **options)  # type: ignore[arg-type]
    return summary, told


def pairs(bad: list[MalformedLine]) -> list[tuple[int, str]]:
    return [(b.line, b.reason) for b in bad]


def test_a_short_and_a_long_row_are_reported_with_their_row_and_line_and_counted(
    tmp_path: Path,
) -> None:
    src = write(
        tmp_path / "in.csv",
        b"id,raw_output\n0,#### 1\n1\n2,#### 3,extra\n3,#### 4\n",
    )

    summary, told = run(src, tmp_path / "out.jsonl", workers=1)

    expected = [
        (2, "1 cell, but the header has 2 columns (line 3)"),
        (3, "3 cells, but the header has 2 columns (line 4)"),
    ]
    assert pairs(told) == pairs(summary.malformed) == expected
    assert (summary.read, summary.written, summary.malformed_count) == (4, 2, 2)
    assert summary.read == summary.written + summary.malformed_count
    assert ids(tmp_path / "out.jsonl") == ["0", "3"]
    assert summary.last_written == 4  # rows keep their numbers in the file


def test_a_quoted_multi_line_value_before_a_bad_row_keeps_its_line_right(
    tmp_path: Path,
) -> None:
    src = write(
        tmp_path / "in.csv",
        b'id,raw_output\n0,"line one\nline two\n#### 1"\n1,#### 2,x\n2,"a\n#### 3"\n',
    )

    summary, told = run(src, tmp_path / "out.jsonl", workers=1)

    assert summary.last_written == 3
    assert pairs(told) == [(2, "3 cells, but the header has 2 columns (line 5)")]
    assert ids(tmp_path / "out.jsonl") == ["0", "2"]
    answers = [
        json.loads(line)["answer"]
        for line in (tmp_path / "out.jsonl").read_text("utf-8").splitlines()
    ]
    assert answers == ["1", "3"]


def test_a_row_that_is_not_utf8_is_reported_and_the_rows_around_it_are_written(
    tmp_path: Path,
) -> None:
    src = write(
        tmp_path / "in.csv",
        b"id,raw_output\n0,#### 1\n1,caf\xe9 #### 2\n2,#### 3\n",
    )

    summary, told = run(src, tmp_path / "out.jsonl", workers=1)

    assert pairs(told) == [(2, f"{LATIN1} (line 3)")]
    assert (summary.read, summary.written, summary.malformed_count) == (3, 2, 1)
    assert ids(tmp_path / "out.jsonl") == ["0", "2"]


def bad_file(path: Path, n: int, bad: set[int]) -> Path:
    """``n`` records, multi-line values every third row; the records numbered in
    ``bad`` (1-based) have one field too many."""
    lines = [b"id,raw_output\n"]
    for number in range(1, n + 1):
        i = number - 1
        value = f'"step one\nstep two\n#### {i}"' if i % 3 == 0 else f"#### {i}"
        extra = ",x" if number in bad else ""
        lines.append(f"{i},{value}{extra}\n".encode())
    return write(path, b"".join(lines))


def test_records_are_numbered_the_same_when_blocks_cut_through_quoted_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = bad_file(tmp_path / "in.csv", 60, {7, 31, 60})
    _, told_whole = run(src, tmp_path / "whole.jsonl", workers=1, batch_size=8)
    monkeypatch.setattr(csvfile, "BLOCK_BYTES", 13)  # blocks far smaller than one record

    cut, told_cut = run(src, tmp_path / "cut.jsonl", workers=1, batch_size=8)

    assert pairs(told_cut) == pairs(told_whole)
    assert [b.line for b in told_cut] == [7, 31, 60]
    # rows 1 and 4 span 3 lines
    assert told_cut[0].reason == "3 cells, but the header has 2 columns (line 12)"
    assert (tmp_path / "cut.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
    assert (cut.read, cut.written, cut.malformed_count) == (60, 57, 3)
    assert ids(tmp_path / "cut.jsonl") == [str(i) for i in range(60) if i + 1 not in {7, 31, 60}]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopped_and_resumed_run_reports_each_bad_row_once(tmp_path: Path, workers: int) -> None:
    src = bad_file(tmp_path / "in.csv", 100, {5, 35, 36, 100})
    dst = tmp_path / "out.jsonl"
    seen = {"n": 0}

    def count(_: object) -> None:
        seen["n"] += 1

    first, told_first = run(
        src,
        dst,
        workers=workers,
        batch_size=10,
        on_progress=count,
        stop=lambda: seen["n"] >= 3,
    )
    rest, told_rest = run(src, dst, workers=workers, batch_size=10, resume=True)

    assert first.interrupted and not rest.interrupted
    assert [b.line for b in told_first + told_rest] == [5, 35, 36, 100]
    assert (rest.read, rest.written, rest.malformed_count) == (100, 96, 4)  # the whole run
    assert [b.line for b in rest.malformed] == [5, 35, 36, 100]
    assert ids(dst) == [str(i) for i in range(100) if i + 1 not in {5, 35, 36, 100}]


def test_extract_file_warns_of_each_malformed_csv_row_and_exits_1(tmp_path: Path) -> None:
    src = write(
        tmp_path / "x.csv",
        b'id,raw_output\n0,"so\n#### 1"\n1\n2,#### 3\n',
    )
    out = tmp_path / "out.jsonl"

    result = CliRunner().invoke(app, ["extract", "--file", str(src), "-o", str(out), "-w", "1"])

    assert result.exit_code == 1, result.output
    assert "row 2 skipped: 1 cell, but the header has 2 columns (line 4)" in result.stderr
    assert ids(out) == ["0", "2"]
