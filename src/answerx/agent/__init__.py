"""Budgets and termination for multi-call approaches and agent loops (DESIGN.md)."""

from answerx.agent.budget import Budget, BudgetTracker, estimate_tokens
from answerx.agent.termination import StepLimitReached, Termination

__all__ = ["Budget", "BudgetTracker", "StepLimitReached", "Termination", "estimate_tokens"]
