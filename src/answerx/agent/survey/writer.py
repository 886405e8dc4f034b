"""The driver: :func:`write_survey` runs the machine against a manager and a retriever,
one call per step, within a budget, and returns a :class:`SurveyResult`.

It is a loop of its own rather than steps on :mod:`answerx.reasoning.engine`: the
engine sits one layer above ``agent`` (it runs the agent's final attempt), and what it
drives ends in an extracted answer or a final attempt, while a survey ends in a
document, as far as it got (docs/DESIGN.md, "agent").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel, Field

from answerx.agent.budget import Budget, BudgetTracker
from answerx.agent.final import TextManager
from answerx.agent.survey.machine import MAX_EXTEND_STEP, MAX_STEP, State, SurveyRun, apply
from answerx.agent.survey.markdown import format_survey
from answerx.agent.survey.outline import extend_hint, node_at, outline_text
from answerx.agent.termination import Termination
from answerx.errors import ConfigError, InputError, ProviderError
from answerx.retrieval.base import Retriever
from answerx.structured.callinfo import Usage
from answerx.support.resources import prompt_template

__all__ = ["SurveyResult", "write_survey"]


class SurveyResult(BaseModel):
    """What :func:`write_survey` returns."""

    markdown: str
    survey: dict[str, Any] | None = Field(description="The survey JSON (None if never planned).")
    citations: dict[str, int] = Field(
        default_factory=dict,
        description="Citation key → the number the Markdown cites it by ([n]), for every "
        "passage retrieved (format_survey(survey, citations=…) renders the same).",
    )
    steps: int
    termination: str
    trace: list[dict[str, Any]] = Field(description="Per step: state, action name, ok, problem.")
    usage: Usage
    calls: int


_PROMPTS: Final[Mapping[State, str]] = {
    "search": "survey_search",
    "analyst-init_plan": "survey_init_plan",
    "write": "survey_write",
    "analyst-extend_plan": "survey_extend_plan",
}


def _prompt(run: SurveyRun, prompt_dir: str | None) -> str:
    state = run.state
    cursor = run.cursor
    fields = {"instruction": run.instruction, "survey": outline_text(run.survey),
              "passages": run.passages or "(none)", "cursor": cursor or "none"}  # fmt: skip
    if state == "write" and run.survey is not None and cursor not in (None, "outline"):
        node = node_at(run.survey, cursor)
        fields.update(title=node.title, plan=node.plan or "(no plan)")
    if state == "analyst-extend_plan":
        fields["cursor"] = extend_hint(run.survey)
    template = prompt_template(_PROMPTS[state], prompt_dir)
    try:
        return template.substitute(fields).rstrip()
    except (KeyError, ValueError) as exc:
        raise ConfigError(
            f"prompt template {_PROMPTS[state]!r} cannot be filled in ({exc!s}); it may use "
            + ", ".join(f"${k}" for k in sorted(fields))
            + " (write $$ for a dollar sign)"
        ) from None


def write_survey(
    instruction: str,
    manager: TextManager,
    retriever: Retriever,
    *,
    hard_mode: bool = False,
    max_step: int = MAX_STEP,
    max_extend_step: int = MAX_EXTEND_STEP,
    top_k: int = 10,
    budget: Budget | None = None,
    prompt_dir: str | None = None,
    **options: Any,
) -> SurveyResult:
    """Write a survey for ``instruction`` from what ``retriever`` finds.

    One ``manager.complete_text`` call per step (``options`` go to the provider:
    ``max_tokens``, ``temperature``); the ``budget`` bounds calls, tokens and time.
    Provider errors propagate (as in :func:`answerx.agent.run_agent_loop`).

    >>> result = write_survey("A survey of Ostrand's companies", manager, index)  # doctest: +SKIP
    >>> print(result.markdown)                                                     # doctest: +SKIP
    """
    if not isinstance(instruction, str) or not instruction.strip():
        raise InputError("the instruction must be a non-empty string")
    if max_step < 1 or max_extend_step < 0 or top_k < 1:
        raise ConfigError("max_step and top_k must be at least 1, max_extend_step at least 0")
    run = SurveyRun(instruction=instruction.strip())
    tracker = BudgetTracker(budget if budget is not None else Budget())
    trace: list[dict[str, Any]] = []
    termination = Termination.ANSWER
    while run.state != "done":
        exhausted = tracker.exhausted()
        if exhausted is not None:
            termination = exhausted
            break
        prompt = _prompt(run, prompt_dir)
        try:
            reply, info = manager.complete_text([{"role": "user", "content": prompt}], **options)
        except ProviderError as exc:
            if exc.call_info is not None:
                tracker.record(exc.call_info)
            raise
        tracker.record(info)
        trace.append(apply(run, reply, retriever, top_k=top_k, hard_mode=hard_mode,
                           max_step=max_step, max_extend_step=max_extend_step))  # fmt: skip
    if termination is Termination.ANSWER and run.cursor is not None:
        # Stopped by the step limit with parts unwritten (or never planned).
        termination = Termination.EXCEED_CALLS
    return SurveyResult(
        markdown=format_survey(run.survey, citations=run.citations),
        survey=run.survey.model_dump(exclude_none=True) if run.survey is not None else None,
        citations=run.citations,
        steps=run.step, termination=str(termination), trace=trace,
        usage=tracker.usage, calls=tracker.calls,
    )  # fmt: skip
