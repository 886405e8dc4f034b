"""``answerx verify``: is the answer in an output right? One text, a file, or a dataset's golds.

Thin on purpose: the verdicts are :func:`answerx.verify` / :func:`answerx.verify_batch`'s;
files go through :func:`answerx.batch.run_file` in verify mode, the machinery of
``answerx extract --file`` (JSONL, CSV, Parquet; every core; Ctrl-C and --resume;
--engine ray); this module parses options, prints, and sums up. ``answerx
reward-func write`` writes the OpenRLHF reward-function file
(:mod:`answerx.integrations.openrlhf`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from answerx.batch.files import BatchSummary
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
from answerx.cli.extract import InputFormat, _print_interrupted, _run_batch
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
    OldJsonOption,
    OutFileOption,
    PrefixOption,
    QuietOption,
    ResumeOption,
    WorkersOption,
    format_option,
    format_or_old_json,
    task_option,
)
from answerx.errors import InputError
from answerx.grading import REASONS, Verdict, verify, verify_batch
from answerx.recordfiles.formats import format_of

__all__ = ["HELP", "reward_func_app", "verify_command"]


HELP = f"""Check the final answer of LLM output against a gold answer.

A single TEXT (or '-' for stdin) with --gold prints the verdict:
correct, reason (equivalent, different, no_answer, unfinished,
malformed_answer, unreadable_gold, timeout), how (the predicate that
decided) and the answer: a table on a terminal, JSON otherwise
(--format table|json chooses).

--file reads JSONL, CSV or Parquet records (format from the extension,
or --input-format; --field: the raw output, --gold-field: the gold
answer; a record's own 'task', 'choices', 'numbers' and
'finish_reason' are used) in batches across --workers processes
(default: every core) and writes each back with correct, reason, how,
answer and the extraction's fields added: to --out in the format its
extension names (.jsonl, .json, .csv, .parquet; JSONL on stdout).
Malformed records are reported on stderr with their line (JSONL) or
row number, skipped and counted. A closing summary on
stderr gives the accuracy with its 95 % Wilson interval and the count
of each reason. Ctrl-C stops after the batch in progress, leaving
--out valid; --resume continues it. --engine ray runs the file on a
Ray cluster (pip install 'answerx\\[ray]') and writes Parquet.

