"""``answerx verify``: is the answer in an output right? One text, a file, or a dataset's golds.

Thin on purpose: the verdicts are :func:`answerx.verify` / :func:`answerx.verify_batch`'s;
this module reads records, prints, and sums up. ``answerx reward-func write`` writes
the OpenRLHF reward-function file (:mod:`answerx.integrations.openrlhf`).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Annotated, Any

import typer
from rich.table import Table

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
    ChoicesOption,
    FieldOption,
    FileOption,
    Format,
    NumbersOption,
    OldJsonOption,
    OutFileOption,
    PrefixOption,
    QuietOption,
    WorkersOption,
    format_option,
    format_or_old_json,
    task_option,
)
from answerx.errors import InputError
from answerx.extraction import TASKS
from answerx.extraction.files import json_line_writer
from answerx.grading import REASONS, Verdict, verify, verify_batch

__all__ = ["HELP", "reward_func_app", "verify_command"]

_CHUNK = 512  # records verified per verify_batch call: bounded memory on any file size
MAX_WARNINGS = 100

HELP = f"""Check the final answer of LLM output against a gold answer.

A single TEXT (or '-' for stdin) with --gold prints the verdict:
correct, reason (equivalent, different, no_answer, unfinished,
malformed_answer, unreadable_gold, timeout), how (the predicate that
decided) and the answer: a table on a terminal, JSON otherwise
(--format table|json chooses).

--file reads JSONL or Parquet records (--field: the raw output,
--gold-field: the gold answer; a record's own 'task', 'choices',
'numbers' and 'finish_reason' are used) and writes each back with
correct, reason, how and answer added: JSONL to stdout or --out,
Parquet when --out ends in .parquet. A closing summary on stderr
gives the accuracy with its 95 % Wilson interval and the count of
each reason. --workers N verifies in N processes.

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
        summary = _run_file(file, out, field_name, gold_field, task, workers, prefix)
        if not quiet:
            _print_summary(summary)
    if summary.malformed:
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
@dataclass
class _Summary:
    reasons: Counter[str] = field(default_factory=Counter)
    correct: int = 0
    judged: int = 0
    malformed: int = 0

    def add(self, verdict: Verdict) -> None:
        self.reasons[verdict.reason] += 1
        if verdict.correct is not None:
            self.judged += 1
            self.correct += verdict.correct


def _records(path: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line or row number, record), or (number, error message) for a malformed line."""
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        n = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=_CHUNK):
            for record in batch.to_pylist():
                n += 1
                yield n, record
        return
    stream: IO[str] = sys.stdin if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
    with stream:
        for n, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                yield n, f"not JSON: {exc.msg}"
                continue
            yield n, record if isinstance(record, dict) else "not a JSON object"


def _chunks(
    records: Iterator[tuple[int, dict[str, Any] | str]], summary: _Summary
) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for n, record in records:
        if isinstance(record, str):
            summary.malformed += 1
            if summary.malformed <= MAX_WARNINGS:
                stderr().print(f"line {n}: {record}; skipped", markup=False)
            continue
        chunk.append(record)
        if len(chunk) >= _CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _verdicts(
    chunk: Sequence[dict[str, Any]], field_name: str, gold_field: str, task: str,
    workers: int | None,
) -> list[Verdict]:  # fmt: skip
    tasks = [str(r["task"]) if r.get("task") in TASKS else task for r in chunk]
    return verify_batch(
        [r.get(field_name) for r in chunk],
        [r.get(gold_field) for r in chunk],
        task=tasks,
        choices=[_list_or_none(r.get("choices")) for r in chunk],
        numbers=[_list_or_none(r.get("numbers")) for r in chunk],
        finish_reasons=[_str_or_none(r.get("finish_reason")) for r in chunk],
        workers=workers,
    )


def _list_or_none(value: Any) -> list[Any] | None:
    return list(value) if isinstance(value, list | tuple) and value else None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _run_file(
    path: str, out: str | None, field_name: str, gold_field: str, task: str,
    workers: int | None, prefix: str,
) -> _Summary:  # fmt: skip
    if path != "-" and not Path(path).is_file():
        raise FileNotFoundError(2, "no such file", path)
    summary = _Summary()
    names = {k: f"{prefix}{k}" for k in ("correct", "reason", "how", "answer")}
    to_parquet = out is not None and out.endswith(".parquet")
    rows: list[dict[str, Any]] = []
    to_stdout = out is None or out == "-" or to_parquet
    sink: IO[str] = sys.stdout if to_stdout else open(str(out), "w", encoding="utf-8")  # noqa: SIM115
    try:
        write = json_line_writer(sink)
        for chunk in _chunks(_records(path), summary):
            for record, verdict in zip(
                chunk, _verdicts(chunk, field_name, gold_field, task, workers), strict=True
            ):
                summary.add(verdict)
                record = {**record, names["correct"]: verdict.correct,
                          names["reason"]: verdict.reason, names["how"]: verdict.how,
                          names["answer"]: verdict.answer}  # fmt: skip
                if to_parquet:
                    rows.append(record)
                else:
                    write(record)
    finally:
        if sink is not sys.stdout:
            sink.close()
    if to_parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        assert out is not None
        pq.write_table(pa.Table.from_pylist(rows), out)
    return summary


def _print_summary(summary: _Summary) -> None:
    # Imported here: answerx.experiments loads the provider SDKs, which `verify` never needs.
    from answerx.experiments.stats import wilson_interval

    console = stderr()
    total = sum(summary.reasons.values())
    if summary.judged:
        low, high = wilson_interval(summary.correct, summary.judged)
        console.print(
            f"{total} items: accuracy {summary.correct / summary.judged:.1%} "
            f"({summary.correct}/{summary.judged}; 95 % Wilson interval {low:.1%}–{high:.1%})",
            markup=False,
        )
    else:
        console.print(f"{total} items: none could be judged (no readable gold)", markup=False)
    counts = ", ".join(f"{r} {summary.reasons[r]}" for r in REASONS if summary.reasons[r])
    console.print(f"by reason: {counts or 'none'}", markup=False)
    if summary.malformed:
        console.print(f"{summary.malformed} malformed lines skipped", markup=False)


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
