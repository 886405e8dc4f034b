"""The state machine: one step's reply read, acted on (search, plan, write, extend), and
the machine moved on.

::

    search ──► analyst-init_plan ──► search ──► write ──► search ──► write … ──►
        analyst-extend_plan ──(extended)──► search … ──(nop, or no extensions left)──► done

A reply that fails keeps the old state and is retried, within ``max_step`` steps (140)
and ``max_extend_step`` extension attempts (12). :func:`transition` is the pure state
update, testable alone; :func:`apply` is one step on a :class:`SurveyRun`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from pydantic import BaseModel, Field

from answerx.agent.survey.actions import ActionName
from answerx.agent.survey.citations import (
    citation_numbers,
    interleave_passages,
    passages_text,
    retrieved_keys,
)
from answerx.agent.survey.outline import Section, Survey, cursor_of, updated
from answerx.agent.survey.validation import parse_response
from answerx.retrieval.base import Passage, Retriever

__all__ = [
    "MAX_EXTEND_STEP",
    "MAX_STEP",
    "ExtendResult",
    "State",
    "SurveyRun",
    "apply",
    "transition",
]

State = Literal["search", "analyst-init_plan", "write", "analyst-extend_plan", "done"]
ExtendResult = Literal["extended", "nop", "retry", ""]

MAX_STEP: Final = 140
MAX_EXTEND_STEP: Final = 12


def transition(
    state: State,
    *,
    parsed: bool,
    cursor: str | None,
    step: int,
    extend_time: int,
    extend_result: ExtendResult = "",
    max_step: int = MAX_STEP,
    max_extend_step: int = MAX_EXTEND_STEP,
) -> tuple[State, int]:
    """The next state and extension count after a step in ``state`` (``step`` counts the
    steps made before this one). A failed parse keeps the state (an extension
    attempt still counts); at ``max_step`` everything is done."""
    if state == "done" or step >= max_step:
        return "done", extend_time
    if not parsed:
        if state != "analyst-extend_plan":
            return state, extend_time
        extend_time += 1
        return ("analyst-extend_plan" if extend_time <= max_extend_step else "done"), extend_time
    if state == "search":
        return ("analyst-init_plan" if cursor == "outline" else
                "write" if cursor is not None else "done"), extend_time  # fmt: skip
    if state == "analyst-init_plan":
        return ("search" if cursor not in ("outline", None) else "analyst-init_plan"), extend_time
    if state == "write":
        if cursor is not None:
            return "search", extend_time
        if extend_time < max_extend_step:
            return "analyst-extend_plan", extend_time + 1
        return "done", extend_time
    # analyst-extend_plan
    if extend_result == "extended":
        return "search", extend_time
    if extend_result == "nop" or extend_time >= max_extend_step:
        return "done", extend_time
    return "analyst-extend_plan", extend_time


class SurveyRun(BaseModel):
    """Where a survey stands: the machine's state, the survey, the cursor and counters."""

    instruction: str
    state: State = "search"
    survey: Survey | None = None
    step: int = 0
    extend_time: int = 0
    cited: list[tuple[str, Passage]] = Field(default_factory=list)  # the last search's
    keys: dict[str, str] = Field(default_factory=dict)  # passage id → citation key

    @property
    def cursor(self) -> str | None:
        return cursor_of(self.survey)

    @property
    def passages(self) -> str:
        return passages_text(self.cited)

    @property
    def citations(self) -> dict[str, int]:
        """Citation key → number (see :func:`citation_numbers`)."""
        return citation_numbers(self.keys)


_VALID: Final[Mapping[State, tuple[ActionName, ...]]] = {
    "search": ("search",),
    "analyst-init_plan": ("init-plan",),
    "write": ("write",),
    "analyst-extend_plan": ("extend-plan", "nop"),
}


def apply(
    run: SurveyRun,
    reply: str,
    retriever: Retriever,
    *,
    top_k: int,
    hard_mode: bool,
    max_step: int = MAX_STEP,
    max_extend_step: int = MAX_EXTEND_STEP,
) -> dict[str, Any]:
    """Read ``reply`` as the answer to ``run``'s current step, act on it (search, plan,
    write, extend) and move the machine on. Returns the step's trace entry."""
    state, cursor = run.state, run.cursor
    parsed = parse_response(
        reply, _VALID[state], survey=run.survey,
        cursor=cursor if state == "write" else None, instruction=run.instruction,
        retrieved=retrieved_keys(run.passages), hard_mode=hard_mode,
    )  # fmt: skip
    extend_result: ExtendResult = ""
    if parsed.ok:
        action = parsed.action
        if state == "search":
            found = retriever.search_many([k.strip() for k in action["keywords"]], top_k)
            run.cited = interleave_passages(found, top_k, run.keys)
        elif state == "analyst-init_plan":
            run.survey = Survey(title=action["title"].strip(),
                                sections=[Section(**s) for s in action["sections"]])  # fmt: skip
        elif state == "write" and cursor is not None and run.survey is not None:
            run.survey = updated(run.survey, cursor, content=action["content"].strip())
        elif state == "analyst-extend_plan" and run.survey is not None:
            if action["name"] == "nop":
                extend_result = "nop"
            else:
                subsections = [Section(**s) for s in action["subsections"]]
                run.survey = updated(run.survey, action["position"], subsections=subsections)
                extend_result = "extended"
    elif state == "analyst-extend_plan":
        extend_result = "retry"
    entry = {
        "step": run.step + 1, "state": state, "cursor": cursor,
        "action": parsed.action.get("name"), "ok": parsed.ok, "problem": parsed.problem,
    }  # fmt: skip
    if state == "search" and parsed.ok:
        entry["keywords"] = parsed.action["keywords"]
        entry["passage_ids"] = [p.id for _, p in run.cited]
    run.state, run.extend_time = transition(
        state, parsed=parsed.ok, cursor=run.cursor, step=run.step, extend_time=run.extend_time,
        extend_result=extend_result, max_step=max_step, max_extend_step=max_extend_step,
    )  # fmt: skip
    run.step += 1
    if run.step >= max_step and run.state != "done":
        run.state = "done"
    return entry
