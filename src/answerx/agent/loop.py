"""A generic multi-turn loop (search agent, ReAct) with budgets and a final attempt.

:func:`run_agent_loop` (async: :func:`arun_agent_loop`) keeps a conversation
going: each turn it checks the budget, calls ``manager.complete_text`` and
looks for an answer in the reply (an ``<answer>`` block, read by
:func:`answerx.extract`). Without one, the caller's ``step(reply, messages)``
does the agent's work (run a search, a tool, a critique) and returns the next
user message, or ``None`` to stop. The result is an :class:`AgentRecord`, the
DeepResearch-style result line.

How a loop ends (``AgentRecord.termination``; "limit" is the call, token or time
budget; every limit or stop gets one last call before giving up: the final
attempt, or the forced answer when the context is full):

====================================  ============================================================
Situation                             termination
====================================  ============================================================
a reply holds an ``<answer>`` block   ``answer``
the step answers (``StepResult``)     ``answer``
limit or stop, final attempt answers  ``answer``, with ``final_attempt=True``
calls or tokens spent, nothing found  ``exceed available llm calls``
time limit reached, nothing found     ``timeout``
the step stopped, nothing found       ``answer not found`` (a limit's reason if one is hit too)
context full, forced reply has block  ``generate an answer as token limit reached``
context full, no block in the reply   ``format error: generate an answer as token limit reached``
====================================  ============================================================

The prediction is the answer found; for the forced answer the ``<answer>``
block's content, or the whole reply on a format error (as DeepResearch records
it); ``None`` when nothing was found.

The final attempt (``prompts/final_attempt.txt``) and the forced answer
(``prompts/force_answer.txt``) are one call beyond the budget, at temperature 0
(see :mod:`answerx.agent.final`). With ``result_mode=False`` a loop that ends
without a prediction raises :class:`StepLimitReached` (carrying the termination)
instead of returning a record. Provider errors of the regular turns propagate;
one in the final call only means no prediction.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from answerx.agent.budget import Budget, BudgetTracker
from answerx.agent.final import (
    AsyncTextManager,
    FinalAnswer,
    Messages,
    TextManager,
    afinal_attempt,
    aforce_answer,
    final_attempt,
    force_answer,
    raise_if_unanswered,
)
from answerx.agent.records import AgentRecord
from answerx.agent.termination import Termination
from answerx.errors import ConfigError
from answerx.extraction import AnswerSpec, extract
from answerx.structured.callinfo import CallInfo

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
# How a loop that cannot go on ends: a final attempt for this reason, or a forced answer.
_FORCE_ANSWER: Literal["force_answer"] = "force_answer"
_Ending = Termination | Literal["force_answer"]
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
    provider on every call (the final call is always at temperature 0).

    >>> record = run_agent_loop(                                       # doctest: +SKIP
    ...     manager, [{"role": "user", "content": "Who wrote Dune?"}],
    ...     step=lambda reply, messages: search(reply), budget=Budget(max_calls=8))
    >>> record.prediction, record.termination                          # doctest: +SKIP
    ('Frank Herbert', 'answer')
    """
    spec = AnswerSpec.for_item(task, choices, numbers)
    run = _Run(messages, budget, spec, result_mode, prompt_dir, question, answer,
               answer_methods, clock, kw)  # fmt: skip
    while True:
        ending = run.ending()
        if ending is None:
            reply, info = manager.complete_text(run.messages, **kw)
            record = run.take_reply(reply, info)
            if record is None:
                record = run.take_step(step(reply, list(run.messages)))
            if record is not None:
                return record
            if not run.stopped:
                continue
            ending = run.stop_ending()
        if isinstance(ending, Termination):
            return run.finish(final_attempt(manager, run.messages, reason=ending, **run.final_kw()))
        return run.finish(force_answer(manager, run.messages, **run.final_kw()))


