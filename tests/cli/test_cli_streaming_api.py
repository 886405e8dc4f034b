"""`answerx.extraction.files`: the library under `answerx extract --file`."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from answerx.errors import ConfigError
from answerx.extraction.files import (
    MAX_REPORTED,
    FileSummary,
    MalformedLine,
    extract_file,
    iter_extract,
)


class CountingLines:
    """A line source that counts how many lines the reader has taken so far."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines
        self.taken = 0

    def __iter__(self) -> Iterator[bytes]:
        for line in self.lines:
            self.taken += 1
            yield line


def jsonl(*records: object) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def test_extract_file_adds_the_result_fields_and_keeps_the_rest() -> None:
    src = io.BytesIO(jsonl({"id": 7, "raw_output": "#### 1,234", "extra": [True, None]}))
    dst = io.BytesIO()

    summary = extract_file(src, dst)

    record = json.loads(dst.getvalue())
    assert record == {
        "id": 7,
        "raw_output": "#### 1,234",
        "extra": [True, None],
        "answer": "1234",
        "method": "final_answer_phrase",
        "confidence": 0.9,
        "valid": record["valid"],  # True once the extraction layer checks well-formedness
        "unfinished": False,
        "span_start": 5,
        "span_end": 10,
    }
    assert summary == FileSummary(read=1, written=1, by_method={"final_answer_phrase": 1})


def test_text_streams_work_as_well_as_binary_ones() -> None:
    dst = io.StringIO()

    extract_file(io.StringIO('{"raw_output": "Answer: ünïcode"}\n'), dst)

    assert json.loads(dst.getvalue())["answer"] == "ünïcode"
    assert "ünïcode" in dst.getvalue()  # written as UTF-8 text, not \\u escapes


def test_paths_are_opened_and_written(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(jsonl({"raw_output": "The answer is 3."}))

    extract_file(src, tmp_path / "out.jsonl")

    assert json.loads((tmp_path / "out.jsonl").read_text())["answer"] == "3"


def test_lines_are_read_one_at_a_time() -> None:
    source = CountingLines([jsonl({"raw_output": f"The answer is {i}."}) for i in range(1000)])

    records = iter_extract(source)  # type: ignore[arg-type]
    first = next(records)

    assert first.extraction.answer == "0"
    assert source.taken == 1  # the rest of the file is still unread


def test_malformed_lines_are_reported_to_the_callback_and_counted() -> None:
    src = io.BytesIO(
        jsonl({"raw_output": "The answer is 1."})
        + b"{not json}\n"
        + b"\xff\xfe{}\n"
        + jsonl(
            {"raw_output": 5},
            {"raw_output": "x", "choices": "AB"},
            {"raw_output": "x", "numbers": [4, True]},
            {"raw_output": "The answer is 2."},
        )
    )
    seen: list[MalformedLine] = []

    summary = extract_file(src, io.BytesIO(), on_error=seen.append)

    assert [(m.line, m.reason) for m in seen] == [
        (2, "invalid JSON at column 2: Expecting property name enclosed in double quotes"),
        (
            3,
            "not valid UTF-8 (byte 0xff at byte 1 of the line): save the file as UTF-8 "
            "(e.g. iconv -f latin1 -t utf-8)",
        ),
        (4, "field 'raw_output' is a number, not a string"),
        (5, "field 'choices' must be a list of strings"),
        (6, "field 'numbers' must be a list of numbers"),
    ]
    assert summary.malformed == seen
    assert (summary.read, summary.written, summary.malformed_count) == (7, 2, 5)
    assert not summary.ok


def test_per_record_choices_and_numbers_are_used() -> None:
    src = io.BytesIO(
        jsonl(
            {
                "raw_output": "Answer: lower air pressure",
                "choices": ["colder air", "lower air pressure"],
            },
            {"raw_output": "4 * 6 = 24\n(10 - 4) * (13 - 9)", "numbers": [4, 9, 10, 13]},
        )
    )

    answers = [(r.extraction.answer, r.extraction.task) for r in iter_extract(src)]

    assert answers == [("B", "multiple_choice"), ("(10 - 4) * (13 - 9)", "game24")]


def test_per_record_fields_can_be_switched_off() -> None:
    src = io.BytesIO(jsonl({"raw_output": "Yes, it is 4.", "task": "boolean"}))

    (item,) = iter_extract(src, task="numeric", task_field=None)

    assert item.extraction.answer == "4"


def test_a_bom_and_blank_lines_are_not_malformed() -> None:
    src = io.BytesIO(b"\xef\xbb\xbf" + jsonl({"raw_output": "The answer is 1."}) + b"\n  \r\n")

    summary = extract_file(src, io.BytesIO())

    assert (summary.read, summary.written, summary.malformed_count) == (1, 1, 0)


def test_a_lone_surrogate_is_written_as_valid_json() -> None:
    dst = io.BytesIO()

    extract_file(io.BytesIO(b'{"raw_output": "\\ud800 The answer is 3."}\n'), dst)

    assert json.loads(dst.getvalue().decode("utf-8"))["answer"] == "3"


def test_unknown_task_raises_before_reading() -> None:
    source = CountingLines([jsonl({"raw_output": "x"})])

    with pytest.raises(ConfigError, match="valid tasks: auto, math"):
        iter_extract(source, task="maths")  # type: ignore[arg-type]
    assert source.taken == 0


def test_only_the_first_malformed_lines_are_kept_in_the_summary() -> None:
    src = io.BytesIO(b"[]\n" * (MAX_REPORTED + 5))

    summary = extract_file(src, io.BytesIO())

    assert summary.malformed_count == MAX_REPORTED + 5
    assert len(summary.malformed) == MAX_REPORTED


def test_progress_reports_lines_and_bytes() -> None:
    data = jsonl({"raw_output": "The answer is 1."}, {"raw_output": "The answer is 2."})
    calls: list[tuple[int, int]] = []

    extract_file(io.BytesIO(data), io.BytesIO(), on_progress=lambda n, b: calls.append((n, b)))

    assert calls[-1] == (2, len(data))


def test_nan_and_infinity_become_null_and_are_counted() -> None:
    dst = io.StringIO()

    summary = extract_file(io.StringIO('{"raw_output": "#### 1", "s": [NaN, Infinity]}\n'), dst)

    assert json.loads(dst.getvalue(), parse_constant=pytest.fail)["s"] == [None, None]
    assert summary.nonfinite_nulled == 1
