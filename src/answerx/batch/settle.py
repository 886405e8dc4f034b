"""A file run's residue answered: each job's uncertain records put to the LLM, then patched.

Workers run the rules on every record; each job hands back, beside its encoded output,
the few records the rules could not decide (:class:`~answerx.batch.residue.Residue`).
Before the job's output is written, the calling process asks the judge (verify) or the
LLM extractor (extract) about them (:mod:`answerx.batch.residue`), patches those
records of the output and the job's counts, and adds what the LLM did and cost to the
run's :class:`~answerx.batch.summary.LLMTotals`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from answerx.batch._jobs import Done, ResultRow, unspool
from answerx.batch.residue import Residue, extract_residue, judge_residue
from answerx.batch.summary import LLMTotals
from answerx.batch.tables import added_columns, extraction_values, verdict_values
from answerx.recordfiles.jsonl import dumps_record

if TYPE_CHECKING:
    from answerx.grading import Verdict
    from answerx.grading.judgement import Judge
    from answerx.judge import LLMExtraction, LLMExtractor

__all__ = ["patch_payload", "settle"]

# The verdict columns a judge's ruling changes (the measures and the extraction stay).
_RULED = ("correct", "reason", "how", "matched_gold", "judge_verdict", "judge_reason")


def settle(
    done: Done,
    *,
    mode: str,
    prefix: str,
    totals: LLMTotals,
    asker: Judge | LLMExtractor,
    concurrency: int,
    stop: Callable[[], bool] | None = None,
) -> bool:
    """Put ``done``'s residue to ``asker`` (the judge in verify mode, the LLM extractor in
    extract mode), patch its payload and counts, add to ``totals``; False when stopped
    first (``done`` is then left as it was, to be run again)."""
    if not done.residue:
        return True
    updates: dict[int, dict[str, Any]] = {}
    if mode == "verify":
        ruled = judge_residue(done.residue, asker, concurrency, stop)  # type: ignore[arg-type]
        if ruled is None:
            return False
        for item, verdict in zip(done.residue, ruled, strict=True):
            _count_ruling(done, totals, item, verdict)
            values = verdict_values(verdict, judging=True) or {}
            updates[item.index] = {prefix + k: values[k] for k in _RULED}
    else:
        read = extract_residue(done.residue, asker, concurrency, stop)  # type: ignore[arg-type]
        if read is None:
            return False
        for item, result in zip(done.residue, read, strict=True):
            _count_reading(done, totals, item, result)
            if result.used:
                values = extraction_values(result.extraction)
                updates[item.index] = {prefix + k: v for k, v in values.items()}
    stopped = getattr(getattr(asker, "summary", None), "stopped", None)
    if stopped is not None:
        totals.stopped = stopped
    if updates:
        types = {prefix + name: type_ for name, type_ in added_columns(mode, mode == "verify")}
        done.payload = patch_payload(done.payload, updates, types)
    done.residue = []
    return True


def _count_ruling(done: Done, totals: LLMTotals, item: Residue, verdict: Verdict) -> None:
    ruling = verdict.judge
    before = item.verdict
    assert before is not None
    totals.asked += 1
    if ruling is None:
        return
    totals.add_call(
        ruling.calls, ruling.input_tokens, ruling.output_tokens, ruling.cost_usd, ruling.cached
    )
    if ruling.verdict is None:
        totals.not_ruled += 1
        return
    totals.ruled += 1
    totals.changed += verdict.correct != before.correct
    _move(done.by_reason, before.reason, verdict.reason)
    done.correct += bool(verdict.correct) - bool(before.correct)


def _count_reading(done: Done, totals: LLMTotals, item: Residue, result: LLMExtraction) -> None:
    before = item.extraction
    assert before is not None
    totals.asked += 1
    totals.add_call(
        result.calls, result.input_tokens, result.output_tokens, result.cost_usd, result.cached
    )
    if not result.used:
        totals.not_ruled += 1
        return
    totals.ruled += 1
    after = result.extraction
    totals.changed += after.answer != before.answer
    _move(done.by_method, before.method, after.method)


def _move(counts: dict[str, int], old: str, new: str) -> None:
    """One record counted under ``new`` instead of ``old``."""
    counts[old] -= 1
    if not counts[old]:
        del counts[old]
    counts[new] = counts.get(new, 0) + 1


# --------------------------------------------------------------------------- payloads
def patch_payload(
    payload: Any, updates: dict[int, dict[str, Any]], types: dict[str, pa.DataType]
) -> Any:
    """``payload`` (a job's output, see :data:`answerx.batch._jobs.Payload`) with the
    values of ``updates`` (row index → column → value) written into those rows."""
    payload = unspool(payload)
    if isinstance(payload, bytes):
        # One record per line (JSON escapes every newline inside a record): JSONL lines,
        # or a JSON array's items joined by ",\n".
        sep = b"\n" if payload.endswith(b"\n") else b",\n"
        parts = payload.split(sep)
        for i, values in updates.items():
            record = json.loads(parts[i])
            record.update(values)
            parts[i] = dumps_record(record)[0].encode("utf-8")
        return sep.join(parts)
    if isinstance(payload, tuple):  # the added columns, and which rows to keep
        keep, added = payload
        return keep, _patch_table(unspool(added), updates, types)
    if isinstance(payload, pa.Table):
        return _patch_table(payload, updates, types)
    if isinstance(payload, list):  # ResultRow s for a sink
        rows: list[ResultRow] = payload
        for i, values in updates.items():
            rows[i].record.update(values)
        return rows
    return payload


def _patch_table(
    table: pa.Table, updates: dict[int, dict[str, Any]], types: dict[str, pa.DataType]
) -> pa.Table:
    names = list(dict.fromkeys(name for values in updates.values() for name in values))
    for name in names:
        type_ = types[name]
        column = table.column(name)
        # A column of the batch's own type, unless all null (Arrow's null type).
        if column.type != pa.null():
            type_ = column.type
        values = column.to_pylist()
        for i, row in updates.items():
            if name in row:
                values[i] = row[name]
        index = table.column_names.index(name)
        table = table.set_column(index, pa.field(name, type_), pa.array(values, type_))
    return table