async def arun_agent_loop(
    manager: AsyncTextManager,
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
    """Async :func:`run_agent_loop`; ``step`` may be a plain or an async function."""
    spec = AnswerSpec.for_item(task, choices, numbers)
    run = _Run(messages, budget, spec, result_mode, prompt_dir, question, answer,
               answer_methods, clock, kw)  # fmt: skip
    while True:
        ending = run.ending()
        if ending is None:
            reply, info = await manager.acomplete_text(run.messages, **kw)
            record = run.take_reply(reply, info)
            if record is None:
                outcome = step(reply, list(run.messages))
                if inspect.isawaitable(outcome):
                    outcome = await outcome
                record = run.take_step(outcome)
            if record is not None:
                return record
            if not run.stopped:
                continue
            ending = run.stop_ending()
        if isinstance(ending, Termination):
            final = await afinal_attempt(manager, run.messages, reason=ending, **run.final_kw())
            return run.finish(final)
        return run.finish(await aforce_answer(manager, run.messages, **run.final_kw()))


class _Run:
    """The state of one loop, shared by the sync and async drivers (which only differ
    in how they call the manager and the step)."""

    def __init__(
        self,
        messages: Messages,
        budget: Budget,
        spec: AnswerSpec,
        result_mode: bool,
        prompt_dir: str | Path | None,
        question: str | None,
        answer: str | None,
        answer_methods: Collection[str],
        clock: Callable[[], float],
        kw: dict[str, Any],
    ) -> None:
        if budget.max_calls is None and budget.max_tokens is None and budget.time_limit_s is None:
            raise ConfigError(
                "an agent loop needs a limit: set max_calls, max_tokens or time_limit_s"
            )
        self.messages: list[dict[str, Any]] = list(messages)
        self.tracker = BudgetTracker(budget, clock=clock)
        self.spec = spec
        self.result_mode, self.prompt_dir = result_mode, prompt_dir
        self.question = question if question is not None else _first_user_text(messages)
        self.answer = answer
        self.answer_methods = frozenset(answer_methods)
        self.kw = kw
        self.stopped = False
        self._started = time.perf_counter()  # latency is real time, whatever the clock

    def ending(self) -> _Ending | None:
        """Why no further regular call may be made: the final attempt's reason, or
        _FORCE_ANSWER for a full context; None while the loop may go on."""
        reason = self.tracker.exhausted()
        if reason is not None:
            return reason
        if self.tracker.context_exceeded(self.messages):
            return _FORCE_ANSWER
        return None

    def stop_ending(self) -> _Ending:
        """The step stopped without an answer: force one if the context is full, else a
        final attempt for the budget's reason if it is spent too, else "answer not found"."""
        if self.tracker.context_exceeded(self.messages):
            return _FORCE_ANSWER
        return self.tracker.exhausted() or Termination.ANSWER_NOT_FOUND

    def final_kw(self) -> dict[str, Any]:
        return {
            "spec": self.spec, "prompt_dir": self.prompt_dir, **self.kw,
        }  # fmt: skip

    def take_reply(self, reply: str, info: CallInfo) -> AgentRecord | None:
        self.tracker.record(info)
        self.messages.append({"role": "assistant", "content": reply})
        spec = self.spec
        found = extract(reply, spec.task, choices=spec.choices, numbers=spec.numbers)
        if found.answer is not None and found.method in self.answer_methods:
            return self._record(found.answer, Termination.ANSWER, final_attempt=False)
        return None

    def take_step(self, outcome: StepOutcome) -> AgentRecord | None:
        if isinstance(outcome, StepResult):
            if outcome.answer is not None:
                return self._record(outcome.answer, Termination.ANSWER, final_attempt=False)
            outcome = outcome.content
        if outcome is None:
            self.stopped = True
        else:
            self.messages.append({"role": "user", "content": outcome})
        return None

    def finish(self, final: FinalAnswer) -> AgentRecord:
        if final.info is not None:
            self.tracker.record(final.info)
        self.messages = final.messages(self.messages)
        if not self.result_mode:
            raise_if_unanswered(final)
        return self._record(final.prediction, final.termination, final_attempt=True)

    def _record(
        self, prediction: str | None, termination: Termination, *, final_attempt: bool
    ) -> AgentRecord:
        return AgentRecord(
            question=self.question,
            answer=self.answer,
            messages=self.messages,
            prediction=prediction,
            termination=termination,
            usage=self.tracker.usage,
            calls=self.tracker.calls,
            latency_s=time.perf_counter() - self._started,
            final_attempt=final_attempt,
        )


def _first_user_text(messages: Messages) -> str:
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str):
            return content
    return ""
