"""``BaseReasoning``: one approach, bound to a manager, a strategy and its settings."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Final, Generic, TypeVar, Unpack, cast, get_args

from answerx.agent.budget import Budget, BudgetTracker
from answerx.agent.final import raise_if_unanswered
from answerx.agent.records import AgentRecord
from answerx.agent.termination import Termination
from answerx.errors import InputError, UnknownName
from answerx.extraction.spec import AnswerSpec
from answerx.extraction.tasks import check_task
from answerx.reasoning.calls import ReasoningManager, aperform_batch, perform_batch
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
from answerx.reasoning.response import ResponseMetadata, StandardResponse, Strategy
from answerx.reasoning.settings import ApproachOptions, ApproachSettings, parse_settings
from answerx.structured.extraction import ExtractionSettings
from answerx.structured.models import get_extraction_model

__all__ = ["STRATEGIES", "BaseReasoning"]

STRATEGIES: Final[tuple[str, ...]] = get_args(Strategy)

S = TypeVar("S", bound=ApproachSettings)


class BaseReasoning(ABC, Generic[S]):
    """A reasoning approach: prompts a model about a question and returns a
    :class:`StandardResponse` with the answer and how it was reached.

    Build one with :func:`answerx.reasoning.get_approach`. Subclasses write only
    :meth:`steps`, a generator of requests (see :mod:`answerx.reasoning.engine`),
    so :meth:`execute` and :meth:`aexecute` share every line of step logic.

    Args:
        manager: an :class:`~answerx.structured.InstructorClientManager` (or an
            object with its interface).
        strategy: ``structured`` (one structured call per answer step) or
            ``two_stage`` (free text, deterministic extraction, LLM extraction only
            when that is weak).
        task: the answer's shape (``auto``, ``math``, ``numeric``,
            ``multiple_choice``, ``boolean``, ``game24``, ``text``); ``auto`` becomes
            ``multiple_choice`` when a question has choices, ``game24`` with numbers.
        prompt_dir: a directory whose ``<name>.txt`` files override bundled templates.
        budget: limits on calls, tokens, context and time; when they run out the
            approach ends with one final attempt.
        result_mode: when the final attempt finds nothing either, return a response
            whose ``metadata.termination`` says why instead of raising
            :class:`~answerx.agent.StepLimitReached`.
        settings: the approach's own settings (see ``settings_model``).
    """

    #: The approach's name, a key of ``answerx.reasoning.APPROACHES``.
    name: ClassVar[str]
    #: One line for ``answerx approaches list``.
    description: ClassVar[str]
    #: The settings this approach accepts.
    settings_model: type[ApproachSettings] = ApproachSettings
    #: The approach whose structured model reads this one's answers (None: its own name).
    extraction_approach: ClassVar[str | None] = None

    def __init__(self, manager: ReasoningManager, **options: Unpack[ApproachOptions]) -> None:
        given: dict[str, Any] = dict(options)
        strategy = given.pop("strategy", "structured")
        if strategy not in STRATEGIES:
            raise UnknownName("strategy", str(strategy), STRATEGIES, listed="valid strategies")
        budget = given.pop("budget", None)
        self.manager = manager
        self.strategy = cast(Strategy, strategy)
        self.task = check_task(given.pop("task", "auto"))
        self.prompt_dir: str | Path | None = given.pop("prompt_dir", None)
        self.budget = budget if budget is not None else Budget()
        self.result_mode = bool(given.pop("result_mode", False))
        # What is left are the approach's settings.
        self.settings: S = cast(S, parse_settings(self.name, self.settings_model, given))

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.manager!r}, strategy={self.strategy!r}, "
                f"task={self.task!r})")  # fmt: skip

    @abstractmethod
    def steps(self, run: Run) -> Steps[Answer | GiveUp]:
        """The approach's step logic for one question (a generator of request batches):
        its answer, or :class:`~answerx.reasoning.engine.GiveUp` for the final attempt."""

    # ------------------------------------------------------------------ running
    def execute(
        self,
        question: str,
        *,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        spec: AnswerSpec | None = None,
    ) -> StandardResponse:
        """Answer ``question`` with the manager's sync methods.

        The item's answer shape is ``spec`` (an :class:`~answerx.extraction.AnswerSpec`,
        whose task wins over the approach's) or, for convenience, its ``choices`` or
        ``numbers`` (with the approach's task). Needs no event loop, so it also works
        inside a running one (a notebook); concurrent steps run in threads.
        """
        run, tracker, outcome, elapsed = self._drive(question, self._spec(spec, choices, numbers))
        return self._respond(run, tracker, outcome, elapsed)

    async def aexecute(
        self,
        question: str,
        *,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        spec: AnswerSpec | None = None,
    ) -> StandardResponse:
        """Async :meth:`execute`: concurrent steps run with ``asyncio.gather``."""
        spec = self._spec(spec, choices, numbers)
        run, tracker, outcome, elapsed = await self._adrive(question, spec)
        return self._respond(run, tracker, outcome, elapsed)

    def record(
        self,
        question: str,
        *,
        gold: str | None = None,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        spec: AnswerSpec | None = None,
    ) -> AgentRecord:
        """Answer ``question`` like :meth:`execute`, as a DeepResearch result line: its
        ``prediction``/``termination`` strings, answerx's ``extracted_answer`` and
        ``stopped_by`` beside them, the conversation, usage and calls. ``gold`` is the
        gold answer (the line's ``answer``). Never raises for a spent budget: the
        line says why the approach stopped."""
        run, tracker, outcome, elapsed = self._drive(question, self._spec(spec, choices, numbers))
        return agent_record(run, tracker, outcome, gold=gold, latency_s=elapsed)

    async def arecord(
        self,
        question: str,
        *,
        gold: str | None = None,
        choices: Sequence[str] | None = None,
        numbers: Sequence[int | float] | None = None,
        spec: AnswerSpec | None = None,
    ) -> AgentRecord:
        """Async :meth:`record`."""
        spec = self._spec(spec, choices, numbers)
        run, tracker, outcome, elapsed = await self._adrive(question, spec)
        return agent_record(run, tracker, outcome, gold=gold, latency_s=elapsed)

    def prepare(self, run: Run) -> None:
        """Set up the run's state before the first step (a hook; nothing by default)."""

    # ------------------------------------------------------------------ helpers
    def _spec(
        self,
        spec: AnswerSpec | None,
        choices: Sequence[str] | None,
        numbers: Sequence[int | float] | None,
    ) -> AnswerSpec:
        return AnswerSpec.given(spec, self.task, choices, numbers)

    def _drive(self, question: str, spec: AnswerSpec) -> tuple[Run, BudgetTracker, Outcome, float]:
        """Run the steps for ``question`` with the manager's sync methods."""
        run, tracker, started = self._start(question, spec)
        steps = governed(run, self.steps(run), tracker)
        outcome = drive(steps, partial(perform_batch, self.manager))
        return run, tracker, outcome, time.perf_counter() - started

    async def _adrive(
        self, question: str, spec: AnswerSpec
    ) -> tuple[Run, BudgetTracker, Outcome, float]:
        """Async :meth:`_drive`."""
        run, tracker, started = self._start(question, spec)
        steps = governed(run, self.steps(run), tracker)
        outcome = await adrive(steps, partial(aperform_batch, self.manager))
        return run, tracker, outcome, time.perf_counter() - started

    def _start(self, question: str, spec: AnswerSpec) -> tuple[Run, BudgetTracker, float]:
        if not isinstance(question, str) or not question.strip():
            raise InputError("the question must be a non-empty string")
        run = Run(
            approach=self.name, strategy=self.strategy, question=question, spec=spec,
            settings=self.settings,
            prompts=PromptBook.for_question(question, spec, self.prompt_dir),
            response_model=get_extraction_model(self.extraction_approach or self.name, spec=spec),
            extraction=_extraction_settings(self.manager),
        )  # fmt: skip
        self.prepare(run)
        return run, BudgetTracker(self.budget), time.perf_counter()

    def _respond(
        self, run: Run, tracker: BudgetTracker, outcome: Outcome, elapsed: float
    ) -> StandardResponse:
        if outcome.final is not None:
            final = raise_if_unanswered(outcome.final) if not self.result_mode else outcome.final
            if final.error is not None:
                run.extras["final_attempt_error"] = final.error  # already redacted
            extraction, answer = final.extraction, final.prediction
            stage, termination = "final_attempt", final.termination
        else:
            assert outcome.answer is not None
            extraction, answer = outcome.answer.extraction, outcome.answer.extraction.answer
            stage = outcome.answer.stage
            termination = Termination.ANSWER if answer is not None else Termination.ANSWER_NOT_FOUND
        last = outcome.last_structured
        metadata = ResponseMetadata(
            reasoning_type=self.name,
            strategy=self.strategy,
            stage=stage,
            confidence=extraction.confidence,
            instructor_mode=last.mode if last is not None else None,
            modes_tried=tuple(m.mode for m in last.modes_tried) if last is not None else (),
            attempts=sum(info.attempts for info in tracker.infos),
            fallbacks=sum(1 for info in tracker.infos if info.fell_back),
            calls=tracker.calls,
            termination=termination,
            **run.extras,
        )
        return StandardResponse(
            question=run.question,
            text=_transcript(run.transcript),
            extracted_answer=answer,
            extraction=extraction,
            provider=self.manager.provider,
            model=self.manager.model,
            usage=tracker.usage,
            generation_time=elapsed,
            parameters=self._parameters(),
            metadata=metadata,
        )

    def _parameters(self) -> dict[str, Any]:
        parameters: dict[str, Any] = {
            "approach": self.name,
            "strategy": self.strategy,
            "task": self.task,
            "settings": self.settings.model_dump(),
        }
        budget = self.budget.model_dump(exclude_none=True)
        if budget:
            parameters["budget"] = budget
        if self.prompt_dir is not None:
            parameters["prompt_dir"] = str(self.prompt_dir)
        return parameters


def _extraction_settings(manager: ReasoningManager) -> ExtractionSettings | None:
    """The manager's extraction settings; None for a manager without them (a test double)."""
    settings = getattr(manager, "extraction", None)
    return settings if isinstance(settings, ExtractionSettings) else None


def _transcript(entries: Sequence[tuple[str, str]]) -> str:
    """One reply verbatim; several under a ``[step]`` heading each."""
    if len(entries) == 1:
        return entries[0][1]
    return "\n\n".join(f"[{step}]\n{text.strip()}" for step, text in entries)
