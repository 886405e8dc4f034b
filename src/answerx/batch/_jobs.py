"""One batch of a file run, as a worker process runs it.

Module-level functions and frozen dataclasses only: everything here pickles,
so the same job runs in the calling process or in a pool's worker.

A job is either a block of raw JSONL lines (parsed here, in the worker, so
that JSON decoding is spread over the cores too and every field of a record
survives as it was) or an Arrow ``RecordBatch`` (from CSV or Parquet). Its
result is the output already encoded for the writer (JSON bytes or an Arrow
table), plus what the summary needs.

Between processes, the bulk of a job and of its result travels through a file
of the run's spool directory (shared memory where there is one, see
:func:`spool`), not through the pool's pipe: the coordinator writes an Arrow
batch once, the worker maps it without a copy, and neither side pickles,
pipes and unpickles megabytes per batch, which is what kept two workers from
scaling.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from answerx.batch.residue import Residue
from answerx.batch.tables import (
    ERROR_COLUMN,
    RowOptions,
    add_columns,
    added_columns,
    extract_arrays,
    gold_value,
    verdict_values,
    verify_arrays,
)
from answerx.errors import AnswerxError, InputError
from answerx.extraction import Extraction, extract
from answerx.extraction.files import (
    ADDED_FIELDS,
    ExtractedRecord,
    MalformedLine,
    output_record,
    parse_record,
)
from answerx.recordfiles.jsonl import dumps_record, split_lines

if TYPE_CHECKING:
    from answerx.batch.summary import BatchSummary
    from answerx.grading import Verdict

__all__ = [
    "Done",
    "Job",
    "LinesPending",
    "ResultRow",
    "RowsPending",
    "Settings",
    "Spooled",
    "add_counts",
    "annotate_batch",
    "ignore_sigint",
    "merge_columns",
    "needed_columns",
    "run_job",
    "split_lines",
    "spool",
    "unspool",
]

Payload = Literal["jsonl", "json", "columns", "records", "rows"]
"""What a job returns: JSONL bytes; JSON-array items joined by ",\\n"; only the
added columns and which rows to keep (Arrow in and out: the caller already holds
the input columns, so the long outputs never travel back); the records as an
Arrow table (JSONL input bound for an Arrow writer); or :class:`ResultRow` s (a
sink, such as the command line's table: small files)."""

SPOOL_MIN = 1 << 16
"""Results smaller than this (bytes) go back through the pool's pipe; larger ones
through a spool file."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What every job of a run shares."""

    mode: Literal["extract", "verify"] = "extract"
    field: str = "raw_output"
    gold: str = "gold"
    task: str = "auto"
    task_field: str | None = "task"
    choices_field: str | None = "choices"
    numbers_field: str | None = "numbers"
    prefix: str = ""
    payload: Payload = "jsonl"
    question_field: str | None = "question"
    judging: bool = False
    """Verify mode: a judge will be asked about the residue (its columns are added)."""
    llm_below: float | None = None
    """Extract mode: an LLM will read the outputs the rules read below this confidence
    (or not at all); None: no LLM."""

    @property
    def added(self) -> tuple[str, ...]:
        """The names of the fields this run adds, with the prefix."""
        return tuple(self.prefix + name for name, _ in added_columns(self.mode, self.judging))

    @property
    def collects_residue(self) -> bool:
        """Whether jobs hand back the records the rules were unsure of."""
        return self.judging if self.mode == "verify" else self.llm_below is not None


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One record of a run's output, for a sink: its input line (JSONL) or row number,
    the record as it would be written, and the task its extraction used (the one
    detected for ``auto``)."""

    number: int
    record: dict[str, Any]
    task: str | None


@dataclass(frozen=True, slots=True)
class Spooled:
    """A payload left in a file of the run's spool directory; whoever reads it
    (:func:`unspool`) deletes the file."""

    path: str
    arrow: bool
    """An Arrow IPC stream (a table), else plain bytes."""


@dataclass(frozen=True, slots=True)
class Job:
    """One batch: ``first`` is the 1-based number of its first line (JSONL) or row.

    ``lines`` is a block of whole JSONL lines; ``batch`` an Arrow batch. Either
    may be :class:`Spooled` on the way to another process. ``spool`` is the
    directory where the worker leaves a large result (None: return it).
    """

    first: int
    lines: bytes | Spooled | None = None
    batch: pa.RecordBatch | pa.Table | Spooled | None = None
    spool: str | None = None
    merge: bool = False
    """Arrow out: return the whole batch with the added columns (the caller does not hold
    the input: it was read by the run's feed, :mod:`answerx.batch.feed`)."""
    follow: Done | None = None
    """A job's result whose rows that need math-verify were left for later (its
    :attr:`Done.pending`): this job grades them and returns the whole result."""


def spool(value: bytes | pa.Table | pa.RecordBatch, directory: str) -> Spooled:
    """Write ``value`` (bytes, or Arrow data as an IPC stream) to a new file in ``directory``."""
    fd, path = tempfile.mkstemp(dir=directory)
    if isinstance(value, bytes):
        with open(fd, "wb") as f:
            f.write(value)
        return Spooled(path, arrow=False)
    os.close(fd)
    with pa.OSFile(path, "wb") as sink, ipc.new_stream(sink, value.schema) as writer:
        writer.write(value)
    return Spooled(path, arrow=True)


def unspool(value: Any) -> Any:
    """``value``, read back (and its file deleted) when it is :class:`Spooled`.

    Arrow data is memory-mapped, not copied: the table's buffers keep the
    mapping alive after the file is gone.
    """
    if not isinstance(value, Spooled):
        return value
    try:
        if value.arrow:
            with pa.memory_map(value.path) as source:
                return ipc.open_stream(source).read_all()
        return Path(value.path).read_bytes()
    finally:
        # A mapped file that cannot go yet (not POSIX) is left to the run's cleanup.
        with contextlib.suppress(OSError):
            os.unlink(value.path)


@dataclass(slots=True)
class Done:
    """What one job did. ``read == written + len(malformed)``."""

    read: int = 0
    written: int = 0
    malformed: list[MalformedLine] = field(default_factory=list)
    by_method: dict[str, int] = field(default_factory=dict)
    by_reason: dict[str, int] = field(default_factory=dict)
    """Verify mode: records written, by verdict reason."""
    correct: int = 0
    judged: int = 0
    """Verify mode: records judged correct, and judged at all (a readable gold)."""
    replaced: list[str] = field(default_factory=list)
    nonfinite: int = 0
    last: int | None = None
    """Number of the last input line/row whose record was written."""
    payload: Any = None
    doubtful: int = 0
    """Verify mode: records the rules were unsure of."""
    short_answers: int = 0
    em_sum: float = 0.0
    f1_sum: float = 0.0
    cover_sum: float = 0.0
    residue: list[Residue] = field(default_factory=list)
    """The records an LLM is to be asked about (see :mod:`answerx.batch.residue`)."""
    pending: LinesPending | RowsPending | None = None
    """Rows that needed math-verify while the run's grading template was still warming:
    not in :attr:`payload` yet, nor counted (but in :attr:`read`); a follow-up job
    (:attr:`Job.follow`) grades them once it is warm."""

    def count_verdict(self, verdict: Verdict) -> None:
        """Add one written verdict's residue and short-answer measures."""
        self.doubtful += verdict.doubt is not None
        scores = verdict.scores
        if scores is not None:
            self.short_answers += 1
            self.em_sum += scores.em
            self.f1_sum += scores.f1
            self.cover_sum += scores.cover


@dataclass(frozen=True, slots=True)
class LinesPending:
    """A JSONL job's rows left for later: for each, where its line goes among the job's
    output lines (counting the lines before it), its number and its raw line."""

    rows: list[tuple[int, int, bytes]]


@dataclass(frozen=True, slots=True)
class RowsPending:
    """An Arrow job's rows left for later: the batch as annotated so far (every row, the
    pending ones without a result; spooled), the pending rows' indices and their input
    columns, and the input batch itself when the result is to be merged with it."""

    annotated: pa.Table | Spooled
    rows: list[int]
    inputs: pa.Table
    first: int
    batch: pa.Table | Spooled | None = None


def ignore_sigint() -> None:
    """Pool initializer: Ctrl-C reaches the whole process group; the parent decides
    what stops, and a worker finishes its batch instead of printing a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_job(job: Job, settings: Settings) -> Done:
    """Run one batch (see the module docstring).

    Verifying, in a worker whose grading template is still warming
    (:class:`answerx.grading.pool.SharedTemplate`), a row that needs math-verify waits:
    the job runs its other rows, grades it at the end when the template is warm by
    then, and otherwise hands it back in :attr:`Done.pending` for a follow-up job, so
    that no worker ever waits for math-verify to load.
    """
    if job.follow is not None:
        done = _follow_up(job.follow, settings)
    elif job.lines is not None:
        with _deferring(settings):
            done = _run_lines(unspool(job.lines), job.first, settings, later=job.spool)
    else:
        batch = unspool(job.batch)
        assert batch is not None
        with _deferring(settings):
            done = _run_batch(batch, job.first, settings, later=job.spool, merge=job.merge)
        if job.merge and settings.payload == "columns" and done.pending is None:
            done.payload = merge_columns(batch, done.payload)
    if job.spool is not None:
        done.payload = _spool_result(done.payload, job.spool)
    return done


class _NeverRaised(Exception):
    """Stands for :class:`~answerx.grading.pool.GradingPending` where nothing defers."""


def _defers(s: Settings) -> bool:
    """Whether a job of ``s`` may leave rows for later: verifying, when no LLM is asked
    about the residue (its rows are numbered by their place in the payload), for the
    payloads whose rows can be put back in place."""
    return (
        s.mode == "verify" and not s.collects_residue and s.payload in ("jsonl", "json", "columns")
    )


def _pending_type(s: Settings) -> type[Exception]:
    if not _defers(s):
        return _NeverRaised
    from answerx.grading.pool import GradingPending

    return GradingPending


@contextlib.contextmanager
def _deferring(s: Settings) -> Iterator[None]:
    """Within it, a math-verify comparison defers (raises) while the template warms."""
    if not _defers(s):
        yield
        return
    from answerx.grading.pool import defer_while_warming

    with defer_while_warming():
        yield


def _now(s: Settings) -> contextlib.AbstractContextManager[None]:
    """Within it, nothing defers: rows left for later are graded, waiting if need be."""
    if not _defers(s):
        return contextlib.nullcontext()
    from answerx.grading.pool import defer_while_warming

    return defer_while_warming(False)


def _warming() -> bool:
    from answerx.grading.pool import shared_pool

    return shared_pool().warming


#: What a job counts from its verdicts as it writes them (:meth:`Done.count_verdict`).
_MEASURES = ("doubtful", "short_answers", "em_sum", "f1_sum", "cover_sum")


def add_measures(into: Done | BatchSummary, done: Done) -> None:
    """Add ``done``'s :data:`_MEASURES` to ``into``: another job's counts, or the run's."""
    for name in _MEASURES:
        setattr(into, name, getattr(into, name) + getattr(done, name))


def add_counts(into: Done | BatchSummary, done: Done) -> None:
    """Add what ``done`` wrote and found to ``into`` (another job's counts, or the run's
    summary): records written, by method and by reason, verdicts, and the measures. What
    differs between the two (lines read, malformed records, the last line) is the caller's."""
    into.written += done.written
    for name, n in done.by_method.items():
        into.by_method[name] = into.by_method.get(name, 0) + n
    for name, n in done.by_reason.items():
        into.by_reason[name] = into.by_reason.get(name, 0) + n
    into.correct += done.correct
    into.judged += done.judged
    add_measures(into, done)


def _absorb(done: Done, fix: Done) -> None:
    """Add to ``done`` what ``fix`` did: a run of rows ``done`` read but left for later
    (so its ``read`` is not added again)."""
    add_counts(done, fix)
    if fix.malformed:
        done.malformed = sorted([*done.malformed, *fix.malformed], key=lambda m: m.line)
    done.nonfinite += fix.nonfinite
    done.replaced.extend(name for name in fix.replaced if name not in done.replaced)
    if fix.last is not None:
        done.last = max(done.last or 0, fix.last)


def _follow_up(done: Done, s: Settings) -> Done:
    """``done`` with its rows left for later graded and put in place."""
    pending = done.pending
    done.pending = None
    if isinstance(pending, LinesPending):
        block = unspool(done.payload) or b""
        lines = split_lines(block)
        with _now(s):
            placed = _place_lines(done, pending.rows, s)
        for at, text in placed:  # each at its place among the lines before it
            lines.insert(at, text.encode("utf-8"))
        done.payload = b"\n".join(lines) + b"\n" if lines else b""
        return done
    assert isinstance(pending, RowsPending)
    batch = unspool(pending.batch)
    annotated = unspool(pending.annotated)
    with _now(s):
        annotated, found = _annotate_rows(annotated, pending.inputs, pending.rows, s)
    result = _batch_done(annotated, pending.first, s, pending.inputs.column_names, found)
    # What it counted from its verdicts before it left rows for later (the other figures
    # are recounted from the whole annotated batch).
    add_measures(result, done)
    if batch is not None:
        result.payload = merge_columns(batch, result.payload)
    return result


def _place_lines(
    done: Done, rows: list[tuple[int, int, bytes]], s: Settings
) -> list[tuple[int, str]]:
    """Run the rows left for later, one line each; their counts go to ``done``. Returns
    where each written row goes among the output lines, and its text, in order."""
    placed: list[tuple[int, str]] = []
    alone = replace(s, payload="jsonl")
    for at, line_no, raw in rows:
        fix = _run_lines(raw, line_no, alone)
        _absorb(done, fix)
        if fix.written:
            placed.append((at + len(placed), fix.payload.decode("utf-8").rstrip("\n")))
    return placed


def _spool_result(payload: Any, directory: str) -> Any:
    if isinstance(payload, bytes) and len(payload) >= SPOOL_MIN:
        return spool(payload, directory)
    if isinstance(payload, pa.Table) and payload.nbytes >= SPOOL_MIN:
        return spool(payload, directory)
    if isinstance(payload, tuple):  # "columns": (rows to keep, added columns)
        keep, added = payload
        return keep, _spool_result(added, directory)
    return payload


# --------------------------------------------------------------------------- JSONL lines
def _run_lines(block: bytes, first: int, s: Settings, later: str | None = None) -> Done:
    """``later``: where a follow-up job's files go (the spool directory), when rows that
    need math-verify may be left for one (JSONL out only); else they are graded here."""
    done = Done()
    encoded: list[str] = []
    rows: list[dict[str, Any]] = []
    results: list[ResultRow] = []
    waiting = _pending_type(s)
    pending: list[tuple[int, int, bytes]] = []
    for line_no, raw in enumerate(split_lines(block), start=first):
        if not raw.strip():
            continue  # blank lines (a trailing newline, spacing) are not records
        done.read += 1
        try:
            record, (task, choices, numbers, finish) = parse_record(
                raw, line_no, s.field, s.task, s.task_field, s.choices_field, s.numbers_field
            )
            question = _question(record, s.question_field)
            if s.mode == "verify":
                out, verdict = _verified_record(
                    record, s, (task, choices, numbers, finish, question), done.replaced
                )
                used = verdict.extraction.task if verdict.extraction is not None else None
                method = out[s.prefix + "method"]
                _count_verdict(done, verdict.reason, verdict.correct)
                done.count_verdict(verdict)
                if s.judging and verdict.doubt is not None:
                    gold = gold_value(record.get(s.gold))
                    done.residue.append(
                        Residue(done.written, verdict=verdict, gold=gold, question=question,
                                choices=choices, numbers=numbers)
                    )  # fmt: skip
            else:
                extraction = _extract_guarded(record[s.field], task, choices, numbers, finish)
                _note_replaced(record, s.prefix, ADDED_FIELDS, done.replaced)
                out = output_record(ExtractedRecord(line_no, record, extraction), s.prefix)
                method, used = extraction.method, extraction.task
                if s.llm_below is not None and _in_doubt(extraction, s.llm_below):
                    done.residue.append(
                        Residue(done.written, extraction=extraction, question=question,
                                choices=choices, numbers=numbers)
                    )  # fmt: skip
        except waiting:
            pending.append((len(encoded), line_no, raw))
            continue
        except AnswerxError as exc:
            done.malformed.append(MalformedLine(line=line_no, reason=str(exc)))
            continue
        done.written += 1
        done.last = line_no
        if method is not None:
            done.by_method[method] = done.by_method.get(method, 0) + 1
        if s.payload == "records":
            rows.append(out)
        elif s.payload == "rows":
            results.append(ResultRow(line_no, out, used))
        else:
            text, nulled = dumps_record(out)
            done.nonfinite += nulled
            encoded.append(text)
    if pending and later is not None and s.payload == "jsonl" and _warming():
        done.pending = LinesPending(pending)
    elif pending:
        with _now(s):
            for at, text in _place_lines(done, pending, s):
                encoded.insert(at, text)
    if s.payload == "rows":
        done.payload = results
    elif s.payload == "records":
        done.payload = _records_table(rows)
    else:
        done.payload = _join(encoded, s.payload)
    return done


def _records_table(rows: list[dict[str, Any]]) -> pa.Table | None:
    if not rows:
        return None
    try:
        return pa.Table.from_pylist(rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(
            f"the records of a JSONL batch do not make one table ({exc}); "
            "write JSONL, or give every record the same field types"
        ) from None


def _extract_guarded(
    output: str,
    task: str,
    choices: Sequence[str] | None,
    numbers: Sequence[int | float] | None,
    finish: str | None,
) -> Extraction:
    try:
        return extract(output, task, choices=choices, numbers=numbers, finish_reason=finish)
    except AnswerxError:
        raise
    except Exception as exc:
        raise InputError(f"internal error: {type(exc).__name__}: {exc}") from None


def _verified_record(
    record: dict[str, Any],
    s: Settings,
    options: tuple[str, Sequence[str] | None, Sequence[int | float] | None, str | None, str | None],
    replaced: list[str],
) -> tuple[dict[str, Any], Verdict]:
    """The verified record, and its verdict."""
    # The grading layer sits above extraction: imported only when verifying.
    from answerx.grading import verify
    from answerx.grading.pool import GradingPending

    if record.get(s.gold) is None:
        raise InputError(f"no {s.gold!r} field")
    try:
        task, choices, numbers, finish, question = options
        verdict = verify(
            record[s.field],
            gold_value(record[s.gold]),
            task,
            choices=choices,
            numbers=numbers,
            finish_reason=finish,
            question=question,
        )
    except (AnswerxError, GradingPending):
        raise
    except Exception as exc:
        raise InputError(f"internal error: {type(exc).__name__}: {exc}") from None
    names = tuple(name for name, _ in added_columns("verify", s.judging))
    _note_replaced(record, s.prefix, names, replaced)
    values = verdict_values(verdict, s.judging) or {}
    for name, value in values.items():
        record[s.prefix + name] = value
    return record, verdict


def _in_doubt(extraction: Extraction, below: float) -> bool:
    # The grading layer sits above extraction: imported only when an LLM reads the residue.
    from answerx.grading.residue import extraction_in_doubt

    return extraction_in_doubt(extraction, below)


def _question(record: dict[str, Any], name: str | None) -> str | None:
    """A record's question: its ``name`` field when that holds text (anything else: none)."""
    value = record.get(name) if name is not None else None
    return value if isinstance(value, str) and value.strip() else None


def _count_verdict(done: Done, reason: str, correct: bool | None) -> None:
    done.by_reason[reason] = done.by_reason.get(reason, 0) + 1
    if correct is not None:
        done.judged += 1
        done.correct += bool(correct)


def _value_counts(column: pa.ChunkedArray) -> dict[str, int]:
    counts = pc.value_counts(column).to_pylist()
    return {c["values"]: c["counts"] for c in counts if c["values"] is not None}


def _note_replaced(
    record: dict[str, Any], prefix: str, names: Sequence[str], replaced: list[str]
) -> None:
    for name in names:
        key = prefix + name
        if key in record and key not in replaced:
            replaced.append(key)


def _join(encoded: list[str], payload: Payload) -> bytes:
    if not encoded:
        return b""
    if payload == "json":
        return ",\n".join(encoded).encode("utf-8")
    return ("\n".join(encoded) + "\n").encode("utf-8")


# --------------------------------------------------------------------------- Arrow batches
def annotate_batch(
    data: pa.Table,
    s: Settings,
    tasks: list[str | None] | None = None,
    found: list[Any] | None = None,
    pending: list[int] | None = None,
) -> pa.Table:
    """``data`` with the result columns and the ``error`` column, the file mode's way.

    A record's ``task``, ``choices``, ``numbers`` and question columns are used when
    present (``s.task`` is the default), and a null output (or gold) is an error, as a
    JSONL record without one is malformed. Shared by the local file mode and the Ray
    engine, so that both give the same rows. ``tasks``, when given, receives the task
    each row's extraction used; ``found`` each row's verdict (verify) or extraction;
    ``pending`` the rows left for later (see :func:`run_job`), without a result yet.
    """
    options = RowOptions.of(
        data,
        s.field,
        s.task,
        s.choices_field,
        s.numbers_field,
        question=s.question_field,
        optional_columns=True,
    )
    if s.mode == "verify":
        arrays = verify_arrays(
            data, options, s.gold, tasks, verdicts=found, judging=s.judging, pending=pending
        )
    else:
        arrays = extract_arrays(data, options, tasks, extractions=found)
    out = add_columns(data, arrays, s.prefix, verify=s.mode == "verify")
    name = s.prefix + ERROR_COLUMN
    errors = out.column(name).to_pylist()
    missing = [s.field] + ([s.gold] if s.mode == "verify" else [])
    nulls = [data.column(column).is_null().to_pylist() for column in missing]
    changed = False
    for i, error in enumerate(errors):
        if error is None:
            for column, null in zip(missing, nulls, strict=True):
                if null[i]:
                    errors[i], changed = f"field {column!r} is null", True
                    break
    if changed:
        out = out.set_column(out.column_names.index(name), name, pa.array(errors, pa.string()))
    return out


def _run_batch(
    batch: pa.RecordBatch | pa.Table,
    first: int,
    s: Settings,
    later: str | None = None,
    merge: bool = False,
) -> Done:
    """``later``: as for :func:`_run_lines` (Arrow out: the added columns); ``merge``: the
    result is to be merged with ``batch`` (kept for the follow-up)."""
    data = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
    tasks: list[str | None] = []
    found: list[Any] = []
    pending: list[int] = []
    out = annotate_batch(data, s, tasks if s.payload == "rows" else None, found, pending)
    if pending and later is not None and s.payload == "columns" and _warming():
        inputs = data.take(pending)
        done = Done(read=data.num_rows)
        for verdict in found:
            if verdict is not None:
                done.count_verdict(verdict)
        done.pending = RowsPending(
            spool(out, later), pending, inputs, first, spool(data, later) if merge else None
        )
        return done
    if pending:
        with _now(s):
            out, found = _annotate_rows(out, data.take(pending), pending, s, found, tasks)
    return _batch_done(out, first, s, data.column_names, found, tasks, data)


def _annotate_rows(
    out: pa.Table,
    inputs: pa.Table,
    rows: list[int],
    s: Settings,
    found: list[Any] | None = None,
    tasks: list[str | None] | None = None,
) -> tuple[pa.Table, list[Any]]:
    """``out`` (an annotated batch) with its ``rows``, left for later, annotated now from
    their ``inputs``; and the batch's ``found`` with theirs in place."""
    fixed: list[Any] = []
    their_tasks: list[str | None] = []
    annotated = annotate_batch(inputs, s, their_tasks if tasks else None, fixed)
    order = list(range(out.num_rows))
    for i, row in enumerate(rows):
        order[row] = out.num_rows + i
    merged = pa.concat_tables([out, annotated.select(out.column_names)]).take(order)
    found = list(found) if found is not None else [None] * out.num_rows
    for i, row in enumerate(rows):
        found[row] = fixed[i]
        if tasks:
            tasks[row] = their_tasks[i]
    return merged, found


def _batch_done(
    out: pa.Table,
    first: int,
    s: Settings,
    names: list[str],
    found: list[Any],
    tasks: list[str | None] | None = None,
    data: pa.Table | None = None,
) -> Done:
    """What a job did, from its annotated batch ``out`` (``names``: the input's columns;
    ``found``: each row's verdict or extraction; ``data``: the input, for the residue,
    None in a follow-up, which collects none)."""
    tasks = tasks if tasks is not None else []
    done = Done(read=out.num_rows)
    done.replaced = [name for name in s.added if name in names]
    errors = out.column(s.prefix + ERROR_COLUMN).to_pylist()
    keep: list[bool] = []
    for i, error in enumerate(errors):
        if error is not None:
            done.malformed.append(MalformedLine(line=first + i, reason=error))
        keep.append(error is None)
    if data is not None:
        _collect(done, data, s, found, keep)
    else:  # a follow-up: the residue is not collected where rows are left for later
        for verdict, kept in zip(found, keep, strict=True):
            if kept and verdict is not None:
                done.count_verdict(verdict)
    out = out.drop_columns([s.prefix + ERROR_COLUMN])
    if s.payload == "columns":
        added = out.select(list(s.added))
        out = added
    if not all(keep):
        out = out.filter(pa.array(keep, pa.bool_()))
    done.written = out.num_rows
    if done.written:
        done.last = first + max(i for i, k in enumerate(keep) if k)
        done.by_method = _value_counts(out.column(s.prefix + "method"))
        if s.mode == "verify":
            done.by_reason = _value_counts(out.column(s.prefix + "reason"))
            correct = out.column(s.prefix + "correct")
            done.judged = len(correct) - correct.null_count
            done.correct = int(pc.sum(correct.cast(pa.int64())).as_py() or 0)
    if s.payload in ("jsonl", "json"):
        encoded = []
        for row in out.to_pylist():
            text, nulled = dumps_record(row)
            done.nonfinite += nulled
            encoded.append(text)
        done.payload = _join(encoded, s.payload)
    elif s.payload == "rows":
        pairs = enumerate(zip(keep, tasks, strict=True))
        written = [(first + i, task) for i, (k, task) in pairs if k]
        done.payload = [
            ResultRow(number, record, task)
            for (number, task), record in zip(written, out.to_pylist(), strict=True)
        ]
    else:
        done.payload = (None if all(keep) else keep, added)
    return done


def _collect(done: Done, data: pa.Table, s: Settings, found: list[Any], keep: list[bool]) -> None:
    """The written rows' residue and short-answer measures, from each row's verdict
    (verify) or extraction (extract)."""
    if s.mode == "verify":
        for verdict, kept in zip(found, keep, strict=True):
            if kept and verdict is not None:
                done.count_verdict(verdict)
    if not s.collects_residue:
        return
    options = RowOptions.of(
        data, s.field, s.task, s.choices_field, s.numbers_field, question=s.question_field,
        optional_columns=True,
    )  # fmt: skip
    rows = options.rows(data)
    golds = data.column(s.gold).to_pylist() if s.mode == "verify" else [None] * len(rows)
    written = 0
    for i, (result, kept) in enumerate(zip(found, keep, strict=True)):
        if not kept:
            continue
        index = i if s.payload == "columns" else written  # that job returns every input row
        written += 1
        row = rows[i]
        if result is None or not isinstance(row, tuple):
            continue
        doubtful = (
            result.doubt is not None
            if s.mode == "verify"
            else s.llm_below is not None and _in_doubt(result, s.llm_below)
        )
        if doubtful:
            verdict, extraction = (result, None) if s.mode == "verify" else (None, result)
            done.residue.append(
                Residue(index, verdict=verdict, extraction=extraction, gold=gold_value(golds[i]),
                        question=row[5], choices=row[2], numbers=row[3])
            )  # fmt: skip


def needed_columns(names: Sequence[str], s: Settings) -> list[str]:
    """The input columns a job reads (the rest stay with the caller)."""
    wanted = {s.field, s.task_field, s.choices_field, s.numbers_field, "finish_reason"}
    wanted.add(s.question_field)
    if s.mode == "verify":
        wanted.add(s.gold)
    return [name for name in names if name in wanted]


def merge_columns(
    batch: pa.RecordBatch | pa.Table, payload: tuple[list[bool] | None, Any]
) -> pa.Table:
    """``batch`` with a "columns" job's added columns (replacing same-named ones, read
    back when spooled), less the rows the job found malformed."""
    keep, added = payload
    added = unspool(added)
    table = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
    for i, name in enumerate(added.column_names):
        column = added.column(i)
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), added.field(i), column)
        else:
            table = table.append_column(added.field(i), column)
    if keep is not None:
        table = table.filter(pa.array(keep, pa.bool_()))
    return table
