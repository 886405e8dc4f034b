"""AgentRecord JSONL files: written by answerx or by DeepResearch-style agents, tallied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from answerx.agent import (
    AgentRecord,
    Termination,
    read_records,
    tally_terminations,
    termination_table,
    write_records,
)
from answerx.errors import InputError
from answerx.structured.callinfo import Usage

#: Result lines as DeepResearch's react agent writes them: no usage, extra fields.
DEEPRESEARCH_LINES = [
    {
        "question": "Who wrote Dune?",
        "answer": "Frank Herbert",
        "messages": [{"role": "user", "content": "Who wrote Dune?"}],
        "prediction": "Frank Herbert",
        "termination": "answer",
        "rollout_id": 1,
    },
    {
        "question": "How many moons has Mars?",
        "answer": 2,
        "messages": [],
        "prediction": "No answer found.",
        "termination": "exceed available llm calls",
    },
    {
        "question": "Q3",
        "answer": ["a", "b"],
        "messages": [],
        "prediction": "a",
        "termination": "generate an answer as token limit reached",
    },
    {
        "question": "Q4",
        "answer": "x",
        "messages": [],
        "prediction": "No answer found.",
        "termination": "exceed available llm calls",
    },
]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_deepresearch_result_lines_read_with_zero_usage(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "iter1.jsonl", [json.dumps(d) for d in DEEPRESEARCH_LINES])

    records = read_records(path)

    assert [r.termination for r in records] == [d["termination"] for d in DEEPRESEARCH_LINES]
    first = records[0]
    assert (first.question, first.answer) == ("Who wrote Dune?", "Frank Herbert")
    assert first.prediction == "Frank Herbert"
    assert (first.usage, first.calls, first.final_attempt) == (Usage(), 0, False)
    assert records[1].answer == "2"  # a numeric gold answer is kept as text
    assert records[2].answer == '["a", "b"]'


def test_tally_counts_terminations_most_frequent_first(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "iter1.jsonl", [json.dumps(d) for d in DEEPRESEARCH_LINES])

    tally = tally_terminations(path)

    assert tally == {
        "exceed available llm calls": 2,
        "answer": 1,
        "generate an answer as token limit reached": 1,
    }
    assert next(iter(tally)) == "exceed available llm calls"


def test_tally_takes_records_too() -> None:
    records = [
        AgentRecord(question="q", termination=Termination.TIMEOUT),
        AgentRecord(question="q", termination=Termination.ANSWER),
        AgentRecord(question="q", termination=Termination.ANSWER),
    ]

    assert tally_terminations(records) == {"answer": 2, "timeout": 1}


def test_write_appends_and_keeps_usage_and_calls(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "results.jsonl"
    record = AgentRecord(
        question="Who wrote Dune?",
        answer="Frank Herbert",
        prediction="Frank Herbert",
        termination=Termination.ANSWER,
        usage=Usage(input_tokens=120, output_tokens=30),
        calls=3,
        latency_s=1.5,
        final_attempt=True,
    )

    assert write_records(path, [record]) == 1
    assert write_records(path, [record]) == 1

    assert read_records(path) == [record, record]
    assert json.loads(path.read_text().splitlines()[0])["usage"] == {
        "input_tokens": 120,
        "output_tokens": 30,
    }


def test_a_line_that_is_not_json_is_an_input_error_naming_its_line(tmp_path: Path) -> None:
    good = json.dumps(DEEPRESEARCH_LINES[0])
    path = write_lines(tmp_path / "broken.jsonl", [good, "", '{"question": "Q", "termination"'])

    with pytest.raises(InputError, match="line 3") as raised:
        tally_terminations(path)

    assert raised.value.line == 3
    assert "broken.jsonl" in str(raised.value)


def test_a_record_without_a_termination_is_an_input_error_naming_the_field(
    tmp_path: Path,
) -> None:
    path = write_lines(tmp_path / "partial.jsonl", ['{"question": "Q", "prediction": "4"}'])

    with pytest.raises(InputError, match="line 1") as raised:
        read_records(path)

    assert "termination" in str(raised.value)


def test_a_line_holding_a_list_is_an_input_error(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "list.jsonl", ["[1, 2]"])

    with pytest.raises(InputError, match="expected a JSON object, not list"):
        read_records(path)


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_records(tmp_path / "absent.jsonl")


def test_the_termination_table_shows_counts_and_shares() -> None:
    console = Console(width=100, record=True)

    console.print(termination_table({"answer": 3, "timeout": 1}, title="terminations"))

    text = console.export_text()
    assert "answer" in text and "75.0%" in text
    assert "timeout" in text and "25.0%" in text
    assert "total" in text and "4" in text
