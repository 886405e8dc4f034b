"""Scoring: the verdict on each answer of a run, in grading's own words.

:func:`judge` asks :func:`answerx.grading.grade` about one answer, together with
what extraction found about it (a malformed answer, an unfinished output), and
returns grading's :class:`~answerx.grading.Verdict` unchanged: its ``reason`` and
``how`` are what runs store and reports group by. :func:`score_item` fills an
item's verdict fields, :func:`score_items` many, :func:`score_run` re-scores a
stored run.

Open-domain questions: an item whose accepted answers are short texts (one or a
list of aliases) is scored as ``short_answer`` (:func:`scoring_task`), and every
``short_answer`` or ``text`` item gets the three measures QA work reports (``em``,
``f1``, ``cover``) beside its verdict.

The residue: where the rules are unsure (``Verdict.doubt``: a guard fired, the
measures disagree, a finished output with no answer found, a fallback's guess), an
LLM judge may rule (:mod:`answerx.judge`). A run asks it (the config's ``judge:``);
its ruling is stored in ``verdict_detail["judge"]``, and a re-score reapplies it
without calling anything while the rules are still unsure of that item. Passing a
judge to :func:`score_run` asks it about the residue items that have no ruling yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Final, Protocol

from answerx.experiments.records import ItemRecord
from answerx.extraction import extract
from answerx.grading import DEFAULT_TOLERANCE, Judge, JudgeRequest, JudgeRuling, Verdict, grade
from answerx.grading.golds import Golds, clean_golds, infer_golds_task, is_alias_list
from answerx.grading.judgement import Doubt
from answerx.grading.qa_metrics import short_answer_scores
from answerx.grading.residue import (
    GUESS_CONFIDENCE,
    JudgeTotals,
    apply_ruling,
    ask_judge,
    judge_request,
    judge_totals,
)
from answerx.grading.short_answer import decide_short_answer, opening_answer
from answerx.grading.tasks import infer_task

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "MATH_TIMEOUT_S",
    "judge",
    "judge_request_for",
    "judge_totals_of",
    "not_asked",
    "rules_verdict",
    "score_item",
    "score_items",
    "score_run",
    "scoring_task",
    "stored_ruling",
    "stored_verdict",
    "verdict_fields",
]

#: Seconds math-verify may spend on one item (its own default).
MATH_TIMEOUT_S = 5

# The tasks whose items get em / f1 / cover: answers that are words.
_MEASURED: Final = frozenset({"short_answer", "text"})


def scoring_task(
    task: str,
    gold: Golds,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
) -> str:
    """The task an item is scored as: its own, except that an ``auto`` item whose
    accepted answers are short texts is ``short_answer`` (an open-domain question, as
    the search agents answer them), whether the data gives one answer or a list (a
    date, ``330 m``, ``3.5 million`` too). A single number stays ``numeric``, LaTeX
    ``math``, a letter ``multiple_choice``.

    >>> scoring_task("auto", "Paris"), scoring_task("auto", ["1989", "89"])
    ('short_answer', 'short_answer')
    >>> scoring_task("auto", "72"), scoring_task("text", "Paris")
    ('numeric', 'text')
    """
    if task != "auto" or choices or numbers:
        return task
    refs = clean_golds(gold)
    if not refs:
        return task
    inferred: str = infer_golds_task(refs)
    if not is_alias_list(gold) and inferred == "short_answer" and infer_task(refs[0]) == "numeric":
        return "numeric"  # one number (GSM8K's 72) keeps its numeric rules
    return inferred


def judge(
    answer: str | None,
    gold: Golds,
    task: str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    valid: bool | None = None,
    unfinished: bool = False,
    tolerance: float = DEFAULT_TOLERANCE,
    math_timeout_s: float = MATH_TIMEOUT_S,
    question: str | None = None,
) -> Verdict:
    """The rules' verdict on ``answer`` against ``gold`` (one answer or a list of accepted
    answers), as :func:`answerx.verify` would give it for an output whose extraction
    found ``answer``, ``valid`` and ``unfinished``.

    A run's answer may come from an LLM's structured reply rather than from
    ``extract``, so the extraction's findings are passed in, not found again: no
    answer from an unfinished output is ``unfinished``, and a wrong answer that is not
    well formed (``valid=False``) is ``malformed_answer``, as ``verify`` says them.
    The task is :func:`scoring_task`'s; ``question`` lets a short answer's surname
    rule apply. ``short_answer`` and ``text`` verdicts carry ``scores`` (em, f1,
    cover). Raises ConfigError for an unknown task; never raises for any answer text.

    >>> judge("K", "B", "multiple_choice", choices=["x", "y"], valid=False).reason
    'malformed_answer'
    >>> judge("Paris, France", ["Paris", "City of Light"]).scores.cover
    1.0
    """
    task = scoring_task(task, gold, choices, numbers)
    verdict = grade(
        answer,
        gold,
        task,
        choices=choices,
        numbers=numbers,
        tolerance=tolerance,
        time_limit_s=math_timeout_s,
        question=question,
    )
    update: dict[str, Any] = {}
    if verdict.reason == "no_answer" and unfinished:
        update["reason"] = "unfinished"
    elif verdict.reason == "different" and valid is False:
        update["reason"] = "malformed_answer"
    if task == "text" and verdict.reason != "unreadable_gold":
        update["scores"] = short_answer_scores(verdict.answer, clean_golds(gold))
    return verdict.model_copy(update=update) if update else verdict


def rules_verdict(item: ItemRecord, *, math_timeout_s: float = MATH_TIMEOUT_S) -> Verdict:
    """The rules' verdict on a stored item, with why they are unsure of it
    (``doubt``), from the item's stored fields only: a run and a later re-score agree.

    Beyond the comparison's own doubts, a finished output in which nothing was found
    (``nothing_extracted``) and an answer that a fallback rule guessed out of a longer
    output (``low_confidence_guess``) are unsure; a failed call or a cut-off output is
    not (there is nothing more to read).
    """
    answer = item.extracted_answer
    short = scoring_task(item.task, item.golds, item.choices, item.numbers) == "short_answer"
    if answer is None and item.unfinished and short:
        # As verify does: a short answer in a finished first sentence survives a later cut.
        answer = opening_answer(item.raw_output, clean_golds(item.golds), item.question)
    verdict = judge(
        answer,
        item.golds,
        item.task,
        choices=item.choices,
        numbers=item.numbers,
        valid=item.valid,
        unfinished=item.unfinished,
        math_timeout_s=math_timeout_s,
        question=item.question,
    )
    verdict = _raw_reply_guard(item, verdict)
    if verdict.doubt is None and verdict.reason != "unreadable_gold":
        doubt = _output_doubt(item)
        if doubt is not None:
            verdict = verdict.model_copy(update={"doubt": doubt})
    return verdict


# The short-answer guards that overturn a match (see answerx.grading.short_answer).
_GUARDS: Final = frozenset({"alias_negated", "several_candidates", "hedged_answer"})


def _raw_reply_guard(item: ItemRecord, verdict: Verdict) -> Verdict:
    """An LLM extractor's answer (``two_stage``) judged right, checked against the raw
    reply's guards: the extractor reads one answer out of "It could be Mercury, Venus,
    or Mars", but the reply offered three candidates, as ``verify`` on the reply says."""
    if verdict.correct is not True or item.method != "structured_llm":
        return verdict
    if scoring_task(item.task, item.golds, item.choices, item.numbers) != "short_answer":
        return verdict
    read = extract(item.raw_output, "short_answer").answer or item.raw_output
    raw = decide_short_answer(read, clean_golds(item.golds), item.question)
    if raw.how not in _GUARDS:
        return verdict
    return verdict.model_copy(
        update={"correct": False, "reason": "different", "how": raw.how, "matched_gold": None,
                "doubt": "guard_fired"}
    )  # fmt: skip


