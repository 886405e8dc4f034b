"""An agent with a step of your own (a search, a tool, ReAct), run by the engine.

:func:`run_agent_loop` (async: :func:`arun_agent_loop`) keeps a conversation going:
each turn calls ``manager.complete_text`` and looks for an answer in the reply (an
``<answer>`` block, read by :func:`answerx.extract`). Without one, the caller's
``step(reply, messages)`` does the agent's work and returns the next user message, or
``None`` to stop. The turns are steps of :mod:`answerx.reasoning.engine`, the one loop
every approach runs on: budgets, the final attempt and the forced answer are the
engine's, and the result is the engine's DeepResearch result line
(:class:`~answerx.agent.AgentRecord`).

How a loop ends ("limit" is the call, token or time budget; every limit or stop gets
one last call before giving up: the final attempt, or the forced answer when the
context is full):

- a reply holds an ``<answer>`` block, or the step answers (:class:`StepResult`):
  ``answer``;
- limit or stop, and the final attempt answers: ``answer``, ``final_attempt=True``;
- calls or tokens spent, nothing found: ``exceed available llm calls``;
- time limit reached, nothing found: DeepResearch's ``No answer found after …``
  (``stopped_by`` ``timeout``);
- the step stopped, nothing found: ``answer not found`` (a limit's reason if one is
  hit too);
- context full, the forced reply has a closed block: ``generate an answer as token
  limit reached``; without one: ``format error: generate an answer as token limit
  reached``.

The record's ``prediction`` is DeepResearch's (``No answer found.`` without an answer;
the whole forced reply on a format error) and ``extracted_answer`` answerx's (``None``
without one). With ``result_mode=False`` a loop that ends without an answer raises
:class:`~answerx.agent.StepLimitReached` (carrying the reason) instead. Provider errors
of the regular turns propagate; one in the final call only means no answer.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from functools import partial
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field

from answerx.agent.budget import Budget, BudgetTracker
from answerx.agent.final import Messages, TextManager, raise_if_unanswered
from answerx.agent.records import AgentRecord
from answerx.agent.termination import Termination
from answerx.errors import ConfigError
from answerx.extraction import AnswerSpec, Extraction, extract
from answerx.reasoning.calls import (
    ReasoningManager,
    TextCall,
    ToolCall,
    aperform_batch,
    perform_batch,
)
from answerx.reasoning.engine import (
    Answer,
    GiveUp,
    Outcome,
    Run,
    Steps,
    adrive,
    agent_record,
    drive,
    governed,
)
from answerx.reasoning.prompts import PromptBook
from answerx.reasoning.settings import ApproachSettings
from answerx.structured.models import get_extraction_model

__all__ = ["AsyncStep", "Step", "StepOutcome", "StepResult", "arun_agent_loop", "run_agent_loop"]


class StepResult(BaseModel):
    """What a step may return besides a plain string (the next message) or ``None`` (stop).

    ``answer`` ends the loop with that answer (a tool such as ``finish(answer)``);
    otherwise ``content`` is the next user message, and ``None`` stops the loop.
    """

    model_config = ConfigDict(frozen=True)

    content: str | None = Field(default=None, description="The next user message.")
    answer: str | None = Field(default=None, description="The agent's answer: ends the loop.")


StepOutcome = str | StepResult | None
#: ``step(reply, messages)``: ``messages`` is a copy of the conversation, reply included.
Step = Callable[[str, list[dict[str, Any]]], StepOutcome]
AsyncStep = Callable[[str, list[dict[str, Any]]], StepOutcome | Awaitable[StepOutcome]]


def run_agent_loop(
    manager: TextManager,
    messages: Messages,
    *,
    step: Step,
    budget: Budget,
    task: str = "auto",
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    result_mode: bool = True,
    prompt_dir: str | Path | None = None,
    question: str | None = None,
    answer: str | None = None,
    answer_methods: Collection[str] = ("answer_block",),
    clock: Callable[[], float] = time.monotonic,
    **kw: Any,
) -> AgentRecord:
    """Run the loop until an answer or a limit; see the module docstring for the endings.

    ``messages`` is the opening conversation (not modified). ``question`` and
    ``answer`` (the gold answer) go into the record; ``question`` defaults to the
    first user message. ``answer_methods`` are the extraction rules that count as
    an answer in a regular turn (only explicit ``<answer>`` blocks by default:
    a number in the middle of a search agent's reasoning is not its answer).
    ``clock`` measures the time limit (injectable for tests); ``kw`` goes to the
    provider on every call (the final call is always at temperature 0). The manager
    needs ``complete_text``.

    >>> record = run_agent_loop(                                       # doctest: +SKIP
    ...     manager, [{"role": "user", "content": "Who wrote Dune?"}],
    ...     step=lambda reply, messages: search(reply), budget=Budget(max_calls=8))
    >>> record.prediction, record.termination                          # doctest: +SKIP
    ('Frank Herbert', 'answer')
    """
    loop = _Loop(messages, budget, task, choices, numbers, prompt_dir, question, clock, kw)
    steps = governed(loop.run, loop.steps(step, frozenset(answer_methods)), loop.tracker)
    outcome = drive(steps, partial(perform_batch, _as_reasoning_manager(manager)))
    return loop.record(outcome, answer, result_mode)


async def arun_agent_loop(
    manager: Any,
    messages: Messages,
    *,
    step: AsyncStep,
    budget: Budget,
    task: str = "auto",
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    result_mode: bool = True,
    prompt_dir: str | Path | None = None,
    question: str | None = None,
    answer: str | None = None,
    answer_methods: Collection[str] = ("answer_block",),
    clock: Callable[[], float] = time.monotonic,
    **kw: Any,
) -> AgentRecord:
    """Async :func:`run_agent_loop` (the manager needs ``acomplete_text``); ``step`` may
    be a plain or an async function."""
    loop = _Loop(messages, budget, task, choices, numbers, prompt_dir, question, clock, kw)
    steps = governed(loop.run, loop.steps(step, frozenset(answer_methods)), loop.tracker)
    outcome = await adrive(steps, partial(aperform_batch, _as_reasoning_manager(manager)))
    return loop.record(outcome, answer, result_mode)


def _as_reasoning_manager(manager: Any) -> ReasoningManager:
    # The loop only makes text calls (its final attempt is one too): any object with
    # complete_text (acomplete_text for the async driver) will do.
    return cast(ReasoningManager, manager)


class _Loop:
    """One question's state: the engine's run and budget tracker, and the loop's steps."""

    def __init__(
        self,
        messages: Messages,
        budget: Budget,
        task: str,
        choices: Sequence[str] | None,
        numbers: Sequence[int | float] | None,
        prompt_dir: str | Path | None,
        question: str | None,
        clock: Callable[[], float],
        kw: dict[str, Any],
    ) -> None:
        if budget.max_calls is None and budget.max_tokens is None and budget.time_limit_s is None:
            raise ConfigError(
                "an agent loop needs a limit: set max_calls, max_tokens or time_limit_s"
            )
        spec = AnswerSpec.for_item(task, choices, numbers)
        asked = question if question is not None else _first_user_text(messages)
        self.run = Run(
            approach="none", strategy="two_stage", question=asked, spec=spec,
            settings=ApproachSettings(), prompts=PromptBook.for_question(asked, spec, prompt_dir),
            response_model=get_extraction_model("none", spec=spec),
            conversation=list(messages), call_options=dict(kw),
        )  # fmt: skip
        self.tracker = BudgetTracker(budget, clock=clock)
        self._started = time.perf_counter()  # latency is real time, whatever the clock

    def steps(self, step: AsyncStep, answer_methods: frozenset[str]) -> Steps[Answer | GiveUp]:
        """Turn after turn: the model's reply, then (without an answer in it) the step."""
        run, spec = self.run, self.run.spec
        turn = 0
        while True:
            turn += 1
            [reply] = yield (TextCall(f"turn {turn}", tuple(run.conversation), run.options),)
            run.heard(reply)
            found = extract(reply, spec.task, choices=spec.choices, numbers=spec.numbers)
            if found.answer is not None and found.method in answer_methods:
                return Answer(found, "deterministic", reply)
            [outcome] = yield (ToolCall("step", step, (reply, list(run.conversation))),)
            if isinstance(outcome, StepResult):
                if outcome.answer is not None:
                    return Answer(_stated(outcome.answer, spec.task), "deterministic", reply)
                outcome = outcome.content
            if outcome is None:
                return GiveUp(Termination.ANSWER_NOT_FOUND)
            run.say({"role": "user", "content": outcome})

    def record(self, outcome: Outcome, gold: str | None, result_mode: bool) -> AgentRecord:
        if outcome.final is not None and not result_mode:
            raise_if_unanswered(outcome.final)
        latency = time.perf_counter() - self._started
        return agent_record(self.run, self.tracker, outcome, gold=gold, latency_s=latency)


def _stated(answer: str, task: str) -> Extraction:
    """The answer a step gave (``StepResult(answer=…)``): an explicit answer, like a block."""
    return Extraction(
        answer=answer, method="answer_block", confidence=1.0, task=task,
        candidate=answer, raw_output=answer, valid=True,
    )  # fmt: skip


def _first_user_text(messages: Messages) -> str:
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            return content
    return ""
