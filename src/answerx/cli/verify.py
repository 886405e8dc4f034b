"""``answerx verify``: is the answer in an output right? One text, a file, or a dataset's golds.

Thin on purpose: the verdicts are :func:`answerx.verify`'s; files go through
:func:`answerx.batch.run_file` in verify mode (:mod:`answerx.cli.filerun`, the
machinery of ``answerx extract --file``: JSONL, CSV, Parquet; every core; Ctrl-C
and --continue; --engine ray); ``--self-check`` is
:func:`answerx.experiments.goldcheck.check_golds`; this module parses options,
prints, and sums up. ``answerx reward-func write`` writes the OpenRLHF
reward-function file (:mod:`answerx.integrations.openrlhf`).
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from answerx.batch.files import BatchSummary
from answerx.batch.tables import gold_value
from answerx.cli._common import (
    EXIT_CODES_HELP,
    ExitCode,
    check_gold_option,
    command_boundary,
    fail,
    parse_choices,
    parse_numbers,
    stderr,
    stdout,
)
from answerx.cli.asking import (
    CacheOption,
    QuestionFieldOption,
    QuestionOption,
    concurrency_option,
    judge_from_flags,
    llm_option,
    max_calls_option,
    max_cost_option,
    print_llm_totals,
)

if TYPE_CHECKING:
    from answerx.judge import LLMJudge
from answerx.cli.filerun import (
    FileRun,
    note_replaced_and_nulled,
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
    OldJsonOption,
    OldResumeOption,
    OutFileOption,
    PrefixOption,
    ProgressOption,
    QuietOption,
    WorkersOption,
    continue_or_old_resume,
    format_option,
    format_or_old_json,
    print_json,
    task_option,
)
from answerx.grading import REASONS, Verdict, verify
from answerx.recordfiles.formats import format_of
from answerx.support.nofollow import write_output

__all__ = ["HELP", "reward_func_app", "verify_command"]


HELP = f"""Check the final answer of LLM output against a gold answer.

A single TEXT (or '-' for stdin) with --gold prints the verdict:
correct, reason (equivalent, different, no_answer, unfinished,
malformed_answer, unreadable_gold, timeout), how (the predicate that
decided), the answer and the accepted answer it matched: a table on a
terminal, JSON otherwise (--format table|json chooses). Several
accepted answers: repeat --gold, or give one JSON list
('["Paris", "City of Light"]'); any one is right. --question gives
what was asked (a short answer is graded against it).

--file reads JSONL, CSV or Parquet records (format from the extension,
or --input-format; --field: the raw output, --gold-field: the gold
answer, or a list of accepted answers (JSON text in CSV);
--question-field: the question; a record's own 'task', 'choices',
'numbers' and 'finish_reason' are used) in batches across --workers
processes (default: every core) and writes each back with correct,
reason, how, matched_gold, doubt, em, f1, cover, answer and the
extraction's fields added: to --out in the format its extension names
(.jsonl, .json, .csv, .parquet; JSONL on stdout). Malformed records
are reported on stderr with their line (JSONL) or row number, skipped
and counted. A closing summary on stderr gives the accuracy with its
95 % Wilson interval, the count of each reason, the short answers' mean
em, f1 and cover, and how many items the rules were unsure of. Ctrl-C
stops after the batch in progress, leaving --out valid; --continue
continues it. --engine ray runs the file on a Ray cluster (pip install
'answerx\\[ray]') and writes Parquet.

