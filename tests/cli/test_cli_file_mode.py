"""`answerx extract --file`: JSONL in, JSONL out, malformed lines reported and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from answerx.cli import app
from answerx.extraction import TASKS

runner = CliRunner()

GOOD = [
    {"id": "gsm", "raw_output": "48 + 24 = 72 clips.\n#### 72", "gold": 72, "meta": {"k": [1]}},
    {
        "id": "mc",
        "raw_output": "The answer is (B).",
        "task": "multiple_choice",
        "choices": ["Mitochondrion", "Chloroplast"],
    },
    {"id": "box", "raw_output": "So $x = \\boxed{\\frac{1}{2}}$."},
]


def write_jsonl(path: Path, lines: list[dict[str, object] | str]) -> Path:
    """Write records (dicts) and raw lines (str, written as they are) to ``path``."""
    with path.open("w", encoding="utf-8") as f:
        for line in lines:
            f.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    return path


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_file_to_file_keeps_every_input_field_and_adds_the_answer(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))
    dst = tmp_path / "out.jsonl"

    result = runner.invoke(app, ["extract", "--file", str(src), "--out", str(dst)])

    assert result.exit_code == 0, result.output
    assert result.stdout == ""  # results went to --out
    out = read_jsonl(dst)
    assert [r["id"] for r in out] == ["gsm", "mc", "box"]
    assert out[0] == GOOD[0] | {
        "answer": "72",
        "method": "final_answer_phrase",
        "confidence": 0.9,
        "valid": out[0]["valid"],  # True once the extraction layer checks well-formedness
        "unfinished": False,
        "span_start": 25,
        "span_end": 27,
    }
    assert (out[1]["answer"], out[1]["choices"]) == ("B", ["Mitochondrion", "Chloroplast"])
    assert (out[2]["answer"], out[2]["method"]) == ("\\frac{1}{2}", "boxed")
    assert "read 3 · written 3 · malformed 0" in result.stderr


def test_results_go_to_stdout_without_out_or_with_dash(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))

    implicit = runner.invoke(app, ["extract", "--file", str(src)])
    dash = runner.invoke(app, ["extract", "--file", str(src), "--out", "-"])

    assert implicit.exit_code == dash.exit_code == 0
    assert implicit.stdout == dash.stdout
    assert [json.loads(line)["answer"] for line in implicit.stdout.splitlines()] == [
        "72",
        "B",
        "\\frac{1}{2}",
    ]


def test_file_from_stdin() -> None:
    stdin = "".join(json.dumps(r) + "\n" for r in GOOD)

    result = runner.invoke(app, ["extract", "--file", "-"], input=stdin)

    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 3


def test_field_names_the_input_field(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [{"completion": "The answer is 12."}])

    result = runner.invoke(app, ["extract", "-f", str(src), "--field", "completion"])

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["answer"] == "12"


def test_malformed_lines_are_reported_skipped_and_exit_1(tmp_path: Path) -> None:
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            GOOD[0],
            '{"id": "cut", "raw_output": "The answer is',  # line 2: bad JSON
            "[1, 2, 3]",  # line 3: not an object
            "",  # line 4: blank, not a record
            {"id": "nofield", "text": "The answer is 3."},  # line 5: missing field
            {"id": "null", "raw_output": None},  # line 6: not a string
            {"id": "badtask", "raw_output": "The answer is 3.", "task": "mcq"},  # line 7
            GOOD[2],
        ],
    )
    dst = tmp_path / "out.jsonl"

    result = runner.invoke(app, ["extract", "--file", str(src), "--out", str(dst)])

    assert result.exit_code == 1
    assert [r["id"] for r in read_jsonl(dst)] == ["gsm", "box"]  # no good line is lost
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert [w.split(" skipped: ")[0] for w in warnings] == [
        f"warning: line {n}" for n in (2, 3, 5, 6, 7)
    ]
    assert "invalid JSON" in warnings[0]
    assert "expected a JSON object, not an array" in warnings[1]
    assert "no 'raw_output' field" in warnings[2]
    assert "'raw_output' is null, not a string" in warnings[3]
    assert "unknown task 'mcq'" in warnings[4] and ", ".join(TASKS) in warnings[4]
    assert "read 7 · written 2 · malformed 5" in result.stderr


def test_a_record_task_overrides_the_default_task(tmp_path: Path) -> None:
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"raw_output": "Yes. The answer is 4 apples."},
            {"raw_output": "Yes. The answer is 4 apples.", "task": "boolean"},
        ],
    )

    result = runner.invoke(app, ["extract", "-f", str(src), "--task", "numeric"])

    assert result.exit_code == 0, result.output
    assert [json.loads(line)["answer"] for line in result.stdout.splitlines()] == ["4", "yes"]


def test_unknown_default_task_exits_2_before_touching_the_output(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))
    dst = tmp_path / "out.jsonl"

    result = runner.invoke(app, ["extract", "-f", str(src), "-o", str(dst), "--task", "maths"])

    assert result.exit_code == 2
    assert "unknown task 'maths' (did you mean 'math'?)" in result.stderr
    assert "valid tasks: " + ", ".join(TASKS) in result.stderr
    assert not dst.exists()


def test_missing_input_exits_3_and_creates_no_output(tmp_path: Path) -> None:
    dst = tmp_path / "out.jsonl"

    result = runner.invoke(app, ["extract", "-f", str(tmp_path / "nope.jsonl"), "-o", str(dst)])

    assert result.exit_code == 3
    assert "nope.jsonl: No such file or directory" in result.stderr
    assert "Traceback" not in result.output
    assert not dst.exists()


def test_a_directory_as_input_exits_3(tmp_path: Path) -> None:
    result = runner.invoke(app, ["extract", "-f", str(tmp_path)])

    assert result.exit_code == 3
    assert "Is a directory" in result.stderr


def test_out_may_not_overwrite_the_input(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))

    result = runner.invoke(app, ["extract", "-f", str(src), "-o", str(src)])

    assert result.exit_code == 2
    assert len(read_jsonl(src)) == 3


def test_json_format_is_one_array_of_the_records(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))

    result = runner.invoke(app, ["extract", "-f", str(src), "--format", "json"])

    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    assert [r["answer"] for r in records] == ["72", "B", "\\frac{1}{2}"]
    assert records[0]["meta"] == {"k": [1]}


def test_json_format_of_an_empty_file_is_an_empty_array(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [])

    result = runner.invoke(app, ["extract", "-f", str(src), "--format", "json"])

    assert result.exit_code == 0
    assert json.loads(result.stdout) == []


def test_table_format_has_a_row_per_record(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))

    result = runner.invoke(app, ["extract", "-f", str(src), "--format", "table"])

    assert result.exit_code == 0, result.output
    rows = [line.split("│") for line in result.stdout.splitlines() if "│" in line]
    assert [(r[0].strip(), r[2].strip(), r[3].strip()) for r in rows] == [
        ("gsm", "72", "final_answer_phrase"),
        ("mc", "B", "final_answer_phrase"),
        ("box", "\\frac{1}{2}", "boxed"),
    ]


def test_table_to_a_file(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))
    dst = tmp_path / "table.txt"

    result = runner.invoke(app, ["extract", "-f", str(src), "-o", str(dst), "--format", "table"])

    assert result.exit_code == 0, result.output
    assert "final_answer_phrase" in dst.read_text(encoding="utf-8")


def test_an_input_answer_field_is_kept_with_a_prefix(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [{"raw_output": "The answer is 5.", "answer": "6"}])

    replaced = runner.invoke(app, ["extract", "-f", str(src)])
    kept = runner.invoke(app, ["extract", "-f", str(src), "--prefix", "extracted_"])

    assert json.loads(replaced.stdout)["answer"] == "5"
    assert "input field 'answer' was replaced" in replaced.stderr
    record = json.loads(kept.stdout)
    assert {k: v for k, v in record.items() if k != "extracted_valid"} == {
        "raw_output": "The answer is 5.",
        "answer": "6",
        "extracted_answer": "5",
        "extracted_method": "final_answer_phrase",
        "extracted_confidence": 0.9,
        "extracted_unfinished": False,
        "extracted_span_start": 14,
        "extracted_span_end": 15,
    }
    assert "replaced" not in kept.stderr


def test_quiet_prints_no_summary(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))

    result = runner.invoke(app, ["extract", "-f", str(src), "-q"])

    assert result.exit_code == 0
    assert result.stderr == ""


def test_progress_bar_goes_to_stderr_when_asked(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD) * 100)

    result = runner.invoke(app, ["extract", "-f", str(src), "--progress"])

    assert result.exit_code == 0
    assert "lines" in result.stderr and "in.jsonl" in result.stderr
    assert "lines/s" in result.stderr and "ETA" in result.stderr  # items/s and time left
    assert len(result.stdout.splitlines()) == 300  # stdout holds only the records


@pytest.mark.parametrize("flag", ["--choices", "--numbers"])
def test_choices_and_numbers_are_for_single_texts(tmp_path: Path, flag: str) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))

    result = runner.invoke(app, ["extract", "-f", str(src), flag, "4"])

    assert result.exit_code == 2
    assert "in a file, give each record" in result.stderr


def test_nan_and_infinity_in_input_records_are_written_as_valid_json_and_said(
    tmp_path: Path,
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"raw_output": "#### 1", "score": NaN, "x": -Infinity}\n', encoding="utf-8")

    result = runner.invoke(app, ["extract", "-f", str(src), "--format", "json"])

    assert result.exit_code == 0, result.output
    (record,) = json.loads(result.stdout, parse_constant=pytest.fail)  # standard JSON only
    assert (record["score"], record["x"], record["answer"]) == (None, None, "1")
    assert "1 records held NaN or Infinity" in result.stderr and "written as null" in result.stderr


def test_csv_and_parquet_outputs_follow_the_out_extension(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))

    to_csv = runner.invoke(app, ["extract", "-f", str(src), "-o", str(tmp_path / "o.csv")])
    to_parquet = runner.invoke(
        app, ["extract", "-f", str(src), "-o", str(tmp_path / "o.parquet"), "-w", "1"]
    )

    assert (to_csv.exit_code, to_parquet.exit_code) == (0, 0), to_csv.output + to_parquet.output
    assert (tmp_path / "o.csv").read_text(encoding="utf-8").startswith('"id","raw_output"')
    answers = pq.read_table(tmp_path / "o.parquet").column("answer").to_pylist()
    assert answers == ["72", "B", "\\frac{1}{2}"]


def test_engine_ray_refuses_local_only_options_before_starting_anything(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(GOOD))

    result = runner.invoke(
        app,
        ["extract", "-f", str(src), "-o", str(tmp_path / "o"), "--engine", "ray", "--continue"],
    )

    assert result.exit_code == 2
    assert "--continue, --input-format and --format are for local runs" in result.stderr
