"""``answerx extract``: the final answer out of one text, stdin, or a JSONL file.

Thin on purpose: single texts go to :func:`answerx.extract`, files to
:func:`answerx.batch.run_file` (JSONL, CSV, Parquet on every core) or, for a
table, :func:`~answerx.extraction.files.iter_extract`; this module only parses
options and prints.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from enum import StrEnum
from typing import IO, Annotated, Any, Literal

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from answerx.batch.files import BatchSummary, RunProgress, run_file
from answerx.cli._common import (
    EXIT_CODES_HELP,
    ExitCode,
    command_boundary,
    fail,
    parse_choices,
    parse_numbers,
    stderr,
    stdout,
)
from answerx.cli.options import (
    AddressOption,
    BatchSizeOption,
    ChoicesOption,
    Engine,
    EngineOption,
    FieldOption,
    FileOption,
    Format,
    NumbersOption,
    OutFileOption,
    PrefixOption,
    QuietOption,
    ResumeOption,
    WorkersOption,
    format_option,
    note_deprecated,
    task_option,
)
from answerx.examples import open_examples
from answerx.extraction import Extraction, extract
from answerx.extraction.files import (
    ExtractedRecord,
    FileSummary,
    MalformedLine,
    iter_extract,
)
from answerx.extraction.tasks import check_task
from answerx.recordfiles.formats import format_of

__all__ = ["HELP", "InputFormat", "OutputFormat", "extract_command"]

MAX_WARNINGS = 100  # malformed-line warnings printed; later ones are only counted
_PROGRESS_EVERY = 128  # lines between progress-bar updates (an update costs microseconds)


#: How results are printed: the forms of the CLI's one :class:`~answerx.cli.options.Format`
#: that extract has (table, json, jsonl, csv, parquet).
OutputFormat = Format


class InputFormat(StrEnum):
    """How a --file is read."""

    jsonl = "jsonl"
    csv = "csv"
    parquet = "parquet"


HELP = f"""Extract the final answer from LLM output: one TEXT, stdin ('-'), or a file.

A single text prints answer, method, confidence and task: as a table on a
terminal, as JSON otherwise (--format changes it).

--file streams a JSONL, CSV or Parquet file (format from the extension, or
--input-format) in batches across --workers processes (default: every core),
in flat memory, and writes every record back in order with answer, method,
confidence, valid, unfinished, span_start and span_end added: to --out in the
format its extension names (.jsonl, .json, .csv, .parquet; --format wins;
JSONL on stdout). A record's own 'task', 'choices' and 'numbers' fields are
used for it. Malformed records are reported on stderr with their line (JSONL)
or row number, skipped, and counted in the closing summary. NaN and Infinity
are written to JSON as null.

Ctrl-C stops after the batch in progress: --out is left a valid file holding
every record up to that batch, and --resume continues it.

