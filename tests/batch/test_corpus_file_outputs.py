"""The dev corpus as one file: a run on workers writes, byte for byte, what one process
writes, and extraction what the single-core ``extract_file`` writes (its per-record
steps are the run's). bench/batch.py checks the same against main's code (``--baseline``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from answerx.batch import run_file
from answerx.extraction.files import extract_file
from corpus import CORPUS_FILES, corpus_dir, load

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.slow,
    pytest.mark.skipif(corpus_dir() is None, reason="../shared/data/corpus not present"),
]


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for name in CORPUS_FILES:
            for item in load(name):
                record = {"id": item.id, "raw_output": item.raw_output, "task": item.task,
                          "choices": item.choices, "gold": item.gold}  # fmt: skip
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def test_extracting_the_corpus_on_workers_writes_what_one_process_writes(
    corpus_file: Path, tmp_path: Path
) -> None:
    with (tmp_path / "reference.jsonl").open("w", encoding="utf-8") as reference:
        extract_file(corpus_file, reference)
    run_file(corpus_file, tmp_path / "one.jsonl", workers=1, batch_size=256)
    two = run_file(corpus_file, tmp_path / "two.jsonl", workers=2, batch_size=256)

    assert two.written == 3000
    expected = (tmp_path / "reference.jsonl").read_bytes()
    assert (tmp_path / "one.jsonl").read_bytes() == expected
    assert (tmp_path / "two.jsonl").read_bytes() == expected


def test_verifying_the_corpus_on_workers_writes_what_one_process_writes(
    corpus_file: Path, tmp_path: Path
) -> None:
    one = run_file(corpus_file, tmp_path / "one.jsonl", mode="verify", workers=1, batch_size=256)
    two = run_file(corpus_file, tmp_path / "two.jsonl", mode="verify", workers=2, batch_size=256)
    records = [json.loads(line) for line in corpus_file.read_text(encoding="utf-8").splitlines()]
    schema = pa.schema(
        [("id", pa.string()), ("raw_output", pa.string()), ("task", pa.string()),
         ("choices", pa.list_(pa.string())), ("gold", pa.string())]
    )  # fmt: skip
    src = tmp_path / "corpus.parquet"
    pq.write_table(pa.Table.from_pylist(records, schema=schema), src)
    run_file(src, tmp_path / "one.parquet", mode="verify", workers=1, batch_size=256)
    run_file(src, tmp_path / "two.parquet", mode="verify", workers=2, batch_size=256)

    assert (one.correct, one.by_reason) == (two.correct, two.by_reason)
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert pq.read_table(tmp_path / "one.parquet").equals(pq.read_table(tmp_path / "two.parquet"))
