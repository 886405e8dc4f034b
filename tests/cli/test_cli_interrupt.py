"""Ctrl-C during `answerx extract --file`: a valid output up to a whole batch, the summary
and the last line written on stderr, exit 130, and `--continue` finishes the job."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from answerx.batch.files import progress_path

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

N = 10_000


def big_input(path: Path) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(N):
            f.write(json.dumps({"id": i, "raw_output": f"Step one.\nThe answer is {i}."}) + "\n")
    return path


def interrupt(args: list[str], out: Path) -> subprocess.CompletedProcess[str]:
    """Run answerx with ``args``; send SIGINT once the first batch has been written."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    child = subprocess.Popen(
        [sys.executable, "-m", "answerx", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 60
    while not progress_path(out).exists() and child.poll() is None:
        assert time.monotonic() < deadline, "no batch was written in 60 s"
        time.sleep(0.005)
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=60)
    return subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_ctrl_c_leaves_a_valid_output_says_how_far_it_got_and_continue_finishes(
    tmp_path: Path, fmt: str
) -> None:
    src = big_input(tmp_path / "in.jsonl")
    out = tmp_path / f"out.{fmt}"
    args = ["extract", "--file", str(src), "--out", str(out), "--workers", "1"]
    args += ["--batch-size", "50"]

    stopped = interrupt(args, out)

    assert stopped.returncode == 130, stopped.stderr
    text = out.read_text(encoding="utf-8")
    records = json.loads(text) if fmt == "json" else [json.loads(x) for x in text.splitlines()]
    written = len(records)
    assert 0 < written < N and written % 50 == 0  # whole batches only
    assert [r["id"] for r in records] == list(range(written))
    assert f"written {written:,}" in stopped.stderr  # the summary
    assert f"last input line written: {written:,}" in stopped.stderr
    assert "resume with: answerx extract" in stopped.stderr and "--continue" in stopped.stderr

    resumed = subprocess.run(
        [sys.executable, "-m", "answerx", *args, "--continue"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert resumed.returncode == 0, resumed.stderr
    text = out.read_text(encoding="utf-8")
    records = json.loads(text) if fmt == "json" else [json.loads(x) for x in text.splitlines()]
    assert [r["id"] for r in records] == list(range(N))
    assert f"read {N:,} · written {N:,} · malformed 0" in resumed.stderr
