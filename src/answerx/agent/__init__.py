"""Budgets, termination, the final attempt and DeepResearch result records (DESIGN.md).

- :class:`Budget` / :class:`BudgetTracker`: max calls, max tokens, context size, wall clock.
- :func:`final_attempt` / :func:`force_answer`: the one extra call at temperature 0
  when a limit is reached; :func:`raise_if_unanswered` → :class:`StepLimitReached`.
- :class:`AgentRecord`, :func:`termination_stats`: DeepResearch result lines (its
  ``prediction``/``termination`` strings, answerx's typed fields beside them) and the
  termination counts with the success rate.

Agents run on one loop, the engine of :mod:`answerx.reasoning` (the approaches, the
search loops, and :func:`answerx.reasoning.run_agent_loop` for a step of your own).
"""

from answerx.agent.budget import Budget, BudgetTracker, estimate_tokens
from answerx.agent.final import (
    AsyncTextManager,
    FinalAnswer,
    TextManager,
    afinal_attempt,
    aforce_answer,
    final_attempt,
    force_answer,
    raise_if_unanswered,
)
from answerx.agent.records import (
    NO_ANSWER_FOUND,
    AgentRecord,
    TerminationStats,
    deepresearch_fields,
    extract_answer_from_response,
    iter_records,
    read_records,
    tally_terminations,
    termination_stats,
    timeout_termination,
    write_records,
)
from answerx.agent.termination import StepLimitReached, Termination

__all__ = [
    "NO_ANSWER_FOUND",
    "AgentRecord",
    "AsyncTextManager",
    "Budget",
    "BudgetTracker",
    "FinalAnswer",
    "StepLimitReached",
    "Termination",
    "TerminationStats",
    "TextManager",
    "afinal_attempt",
    "aforce_answer",
    "deepresearch_fields",
    "estimate_tokens",
    "extract_answer_from_response",
    "final_attempt",
    "force_answer",
    "iter_records",
    "raise_if_unanswered",
    "read_records",
    "tally_terminations",
    "termination_stats",
    "timeout_termination",
    "write_records",
]
