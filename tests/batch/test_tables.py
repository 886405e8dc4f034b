"""`answerx.batch.extract_table`: a table in, the same table with flat result columns out."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

import answerx
from answerx.batch import EXTRACT_COLUMNS, as_table, extract_table, verify_table
from answerx.errors import ConfigError, InputError
from answerx.examples import open_examples

RESULT_COLUMNS = [name for name, _ in EXTRACT_COLUMNS] + ["error"]


def examples() -> list[dict[str, object]]:
    with open_examples() as f:
        return [json.loads(line) for line in f]


def test_every_row_gets_what_answerx_extract_finds_for_it() -> None:
    records = examples()
    table = pa.table(
        {
            "raw_output": [r["raw_output"] for r in records],
            "task": [r.get("task") for r in records],
            "choices": [r.get("choices") for r in records],
            "numbers": [r.get("numbers") for r in records],
        }
    )

    out = extract_table(table, task="task", choices="choices", numbers="numbers")

    assert out.column_names == table.column_names + RESULT_COLUMNS
    for row, record in zip(out.to_pylist(), records, strict=True):
        expected = answerx.extract(
            str(record["raw_output"]),
            str(record.get("task") or "auto"),
            choices=record.get("choices"),  # type: ignore[arg-type]
            numbers=record.get("numbers"),  # type: ignore[arg-type]
        )
        assert (row["answer"], row["method"], row["confidence"]) == (
            expected.answer,
            expected.method,
            expected.confidence,
        )
        assert (row["span_start"], row["span_end"]) == (expected.span or (None, None))
        assert row["error"] is None


def test_the_result_columns_have_fixed_arrow_types() -> None:
    out = extract_table(pa.table({"raw_output": ["The answer is 4."]}))

    assert [(f.name, f.type) for f in out.schema][1:8] == list(EXTRACT_COLUMNS)


def test_a_record_batch_and_a_pandas_frame_work_like_a_table() -> None:
    pd = pytest.importorskip("pandas")
    batch = pa.record_batch({"raw_output": ["So $x = \\boxed{7}$."]})

    from_batch = extract_table(batch)
    from_pandas = extract_table(pd.DataFrame({"raw_output": ["So $x = \\boxed{7}$."]}))

    assert from_batch.to_pylist() == from_pandas.to_pylist()
    assert from_batch.column("answer").to_pylist() == ["7"]


def test_a_null_output_gives_a_null_result_and_no_error() -> None:
    out = extract_table(pa.table({"raw_output": ["#### 12", None]}))

    assert out.to_pylist()[1] == {"raw_output": None} | dict.fromkeys(RESULT_COLUMNS)


def test_a_bad_row_gets_its_reason_and_the_other_rows_their_answers() -> None:
    table = pa.table(
        {
            "raw_output": ["The answer is (B).", "The answer is 3.", "The answer is (A)."],
            "task": ["multiple_choice", "quiz", None],
            "choices": ['["Paris", "Rome"]', None, "Paris, Rome"],  # CSV holds JSON text
        }
    )

    out = extract_table(table, task="task", choices="choices")

    assert out.column("answer").to_pylist() == ["B", None, None]
    errors = out.column("error").to_pylist()
    assert errors[0] is None
    assert "unknown task 'quiz'" in errors[1]
    assert "'choices' must be a list of strings" in errors[2]


def test_an_output_column_that_is_not_text_is_a_reason_on_every_row() -> None:
    out = extract_table(pa.table({"raw_output": [1, 2]}))

    assert out.column("error").to_pylist() == ["'raw_output' is int, not a string"] * 2


def test_a_task_name_applies_to_every_row() -> None:
    table = pa.table({"raw_output": ["Yes, it is prime.", "No."]})

    out = extract_table(table, task="boolean")

    assert out.column("answer").to_pylist() == [
        answerx.extract("Yes, it is prime.", "boolean").answer,
        answerx.extract("No.", "boolean").answer,
    ]


def test_a_prefix_keeps_an_input_answer_column_and_no_prefix_replaces_it() -> None:
    table = pa.table({"raw_output": ["The answer is 5."], "answer": ["6"]})

    kept = extract_table(table, prefix="x_")
    replaced = extract_table(table)

    assert (kept.column("answer")[0].as_py(), kept.column("x_answer")[0].as_py()) == ("6", "5")
    assert replaced.column_names.count("answer") == 1
    assert replaced.column("answer")[0].as_py() == "5"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"column": "text"}, "no column 'text'"),
        ({"task": "quiz"}, "neither a task"),
        ({"choices": "options"}, "no column 'options'"),
    ],
)
def test_a_mistake_in_the_call_raises_config_error(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        extract_table(pa.table({"raw_output": ["x"]}), **kwargs)


def test_something_that_is_not_a_table_raises_input_error() -> None:
    with pytest.raises(InputError, match="not a table"):
        as_table(42)


def test_verify_table_grades_each_row_and_keeps_the_extraction_columns() -> None:
    table = pa.table(
        {
            "raw_output": [
                "6 * 7 = 42, so the answer is 42.",
                "So $x = \\boxed{3}$.",
                "Let me think. First, 3 +",
                None,
            ],
            "gold": ["42", "4", "1", "1"],
            "finish_reason": [None, None, "length", None],
        }
    )

    out = verify_table(table, finish_reason="finish_reason")

    rows = out.to_pylist()
    assert [r["correct"] for r in rows] == [True, False, False, None]
    assert [r["reason"] for r in rows] == ["equivalent", "different", "unfinished", None]
    assert rows[1]["answer"] == "3" and rows[1]["method"] == "boxed"
    assert rows[2]["unfinished"] is True
    expected = answerx.verify("6 * 7 = 42, so the answer is 42.", "42")
    assert (rows[0]["how"], rows[0]["error"]) == (expected.how, None)


def test_a_finish_reason_of_length_marks_an_output_unfinished() -> None:
    table = pa.table({"raw_output": ["Let me think. First, 3"], "fr": ["length"]})

    out = extract_table(table, finish_reason="fr")

    assert out.column("unfinished").to_pylist() == [True]
