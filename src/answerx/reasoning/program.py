"""``program_of_thought``: the model writes a Python program that computes the answer.

By default the model's stated answer is used (its program is kept, not run).
With ``execute_code=True`` the program runs in :mod:`answerx.reasoning.sandbox`
(separate process in its own PID, network, mount and user namespaces, as an
unprivileged user, seeing only the interpreter and a private work directory; time,
memory and process limits; empty environment), and the last
non-empty line it prints, normalised for the task, is the answer:
``metadata.stage == "code_execution"``, ``extraction.method == "output_line"``
(``raw_output`` is the program's stdout, ``span`` the line).

When the run does not give a usable answer, the model's stated answer stands
(its stage stays ``structured``/``deterministic``/``structured_llm``) and the
metadata says why. Where the system cannot isolate the program, building the
approach with ``execute_code=True`` raises :class:`~answerx.errors.ConfigError`
naming what to install, unless the setting ``sandbox="unsafe-local"`` asks for the
program to run without isolation. Metadata after an execution attempt:

- ``sandbox_termination``: the sandbox's ``ok``, ``timeout``, ``memory_limit`` or
  ``error`` (absent when there was no program to run);
- ``sandbox_message``: why the output was not used ("" when it was);
- ``stated_answer``: the answer the model itself stated, for comparison.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from answerx.extraction import Extraction
from answerx.extraction.rules import RULES
from answerx.reasoning.calls import CodeRun
from answerx.reasoning.engine import Answer, Run, Steps
from answerx.reasoning.parsing import last_code_block, last_output_line
from answerx.reasoning.sandbox import SandboxResult, check_sandbox
from answerx.reasoning.settings import ProgramSettings
from answerx.reasoning.single import SinglePrompt
from answerx.structured.models import ProgramOfThoughtExtraction

__all__ = ["ProgramOfThought"]

#: An executed program's printed line is read like an ``Output:`` line.
_OUTPUT_LINE_CONFIDENCE: Final = next(
    rule.confidence for rule in RULES if rule.name == "output_line"
)


class ProgramOfThought(SinglePrompt[ProgramSettings]):
    """``program_of_thought``: the model writes a Python program that computes the answer.

    Stages: one answer step on the ``program_of_thought`` prompt, read per the strategy
    as in ``chain_of_thought``: by default the answer the model states is the answer and
    its program is kept, not run. With ``execute_code=True`` the program (the structured
    ``code`` field or the last fenced block) then runs in :mod:`answerx.reasoning.sandbox`
    and the last line it prints is the answer (``metadata.stage == "code_execution"``);
    when the run gives no usable answer, the stated one stands and
    ``sandbox_termination``/``sandbox_message``/``stated_answer`` say why. Building it
    with ``execute_code=True`` where the sandbox cannot isolate raises
    :class:`~answerx.errors.ConfigError` before any call is paid for (unless
    ``sandbox="unsafe-local"`` asks to run the program without isolation).

    Budget: one call (two with a ``two_stage`` extraction call); the program run is not
    an LLM call and does not count: ``code_time_limit_s`` and ``code_memory_limit_mb``
    bound it. A call the budget does not allow is replaced by one final attempt; when
    that finds nothing, :class:`~answerx.agent.StepLimitReached` (or a response saying
    why, with ``result_mode=True``).
    """

    name: ClassVar[str] = "program_of_thought"
    description: ClassVar[str] = (
        "Write a Python program for the answer; execute_code=True runs it in the sandbox."
    )
    settings_model = ProgramSettings

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.settings.execute_code:  # refuse before any LLM call is paid for
            check_sandbox(self.settings.sandbox)

    def steps(self, run: Run) -> Steps[Answer]:
        answer = yield from super().steps(run)
        if not self.settings.execute_code:
            return answer
        code = program_of(answer, prefer_field=run.strategy == "structured")
        if code is None:
            run.extras["sandbox_message"] = "the reply holds no program to run"
            return answer
        request = CodeRun(
            "program output", code,
            self.settings.code_time_limit_s, self.settings.code_memory_limit_mb,
            self.settings.sandbox,
        )  # fmt: skip
        [result] = yield (request,)
        run.extras["sandbox_termination"] = result.termination
        run.extras["stated_answer"] = answer.extraction.answer
        printed, why_not = _printed_answer(run, result)
        run.extras["sandbox_message"] = why_not
        if printed is None:
            return answer
        return Answer(printed, "code_execution", answer.reply, answer.structured)


def program_of(answer: Answer, *, prefer_field: bool) -> str | None:
    """The program of a reply: the structured ``code`` field or the last fenced block,
    in the order the strategy makes more reliable."""
    field = ""
    if isinstance(answer.structured, ProgramOfThoughtExtraction):
        field = answer.structured.code
    fenced = last_code_block(answer.reply) or ""
    for code in (field, fenced) if prefer_field else (fenced, field):
        if code.strip():
            return code
    return None


def _printed_answer(run: Run, result: SandboxResult) -> tuple[Extraction | None, str]:
    """The answer the program printed, or None and the reason it cannot be used."""
    if not result.ok:
        return None, result.message or f"the program failed ({result.termination})"
    line = last_output_line(result.stdout)
    if line is None:
        return None, "the program printed nothing"
    text, start, end = line
    value = run.spec.normalise(text)
    if value is None:
        return None, f"the program printed {text[:80]!r}, which is not {run.spec.hint}"
    extraction = Extraction(
        answer=value, method="output_line", confidence=_OUTPUT_LINE_CONFIDENCE,
        task=run.spec.task, candidate=text, span=(start, end),
        reasoning=result.stdout[:start] + result.stdout[end:], raw_output=result.stdout,
    )  # fmt: skip
    return extraction, ""
