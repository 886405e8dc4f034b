"""Ray Data: extraction and verification beyond one machine.

:class:`Extractor` and :class:`Verifier` are callable classes for
``ray.data.Dataset.map_batches``: Ray builds one per actor (the rule tables
compile once), then hands it Arrow batches::

    ds = ray.data.read_parquet("s3://bucket/rollouts/")
    ds = ds.map_batches(
        Extractor, batch_format="pyarrow", concurrency=64,
        fn_constructor_kwargs={"column": "completion"},
    )
    ds.write_parquet("s3://bucket/extracted/")

Each batch goes through :func:`answerx.batch.extract_table` (or
``verify_table``): the same columns, row for row, as on one machine. Every
row is kept: a row that cannot be read has null results and its reason in the
``error`` column, since a distributed job has no terminal to report it on.

JSONL is read as raw lines (:func:`read_dataset`) and parsed in the actors
with the local file mode's own parser, so a line that is not a JSON record
never stops the job: nothing of it is written but its error row, with
``error`` = ``"FILE, line N: why"`` (its other columns null), which
``--engine ray`` reports and counts as the local run reports a malformed line.

:func:`run_ray_cli` is ``answerx extract|verify --engine ray``. Ray is the
optional extra ``answerx[ray]``; it is imported only when used.
"""

from __future__ import annotations

import glob
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import pyarrow as pa

from answerx.batch._jobs import Settings, annotate_batch, split_lines
from answerx.batch.files import BatchSummary
from answerx.batch.table_calls import extract_table, verify_table
from answerx.batch.tables import ERROR_COLUMN
from answerx.errors import AnswerxError, ConfigError
from answerx.extraction import extract
from answerx.extraction.files import parse_record
from answerx.extraction.tasks import check_task
from answerx.recordfiles.formats import RecordFormat, format_of
from answerx.recordfiles.lines import MAX_LINE_BYTES, READ_BYTES, line_blocks, too_long

__all__ = [
    "LINE_COLUMNS",
    "Extractor",
    "RayRunResult",
    "Verifier",
    "line_tables",
    "read_dataset",
    "read_summary",
    "run_ray",
    "run_ray_cli",
]

LINE_COLUMNS = ("__answerx_path", "__answerx_line", "__answerx_text")
"""The columns of a JSONL dataset read as raw lines: file, 1-based line number, bytes."""
_LINES_PER_BLOCK = 4096


class Extractor:
    """``map_batches`` callable: a ``pyarrow.Table`` batch in, the same with the columns of
    :func:`answerx.batch.extract_table` out.

    With ``file_mode=True`` (what ``--engine ray`` uses), ``task`` is the default task,
    ``task``/``choices``/``numbers`` columns are used when the data has them, and a
    null output is an error row, exactly as in ``answerx extract --file``.
    """

    def __init__(
        self,
        *,
        column: str = "raw_output",
        task: str = "auto",
        choices: str | None = None,
        numbers: str | None = None,
        prefix: str = "",
        file_mode: bool = False,
    ) -> None:
        if file_mode:
            check_task(task)
        self.column, self.task, self.prefix = column, task, prefix
        self.choices, self.numbers, self.file_mode = choices, numbers, file_mode
        extract("The answer is 1.")  # warm the rule tables once per actor, not per batch

    def __call__(self, batch: pa.Table) -> pa.Table:
        """The batch with the result columns added."""
        if self.file_mode:
            settings = Settings(
                field=self.column,
                task=self.task,
                choices_field=self.choices or "choices",
                numbers_field=self.numbers or "numbers",
                prefix=self.prefix,
            )
            return _annotate_file_batch(batch, settings)
        return extract_table(
            batch,
            column=self.column,
            task=self.task,
            choices=self.choices,
            numbers=self.numbers,
            prefix=self.prefix,
        )


