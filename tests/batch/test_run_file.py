"""`answerx.batch.run_file`: JSONL, CSV and Parquet across worker processes, in order,
malformed rows reported, stopped runs left valid and resumable."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import answerx
from answerx.batch.files import default_workers, progress_path, run_file
from answerx.errors import ConfigError, InputError
from answerx.extraction.files import MalformedLine

OUTPUTS = [
    "48 + 24 = 72 clips.\n#### 72",
    "So $x = \\boxed{\\frac{1}{2}}$.",
    "The answer is (B).",
    "I think it is 17, no wait, 19. Final Answer: 19",
    "Nothing to see here",
]


def records(n: int) -> list[dict[str, object]]:
    """``n`` good records with a sequence id, cycling through OUTPUTS."""
    return [{"id": i, "raw_output": OUTPUTS[i % len(OUTPUTS)]} for i in range(n)]


def write_jsonl(path: Path, lines: list[dict[str, object] | str]) -> Path:
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def read_any(path: Path) -> list[dict[str, object]]:
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    return read_jsonl(path)


def test_two_workers_write_the_same_records_in_the_same_order_as_one(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(records(500)))

    one = run_file(src, tmp_path / "one.jsonl", workers=1, batch_size=64)
    two = run_file(src, tmp_path / "two.jsonl", workers=2, batch_size=64)

    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert [r["id"] for r in read_jsonl(tmp_path / "two.jsonl")] == list(range(500))
    assert (one.written, two.written, two.workers) == (500, 500, min(2, default_workers()))
    assert not progress_path(tmp_path / "two.jsonl").exists()  # a finished run leaves none


def test_each_record_gets_what_answerx_extract_finds(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(records(5)))

    run_file(src, tmp_path / "out.jsonl", workers=1)

    for record in read_jsonl(tmp_path / "out.jsonl"):
        expected = answerx.extract(str(record["raw_output"]))
        assert (record["answer"], record["method"]) == (expected.answer, expected.method)


def test_malformed_lines_are_reported_with_their_number_and_never_stop_the_run(
    tmp_path: Path,
) -> None:
    lines: list[dict[str, object] | str] = list(records(300))
    lines[100] = '{"id": 100, "raw_output": "cut'
    lines[250] = json.dumps({"id": 250, "raw_output": None})
    src = write_jsonl(tmp_path / "in.jsonl", lines)
    reported: list[MalformedLine] = []

    summary = run_file(
        src, tmp_path / "out.jsonl", workers=2, batch_size=32, on_error=reported.append
    )

    assert [(bad.line, bad.reason.split(":")[0]) for bad in reported] == [
        (101, "invalid JSON at column 27"),
        (251, "field 'raw_output' is null, not a string"),
    ]
    assert (summary.read, summary.written, summary.malformed_count) == (300, 298, 2)
    ids = [r["id"] for r in read_jsonl(tmp_path / "out.jsonl")]
    assert ids == [i for i in range(300) if i not in (100, 250)]


@pytest.mark.parametrize("out_name", ["out.parquet", "out.csv", "out.json", "out.jsonl"])
def test_parquet_input_goes_to_every_output_format(tmp_path: Path, out_name: str) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(records(40)), src, row_group_size=16)

    summary = run_file(src, tmp_path / out_name, workers=1, batch_size=10)

    rows = read_any(tmp_path / out_name)
    assert summary.written == len(rows) == 40
    assert [str(r["id"]) for r in rows] == [str(i) for i in range(40)]
    assert str(rows[0]["answer"]) == "72"


def test_csv_input_keeps_every_cell_as_written_and_reads_json_choices(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    with src.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "raw_output", "task", "choices"])
        writer.writerow(["007", "The answer is (B).", "multiple_choice", '["Paris", "Rome"]'])
        writer.writerow(["008", "line one\nThe answer is 4.", "", ""])

    run_file(src, tmp_path / "out.csv", workers=1)

    rows = read_any(tmp_path / "out.csv")
    assert [(r["id"], r["answer"]) for r in rows] == [("007", "B"), ("008", "4")]
    assert rows[1]["raw_output"] == "line one\nThe answer is 4."


def test_a_null_output_in_parquet_is_malformed_with_its_row_number(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"raw_output": ["#### 1", None, "#### 3"]}), src)
    reported: list[MalformedLine] = []

    summary = run_file(src, tmp_path / "out.parquet", workers=1, on_error=reported.append)

    assert reported == [MalformedLine(line=2, reason="field 'raw_output' is null")]
    assert pq.read_table(tmp_path / "out.parquet").column("answer").to_pylist() == ["1", "3"]
    assert summary.malformed_count == 1


def test_jsonl_to_parquet_gives_the_result_columns_their_types(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(records(3)))

    run_file(src, tmp_path / "out.parquet", workers=1)

    schema = pq.read_schema(tmp_path / "out.parquet")
    assert (schema.field("valid").type, schema.field("span_start").type) == (
        pa.bool_(),
        pa.int64(),
    )


def test_nan_and_infinity_are_written_as_null_and_counted(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(
        '{"raw_output": "#### 1", "score": NaN, "deep": [Infinity]}\n'
        '{"raw_output": "#### 2", "score": 0.5}\n',
        encoding="utf-8",
    )

    summary = run_file(src, tmp_path / "out.jsonl", workers=1)

    text = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    first = json.loads(text.splitlines()[0], parse_constant=pytest.fail)  # standard JSON only
    assert (first["score"], first["deep"]) == (None, [None])
    assert summary.nonfinite_nulled == 1


def test_a_missing_output_column_is_a_config_error_before_anything_is_written(
    tmp_path: Path,
) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"text": ["x"]}), src)

    with pytest.raises(ConfigError, match="no column 'raw_output'"):
        run_file(src, tmp_path / "out.parquet", workers=1)
    assert not (tmp_path / "out.parquet").exists()


def test_streams_in_and_out_are_jsonl() -> None:
    src = io.BytesIO(b'{"raw_output": "#### 5"}\n')
    dst = io.BytesIO()

    run_file(src, dst, workers=1)

    assert json.loads(dst.getvalue())["answer"] == "5"


# --------------------------------------------------------------------------- stop and resume
def stop_after(batches: int) -> object:
    """A ``stop`` callable that asks to stop once ``batches`` batches were written."""
    seen = {"n": 0}

    def on_progress(_: object) -> None:
        seen["n"] += 1

    return on_progress, lambda: seen["n"] >= batches


@pytest.mark.parametrize("out_name", ["out.jsonl", "out.json", "out.csv", "out.parquet"])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_stopped_run_leaves_a_valid_file_and_resume_finishes_it(
    tmp_path: Path, out_name: str, workers: int
) -> None:
    lines: list[dict[str, object] | str] = list(records(200))
    lines[150] = "not json"
    src = write_jsonl(tmp_path / "in.jsonl", lines)
    dst = tmp_path / out_name
    on_progress, stop = stop_after(3)

    first = run_file(
        src,
        dst,
        workers=workers,
        batch_size=20,
        on_progress=on_progress,
        stop=stop,  # type: ignore[arg-type]
    )

    assert first.interrupted and first.consumed == 60 and first.last_written == 60
    assert [int(str(r["id"])) for r in read_any(dst)] == list(range(60))  # valid, whole batches
    assert progress_path(dst).exists()

    rest = run_file(src, dst, workers=workers, batch_size=20, resume=True)

    assert not rest.interrupted and rest.resumed_from == 60
    assert (rest.read, rest.written, rest.malformed_count) == (200, 199, 1)  # the whole run
    assert [int(str(r["id"])) for r in read_any(dst)] == [i for i in range(200) if i != 150]
    assert not progress_path(dst).exists()


def test_resume_cuts_off_what_was_written_after_the_last_recorded_batch(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(records(100)))
    dst = tmp_path / "out.jsonl"
    on_progress, stop = stop_after(2)
    run_file(src, dst, workers=1, batch_size=10, on_progress=on_progress, stop=stop)  # type: ignore[arg-type]
    with dst.open("ab") as f:
        f.write(b'{"id": 20, "raw_output": "half a rec')  # a kill in the middle of a write

    run_file(src, dst, workers=1, batch_size=10, resume=True)

    assert [r["id"] for r in read_jsonl(dst)] == list(range(100))


def test_resume_refuses_a_run_with_other_options(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(records(100)))
    dst = tmp_path / "out.jsonl"
    on_progress, stop = stop_after(1)
    run_file(src, dst, workers=1, batch_size=10, on_progress=on_progress, stop=stop)  # type: ignore[arg-type]

    with pytest.raises(ConfigError, match="different run"):
        run_file(src, dst, workers=1, batch_size=10, prefix="x_", resume=True)


def test_continuing_a_finished_output_says_there_is_nothing_to_continue(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(records(5)))
    dst = tmp_path / "out.jsonl"
    run_file(src, dst, workers=1)

    with pytest.raises(ConfigError, match="nothing to continue"):
        run_file(src, dst, workers=1, resume=True)
    assert len(read_jsonl(dst)) == 5  # untouched


def test_only_a_few_batches_are_read_ahead(tmp_path: Path) -> None:
    # 20 MB: reads of a megabyte (READ_BYTES) ahead of the batches are still far from it.
    src = write_jsonl(tmp_path / "in.jsonl", [r | {"pad": "x" * 5000} for r in records(4000)])
    on_progress, stop = stop_after(1)
    with src.open("rb") as stream:
        run_file(
            stream,
            tmp_path / "out.jsonl",
            workers=1,
            batch_size=10,
            on_progress=on_progress,
            stop=stop,  # type: ignore[arg-type]
        )
        position = stream.tell()

    assert position < src.stat().st_size // 5  # far from the whole file


def test_verify_mode_grades_every_record_against_its_gold(tmp_path: Path) -> None:
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"id": 1, "raw_output": "#### 72", "gold": 72},
            {"id": 2, "raw_output": "#### 70", "gold": "72"},
            {"id": 3, "raw_output": "#### 72"},  # no gold: malformed
        ],
    )
    reported: list[MalformedLine] = []

    run_file(src, tmp_path / "out.jsonl", mode="verify", workers=1, on_error=reported.append)

    rows = read_jsonl(tmp_path / "out.jsonl")
    assert [(r["id"], r["correct"], r["reason"]) for r in rows] == [
        (1, True, "equivalent"),
        (2, False, "different"),
    ]
    assert reported == [MalformedLine(line=3, reason="no 'gold' field")]


def test_a_replaced_parquet_column_is_named_and_a_prefix_keeps_it(tmp_path: Path) -> None:
    src = tmp_path / "in.parquet"
    pq.write_table(pa.table({"raw_output": ["#### 5"], "answer": ["6"]}), src)

    replaced = run_file(src, tmp_path / "a.parquet", workers=1)
    kept = run_file(src, tmp_path / "b.parquet", workers=1, prefix="x_")

    assert replaced.replaced_fields == ["answer"]
    assert pq.read_table(tmp_path / "a.parquet").column("answer").to_pylist() == ["5"]
    assert kept.replaced_fields == []
    out = pq.read_table(tmp_path / "b.parquet")
    assert (out.column("answer")[0].as_py(), out.column("x_answer")[0].as_py()) == ("6", "5")


def test_two_workers_pass_batches_through_spool_files_and_leave_none_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from answerx.batch import files

    made: list[str] = []
    real = files.spool_dir

    def spool_dir() -> str:
        made.append(real())
        return made[-1]

    monkeypatch.setattr(files, "spool_dir", spool_dir)
    src = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(records(3000)), src, row_group_size=500)

    two = run_file(src, tmp_path / "two.jsonl", workers=2, batch_size=256)

    assert two.written == 3000
    assert len(made) == 1 and not Path(made[0]).exists()  # its files were read and removed
    run_file(src, tmp_path / "one.jsonl", workers=1, batch_size=256)
    assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()


def test_a_large_result_comes_back_as_a_file_that_reading_removes(tmp_path: Path) -> None:
    from answerx.batch._jobs import SPOOL_MIN, Job, Settings, Spooled, run_job, unspool

    block = "".join(json.dumps(r) + "\n" for r in records(2000)).encode()
    assert len(block) > SPOOL_MIN

    done = run_job(Job(1, lines=block, spool=str(tmp_path)), Settings(payload="jsonl"))

    assert isinstance(done.payload, Spooled) and Path(done.payload.path).exists()
    lines = unspool(done.payload).decode().splitlines()
    assert [json.loads(line)["id"] for line in lines] == list(range(2000))
    assert list(tmp_path.iterdir()) == []


def test_jsonl_to_parquet_on_two_workers_gives_every_batch_the_first_batchs_columns(
    tmp_path: Path,
) -> None:
    rows: list[dict[str, object] | str] = [
        {"id": i, "raw_output": OUTPUTS[i % 5], "score": 0.5} for i in range(40)
    ]
    rows += [{"id": i, "raw_output": OUTPUTS[i % 5], "score": 2, "extra": "x"}
             for i in range(40, 80)]  # fmt: skip
    rows += [{"id": i, "raw_output": OUTPUTS[i % 5]} for i in range(80, 120)]
    src = write_jsonl(tmp_path / "in.jsonl", rows)

    summary = run_file(src, tmp_path / "out.parquet", workers=2, batch_size=40)

    table = pq.read_table(tmp_path / "out.parquet")
    assert summary.written == 120 and table.column("id").to_pylist() == list(range(120))
    assert "extra" not in table.column_names  # not in the first batch's records
    assert table.schema.field("score").type == pa.float64()  # the first batch's type
    assert table.column("score").to_pylist() == [0.5] * 40 + [2.0] * 40 + [None] * 40


def test_a_jsonl_batch_that_cannot_take_the_first_batchs_types_is_a_clear_error(
    tmp_path: Path,
) -> None:
    rows: list[dict[str, object] | str] = [{"raw_output": "#### 1", "n": 1}] * 10
    rows += [{"raw_output": "#### 1", "n": 0.5}] * 10
    src = write_jsonl(tmp_path / "in.jsonl", rows)

    with pytest.raises(InputError, match=r"field 'n'.*write JSONL"):
        run_file(src, tmp_path / "out.parquet", workers=1, batch_size=10)


def test_parquet_with_a_list_column_to_csv_over_many_batches_writes_it_as_json_text(
    tmp_path: Path,
) -> None:
    src = tmp_path / "in.parquet"
    rows = [{"id": i, "raw_output": "The answer is Rome.", "choices": ["Paris", "Rome"]}
            for i in range(50)]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows), src)

    run_file(src, tmp_path / "out.csv", workers=2, batch_size=8)

    written = read_any(tmp_path / "out.csv")
    assert [r["id"] for r in written] == [str(i) for i in range(50)]
    assert {(r["choices"], r["answer"]) for r in written} == {('["Paris", "Rome"]', "B")}


def test_a_parquet_run_stopped_before_its_first_batch_leaves_no_invalid_file(
    tmp_path: Path,
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", list(records(30)))
    dst = tmp_path / "out.parquet"

    first = run_file(src, dst, workers=1, batch_size=10, stop=lambda: True)

    assert first.interrupted and first.written == 0
    assert not dst.exists()  # not a 0-byte file that no Parquet reader opens
    rest = run_file(src, dst, workers=1, batch_size=10, resume=True)  # a resume is a first run
    assert rest.written == 30 and pq.read_table(dst).num_rows == 30


# Two workers forked here: the output is written by a process of its own (batch.writer).
@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.forks_here)])
def test_jsonl_to_parquet_types_a_column_by_the_first_batch_that_has_values_in_it(
    tmp_path: Path, workers: int
) -> None:
    # The first batch's choices are all null (no type yet); later batches hold lists.
    rows: list[dict[str, object] | str] = [
        {"id": i, "raw_output": "The answer is (B).", "choices": None} for i in range(20)
    ]
    rows += [{"id": i, "raw_output": "The answer is Rome.", "choices": ["Paris", "Rome"]}
             for i in range(20, 60)]  # fmt: skip
    src = write_jsonl(tmp_path / "in.jsonl", rows)

    summary = run_file(src, tmp_path / "out.parquet", workers=workers, batch_size=10)

    table = pq.read_table(tmp_path / "out.parquet")
    assert summary.written == 60 and table.column("id").to_pylist() == list(range(60))
    assert table.schema.field("choices").type == pa.list_(pa.string())
    assert table.column("choices").to_pylist() == [None] * 20 + [["Paris", "Rome"]] * 40
    assert table.column("answer").to_pylist()[20:] == ["B"] * 40


def test_a_column_null_for_longer_than_the_rows_held_back_is_written_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("answerx.batch.outputs.HOLD_ROWS", 20)
    rows: list[dict[str, object] | str] = [
        {"id": i, "raw_output": "#### 7", "note": None} for i in range(30)
    ]
    rows += [{"id": i, "raw_output": "#### 7", "note": "late"} for i in range(30, 40)]
    src = write_jsonl(tmp_path / "in.jsonl", rows)

    run_file(src, tmp_path / "out.parquet", workers=1, batch_size=10)

    table = pq.read_table(tmp_path / "out.parquet")
    assert table.schema.field("note").type == pa.string()  # typed when 20 rows were held
    assert table.column("note").to_pylist() == [None] * 30 + ["late"] * 10


def test_a_run_stopped_while_rows_are_held_writes_them_and_resumes_after_them(
    tmp_path: Path,
) -> None:
    # "note" is null throughout: every batch is held until the run stops.
    rows: list[dict[str, object] | str] = [
        {"id": i, "raw_output": "#### 7", "note": None} for i in range(50)
    ]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    dst = tmp_path / "out.parquet"
    on_progress, stop = stop_after(2)

    first = run_file(src, dst, workers=1, batch_size=10, on_progress=on_progress, stop=stop)  # type: ignore[arg-type]

    assert first.interrupted and pq.read_table(dst).column("id").to_pylist() == list(range(20))
    assert progress_path(dst).exists()  # the checkpoint that waited for the held rows
    rest = run_file(src, dst, workers=1, batch_size=10, resume=True)
    assert rest.written == 50 and pq.read_table(dst).column("id").to_pylist() == list(range(50))
