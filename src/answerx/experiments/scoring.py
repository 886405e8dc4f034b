"""Scoring: the verdict on each answer of a run, in grading's own words.

:func:`rules_verdict` hands an item's stored extraction (:func:`stored_extraction`:
the row's ``extraction`` column, or one rebuilt from the columns of a run stored before
it) to :func:`answerx.grading.decide`, the one place a verdict is made, so a run's
verdict is ``verify``'s; grading's ``reason`` and ``how`` are what runs store and
reports group by. :func:`score_item` fills an item's verdict fields, :func:`score_items`
many, :func:`score_run` re-scores a stored run.

Open-domain questions: an ``auto`` item whose accepted answers are short texts (one or
a list of aliases) is scored as ``short_answer`` (:func:`item_spec`: grading's one task
inference, read as open-domain), and every ``short_answer`` or ``text`` item gets the
three measures QA work reports (``em``, ``f1``, ``cover``) beside its verdict.

The residue: where the rules are unsure (``Verdict.doubt``: a guard fired, the
measures disagree, a finished output with no answer found, a fallback's guess), an
LLM judge may rule (:mod:`answerx.judge`). A run asks it (the config's ``judge:``);
its ruling is stored in ``verdict_detail["judge"]``, and a re-score reapplies it
without calling anything while the rules are still unsure of that item. Passing a
judge to :func:`score_run` asks it about the residue items that have no ruling yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Final, Protocol

from answerx.experiments.records import ItemRecord
from answerx.extraction import Extraction, clean_answer, extract
from answerx.extraction.spec import DEFAULT_TIME_LIMIT_S, AnswerSpec
from answerx.extraction.tasks import check_task
from answerx.grading import Judge, JudgeRequest, JudgeRuling, Verdict, decide
from answerx.grading.golds import check_finite_gold, clean_golds, spec_for
from answerx.grading.qa_metrics import short_answer_scores
from answerx.grading.residue import (
    JudgeTotals,
    apply_ruling,
    ask_judge,
    judge_request,
    judge_totals,
)
from answerx.grading.short_answer import decide_short_answer

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "item_spec",
    "judge_request_for",
    "judge_totals_of",
    "not_asked",
    "rules_verdict",
    "score_item",
    "score_items",
    "score_run",
    "stored_extraction",
    "stored_ruling",
    "stored_verdict",
    "verdict_fields",
]

# The tasks whose items get em / f1 / cover: answers that are words.
_MEASURED: Final = frozenset({"short_answer", "text"})


def item_spec(item: ItemRecord, *, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> AnswerSpec:
    """The spec ``item`` is scored by: its own task, except that ``auto`` is read from
    its golds as open-domain (:func:`answerx.grading.golds.infer_task`): accepted answers
    that are short texts are ``short_answer`` (as the search agents answer them), whether
    the data gives one answer or a list (a date, ``330 m``, ``3.5 million`` too); a
    single number stays ``numeric``, LaTeX ``math``, a letter ``multiple_choice``.
    Raises ConfigError for an unknown task and InputError for a gold that is not finite.
    """
    task = check_task(item.task)
    golds = item.golds
    spec = spec_for(
        task, golds, clean_golds(golds), item.choices, item.numbers,
        time_limit_s=time_limit_s, open_domain=True,
    )  # fmt: skip
    check_finite_gold(golds, task=spec.task)
    return spec


def stored_extraction(item: ItemRecord, task: str | None = None) -> Extraction:
    """What extraction found in ``item``'s output: the row's stored ``extraction`` (the
    whole :class:`~answerx.extraction.Extraction`, as JSON) when it has one, else one
    rebuilt from the columns a run stored before that (answer, candidate, span, method,
    confidence, valid, problem, unfinished), with ``task`` (default: the item's). An
    item whose call failed has an empty output, in which nothing was found. The answer is
    cleaned as ``grade`` cleans a bare one: an LLM's structured reply may hold "The
    answer is Paris." where ``extract`` would have read ``Paris``.
    """
    stored = getattr(item, "extraction", None)
    found: Extraction | None = None
    if isinstance(stored, Extraction):
        found = stored
    elif isinstance(stored, str) and stored:
        found = Extraction.model_validate_json(stored)
    elif isinstance(stored, dict):
        found = Extraction.model_validate(stored)
    if found is not None:
        return found.model_copy(update={"answer": _cleaned(found.answer)})
    return Extraction(
        answer=_cleaned(item.extracted_answer),
        method=item.method,
        confidence=item.confidence,
        task=check_task(task or item.task),
        candidate=item.candidate,
        span=item.span,
        raw_output=item.raw_output,
        valid=item.valid,
        problem=item.problem,
        unfinished=item.unfinished,
    )


def _cleaned(answer: str | None) -> str | None:
    return (clean_answer(answer) or None) if answer else None


def rules_verdict(item: ItemRecord, *, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Verdict:
    """The rules' verdict on a stored item, with why they are unsure of it (``doubt``),
    from the item's stored fields only, so a run and a later re-score agree: grading's
    :func:`~answerx.grading.decide` on :func:`stored_extraction`, as ``verify`` gives it
    for the same output. A run's answer may come from an LLM's structured reply rather
    than from ``extract``: what the extraction found (a malformed answer, an unfinished
    output) is read from the row, not found again. ``short_answer`` and ``text``
    verdicts carry ``scores`` (em, f1, cover). Never raises for any answer text.
    """
    spec = item_spec(item, time_limit_s=time_limit_s)
    refs = clean_golds(item.golds)
    verdict = decide(stored_extraction(item, spec.task), refs, spec, question=item.question)
    verdict = _raw_reply_guard(item, verdict, spec)
    # The measures too where the verdict has none (a text item, no answer at all).
    measured = spec.task in _MEASURED and verdict.reason != "unreadable_gold"
    if measured and (spec.task == "text" or verdict.scores is None):
        scores = short_answer_scores(verdict.answer, refs)
        verdict = verdict.model_copy(update={"scores": scores})
    return verdict


# The short-answer guards that overturn a match (see answerx.grading.short_answer).
_GUARDS: Final = frozenset({"alias_negated", "several_candidates", "hedged_answer"})


def _raw_reply_guard(item: ItemRecord, verdict: Verdict, spec: AnswerSpec) -> Verdict:
    """An LLM extractor's answer (``two_stage``) judged right, checked against the raw
    reply's guards: the extractor reads one answer out of "It could be Mercury, Venus,
    or Mars", but the reply offered three candidates, as ``verify`` on the reply says."""
    if verdict.correct is not True or item.method != "structured_llm":
        return verdict
    if spec.task != "short_answer":
        return verdict
    read = extract(item.raw_output, "short_answer").answer or item.raw_output
    raw = decide_short_answer(read, clean_golds(item.golds), item.question)
    if raw.how not in _GUARDS:
        return verdict
    return verdict.model_copy(
        update={"correct": False, "reason": "different", "how": raw.how, "matched_gold": None,
                "doubt": "guard_fired"}
    )  # fmt: skip


def judge_request_for(item: ItemRecord, verdict: Verdict) -> JudgeRequest:
    """What a judge is asked about ``item``, whose rules' verdict ``verdict`` has a doubt:
    the question, the accepted answers, the whole output and what was extracted."""
    return judge_request(
        verdict,
        golds=clean_golds(item.golds),
        question=item.question,
        choices=item.choices,
        raw_output=item.raw_output,
        task=item_spec(item).task,
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
    item: ItemRecord, *, time_limit_s: float = DEFAULT_TIME_LIMIT_S, judge: Judge | None = None
) -> ItemRecord:
    """``item`` with its verdict filled in (a new record).

    Where the rules are unsure, a ruling stored with the item is applied again (no
    call); ``judge``, when given, is asked about an unsure item that has no ruling with
    a verdict yet (never asked, or its budget was spent, or the call failed).
    """
    verdict = rules_verdict(item, time_limit_s=time_limit_s)
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
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    judge: Judge | None = None,
    judge_concurrency: int = 4,
) -> list[ItemRecord]:
    """Every item scored (see :func:`score_item`); without ``judge`` calls no model.
    A judge is asked about at most ``judge_concurrency`` items at a time."""
    if judge is None:
        return [score_item(item, time_limit_s=time_limit_s) for item in items]
    listed = list(items)
    with ThreadPoolExecutor(max_workers=max(1, judge_concurrency)) as threads:
        return list(
            threads.map(
                lambda item: score_item(item, time_limit_s=time_limit_s, judge=judge), listed
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
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
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
        time_limit_s=time_limit_s,
        judge=judge,
        judge_concurrency=judge_concurrency,
    )
    store.update_verdicts(run_id, scored)
    return scored
