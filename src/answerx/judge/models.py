"""What the LLM judge returns: one Pydantic verdict model per task, with cleaning validators.

Every model has the same four fields (``stated_answer``, ``reason``, ``verdict``,
``confidence``; reason before verdict, so the model writes why before it decides);
what differs per task is the rule that makes a reply correct, written into the
schema the provider sees. The validators take what small models write
(``"Correct."``, ``"wrong"``, ``"80%"``, ``null``) and turn it into the field's
value, or reject it so that the manager re-asks with the reason (a bare confidence
outside [0, 1], such as ``85``, is re-asked, never rescaled).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from answerx.grading.judgement import JUDGE_VERDICTS, JudgeVerdict

__all__ = ["TASK_RULES", "Judgement", "judgement_model"]

_MAX_REASON_CHARS: Final = 400
_MAX_ANSWER_CHARS: Final = 200

_VERDICT_WORDS: Final[dict[str, JudgeVerdict]] = {
    **dict.fromkeys(
        ["correct", "right", "true", "yes", "equivalent", "accept", "accepted", "match"],
        "correct",
    ),
    **dict.fromkeys(
        [
            "incorrect",
            "wrong",
            "false",
            "no",
            "different",
            "reject",
            "rejected",
            "mismatch",
            "notcorrect",
        ],
        "incorrect",
    ),
    **dict.fromkeys(
        [
            "noanswer",
            "none",
            "abstain",
            "abstained",
            "unanswered",
            "refusal",
            "refused",
            "notanswered",
            "unknown",
        ],
        "no_answer",
    ),
}
_NOT_LETTERS = re.compile(r"[^a-z]")
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")
_CONFIDENCE_WORDS: Final = {"high": 0.9, "medium": 0.6, "moderate": 0.6, "low": 0.3}


class Judgement(BaseModel):
    """A judge's verdict on one reply against the accepted answers."""

    model_config = ConfigDict(extra="ignore")

    stated_answer: str = Field(
        default="",
        description="The final answer the reply commits to, copied briefly; empty if none.",
    )
    reason: str = Field(description="One or two sentences: why the verdict.")
    verdict: JudgeVerdict = Field(
        description="correct, incorrect, or no_answer (the reply commits to no answer)."
    )
    confidence: float = Field(
        ge=0.0, le=1.0, description="How sure the verdict is, from 0.0 to 1.0."
    )

    @field_validator("verdict", mode="before")
    @classmethod
    def _clean_verdict(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return "correct" if value else "incorrect"
        if not isinstance(value, str):
            return value
        word = _NOT_LETTERS.sub("", value.lower())
        if word in _VERDICT_WORDS:
            return _VERDICT_WORDS[word]
        raise ValueError(f"verdict must be one of {', '.join(JUDGE_VERDICTS)}; got {value!r}")

    @field_validator("confidence", mode="before")
    @classmethod
    def _clean_confidence(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip().lower()
            if text in _CONFIDENCE_WORDS:
                return _CONFIDENCE_WORDS[text]
            percent = _PERCENT.match(text)
            value = float(percent.group(1)) / 100 if percent else text
        # A bare number outside [0, 1] ("85", "-1") fails the field's bounds, so the judge
        # is asked again: rescaling it would guess what the judge meant.
        return value

    @field_validator("reason", "stated_answer", mode="before")
    @classmethod
    def _clean_text(cls, value: Any, info: Any) -> Any:
        if value is None:
            return ""
        if not isinstance(value, str):
            return value
        text = " ".join(value.split())
        limit = _MAX_REASON_CHARS if info.field_name == "reason" else _MAX_ANSWER_CHARS
        return text if len(text) <= limit else text[: limit - 1] + "…"


#: What makes a reply correct, per task: written into the verdict model's schema and
#: into the prompt.
TASK_RULES: Final[dict[str, str]] = {
    "short_answer": (
        "correct when the reply commits to one of the accepted answers or the same entity, "
        "date or quantity written another way (an alias, another spelling, an abbreviation, "
        "a person's surname when a person is asked for); incorrect when it commits to "
        "something else, or names the accepted answer only to deny it; no_answer when it "
        "declines, or offers several candidates or a guess without committing to one"
    ),
    "math": (
        "correct when the final value the reply commits to is mathematically equal to an "
        "accepted answer in any equivalent form (fractions, decimals, simplified or not, "
        "sets in any order); incorrect when it commits to another value; no_answer when it "
        "commits to none"
    ),
    "numeric": (
        "correct when the final number the reply commits to equals an accepted answer "
        "(units, thousands separators and trailing zeros do not matter); incorrect when it "
        "commits to another number; no_answer when it commits to none"
    ),
    "multiple_choice": (
        "correct when the option the reply finally chooses (by letter or by its text) is an "
        "accepted answer; incorrect when it chooses another; no_answer when it chooses none "
        "or several"
    ),
    "boolean": (
        "correct when the reply's final yes/no (true/false) agrees with the accepted answer; "
        "incorrect when it says the opposite; no_answer when it commits to neither"
    ),
    "game24": (
        "correct when the final expression uses each given number exactly once with + - * / "
        "and equals 24; incorrect otherwise; no_answer when it gives no expression"
    ),
    "text": (
        "correct when the reply's final answer says the same as an accepted answer; "
        "incorrect when it says something else; no_answer when it gives no answer"
    ),
}
TASK_RULES["auto"] = TASK_RULES["text"]


@functools.cache
def judgement_model(task: str) -> type[Judgement]:
    """The verdict model of ``task``: :class:`Judgement` with the task's rule written into
    the ``verdict`` field's description (an unknown task gets the ``text`` rule).

    >>> judgement_model("math").model_fields["verdict"].description.startswith("correct when")
    True
    """
    rule = TASK_RULES.get(task, TASK_RULES["text"])
    name = "".join(part.title() for part in task.split("_")) + "Judgement"
    model: type[Judgement] = create_model(
        name,
        __base__=Judgement,
        __doc__=f"A judge's verdict on one {task.replace('_', ' ')} reply: {rule}.",
        verdict=(JudgeVerdict, Field(description=rule + ".")),
    )
    return model
