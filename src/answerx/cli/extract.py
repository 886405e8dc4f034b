"""``answerx extract``: the final answer out of one text, stdin, or a file of records.

Thin on purpose: single texts go to :func:`answerx.extract`, files to
:func:`answerx.batch.run_file` through :mod:`answerx.cli.filerun` (JSONL, CSV,
Parquet on every core; the table is a sink of the same run); this module only
parses options and prints.
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from typing import Annotated, Any

import typer
from rich.table import Table

from answerx.cli._common import (
    EXIT_CODES_HELP,
    ExitCode,
    command_boundary,
    fail,
    parse_choices,
    parse_numbers,
    stdout,
)
from answerx.cli.asking import (
    CacheOption,
    QuestionFieldOption,
    QuestionOption,
    concurrency_option,
    llm_option,
    max_calls_option,
    max_cost_option,
    open_extractor,
)
from answerx.cli.filerun import (
    FileRun,
    answer_cell,
    print_extract_summary,
    print_ray_result,
    report_interrupted,
    run_records,
)
from answerx.cli.options import (
    AddressOption,
    BatchSizeOption,
    ChoicesOption,
    ContinueOption,
    Engine,
    EngineOption,
    FieldOption,
    FileOption,
    FinishReasonOption,
    Format,
    InputFormatOption,
    NumbersOption,
    OldResumeOption,
    OutFileOption,
    PrefixOption,
    ProgressOption,
    QuietOption,
    WorkersOption,
    continue_or_old_resume,
    format_option,
    note_deprecated,
    print_json,
    task_option,
)
from answerx.extraction import Extraction, extract
from answerx.extraction.tasks import check_task
from answerx.recordfiles.formats import format_of

__all__ = ["HELP", "OutputFormat", "extract_command"]


#: How results are printed: the forms of the CLI's one :class:`~answerx.cli.options.Format`
#: that extract has (table, json, jsonl, csv, parquet).
OutputFormat = Format


HELP = f"""Extract the final answer from LLM output: one TEXT, stdin ('-'), or a file.

A single text prints answer, method, confidence and task: as a table on a
terminal, as JSON otherwise (--format changes it).

--file streams a JSONL, CSV or Parquet file (format from the extension, or
--input-format) in batches across --workers processes (default: every core),
in flat memory, and writes every record back in order with answer, method,
confidence, valid, unfinished, span_start and span_end added: to --out in the
format its extension names (.jsonl, .json, .csv, .parquet; --format wins;
JSONL on stdout; --format table prints a table once the run is done). A
record's own 'task', 'choices', 'numbers' and 'finish_reason' fields are used
for it. Malformed records are reported on stderr with their line (JSONL) or row
number, skipped, and counted in the closing summary. NaN and Infinity are
written to JSON as null. A named pipe or <(…) works as --file.

Ctrl-C stops after the batch in progress: --out is left a valid file holding
every record up to that batch, and --continue continues it.

