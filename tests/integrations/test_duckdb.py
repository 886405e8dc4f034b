"""DuckDB: `answerx_extract(raw_output)` in SQL over a Parquet file, row for row as answerx."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import answerx
from answerx.integrations import duckdb as answerx_duckdb

duckdb = pytest.importorskip("duckdb")

OUTPUTS = ["48 + 24 = 72 clips.\n#### 72", None, "So $x = \\boxed{\\frac{1}{2}}$.", "Hmm."]


def test_sql_over_parquet_gets_what_answerx_extract_finds(tmp_path: Path) -> None:
    pq.write_table(pa.table({"id": [1, 2, 3, 4], "raw_output": OUTPUTS}), tmp_path / "x.parquet")
    con = answerx_duckdb.register(duckdb.connect())

    rows = con.sql(
        "SELECT id, e.answer, e.method, e.confidence FROM "
        f"(SELECT id, answerx_extract(raw_output) AS e FROM '{tmp_path}/*.parquet') ORDER BY id"
    ).fetchall()

    expected = [answerx.extract(o) if o is not None else None for o in OUTPUTS]
    assert rows == [
        (i + 1, e.answer, e.method, e.confidence) if e else (i + 1, None, None, None)
        for i, e in enumerate(expected)
    ]


def test_a_task_per_row_and_a_bad_task_name_that_costs_only_its_row() -> None:
    con = answerx_duckdb.register(duckdb.connect())

    rows = con.sql(
        "SELECT answerx_extract_as(o, t) AS e FROM (VALUES "
        "('Yes.', 'boolean'), ('The answer is 3.', 'quiz'), ('#### 9', NULL)) v(o, t)"
    ).fetchall()

    assert rows[0][0]["answer"] == answerx.extract("Yes.", "boolean").answer
    assert rows[1][0]["answer"] is None and "unknown task 'quiz'" in rows[1][0]["error"]
    assert rows[2][0]["answer"] == "9"
