"""Single-prompt approaches, and the base of approaches that also have a multi-call variant."""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, TypeVar

from answerx.reasoning.base import BaseReasoning
from answerx.reasoning.engine import Answer, Run, Steps
from answerx.reasoning.settings import ApproachSettings, MultiCallSettings
from answerx.reasoning.steps import answer_step

__all__ = [
    "ChainOfThought",
    "DirectAnswer",
    "MultiCallReasoning",
    "ReasoningAsPlanning",
    "SinglePrompt",
]

S = TypeVar("S", bound=ApproachSettings)
M = TypeVar("M", bound=MultiCallSettings)


class SinglePrompt(BaseReasoning[S]):
    """One prompt (``prompts/<name>.txt``), one answer step."""

    def steps(self, run: Run) -> Steps[Answer]:
        run.begin(run.prompts.user(self.name))
        return (yield from answer_step(run, "answer"))


class DirectAnswer(SinglePrompt[ApproachSettings]):
    """``none``: ask for the answer alone, with no reasoning requested (a baseline).

    Stages: one answer step on the ``none`` prompt. With the ``structured`` strategy,
    one structured call returns the answer (``metadata.stage == "structured"``). With
    ``two_stage``, one free-text call whose answer the extraction rules read
    (``deterministic``); an LLM extraction call follows only when the rules are unsure
    (``structured_llm``), and a reply cut off before any answer gets one forced-answer
    call instead (``final_attempt``).

    Budget: one call, two when ``two_stage`` needs the extraction call. When the budget
    (``max_calls``, ``max_tokens``, ``time_limit_s``, ``max_context_tokens``) does not allow
    the next call, that call is not made: one final attempt answers instead
    (``stage == "final_attempt"``), and when it finds nothing either,
    :class:`~answerx.agent.StepLimitReached` is raised (with ``result_mode=True``, a
    response whose ``metadata.termination`` says why).
    """

    name: ClassVar[str] = "none"
    description: ClassVar[str] = "Answer directly, no reasoning asked for (one call)."


class ChainOfThought(SinglePrompt[ApproachSettings]):
    """``chain_of_thought``: reason step by step, then state the answer, in one call.

    Stages: one answer step on the ``chain_of_thought`` prompt, read per the strategy:
    ``structured`` returns reasoning and answer in one structured call (stage
    ``structured``); ``two_stage`` reads the free-text reply with the extraction rules
    (``deterministic``), calls the LLM to extract only when the rules are unsure
    (``structured_llm``), and makes one forced-answer call for a reply cut off before
    any answer (``final_attempt``).

    Budget: one call (two with a ``two_stage`` extraction call). A call the budget does
    not allow is replaced by one final attempt; when that finds nothing,
    :class:`~answerx.agent.StepLimitReached` (or, with ``result_mode=True``, a response
    whose ``metadata.termination`` says why).
    """

    name: ClassVar[str] = "chain_of_thought"
    description: ClassVar[str] = "Reason step by step, then answer (one call)."


class ReasoningAsPlanning(SinglePrompt[ApproachSettings]):
    """``reasoning_as_planning``: write a plan, carry it out step by step, answer.

    Stages: one answer step on the ``reasoning_as_planning`` prompt (plan, execution and
    answer in a single reply), read per the strategy as in :class:`ChainOfThought`
    (stage ``structured``, or ``deterministic``/``structured_llm``/``final_attempt`` with
    ``two_stage``).

    Budget: one call (two with a ``two_stage`` extraction call). A call the budget does
    not allow is replaced by one final attempt; when that finds nothing,
    :class:`~answerx.agent.StepLimitReached` (or a response saying why, with
    ``result_mode=True``).
    """

    name: ClassVar[str] = "reasoning_as_planning"
    description: ClassVar[str] = "Write a plan, carry it out step by step, then answer (one call)."


class MultiCallReasoning(SinglePrompt[M]):
    """An approach whose method is written into one prompt by default, and really made
    as several calls with ``multi_call=True``."""

    def steps(self, run: Run) -> Steps[Answer]:
        if self.settings.multi_call:
            return (yield from self.multi_call_steps(run))
        return (yield from super().steps(run))

    @abstractmethod
    def multi_call_steps(self, run: Run) -> Steps[Answer]:
        """The multi-call variant's step logic."""
