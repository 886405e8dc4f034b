"""``answerx ask`` and ``answerx approaches``: one question through one reasoning approach.

Thin on purpose: :func:`answerx.reasoning.get_approach` and ``execute`` do the
work; this module parses options and prints. The reasoning package (Instructor,
the provider SDKs) is imported only when a command runs, so the CLI starts fast.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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

if TYPE_CHECKING:
    from answerx.reasoning import StandardResponse

__all__ = ["approaches_command", "ask_command"]


def ask_command(
    question: Annotated[str, typer.Argument(help="The question ('-' reads it from stdin).")],
    approach: Annotated[
        str, typer.Option("--approach", "-a", help="Reasoning approach (see: answerx approaches).")
    ] = "chain_of_thought",
    provider: Annotated[
        str, typer.Option("--provider", "-p", help="Provider (default: the bundled local model).")
    ] = "local",
    model: Annotated[
        str | None,
        typer.Option(
            "--model", "-m", help="Model name (default: the provider's).", show_default=False
        ),
    ] = None,
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy",
            help="structured: one structured call per answer; two_stage: free text, rules, "
            "then an LLM extraction only if the rules are unsure.",
        ),
    ] = "structured",
    task: Annotated[
        str,
        typer.Option(
            "--task", "-t", help="auto, math, numeric, multiple_choice, boolean, game24 or text."
        ),
    ] = "auto",
    choices: Annotated[
        list[str] | None,
        typer.Option(
            "--choices",
            "-c",
            show_default=False,
            help="Option texts for multiple choice, in order (A, B, …): repeat it, or a JSON list.",
        ),
    ] = None,
    numbers: Annotated[
        str | None,
        typer.Option(
            "--numbers", "-n", show_default=False, help="Game of 24 numbers: '4,9,10,13'."
        ),
    ] = None,
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
        typer.Option(
            "--set",
            show_default=False,
            help="An approach setting KEY=VALUE (VALUE read as JSON if it parses), e.g. "
            "--set multi_call=true --set rounds=2. Repeatable.",
        ),
    ] = None,
    max_calls: Annotated[
        int | None,
        typer.Option("--max-calls", min=1, show_default=False, help="Budget: LLM calls at most."),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option("--time-limit", min=0.001, show_default=False, help="Budget: seconds."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole StandardResponse as JSON.")
    ] = False,
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
            budget=budget, retriever=retriever, **_parse_settings(setting),
        )  # fmt: skip
        if manager.spec.autostart and manager.base_url is None:
            stderr().print(f"{provider}/{manager.model}: starting the local model …")
        response = reasoning.execute(
            text, choices=parse_choices(choices), numbers=parse_numbers(numbers)
        )
        if as_json:
            sys.stdout.write(response.model_dump_json(indent=2) + "\n")
        else:
            _print_response(response)


def approaches_command() -> None:
    """List the reasoning approaches, one line each."""
    with command_boundary():
        from answerx.reasoning import APPROACH_DESCRIPTIONS  # heavy: only when asked

        width = max(map(len, APPROACH_DESCRIPTIONS))
        out = stdout()
        for name, description in APPROACH_DESCRIPTIONS.items():
            out.print(f"{name:<{width}}  {description}", markup=False)


def _parse_settings(items: list[str] | None) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            fail(f"--set: expected KEY=VALUE, got {item!r}", ExitCode.USAGE)
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw  # a plain string
        settings[key.strip()] = value
    return settings


def _print_response(response: StandardResponse) -> None:
    meta, usage = response.metadata, response.usage
    out = stdout()
    title = f"{meta.reasoning_type} · {meta.strategy} · {response.provider}/{response.model}"
    out.print(Panel(escape(response.text.strip() or "(no text)"), title=escape(title)))
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    answer = response.extracted_answer
    table.add_row("answer", escape(answer) if answer is not None else "[red](none)[/]")
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