def _output_doubt(item: ItemRecord) -> Doubt | None:
    if item.error is not None or item.unfinished or not item.raw_output.strip():
        return None
    if item.extracted_answer is None:
        return "nothing_extracted"
    # A structured reply's confidence is the model's own word, not a fallback's guess.
    guessed = item.method != "structured_llm" and item.confidence < GUESS_CONFIDENCE
    if guessed and item.extracted_answer.strip() != item.raw_output.strip():
        return "low_confidence_guess"
    return None


def judge_request_for(item: ItemRecord, verdict: Verdict) -> JudgeRequest:
    """What a judge is asked about ``item``, whose rules' verdict ``verdict`` has a doubt:
    the question, the accepted answers, the whole output and what was extracted."""
    return judge_request(
        verdict,
        golds=clean_golds(item.golds),
        question=item.question,
        choices=item.choices,
        raw_output=item.raw_output,
        task=scoring_task(item.task, item.golds, item.choices, item.numbers),
    )


def stored_ruling(item: ItemRecord) -> JudgeRuling | None:
    """The judge's ruling stored with ``item`` (``verdict_detail["judge"]``), or None."""
    detail = item.verdict_detail or {}
    ruling = detail.get("judge")
    return JudgeRuling.model_validate(ruling) if isinstance(ruling, dict) else None


