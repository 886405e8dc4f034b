"""`answerx.recordfiles.csvfile`: CSV records in blocks, every malformed one named with its
number and line, the records around it kept (issue 30 §7: a quote that never closes)."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from answerx.errors import UnreadableFile
from answerx.recordfiles import csvfile
from answerx.recordfiles.csvfile import BadRow, CsvReader

UNCLOSED = "a quoted cell opened in this row is never closed"


def read(data: bytes, **options: object) -> tuple[list[tuple[int, dict[str, str]]], list[BadRow]]:
    """(record number, row) of every good record, and the malformed ones."""
    reader = CsvReader(io.BytesIO(data), where="in.csv", **options)  # type: ignore[arg-type]
    rows: list[tuple[int, dict[str, str]]] = []
    bad: list[BadRow] = []
    for block in reader:
        bad.extend(block.bad)
        if block.rows is not None:
            rows += list(enumerate(block.rows.to_pylist(), start=block.first))
    return rows, bad


def test_a_quote_that_never_closes_costs_only_its_own_row() -> None:
    data = (
        b"id,raw_output\n"
        + b"".join(f"{i},The answer is {i}\n".encode() for i in range(1, 6))
        + b'6,"unclosed quote\n7,The answer is 7\n'
    )

    rows, bad = read(data)

    assert [(b.number, b.line) for b in bad] == [(6, 7)]
    assert bad[0].problem.startswith(UNCLOSED)
    assert [n for n, _ in rows] == [1, 2, 3, 4, 5, 7]  # 7 records, 7 numbers
    assert rows[-1][1] == {"id": "7", "raw_output": "The answer is 7"}


def test_a_quote_that_closes_in_another_row_is_caught_too() -> None:
    # Two stray quotes pair up across rows: without a strict reader rows 6 to 8 would
    # be one record whose output is 'a\n7,b\n8,c'.
    rows, bad = read(b'id,raw_output\n6,"a\n7,b\n8,"c\n9,d\n')

    assert [(b.number, b.line) for b in bad] == [(1, 2), (3, 4)]
    assert "',' expected after '\"'" in bad[0].problem and bad[1].problem.startswith(UNCLOSED)
    assert [(n, r["id"]) for n, r in rows] == [(2, "7"), (4, "9")]


def test_a_quote_inside_a_quoted_cell_must_be_doubled() -> None:
    rows, bad = read(b'id,raw_output\n1,"say ""yes"""\n2,"say "no""\n3,ok\n')

    assert rows[0][1]["raw_output"] == 'say "yes"'
    assert [(b.number, b.line) for b in bad] == [(2, 3)]
    assert 'written as two ("")' in bad[0].problem
    assert [n for n, _ in rows] == [1, 3]


@pytest.mark.parametrize(
    "data",
    [
        b'id,raw_output\n1,"two\nlines"\n2,""\n3,"a,b"\n4,"q ""x"""\r\n5,plain\n',
        b'id,raw_output\n1,bare "quotes" inside\n2,x\n',  # the csv module keeps them
        b"id,raw_output\n\n1,a\n\n2,b\n",  # blank lines are not records
    ],
)
def test_well_formed_files_read_as_the_csv_module_reads_them(data: bytes) -> None:
    expected = list(csv.DictReader(io.StringIO(data.decode(), newline="")))

    fast, bad_fast = read(data)
    numbered, bad_numbered = read(data, numbered=True)

    assert bad_fast == bad_numbered == []
    assert [r for _, r in fast] == [r for _, r in numbered] == expected


def test_a_clean_block_is_parsed_by_pyarrow_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_reread(*_: object) -> object:
        raise AssertionError("a well-formed block was read again by the csv module")

    monkeypatch.setattr(csvfile, "_strict_records", no_reread)

    rows, bad = read(b'id,raw_output\n1,"two\nlines, ""quoted"""\n2,x\n')

    assert bad == [] and [r["raw_output"] for _, r in rows] == ['two\nlines, "quoted"', "x"]


def test_numbered_rows_know_the_line_they_start_on() -> None:
    reader = CsvReader(
        io.BytesIO(b'id,raw_output\n1,"a\nb"\n2,c\n3,"d\n'), where="in.csv", numbered=True
    )

    blocks = list(reader)

    assert [block.lines for block in blocks] == [(2, 4), ()]
    assert [(b.number, b.line) for block in blocks for b in block.bad] == [(3, 5)]


def test_the_same_records_whatever_the_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"id,raw_output\n" + b"".join(
        (f'{i},"x\n{i}"\n' if i % 3 else f"{i},y\n").encode() for i in range(200)
    )
    data += b'200,"never closed\n201,z\n202,"w"\n'
    whole = read(data)

    monkeypatch.setattr(csvfile, "BLOCK_BYTES", 7)  # far smaller than one record
    cut = read(data)

    assert cut == whole
    assert [(b.number, b.line) for b in whole[1]] == [(201, 335)]  # 67 + 133 * 2 lines before
    assert [r["id"] for _, r in whole[0]][-2:] == ["201", "202"]


def test_a_record_is_searched_for_once_however_long_it_grows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An unclosed quote makes the rest of the file one pending record: each read must
    # scan only the bytes read last, not everything carried (quadratic on big files).
    scanned: list[int] = []
    real = csvfile._records_end

    def counting(data: bytes, before: int) -> int:
        scanned.append(len(data))
        return real(data, before)

    monkeypatch.setattr(csvfile, "_records_end", counting)
    monkeypatch.setattr(csvfile, "BLOCK_BYTES", 64)
    data = b'id,raw_output\n1,"open\n' + b"2,row\n" * 2000

    rows, bad = read(data)

    assert sum(scanned) <= len(data)
    assert len(rows) == 2000 and [b.number for b in bad] == [1]


def test_a_header_that_is_not_utf8_makes_the_file_unreadable() -> None:
    with pytest.raises(UnreadableFile, match=r"in\.csv: the CSV header is not UTF-8 text"):
        CsvReader(io.BytesIO(b"id,caf\xe9\n1,2\n"), where="in.csv")


@settings(max_examples=400)
@given(st.text(alphabet='ab,"\n\r é', max_size=60))
def test_pyarrow_reads_a_block_only_when_it_reads_it_as_the_csv_module_does(text: str) -> None:
    # The fast path (pyarrow, for blocks the quote check passes) and the strict one (the
    # csv module, every block) find the same rows and the same malformed records.
    data = ("id,raw_output\n" + text).encode()

    assert read(data) == read(data, numbered=True)


def test_a_quote_that_never_closes_in_a_long_file_keeps_memory_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []
    real = csvfile._record_blocks

    def measured(stream: object, rest: bytes, *more: object) -> object:
        for block in real(stream, rest, *more):  # type: ignore[arg-type]
            seen.append(len(block))
            yield block

    monkeypatch.setattr(csvfile, "_record_blocks", measured)
    monkeypatch.setattr(csvfile, "BLOCK_BYTES", 256)  # a record open past 64 x 256 bytes
    data = b'id,raw_output\n1,"never closed\n' + b"".join(
        f"{i},The answer is {i}\n".encode() for i in range(2, 5002)
    )

    rows, bad = read(data)

    assert max(seen) <= 65 * 256 + 64  # never the whole rest of the file
    assert [(b.number, b.line) for b in bad] == [(1, 2)]
    assert [n for n, _ in rows] == list(range(2, 5002))
