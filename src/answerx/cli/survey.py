"""``answerx survey "INSTRUCTION" --index INDEX.db``: the SurveyCPM writer.

Thin: :func:`answerx.agent.survey.write_survey` does the work; this module parses
options and prints the Markdown (or the whole result as JSON).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from answerx.cli._common import ExitCode, command_boundary, fail, stderr
from answerx.cli.options import (
    Format,
    MaxCallsOption,
    ModelOption,
    OldJsonOption,
    ProviderOption,
    format_option,
    format_or_old_json,
    print_json,
)
from answerx.support.nofollow import write_output

__all__ = ["survey_command"]


def survey_command(
    instruction: Annotated[str, typer.Argument(help="What the survey is about ('-': stdin).")],
    index: Annotated[
        Path, typer.Option("--index", help="An index built with answerx index build.")
    ],
    provider: ProviderOption = "local",
    model: ModelOption = None,
    max_steps: Annotated[int, typer.Option("--max-steps", min=1, help="Steps at most.")] = 140,
    max_extend_steps: Annotated[
        int, typer.Option("--max-extend-steps", min=0, help="Plan extensions tried at most.")
    ] = 12,
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="Passages per search.")] = 10,
    hard_mode: Annotated[
        bool,
        typer.Option(
            "--hard/--lenient",
            help="SurveyCPM's strict action checks (off by default, as in SurveyCPM's "
            "configuration: hard_mode: false).",
        ),
    ] = False,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", min=1, show_default=False, help="Per call.")
    ] = None,
    max_calls: MaxCallsOption = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", show_default=False, help="Write the Markdown here."),
    ] = None,
    fmt: Annotated[
        Format,
        format_option(
            Format.markdown,
            Format.json,
            help="markdown: the survey; json: the whole result (survey, steps, trace).",
        ),
    ] = Format.markdown,
    as_json: OldJsonOption = False,
) -> None:
    """Write a survey on INSTRUCTION from the passages of INDEX (SurveyCPM's state machine)."""
    fmt = format_or_old_json(fmt, as_json)
    with command_boundary():
        from answerx.agent import Budget
        from answerx.agent.survey import write_survey
        from answerx.retrieval import open_index
        from answerx.structured import InstructorClientManager

        if not index.exists():
            fail(f"{index}: no such index (build one with: answerx index build)", ExitCode.IO)
        text = sys.stdin.read() if instruction == "-" else instruction
        manager = InstructorClientManager(provider, model)
        if manager.spec.autostart and manager.base_url is None:
            stderr().print(f"{provider}/{manager.model}: starting the local model …")
        options: dict[str, Any] = {} if max_tokens is None else {"max_tokens": max_tokens}
        result = write_survey(
            text, manager, open_index(str(index)), hard_mode=hard_mode, max_step=max_steps,
            max_extend_step=max_extend_steps, top_k=top_k,
            budget=Budget(max_calls=max_calls) if max_calls is not None else None, **options,
        )  # fmt: skip
        if out is not None:
            write_output(out, result.markdown + "\n")  # never through a link
        if fmt is Format.json:
            print_json(result)
        else:
            sys.stdout.write(result.markdown + "\n")
        stderr().print(
            f"{result.steps} steps, {result.calls} calls, termination: {result.termination}",
            markup=False,
        )
