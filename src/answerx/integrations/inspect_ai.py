"""answerx inside inspect-ai: the ``answerx/answerx_scorer`` scorer and the
``answerx/answerx_local`` task.

Everything is public: import the scorer into a task file, or name it (and the task) by
its registry name, which inspect finds through answerx's ``inspect_ai`` entry point
without importing anything::

    # task.py
    from inspect_ai import Task, task
    from answerx.integrations.inspect_ai import answerx_scorer

    @task
    def my_eval() -> Task:
        return Task(dataset=..., solver=generate(), scorer=answerx_scorer(task="math"))

    inspect eval task.py --model openai/gpt-4o-mini
    inspect score logs/<log>.eval --scorer answerx/answerx_scorer -S task=math
    inspect eval answerx/answerx_local --model ...     # twelve bundled items, offline

In Python, ``inspect_ai.score(log, answerx_scorer(task="math"))`` rescores a log.

Each :class:`~inspect_ai.scorer.Score` carries the answer answerx read (``answer``), a
sentence on how it was read and judged (``explanation``) and
``metadata={"method", "confidence", "reason", "how", "task", "matched_gold"}``. A sample
with several targets is right when the answer matches any of them (``matched_gold`` says
which; a list of short texts is graded as ``short_answer`` under ``auto``), and the
sample's input is the question the grading sees.
A response that states no answer, or that was cut off before stating one, is scored
``INCORRECT`` like a wrong answer but keeps its own ``reason`` (``no_answer``,
``unfinished``) and Score ``reason`` (``invalid_response_format``, ``no_response``,
``unfinished``), so the two are counted apart; a target answerx cannot read is left
unscored (``Score.unscored``) rather than counted as the model's mistake.

Multiple choice reads the options from ``state.choices`` (in the order the model saw
them, so shuffled choices are graded against the shuffled letter).

This module imports without inspect-ai installed; the scorer is then unavailable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from answerx.extraction.models import OPTION_LETTERS
from answerx.integrations._common import check_task, question_text, verify_output

if TYPE_CHECKING:
    from answerx.grading import Verdict

__all__ = ["answerx_local", "answerx_scorer", "local_samples"]

# inspect-ai's stop reasons that mean "cut off": answerx's finish_reason="length".
_CUT_OFF = {"max_tokens", "model_length"}

# answerx's reasons for a wrong or unjudged verdict, as inspect-ai's Score.reason values.
_SCORE_REASONS = {
    "malformed_answer": "invalid_response_format",
    "unfinished": "unfinished",
    "unreadable_gold": "scoring_failed",
    "timeout": "scoring_failed",
}

#: The sample metadata key that names a sample's own answerx task.
TASK_METADATA = "answerx_task"


def golds_for(target: Sequence[str], choices: Sequence[Any]) -> list[str]:
    """The target answers as the model saw them: a letter follows its option when shuffled.

    ``choices`` are inspect-ai ``Choice`` objects (``original_position`` is where the option
    stood in the sample, which is what the target's letter names).
    """
    shuffled = any(i != choice.original_position for i, choice in enumerate(choices))
    if not shuffled:
        return list(target)
    now = {choice.original_position: i for i, choice in enumerate(choices)}
    golds = []
    for gold in target:
        letter = gold.strip().strip("()").upper()
        # A letter past the table (more than ten options) cannot be graded anyway.
        if len(letter) == 1 and letter in OPTION_LETTERS and OPTION_LETTERS.index(letter) in now:
            golds.append(OPTION_LETTERS[now[OPTION_LETTERS.index(letter)]])
        else:
            golds.append(gold)  # an option's text, not a letter: the order does not matter
    return golds


def score_reason(verdict: Verdict, raw_output: str) -> str | None:
    """inspect-ai's ``Score.reason`` for a verdict: None for a right or plainly wrong answer."""
    if verdict.reason == "no_answer":
        return "no_response" if not raw_output.strip() else "invalid_response_format"
    return _SCORE_REASONS.get(verdict.reason)


def explain(verdict: Verdict) -> str:
    """One sentence on how the answer was read and judged."""
    extraction = verdict.extraction
    if extraction is None or verdict.answer is None:
        read = "answerx found no answer" + (
            " (the output was cut off)" if verdict.reason == "unfinished" else ""
        )
    else:
        read = (
            f"answerx read {verdict.answer!r} ({extraction.task}, rule {extraction.method}, "
            f"confidence {extraction.confidence:.2f})"
        )
    judged = {
        "equivalent": f"equal to the target {verdict.gold!r} by {verdict.how}",
        "different": f"not equal to the target {verdict.gold!r}",
        "malformed_answer": "not a well-formed answer for the task",
        "unreadable_gold": f"the target {verdict.gold!r} could not be read",
        "timeout": "the comparison ran out of time",
    }.get(verdict.reason)
    return f"{read}; {judged}." if judged else f"{read}."


def _question(state: Any) -> str | None:
    """The sample's input as text (the last user message of a chat input), or None."""
    try:
        return question_text(state.input_text)
    except ValueError:  # a chat input without a user message
        return None


def _make_scorer() -> Any:
    from inspect_ai.scorer import (
        CORRECT,
        INCORRECT,
        Score,
        Scorer,
        Target,
        accuracy,
        scorer,
        stderr,
    )
    from inspect_ai.solver import TaskState

    @scorer(metrics=[accuracy(), stderr()])  # type: ignore[untyped-decorator,unused-ignore]  # typed only when inspect-ai is installed
    def answerx_scorer(task: str = "auto") -> Scorer:
        """Score the model's final answer the way answerx reads and grades it.

        Args:
            task: the answerx task (``auto``, ``math``, ``numeric``, ``multiple_choice``,
                ``boolean``, ``game24``, ``text``); ``auto`` detects it, and is multiple
                choice when the sample has choices. A sample's ``answerx_task`` metadata
                overrides it for that sample.
        """
        check_task(task)

        async def score(state: TaskState, target: Target) -> Score:
            import anyio.to_thread

            output = state.output
            raw = output.completion if output is not None else ""
            finish = "length" if output is not None and output.stop_reason in _CUT_OFF else None
            choices = [choice.value for choice in state.choices] or None
            # A sample may name its own task (a dataset mixing kinds, answerx_local).
            wanted = check_task(str((state.metadata or {}).get(TASK_METADATA) or task))

            golds = golds_for(target.target, state.choices)
            # Several targets are accepted answers (any one is right, matched_gold says
            # which); one target is graded as that one answer, as before.
            gold: Any = golds if len(golds) > 1 else (golds[0] if golds else "")
            question = _question(state)

            def judge() -> Verdict:
                return verify_output(
                    raw, gold, wanted, choices=choices, finish_reason=finish, question=question
                )

            # Grading may run math-verify for a while: off the event loop.
            verdict = await anyio.to_thread.run_sync(judge)
            extraction = verdict.extraction
            metadata = {
                "method": extraction.method if extraction else "none",
                "confidence": extraction.confidence if extraction else 0.0,
                "reason": verdict.reason,
                "how": verdict.how,
                "task": extraction.task if extraction else wanted,
                "matched_gold": verdict.matched_gold,
            }
            if verdict.correct is None:
                return Score.unscored(
                    reason=score_reason(verdict, raw),
                    answer=verdict.answer,
                    explanation=explain(verdict),
                    metadata=metadata,
                )
            return Score(
                value=CORRECT if verdict.correct else INCORRECT,
                answer=verdict.answer,
                explanation=explain(verdict),
                reason=score_reason(verdict, raw),
                metadata=metadata,
            )

        return score

    return answerx_scorer


def local_samples(sets: str = "gsm8k,math,multiple_choice") -> list[Any]:
    """answerx's bundled local items (comma-separated set names) as inspect-ai Samples:
    the question (with lettered options for multiple choice) as input, the gold answer as
    target, the options as choices, the answerx task in ``metadata["answerx_task"]``."""
    from inspect_ai.dataset import Sample

    from answerx.integrations.local_data import TASK_OF, local_rows

    samples = []
    for name in (part.strip() for part in sets.split(",") if part.strip()):
        for row in local_rows(name):
            question = str(row.get("question") or row.get("problem"))
            choices = row.get("choices")
            if choices:
                lettered = "\n".join(f"({OPTION_LETTERS[i]}) {c}" for i, c in enumerate(choices))
                question = f"{question}\n{lettered}\nFinish with 'The answer is (X)'."
            samples.append(
                Sample(
                    id=row["id"],
                    input=question,
                    target=str(row["answer"]).split("####")[-1].strip(),
                    choices=choices,
                    metadata={TASK_METADATA: TASK_OF[name]},
                )
            )
    return samples


def _make_task() -> Any:
    from inspect_ai import Task, task
    from inspect_ai.solver import generate

    @task  # type: ignore[untyped-decorator,unused-ignore]  # typed only with inspect-ai
    def answerx_local(sets: str = "gsm8k,math,multiple_choice") -> Task:
        """answerx's twelve bundled items (offline), scored by ``answerx_scorer``:
        ``inspect eval answerx/answerx_local --model ...`` (``-T sets=gsm8k`` for one set)."""
        return Task(dataset=local_samples(sets), solver=generate(), scorer=answerx_scorer())

    return answerx_local


def _unavailable(*args: Any, **kwargs: Any) -> Any:
    """Stands in for the scorer and the task where inspect-ai is not installed."""
    raise ImportError(
        "answerx's inspect-ai plug-in needs inspect-ai: pip install 'answerx[inspect]'"
    )


try:
    import inspect_ai  # noqa: F401  (only whether it is there)
except ImportError:
    answerx_scorer = _unavailable
    answerx_local = _unavailable
else:
    answerx_scorer = _make_scorer()
    answerx_local = _make_task()