def verdict_fields(verdict: Verdict, *, aliases: bool = False) -> dict[str, Any]:
    """The :data:`~answerx.experiments.records.VERDICT_FIELDS` of an item judged
    ``verdict``: correct, reason, how, the measures, and in ``verdict_detail`` what the
    verdict says beyond them (with ``aliases``, an item of several accepted answers: the
    one that matched; why the rules were unsure; the judge's ruling); None when it says
    nothing more."""
    detail: dict[str, Any] = {}
    if aliases and verdict.matched_gold is not None:
        detail["matched_gold"] = verdict.matched_gold
    if verdict.doubt is not None:
        detail["doubt"] = verdict.doubt
    if verdict.judge is not None:
        detail["judge"] = verdict.judge.model_dump(mode="json")
    scores = verdict.scores
    return {
        "correct": verdict.correct,
        "reason": verdict.reason,
        "how": verdict.how,
        "em": None if scores is None else scores.em,
        "f1": None if scores is None else scores.f1,
        "cover": None if scores is None else scores.cover,
        "verdict_detail": detail or None,
    }


def score_item(
    item: ItemRecord, *, math_timeout_s: float = MATH_TIMEOUT_S, judge: Judge | None = None
) -> ItemRecord:
    """``item`` with its verdict filled in (a new record).

    Where the rules are unsure, a ruling stored with the item is applied again (no
    call); ``judge``, when given, is asked about an unsure item that has no ruling with
    a verdict yet (never asked, or its budget was spent, or the call failed).
    """
    verdict = rules_verdict(item, math_timeout_s=math_timeout_s)
    if verdict.doubt is not None:
        ruling = _ruling(item, verdict, judge)
        if ruling is not None:
            verdict = apply_ruling(verdict, ruling)
    return item.model_copy(update=verdict_fields(verdict, aliases=bool(item.answers)))


def _ruling(item: ItemRecord, verdict: Verdict, judge: Judge | None) -> JudgeRuling | None:
    stored = stored_ruling(item)
    if stored is not None and (stored.verdict is not None or judge is None):
        return stored
    if judge is None:
        return None
    return ask_judge(judge, judge_request_for(item, verdict))


def score_items(
    items: Iterable[ItemRecord],
    *,
    math_timeout_s: float = MATH_TIMEOUT_S,
    judge: Judge | None = None,
    judge_concurrency: int = 4,
) -> list[ItemRecord]:
    """Every item scored (see :func:`score_item`); without ``judge`` calls no model.
    A judge is asked about at most ``judge_concurrency`` items at a time."""
    if judge is None:
        return [score_item(item, math_timeout_s=math_timeout_s) for item in items]
    listed = list(items)
    with ThreadPoolExecutor(max_workers=max(1, judge_concurrency)) as threads:
        return list(
            threads.map(
                lambda item: score_item(item, math_timeout_s=math_timeout_s, judge=judge), listed
            )
        )


def stored_verdict(item: ItemRecord) -> Verdict | None:
    """The stored verdict of ``item`` as a :class:`Verdict` (correct, reason, how, doubt and
    the judge's ruling; None when unscored): what judge totals read."""
    if item.reason is None:
        return None
    detail = item.verdict_detail or {}
    return Verdict(
        correct=item.correct,
        reason=item.reason,
        how=item.how or "none",
        doubt=detail.get("doubt"),
        judge=stored_ruling(item),
    )


def judge_totals_of(items: Iterable[ItemRecord]) -> JudgeTotals:
    """What the judge did and cost over stored items: the residue, the items asked and
    judged, the verdicts it overturned, its calls, tokens and cost."""
    verdicts = (stored_verdict(item) for item in items)
    return judge_totals(v for v in verdicts if v is not None)


def not_asked(ruling: JudgeRuling) -> bool:
    """A ruling the judge gave without being asked: its budget was spent."""
    return (
        ruling.verdict is None
        and ruling.calls == 0
        and ruling.confidence is None
        and not ruling.cached
    )


class ScoreStore(Protocol):
    """The part of the results store that :func:`score_run` needs."""

    def items(self, run_id: str) -> Iterator[ItemRecord]: ...

    def update_verdicts(self, run_id: str, items: Iterable[ItemRecord]) -> Any:
        """Store the verdict fields of ``items`` (found by key) in run ``run_id``."""
        ...


def score_run(
    store: ScoreStore,
    run_id: str,
    *,
    math_timeout_s: float = MATH_TIMEOUT_S,
    judge: Judge | None = None,
    judge_concurrency: int = 4,
) -> list[ItemRecord]:
    """Re-score every item of a stored run and save the verdicts; returns the scored items.

    Without ``judge`` no model is called: the rules decide, and the judge's rulings
    stored with the run stand where the rules are still unsure. With ``judge`` (e.g.
    :func:`answerx.experiments.judging.judge_for_scoring`), the unsure items without a
    ruling are put to it too.
    """
    scored = score_items(
        store.items(run_id),
        math_timeout_s=math_timeout_s,
        judge=judge,
        judge_concurrency=judge_concurrency,
    )
    store.update_verdicts(run_id, scored)
    return scored
