"""Lines of text in bounded memory, whatever the input holds: a line over the maximum
is read past, not held.

A record reader reads lines (JSONL) or blocks that end at a line (CSV); an input
with no line end at all (``/dev/zero``, a binary file, one 50 GB line) would make
it hold the whole input. Here no line is held beyond :data:`MAX_LINE_BYTES` (64
MiB by default, configurable): a longer line is reported as such (its number, so
its reader can name it a malformed record) and read past in blocks of
:data:`READ_BYTES`. An input whose line goes on for :data:`GIVE_UP` times the
maximum (128 MiB more by default) is taken for what it must be, not lines of text,
and refused (:class:`~answerx.errors.UnreadableFile`): a device such as
``/dev/zero`` never ends, so reading past it would not either.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from answerx.errors import ConfigError, UnreadableFile

__all__ = [
    "BLOCK_BYTES",
    "GIVE_UP",
    "MAX_LINE_BYTES",
    "READ_BYTES",
    "LineBlock",
    "check_max_line",
    "line_blocks",
    "skip_line",
    "too_long",
]

MAX_LINE_BYTES = 64 << 20
"""The longest line a record reader holds (bytes, without its line end)."""
READ_BYTES = 1 << 20
"""How much of a line over the maximum is read at a time, on the way past it."""
BLOCK_BYTES = 16 << 20
"""A block of lines ends once it holds this many bytes, however few its lines."""
GIVE_UP = 2
"""A line still going after this many times the maximum: the input is not text lines."""


@dataclass(frozen=True, slots=True)
class LineBlock:
    """Consecutive lines of an input: whole lines, or one line over the maximum."""

    data: bytes
    """The lines with their line ends (the input's last line may have none); empty
    for a line over the maximum."""
    lines: int
    """How many lines it covers."""
    too_long: bool = False
    """One line longer than the maximum, read past."""


def check_max_line(max_line_bytes: int) -> int:
    """``max_line_bytes``, or :class:`~answerx.errors.ConfigError` when it is below 1."""
    if max_line_bytes < 1:
        raise ConfigError(f"the maximum line length must be at least 1 byte, not {max_line_bytes}")
    return max_line_bytes


def too_long(max_line_bytes: int) -> str:
    """The reason a line over ``max_line_bytes`` is malformed, for a person to read."""
    return (
        f"line longer than the maximum of {_size(max_line_bytes)} "
        "(read past; max_line_bytes raises it)"
    )


def line_blocks(
    stream: IO[bytes],
    *,
    max_lines: int,
    max_line_bytes: int = MAX_LINE_BYTES,
    where: str = "input",
    first_line: int = 1,
) -> Iterator[LineBlock]:
    """``stream``'s lines, ``max_lines`` (or :data:`BLOCK_BYTES`) at a time, each line
    over ``max_line_bytes`` a block of its own (``too_long``) read past.

    Read :data:`READ_BYTES` at a time and cut at line ends found by ``bytes.find``: the
    lines are never split one by one in Python (a ``readline`` per line cost the one
    process that reads a file run's input half its work). At most ``max_line_bytes``
    and one read of a line are held before it is known to be over the maximum.

    ``first_line`` numbers the stream's first line in the error raised for an input
    that is not lines at all (:class:`~answerx.errors.UnreadableFile`, see the module).
    """
    check_max_line(max_line_bytes)
    data = b""  # read and not yet handed out: whole lines, then the start of one
    line = first_line
    ended = False
    while True:
        end = scan = count = 0
        while count < max_lines and end < BLOCK_BYTES:
            newline = data.find(b"\n", scan)
            if newline < 0:
                started = len(data) - end  # of the line at ``end``, read so far
                if ended or started > max_line_bytes:
                    break
                # Never more than the maximum and a byte of one line: enough to know.
                more = stream.read(min(READ_BYTES, max_line_bytes + 1 - started))
                scan = len(data)
                if more:
                    data += more
                else:
                    ended = True
                continue
            if newline - end > max_line_bytes:
                break
            end = scan = newline + 1
            count += 1
        if count:
            yield LineBlock(data[:end], count)
            data = data[end:]
            line += count
            continue
        newline = data.find(b"\n")
        if newline >= 0:  # a line over the maximum, its end already read
            data = data[newline + 1 :]
        elif len(data) > max_line_bytes:  # over the maximum, its end still to come
            data = b""
            skip_line(stream, max_line_bytes, where, line)
        else:  # the input's end
            if data:
                yield LineBlock(data, 1)  # the last line, without its end
            return
        yield LineBlock(b"", 1, too_long=True)
        line += 1


def skip_line(
    stream: IO[bytes],
    max_line_bytes: int = MAX_LINE_BYTES,
    where: str = "input",
    line: int | None = None,
) -> int:
    """Read past the rest of the current line (its end included), :data:`READ_BYTES` at
    a time, and say how many bytes that was; raise :class:`~answerx.errors.UnreadableFile`
    when it goes on for :data:`GIVE_UP` times ``max_line_bytes``."""
    read = 0
    limit = GIVE_UP * max_line_bytes
    while True:
        chunk = stream.readline(READ_BYTES)
        read += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return read
        if read > limit:
            raise UnreadableFile(
                f"{where}: {'a line' if line is None else f'line {line:,}'} has no end in its "
                f"first {_size(limit)}: this is not "
                "a file of text lines (a device such as /dev/zero, or a binary file)",
                path=where,
            )


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} bytes"
