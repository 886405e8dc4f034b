"""answerx inside DSPy: a metric for evaluation and optimizers, and the feedback form GEPA takes.

::

    from answerx.integrations.dspy import answerx_metric, answerx_feedback_metric

    dspy.Evaluate(devset=dev, metric=answerx_metric)(program)
    dspy.GEPA(metric=answerx_feedback_metric, ...).compile(program, trainset=train)

Both read the model's answer text from ``pred.answer`` and the gold from
``example.answer`` (and options from ``example.choices`` when there are some), extract the
final answer with answerx and grade it with ``answerx.grade``: a chain-of-thought answer
field that says "so the total is $29.00" is right for gold ``29``, and a field that holds
only the answer (``Mars`` with options ``[Venus, Mars, Jupiter]``, ``$18.00``, ``x = 5``)
is read whole by extraction's ``whole_output`` rule, like a marked answer. For other field
names or a fixed task, build one with :func:`make_answerx_metric`.

The feedback form returns ``dspy.Prediction(score=..., feedback=...)``: the feedback says
what answerx read, with which rule and how sure, and what to change when the answer was
missing, cut off, malformed or only found by a last-resort rule, which is the text GEPA's
reflection reads to improve the prompt.

This module imports without DSPy installed (the feedback form needs it when called).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from answerx.extraction.models import GUESS_METHODS
from answerx.grading.rewards import reward_gold
from answerx.integrations._common import check_task, question_text, verify_output

if TYPE_CHECKING:
    from answerx.grading import Verdict

__all__ = [
    "answerx_feedback_metric",
    "answerx_metric",
    "feedback_for",
    "make_answerx_metric",
]


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def feedback_for(verdict: Verdict) -> str:
    """What GEPA's reflection should hear about one graded answer.

    Only an answer a fallback rule guessed (``GUESS_METHODS``) is asked to be stated as
    "The answer is X"; a marked answer, or a field holding the answer alone
    (``whole_output``), is not.
    """
    extraction = verdict.extraction
    rule = extraction.method if extraction else "none"
    if verdict.reason == "no_answer":
        return (
            "Wrong: no final answer could be found in the output. End with one clearly "
            "marked final answer (for example 'The answer is X')."
        )
    if verdict.reason == "unfinished":
        return (
            "Wrong: the output was cut off before it stated a final answer. Reason more "
            "briefly and state the final answer before running out of tokens."
        )
    if verdict.reason == "malformed_answer":
        problem = getattr(extraction, "problem", None) if extraction else None
        return f"Wrong: the answer {verdict.answer!r} is not well formed" + (
            f" ({problem})." if problem else "."
        )
    if verdict.reason == "unreadable_gold":
        return f"Not graded: the gold answer {verdict.gold!r} could not be read."
    if verdict.reason == "timeout":
        return "Not graded: comparing the answer with the gold answer took too long."
    read = f"the answer read was {verdict.answer!r} (rule {rule}"
    read += f", confidence {extraction.confidence:.2f})" if extraction else ")"
    if verdict.correct:
        text = f"Correct: {read}, equal to the gold answer by {verdict.how}."
    else:
        text = f"Wrong: {read}; the gold answer is {verdict.gold!r}."
    if rule in GUESS_METHODS:
        text += (
            " The answer was not marked explicitly and was only guessed from the end of "
            "the output; state it as 'The answer is X'."
        )
    return text


def make_answerx_metric(
    task: str = "auto",
    *,
    answer_field: str = "answer",
    gold_field: str = "answer",
    choices_field: str = "choices",
    question_field: str = "question",
    feedback: bool = False,
) -> Callable[..., Any]:
    """A DSPy metric that grades ``pred.<answer_field>`` against ``example.<gold_field>``.

    Args:
        task: the answerx task (``auto`` detects it; multiple choice when the example has
            options in ``choices_field``).
        answer_field: the prediction's field holding the model's answer text.
        gold_field: the example's field holding the gold answer, or a list of accepted
            answers (any one is right; ``short_answer`` for short texts under ``auto``).
        choices_field: the example's field holding the option texts, if any.
        question_field: the example's field holding the question, if any (a short answer
            is graded against what was asked: a surname for a person).
        feedback: return ``dspy.Prediction(score=..., feedback=...)`` (GEPA's form)
            instead of a number.

    Without feedback the metric returns 1.0 or 0.0, or a bool when DSPy passes a
    ``trace`` (bootstrapping keeps a demonstration only when the metric is true).
    """
    check_task(task)

    def judge(example: Any, pred: Any) -> Verdict:
        answer = _field(pred, answer_field)
        gold = _field(example, gold_field)
        if gold is None:
            raise KeyError(f"the example has no {gold_field!r} field")
        options = _field(example, choices_field)
        choices = [str(c) for c in options] if options else None
        # reward_gold: a list of accepted answers is read where every reward reads it.
        # finish_reason "stop": DSPy hands over an output field only once the adapter has
        # parsed it out of a complete reply, so its text is never cut off mid-answer
        # (a field "She fills 4 boxes" without a period is a finished answer).
        return verify_output(
            "" if answer is None else str(answer), reward_gold(gold), task, choices=choices,
            question=question_text(_field(example, question_field)), finish_reason="stop",
        )  # fmt: skip

    if feedback:

        def answerx_feedback_metric(
            gold: Any,
            pred: Any,
            trace: Any = None,
            pred_name: str | None = None,
            pred_trace: Any = None,
        ) -> Any:
            """GEPA's feedback metric: ``dspy.Prediction(score=1.0|0.0, feedback=...)``."""
            import dspy

            verdict = judge(gold, pred)
            return dspy.Prediction(
                score=1.0 if verdict.correct else 0.0, feedback=feedback_for(verdict)
            )

        return answerx_feedback_metric

    def answerx_metric(example: Any, pred: Any, trace: Any = None) -> float | bool:
        """1.0 when answerx grades the prediction's answer equal to the gold, else 0.0."""
        correct = bool(judge(example, pred).correct)
        if trace is not None:
            return correct
        return 1.0 if correct else 0.0

    return answerx_metric


answerx_metric = make_answerx_metric()
answerx_feedback_metric = make_answerx_metric(feedback=True)
