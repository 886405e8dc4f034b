"""What grading asks a judge, and what a judge answers: the :class:`Judge` protocol.

Grading (this layer) decides by rules and knows when its rules are unsure (a
``doubt``). Only then, and only when the caller passes a judge, it asks one. The
judge is any object with a ``judge(request) -> JudgeRuling`` method: the LLM judge
of :mod:`answerx.judge` (which sits above the structured layer and so cannot live
here), a human-labelled lookup, or a test double.
"""

from __future__ import annotations

from typing import Final, Literal, Protocol, get_args, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DEFAULT_JUDGE_MIN_CONFIDENCE",
    "DOUBTS",
    "JUDGE_VERDICTS",
    "Doubt",
    "Judge",
    "JudgeRequest",
    "JudgeRuling",
    "JudgeVerdict",
]

#: Why the rules could not decide with confidence (the only items a judge sees):
#:
#: - ``nothing_extracted``: a finished output in which extraction found no answer;
#: - ``low_confidence_guess``: the answer is a fallback rule's guess picked out of a
#:   longer output (last number, last line), not a marked answer;
#: - ``cover_f1_disagree``: short answer: a reply that shares most words with an
#:   accepted answer without containing it, or contains it inside a long text;
#: - ``guard_fired``: short answer: an accepted answer appears, but negated, among
#:   other candidates, or hedged;
#: - ``comparison_timeout``: the math comparison overran its time limit;
#: - ``math_unreadable``: math-verify could not read the gold, so text decided.
Doubt = Literal[
    "nothing_extracted",
    "low_confidence_guess",
    "cover_f1_disagree",
    "guard_fired",
    "name_unclear",
    "comparison_timeout",
    "math_unreadable",
]
DOUBTS: tuple[str, ...] = get_args(Doubt)

#: A judge's ruling below this confidence is not used: the rules' verdict stands. A
#: judge's "low" (0.3) is a guess no better than the rules' own; "medium" (0.6) is used.
DEFAULT_JUDGE_MIN_CONFIDENCE: Final = 0.5

#: A judge's verdict: the reply gives an accepted answer, gives another one, or gives none.
JudgeVerdict = Literal["correct", "incorrect", "no_answer"]
JUDGE_VERDICTS: tuple[str, ...] = get_args(JudgeVerdict)


class JudgeRequest(BaseModel):
    """One item the rules could not decide, as a judge sees it."""

    model_config = ConfigDict(frozen=True)

    task: str = Field(description="The task the item was graded as (short_answer, math, ...).")
    raw_output: str = Field(description="The model's whole output.")
    answer: str | None = Field(description="The answer the rules extracted (None: none).")
    golds: tuple[str, ...] = Field(description="The accepted answers.")
    question: str | None = Field(default=None, description="The question, when known.")
    choices: tuple[str, ...] | None = Field(default=None, description="Options, if any.")
    doubt: Doubt = Field(description="Why the rules are unsure.")
    rules_how: str = Field(description="The rule that decided before the judge was asked.")
    rules_correct: bool | None = Field(description="The rules' verdict.")


class JudgeRuling(BaseModel):
    """What a judge said about one item, and what asking it cost.

    ``verdict`` is None when the judge was not asked after all (its budget was spent)
    or could not answer (a provider error): then the rules' verdict stands and
    ``reason`` says why.
    """

    model_config = ConfigDict(frozen=True)

    verdict: JudgeVerdict | None = Field(description="correct, incorrect, no_answer; or None.")
    reason: str = Field(description="The judge's short reason, or why it did not judge.")
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    judge: str = Field(default="", description="Who judged: provider/model, or a name.")
    calls: int = Field(default=0, ge=0, description="Requests paid for (0 when cached).")
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cost_usd: float | None = Field(
        default=None, ge=0.0, description="What the calls cost; None when no price is known."
    )
    cached: bool = Field(default=False, description="Answered from the judge's cache.")
    rules_how: str | None = Field(
        default=None, description="The rule the judge was asked after (set by grading)."
    )
    rules_correct: bool | None = Field(default=None, description="The rules' own verdict.")


@runtime_checkable
class Judge(Protocol):
    """Anything that can rule on an item the rules could not decide.

    ``judge`` must not raise for a failed provider call: it returns a ruling whose
    ``verdict`` is None, so the rules' verdict stands. It may be called from several
    threads at once (``verify_batch``).
    """

    def judge(self, request: JudgeRequest) -> JudgeRuling:
        """The ruling on ``request``."""
        ...
