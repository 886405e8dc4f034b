"""``answerx verify`` and ``answerx reward-func write`` from the command line."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from answerx.batch.files import progress_path
from answerx.cli import app

runner = CliRunner()


def test_one_text_against_its_gold_prints_the_verdict_as_json() -> None:
    result = runner.invoke(
        app, ["verify", "So the answer is \\boxed{42}.", "--gold", "42", "--json"]
    )
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert verdict | {"elapsed_s": 0} == {
        "correct": True, "reason": "equivalent", "how": "exact", "answer": "42", "gold": "42",
        "elapsed_s": 0, "method": "boxed",
        # issue 24: which accepted answer matched; short-answer scores, doubt, judge unset
        "matched_gold": "42", "scores": None, "doubt": None, "judge": None,
    }  # fmt: skip


def test_a_single_text_needs_its_gold() -> None:
    result = runner.invoke(app, ["verify", "The answer is 4."])
    assert result.exit_code == 2
    assert "--gold" in result.stderr


def records() -> list[dict[str, object]]:
    return [
        {"id": 1, "output": "6 * 7 = 42. The answer is 42.", "answer": "42"},
        {"id": 2, "output": "The answer is 41.", "answer": "42"},
        {"id": 3, "output": "The answer is Venus.", "answer": "B", "choices": ["Mars", "Venus"]},
        {"id": 4, "output": "I do not know.", "answer": "7", "task": "numeric"},
    ]


def test_a_jsonl_file_gets_verdict_fields_and_a_closing_summary(tmp_path: Path) -> None:
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    lines = [json.dumps(r) for r in records()]
    src.write_text("\n".join([*lines[:2], "{not json", *lines[2:]]) + "\n", encoding="utf-8")
    result = runner.invoke(
        app, ["verify", "--file", str(src), "--out", str(out), "--field", "output",
              "--gold-field", "answer", "--prefix", "v_"],
    )  # fmt: skip
    assert result.exit_code == 1  # one malformed line, reported and skipped
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["id"], r["v_correct"], r["v_reason"]) for r in rows] == [
        (1, True, "equivalent"), (2, False, "different"), (3, True, "equivalent"),
        (4, False, "no_answer"),
    ]  # fmt: skip
    assert rows[2]["v_how"] == "letter"  # extraction maps the option to its letter
    assert rows[0]["v_answer"] == "42"
    assert "line 3 skipped: invalid JSON" in result.stderr
    assert "accuracy 50.0% (2/4; 95 % Wilson interval 15.0%–85.0%)" in result.stderr
    assert "by reason: equivalent 2, different 1, no_answer 1" in result.stderr


def test_parquet_in_and_out_with_two_workers(tmp_path: Path) -> None:
    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    rows = [{"raw_output": r["output"], "gold": r["answer"]} for r in records()]
    pq.write_table(pa.Table.from_pylist(rows), src)
    result = runner.invoke(
        app, ["verify", "--file", str(src), "--out", str(out), "--workers", "2", "-q"]
    )
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    # Without its choices, "Venus" names no letter: no answer to a letter question.
    assert table.column("reason").to_pylist() == ["equivalent", "different", "no_answer",
                                                  "no_answer"]  # fmt: skip
    assert result.stderr == ""  # --quiet: no summary


def test_csv_in_and_out_on_two_workers_reports_a_bad_row_by_its_number(tmp_path: Path) -> None:
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    rows = [{"id": i, "raw_output": f"The answer is {i % 7}.", "gold": str(i % 5), "task": ""}
            for i in range(40)]  # fmt: skip
    rows[25]["task"] = "quiz"  # no such task: this row is malformed, the others go on
    with src.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, ["id", "raw_output", "gold", "task"])
        writer.writeheader()
        writer.writerows(rows)

    result = runner.invoke(
        app, ["verify", "--file", str(src), "--out", str(out), "--workers", "2",
              "--batch-size", "8"],
    )  # fmt: skip

    assert result.exit_code == 1, result.output  # the malformed row, reported and counted
    with out.open(newline="", encoding="utf-8") as f:
        written = list(csv.DictReader(f))
    assert [r["id"] for r in written] == [str(i) for i in range(40) if i != 25]  # in order
    assert [r["correct"] for r in written[:7]] == ["true", "true", "true", "true", "true",
                                                   "false", "false"]  # fmt: skip
    assert "row 26 skipped" in result.stderr
    right = sum(i % 7 == i % 5 for i in range(40) if i != 25)
    assert f"accuracy {right / 39:.1%} ({right}/39;" in result.stderr
    assert "1 malformed rows skipped" in result.stderr


def test_out_dot_json_gets_one_json_array_and_stdout_gets_jsonl(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist([{"raw_output": "#### 72", "gold": "72"}] * 2), src)

    to_file = runner.invoke(app, ["verify", "--file", str(src), "--out", str(tmp_path / "o.json")])
    to_stdout = runner.invoke(app, ["verify", "--file", str(src), "-q"])

    assert to_file.exit_code == 0 and to_stdout.exit_code == 0, to_file.output
    array = json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))
    assert [r["correct"] for r in array] == [True, True]
    assert [json.loads(x)["correct"] for x in to_stdout.stdout.splitlines()] == [True, True]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_leaves_a_valid_output_exits_130_and_resume_sums_up_the_whole_run(
    tmp_path: Path,
) -> None:
    n = 3000
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(
        "".join(json.dumps({"id": i, "raw_output": f"#### {i}", "gold": str(i - i % 2)}) + "\n"
                for i in range(n)),
        encoding="utf-8",
    )  # fmt: skip
    args = [sys.executable, "-m", "answerx", "verify", "--file", str(src), "--out", str(out),
            "--workers", "1", "--batch-size", "50"]  # fmt: skip
    child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not progress_path(out).exists() and child.poll() is None:
        assert time.monotonic() < deadline, "no batch was written in 60 s"
        time.sleep(0.005)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=60)

    assert child.returncode == 130, stderr
    done = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert 0 < len(done) < n and len(done) % 50 == 0  # whole batches only
    assert "resume with: answerx verify" in stderr

    resumed = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=120)

    assert resumed.returncode == 0, resumed.stderr
    done = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in done] == list(range(n))
    assert f"accuracy 50.0% ({n // 2}/{n};" in resumed.stderr  # both parts counted


def test_self_check_lists_golds_that_do_not_verify(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    rows = [
        {"id": "ok", "question": "?", "answer": "\\frac{1}{2}", "task": "math"},
        {"id": "empty", "question": "?", "answer": "   ", "task": "numeric"},
        {"id": "letters", "question": "?", "answer": "K", "task": "multiple_choice",
         "choices": ["a", "b"]},
    ]  # fmt: skip
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["verify", "--self-check", str(data), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [f["id"] for f in report["failed"]] == ["empty", "letters"]
    assert report["checked"] == 3


def test_self_check_of_a_bundled_sample_passes() -> None:
    result = runner.invoke(app, ["verify", "--self-check", "arithmetic"])
    assert result.exit_code == 0, result.output
    assert "verify in all, 0 do not" in result.stderr


def test_reward_func_write_makes_a_file_and_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "reward_func.py"
    assert runner.invoke(app, ["reward-func", "write", str(path), "-t", "math"]).exit_code == 0
    assert "TASK = 'math'" in path.read_text(encoding="utf-8")
    again = runner.invoke(app, ["reward-func", "write", str(path)])
    assert again.exit_code == 2 and "--force" in again.stderr  # a usage error (README table)