--engine ray runs the file on a Ray cluster (pip install 'answerx\\[ray]';
--address auto or ray://HOST:10001) and writes Parquet files into --out-dir.

--examples runs over the example outputs bundled with answerx (a table by default).

{EXIT_CODES_HELP}
"""


def extract_command(
    text: Annotated[
        str | None,
        typer.Argument(
            help="The raw output to extract from; '-' reads it from stdin.", show_default=False
        ),
    ] = None,
    file: FileOption = None,
    out: OutFileOption = None,
    out_dir: Annotated[
        str | None,
        typer.Option(
            "--out-dir",
            show_default=False,
            help="--engine ray: the directory (or s3:// prefix) the Parquet files go to.",
        ),
    ] = None,
    examples: Annotated[
        bool, typer.Option("--examples", help="Run over the bundled example outputs.")
    ] = False,
    field: FieldOption = "raw_output",
    task: Annotated[str, task_option(extra=" In a file, a record's own 'task' field wins.")] = (
        "auto"
    ),
    choices: ChoicesOption = None,
    numbers: NumbersOption = None,
    fmt: Annotated[
        OutputFormat | None,
        format_option(
            Format.table,
            Format.json,
            Format.jsonl,
            Format.csv,
            Format.parquet,
            help="Default: a single text: table on a terminal, else json; --file: --out's "
            "extension, else jsonl; --examples: table.",
        ),
    ] = None,
    prefix: PrefixOption = "",
    progress: Annotated[
        bool | None,
        typer.Option(
            "--progress/--no-progress",
            show_default=False,
            help="Progress bar on stderr for files. Default: when stderr is a terminal.",
        ),
    ] = None,
    quiet: QuietOption = False,
    workers: WorkersOption = None,
    batch_size: BatchSizeOption = 1024,
    resume: ResumeOption = False,
    input_format: Annotated[
        InputFormat | None,
        typer.Option(
            "--input-format",
            show_default=False,
            help="jsonl, csv or parquet. Default: from --file's extension (else jsonl).",
        ),
    ] = None,
    engine: EngineOption = Engine.local,
    address: AddressOption = None,
) -> None:
    """Extract the final answer from LLM output (the full help is :data:`HELP`)."""
    with command_boundary():
        check_task(task)  # ConfigError -> exit 2 with the valid names, before any I/O
        if out_dir is not None and engine is not Engine.ray:
            fail("--out-dir is for --engine ray; a local run writes one --out file", ExitCode.USAGE)
        if sum((text is not None, file is not None, examples)) != 1:
            fail("give exactly one of: TEXT, '-' (stdin), --file PATH, --examples", ExitCode.USAGE)
        if text is not None:
            if out is not None:
                fail(
                    "--out is for --file/--examples; redirect stdout for a single text",
                    ExitCode.USAGE,
                )
            raw = sys.stdin.read() if text == "-" else text
            result = extract(
                raw, task, choices=parse_choices(choices), numbers=parse_numbers(numbers)
            )
            default = OutputFormat.table if sys.stdout.isatty() else OutputFormat.json
            _print_single(result, fmt or default)
            return
        if choices or numbers:
            fail(
                "--choices/--numbers are for a single text; in a file, give each record "
                "'choices'/'numbers' fields",
                ExitCode.USAGE,
            )
        explicit_fmt = fmt
        if fmt is None:
            fmt = OutputFormat.table if examples else OutputFormat(format_of(out, "jsonl"))
        show_progress = (not quiet and sys.stderr.isatty()) if progress is None else progress
        if engine is Engine.ray:
            from answerx.integrations.ray import run_ray_cli

            if file is None:
                fail("--engine ray needs --file PATH (paths or globs)", ExitCode.USAGE)
            if resume or input_format is not None or explicit_fmt not in (None, "parquet"):
                fail(
                    "--engine ray reads Parquet/JSONL by extension and writes Parquet; "
                    "--resume, --input-format and --format are for local runs",
                    ExitCode.USAGE,
                )
            if out is not None and out_dir is None:
                # --out named the directory before --out-dir existed: kept for a release.
                note_deprecated("--out DIRECTORY with --engine ray", "--out-dir")
            errors = run_ray_cli(
                "extract",
                file,
                out_dir or out,
                address=address,
                field=field,
                task=task,
                prefix=prefix,
                batch_size=batch_size,
                workers=workers,
                quiet=quiet,
            )
            if errors:
                raise typer.Exit(int(ExitCode.MALFORMED))
            return
        if fmt is OutputFormat.table:
            if resume or workers is not None:
                fail("--format table runs on one core and cannot --resume", ExitCode.USAGE)
            summary: FileSummary = _run_table(
                file,
                out,
                examples=examples,
                field=field,
                task=task,
                progress=show_progress,
                quiet=quiet,
            )
        else:
            batch = _run_batch(
                file,
                out,
                examples=examples,
                field=field,
                task=task,
                prefix=prefix,
                fmt=fmt,
                input_format=input_format,
                workers=workers,
                batch_size=batch_size,
                resume=resume,
                progress=show_progress,
                quiet=quiet,
            )
            if not quiet:
                _print_summary(batch)
            if batch.interrupted:
                _print_interrupted(batch, file, out, fmt)
                raise typer.Exit(ExitCode.INTERRUPTED)
            summary = batch
    if not summary.ok:
        raise typer.Exit(int(ExitCode.MALFORMED))


# --------------------------------------------------------------------------- single text
def _payload(e: Extraction) -> dict[str, Any]:
    # raw_output and reasoning are the caller's own input, echoed back: left out.
    return e.model_dump(mode="json", exclude={"raw_output", "reasoning"})


def _print_single(e: Extraction, fmt: OutputFormat) -> None:
    if fmt is OutputFormat.table:
        table = Table(show_edge=False)
        for name in ("answer", "method", "confidence", "task"):
            table.add_column(name, justify="right" if name == "confidence" else "left")
        table.add_row(_answer_cell(e.answer), e.method, f"{e.confidence:.2f}", e.task)
        stdout().print(table)
    else:
        indent = 2 if fmt is OutputFormat.json else None
        sys.stdout.write(json.dumps(_payload(e), ensure_ascii=False, indent=indent) + "\n")


def _answer_cell(answer: str | None) -> Text:
    # Text, not markup: an answer such as "[B]" must print as written.
    return Text(answer) if answer is not None else Text("(none)", style="dim")


# --------------------------------------------------------------------------- files
def _warner(err: Console, unit: str) -> Callable[[MalformedLine], None]:
    warned = 0

    def warn(bad: MalformedLine) -> None:
        nonlocal warned
        warned += 1
        if warned <= MAX_WARNINGS:
            err.print(f"[yellow]warning:[/] {unit} {bad.line} skipped: {escape(bad.reason)}")
        elif warned == MAX_WARNINGS + 1:
            err.print(
                f"[yellow]warning:[/] more than {MAX_WARNINGS} malformed {unit}s; "
                "the rest are only counted"
            )

    return warn


def _run_batch(
    file: str | None,
    out: str | None,
    *,
    examples: bool,
    field: str,
    task: str,
    prefix: str,
    fmt: OutputFormat,
    input_format: InputFormat | None,
    workers: int | None,
    batch_size: int,
    resume: bool,
    progress: bool,
    quiet: bool,
    mode: Literal["extract", "verify"] = "extract",
    gold: str = "gold",
) -> BatchSummary:
    """A --file run through :func:`run_file` (``answerx extract`` and ``answerx verify``):
    progress bar, malformed-row warnings, Ctrl-C to stop after the batch in progress."""
    show_bar = progress and not quiet
    err = stderr(force_terminal=show_bar)
    to_stdout = out is None or out == "-"
    if file is not None and out is not None and _same_file(file, out):
        fail(f"--out {out!r} is the input file: it would be overwritten", ExitCode.USAGE)
    if resume and to_stdout:
        fail("--resume needs --out FILE: a stream cannot be continued", ExitCode.USAGE)
    in_fmt = str(input_format) if input_format else format_of(file, "jsonl")
    if in_fmt == "json":
        in_fmt = "jsonl"  # a .json input is read as JSON Lines (one record a line)
    unit = "line" if in_fmt == "jsonl" else "row"
    with ExitStack() as stack:
        src: Any
        if examples:
            src, name = stack.enter_context(open_examples()), "examples"
        elif file == "-":
            src, name = sys.stdin.buffer, "stdin"
        else:
            assert file is not None
            src, name = file, file
            if not os.path.isfile(file):
                # Checked here so that a missing input never creates or truncates --out.
                open(file, "rb").close()  # raises the OSError to report
        dst: Any = sys.stdout.buffer if to_stdout else out
        stop = stack.enter_context(_stop_on_sigint())
        on_progress = stack.enter_context(_batch_bar(err, name, unit, show_bar))
        try:
            return run_file(
                src,
                dst,
                mode=mode,
                gold=gold,
                in_format=in_fmt,
                out_format=str(fmt),
                workers=workers,
                batch_size=batch_size,
                field=field,
                task=task,
                prefix=prefix,
                resume=resume,
                on_error=_warner(err, unit),
                on_progress=on_progress,
                stop=stop,
            )
        except KeyboardInterrupt:
            err.print(
                "[yellow]stopped at once (second Ctrl-C):[/] the output may end in a cut "
                "batch; --resume cuts it off and continues"
                if not to_stdout
                else "[yellow]stopped at once (second Ctrl-C)[/]"
            )
            raise typer.Exit(ExitCode.INTERRUPTED) from None


@contextmanager
def _stop_on_sigint() -> Iterator[Callable[[], bool]]:
    """A first Ctrl-C asks the run to stop after the batch in progress (so the output
    is left whole); a second one stops at once."""
    requested = threading.Event()

    def handler(signum: int, frame: object) -> None:
        if requested.is_set():
            raise KeyboardInterrupt
        requested.set()

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread (an embedding app): Ctrl-C stays the app's
        yield requested.is_set
        return
    try:
        yield requested.is_set
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _batch_bar(
    console: Console, name: str, unit: str, enabled: bool
) -> Iterator[Callable[[RunProgress], None] | None]:
    if not enabled:
        yield None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rows]:,} " + unit + "s"),
        TextColumn("{task.fields[rate]:,.0f} " + unit + "s/s"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task_id = bar.add_task(os.path.basename(name), total=None, rows=0, rate=0.0)
    started = time.monotonic()

    def update(p: RunProgress) -> None:
        rate = p.rows / max(time.monotonic() - started, 1e-9)
        bar.update(task_id, completed=p.done, total=p.total, rows=p.rows, rate=rate)

    with bar:
        yield update


def _print_interrupted(
    summary: BatchSummary, file: str | None, out: str | None, fmt: OutputFormat
) -> None:
    err = stderr()
    unit = "line" if format_of(file, "jsonl") in ("jsonl", "json") else "row"
    last = (
        f"last input {unit} written: {summary.last_written:,}"
        if summary.last_written is not None
        else "no record written yet"
    )
    err.print(
        f"[yellow]interrupted[/] after {summary.consumed:,} input {unit}s "
        f"(whole batches only); {last}"
    )
    where = "the output" if out is None or out == "-" else out
    kind = {"json": "a valid JSON array (closed)", "parquet": "a valid Parquet file"}.get(
        str(fmt), f"valid {str(fmt).upper()}, every record whole"
    )
    if str(fmt) == "parquet" and where != "the output" and not os.path.exists(where):
        err.print(f"{escape(where)} was not written: no batch was done")
    else:
        err.print(f"{escape(where)} is {kind}, with {summary.written:,} records")
    if out is not None and out != "-" and file not in (None, "-"):
        argv = [a for a in sys.argv[1:] if a != "--resume"]
        command = shlex.join(["answerx", *argv, "--resume"]) if argv else "… --resume"
        err.print(f"resume with: {escape(command)}")


def _run_table(
    file: str | None,
    out: str | None,
    *,
    examples: bool,
    field: str,
    task: str,
    progress: bool,
    quiet: bool,
) -> FileSummary:
    # A table needs every row before it prints: one core, meant for small files.
    show_bar = progress and not quiet
    err = stderr(force_terminal=show_bar)
    to_stdout = out is None or out == "-"
    if file is not None and out is not None and _same_file(file, out):
        fail(f"--out {out!r} is the input file: it would be overwritten", ExitCode.USAGE)
    with ExitStack() as stack:
        # Input before output: a missing input must not create or truncate --out.
        if examples:
            src: IO[bytes] = stack.enter_context(open_examples())
            name = "examples"
        elif file == "-":
            src, name = sys.stdin.buffer, "stdin"
        else:
            assert file is not None
            src, name = stack.enter_context(open(file, "rb")), file
        if to_stdout:
            dst: IO[bytes] = sys.stdout.buffer
        else:
            assert out is not None
            dst = stack.enter_context(open(out, "wb"))
        on_progress = stack.enter_context(_progress_bar(err, name, _size(src), show_bar))
        summary = FileSummary()
        items = iter_extract(
            src,
            field=field,
            task=task,
            summary=summary,
            on_error=_warner(err, "line"),
            on_progress=on_progress,
        )
        try:
            if to_stdout:
                _write_table(items, stdout())
            else:
                # rich writes text, and a file gets a fixed width. detach() leaves dst open.
                text = io.TextIOWrapper(dst, encoding="utf-8", write_through=True)
                try:
                    _write_table(items, Console(file=text, width=120, highlight=False))
                finally:
                    text.detach()
        except KeyboardInterrupt:
            _print_summary(summary)
            err.print("[yellow]interrupted:[/] the table was not written")
            raise typer.Exit(ExitCode.INTERRUPTED) from None
        dst.flush()
    if not quiet:
        _print_summary(summary)
    return summary


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False  # one of them does not exist yet: not the same file


def _size(stream: IO[bytes]) -> int | None:
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return None  # not a real file (a pipe wrapper, a test stream)
    return st.st_size if st.st_size > 0 else None


@contextmanager
def _progress_bar(
    console: Console, name: str, total: int | None, enabled: bool
) -> Iterator[Callable[[int, int], None] | None]:
    if not enabled:
        yield None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        DownloadColumn(),
        TextColumn("{task.fields[lines]:,} lines"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task_id = bar.add_task(os.path.basename(name), total=total, lines=0)

    last = [0, 0]

    def update(lines: int, nbytes: int) -> None:
        last[:] = lines, nbytes
        if lines % _PROGRESS_EVERY == 0:
            bar.update(task_id, completed=nbytes, lines=lines)

    with bar:
        yield update
        bar.update(task_id, completed=last[1], lines=last[0])  # the bar's last frame is exact


def _write_table(items: Iterator[ExtractedRecord], console: Console) -> None:
    # A table needs all its rows before it prints: meant for small files (--examples).
    rows: list[tuple[str, str, Text, str, str, str | None]] = []
    has_expected = False
    for item in items:
        e, rec = item.extraction, item.record
        has_expected = has_expected or "expected" in rec
        expected = rec.get("expected")
        rows.append(
            (
                str(rec.get("id", item.line)),
                e.task,
                _answer_cell(e.answer),
                e.method,
                f"{e.confidence:.2f}",
                None if "expected" not in rec else ("✓" if expected == e.answer else "✗"),
            )
        )
    table = Table(show_edge=False)
    table.add_column("id", overflow="fold")
    table.add_column("task", no_wrap=True)
    table.add_column("answer", overflow="fold")
    table.add_column("method", no_wrap=True)
    table.add_column("conf", justify="right", no_wrap=True)
    if has_expected:
        table.add_column("ok", justify="center", no_wrap=True)
    for row in rows:
        table.add_row(*row[:5], *([row[5] or ""] if has_expected else []))
    console.print(table)


def _print_summary(summary: FileSummary) -> None:
    err = stderr()
    style = "green" if summary.ok else "yellow"
    err.print(
        f"[{style}]read {summary.read:,} · written {summary.written:,} · "
        f"malformed {summary.malformed_count:,}[/]"
    )
    if summary.by_method:
        methods = sorted(summary.by_method.items(), key=lambda kv: (-kv[1], kv[0]))
        err.print("by method: " + " · ".join(f"{m} {n:,}" for m, n in methods))
    for name in summary.replaced_fields:
        err.print(f"[yellow]warning:[/] input field {name!r} was replaced; use --prefix to keep it")
    if summary.nonfinite_nulled:
        err.print(
            f"[yellow]note:[/] {summary.nonfinite_nulled:,} records held NaN or Infinity, "
            "which JSON cannot hold: written as null"
        )
