"""The real `answerx` command in a child process: entry points, streams and exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from answerx._version import __version__

PYTHON_M = [sys.executable, "-m", "answerx"]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [*PYTHON_M, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_console_script_prints_its_version() -> None:
    script = shutil.which("answerx", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("answerx is not installed as a console script beside this Python")

    done = subprocess.run(
        [script, "--version"], capture_output=True, text=True, timeout=60, check=False
    )

    assert (done.returncode, done.stdout.strip()) == (0, f"answerx {__version__}")


def test_python_m_answerx_extracts_from_stdin() -> None:
    done = run("extract", "-", stdin="Final Answer: The final answer is $5$. I hope it is correct.")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["answer"] == "5"


def test_file_mode_in_a_real_process(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": 1, "raw_output": "#### 72"}\nnot json\n', encoding="utf-8")
    dst = tmp_path / "out.jsonl"

    done = run("extract", "--file", str(src), "--out", str(dst))

    assert done.returncode == 1
    assert "warning: line 2 skipped: invalid JSON" in done.stderr
    assert json.loads(dst.read_text(encoding="utf-8"))["answer"] == "72"


def test_missing_file_exits_3_without_a_traceback(tmp_path: Path) -> None:
    done = run("extract", "--file", str(tmp_path / "missing.jsonl"))

    assert done.returncode == 3
    assert "missing.jsonl: No such file or directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_unknown_task_exits_2() -> None:
    done = run("extract", "--task", "nope", "The answer is 4.")

    assert done.returncode == 2
    assert "valid tasks: auto, math, numeric" in done.stderr


def test_a_reader_that_stops_early_is_not_an_error(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    record = json.dumps({"raw_output": "The answer is 4. " + "padding " * 100})
    src.write_text((record + "\n") * 5000, encoding="utf-8")

    # `answerx extract --file in.jsonl | head -1`: the pipe closes while answerx writes.
    with subprocess.Popen(
        [*PYTHON_M, "extract", "-q", "--file", str(src)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as child:
        assert child.stdout is not None and child.stderr is not None
        first = child.stdout.readline()
        child.stdout.close()
        err = child.stderr.read().decode()
        code = child.wait(timeout=60)

    assert json.loads(first)["answer"] == "4"
    assert code == 0
    assert "Traceback" not in err and "BrokenPipe" not in err
