"""Answers made of symbols (issue 37 §3, BIG-Bench-Hard's Dyck languages): kept whole,
compared as written (whitespace aside), and an output that ends right after such an
answer is finished."""

from __future__ import annotations

import pytest

from answerx import extract, verify


@pytest.mark.parametrize(
    ("raw", "answer"),
    [
        ("We close < then ( then [.\nSo the answer is ] ) >", "] ) >"),
        ("So the answer is }.", "}"),
        ("Stack: { [ <\nSo the answer is > ] }\n", "> ] }"),
        ("Closing the stack in order.\nAnswer: ) ) ]", ") ) ]"),
    ],
)
@pytest.mark.parametrize("task", ["text", "auto"])
def test_a_sequence_of_brackets_after_a_marker_is_the_whole_answer(
    raw: str, answer: str, task: str
) -> None:
    result = extract(raw, task)
    assert (result.answer, result.task, result.unfinished) == (answer, "text", False)


@pytest.mark.parametrize(
    ("output", "gold", "correct"),
    [
        ("So the answer is ] > )", "] > )", True),
        ("So the answer is ]>)", "] > )", True),
        ("So the answer is ] ) >", "] > )", False),
        ("So the answer is ] >", "] > )", False),
    ],
)
def test_symbol_answers_compare_as_written_whitespace_aside(
    output: str, gold: str, correct: bool
) -> None:
    assert verify(output, gold, task="text").correct is correct
    assert verify(output, gold).correct is correct
