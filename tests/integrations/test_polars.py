"""polars: one struct per row from `extract_expr`, row for row as answerx."""

from __future__ import annotations

import pytest

import answerx
from answerx.integrations.polars import extract_expr

pl = pytest.importorskip("polars")


def test_an_expression_adds_the_result_fields() -> None:
    df = pl.DataFrame({"id": [1, 2, 3], "raw_output": ["#### 72", None, "\\boxed{5}"]})

    out = df.with_columns(extract_expr("raw_output").alias("x")).unnest("x")

    assert out["answer"].to_list() == ["72", None, "5"]
    assert out["method"].to_list() == [answerx.extract("#### 72").method, None, "boxed"]
    assert out["id"].to_list() == [1, 2, 3]


def test_task_and_choices_columns_are_read_per_row_in_a_lazy_query() -> None:
    lf = pl.LazyFrame(
        {
            "raw_output": ["The answer is (B).", "Yes.", "The answer is 3."],
            "task": ["multiple_choice", "boolean", "quiz"],
            "choices": [["Paris", "Rome"], None, None],
        }
    )

    out = lf.select(extract_expr(task="task", choices="choices").alias("x")).collect()

    results = out["x"].to_list()
    assert results[0]["answer"] == "B"
    assert results[1]["answer"] == answerx.extract("Yes.", "boolean").answer
    assert results[2]["answer"] is None and "unknown task 'quiz'" in results[2]["error"]