--judge PROVIDER/MODEL asks an LLM (through the structured manager:
tools mode, then JSON modes) about the items the rules could not
decide with confidence (doubt set) and nothing else; its verdict
replaces the rules' (how llm_judge; judge_verdict and judge_reason
added to files). --judge-max-calls and --judge-max-cost cap it (it
then stops asking and says so); answers are kept in the response
cache, so a re-run costs nothing; the summary gives its calls, tokens
and cost. A ruling below --judge-min-confidence (0.5) leaves the
rules' verdict. A judge that fails on every call is said on stderr
with the reason; --judge-strict then exits 5. Without --judge the
verdicts are the rules' alone.

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
        list[str] | None,
        typer.Option(
            "--gold",
            "-g",
            show_default=False,
            help="The gold answer (single text); repeat it, or give one JSON list, for several "
            "accepted answers.",
        ),
    ] = None,
    question: QuestionOption = None,
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
        str,
        typer.Option(
            "--gold-field", help="Record field with the gold answer or a list of them (files)."
        ),
    ] = "gold",
    question_field: QuestionFieldOption = "question",
    task: Annotated[str, task_option(extra=" In a file, a record's own 'task' wins.")] = "auto",
    choices: ChoicesOption = None,
    numbers: NumbersOption = None,
    finish_reason: FinishReasonOption = None,
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
    input_format: InputFormatOption = None,
    batch_size: BatchSizeOption = 1024,
    cont: ContinueOption = False,
    old_resume: OldResumeOption = False,
    progress: ProgressOption = None,
    engine: EngineOption = Engine.local,
    address: AddressOption = None,
    judge_name: Annotated[
        str | None,
        llm_option(
            "--judge",
            "Ask this LLM about the items the rules could not decide (and only those).",
        ),
    ] = None,
    judge_max_calls: Annotated[int | None, max_calls_option("--judge-max-calls")] = None,
    judge_max_cost: Annotated[float | None, max_cost_option("--judge-max-cost")] = None,
    judge_concurrency: Annotated[int, concurrency_option("--judge-concurrency")] = 4,
    judge_min_confidence: Annotated[
        float | None,
        typer.Option(
            "--judge-min-confidence",
            min=0.0,
            max=1.0,
            show_default=False,
            help="A ruling below this confidence leaves the rules' verdict (default 0.5).",
        ),
    ] = None,
    judge_strict: Annotated[
        bool,
        typer.Option(
            "--judge-strict",
            help="Exit with the provider code (5) when the judge failed on every call.",
        ),
    ] = False,
    cache: CacheOption = True,
) -> None:
    """Check answers against gold answers (the full help is :data:`HELP`)."""  # fmt: skip
    fmt = format_or_old_json(fmt, old_json)
    resume = continue_or_old_resume(cont, old_resume)
    as_json = fmt is Format.json
    with command_boundary(), ExitStack() as stack:
        if sum((text is not None, file is not None, self_check is not None)) != 1:
            fail("give exactly one of: TEXT, '-' (stdin), --file PATH, --self-check DATASET",
                 ExitCode.USAGE)  # fmt: skip
        limits = (judge_max_calls, judge_max_cost, judge_min_confidence)
        if judge_name is None and (any(v is not None for v in limits) or judge_strict):
            fail("--judge-max-calls/--judge-max-cost/--judge-min-confidence/--judge-strict "
                 "need --judge PROVIDER/MODEL", ExitCode.USAGE)  # fmt: skip
        if judge_name is not None and (self_check is not None or engine is Engine.ray):
            fail("--judge is for a single text or a local --file run", ExitCode.USAGE)
        if self_check is not None:
            if not _self_check(self_check, task, as_json):
                raise typer.Exit(int(ExitCode.MALFORMED))
            return
        judge = None
        if judge_name is not None:
            judge = judge_from_flags(
                judge_name, max_calls=judge_max_calls, max_cost=judge_max_cost, cache=cache,
                stack=stack, min_confidence=judge_min_confidence,
            )  # fmt: skip
            stack.callback(_judge_failures, judge, judge_strict)
        if text is not None:
            if not gold:
                fail("--gold is needed with a single text", ExitCode.USAGE)
            check_gold_option(gold, task)
            raw = sys.stdin.read() if text == "-" else text
            verdict = verify(
                raw, golds_of(gold), task, choices=parse_choices(choices),
                numbers=parse_numbers(numbers), finish_reason=finish_reason, question=question,
                judge=judge,
            )  # fmt: skip
            _print_single(verdict, as_json or (fmt is None and not sys.stdout.isatty()))
            return
        if gold or choices or numbers or finish_reason or question:
            fail("--gold/--question/--choices/--numbers/--finish-reason are for a single text; "
                 "in a file, use --gold-field, --question-field and each record's fields",
                 ExitCode.USAGE)  # fmt: skip
        if fmt is not None:
            fail("--format is for a single text or --self-check; a file's output format "
                 "follows --out's extension", ExitCode.USAGE)  # fmt: skip
        assert file is not None
        run = FileRun(
            file=file, out=out, fmt=format_of(out, "jsonl"), input_format=input_format,
            mode="verify", field=field_name, gold=gold_field, task=task, prefix=prefix,
            workers=workers, batch_size=batch_size, resume=resume, progress=progress,
            quiet=quiet, question_field=question_field, judge=judge,
            llm_concurrency=judge_concurrency,
        )  # fmt: skip
        if engine is Engine.ray:
            if resume or input_format is not None:
                fail("--engine ray reads Parquet/JSONL by extension and writes Parquet; "
                     "--continue and --input-format are for local runs",
                     ExitCode.USAGE)  # fmt: skip
            summary = _run_ray(run, address)
        else:
            summary = run_records(run)
        if not quiet:
            _print_summary(summary, run.unit)
        if summary.interrupted:
            report_interrupted(summary, run)
    if summary.malformed_count:
        raise typer.Exit(int(ExitCode.MALFORMED))


def _judge_failures(judge: LLMJudge, strict: bool) -> None:
    """Say so when the judge failed on every call it made (a wrong key, a dead server:
    no verdict of it was used), and under ``--judge-strict`` exit with the provider code."""
    summary = judge.summary
    if not summary.failed_on_all:
        return
    why = summary.failure or "no reason given"
    stderr().print(
        f"judge {judge.name} failed on every call it made ({summary.failed:,}); the rules' "
        f"verdicts stand. Last failure: {why}",
        markup=False,
    )
    if strict:
        raise typer.Exit(int(ExitCode.PROVIDER))


