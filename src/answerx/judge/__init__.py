"""The LLM judge: an LLM rules on what grading's rules could not decide.

Grading (a lower layer) defines what a judge is asked and answers
(:class:`~answerx.grading.judgement.Judge`); this package holds the judge that asks
an LLM through the structured manager, with its per-task verdict models, its
budget and its cache hook. Build it with ``open_judge(JudgeSpec.named("openai/gpt-4o-mini"))``
(the one factory the command line, runs and the service use) or
``LLMJudge(manager)``, and use it as ``verify(..., judge=judge)``.
:class:`LLMExtractor` is its sibling for extraction: a structured extraction call only
for the outputs the extraction rules cannot read (``answerx extract --file --llm``).
:func:`manager_for` reads ``PROVIDER/MODEL`` as the command line and the service name
either.
"""

from answerx.judge.budget import JudgeBudget, JudgeSummary, Price
from answerx.judge.cache import JudgeCache, MemoryJudgeCache, cache_location, judge_cache_key
from answerx.judge.extractor import LLMExtraction, LLMExtractor
from answerx.judge.factory import open_judge
from answerx.judge.llm import LLMJudge
from answerx.judge.models import TASK_RULES, Judgement, judgement_model
from answerx.judge.named import manager_for
from answerx.judge.spec import JudgeSpec

__all__ = [
    "TASK_RULES",
    "JudgeBudget",
    "JudgeCache",
    "JudgeSpec",
    "JudgeSummary",
    "Judgement",
    "LLMExtraction",
    "LLMExtractor",
    "LLMJudge",
    "MemoryJudgeCache",
    "Price",
    "cache_location",
    "judge_cache_key",
    "judgement_model",
    "manager_for",
    "open_judge",
]
