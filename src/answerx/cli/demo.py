"""``answerx demo``: what answerx is for, in minutes, on the embedded defaults (``make demo``).

1. Deterministic extraction of the bundled example outputs: answer, rule (method),
   confidence, and whether the answer is well formed / the output was cut off.
2. Verification against the expected answers (:func:`answerx.verify`), plus a few
   pairs that show the other verdicts (a different answer, an unfinished output,
   the same value written another way).
3. A short reasoning run on the bundled local model (started on a free loopback
   port, stopped at the end): bundled questions asked with a single-call approach
   (chain_of_thought) and a multi-call one (reflection: draft, critique, revise);
   the table says which stage produced each answer (the rules reading the reply, or
   an LLM extraction call when they found nothing) and whether it is right.
4. Optionally (``--limit N``), structured extraction of N bundled outputs by the LLM
   beside the rules' answer.

``make demo`` then runs the demo experiment (``config/experiments/demo.yaml``),
whose report and plots land under ``runs/reports/<run id>/`` (the paths are printed).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from answerx.cli._common import command_boundary, stderr, stdout
from answerx.cli.options import ModelOption, ProviderOption
from answerx.errors import AnswerxError
from answerx.examples import Example, load_examples
from answerx.extraction import Extraction, extract

if TYPE_CHECKING:
    from answerx.grading import Verdict
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
# (output, gold, task, finish_reason): verdicts other than "the same answer, written the
# same way". The last output was cut off at the token limit (finish_reason "length").
_VERIFY_PAIRS: tuple[tuple[str, str, str, str | None], ...] = (
    ("So the answer is $\\frac{1}{2}$.", "0.5", "math", None),
    ("Adding them up gives 41. The answer is 41.", "42", "numeric", None),
    ("Let me add the three prices: 12.50 + 7.25 + ", "19.75", "numeric", "length"),
)
# Two word problems and two multiple-choice questions from the bundled samples.
_QUESTION_IDS = ("arith-01", "arith-02", "mc-01", "mc-02", "arith-03", "mc-03")
_STAGES = {
    "deterministic": "rules",
    "structured_llm": "LLM extraction",
    "structured": "structured reply",
    "code_execution": "program run",
    "final_attempt": "final attempt",
}


def demo_command(
    provider: ProviderOption = "local",
    model: ModelOption = None,
    questions: Annotated[
        int, typer.Option(min=0, help="How many bundled questions the reasoning part asks.")
    ] = 4,
    limit: Annotated[
        int,
        typer.Option(
            min=0, help="How many bundled outputs also go to the LLM for structured extraction."
        ),
    ] = 0,
) -> None:
    """Extract and verify the bundled outputs, then reason on bundled questions with an LLM."""
    with command_boundary():
        examples = load_examples()
        _extraction_table(examples)
        _verification_table(examples)
        if not (questions or limit):
            return
        from answerx.structured import InstructorClientManager  # heavy: only for the LLM parts

        manager = InstructorClientManager(provider, model)
        stderr().print(
            f"LLM: {provider}/{manager.model}"
            + (" (the bundled model starts on a free loopback port)" if provider == "local" else "")
        )
        if questions:
            _reasoning_demo(manager, questions)
        if limit:
            _structured_table([e for e in examples if e.id in _DEMO_IDS][:limit], manager)


# --------------------------------------------------------------------------- 1. extraction


def _flag(extraction: Extraction, name: str) -> str:
    """``valid`` / ``unfinished`` when the installed Extraction has them ("" otherwise)."""
    value = getattr(extraction, name, None)
    return "" if value is None else ("yes" if value else "no")


def _extraction_table(examples: list[Example]) -> None:
    has_valid = "valid" in Extraction.model_fields
    has_unfinished = "unfinished" in Extraction.model_fields
    table = Table(title="1. deterministic extraction of the bundled outputs (no LLM)")
    columns = ["example", "task", "answer", "method", "confidence"]
    columns += ["valid"] * has_valid + ["unfinished"] * has_unfinished
    for column in columns:
        wide = column == "answer"
        table.add_column(column, overflow="ellipsis" if wide else "fold", no_wrap=wide,
                         max_width=28 if wide else None)  # fmt: skip
    for example in examples:
        e = extract(
            example.raw_output, example.task, choices=example.choices, numbers=example.numbers
        )
        row = [example.id, e.task, e.answer or "(none)", e.method, f"{e.confidence:.2f}"]
        row += [_flag(e, "valid")] * has_valid + [_flag(e, "unfinished")] * has_unfinished
        table.add_row(*row)
    stdout().print(table)


# --------------------------------------------------------------------------- 2. verification


def _verdict_cell(verdict: Verdict) -> str:
    mark = {True: "right", False: "wrong", None: "-"}[verdict.correct]
    return f"{mark} ({verdict.reason})"


def _verification_table(examples: list[Example]) -> None:
    from answerx.grading import verify

    table = Table(title="2. verification against the expected answer (answerx.verify)")
    for column in ("output", "gold", "answer", "verdict", "decided by"):
        wide = column in ("output", "answer")
        table.add_column(column, overflow="ellipsis" if wide else "fold", no_wrap=wide,
                         max_width=32 if wide else None)  # fmt: skip
    right = total = 0
    for example in examples:
        if example.expected is None:
            continue
        verdict = verify(example.raw_output, example.expected, example.task,
                         choices=example.choices, numbers=example.numbers)  # fmt: skip
        total += 1
        right += verdict.correct is True
        table.add_row(example.id, example.expected, verdict.answer or "(none)",
                      _verdict_cell(verdict), verdict.how)  # fmt: skip
    for output, gold, task, finish_reason in _VERIFY_PAIRS:
        verdict = verify(output, gold, task, finish_reason=finish_reason)
        table.add_row(" ".join(output.split()), gold, verdict.answer or "(none)",
                      _verdict_cell(verdict), verdict.how)  # fmt: skip
    table.caption = f"bundled outputs: {right} of {total} right"
    stdout().print(table)


# --------------------------------------------------------------------------- 3. reasoning


def _reasoning_demo(manager: InstructorClientManager, count: int) -> None:
    """Ask bundled questions with a single-call and a multi-call approach; print a table."""
    from answerx.experiments.datasets import load_dataset
    from answerx.grading import grade
    from answerx.reasoning import get_approach

    pool = {i.id: i for i in load_dataset("arithmetic") + load_dataset("multiple_choice")}
    items = [pool[i] for i in _QUESTION_IDS if i in pool][:count]
    # two_stage: free text read by the rules, an LLM extraction only when they find
    # nothing. Short replies keep a 135M model on two CPU cores to a few seconds a call.
    settings: dict[str, Any] = {
        "strategy": "two_stage", "temperature": 0.0, "max_tokens": 160, "min_confidence": 0.0,
    }  # fmt: skip
    variants: dict[str, tuple[str, dict[str, Any]]] = {
        "chain_of_thought": ("chain_of_thought", {}),
        "reflection (3 calls)": ("reflection", {"multi_call": True, "rounds": 1}),
    }
    stderr().print(f"3. reasoning with {manager.provider}/{manager.model}: {len(items)} "
                   f"questions x {len(variants)} approaches …")  # fmt: skip
    table = Table(title=f"3. reasoning on bundled questions ({manager.provider}/{manager.model})")
    for column in ("question", "approach", "answer", "gold", "right", "answer from",
                   "calls", "tokens in/out", "seconds"):  # fmt: skip
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
                table.add_row(item.id, label, "(error)", item.gold or "", "", str(exc),
                              "", "", "")  # fmt: skip
                continue
            right = ""
            if r.extracted_answer is not None and item.gold is not None:
                verdict = grade(r.extracted_answer, item.gold, item.task, choices=item.choices)
                right = "yes" if verdict.correct else "no"
            stage = r.metadata.stage
            source = _STAGES.get(stage or "", stage or "-")
            if stage == "deterministic":
                source += f" ({r.extraction.method})"
            table.add_row(
                item.id,
                label,
                " ".join((r.extracted_answer or "(none)").split()),
                item.gold or "",
                right,
                source,
                str(r.metadata.calls),
                f"{r.usage.input_tokens}/{r.usage.output_tokens}",
                f"{r.generation_time:.1f}",
            )
    table.caption = (
        "answer from: which stage produced the answer — the rules reading the model's reply "
        "(with the rule), or an LLM extraction call when they found nothing"
    )
    stdout().print(table)


# --------------------------------------------------------------------------- 4. structured


def _structured_table(chosen: list[Example], manager: InstructorClientManager) -> None:
    table = Table(title=f"4. deterministic vs structured extraction ({manager.provider})")
    for column in ("example", "task", "deterministic", "method", "structured", "mode",
                   "repairs", "tokens in/out", "seconds"):  # fmt: skip
        # A small model's answer can be a runaway string: keep it to one short cell.
        wide = column in ("structured", "deterministic")
        table.add_column(column, overflow="ellipsis" if wide else "fold", no_wrap=wide,
                         max_width=24 if wide else None)  # fmt: skip
    for example in chosen:
        table.add_row(*_structured_row(example, manager))
    stdout().print(table)


def _structured_row(example: Example, manager: InstructorClientManager) -> list[str]:
    rules = extract(
        example.raw_output, example.task, choices=example.choices, numbers=example.numbers
    )
    task = None if rules.task == "auto" else rules.task
    started = time.perf_counter()
    try:
        # Temperature 0: extraction is copying, not creating.
        structured, info = manager.extract_structured(
            example.raw_output, "none", task=task, choices=example.choices, temperature=0
        )
    except AnswerxError as exc:
        return [example.id, rules.task, rules.answer or "(none)", rules.method, "(error)",
                str(exc), "", "", f"{time.perf_counter() - started:.1f}"]  # fmt: skip
    return [
        example.id,
        rules.task,
        rules.answer or "(none)",
        rules.method,
        " ".join(structured.answer_value.split()),  # one line, whatever the model wrote
        info.mode or "-",
        str(len(info.repairs)),
        f"{info.usage.input_tokens}/{info.usage.output_tokens}",
        f"{time.perf_counter() - started:.1f}",
    ]
