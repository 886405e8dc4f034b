"""Running an approach's steps: budgets, accounting, the final attempt, sync or async.

This is the one agent loop of answerx: the reasoning approaches, the search loops
and :func:`answerx.reasoning.run_agent_loop` (a caller's own step) all run here.

An approach is a generator of :data:`Steps`: it yields a :data:`Batch` of
requests (:mod:`answerx.reasoning.calls`) and receives their values, in order;
it returns an :class:`Answer`, or :class:`GiveUp` when it ends without one (a
turn limit, a step that stops); a failed request's error is raised inside it at
its ``yield`` (it may catch it). :func:`governed` wraps it: before each batch it
checks the :class:`~answerx.agent.BudgetTracker`, after each it records the
calls' :class:`CallInfo`, of failed calls too (a
:class:`~answerx.errors.ProviderError` carries its ``call_info``), so usage and
attempts sum over every call the approach made; when the budget runs out, or the
steps give up, it ends them with the final attempt. :func:`drive` and
:func:`adrive` feed requests to the manager, sync or async: the step logic exists
once. :func:`agent_record` turns how a run ended into a DeepResearch result line
(:class:`~answerx.agent.AgentRecord`).

Budget rules: calls and provider tokens are checked before every batch (a call
under way is not interrupted; nor is the wall clock enforced mid-call — the
manager's own timeout bounds each call). A concurrent batch starts only when the
budget allows all of its calls; otherwise the approach ends there with the final
attempt. A request whose messages pass ``max_context_tokens`` ends it with the
forced answer. The final attempt itself is one call beyond ``max_calls``. Steps that
give up get the final attempt for their reason, or for the budget's when it is spent
too, or the forced answer when the conversation has outgrown ``max_context_tokens``.
The final attempt's prompt is appended to the conversation as it stands (tinyAgent's
``messages + [prompt]``: a last tool observation is part of it); the forced answer's
takes the place of an unanswered last user turn (DeepResearch overwrites the tool
response). ``Budget(final_attempt=False)`` makes no final attempt: the run ends with the
limit's own reason, as DeepResearch's does (the forced answer is made either way).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from answerx.agent.budget import BudgetTracker
from answerx.agent.final import FINAL_ATTEMPT_REASONS, FinalAnswer
from answerx.agent.records import AgentRecord
from answerx.agent.termination import Termination
from answerx.errors import ProviderError
from answerx.extraction.models import Extraction
from answerx.extraction.spec import AnswerSpec
from answerx.reasoning.calls import (
    Batch,
    CodeRun,
    Done,
    ExtractCall,
    FinalCall,
    Message,
    Settled,
    StructuredCall,
    TextCall,
)
from answerx.reasoning.prompts import PromptBook
from answerx.reasoning.response import Stage, Strategy
from answerx.reasoning.settings import ApproachSettings
from answerx.structured.callinfo import CallInfo
from answerx.structured.extraction import ExtractionSettings
from answerx.structured.models import ReasoningExtraction

__all__ = [
    "Answer",
    "GiveUp",
    "Outcome",
    "Run",
    "Steps",
    "adrive",
    "advance",
    "agent_record",
    "drive",
    "governed",
    "render_structured",
]

T = TypeVar("T")
Steps = Generator[Batch, list[Any], T]
"""An approach's step logic: yields batches of requests, receives their values."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What an answer step found."""

    extraction: Extraction
    stage: Stage
    reply: str  # the reply as the model reads it back in a conversation
    structured: ReasoningExtraction | None = None


@dataclass(frozen=True, slots=True)
class GiveUp:
    """What steps return when they end without an answer: the engine makes the final
    attempt for ``reason`` (the budget's own reason when it is spent too; the forced
    answer when the context is full). ``limit`` names the steps' own limit, reported
    as ``metadata.step_limit`` (``max_turns``, ``max_steps``; None: the steps stopped)."""

    reason: Termination
    limit: str | None = None


