"""`answerx extract --file` reads what it is given: CSV and Parquet for a table too
(issue 26: `--format table` read a CSV as JSONL), a named pipe or a shell's `<(…)`
opened once (issue 30 §5: it hung or lost records), a CSV quote that never closes
reported as one malformed row (issue 30 §7)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from answerx import extract
from answerx.cli import app

runner = CliRunner()
ANSWERS = [
    {"id": "a", "raw_output": "The answer is 4."},
    {"id": "b", "raw_output": "So the answer is $\\boxed{7}$."},
    {"id": "c", "raw_output": "Answer: (C)"},
]


def table_rows(stdout: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("│")] for line in stdout.splitlines() if "│" in line]


def test_a_csv_file_prints_as_a_table(tmp_path: Path) -> None:
    src = tmp_path / "answers.csv"
    src.write_text("id,raw_output\n" + "".join(f'{r["id"]},"{r["raw_output"]}"\n' for r in ANSWERS))

    table = runner.invoke(app, ["extract", "--file", str(src), "--format", "table"])
    jsonl = runner.invoke(app, ["extract", "--file", str(src), "--format", "jsonl"])

    assert table.exit_code == jsonl.exit_code == 0, table.output
    assert "malformed 0" in table.stderr and "warning" not in table.stderr
    rows = table_rows(table.stdout)
    assert [(r[0], r[2]) for r in rows] == [("a", "4"), ("b", "7"), ("c", "C")]
    assert [json.loads(line)["answer"] for line in jsonl.stdout.splitlines()] == ["4", "7", "C"]


def test_a_parquet_file_prints_as_a_table_and_a_table_can_go_to_a_file(tmp_path: Path) -> None:
    src = tmp_path / "answers.parquet"
    pq.write_table(pa.Table.from_pylist(ANSWERS), src)
    out = tmp_path / "table.txt"

    result = runner.invoke(app, ["extract", "-f", str(src), "--format", "table", "-o", str(out)])

    assert result.exit_code == 0, result.output
    # The task column is the one each extraction used (detected, for auto).
    expected = [
        (r["id"], extract(r["raw_output"]).task, extract(r["raw_output"]).answer) for r in ANSWERS
    ]
    assert [(r[0], r[1], r[2]) for r in table_rows(out.read_text())] == expected
    assert expected[2][1] == "multiple_choice"


def test_a_table_cannot_be_continued(tmp_path: Path) -> None:
    src = tmp_path / "answers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ANSWERS))

    result = runner.invoke(app, ["extract", "-f", str(src), "--format", "table", "--continue"])

    assert result.exit_code == 2
    assert "--continue needs --out FILE" in result.stderr


def test_a_csv_quote_that_never_closes_is_reported_and_the_next_row_kept(tmp_path: Path) -> None:
    src = tmp_path / "answers.csv"
    rows = "".join(f"{i},The answer is {i}\n" for i in range(1, 6))
    src.write_text(f'id,raw_output\n{rows}6,"unclosed quote\n7,The answer is 7\n')
    out = tmp_path / "out.jsonl"

    result = runner.invoke(app, ["extract", "-f", str(src), "-o", str(out), "-w", "1"])

    assert result.exit_code == 1
    assert "row 6 skipped: a quoted cell opened in this row is never closed" in result.stderr
    assert "(line 7)" in result.stderr
    assert "read 7 · written 6 · malformed 1" in result.stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["answer"]) for r in written] == [
        (str(i), str(i)) for i in (1, 2, 3, 4, 5, 7)
    ]


# --- pipes: opened once, read as streams -------------------------------------------------
fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")


def answerx(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "answerx", *args],
        capture_output=True, text=True, timeout=timeout, env=env, check=False,
    )  # fmt: skip


@pytest.mark.slow
@fifo_only
@pytest.mark.parametrize("writers", [1, 3])
def test_a_named_pipe_as_file_is_read_whole_whatever_its_writers(
    tmp_path: Path, writers: int
) -> None:
    fifo = tmp_path / "outputs.jsonl"
    os.mkfifo(fifo)
    n = 90

    def write(first: int) -> None:
        with open(fifo, "wb", buffering=0) as f:  # waits for the reader to open the pipe
            for i in range(first, n, writers):
                f.write(json.dumps({"id": i, "raw_output": f"The answer is {i}."}).encode() + b"\n")

    threads = [threading.Thread(target=write, args=(k,), daemon=True) for k in range(writers)]
    for thread in threads:
        thread.start()
    out = tmp_path / "out.jsonl"

    # A command that opened the pipe twice waited forever for a writer the second time.
    result = answerx("extract", "--file", str(fifo), "-o", str(out), "-w", "1", timeout=60)

    assert result.returncode == 0, result.stderr
    ids = sorted(json.loads(line)["id"] for line in out.read_text().splitlines())
    assert ids == list(range(n))
    assert f"read {n} · written {n} · malformed 0" in result.stderr


@pytest.mark.slow
@fifo_only
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_process_substitution_works_as_file(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / "out.jsonl"
    if suffix == "csv":
        text = "id,raw_output\n1,The answer is 1.\n2,The answer is 2.\n"
    else:
        text = "".join(json.dumps({"id": i, "raw_output": f"#### {i}"}) + "\n" for i in (1, 2))
    command = shlex.join([sys.executable, "-m", "answerx", "extract", "-o", str(out)])
    printf = shlex.join(["printf", "%s", text])

    result = subprocess.run(
        ["bash", "-c", f"{command} --input-format {suffix} --file <({printf})"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["answer"] for line in out.read_text().splitlines()] == ["1", "2"]
