"""The LLM judge: an LLM rules on what grading's rules could not decide.

Grading (a lower layer) defines what a judge is asked and answers
(:class:`~answerx.grading.judgement.Judge`); this package holds the judge that asks
an LLM through the structured manager, with its per-task verdict models, its
budget and its cache hook. Use it as ``verify(..., judge=LLMJudge(manager))``.
:class:`LLMExtractor` is its sibling for extraction: a structured extraction call only
for the outputs the extraction rules cannot read (``answerx extract --file --llm``).
:func:`manager_for` reads ``PROVIDER/MODEL`` as the command line and the service name
either.
"""

from answerx.judge.budget import JudgeBudget, JudgeSummary, Price
from answerx.judge.cache import JudgeCache, MemoryJudgeCache, judge_cache_key
from answerx.judge.extractor import LLMExtraction, LLMExtractor
from answerx.judge.llm import LLMJudge
from answerx.judge.models import TASK_RULES, Judgement, judgement_model
from answerx.judge.named import manager_for

__all__ = [
    "TASK_RULES",
    "JudgeBudget",
    "JudgeCache",
    "JudgeSummary",
    "Judgement",
    "LLMExtraction",
    "LLMExtractor",
    "LLMJudge",
    "MemoryJudgeCache",
    "Price",
    "judge_cache_key",
    "judgement_model",
    "manager_for",
]
