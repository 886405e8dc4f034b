"""JSON Lines: one record a line, read back into a dict or refused with the reason why,
and records written as standard JSON.

A line is one JSON object in UTF-8 (the first line may start with a byte-order
mark). What is wrong with a line that is not is said in the
:class:`~answerx.errors.InputError`, for a person to read: bytes that are not
UTF-8 (which byte, where, and how to convert the file), invalid JSON (the
column), or a JSON value that is not an object.

JSON has no NaN or Infinity: :func:`dumps_record` writes them as null and says so.
"""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

from answerx.errors import InputError

__all__ = [
    "BOM",
    "dumps_record",
    "finite",
    "json_default",
    "json_object",
    "json_type",
    "not_utf8",
    "split_lines",
]

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark some editors put at the start of a file."""

_JSON_TYPES: dict[type, str] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    type(None): "null",
}


def json_type(value: object) -> str:
    """What a decoded JSON value is, in words: ``"an array"``, ``"null"``, …"""
    return _JSON_TYPES.get(type(value), type(value).__name__)


def json_object(raw: bytes | str, *, first: bool = False) -> dict[str, Any]:
    """The record of one JSONL line (its line end may be included).

    ``first``: the file's first line, which may start with a byte-order mark.
    Raises :class:`~answerx.errors.InputError` saying what is wrong with it.

    >>> json_object(b'{"id": 1}\\n')
    {'id': 1}
    >>> json_object(b"[1, 2]")
    Traceback (most recent call last):
    ...
    answerx.errors.InputError: expected a JSON object, not an array
    """
    if isinstance(raw, bytes):
        data = raw[len(BOM) :] if first and raw.startswith(BOM) else raw
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(not_utf8(data[exc.start], exc.start + 1)) from None
    else:
        text = raw.removeprefix("\ufeff") if first else raw
    try:
        # Without its line end, a line cut inside a string reads "Unterminated string".
        record = json.loads(text.rstrip("\r\n"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON at column {exc.colno}: {exc.msg.removesuffix(' at')}"
        ) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply") from None
    if not isinstance(record, dict):
        raise InputError(f"expected a JSON object, not {json_type(record)}")
    return record


def not_utf8(byte: int, column: int | None = None) -> str:
    """Why text with ``byte`` in it is not UTF-8, and how to convert the file; ``column``:
    where the byte is in its line (1-based), when known."""
    where = f"byte 0x{byte:02x}" + (f" at byte {column} of the line" if column else "")
    return f"not valid UTF-8 ({where}): save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"


def split_lines(block: bytes) -> list[bytes]:
    """A block of whole lines as its lines, as iterating over a binary file gives them
    (without the line ends)."""
    lines = block.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()  # the block ended with a newline
    return lines


def dumps_record(record: dict[str, Any]) -> tuple[str, bool]:
    """``record`` as one line of standard JSON, and whether a NaN/Infinity became null.

    A lone surrogate (from a ``"\\ud800"`` escape in the input) is written
    escaped, so the text always encodes as UTF-8.
    """
    try:
        text = json.dumps(record, ensure_ascii=False, allow_nan=False, default=json_default)
        nulled = False
    except ValueError:
        # Python writes NaN/Infinity as bare words no JSON parser accepts.
        record = finite(record)
        text = json.dumps(record, ensure_ascii=False, allow_nan=False, default=json_default)
        nulled = True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(record, allow_nan=False, default=json_default)
    return text, nulled


def json_default(value: object) -> object:
    """JSON for what Parquet columns hold and JSON lacks: dates and times as ISO 8601,
    bytes as text when UTF-8 (else hex), anything else (Decimal) as its string."""
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.hex()
    return str(value)


def finite(value: Any) -> Any:
    """``value`` with every NaN/Infinity float, however deep, replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value