--engine ray runs the file on a Ray cluster (pip install 'answerx\\[ray]';
--address auto or ray://HOST:10001) and writes Parquet files into --out-dir.

--examples runs over the example outputs bundled with answerx (a table by default).

--llm PROVIDER/MODEL reads again, with one structured extraction call (the
two_stage idea: tools mode, then JSON modes, the answer's shape bound to the
task), only the outputs the rules could not read with confidence: a finished
output with no answer, or a fallback's guess below --llm-min-confidence (default:
the two-stage threshold, the weakest explicit marker); its answers get method
structured_llm. A record's 'question' field (--question-field) is passed to it.
--llm-max-calls and --llm-max-cost cap it (it then stops asking and says so);
answers are kept in the response cache, so a re-run costs nothing; the summary
gives its calls, tokens and cost.

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
    finish_reason: FinishReasonOption = None,
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
    progress: ProgressOption = None,
    quiet: QuietOption = False,
    workers: WorkersOption = None,
    batch_size: BatchSizeOption = 1024,
    cont: ContinueOption = False,
    old_resume: OldResumeOption = False,
    input_format: InputFormatOption = None,
    engine: EngineOption = Engine.local,
    address: AddressOption = None,
    question: QuestionOption = None,
    question_field: QuestionFieldOption = "question",
    llm_name: Annotated[
        str | None,
        llm_option(
            "--llm", "Read the outputs the rules could not read with this LLM (and only those)."
        ),
    ] = None,
    llm_max_calls: Annotated[int | None, max_calls_option("--llm-max-calls")] = None,
    llm_max_cost: Annotated[float | None, max_cost_option("--llm-max-cost")] = None,
    llm_min_confidence: Annotated[
        float | None,
        typer.Option(
            "--llm-min-confidence",
            min=0.0,
            max=1.0,
            show_default=False,
            rich_help_panel="LLM for the residue",
            help="A rule's answer below this confidence is read again by --llm (default: the "
            "two-stage threshold).",
        ),
    ] = None,
    llm_concurrency: Annotated[int, concurrency_option("--llm-concurrency")] = 4,
    cache: CacheOption = True,
) -> None:
    """Extract the final answer from LLM output (the full help is :data:`HELP`)."""
    resume = continue_or_old_resume(cont, old_resume)
    with command_boundary(), ExitStack() as stack:
        check_task(task)  # ConfigError -> exit 2 with the valid names, before any I/O
        if llm_name is None and (
            llm_max_calls is not None or llm_max_cost is not None or llm_min_confidence is not None
        ):
            fail("--llm-max-calls/--llm-max-cost/--llm-min-confidence need --llm PROVIDER/MODEL",
                 ExitCode.USAGE)  # fmt: skip
        if llm_name is not None and engine is Engine.ray:
            fail("--llm is for a single text or a local --file run", ExitCode.USAGE)
        if question is not None and text is None:
            fail("--question is for a single text; in a file, --question-field names the "
                 "records' field", ExitCode.USAGE)  # fmt: skip
        llm = None
        if llm_name is not None:
            llm = open_extractor(
                llm_name, max_calls=llm_max_calls, max_cost=llm_max_cost,
                min_confidence=llm_min_confidence, cache=cache, stack=stack,
            )  # fmt: skip
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
            options, puzzle = parse_choices(choices), parse_numbers(numbers)
            result = extract(
                raw, task, choices=options, numbers=puzzle, finish_reason=finish_reason
            )
            if llm is not None and llm.needs(result):
                read = llm.extract(result, question=question, choices=options, numbers=puzzle)
                result = read.extraction
            default = OutputFormat.table if sys.stdout.isatty() else OutputFormat.json
            _print_single(result, fmt or default)
            return
        if choices or numbers or finish_reason:
            fail(
                "--choices/--numbers/--finish-reason are for a single text; in a file, give "
                "each record 'choices'/'numbers'/'finish_reason' fields",
                ExitCode.USAGE,
            )
        if engine is Engine.ray:
            from answerx.integrations.ray import run_ray_cli

            if file is None:
                fail("--engine ray needs --file PATH (paths or globs)", ExitCode.USAGE)
            if resume or input_format is not None or fmt not in (None, "parquet"):
                fail(
                    "--engine ray reads Parquet/JSONL by extension and writes Parquet; "
                    "--continue, --input-format and --format are for local runs",
                    ExitCode.USAGE,
                )
            if out is not None and out_dir is None:
                # --out named the directory before --out-dir existed: kept for a release.
                note_deprecated("--out DIRECTORY with --engine ray", "--out-dir")
            ray_run = run_ray_cli(
                "extract", file, out_dir or out, address=address, field=field, task=task,
                prefix=prefix, batch_size=batch_size, workers=workers,
            )  # fmt: skip
            if not quiet:
                print_ray_result(ray_run)
            if ray_run.summary.malformed_count:
                raise typer.Exit(int(ExitCode.MALFORMED))
            return
        if fmt is None:
            fmt = OutputFormat.table if examples else OutputFormat(format_of(out, "jsonl"))
        run = FileRun(
            file=file,
            out=out,
            fmt=str(fmt),
            input_format=input_format,
            field=field,
            task=task,
            prefix=prefix,
            workers=workers,
            batch_size=batch_size,
            resume=resume,
            progress=progress,
            quiet=quiet,
            examples=examples,
            question_field=question_field,
            llm=llm,
            llm_concurrency=llm_concurrency,
        )
        summary = run_records(run)
        if not quiet:
            print_extract_summary(summary)
        if summary.interrupted:
            report_interrupted(summary, run)
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
        table.add_row(answer_cell(e.answer), e.method, f"{e.confidence:.2f}", e.task)
        stdout().print(table)
    elif fmt is OutputFormat.json:
        print_json(_payload(e))
    else:  # jsonl (csv, parquet: the same one line): the record on one line
        sys.stdout.write(json.dumps(_payload(e), ensure_ascii=False) + "\n")