@dataclass(slots=True)
class Run:
    """The state of one question while an approach works on it."""

    approach: str
    strategy: Strategy
    question: str
    spec: AnswerSpec
    settings: ApproachSettings
    prompts: PromptBook
    response_model: type[ReasoningExtraction]
    #: The conversation a final attempt continues: the approach keeps it current.
    conversation: list[Message] = field(default_factory=list)
    #: (step, text) of every reply, in order: the response's text.
    transcript: list[tuple[str, str]] = field(default_factory=list)
    #: Extra metadata fields the approach reports (rounds used, sandbox outcome, …).
    extras: dict[str, Any] = field(default_factory=dict)
    #: Provider options of every call, when they are not the settings' (a caller's loop).
    call_options: dict[str, Any] | None = None
    #: The manager's extraction settings (None: a manager without them, as a test double).
    extraction: ExtractionSettings | None = None

    @property
    def task(self) -> str:
        return self.spec.task

    @property
    def min_confidence(self) -> float:
        """Two-stage's threshold: the approach's ``min_confidence`` when it sets one, else
        the manager's extraction settings'."""
        if "min_confidence" in self.settings.model_fields_set or self.extraction is None:
            return self.settings.min_confidence
        return self.extraction.min_confidence

    @property
    def options(self) -> dict[str, Any]:
        """Provider options of every call."""
        if self.call_options is not None:
            return dict(self.call_options)
        return self.settings.call_options()

    def begin(self, message: Message) -> None:
        """Start the conversation with the question's prompt."""
        self.conversation = [message]

    def say(self, message: Message) -> None:
        """Add a user turn to the conversation (the next call answers it)."""
        self.conversation.append(message)

    def heard(self, reply: str) -> None:
        """Add the model's reply to the conversation."""
        self.conversation.append({"role": "assistant", "content": reply})


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the steps ended: with their answer, or with the final attempt's."""

    answer: Answer | None
    final: FinalAnswer | None = None
    last_structured: CallInfo | None = None


def governed(run: Run, steps: Steps[Answer | GiveUp], tracker: BudgetTracker) -> Steps[Outcome]:
    """``steps`` under the budget of ``tracker``, with every call recorded."""
    outcome: list[Any] | Exception | None = None
    last_structured: CallInfo | None = None
    while True:
        try:
            batch = advance(steps, outcome)
        except StopIteration as stop:
            if not isinstance(stop.value, GiveUp):
                return Outcome(stop.value, last_structured=last_structured)
            if stop.value.limit is not None:
                run.extras["step_limit"] = stop.value.limit
            final = yield from _last_call(run, _give_up_reason(run, stop.value, tracker), tracker)
            return Outcome(None, final=final, last_structured=last_structured)
        limit = _stop_reason(batch, tracker)
        if limit is not None:
            steps.close()
            reason, run.extras["budget_exhausted"] = limit
            final = yield from _last_call(run, reason, tracker)
            return Outcome(None, final=final, last_structured=last_structured)
        settled: list[Settled] = yield batch
        failure: Exception | None = None
        for request, result in zip(batch, settled, strict=True):
            info = result.info if isinstance(result, Done) else _failed_call_info(result)
            if info is not None:
                tracker.record(info)
                if isinstance(request, StructuredCall | ExtractCall):
                    last_structured = info
                elif isinstance(request, TextCall):
                    # Read by two-stage extraction and reported in the response metadata.
                    run.extras["finish_reason"] = info.finish_reason
            if isinstance(result, Done):
                _note(run, request, result.value)
            elif failure is None:
                failure = result
        # The steps get every value, or the batch's first failure raised inside them.
        outcome = failure or [result.value for result in settled if isinstance(result, Done)]


def _last_call(run: Run, reason: Termination, tracker: BudgetTracker) -> Steps[FinalAnswer]:
    """The final attempt (or forced answer) for ``reason``; the conversation then ends
    with its prompt and reply."""
    if not tracker.budget.final_attempt and reason in FINAL_ATTEMPT_REASONS:
        return FinalAnswer.skipped(reason, run.spec)  # DeepResearch stops at the limit
    request = _final_call(run, reason)
    [done] = yield (request,)
    if isinstance(done, Exception):
        raise done  # not a provider failure (final_attempt keeps those): a bug
    if done.info is not None:
        tracker.record(done.info)
    final: FinalAnswer = done.value
    run.transcript.append((request.step, final.text))
    run.conversation = final.messages(request.messages)
    return final


def _give_up_reason(run: Run, give_up: GiveUp, tracker: BudgetTracker) -> Termination:
    """The last call's reason when steps give up: a full context forces the answer, a spent
    budget keeps its own reason, else the steps'."""
    if tracker.context_exceeded(run.conversation):
        return Termination.TOKEN_LIMIT_ANSWER
    return tracker.exhausted() or give_up.reason


def _stop_reason(batch: Batch, tracker: BudgetTracker) -> tuple[Termination, str] | None:
    """Why ``batch`` must not start, and which limit says so; None when it may."""
    llm_calls = [r for r in batch if isinstance(r, TextCall | StructuredCall | ExtractCall)]
    if not llm_calls:
        return None
    budget, left = tracker.budget, tracker.calls_left
    reason = tracker.exhausted()
    if reason is Termination.TIMEOUT:
        return reason, "time_limit_s"
    if reason is not None:
        return reason, "max_calls" if left is not None and left <= 0 else "max_tokens"
    if left is not None and len(llm_calls) > left:
        return Termination.EXCEED_CALLS, "max_calls"
    if budget.max_context_tokens is not None and any(
        tracker.context_exceeded(r.messages) for r in llm_calls
    ):
        # force_answer decides between an answer and a format error.
        return Termination.TOKEN_LIMIT_ANSWER, "max_context_tokens"
    return None


