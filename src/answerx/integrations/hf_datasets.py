"""Hugging Face ``datasets``: extraction and verification as ``Dataset.map`` functions.

>>> # ds = ds.map(extract_batch, batched=True, num_proc=8)
>>> # ds = ds.map(verify_batch, batched=True, fn_kwargs={"output": "completion"})

:func:`extract_batch` and :func:`verify_batch` are plain module-level
functions: they pickle to worker processes (``num_proc``), and ``datasets``
hashes them by reference, so the cache fingerprint of a ``map`` is the same in
every session (options go through ``fn_kwargs``, which are hashed by value).
They take the batch as ``datasets`` hands it: a dict of columns (the default
format) or a ``pyarrow.Table`` (``ds.with_format("arrow")``), and return only
the new columns (a dict) or the whole table (Arrow), which ``map`` merges.
``datasets`` itself is never imported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from answerx.batch.table_calls import extract_table, verify_table
from answerx.batch.tables import EXTRACT_COLUMNS, VERIFY_COLUMNS

__all__ = ["extract_batch", "verify_batch"]


def extract_batch(
    batch: Mapping[str, list[Any]] | pa.Table,
    *,
    column: str = "raw_output",
    task: str = "auto",
    choices: str | None = None,
    numbers: str | None = None,
    prefix: str = "",
) -> dict[str, list[Any]] | pa.Table:
    """The extraction columns of :func:`answerx.batch.extract_table` for one ``map`` batch."""
    if isinstance(batch, pa.Table):
        return extract_table(
            batch, column=column, task=task, choices=choices, numbers=numbers, prefix=prefix
        )
    used = _columns(batch, column, task, choices, numbers)
    out = extract_table(
        used, column=column, task=task, choices=choices, numbers=numbers, prefix=prefix
    )
    return _new_columns(out, EXTRACT_COLUMNS, prefix)


def verify_batch(
    batch: Mapping[str, list[Any]] | pa.Table,
    *,
    output: str = "raw_output",
    gold: str = "gold",
    task: str = "auto",
    choices: str | None = None,
    numbers: str | None = None,
    prefix: str = "",
    question: str | None = None,
) -> dict[str, list[Any]] | pa.Table:
    """The verdict columns of :func:`answerx.batch.verify_table` for one ``map`` batch: a
    ``gold`` column holding lists gives accepted answers; ``question`` names a column of
    questions."""
    options: dict[str, Any] = {
        "output": output, "gold": gold, "task": task, "choices": choices, "numbers": numbers,
        "prefix": prefix, "question": question,
    }  # fmt: skip
    if isinstance(batch, pa.Table):
        return verify_table(batch, **options)
    used = _columns(batch, output, task, choices, numbers, gold, question)
    out = verify_table(used, **options)
    return _new_columns(out, VERIFY_COLUMNS, prefix)


def _columns(batch: Mapping[str, list[Any]], *names: str | None) -> pa.Table:
    # Only the columns extraction reads: a batch may also hold images or long token lists.
    wanted = {name for name in names if name is not None and name in batch}
    return pa.table({name: batch[name] for name in wanted})


def _new_columns(
    out: pa.Table, columns: tuple[tuple[str, pa.DataType], ...], prefix: str
) -> dict[str, list[Any]]:
    names = [prefix + name for name, _ in columns] + [prefix + "error"]
    return {name: out.column(name).to_pylist() for name in names}
