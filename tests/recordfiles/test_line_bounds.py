"""Line length bounded in every record reader: a line over the maximum is a malformed
record with its number, read past without being held; an input with no line end at all
(``/dev/zero``) is refused, in bounded memory and time."""

from __future__ import annotations

import io
import tracemalloc

import pytest

from answerx.errors import ConfigError, UnreadableFile
from answerx.recordfiles import csvfile
from answerx.recordfiles.csvfile import CsvReader
from answerx.recordfiles.lines import GIVE_UP, line_blocks


class Zeros(io.RawIOBase):
    """An endless input of NUL bytes, as /dev/zero is; ``served`` counts them."""

    served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer)
        view[:] = bytes(len(view))
        self.served += len(view)
        return len(view)


def blocks(data: bytes, max_line: int, max_lines: int = 100) -> list[tuple[bytes, int, bool]]:
    found = line_blocks(io.BytesIO(data), max_lines=max_lines, max_line_bytes=max_line)
    return [(b.data, b.lines, b.too_long) for b in found]


def test_a_line_over_the_maximum_is_a_block_of_its_own_between_the_others() -> None:
    data = b'{"a": 1}\n' + b"x" * 50 + b"\n" + b'{"a": 3}\n'

    assert blocks(data, max_line=20) == [
        (b'{"a": 1}\n', 1, False),
        (b"", 1, True),
        (b'{"a": 3}\n', 1, False),
    ]


def test_a_line_of_exactly_the_maximum_is_kept_and_one_byte_more_is_not() -> None:
    assert blocks(b"x" * 20 + b"\n", max_line=20) == [(b"x" * 20 + b"\n", 1, False)]
    assert blocks(b"x" * 21 + b"\n", max_line=20) == [(b"", 1, True)]
    assert blocks(b"x" * 21, max_line=20) == [(b"", 1, True)]  # the last line, no line end
    assert blocks(b"x" * 20, max_line=20) == [(b"x" * 20, 1, False)]


def test_lines_come_in_blocks_of_at_most_max_lines() -> None:
    data = b"".join(b"%d\n" % i for i in range(7))

    assert [n for _, n, _ in blocks(data, max_line=10, max_lines=3)] == [3, 3, 1]


def test_an_input_with_no_line_end_is_refused_in_bounded_memory() -> None:
    zeros = Zeros()
    stream = io.BufferedReader(zeros, buffer_size=1 << 16)
    tracemalloc.start()
    try:
        with pytest.raises(UnreadableFile, match=r"line 1 has no end .* not a file of text lines"):
            list(line_blocks(stream, max_lines=10, max_line_bytes=1 << 20))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert zeros.served > GIVE_UP * (1 << 20)  # read past, not given up at the maximum
    assert peak < 4 * (1 << 20)  # the maximum line and a read, never the input


def test_a_maximum_below_one_byte_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="at least 1 byte"):
        list(line_blocks(io.BytesIO(b"a\n"), max_lines=1, max_line_bytes=0))


def test_a_csv_line_over_the_maximum_is_a_malformed_record_and_the_rows_after_it_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(csvfile, "BLOCK_BYTES", 64)  # reads of 64 bytes: the line is seen open
    data = b"id,raw_output\n1,The answer is 4\n2," + b"z" * 5000 + b"\n3,The answer is 5\n"

    reader = CsvReader(io.BytesIO(data), where="in.csv", max_line=1000)
    found = list(reader)

    rows = [r for block in found if block.rows is not None for r in block.rows.to_pylist()]
    bad = [b for block in found for b in block.bad]
    assert [r["id"] for r in rows] == ["1", "3"]
    assert [(b.number, b.line) for b in bad] == [(2, 3)]
    assert "longer than the maximum of 1,000 bytes" in bad[0].problem


def test_a_csv_header_with_no_end_is_an_unreadable_file() -> None:
    stream = io.BufferedReader(Zeros(), buffer_size=1 << 16)

    with pytest.raises(UnreadableFile, match="no CSV header"):
        CsvReader(stream, where="/dev/zero", max_line=1 << 16)