--self-check DATASET (a file, a bundled sample or hf:NAME) writes
each gold answer the way a model would (\\boxed{{gold}}, "The answer
is gold.", <answer>gold</answer>, JSON) and lists the golds that do
not verify as correct: a broken data set shows before a training run.

{EXIT_CODES_HELP} --self-check exits 1 when some gold does not verify.
"""


def verify_command(
    text: Annotated[
        str | None,
        typer.Argument(help="The raw output; '-' reads it from stdin.", show_default=False),
    ] = None,
    gold: Annotated[
        str | None,
        typer.Option("--gold", "-g", help="The gold answer (single text).", show_default=False),
    ] = None,
    file: FileOption = None,
    out: OutFileOption = None,
    self_check: Annotated[
        str | None,
        typer.Option(
            "--self-check", help="Check that a data set's golds verify.", show_default=False
        ),
    ] = None,
    field_name: FieldOption = "raw_output",
    gold_field: Annotated[
        str, typer.Option("--gold-field", help="Record field with the gold answer (files).")
    ] = "gold",
    task: Annotated[str, task_option(extra=" In a file, a record's own 'task' wins.")] = "auto",
    choices: ChoicesOption = None,
    numbers: NumbersOption = None,
    finish_reason: Annotated[
        str | None,
        typer.Option(
            "--finish-reason",
            show_default=False,
            help="The provider's finish reason ('length' = cut off; single text).",
        ),
    ] = None,
    workers: WorkersOption = None,
    prefix: PrefixOption = "",
    fmt: Annotated[
        Format | None,
        format_option(
            Format.table,
            Format.json,
            help="A single text or --self-check: table or json. Default: table on a "
            "terminal, else json (--self-check: table).",
        ),
    ] = None,
    quiet: QuietOption = False,
    old_json: OldJsonOption = False,
    input_format: Annotated[
        InputFormat | None,
        typer.Option(
            "--input-format",
            show_default=False,
            help="jsonl, csv or parquet. Default: from --file's extension (else jsonl).",
        ),
    ] = None,
    batch_size: BatchSizeOption = 1024,
    resume: ResumeOption = False,
    progress: Annotated[
        bool | None,
        typer.Option(
            "--progress/--no-progress",
            show_default=False,
            help="Progress bar on stderr for files. Default: when stderr is a terminal.",
        ),
    ] = None,
    engine: EngineOption = Engine.local,
    address: AddressOption = None,
) -> None:
    """Check answers against gold answers (the full help is :data:`HELP`)."""  # fmt: skip
    fmt = format_or_old_json(fmt, old_json)
    as_json = fmt is Format.json
    with command_boundary():
        if sum((text is not None, file is not None, self_check is not None)) != 1:
            fail("give exactly one of: TEXT, '-' (stdin), --file PATH, --self-check DATASET",
                 ExitCode.USAGE)  # fmt: skip
        if self_check is not None:
            failed = _self_check(self_check, task, as_json)
            if failed:
                raise typer.Exit(int(ExitCode.MALFORMED))
            return
        if text is not None:
            if gold is None:
                fail("--gold is needed with a single text", ExitCode.USAGE)
            raw = sys.stdin.read() if text == "-" else text
            verdict = verify(
                raw, gold, task, choices=parse_choices(choices), numbers=parse_numbers(numbers),
                finish_reason=finish_reason,
            )  # fmt: skip
            _print_single(verdict, as_json or (fmt is None and not sys.stdout.isatty()))
            return
        if gold is not None or choices or numbers or finish_reason:
            fail("--gold/--choices/--numbers/--finish-reason are for a single text; in a file, "
                 "use --gold-field and each record's fields", ExitCode.USAGE)  # fmt: skip
        if fmt is not None:
            fail("--format is for a single text or --self-check; a file's output format "
                 "follows --out's extension", ExitCode.USAGE)  # fmt: skip
        assert file is not None
        options = _FileOptions(field_name, gold_field, task, prefix, workers, batch_size, quiet)
        if engine is Engine.ray:
            if resume or input_format is not None:
                fail("--engine ray reads Parquet/JSONL by extension and writes Parquet; "
                     "--resume and --input-format are for local runs",
                     ExitCode.USAGE)  # fmt: skip
            summary = _run_ray(file, out, address, options)
        else:
            show_progress = (not quiet and sys.stderr.isatty()) if progress is None else progress
            summary = _run_batch(
                file, out, examples=False, field=field_name, task=task, prefix=prefix,
                fmt=_out_format(out), input_format=input_format, workers=workers,
                batch_size=batch_size, resume=resume, progress=show_progress, quiet=quiet,
                mode="verify", gold=gold_field,
            )  # fmt: skip
        if not quiet:
            _print_summary(summary, "row" if format_of(file) in ("csv", "parquet") else "line")
        if summary.interrupted:
            _print_interrupted(summary, file, out, _out_format(out))
            raise typer.Exit(int(ExitCode.INTERRUPTED))
    if summary.malformed_count:
        raise typer.Exit(int(ExitCode.MALFORMED))


# --------------------------------------------------------------------------- single text
def _payload(verdict: Verdict) -> dict[str, Any]:
    payload = verdict.model_dump(mode="json", exclude={"extraction"})
    if verdict.extraction is not None:
        payload["method"] = verdict.extraction.method
    return payload


def _print_single(verdict: Verdict, as_json: bool) -> None:
    payload = _payload(verdict)
    if as_json:
        typer.echo(json.dumps(payload, ensure_ascii=False))
        return
    table = Table(show_header=False, box=None)
    for key in ("correct", "reason", "how", "answer", "gold", "method"):
        table.add_row(key, str(payload.get(key)))
    stdout().print(table)


# --------------------------------------------------------------------------- files
def _out_format(out: str | None) -> Format:
    """A file's output format: --out's extension (.jsonl, .json, .csv, .parquet), else JSONL."""
    return Format(format_of(out, "jsonl"))


@dataclass(frozen=True)
class _FileOptions:
    field: str
    gold: str
    task: str
    prefix: str
    workers: int | None
    batch_size: int
    quiet: bool


def _run_ray(file: str, out: str | None, address: str | None, o: _FileOptions) -> BatchSummary:
    """``--engine ray``: the run, then the summary read back from the Parquet it wrote."""
    from answerx.integrations.ray import read_summary, run_ray_cli

    run_ray_cli(
        "verify", file, out, address=address, field=o.field, gold=o.gold, task=o.task,
        prefix=o.prefix, batch_size=o.batch_size, workers=o.workers, quiet=o.quiet,
    )  # fmt: skip
    assert out is not None  # run_ray_cli refuses a run without --out
    return read_summary(out, o.prefix, mode="verify")


def _print_summary(summary: BatchSummary, unit: str) -> None:
    # Imported here: answerx.experiments loads the provider SDKs, which `verify` never needs.
    from answerx.experiments.stats import wilson_interval

    console = stderr()
    total = sum(summary.by_reason.values())
    if summary.judged:
        low, high = wilson_interval(summary.correct, summary.judged)
        console.print(
            f"{total} items: accuracy {summary.correct / summary.judged:.1%} "
            f"({summary.correct}/{summary.judged}; 95 % Wilson interval {low:.1%}–{high:.1%})",
            markup=False,
        )
    else:
        console.print(f"{total} items: none could be judged (no readable gold)", markup=False)
    counts = ", ".join(f"{r} {summary.by_reason[r]}" for r in REASONS if summary.by_reason.get(r))
    console.print(f"by reason: {counts or 'none'}", markup=False)
    if summary.malformed_count:
        console.print(f"{summary.malformed_count} malformed {unit}s skipped", markup=False)
    for name in summary.replaced_fields:
        console.print(
            f"[yellow]warning:[/] input field {escape(name)!r} was replaced; "
            "use --prefix to keep it"
        )
    if summary.nonfinite_nulled:
        console.print(
            f"note: {summary.nonfinite_nulled:,} records held NaN or Infinity, which JSON "
            "cannot hold: written as null",
            markup=False,
        )


# --------------------------------------------------------------------------- self-check
#: How models state an answer; each gold answer must verify in every one of them.
FORMS: tuple[tuple[str, str], ...] = (
    ("boxed", "The final answer is $\\boxed{{{gold}}}$."),
    ("phrase", "The answer is {gold}."),
    ("answer_tag", "<answer>{gold}</answer>"),
    ("json", "{json}"),
)


def _self_check(dataset: str, task: str, as_json: bool) -> list[dict[str, Any]]:
    from answerx.experiments.datasets import load_dataset

    items = load_dataset(dataset)
    outputs: list[str] = []
    golds: list[str] = []
    tasks: list[str] = []
    choices: list[list[str] | None] = []
    numbers: list[list[int] | None] = []
    owners: list[tuple[str, str]] = []
    for item in items:
        if item.gold is None:
            continue  # nothing to write; counted as "no gold answer" below
        gold = item.gold
        for name, form in FORMS:
            text = form.format(gold=gold, json=json.dumps({"answer": gold}, ensure_ascii=False))
            outputs.append(text)
            golds.append(gold)
            tasks.append(item.task if item.task != "auto" else task)
            choices.append(item.choices)
            numbers.append(item.numbers)
            owners.append((item.id, name))
    verdicts = verify_batch(outputs, golds, task=tasks, choices=choices, numbers=numbers)
    failures: dict[str, dict[str, Any]] = {}
    for (item_id, form), verdict, gold in zip(owners, verdicts, golds, strict=True):
        if verdict.correct:
            continue
        entry = failures.setdefault(item_id, {"id": item_id, "gold": gold, "forms": {}})
        entry["forms"][form] = {"reason": verdict.reason, "answer": verdict.answer}
    checked = len({o[0] for o in owners})
    missing = len(items) - checked
    result = list(failures.values())
    if as_json:
        typer.echo(json.dumps({"checked": checked, "no_gold": missing, "failed": result},
                              ensure_ascii=False))  # fmt: skip
    else:
        if result:
            table = Table("id", "gold", "form", "reason", "answer read")
            for entry in result:
                for form, why in entry["forms"].items():
                    table.add_row(entry["id"], str(entry["gold"]), form, why["reason"],
                                  str(why["answer"]))  # fmt: skip
            stdout().print(table)
        stderr().print(
            f"{checked} gold answers checked in {len(FORMS)} forms: "
            f"{checked - len(result)} verify in all, {len(result)} do not"
            + (f"; {missing} items have no gold answer" if missing else ""),
            markup=False,
        )
    return result


# --------------------------------------------------------------------------- reward-func
reward_func_app = typer.Typer(
    help="Reward-function files for RL frameworks (OpenRLHF's --remote_rm_url file mode).",
    no_args_is_help=True,
)


@reward_func_app.command("write")
def write_reward_func(
    path: Annotated[Path, typer.Argument(help="The .py file to write (e.g. reward_func.py).")],
    task: Annotated[str, task_option()] = "auto",
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write the reward-function file OpenRLHF loads with --remote_rm_url PATH."""
    from answerx.integrations.openrlhf import reward_file

    with command_boundary():
        if path.exists() and not force:
            raise InputError(f"{path} exists; --force overwrites it")
        path.write_text(reward_file(path.name, task), encoding="utf-8")
        stderr().print(
            f"wrote {path}: use it with --remote_rm_url {path} --label_key <gold column>",
            markup=False,
        )
