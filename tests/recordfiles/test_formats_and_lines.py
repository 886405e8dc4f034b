"""One table of record-file formats for every reader and writer, and the one JSONL line
reader: what a line that is not a record says."""

from __future__ import annotations

from typing import get_args

import pytest

from answerx.cli.options import InputFormatOption
from answerx.errors import InputError
from answerx.experiments import datasets
from answerx.experiments.store import export
from answerx.recordfiles import INPUT_FORMATS, OUTPUT_FORMATS, InputFormat, format_of
from answerx.recordfiles.jsonl import json_object


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("a.jsonl", "jsonl"),
        ("a.NDJSON", "jsonl"),
        ("a.json", "json"),
        ("a.csv", "csv"),
        ("a.parquet", "parquet"),
        ("a.pq", "parquet"),
        ("a.txt", None),
        ("-", None),
    ],
)
def test_a_suffix_names_its_format_in_one_table(path: str, fmt: str | None) -> None:
    assert format_of(path) == fmt


def test_the_input_and_output_formats_are_the_tables_own() -> None:
    assert INPUT_FORMATS == ("jsonl", "csv", "parquet") == tuple(InputFormat)
    assert OUTPUT_FORMATS == ("jsonl", "json", "csv", "parquet")
    assert get_args(InputFormatOption)[0] == InputFormat | None  # the CLI's --input-format


def test_data_sets_and_exports_know_the_pq_suffix(tmp_path: object) -> None:
    spec = datasets.DatasetSpec(path="items.pq")  # type: ignore[arg-type]
    assert spec.file_format == "parquet"
    assert export.export_items([], f"{tmp_path}/items.pq") == 0


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b'{"a": 1', "invalid JSON at column 8: Expecting ',' delimiter"),
        (b"[1, 2]", "expected a JSON object, not an array"),
        (b"null", "expected a JSON object, not null"),
        (
            b'{"q": "caf\xe9"}',
            "not valid UTF-8 (byte 0xe9 at byte 11 of the line): save the file as UTF-8 "
            "(e.g. iconv -f latin1 -t utf-8)",
        ),
        (b"[" * 100_000, "invalid JSON: nested too deeply"),
    ],
)
def test_a_line_that_is_not_a_record_says_why(line: bytes, problem: str) -> None:
    with pytest.raises(InputError) as caught:
        json_object(line)
    assert str(caught.value) == problem


def test_only_the_first_line_may_start_with_a_byte_order_mark() -> None:
    assert json_object(b'\xef\xbb\xbf{"a": 1}\n', first=True) == {"a": 1}
    with pytest.raises(InputError, match="invalid JSON at column 1"):
        json_object(b'\xef\xbb\xbf{"a": 1}\n')
