"""The residue: items the rules cannot decide with confidence, and asking a judge about them.

Rules decide first, always. An item joins the residue (``Verdict.doubt``) when a
finished output yields no answer, when the answer is a fallback's guess out of a longer
output (:func:`output_doubt`: the one guess rule, which ``extract --llm`` and the
approaches read again by too, :func:`extraction_in_doubt`), when a short answer's guards
fired or its measures disagree, or when a math comparison could not finish. Only those
items reach a judge, and a judge that cannot answer (budget spent, provider down) leaves
the rules' verdict as it was.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from answerx.errors import AnswerxError
from answerx.extraction.models import Extraction
from answerx.grading.judgement import Doubt, Judge, JudgeRequest, JudgeRuling
from answerx.grading.models import Reason, Verdict
from answerx.redactor import describe_failure

__all__ = [
    "GUESS_CONFIDENCE",
    "JudgeTotals",
    "apply_ruling",
    "ask_judge",
    "consult",
    "extraction_in_doubt",
    "judge_request",
    "judge_totals",
    "output_doubt",
]

log = logging.getLogger("answerx.grading")

#: An extraction below this confidence is a fallback's guess (last number 0.30, last
#: line 0.20; every explicit marker is 0.85 or more).
GUESS_CONFIDENCE: Final = 0.35

_REASON_OF: Final[dict[str, Reason]] = {
    "correct": "equivalent",
    "incorrect": "different",
    "no_answer": "no_answer",
}


def output_doubt(extraction: Extraction, reason: str) -> Doubt | None:
    """Why the rules are unsure of a verdict ``reason`` because of what ``extraction``
    found: ``nothing_extracted`` when a finished output that holds something yields no
    answer, ``low_confidence_guess`` when the answer is a guess (:func:`_guessed`);
    None otherwise, and for an unreadable gold (no judge can help there). A cut-off or
    empty output (a failed call's) holds nothing more for a judge to read.

    >>> from answerx.extraction import extract
    >>> output_doubt(extract("I thought about it."), "no_answer")
    'nothing_extracted'
    >>> output_doubt(extract("blah blah 42"), "different"), output_doubt(extract("42"), "different")
    ('low_confidence_guess', None)
    """
    if reason == "unreadable_gold":
        return None
    if extraction.answer is None:
        if extraction.unfinished or not extraction.raw_output.strip():
            return None
        return "nothing_extracted"
    return "low_confidence_guess" if _guessed(extraction, GUESS_CONFIDENCE) else None


def _guessed(extraction: Extraction, below: float) -> bool:
    """The answer is a rule's pick below ``below`` confidence out of a longer, finished
    output. An output that is the answer and nothing else (``Paris``, ``18``) is no
    guess whatever rule read it: there was nothing else to read; a structured reply's
    confidence is the model's own word, not a fallback's; a cut-off output holds nothing
    more to read."""
    if extraction.confidence >= below or extraction.unfinished:
        return False
    if extraction.method == "structured_llm":
        return False
    whole = extraction.raw_output.strip()
    if not whole:  # an answer kept without its output: nothing longer it was picked from
        return False
    read = (extraction.candidate, extraction.answer)
    return not any(text is not None and text.strip() == whole for text in read)


def judge_request(
    verdict: Verdict,
    *,
    golds: Sequence[str],
    question: str | None = None,
    choices: Sequence[str] | None = None,
    raw_output: str | None = None,
    task: str | None = None,
) -> JudgeRequest:
    """What a judge is asked about ``verdict`` (which must have a ``doubt``): ``golds`` are
    the accepted answers (cleaned); ``raw_output`` and ``task`` default to the verdict's
    extraction's (a verdict of ``grade`` has none: pass the output the answer came from)."""
    if verdict.doubt is None:
        raise ValueError("only a verdict the rules were unsure of (a doubt) goes to a judge")
    extraction = verdict.extraction
    if raw_output is None:
        raw_output = extraction.raw_output if extraction is not None else (verdict.answer or "")
    if task is None:
        task = extraction.task if extraction is not None else "auto"
    return JudgeRequest(
        task=task,
        raw_output=raw_output,
        answer=verdict.answer,
        golds=tuple(golds),
        question=question,
        choices=tuple(choices) if choices else None,
        doubt=verdict.doubt,
        rules_how=verdict.how,
        rules_correct=verdict.correct,
    )


def apply_ruling(verdict: Verdict, ruling: JudgeRuling, *, started: float | None = None) -> Verdict:
    """``verdict`` after ``ruling``: the judge's verdict replaces the rules'
    (``how="llm_judge"``); a ruling without a verdict (not asked, failed, unsure) is
    recorded and the rules' verdict stands. ``started`` (``perf_counter``) resets
    ``elapsed_s`` to include the judge's time."""
    ruling = ruling.model_copy(update={"rules_how": verdict.how, "rules_correct": verdict.correct})
    update: dict[str, object] = {"judge": ruling}
    if ruling.verdict is not None:
        reason = _REASON_OF[ruling.verdict]
        update |= {
            "correct": reason == "equivalent",
            "reason": reason,
            "how": "llm_judge",
            "matched_gold": None,
        }
    if started is not None:
        update["elapsed_s"] = time.perf_counter() - started
    return verdict.model_copy(update=update)


def ask_judge(judge: Judge, request: JudgeRequest) -> JudgeRuling:
    """``judge``'s ruling on ``request``; a judge that raises anyway (it should not) gives
    a ruling without a verdict, so the rules' verdict stands."""
    try:
        return judge.judge(request)
    except AnswerxError as exc:
        return JudgeRuling(verdict=None, reason=f"judge failed: {describe_failure(exc)}")


def extraction_in_doubt(extraction: Extraction, min_confidence: float) -> bool:
    """Whether an LLM should read ``extraction``'s output again (``two_stage``'s rule for
    saved outputs): a finished output with no answer, or an answer below
    ``min_confidence`` picked out of a longer output. A cut-off output holds nothing
    more to read; an output that is the answer alone is no guess.

    >>> from answerx.extraction import extract
    >>> extraction_in_doubt(extract("blah blah 42"), 0.85), extraction_in_doubt(extract("42"), 0.85)
    (True, False)
    """
    if extraction.answer is None:
        return not extraction.unfinished
    return _guessed(extraction, min_confidence)


def consult(
    verdict: Verdict,
    judge: Judge,
    *,
    golds: Sequence[str],
    question: str | None = None,
    choices: Sequence[str] | None = None,
    started: float | None = None,
) -> Verdict:
    """``verdict`` after asking ``judge`` about it, when ``verdict.doubt`` is set; ``golds``
    are the accepted answers (cleaned).

    The judge's verdict replaces the rules' (``how="llm_judge"``); a ruling without
    a verdict (not asked, or failed) is recorded and the rules' verdict stands.
    """
    if verdict.doubt is None:
        return verdict
    request = judge_request(verdict, golds=golds, question=question, choices=choices)
    return apply_ruling(verdict, ask_judge(judge, request), started=started)


class JudgeTotals(BaseModel):
    """What judging cost over many verdicts: for a file summary, a run, a report."""

    model_config = ConfigDict(frozen=True)

    items: int = Field(description="Verdicts counted.")
    doubtful: int = Field(description="Verdicts the rules were unsure of (the residue).")
    asked: int = Field(
        description="Residue items a judge was asked about within its budget (a call made, "
        "or its cache answered)."
    )
    judged: int = Field(description="Items the judge ruled on (its verdict replaced the rules').")
    overturned: int = Field(description="Judged items whose correctness the judge changed.")
    not_judged: int = Field(
        description="Rulings without a verdict (budget spent, provider error, unsure)."
    )
    cached: int = Field(description="Rulings answered from the judge's cache.")
    calls: int = Field(description="Requests paid for.")
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = Field(description="Summed cost; None when any cost is unknown.")
    failed: int = Field(default=0, description="Calls made that failed (no ruling came back).")
    failure: str | None = Field(default=None, description="Why the last failed call failed.")

    @property
    def failed_on_all(self) -> bool:
        """Every question asked failed: the judge is broken (a key, a server), not unsure."""
        return self.failed > 0 and self.failed == self.asked

    @property
    def residue_share(self) -> float:
        """The share of items in the residue (0.0 for none)."""
        return self.doubtful / self.items if self.items else 0.0


def judge_totals(verdicts: Iterable[Verdict]) -> JudgeTotals:
    """Sum what the judge did and cost over ``verdicts``.

    >>> judge_totals([]).asked
    0
    """
    items = doubtful = asked = judged = overturned = not_judged = cached = calls = 0
    tokens_in = tokens_out = 0
    cost: float | None = 0.0
    failed = 0
    failure: str | None = None
    for v in verdicts:
        items += 1
        doubtful += v.doubt is not None
        ruling = v.judge
        if ruling is None:
            continue
        # Asked: a call was made (failed ones too) or the cache answered; a question
        # the budget refused was never asked.
        asked += ruling.calls > 0 or ruling.cached or ruling.verdict is not None
        judged += ruling.verdict is not None
        not_judged += ruling.verdict is None
        overturned += ruling.verdict is not None and v.correct != ruling.rules_correct
        cached += ruling.cached
        calls += ruling.calls
        if ruling.calls and ruling.verdict is None and ruling.confidence is None:
            failed += 1  # a call made, and no ruling came back: it failed
            failure = ruling.reason
        tokens_in += ruling.input_tokens
        tokens_out += ruling.output_tokens
        if ruling.calls and ruling.cost_usd is None:
            cost = None
        elif cost is not None and ruling.cost_usd is not None:
            cost += ruling.cost_usd
    return JudgeTotals(
        items=items, doubtful=doubtful, asked=asked, judged=judged, overturned=overturned,
        not_judged=not_judged, cached=cached, calls=calls, input_tokens=tokens_in,
        output_tokens=tokens_out, cost_usd=cost, failed=failed, failure=failure,
    )  # fmt: skip
