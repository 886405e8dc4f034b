"""SurveyCPM: a survey writer that plans, searches, writes and extends, step by step.

The writer is a state machine over a survey JSON and a *cursor*::

    search ──► analyst-init_plan ──► search ──► write ──► search ──► write … ──►
        analyst-extend_plan ──(extended)──► search … ──(nop, or no extensions left)──► done

* The **survey** is ``{"title", "sections": [{"title", "plan", "content"?,
  "subsections"?}]}``, three levels deep at most (:class:`Survey`).
* The **cursor** is ``outline`` before the plan exists, ``section-i[.j[.k]]``
  for the first part (depth first) without content, and ``None`` once everything
  is written (:func:`cursor_of`).
* Each step asks the model for ``<thought>…</thought><action>…</action>``. The
  action (:func:`read_action`) is a JSON object or XML elements (``search`` with
  keywords, ``init-plan`` with sections, ``extend-plan`` at a position, ``nop``,
  ``write`` with content), with or without the ``<thought>/<action>`` wrapper; in
  the write step, an ``<action>`` that holds no action is the content itself. Only
  the step's own actions are accepted: any other is read as what it is and
  rejected, the step kept (SurveyCPM's valid actions per state).
  :func:`parse_response` validates it (:func:`validate_action`), strictly in hard
  mode (off by default, as in SurveyCPM's configuration): counts, a minimum
  length, no headings, the language of the instruction, and citations only of
  keys retrieved for this part (read from the passages' ``bibkey:`` lines;
  SurveyCPM upstream reads them with its ``\\cite`` pattern and so never checks
  them). A reply that fails keeps the old state and is retried, within
  ``max_step`` steps (140) and ``max_extend_step`` extension attempts (12).
* A search retrieves each keyword, deduplicates the passages and interleaves
  them up to ``top_k`` (:func:`interleave_passages`); each passage keeps one
  citation key (``textidN``, or its own ``bibkey:`` line) and one citation number
  (the order it was first retrieved in; ``textidN`` is number N) for the whole
  survey.

:func:`write_survey` runs the machine against a manager and a retriever and
returns a :class:`SurveyResult`: the Markdown (:func:`format_survey`), the survey
JSON, the citation numbers, the steps taken and the termination (``answer`` when the survey is done;
``exceed available llm calls`` at the step limit or call/token budget;
``timeout``). :func:`transition` is the pure state update, testable alone.

One room per job: :mod:`~answerx.agent.survey.outline` (the survey, positions, the
cursor), :mod:`~answerx.agent.survey.actions` (reading a reply's action),
:mod:`~answerx.agent.survey.validation` (whether the step accepts it),
:mod:`~answerx.agent.survey.citations` (keys, numbers, interleaved passages),
:mod:`~answerx.agent.survey.machine` (the states and one step),
:mod:`~answerx.agent.survey.writer` (the driver) and
:mod:`~answerx.agent.survey.markdown` (the output).
"""

from answerx.agent.survey.actions import ActionName, read_action
from answerx.agent.survey.citations import (
    citation_numbers,
    cited_keys,
    interleave_passages,
    retrieved_keys,
)
from answerx.agent.survey.machine import (
    MAX_EXTEND_STEP,
    MAX_STEP,
    State,
    SurveyRun,
    apply,
    transition,
)
from answerx.agent.survey.markdown import clean_title, format_survey
from answerx.agent.survey.outline import Section, Survey, cursor_of
from answerx.agent.survey.validation import ParsedResponse, parse_response, validate_action
from answerx.agent.survey.writer import SurveyResult, write_survey

__all__ = [
    "MAX_EXTEND_STEP",
    "MAX_STEP",
    "ActionName",
    "ParsedResponse",
    "Section",
    "State",
    "Survey",
    "SurveyResult",
    "SurveyRun",
    "apply",
    "citation_numbers",
    "cited_keys",
    "clean_title",
    "cursor_of",
    "format_survey",
    "interleave_passages",
    "parse_response",
    "read_action",
    "retrieved_keys",
    "transition",
    "validate_action",
    "write_survey",
]