class Verifier:
    """``map_batches`` callable: a ``pyarrow.Table`` batch in, the same with the columns of
    :func:`answerx.batch.verify_table` out (``file_mode`` as for :class:`Extractor`)."""

    def __init__(
        self,
        *,
        output: str = "raw_output",
        gold: str = "gold",
        task: str = "auto",
        choices: str | None = None,
        numbers: str | None = None,
        prefix: str = "",
        file_mode: bool = False,
    ) -> None:
        if file_mode:
            check_task(task)
        self.output, self.gold, self.task, self.prefix = output, gold, task, prefix
        self.choices, self.numbers, self.file_mode = choices, numbers, file_mode

    def __call__(self, batch: pa.Table) -> pa.Table:
        """The batch with the verdict columns added."""
        if self.file_mode:
            settings = Settings(
                mode="verify",
                field=self.output,
                gold=self.gold,
                task=self.task,
                choices_field=self.choices or "choices",
                numbers_field=self.numbers or "numbers",
                prefix=self.prefix,
            )
            return _annotate_file_batch(batch, settings)
        return verify_table(
            batch,
            output=self.output,
            gold=self.gold,
            task=self.task,
            choices=self.choices,
            numbers=self.numbers,
            prefix=self.prefix,
        )


def _annotate_file_batch(batch: pa.Table, s: Settings) -> pa.Table:
    """The file mode's columns for a batch of records, or of raw JSONL lines."""
    if batch.column_names == list(LINE_COLUMNS):
        batch, unreadable = _parse_lines(batch, s)
        out = annotate_batch(batch, s)
        if any(unreadable):
            name = s.prefix + ERROR_COLUMN
            errors = [
                why if why is not None else error
                for why, error in zip(unreadable, out.column(name).to_pylist(), strict=True)
            ]
            out = out.set_column(out.column_names.index(name), name, pa.array(errors, pa.string()))
        return out
    return annotate_batch(batch, s)


def _parse_lines(batch: pa.Table, s: Settings) -> tuple[pa.Table, list[str | None]]:
    """Raw JSONL lines as a table of their records (by the local file mode's parser),
    and for each line why it cannot be read (None when it can)."""
    records: list[dict[str, Any]] = []
    unreadable: list[str | None] = []
    paths, lines, texts = (batch.column(name).to_pylist() for name in LINE_COLUMNS)
    for path, line, text in zip(paths, lines, texts, strict=True):
        if text is None:  # a line over the maximum, read past without being held
            records.append({})
            unreadable.append(f"{os.path.basename(path)}, line {line}: {too_long(MAX_LINE_BYTES)}")
            continue
        try:
            record, _ = parse_record(
                text, line, s.field, s.task, s.task_field, s.choices_field, s.numbers_field
            )
            if s.mode == "verify" and record.get(s.gold) is None:
                raise ConfigError(f"no {s.gold!r} field")
        except AnswerxError as exc:
            records.append({})
            unreadable.append(f"{os.path.basename(path)}, line {line}: {exc}")
            continue
        records.append(record)
        unreadable.append(None)
    names: dict[str, None] = dict.fromkeys([s.field] + ([s.gold] if s.mode == "verify" else []))
    for record in records:
        names.update(dict.fromkeys(record))
    columns = {name: _column([r.get(name) for r in records]) for name in names}
    return pa.table(columns) if records else pa.table({s.field: pa.array([], pa.string())}), (
        unreadable
    )


def _column(values: list[Any]) -> pa.Array:
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # Records disagree on the field's type (72 here, "72" there): as text, since a
        # Parquet column has one type and one odd record must not stop the job.
        return pa.array(
            [v if v is None or isinstance(v, str) else json.dumps(v) for v in values],
            pa.string(),
        )


def _jsonl_lines_datasource(paths: list[str]) -> Any:
    """A Ray Data source of the raw lines of JSONL files (see :data:`LINE_COLUMNS`)."""
    from ray.data.datasource import FileBasedDatasource

    class JsonlLines(FileBasedDatasource):  # type: ignore[misc]
        # A file is read by one task, from its start: line numbers are exact.
        def _read_stream(self, f: Any, path: str) -> Iterator[pa.Table]:
            yield from line_tables(io.BufferedReader(f, buffer_size=READ_BYTES), path)

    return JsonlLines(paths)


