"""``answerx demo``: the main job on the embedded defaults, for ``make demo``.

1. Deterministic extraction of the bundled example outputs, then structured
   extraction of a handful of them by the embedded local model (started on a
   free loopback port and stopped at the end), side by side with mode, tokens
   and time.
2. A real reasoning run on the same model: five bundled questions, each asked
   with a single-call approach (chain_of_thought) and a multi-call one
   (reflection: draft, critique, revise), with answer, method, calls, tokens
   and time.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from answerx.cli._common import command_boundary, stderr, stdout
from answerx.errors import AnswerxError
from answerx.examples import Example, load_examples
from answerx.extraction import extract

if TYPE_CHECKING:
    from answerx.structured import InstructorClientManager

__all__ = ["demo_command"]

# Short outputs of different tasks: a small model reads them in a few seconds each.
_DEMO_IDS = (
    "the-answer-is-then-check",
    "minerva-final-answer",
    "multiple-choice-letter",
    "boolean-yes-no",
    "json-answer-escaped",
)


def demo_command(
    provider: Annotated[
        str, typer.Option(help="Provider for the structured step (default: the bundled model).")
    ] = "local",
    model: Annotated[str | None, typer.Option(help="Model name (default: the provider's).")] = None,
    limit: Annotated[int, typer.Option(min=0, help="How many outputs go to the model.")] = 5,
    questions: Annotated[
        int, typer.Option(min=0, help="How many bundled questions the reasoning part asks.")
    ] = 5,
) -> None:
    """Extract the bundled examples deterministically, then with an LLM, side by side."""
    from answerx.structured import InstructorClientManager  # heavy: only for this command

    with command_boundary():
        examples = load_examples()
        chosen = [e for e in examples if e.id in _DEMO_IDS][:limit]
        out = stdout()
        manager = InstructorClientManager(provider, model)
        if chosen:
            stderr().print(f"structured extraction with {provider}/{manager.model} "
                           f"(the local model starts on a free loopback port) …")  # fmt: skip
        table = Table(title=f"deterministic vs structured extraction ({provider})")
        for column in ("example", "task", "deterministic", "method", "structured", "mode",
                       "tokens in/out", "seconds"):  # fmt: skip
            # A small model's answer can be a runaway string: keep it to one short cell.
            wide = column in ("structured", "deterministic")
            table.add_column(column, overflow="ellipsis" if wide else "fold", no_wrap=wide,
                             max_width=24 if wide else None)  # fmt: skip
        for example in chosen:
            table.add_row(*_row(example, manager))
        out.print(table)
        if questions:
            _reasoning_demo(manager, questions)


def _row(example: Example, manager: InstructorClientManager) -> list[str]:
    rules = extract(
        example.raw_output, example.task, choices=example.choices, numbers=example.numbers
    )
    task = None if rules.task == "auto" else rules.task
    started = time.perf_counter()
    # Temperature 0: extraction is copying, not creating.
    structured, info = manager.extract_structured(
        example.raw_output, "none", task=task, choices=example.choices, temperature=0
    )
    return [
        example.id,
        rules.task,
        rules.answer or "(none)",
        rules.method,
        " ".join(structured.answer_value.split()),  # one line, whatever the model wrote
        info.mode or "-",
        f"{info.usage.input_tokens}/{info.usage.output_tokens}",
        f"{time.perf_counter() - started:.1f}",
    ]


# Three word problems and two multiple-choice questions from the bundled samples.
_QUESTION_IDS = ("arith-01", "arith-02", "arith-03", "mc-01", "mc-02")


def _reasoning_demo(manager: InstructorClientManager, count: int) -> None:
    """Ask bundled questions with a single-call and a multi-call approach; print a table."""
    from answerx.experiments.datasets import load_dataset
    from answerx.reasoning import get_approach

    items = [i for i in load_dataset("arithmetic") + load_dataset("multiple_choice")
             if i.id in _QUESTION_IDS][:count]  # fmt: skip
    # two_stage: free text read by the rules, an LLM extraction only when they are unsure.
    # Short replies keep a 135M model on two CPU cores to a few seconds per call.
    settings: dict[str, Any] = {"strategy": "two_stage", "temperature": 0.0, "max_tokens": 160}
    variants: dict[str, tuple[str, dict[str, Any]]] = {
        "chain_of_thought": ("chain_of_thought", {}),
        "reflection (multi-call)": ("reflection", {"multi_call": True, "rounds": 1}),
    }
    stderr().print(f"reasoning with {manager.provider}/{manager.model}: {len(items)} questions "
                   f"x {len(variants)} approaches …")  # fmt: skip
    table = Table(title=f"reasoning on bundled questions ({manager.provider})")
    for column in ("question", "approach", "answer", "gold", "method / stage", "calls",
                   "tokens in/out", "seconds"):  # fmt: skip
        wide = column == "answer"
        table.add_column(column, overflow="ellipsis" if wide else "fold", no_wrap=wide,
                         max_width=20 if wide else None)  # fmt: skip
    for item in items:
        for label, (name, extra) in variants.items():
            # The item's task binds the answer's shape (a number, a letter), so a wrong
            # shape from the small model is re-asked rather than shown.
            approach = get_approach(name, manager, task=item.task, **settings, **extra)
            try:
                r = approach.execute(item.question, choices=item.choices, numbers=item.numbers)
            except AnswerxError as exc:  # one failed question must not hide the others
                table.add_row(item.id, label, "(error)", item.gold or "", str(exc), "", "", "")
                continue
            table.add_row(
                item.id,
                label,
                " ".join((r.extracted_answer or "(none)").split()),
                item.gold or "",
                f"{r.extraction.method} / {r.metadata.stage or '-'}",
                str(r.metadata.calls),
                f"{r.usage.input_tokens}/{r.usage.output_tokens}",
                f"{r.generation_time:.1f}",
            )
    stdout().print(table)