# --------------------------------------------------------------------------- single text
def golds_of(values: list[str]) -> Any:
    """``--gold`` as grading takes it: one answer, or a list of accepted answers (the option
    repeated, or one JSON list)."""
    if len(values) > 1:
        return list(values)
    return gold_value(values[0])


def _payload(verdict: Verdict) -> dict[str, Any]:
    payload = verdict.model_dump(mode="json", exclude={"extraction"})
    if verdict.extraction is not None:
        payload["method"] = verdict.extraction.method
    return payload


def _print_single(verdict: Verdict, as_json: bool) -> None:
    payload = _payload(verdict)
    if as_json:
        print_json(payload)
        return
    table = Table(show_header=False, box=None)
    for key in ("correct", "reason", "how", "answer", "gold", "matched_gold", "method"):
        table.add_row(key, str(payload.get(key)))
    if verdict.scores is not None:
        scores = verdict.scores
        table.add_row("em / f1 / cover", f"{scores.em:.2f} / {scores.f1:.2f} / {scores.cover:.2f}")
    if verdict.doubt is not None:
        table.add_row("doubt", verdict.doubt)
    ruling = verdict.judge
    if ruling is not None:
        cost = "" if ruling.cost_usd is None else f", ${ruling.cost_usd:.4f}"
        cached = ", cached" if ruling.cached else ""
        table.add_row("judge", f"{ruling.verdict} ({ruling.judge}{cost}{cached})")
        table.add_row("judge reason", ruling.reason)
    stdout().print(table)


# --------------------------------------------------------------------------- files
def _run_ray(run: FileRun, address: str | None) -> BatchSummary:
    """``--engine ray``: the run, then the summary read back from the Parquet it wrote."""
    from answerx.integrations.ray import run_ray_cli

    assert run.file is not None
    result = run_ray_cli(
        "verify", run.file, run.out, address=address, field=run.field, gold=run.gold,
        task=run.task, prefix=run.prefix, batch_size=run.batch_size, workers=run.workers,
    )  # fmt: skip
    if not run.quiet:
        print_ray_result(result)
    return result.summary


def _print_summary(summary: BatchSummary, unit: str) -> None:
    console = stderr()
    total = sum(summary.by_reason.values())
    accuracy = summary.accuracy()
    if accuracy is not None:
        console.print(
            f"{total} items: accuracy {accuracy.rate:.1%} ({accuracy.correct}/"
            f"{accuracy.judged}; 95 % Wilson interval {accuracy.low:.1%}–{accuracy.high:.1%})",
            markup=False,
        )
    else:
        console.print(f"{total} items: none could be judged (no readable gold)", markup=False)
    counts = ", ".join(f"{r} {summary.by_reason[r]}" for r in REASONS if summary.by_reason.get(r))
    console.print(f"by reason: {counts or 'none'}", markup=False)
    means = summary.short_answer_means()
    if means is not None:
        console.print(
            f"short answers ({means.items:,}): em {means.em:.1%} · f1 {means.f1:.1%} · "
            f"cover {means.cover:.1%}",
            markup=False,
        )
    if summary.llm is not None:
        print_llm_totals(summary.llm, console, summary.doubtful)
    elif summary.doubtful:
        console.print(
            f"the rules were unsure of {summary.doubtful:,} items (field 'doubt'); "
            "--judge PROVIDER/MODEL asks an LLM about those alone",
            markup=False,
        )
    if summary.malformed_count:
        console.print(f"{summary.malformed_count} malformed {unit}s skipped", markup=False)
    note_replaced_and_nulled(summary, console)


# --------------------------------------------------------------------------- self-check
def _self_check(dataset: str, task: str, as_json: bool) -> bool:
    """Print :func:`~answerx.experiments.goldcheck.check_golds`' result; True when every
    gold verifies."""
    from answerx.experiments.goldcheck import FORMS, check_golds

    result = check_golds(dataset, task)
    if as_json:
        print_json(result)
        return result.ok
    if result.failed:
        table = Table("id", "gold", "form", "reason", "answer read")
        for failure in result.failed:
            for form, why in failure.forms.items():
                table.add_row(failure.id, failure.gold, form, why.reason, str(why.answer))
        stdout().print(table)
    missing = f"; {result.no_gold} items have no gold answer" if result.no_gold else ""
    stderr().print(
        f"{result.checked} gold answers checked in {len(FORMS)} forms: "
        f"{result.checked - len(result.failed)} verify in all, {len(result.failed)} do not"
        + missing,
        markup=False,
    )
    return result.ok


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
        if os.path.lexists(path) and not force:
            fail(f"{path} exists; --force overwrites it", ExitCode.USAGE)
        write_output(path, reward_file(path.name, task))  # a link there is refused
        stderr().print(
            f"wrote {path}: use it with --remote_rm_url {path} --label_key <gold column>",
            markup=False,
        )
