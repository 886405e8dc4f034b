"""Reasoning approaches: prompt, call the manager, return a :class:`StandardResponse`.

Every approach runs on the one agent loop of :mod:`answerx.reasoning.engine`;
:func:`run_agent_loop` runs it with a step of your own (a search, a tool) and returns
a DeepResearch result line, as :meth:`BaseReasoning.record` does for an approach.

>>> from answerx.reasoning import get_approach                       # doctest: +SKIP
>>> cot = get_approach("chain_of_thought", manager, strategy="two_stage")  # doctest: +SKIP
>>> response = cot.execute("What is 17 * 23?")                       # doctest: +SKIP
>>> response.extracted_answer, response.metadata.stage               # doctest: +SKIP
('391', 'deterministic')
"""

from answerx.reasoning.base import STRATEGIES, BaseReasoning
from answerx.reasoning.loop import StepResult, arun_agent_loop, run_agent_loop
from answerx.reasoning.registry import (
    APPROACH_DESCRIPTIONS,
    APPROACHES,
    SEARCH_APPROACHES,
    check_approach,
    get_approach,
)
from answerx.reasoning.response import (
    ApproachName,
    ResponseMetadata,
    Stage,
    StandardResponse,
    Strategy,
)
from answerx.reasoning.settings import MARKER_CONFIDENCE, ApproachOptions, ApproachSettings

__all__ = [
    "APPROACHES",
    "APPROACH_DESCRIPTIONS",
    "MARKER_CONFIDENCE",
    "SEARCH_APPROACHES",
    "STRATEGIES",
    "ApproachName",
    "ApproachOptions",
    "ApproachSettings",
    "BaseReasoning",
    "ResponseMetadata",
    "Stage",
    "StandardResponse",
    "StepResult",
    "Strategy",
    "arun_agent_loop",
    "check_approach",
    "get_approach",
    "run_agent_loop",
]
