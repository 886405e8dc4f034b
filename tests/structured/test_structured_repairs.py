"""Repairs made before validation: raw control characters inside JSON strings escaped."""

from __future__ import annotations

import json

import pytest

from answerx.structured.repairs import escape_control_characters


@pytest.mark.parametrize(
    ("text", "repaired", "count"),
    [
        ('{"a": "one\ntwo"}', '{"a": "one\\ntwo"}', 1),
        ('{"a": "tab\there", "b": "cr\rlf"}', '{"a": "tab\\there", "b": "cr\\rlf"}', 2),
        ('{"a": "bell\x07"}', '{"a": "bell\\u0007"}', 1),
        # Whitespace between tokens is JSON's own: a pretty-printed object stays as it is.
        ('{\n  "a": "x",\n\t"b": 1\n}', '{\n  "a": "x",\n\t"b": 1\n}', 0),
        # An escaped quote or backslash does not end the string early.
        (
            '{"a": "say \\"hi\\"\nnow", "b": "c:\\\\\n"}',
            '{"a": "say \\"hi\\"\\nnow", "b": "c:\\\\\\n"}',
            2,
        ),
        # Markdown JSON: the fence's newlines and the prose around the object stay.
        (
            'Here:\n```json\n{"a": "x\ny"}\n```\nDone "now"\n',
            'Here:\n```json\n{"a": "x\\ny"}\n```\nDone "now"\n',
            1,
        ),
        ("no json at all\n", "no json at all\n", 0),
        ('["a\nb"]', '["a\\nb"]', 1),
    ],
)  # fmt: skip
def test_raw_control_characters_inside_json_strings_are_escaped(
    text: str, repaired: str, count: int
) -> None:
    assert escape_control_characters(text) == (repaired, count)


def test_the_repaired_text_parses_strictly_to_what_a_lenient_parser_reads() -> None:
    text = '{"steps": "1. add\n2. check", "note": "a\tb\x01"}'
    repaired, _ = escape_control_characters(text)
    assert json.loads(repaired) == json.loads(text, strict=False)


def test_an_unterminated_string_is_left_for_the_validator_to_report() -> None:
    text = '{"a": "never closed\n'
    assert escape_control_characters(text) == (text, 0)


def test_a_megabyte_of_control_characters_is_repaired_in_linear_time() -> None:
    text = '{"a": "' + "x\n" * 500_000 + '"}'
    repaired, count = escape_control_characters(text)
    assert count == 500_000 and json.loads(repaired)["a"] == "x\n" * 500_000
