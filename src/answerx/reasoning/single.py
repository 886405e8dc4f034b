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
    name: ClassVar[str] = "none"
    description: ClassVar[str] = "Answer directly, no reasoning asked for (one call)."


class ChainOfThought(SinglePrompt[ApproachSettings]):
    name: ClassVar[str] = "chain_of_thought"
    description: ClassVar[str] = "Reason step by step, then answer (one call)."


class ReasoningAsPlanning(SinglePrompt[ApproachSettings]):
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
