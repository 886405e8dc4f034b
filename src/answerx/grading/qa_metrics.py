"""The three measures open-domain QA work reports per item: exact match, token F1, cover match.

Defined as the field computes them, so that a figure here is the figure a paper
reports on the same strings:

- ``flashrag`` (the default; Search-R1's ``qa_em.py`` is the same for EM and cover):
  SQuAD normalisation (lower case, punctuation deleted, articles ``a``/``an``/``the``
  dropped, spaces collapsed); EM: the normalised reply equals a normalised accepted
  answer; cover (FlashRAG's ``acc``, Search-R1's ``subem``): a normalised accepted
  answer is a *substring* of the normalised reply; F1: HotpotQA's token F1 (FlashRAG's
  ``f1``): an answer or reply that is ``yes``, ``no`` or ``noanswer`` scores 0 unless
  both are the same; the best over the accepted answers.
- ``ultrarag``: UltraRAG's evaluation server: ``True``/``False`` read as yes/no,
  underscores and punctuation (curly quotes included) become spaces rather than
  vanish; cover is its ``acc`` (substring, 0 for an empty reply); F1 without the
  yes/no rule.

Written here rather than imported: none of those projects is a library one can
depend on for three functions, and each differs from the others in details that
change the figures.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from answerx.grading.text import drop_articles, normalize_text

__all__ = [
    "CONVENTIONS",
    "Convention",
    "ShortAnswerScores",
    "cover_match",
    "exact_match",
    "normalize_answer",
    "short_answer_scores",
    "token_f1",
]

#: Whose definitions the measures follow (see the module docstring).
Convention = Literal["flashrag", "ultrarag"]
CONVENTIONS: tuple[str, ...] = get_args(Convention)

_ULTRARAG_PUNCTUATION = str.maketrans(dict.fromkeys(string.punctuation + "‘’´`", " "))
_HOTPOT_SPECIAL = frozenset({"yes", "no", "noanswer"})


def _ultrarag_normalize(text: str) -> str:
    text = {"True": "yes", "False": "no"}.get(text, text)
    text = text.replace("_", " ").lower().translate(_ULTRARAG_PUNCTUATION)
    return drop_articles(text)


_NORMALISERS: dict[str, Callable[[str], str]] = {
    "flashrag": normalize_text,
    "ultrarag": _ultrarag_normalize,
}


def normalize_answer(text: str, convention: Convention = "flashrag") -> str:
    """``text`` normalised as ``convention`` normalises answers before comparing.

    >>> normalize_answer("The Eiffel-Tower!"), normalize_answer("The Eiffel-Tower!", "ultrarag")
    ('eiffeltower', 'eiffel tower')
    """
    return _normaliser(convention)(text)


def _normaliser(convention: str) -> Callable[[str], str]:
    try:
        return _NORMALISERS[convention]
    except KeyError:
        raise ValueError(
            f"unknown convention {convention!r}; known: {', '.join(CONVENTIONS)}"
        ) from None


def _golds(golds: str | Sequence[str]) -> list[str]:
    return [golds] if isinstance(golds, str) else list(golds)


def exact_match(
    prediction: str, golds: str | Sequence[str], convention: Convention = "flashrag"
) -> float:
    """1.0 when the normalised prediction equals a normalised accepted answer, else 0.0.

    >>> exact_match("the Beatles", ["Beatles", "The Fab Four"])
    1.0
    """
    norm = _normaliser(convention)
    pred = norm(prediction)
    return 1.0 if any(norm(g) == pred for g in _golds(golds)) else 0.0


def cover_match(
    prediction: str, golds: str | Sequence[str], convention: Convention = "flashrag"
) -> float:
    """1.0 when a normalised accepted answer appears in the normalised prediction.

    A substring test, as the field defines it (so ``"paris"`` is found in
    ``"comparison"``): the short-answer *verdict* is what guards against that.

    >>> cover_match("It was Paris, not Lyon.", "Paris")
    1.0
    """
    norm = _normaliser(convention)
    pred = norm(prediction)
    if convention == "ultrarag" and not pred:
        return 0.0
    return 1.0 if any(norm(g) in pred for g in _golds(golds)) else 0.0


def token_f1(
    prediction: str, golds: str | Sequence[str], convention: Convention = "flashrag"
) -> float:
    """The best token F1 of the normalised prediction against the accepted answers.

    >>> round(token_f1("New York", "New York City"), 4)
    0.8
    """
    norm = _normaliser(convention)
    pred = norm(prediction)
    return max((_f1(pred, norm(g), convention) for g in _golds(golds)), default=0.0)


def _f1(pred: str, gold: str, convention: str) -> float:
    special = pred in _HOTPOT_SPECIAL or gold in _HOTPOT_SPECIAL
    if convention == "flashrag" and special and pred != gold:
        return 0.0
    pred_tokens, gold_tokens = pred.split(), gold.split()
    same = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


class ShortAnswerScores(BaseModel):
    """Exact match, token F1 and cover match of one reply, as the field reports them."""

    model_config = ConfigDict(frozen=True)

    em: float = Field(ge=0.0, le=1.0, description="Normalised exact match (0 or 1).")
    f1: float = Field(ge=0.0, le=1.0, description="Best token F1 over the accepted answers.")
    cover: float = Field(
        ge=0.0, le=1.0, description="1 when an accepted answer appears in the reply (substring)."
    )
    convention: Convention = Field(default="flashrag", description="Whose definitions.")


def short_answer_scores(
    prediction: str | None, golds: str | Sequence[str], convention: Convention = "flashrag"
) -> ShortAnswerScores:
    """All three measures of ``prediction`` (None or empty: all 0) against ``golds``.

    >>> short_answer_scores("Paris, France", ["Paris"]).model_dump()
    {'em': 0.0, 'f1': 0.6666666666666666, 'cover': 1.0, 'convention': 'flashrag'}
    """
    if not prediction:
        return ShortAnswerScores(em=0.0, f1=0.0, cover=0.0, convention=convention)
    return ShortAnswerScores(
        em=exact_match(prediction, golds, convention),
        f1=token_f1(prediction, golds, convention),
        cover=cover_match(prediction, golds, convention),
        convention=convention,
    )
