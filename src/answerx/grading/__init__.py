"""Grading: is an answer right? ``verify`` (raw output) and ``grade`` (extracted answer).

The layer just above extraction: :func:`verify` extracts the final answer and
judges it against the gold answer, :func:`grade` judges an answer already
extracted, :func:`verify_batch` does many at once. Each returns a
:class:`Verdict` saying ``correct``, why (``reason``, one of :data:`REASONS`)
and which predicate decided (``how``, one of :data:`HOWS`). Thread-safe and
signal-free: math-verify runs in a worker process with a per-item time limit
(:mod:`answerx.grading.pool`). The predicates live in small modules:
``numeric``, ``choice``, ``boolean``, ``text``, ``game24``, ``mathverify``.
"""

from answerx.grading.batch import verify_batch
from answerx.grading.core import DEFAULT_TIME_LIMIT_S, DEFAULT_TOLERANCE, grade, verify
from answerx.grading.game24 import check_game24
from answerx.grading.models import HOWS, REASONS, How, Reason, Verdict
from answerx.grading.tasks import infer_task
from answerx.grading.text import normalize_text

__all__ = [
    "DEFAULT_TIME_LIMIT_S",
    "DEFAULT_TOLERANCE",
    "HOWS",
    "REASONS",
    "How",
    "Reason",
    "Verdict",
    "check_game24",
    "grade",
    "infer_task",
    "normalize_text",
    "verify",
    "verify_batch",
]
