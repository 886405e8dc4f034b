"""Budgets, termination, the final attempt and a generic agent loop (DESIGN.md).

- :class:`Budget` / :class:`BudgetTracker`: max calls, max tokens, context size, wall clock.
- :func:`final_attempt` / :func:`force_answer`: the one extra call at temperature 0
  when a limit is reached; :func:`raise_if_unanswered` → :class:`StepLimitReached`.
- :func:`run_agent_loop` / :func:`arun_agent_loop`: a multi-turn loop with a caller's step.
- :class:`AgentRecord`, :func:`tally_terminations`: DeepResearch-style JSONL result lines.
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
from answerx.agent.loop import StepResult, arun_agent_loop, run_agent_loop
from answerx.agent.records import (
    AgentRecord,
    iter_records,
    read_records,
    tally_terminations,
    termination_table,
    write_records,
)
from answerx.agent.termination import StepLimitReached, Termination

__all__ = [
    "AgentRecord",
    "AsyncTextManager",
    "Budget",
    "BudgetTracker",
    "FinalAnswer",
    "StepLimitReached",
    "StepResult",
    "Termination",
    "TextManager",
    "afinal_attempt",
    "aforce_answer",
    "arun_agent_loop",
    "estimate_tokens",
    "final_attempt",
    "force_answer",
    "iter_records",
    "raise_if_unanswered",
    "read_records",
    "run_agent_loop",
    "tally_terminations",
    "termination_table",
    "write_records",
]
