"""The result type of grading: :class:`Verdict`, and the names of its reasons and predicates."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from answerx.extraction.models import Extraction
from answerx.grading.judgement import Doubt, JudgeRuling
from answerx.grading.qa_metrics import ShortAnswerScores

__all__ = ["HOWS", "REASONS", "How", "Reason", "Verdict"]

#: Why a verdict came out as it did.
#:
#: - ``equivalent``: the answer means the gold answer (``correct=True``);
#: - ``different``: it does not (``correct=False``);
#: - ``no_answer``: the output states no answer (``correct=False``);
#: - ``unfinished``: the output was cut off before it stated one (``correct=False``);
#: - ``malformed_answer``: the stated answer is not well formed for the task (a Game-of-24
#:   expression that reuses a number, a letter that is not an option; ``correct=False``);
#: - ``unreadable_gold``: the gold answer is missing or cannot be read (``correct=None``,
#:   the only verdict that is neither right nor wrong);
#: - ``timeout``: the comparison overran its time limit, or the worker process running
#:   it died (``correct=False``, as math-verify itself counts a timeout), or math-verify
#:   is missing or too old here (``how="math_verify_unavailable"``).
Reason = Literal[
    "equivalent",
    "different",
    "no_answer",
    "unfinished",
    "malformed_answer",
    "unreadable_gold",
    "timeout",
]
REASONS: tuple[str, ...] = get_args(Reason)

#: The predicate that decided a verdict.
#:
#: - ``exact``: the cleaned answer and gold are the same string;
#: - ``normalised_math``: the same LaTeX after dropping spacing, ``$``, ``\\left``/``\\right``
#:   and ``\\dfrac``/``\\tfrac`` spellings;
#: - ``fraction``: both are numbers, compared exactly as fractions (``0.5`` = ``1/2`` =
#:   ``\\frac{1}{2}``, ``$1,234.50`` = ``1234.5``);
#: - ``numeric_tolerance``: both are numbers, not exactly equal, compared within the
#:   tolerance (relative to the gold value, absolute below 1);
#: - ``symbolic_fast``: the fast rung before math-verify (:mod:`answerx.grading.symbolic`),
#:   two values or expressions: exactly as rationals and surds (``2\\sqrt{5}`` =
#:   ``\\sqrt{20}``), else to 50 digits (``\\sin\\frac{\\pi}{6}`` = ``\\frac12``); in variables, as
#:   rational functions at fixed random points (``(x-1)^2`` = ``x^2-2x+1``);
#: - ``symbolic_set``: the fast rung, sets and lists of values compared without order
#:   (``-1,0,1`` = ``\\{1,0,-1\\}`` = ``x = -1, x = 0, x = 1``);
#: - ``symbolic_tuple``: the fast rung, tuples and points compared in order (the gold is
#:   a tuple: ``(1, 2)`` ≠ ``(2, 1)``);
#: - ``symbolic_interval``: the fast rung, intervals, unions and one-variable inequalities as
#:   sets of numbers (``k < -5`` = ``(-\\infty, -5)``, ``x \\ge 3`` = ``[3, \\infty)``);
#: - ``symbolic_equation``: the fast rung, an equation reduced to its value (``y = 2x+1`` =
#:   ``2x+1``) or a function compared under another variable name (``f(n) = n`` = ``f(z) = z``);
#: - ``math_verify``: math-verify's symbolic and numeric equivalence (sets, intervals,
#:   equations, expressions), for what the fast rung cannot tell;
#: - ``math_verify_unavailable``: math-verify was needed but is missing, too old or
#:   broken in this environment (reason ``timeout``: nothing could be compared);
#: - ``letter``: multiple choice, by the choice letter (``B``, ``(B)``, ``Option B``);
#: - ``option_text``: multiple choice, the answer is an option's text;
#: - ``boolean``: yes/no/true/false in any spelling;
#: - ``normalised_text``: SQuAD-style text match (case, punctuation, articles, spacing);
#: - ``game24``: the expression uses each given number once and makes 24 (evaluated exactly
#:   on fractions, never with ``eval``);
#: - ``exact_match``, ``variant_match``, ``item_set``, ``cover_match``, ``core_match``,
#:   ``words_match``, ``name_match``, ``surname_match``, ``part_match``, ``sentence_match``
#:   (equivalent) and
#:   ``refusal``, ``alias_negated``, ``several_candidates``, ``hedged_answer``, ``no_match``
#:   (not): the ``short_answer`` rules, in that order (see :mod:`answerx.grading.short_answer`);
#: - ``llm_judge``: the rules were unsure (``Verdict.doubt``) and a judge decided
#:   (``Verdict.judge`` holds its reason and what it cost);
#: - ``none``: nothing was compared (no answer, unfinished output, unreadable gold).
How = Literal[
    "exact",
    "normalised_math",
    "fraction",
    "numeric_tolerance",
    "symbolic_fast",
    "symbolic_set",
    "symbolic_tuple",
    "symbolic_interval",
    "symbolic_equation",
    "math_verify",
    "math_verify_unavailable",
    "letter",
    "option_text",
    "boolean",
    "normalised_text",
    "game24",
    "exact_match",
    "variant_match",
    "item_set",
    "cover_match",
    "core_match",
    "words_match",
    "name_match",
    "surname_match",
    "part_match",
    "sentence_match",
    "refusal",
    "alias_negated",
    "several_candidates",
    "hedged_answer",
    "no_match",
    "llm_judge",
    "none",
]
HOWS: tuple[str, ...] = get_args(How)


class Verdict(BaseModel):
    """Whether one answer is right, why, and how that was decided.

    ``correct`` is None only for ``reason="unreadable_gold"``: an empty answer
    never equals an empty gold, and an output that states nothing is wrong.
    """

    model_config = ConfigDict(frozen=True)

    correct: bool | None = Field(description="True/False; None only when the gold is unreadable.")
    reason: Reason = Field(description="Why: equivalent, different, no_answer, unfinished, ...")
    how: str = Field(description="The predicate that decided (see answerx.grading.HOWS).")
    answer: str | None = Field(default=None, description="The answer that was judged (cleaned).")
    gold: str | None = Field(
        default=None,
        description=(
            "The gold answer it was judged against: with several accepted answers, the one "
            "that matched, else the first."
        ),
    )
    matched_gold: str | None = Field(
        default=None,
        description=(
            "The accepted answer (alias) the answer matched; None when none did, or when a "
            "judge decided."
        ),
    )
    extraction: Extraction | None = Field(
        default=None, description="The extraction the answer came from (verify only)."
    )
    elapsed_s: float = Field(default=0.0, ge=0.0, description="Seconds spent on this verdict.")
    scores: ShortAnswerScores | None = Field(
        default=None,
        description="short_answer: exact match, token F1 and cover match, as QA work reports them.",
    )
    doubt: Doubt | None = Field(
        default=None,
        description=(
            "Why the rules could not decide with confidence (a judge is asked only then); "
            "None when they could."
        ),
    )
    judge: JudgeRuling | None = Field(
        default=None, description="What the judge said and cost, when one was asked."
    )

    @property
    def reward(self) -> float:
        """1.0 when correct, else 0.0 (an unreadable gold counts 0.0 too)."""
        return 1.0 if self.correct else 0.0