def _final_call(run: Run, reason: Termination) -> FinalCall:
    messages = run.conversation
    # A forced answer takes the place of the last message, as DeepResearch overwrites the
    # tool response that filled the context (unless it is the question itself). A final
    # attempt is appended (tinyAgent's ``messages + [prompt]``): the last tool observation
    # may be what the answer rests on.
    forced = reason is Termination.TOKEN_LIMIT_ANSWER
    if forced and len(messages) > 1 and messages[-1].get("role") == "user":
        messages = messages[:-1]
    return FinalCall(
        step="final attempt", messages=tuple(messages), reason=reason, spec=run.spec,
        # The caller's options (max_tokens, …); final_attempt sets temperature 0 itself.
        prompt_dir=run.prompts.prompt_dir, options=run.options,
    )  # fmt: skip


def agent_record(
    run: Run, tracker: BudgetTracker, outcome: Outcome, *, gold: str | None, latency_s: float
) -> AgentRecord:
    """How ``run`` ended, as a DeepResearch result line: DeepResearch's prediction and
    termination strings, answerx's typed answer and reason beside them, and what the
    calls used. ``gold`` is the question's gold answer (DeepResearch's ``answer``)."""
    final = outcome.final
    reply: str | None
    if final is not None:
        answer, stopped_by, reply = final.prediction, final.termination, final.text
    else:
        answer = outcome.answer.extraction.answer if outcome.answer is not None else None
        stopped_by = Termination.ANSWER if answer is not None else Termination.ANSWER_NOT_FOUND
        reply = outcome.answer.reply if outcome.answer is not None else None
    return AgentRecord.of(
        question=run.question, gold=gold, messages=list(run.conversation),
        stopped_by=stopped_by, extracted_answer=answer, final_reply=reply,
        time_limit_s=tracker.budget.time_limit_s, usage=tracker.usage, calls=tracker.calls,
        latency_s=latency_s, final_attempt=final is not None and final.made,
    )  # fmt: skip


def _failed_call_info(exc: Exception) -> CallInfo | None:
    """What a failed call used: the manager's ``call_info``; None when no call was made."""
    if not isinstance(exc, ProviderError):
        return None  # not a provider call's failure (a bug, a bad setting)
    if exc.call_info is not None:
        return exc.call_info
    # A manager that attaches none (a test double): the call was made, its cost unknown.
    return CallInfo(provider=exc.provider, model=exc.model or "", mode=None, attempts=1)


def _note(run: Run, request: Any, value: Any) -> None:
    """Keep the reply in the transcript (structured extraction re-reads a reply: skipped)."""
    if isinstance(request, TextCall):
        run.transcript.append((request.step, value))
    elif isinstance(request, StructuredCall):
        run.transcript.append((request.step, render_structured(value)))
    elif isinstance(request, CodeRun):
        run.transcript.append((request.step, value.stdout if value.ok else value.message))


def render_structured(obj: ReasoningExtraction) -> str:
    """A structured reply as the model would read it back: reasoning, then the answer."""
    return f"{obj.full_reasoning_text.rstrip()}\n\n<answer>{obj.answer_value}</answer>".lstrip()


# --------------------------------------------------------------------------- drivers


def drive(steps: Steps[T], perform: Callable[[Batch], list[Settled]]) -> T:
    """Run ``steps`` to the end, performing each batch with ``perform`` (sync), which
    returns each request's value or exception (see :func:`governed`)."""
    outcome: list[Any] | Exception | None = None
    while True:
        try:
            batch = advance(steps, outcome)
        except StopIteration as stop:
            result: T = stop.value
            return result
        outcome = perform(batch)


async def adrive(steps: Steps[T], perform: Callable[[Batch], Awaitable[list[Settled]]]) -> T:
    """Async :func:`drive`."""
    outcome: list[Any] | Exception | None = None
    while True:
        try:
            batch = advance(steps, outcome)
        except StopIteration as stop:
            result: T = stop.value
            return result
        outcome = await perform(batch)


def advance(steps: Steps[Any], outcome: list[Any] | Exception | None) -> Batch:
    """Resume ``steps`` with the values of its last batch, or raise that batch's error
    inside it (None starts it); returns its next batch."""
    if isinstance(outcome, Exception):
        return steps.throw(outcome)
    return steps.send(outcome)  # type: ignore[arg-type]  # None primes a new generator
