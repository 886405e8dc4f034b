"""Hugging Face datasets: `Dataset.map(extract_batch, batched=True, num_proc=2)`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import answerx
from answerx.integrations.hf_datasets import extract_batch

datasets = pytest.importorskip("datasets")

OUTPUTS = ["#### 72", "So $x = \\boxed{7}$.", "The answer is (B).", "Hmm.", None] * 4


def test_map_with_two_processes_adds_the_columns_row_for_row(tmp_path: Path) -> None:
    ds = datasets.Dataset.from_dict({"id": list(range(len(OUTPUTS))), "raw_output": OUTPUTS})

    out = ds.map(
        extract_batch,
        batched=True,
        batch_size=4,
        num_proc=2,
        cache_file_name=str(tmp_path / "c.arrow"),
    )

    assert out["id"] == list(range(len(OUTPUTS)))
    assert out["answer"] == [answerx.extract(o).answer if o else None for o in OUTPUTS]
    assert out["error"] == [None] * len(OUTPUTS)


def test_arrow_formatted_batches_and_fn_kwargs() -> None:
    ds = datasets.Dataset.from_dict({"completion": ["Yes.", "No."]}).with_format("arrow")

    out = ds.map(extract_batch, batched=True, fn_kwargs={"column": "completion", "task": "boolean"})

    assert out.with_format(None)["answer"] == [
        answerx.extract("Yes.", "boolean").answer,
        answerx.extract("No.", "boolean").answer,
    ]


def test_the_cache_fingerprint_of_the_function_is_the_same_in_another_process() -> None:
    code = (
        "from datasets.fingerprint import Hasher;"
        "from answerx.integrations.hf_datasets import extract_batch;"
        "print(Hasher.hash(extract_batch))"
    )
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )

    from datasets.fingerprint import Hasher

    assert other.stdout.strip() == Hasher.hash(extract_batch)