def line_tables(stream: IO[bytes], path: str, max_line: int = MAX_LINE_BYTES) -> Iterator[pa.Table]:
    """The lines of one JSONL file as tables of :data:`LINE_COLUMNS`, blank lines left
    out; a line over ``max_line`` bytes is read past and comes with a null text (its
    row then holds only its error)."""
    line = 0
    pending: list[bytes | None] = []
    numbers: list[int] = []
    for block in line_blocks(
        stream, max_lines=_LINES_PER_BLOCK, max_line_bytes=max_line, where=path
    ):
        texts: list[bytes | None] = [None] if block.too_long else list(split_lines(block.data))
        for raw in texts:
            line += 1
            if raw is None or raw.strip():  # blank lines are not records, as in the local mode
                pending.append(raw)
                numbers.append(line)
        if len(pending) >= _LINES_PER_BLOCK:
            yield _lines_table(path, numbers, pending)
            pending, numbers = [], []
    if pending:
        yield _lines_table(path, numbers, pending)


def _lines_table(path: str, numbers: list[int], lines: list[bytes | None]) -> pa.Table:
    return pa.table(
        {
            LINE_COLUMNS[0]: pa.array([path] * len(lines), pa.string()),
            LINE_COLUMNS[1]: pa.array(numbers, pa.int64()),
            LINE_COLUMNS[2]: pa.array(lines, pa.binary()),
        }
    )


def read_dataset(paths: str | list[str]) -> Any:
    """A Ray dataset of Parquet or JSONL files: paths, globs, directories or URIs
    (``s3://…``, ``gs://…``), comma-separated in one string or as a list.

    JSONL comes as raw lines (:data:`LINE_COLUMNS`), parsed by :class:`Extractor`
    and :class:`Verifier` in file mode, so that one bad line cannot stop the job.
    """
    import ray.data

    items = [p.strip() for p in paths.split(",")] if isinstance(paths, str) else list(paths)
    expanded: list[str] = []
    for item in items:
        if "://" not in item and glob.has_magic(item):
            matches = sorted(glob.glob(item))
            if not matches:
                raise ConfigError(f"no file matches {item!r}")
            expanded.extend(matches)
        else:
            expanded.append(item)
    kinds = {_kind(p) for p in expanded}
    if len(kinds) != 1:
        raise ConfigError("give Parquet files or JSONL files, not both")
    if kinds == {"jsonl"}:
        return ray.data.read_datasource(_jsonl_lines_datasource(expanded))
    return ray.data.read_parquet(expanded)


def run_ray(
    paths: str | list[str],
    out: str,
    *,
    mode: Literal["extract", "verify"] = "extract",
    field: str = "raw_output",
    gold: str = "gold",
    task: str = "auto",
    prefix: str = "",
    batch_size: int = 1024,
    concurrency: int | None = None,
) -> None:
    """Extract (or verify) every row of ``paths`` on the Ray cluster this process is
    connected to (``ray.init`` first), writing Parquet files under ``out``."""
    import ray

    ds = read_dataset(paths)
    if concurrency is None:
        cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call,unused-ignore]
        concurrency = max(1, int(cpus))
    udf: type[Extractor] | type[Verifier]
    kwargs: dict[str, Any] = {"task": task, "prefix": prefix, "file_mode": True}
    if mode == "verify":
        udf, kwargs = Verifier, kwargs | {"output": field, "gold": gold}
    else:
        udf, kwargs = Extractor, kwargs | {"column": field}
    ds = ds.map_batches(
        udf,
        fn_constructor_kwargs=kwargs,
        batch_format="pyarrow",
        batch_size=batch_size,
        # An autoscaling pool (1 to N actors), not a fixed N: N actors holding all N
        # CPUs leave none for the read tasks that feed them, and the job never ends.
        concurrency=(1, concurrency),
    )
    ds.write_parquet(out)


