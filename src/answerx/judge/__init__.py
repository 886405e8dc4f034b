"""The LLM judge: an LLM rules on what grading's rules could not decide.

Grading (a lower layer) defines what a judge is asked and answers
(:class:`~answerx.grading.judgement.Judge`); this package holds the judge that asks
an LLM through the structured manager, with its per-task verdict models, its
budget and its cache hook. Use it as ``verify(..., judge=LLMJudge(manager))``.
"""

from answerx.judge.budget import JudgeBudget, JudgeSummary, Price
from answerx.judge.cache import JudgeCache, MemoryJudgeCache, judge_cache_key
from answerx.judge.llm import LLMJudge
from answerx.judge.models import TASK_RULES, Judgement, judgement_model

__all__ = [
    "TASK_RULES",
    "JudgeBudget",
    "JudgeCache",
    "JudgeSummary",
    "Judgement",
    "LLMJudge",
    "MemoryJudgeCache",
    "Price",
    "judge_cache_key",
    "judgement_model",
]
