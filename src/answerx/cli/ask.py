"""``answerx ask`` and ``answerx approaches list``: one question through one reasoning approach.

Thin on purpose: :func:`answerx.reasoning.get_approach` and ``execute`` do the
work; this module parses options and prints. The reasoning package (Instructor,
the provider SDKs) is imported only when a command runs, so the CLI starts fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from answerx.cli._common import (
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
    Format,
    MaxCallsOption,
    ModelOption,
    NumbersOption,
    OldJsonOption,
    ProviderOption,
    RowsFormatOption,
    approach_names,
    format_option,
    format_or_old_json,
    name_option,
    note_deprecated,
    parse_set,
    print_json,
    print_rows,
    set_option,
    strategy_names,
    task_option,
)
from answerx.redactor import redact_keys_deep, sanitise_provider_text

if TYPE_CHECKING:
    from answerx.reasoning import StandardResponse

__all__ = ["approaches_app", "approaches_list", "ask_command"]


def ask_command(
    question: Annotated[str, typer.Argument(help="The question ('-' reads it from stdin).")],
    approach: Annotated[
        str,
        name_option(
            "--approach",
            "-a",
            kind="approach",
            names=approach_names,
            metavar="APPROACH",
            help="Reasoning approach (answerx approaches list).",
        ),
    ] = "chain_of_thought",
    provider: ProviderOption = "local",
    model: ModelOption = None,
    strategy: Annotated[
        str,
        name_option(
            "--strategy",
            kind="strategy",
            names=strategy_names,
            metavar="STRATEGY",
            help="structured: one structured call per answer; two_stage: free text, rules, "
            "then an LLM extraction only if the rules are unsure.",
        ),
    ] = "structured",
    task: Annotated[str, task_option()] = "auto",
    choices: ChoicesOption = None,
    numbers: NumbersOption = None,
    prompt_dir: Annotated[
        Path | None,
        typer.Option(
            "--prompt-dir",
            show_default=False,
            help="A directory of <name>.txt templates overriding the bundled prompts.",
        ),
    ] = None,
    setting: Annotated[
        list[str] | None,
        set_option(
            help="An approach setting KEY=VALUE, VALUE read as YAML, e.g. "
            "--set multi_call=true --set rounds=2. Repeatable."
        ),
    ] = None,
    max_calls: MaxCallsOption = None,
    time_limit: Annotated[
        float | None,
        typer.Option("--time-limit", min=0.001, show_default=False, help="Budget: seconds."),
    ] = None,
    fmt: Annotated[
        Format,
        format_option(
            Format.table,
            Format.json,
            help="table: the reasoning, the answer and its cost; json: the whole StandardResponse.",
        ),
    ] = Format.table,
    as_json: OldJsonOption = False,
    index: Annotated[
        Path | None,
        typer.Option(
            "--index",
            show_default=False,
            help="The retriever of a search approach (search_r1, search_o1, r1_searcher, "
            "ircot, iter_retgen): an index built with answerx index build.",
        ),
    ] = None,
) -> None:
    """Answer QUESTION with a reasoning approach; show the reasoning, the answer and its cost."""
    fmt = format_or_old_json(fmt, as_json)
    with command_boundary():
        from answerx.agent import Budget  # heavy imports: only when the command runs
        from answerx.reasoning import get_approach
        from answerx.structured import InstructorClientManager

        text = sys.stdin.read() if question == "-" else question
        budget = None
        if max_calls is not None or time_limit is not None:
            budget = Budget(max_calls=max_calls, time_limit_s=time_limit)
        manager = InstructorClientManager(provider, model)
        retriever = None
        if index is not None:
            from answerx.retrieval import open_index

            if not index.exists():
                fail(f"{index}: no such index (build one with: answerx index build)", ExitCode.IO)
            retriever = open_index(str(index))
        reasoning = get_approach(
            approach, manager, strategy=strategy, task=task, prompt_dir=prompt_dir,
            budget=budget, retriever=retriever, **parse_set(setting),
        )  # fmt: skip
        if manager.spec.autostart and manager.base_url is None:
            stderr().print(f"{provider}/{manager.model}: starting the local model …")
        response = reasoning.execute(
            text, choices=parse_choices(choices), numbers=parse_numbers(numbers)
        )
        if fmt is Format.json:
            # The model's words are provider text: a key it echoes (whole, in pieces,
            # encoded) must not reach the terminal, a pipe or a log file.
            print_json(redact_keys_deep(response.model_dump(mode="json")))
        else:
            _print_response(response)


approaches_app = typer.Typer(
    help="The reasoning approaches answerx ask and experiments run.",
    invoke_without_command=True,
)


@approaches_app.callback()
def _approaches(ctx: typer.Context) -> None:
    # `answerx approaches` alone was the listing before the noun groups: kept for a release.
    if ctx.invoked_subcommand is None:
        note_deprecated("answerx approaches", "answerx approaches list")
        approaches_list(Format.table)


@approaches_app.command("list")
def approaches_list(
    fmt: RowsFormatOption = Format.table,
) -> None:
    """The reasoning approaches: name, whether it searches (needs --index), what it does."""
    with command_boundary():
        from answerx.reasoning import APPROACH_DESCRIPTIONS, SEARCH_APPROACHES  # heavy

        rows = [
            {"approach": name, "searches": name in SEARCH_APPROACHES, "description": description}
            for name, description in APPROACH_DESCRIPTIONS.items()
        ]
        print_rows(rows, ("approach", "searches", "description"), fmt)


def _print_response(response: StandardResponse) -> None:
    meta, usage = response.metadata, response.usage
    out = stdout()
    title = f"{meta.reasoning_type} · {meta.strategy} · {response.provider}/{response.model}"
    text = sanitise_provider_text(response.text.strip())
    out.print(Panel(escape(text or "(no text)"), title=escape(title)))
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    answer = response.extracted_answer
    table.add_row(
        "answer",
        escape(sanitise_provider_text(answer)) if answer is not None else "[red](none)[/]",
    )
    how = f"{response.extraction.method} (stage {meta.stage}, confidence {meta.confidence:.2f})"
    table.add_row("extracted by", escape(how))
    table.add_row("mode", escape(_mode_text(meta.instructor_mode, meta.modes_tried)))
    table.add_row(
        "calls", f"{meta.calls} (HTTP requests {meta.attempts}, fallbacks {meta.fallbacks})"
    )
    table.add_row("tokens", f"{usage.input_tokens} in, {usage.output_tokens} out")
    table.add_row("time", f"{response.generation_time:.2f} s")
    table.add_row("termination", escape(meta.termination))
    out.print(table)


def _mode_text(mode: str | None, tried: tuple[str, ...]) -> str:
    """The Instructor mode of the last structured call, and the modes it went through."""
    if mode is None and not tried:
        return "text only (no structured call)"
    if mode is None:  # the structured call failed in every mode (two-stage keeps the rules')
        return f"none: every mode failed ({' → '.join(tried)})"
    return f"{mode} (tried {' → '.join(tried)})" if len(tried) > 1 else mode
