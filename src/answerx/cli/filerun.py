"""A file run from the command line: ``answerx extract --file`` and ``answerx verify --file``.

Both commands run :func:`answerx.batch.run_file`; this module is what they share
around it: the input opened (a path exactly once, stdin, or the bundled
examples), the output (a file, stdout, or the table, a sink of the same run), a
progress bar, the malformed-record warnings, Ctrl-C (a first one stops after the
batch in progress, a second at once), and what is said when a run was stopped.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from answerx.batch.files import BatchSummary, RunProgress, run_file
from answerx.batch.outputs import ResultRow
from answerx.cli._common import ExitCode, fail, stderr, stdout
from answerx.cli.asking import print_llm_totals
from answerx.examples import open_examples
from answerx.extraction.files import FileSummary, MalformedLine
from answerx.recordfiles.formats import format_of
from answerx.recordfiles.lines import MAX_LINE_BYTES
from answerx.support.nofollow import open_output

if TYPE_CHECKING:
    from answerx.integrations.ray import RayRunResult

__all__ = [
    "MAX_WARNINGS",
    "FileRun",
    "answer_cell",
    "print_extract_summary",
    "report_interrupted",
    "run_records",
]

MAX_WARNINGS = 100  # malformed-record warnings printed; later ones are only counted


@dataclass(frozen=True)
class FileRun:
    """A file run as the command line was asked for it."""

    file: str | None
    """The input path ('-': stdin); None with ``examples``."""
    out: str | None
    """The output path; None or '-': stdout."""
    fmt: str
    """The output: ``table`` (printed at the end) or a record format."""
    input_format: str | None = None
    mode: Literal["extract", "verify"] = "extract"
    field: str = "raw_output"
    gold: str = "gold"
    task: str = "auto"
    prefix: str = ""
    workers: int | None = None
    batch_size: int = 1024
    resume: bool = False
    progress: bool | None = None
    """None: a progress bar when stderr is a terminal."""
    quiet: bool = False
    examples: bool = False
    question_field: str = "question"
    judge: Any = None
    """Verify: the judge asked about the records the rules were unsure of (None: none)."""
    llm: Any = None
    """Extract: the LLM extractor reading what the rules could not (None: none)."""
    llm_concurrency: int = 4
    max_line_bytes: int = MAX_LINE_BYTES
    """The longest JSONL or CSV line held; a longer one is a malformed record."""

    @property
    def in_format(self) -> str:
        """The input's format: ``--input-format``, else the file's suffix, else JSONL."""
        fmt = self.input_format or format_of(self.file, "jsonl")
        return "jsonl" if fmt == "json" else str(fmt)  # a .json input is read as JSON Lines

    @property
    def unit(self) -> str:
        """What a record is called: a line of JSONL, a row of CSV or Parquet."""
        return "line" if self.in_format == "jsonl" else "row"

    @property
    def to_stdout(self) -> bool:
        return self.out is None or self.out == "-"


def run_records(run: FileRun) -> BatchSummary:
    """Run ``run`` with its progress bar, warnings and Ctrl-C handling; the table, when
    asked for, is printed at the end. Exits 2 for options that do not fit together."""
    show_bar = (not run.quiet and sys.stderr.isatty()) if run.progress is None else run.progress
    show_bar = show_bar and not run.quiet
    err = stderr(force_terminal=show_bar)
    if run.file is not None and run.out is not None and _same_file(run.file, run.out):
        fail(f"--out {run.out!r} is the input file: it would be overwritten", ExitCode.USAGE)
    if run.resume and (run.to_stdout or run.fmt == "table"):
        fail("--continue needs --out FILE: a stream cannot be continued", ExitCode.USAGE)
    table = _TableRows() if run.fmt == "table" else None
    with ExitStack() as stack:
        src: Any
        if run.examples:
            src, name = stack.enter_context(open_examples()), "examples"
        elif run.file == "-":
            src, name = sys.stdin.buffer, "stdin"
        else:
            assert run.file is not None
            # A path, opened by run_file exactly once: a FIFO or <(…) is read as a stream.
            src, name = run.file, run.file
        dst: Any = table or (sys.stdout.buffer if run.to_stdout else run.out)
        stop = stack.enter_context(_stop_on_sigint())
        on_progress = stack.enter_context(_progress_bar(err, name, run.unit, show_bar))
        try:
            summary = run_file(
                src,
                dst,
                mode=run.mode,
                gold=run.gold,
                in_format=run.in_format,
                out_format=None if table is not None else run.fmt,
                workers=run.workers,
                batch_size=run.batch_size,
                field=run.field,
                task=run.task,
                prefix=run.prefix,
                resume=run.resume,
                on_error=_warner(err, run.unit),
                on_progress=on_progress,
                stop=stop,
                question_field=run.question_field,
                judge=run.judge,
                llm=run.llm,
                llm_concurrency=run.llm_concurrency,
                max_line_bytes=run.max_line_bytes,
            )
        except KeyboardInterrupt:
            err.print(
                "[yellow]stopped at once (second Ctrl-C):[/] the output may end in a cut "
                "batch; --continue cuts it off and continues"
                if not run.to_stdout and table is None
                else "[yellow]stopped at once (second Ctrl-C)[/]"
            )
            raise typer.Exit(ExitCode.INTERRUPTED) from None
    if table is not None and not summary.interrupted:
        table.print(run.out)
    return summary


def report_interrupted(summary: BatchSummary, run: FileRun) -> None:
    """Say where a stopped run left its output and how to continue it; exit 130."""
    err = stderr()
    if run.fmt == "table":
        err.print("[yellow]interrupted:[/] the table was not written")
        raise typer.Exit(int(ExitCode.INTERRUPTED))
    unit = run.unit
    last = (
        f"last input {unit} written: {summary.last_written:,}"
        if summary.last_written is not None
        else "no record written yet"
    )
    err.print(
        f"[yellow]interrupted[/] after {summary.consumed:,} input {unit}s "
        f"(whole batches only); {last}"
    )
    where = "the output" if run.to_stdout else str(run.out)
    kind = {"json": "a valid JSON array (closed)", "parquet": "a valid Parquet file"}.get(
        run.fmt, f"valid {run.fmt.upper()}, every record whole"
    )
    if run.fmt == "parquet" and not run.to_stdout and not os.path.exists(where):
        err.print(f"{escape(where)} was not written: no batch was done")
    else:
        err.print(f"{escape(where)} is {kind}, with {summary.written:,} records")
    if not run.to_stdout and run.file not in (None, "-"):
        argv = [a for a in sys.argv[1:] if a not in ("--continue", "--resume")]
        command = shlex.join(["answerx", *argv, "--continue"]) if argv else "… --continue"
        err.print(f"resume with: {escape(command)}")
    raise typer.Exit(int(ExitCode.INTERRUPTED))


def print_extract_summary(summary: FileSummary) -> None:
    """The closing summary of an extraction run, on stderr."""
    err = stderr()
    style = "green" if summary.ok else "yellow"
    err.print(
        f"[{style}]read {summary.read:,} · written {summary.written:,} · "
        f"malformed {summary.malformed_count:,}[/]"
    )
    if summary.by_method:
        methods = sorted(summary.by_method.items(), key=lambda kv: (-kv[1], kv[0]))
        err.print("by method: " + " · ".join(f"{m} {n:,}" for m, n in methods))
    if isinstance(summary, BatchSummary):
        print_llm_totals(summary.llm, err)
    note_replaced_and_nulled(summary, err)


def print_ray_result(result: RayRunResult) -> None:
    """What an ``--engine ray`` run wrote: counts, the first error rows' reasons (all are
    kept in the files), and where the Parquet files are."""
    if not result.local:
        return  # a remote filesystem: Ray wrote it; reading it back is the user's call
    err, summary = stderr(), result.summary
    err.print(
        f"read {summary.read:,} · written {summary.read:,} · with an error "
        f"{summary.malformed_count:,} (kept, reason in {result.error_column!r})",
        markup=False,
    )
    for reason in result.first_errors:
        err.print(f"[yellow]warning:[/] row skipped by extraction: {escape(reason)}")
    err.print(f"Parquet files in {escape(result.out)}")


def note_replaced_and_nulled(summary: FileSummary, err: Console) -> None:
    """Warn of input fields the added ones replaced, and of NaN written as null."""
    for name in summary.replaced_fields:
        err.print(
            f"[yellow]warning:[/] input field {escape(repr(name))} was replaced; "
            "use --prefix to keep it"
        )
    if summary.nonfinite_nulled:
        err.print(
            f"[yellow]note:[/] {summary.nonfinite_nulled:,} records held NaN or Infinity, "
            "which JSON cannot hold: written as null"
        )


def answer_cell(answer: str | None) -> Text:
    """An answer in a table: as written (an answer such as "[B]" is not markup)."""
    return Text(answer) if answer is not None else Text("(none)", style="dim")


# --------------------------------------------------------------------------- the table
class _TableRows:
    """The table output: a sink of the run's result rows, printed once the run is done
    (a table needs every row before it prints: meant for small files, --examples)."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, Text, str, str, str | None]] = []
        self.has_expected = False

    def add(self, row: ResultRow) -> None:
        record = row.record
        self.has_expected = self.has_expected or "expected" in record
        answer = record.get("answer")
        mark = None
        if "expected" in record:
            mark = "✓" if record["expected"] == answer else "✗"
        confidence = record.get("confidence")
        self.rows.append(
            (
                str(record.get("id", row.number)),
                row.task or "",
                answer_cell(answer),
                str(record.get("method")),
                f"{confidence:.2f}" if isinstance(confidence, float | int) else "",
                mark,
            )
        )

    def print(self, out: str | None) -> None:
        table = Table(show_edge=False)
        table.add_column("id", overflow="fold")
        table.add_column("task", no_wrap=True)
        table.add_column("answer", overflow="fold")
        table.add_column("method", no_wrap=True)
        table.add_column("conf", justify="right", no_wrap=True)
        if self.has_expected:
            table.add_column("ok", justify="center", no_wrap=True)
        for row in self.rows:
            table.add_row(*row[:5], *([row[5] or ""] if self.has_expected else []))
        if out is None or out == "-":
            stdout().print(table)
            return
        # rich writes text, and a file gets a fixed width; never through a link.
        with open_output(out, "w", encoding="utf-8") as text:
            Console(file=text, width=120, highlight=False).print(table)


# --------------------------------------------------------------------------- helpers
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
def _progress_bar(
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
        # Redrawn from update(), on this thread: a refresh thread would keep the run from
        # forking its workers warm from this process (see answerx.batch.workers).
        auto_refresh=False,
    )
    task_id = bar.add_task(os.path.basename(name), total=None, rows=0, rate=0.0)
    started = time.monotonic()
    drawn = [0.0]

    def update(p: RunProgress) -> None:
        now = time.monotonic()
        rate = p.rows / max(now - started, 1e-9)
        bar.update(task_id, completed=p.done, total=p.total, rows=p.rows, rate=rate)
        if now - drawn[0] >= 0.1:  # at most ten redraws a second, as rich's own thread
            drawn[0] = now
            bar.refresh()

    with bar:
        yield update


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False  # one of them does not exist yet: not the same file