def run_ray_cli(
    mode: Literal["extract", "verify"],
    file: str,
    out: str | None,
    *,
    address: str | None,
    field: str,
    task: str,
    prefix: str,
    batch_size: int,
    workers: int | None,
    gold: str = "gold",
) -> RayRunResult:
    """``answerx extract|verify --engine ray``: run, then sum up what was written (the
    command line prints it)."""
    try:
        import ray
    except ImportError:
        raise ConfigError("--engine ray needs Ray: pip install 'answerx[ray]'") from None
    if out is None or out == "-":
        raise ConfigError("--engine ray writes Parquet files: give --out-dir DIRECTORY")
    check_task(task)
    address = address or os.environ.get("RAY_ADDRESS")
    if ray.is_initialized():
        pass  # already connected (a test, a notebook): use that cluster
    elif address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=workers, log_to_driver=False, include_dashboard=False)
    run_ray(
        file,
        out,
        mode=mode,
        field=field,
        gold=gold,
        task=task,
        prefix=prefix,
        batch_size=batch_size,
        concurrency=workers,
    )
    return _result(out, prefix, mode)


def read_summary(
    out: str, prefix: str = "", mode: Literal["extract", "verify"] = "extract"
) -> BatchSummary:
    """What a run wrote under ``out``, summed up from its Parquet files: rows with an
    error count as malformed (their reasons are in the files: Ray does not know row
    numbers, so ``malformed`` stays empty), the rest by method (and, for verify, by
    reason and correct). Empty for a remote ``out`` (``s3://…``)."""
    summary = BatchSummary()
    if "://" in out or not Path(out).exists():
        return summary  # a remote filesystem: Ray wrote it; reading it back is the user's call
    import pyarrow.compute as pc
    import pyarrow.dataset as pads

    names = ["error", "method"] + (["correct", "reason"] if mode == "verify" else [])
    dataset = pads.dataset(out, format="parquet")
    table = dataset.to_table(columns=[prefix + name for name in names])
    error = table.column(prefix + "error")
    bad = table.filter(pc.is_valid(error)).column(prefix + "error").to_pylist()
    good = table.filter(pc.is_null(error))
    summary.read, summary.written = table.num_rows, good.num_rows
    summary.consumed = table.num_rows
    summary.malformed_count = len(bad)
    summary.by_method = _counts(good.column(prefix + "method"))
    if mode == "verify":
        summary.by_reason = _counts(good.column(prefix + "reason"))
        correct = good.column(prefix + "correct")
        summary.judged = len(correct) - correct.null_count
        summary.correct = int(pc.sum(correct.cast(pa.int64())).as_py() or 0)
    return summary


def _counts(column: Any) -> dict[str, int]:
    import pyarrow.compute as pc

    pairs = pc.value_counts(column).to_pylist()
    return {p["values"]: p["counts"] for p in pairs if p["values"] is not None}


@dataclass(frozen=True)
class RayRunResult:
    """What a Ray run wrote: its summary read back from the Parquet files under ``out``,
    and the first reasons of its error rows (all of them are kept in the files)."""

    out: str
    error_column: str
    summary: BatchSummary
    first_errors: list[str] = field(default_factory=list)

    @property
    def local(self) -> bool:
        """Whether ``out`` is a folder on this machine (not ``s3://…``)."""
        return "://" not in self.out and Path(self.out).exists()


_FIRST_ERRORS = 10


def _result(out: str, prefix: str, mode: Literal["extract", "verify"]) -> RayRunResult:
    result = RayRunResult(out, prefix + ERROR_COLUMN, read_summary(out, prefix, mode))
    if result.local and result.summary.malformed_count:
        import pyarrow.compute as pc
        import pyarrow.dataset as pads

        errors = pads.dataset(out, format="parquet").to_table(
            columns=[result.error_column], filter=pc.is_valid(pc.field(result.error_column))
        )
        result.first_errors.extend(
            errors.column(result.error_column).slice(0, _FIRST_ERRORS).to_pylist()
        )
    return result


def _kind(path: str) -> str:
    # The one format table, a gzipped JSONL file and a folder of Parquet files beside it.
    name = path.rstrip("/").removesuffix(".gz").removesuffix(".GZ")
    return "jsonl" if format_of(name) in (RecordFormat.jsonl, RecordFormat.json) else "parquet"
