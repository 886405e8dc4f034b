"""Ray Data on a real local cluster: the same rows as the local path, malformed ones included."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from answerx.batch import extract_table, run_file
from answerx.cli import app
from answerx.extraction.files import MalformedLine

ray = pytest.importorskip("ray")

from answerx.integrations.ray import Extractor  # noqa: E402 - only with ray present

OUTPUTS = [
    "48 + 24 = 72 clips.\n#### 72",
    "So $x = \\boxed{\\frac{1}{2}}$.",
    "The answer is (B).",
    None,  # malformed in the file mode: no output
    "Nothing to see here",
]


def table(n: int) -> pa.Table:
    return pa.table(
        {
            "id": list(range(n)),
            "raw_output": [OUTPUTS[i % len(OUTPUTS)] for i in range(n)],
            "task": ["quiz" if i == 7 else None for i in range(n)],  # row 8: an unknown task
        }
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def test_map_batches_with_the_extractor_gives_extract_tables_rows(cluster: Any) -> None:
    data = table(40)

    ds = cluster.data.from_arrow(data).map_batches(
        Extractor,
        batch_format="pyarrow",
        batch_size=8,
        concurrency=2,
        fn_constructor_kwargs={"task": "task"},
    )
    out = pa.concat_tables(cluster.get(ds.to_arrow_refs())).sort_by("id")

    assert out.to_pylist() == extract_table(data, task="task").to_pylist()


def test_engine_ray_writes_parquet_with_the_local_paths_rows(cluster: Any, tmp_path: Path) -> None:
    pq.write_table(table(60), tmp_path / "in.parquet", row_group_size=16)
    local: list[MalformedLine] = []
    run_file(tmp_path / "in.parquet", tmp_path / "local.parquet", workers=1, on_error=local.append)

    result = CliRunner().invoke(
        app,
        [
            *("extract", "--file", str(tmp_path / "in.parquet")),
            *("--out-dir", str(tmp_path / "ray")),
            *("--engine", "ray", "--workers", "2", "--batch-size", "16"),
        ],
    )

    assert result.exit_code == 1, result.output  # malformed rows, as locally
    out = pads.dataset(tmp_path / "ray", format="parquet").to_table().sort_by("id")
    good = out.filter(pa.compute.is_null(out.column("error"))).drop_columns(["error"])
    assert good.to_pylist() == pq.read_table(tmp_path / "local.parquet").to_pylist()
    bad = out.filter(pa.compute.is_valid(out.column("error")))
    assert [(row["id"] + 1, row["error"]) for row in bad.to_pylist()] == [
        (bad.line, bad.reason) for bad in local
    ]
    assert f"with an error {len(local)}" in result.stderr


def jsonl_lines() -> list[str]:
    lines = [json.dumps({"id": i, "raw_output": OUTPUTS[i % 3], "gold": "72"}) for i in range(30)]
    lines[4] = '{"id": 4, "raw_output": "cut off'  # not JSON
    lines[11] = "[1, 2]"  # not a record
    lines[17] = json.dumps({"id": 17, "text": "no raw_output"})
    lines[20] = ""  # blank: not a record, but it counts as a line
    return lines


def test_engine_ray_reports_bad_jsonl_lines_by_number_and_extracts_the_rest_as_locally(
    cluster: Any, tmp_path: Path
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(jsonl_lines()) + "\n", encoding="utf-8")
    local: list[MalformedLine] = []
    run_file(src, tmp_path / "local.parquet", workers=1, on_error=local.append)

    result = CliRunner().invoke(
        app,
        [
            *("extract", "--file", str(src), "--out", str(tmp_path / "ray")),
            *("--engine", "ray", "--workers", "2", "--batch-size", "8"),
        ],
    )

    assert result.exit_code == 1, result.output  # malformed lines, as locally; the job ran on
    out = pads.dataset(tmp_path / "ray", format="parquet").to_table()
    good = out.filter(pa.compute.is_null(out.column("error"))).sort_by("id")
    expected = pq.read_table(tmp_path / "local.parquet")
    assert good.select(expected.column_names).to_pylist() == expected.to_pylist()
    bad = out.filter(pa.compute.is_valid(out.column("error"))).column("error").to_pylist()
    assert sorted(bad) == sorted(f"in.jsonl, line {b.line}: {b.reason}" for b in local)
    assert [b.line for b in local] == [5, 12, 18]
    assert "with an error 3" in result.stderr


def test_verify_engine_ray_sums_up_the_verdicts_it_wrote(cluster: Any, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(jsonl_lines()) + "\n", encoding="utf-8")

    result = CliRunner().invoke(
        app,
        [
            *("verify", "--file", str(src), "--out", str(tmp_path / "ray")),
            *("--engine", "ray", "--workers", "2", "--batch-size", "8"),
        ],
    )

    assert result.exit_code == 1, result.output  # the three bad lines
    # Of the 26 records, those whose output is "#### 72" (every third) are right.
    right = sum(1 for i in range(30) if i % 3 == 0 and i not in (4, 11, 17, 20))
    assert f"26 items: accuracy {right / 26:.1%} ({right}/26;" in result.stderr
    assert "3 malformed lines skipped" in result.stderr
