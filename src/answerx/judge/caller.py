"""What the judge and the LLM extractor share: a manager to ask, a budget to ask within."""

from __future__ import annotations

from typing import TYPE_CHECKING

from answerx.judge.budget import JudgeBudget, JudgeSummary

if TYPE_CHECKING:
    from answerx.structured.manager import InstructorClientManager

__all__ = ["BudgetedCaller"]


class BudgetedCaller:
    """An LLM asked through ``manager`` within ``budget``, named ``provider/model``."""

    manager: InstructorClientManager
    budget: JudgeBudget

    @property
    def name(self) -> str:
        """``provider/model``, as rulings and summaries name it."""
        return f"{self.manager.provider}/{self.manager.model}"

    @property
    def summary(self) -> JudgeSummary:
        """What it asked and spent so far (for an extractor, ``judged``: answers used)."""
        return self.budget.summary

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
