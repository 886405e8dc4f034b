"""Grading: is an answer right? ``verify`` (raw output) and ``grade`` (extracted answer).

The layer just above extraction: :func:`verify` extracts the final answer and judges it
against the gold answer (or any of several accepted answers), :func:`grade` judges an
answer already extracted, :func:`verify_batch` does many at once; all of them, and
experiment scoring, reach their verdict through :func:`decide` (what was extracted, the
accepted answers, the item's :class:`~answerx.extraction.spec.AnswerSpec` from
:func:`spec_for`). Where the rules cannot decide with confidence (``Verdict.doubt``), a
:class:`Judge` passed by the caller (``answerx.judge.LLMJudge``) rules instead. Each
returns a :class:`Verdict` saying ``correct``, why (``reason``, one of :data:`REASONS`)
and which predicate decided (``how``, one of :data:`HOWS`). Thread-safe and signal-free:
math-verify runs in a worker process with a per-item time limit
(:mod:`answerx.grading.pool`). The predicates live in small modules: ``numeric``,
``choice``, ``boolean``, ``text``, ``game24``, ``mathverify``, and for open-domain short
answers ``qa_metrics`` (EM, F1, cover), ``variants`` and ``short_answer``.
"""

from answerx.grading.batch import verify_batch, warm_up
from answerx.grading.core import DEFAULT_TIME_LIMIT_S, DEFAULT_TOLERANCE, decide, grade, verify
from answerx.grading.game24 import check_game24
from answerx.grading.golds import infer_task, spec_for
from answerx.grading.judgement import DOUBTS, Doubt, Judge, JudgeRequest, JudgeRuling
from answerx.grading.models import HOWS, REASONS, How, Reason, Verdict
from answerx.grading.qa_metrics import ShortAnswerScores, short_answer_scores
from answerx.grading.residue import JudgeTotals, judge_totals
from answerx.grading.text import normalize_text

__all__ = [
    "DEFAULT_TIME_LIMIT_S",
    "DEFAULT_TOLERANCE",
    "DOUBTS",
    "HOWS",
    "REASONS",
    "Doubt",
    "How",
    "Judge",
    "JudgeRequest",
    "JudgeRuling",
    "JudgeTotals",
    "Reason",
    "ShortAnswerScores",
    "Verdict",
    "check_game24",
    "decide",
    "grade",
    "infer_task",
    "judge_totals",
    "normalize_text",
    "short_answer_scores",
    "spec_for",
    "verify",
    "verify_batch",
    "warm_up",
]
