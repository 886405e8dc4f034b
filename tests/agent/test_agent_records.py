"""AgentRecord JSONL files: written by answerx or by DeepResearch-style agents, tallied with
DeepResearch's success count and rate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerx.agent import (
    AgentRecord,
    Termination,
    deepresearch_fields,
    read_records,
    tally_terminations,
    termination_stats,
    timeout_termination,
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
        AgentRecord.of(question="q", stopped_by=Termination.TIMEOUT, extracted_answer=None),
        AgentRecord.of(question="q", stopped_by=Termination.ANSWER, extracted_answer="4"),
        AgentRecord.of(question="q", stopped_by=Termination.ANSWER, extracted_answer="5"),
    ]

    assert tally_terminations(records) == {"answer": 2, "No answer found after 2h30mins": 1}


def test_stats_add_the_success_count_and_rate_as_deepresearch_evaluates(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "iter1.jsonl", [json.dumps(d) for d in DEEPRESEARCH_LINES])

    stats = termination_stats(path)

    assert stats.model_dump() == {
        "total": 4,
        "successful": 1,
        "by_termination": {
            "exceed available llm calls": 2,
            "answer": 1,
            "generate an answer as token limit reached": 1,
        },
        "success_rate": 25.0,
    }


def test_stats_of_no_records_have_no_rate() -> None:
    stats = termination_stats([])

    assert (stats.total, stats.successful, stats.success_rate) == (0, 0, None)


@pytest.mark.parametrize(
    ("stopped_by", "answer", "reply", "expected"),
    [
        (Termination.ANSWER, "Paris", None, ("Paris", "answer")),
        (Termination.ANSWER_NOT_FOUND, None, None, ("No answer found.", "answer not found")),
        (Termination.EXCEED_CALLS, None, None, ("No answer found.", "exceed available llm calls")),
        (
            Termination.TIMEOUT,
            None,
            None,
            ("No answer found after 2h30mins", "No answer found after 2h30mins"),
        ),
        (
            Termination.TOKEN_LIMIT_ANSWER,
            "Paris",
            "<think>…</think>\n<answer> Paris </answer>",
            # DeepResearch's slice, as written (not stripped)
            (" Paris ", "generate an answer as token limit reached"),
        ),
        (
            Termination.TOKEN_LIMIT_ANSWER,
            "Paris",
            "<answer>Paris",  # unclosed: a format error for DeepResearch
            ("<answer>Paris", "format error: generate an answer as token limit reached"),
        ),
        (
            Termination.TOKEN_LIMIT_FORMAT_ERROR,
            "Probably Paris.",
            " Probably Paris.\n",
            # the whole reply, as DeepResearch keeps it
            (" Probably Paris.\n", "format error: generate an answer as token limit reached"),
        ),
    ],
)
def test_deepresearch_writes_these_prediction_and_termination_strings(
    stopped_by: Termination, answer: str | None, reply: str | None, expected: tuple[str, str]
) -> None:
    assert deepresearch_fields(stopped_by, answer, final_reply=reply) == expected


def test_a_time_limit_of_another_length_is_named_in_deepresearch_form() -> None:
    assert timeout_termination() == "No answer found after 2h30mins"
    assert timeout_termination(9000) == "No answer found after 2h30mins"
    assert timeout_termination(3600) == "No answer found after 1h0mins"
    assert timeout_termination(20) == "No answer found after 20s"


def test_deepresearch_lines_get_answerx_typed_fields(tmp_path: Path) -> None:
    timed_out = "No answer found after 2h30mins"
    lines = [
        *DEEPRESEARCH_LINES,
        {"question": "Q5", "termination": timed_out, "prediction": timed_out},
    ]
    path = write_lines(tmp_path / "iter1.jsonl", [json.dumps(d) for d in lines])

    records = read_records(path)

    assert [(r.extracted_answer, r.stopped_by) for r in records] == [
        ("Frank Herbert", Termination.ANSWER),
        (None, Termination.EXCEED_CALLS),
        ("a", Termination.TOKEN_LIMIT_ANSWER),
        (None, Termination.EXCEED_CALLS),
        (None, Termination.TIMEOUT),
    ]
    assert records[0].succeeded and not records[1].succeeded


def test_answerx_lines_written_before_the_pair_read_with_deepresearch_strings(
    tmp_path: Path,
) -> None:
    old = [
        {"question": "Q", "prediction": None, "termination": "timeout", "calls": 3},
        {"question": "Q", "prediction": None, "termination": "exceed available llm calls"},
        {"question": "Q", "prediction": "4", "termination": "answer", "final_attempt": True},
    ]
    path = write_lines(tmp_path / "old.jsonl", [json.dumps(d) for d in old])

    timed_out, spent, answered = read_records(path)

    assert (timed_out.prediction, timed_out.termination) == (
        "No answer found after 2h30mins",
        "No answer found after 2h30mins",
    )
    assert (timed_out.extracted_answer, timed_out.stopped_by) == (None, Termination.TIMEOUT)
    assert (spent.prediction, spent.extracted_answer) == ("No answer found.", None)
    assert (answered.prediction, answered.extracted_answer, answered.final_attempt) == (
        "4",
        "4",
        True,
    )


def test_another_tools_own_reason_reads_without_a_typed_reason() -> None:
    record = AgentRecord.model_validate(
        {"question": "Q", "prediction": {"text": "x", "json": "x"}, "termination": "crashed"}
    )

    assert record.stopped_by is None and record.extracted_answer is None
    assert json.loads(record.prediction) == {"text": "x", "json": "x"}


def test_write_appends_and_keeps_usage_and_calls(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "results.jsonl"
    record = AgentRecord.of(
        question="Who wrote Dune?",
        gold="Frank Herbert",
        extracted_answer="Frank Herbert",
        stopped_by=Termination.ANSWER,
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
