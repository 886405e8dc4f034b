"""Exact match, token F1 and cover match give the field's own figures on the same strings.

The definitions, restated in words from the projects that report them:

- Search-R1 (``verl/utils/reward_score/qa_em.py``) and FlashRAG
  (``flashrag/evaluator/metrics.py`` + ``utils.normalize_answer``): normalise by lower
  case, deleting every ``string.punctuation`` character, replacing the whole words
  a/an/the by a space, collapsing spaces. EM (``em_check`` / ``ExactMatch``): 1 if the
  normalised prediction equals any normalised gold. Cover (``subem_check`` /
  ``Sub_ExactMatch`` "acc"): 1 if any normalised gold is a substring of the normalised
  prediction. F1 (FlashRAG ``F1_Score``, HotpotQA's rule): per gold, 0 when either side
  normalises to yes/no/noanswer and they differ; else token overlap (multiset)
  precision/recall/F1, 0 without overlap; the max over golds.
- UltraRAG (``servers/evaluation/src/evaluation.py``): normalise by mapping the whole
  strings "True"/"False" to yes/no, underscores to spaces, lower case, punctuation
  (plus ‘ ’ ´ `) to spaces, articles to spaces, collapsing spaces. ``acc``: 0 for an
  empty normalised prediction, else 1 if any normalised gold is a substring. F1: token
  F1, 0 when either side has no token, the max over golds, no yes/no rule.

The hand-computed rows pin each definition; the property test compares this module
with the definitions restated as plain code on many generated strings.
"""

from __future__ import annotations

import re
import string
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from answerx.grading.qa_metrics import (
    cover_match,
    exact_match,
    normalize_answer,
    short_answer_scores,
    token_f1,
)


@pytest.mark.parametrize(
    ("prediction", "golds", "em", "f1", "cover"),
    [
        ("Paris", ["Paris"], 1.0, 1.0, 1.0),
        ("the  Beatles!", ["Beatles"], 1.0, 1.0, 1.0),
        ("Paris, France", ["Paris"], 0.0, 2 / 3, 1.0),
        ("New York", ["New York City"], 0.0, 0.8, 0.0),
        ("It was not Paris.", ["Paris"], 0.0, 0.4, 1.0),  # cover's known false accept
        ("comparison", ["Paris"], 0.0, 0.0, 1.0),  # a substring, as the field defines it
        ("3 March 1921", ["March 3, 1921"], 0.0, 1.0, 0.0),  # F1 is a bag of tokens
        ("yes it is", ["yes"], 0.0, 0.0, 1.0),  # HotpotQA's yes/no rule
        ("no", ["no"], 1.0, 1.0, 1.0),
        ("Lyon", ["Paris", "Lyon"], 1.0, 1.0, 1.0),  # best over the accepted answers
        ("", ["Paris"], 0.0, 0.0, 0.0),
        ("U.S.", ["US"], 1.0, 1.0, 1.0),  # punctuation deleted, not spaced
    ],
)
def test_flashrag_and_search_r1_figures(
    prediction: str, golds: list[str], em: float, f1: float, cover: float
) -> None:
    assert exact_match(prediction, golds) == em
    assert token_f1(prediction, golds) == pytest.approx(f1)
    assert cover_match(prediction, golds) == cover


@pytest.mark.parametrize(
    ("prediction", "golds", "em", "f1", "cover"),
    [
        ("yes it is", ["yes"], 0.0, 0.5, 1.0),  # no yes/no rule in UltraRAG's F1
        ("True", ["yes"], 1.0, 1.0, 1.0),  # "True" is read as yes
        ("Eiffel-Tower", ["Eiffel Tower"], 1.0, 1.0, 1.0),  # punctuation becomes a space
        ("U.S.", ["US"], 0.0, 0.0, 0.0),
        ("", [""], 1.0, 0.0, 0.0),  # an empty prediction covers nothing
        ("snake_case", ["snake case"], 1.0, 1.0, 1.0),
    ],
)
def test_ultrarag_figures(
    prediction: str, golds: list[str], em: float, f1: float, cover: float
) -> None:
    assert exact_match(prediction, golds, "ultrarag") == em
    assert token_f1(prediction, golds, "ultrarag") == pytest.approx(f1)
    assert cover_match(prediction, golds, "ultrarag") == cover


def test_a_single_gold_string_is_one_accepted_answer() -> None:
    assert exact_match("Paris", "Paris") == 1.0
    assert token_f1("Paris", "Paris, France") == pytest.approx(2 / 3)


def test_scores_carry_all_three_and_their_convention() -> None:
    scores = short_answer_scores("It is Paris", ["Paris"])
    assert (scores.em, scores.cover, scores.convention) == (0.0, 1.0, "flashrag")
    assert scores.f1 == pytest.approx(0.5)
    assert short_answer_scores(None, ["Paris"]).model_dump() == {
        "em": 0.0, "f1": 0.0, "cover": 0.0, "convention": "flashrag"
    }  # fmt: skip


def test_an_unknown_convention_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown convention"):
        normalize_answer("x", "squad2")  # type: ignore[arg-type]


# --- the definitions restated as plain code, for the property test --------------------------


def _squad(s: str) -> str:
    s = "".join(ch for ch in s.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())


def _hotpot_f1(pred: str, golds: list[str]) -> float:
    best = 0.0
    for gold in golds:
        p, g = _squad(pred), _squad(gold)
        if (p in ("yes", "no", "noanswer") or g in ("yes", "no", "noanswer")) and p != g:
            continue
        same = sum((Counter(p.split()) & Counter(g.split())).values())
        if same:
            prec, rec = same / len(p.split()), same / len(g.split())
            best = max(best, 2 * prec * rec / (prec + rec))
    return best


def _ultra(s: str) -> str:
    s = {"True": "yes", "False": "no"}.get(s, s).replace("_", " ").lower()
    s = "".join(" " if ch in set(string.punctuation + "‘’´`") else ch for ch in s)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split()).strip()


_WORDS = st.sampled_from(
    ["Paris", "the", "a", "New", "York", "city", "yes", "no", "U.S.", "it's", "1,921", "Curie",
     "snake_case", "‘quoted’", "an", "Tower!", "True", "", " ", "noanswer", "-", "é"]
)  # fmt: skip
_TEXT = st.lists(_WORDS, max_size=6).map(" ".join)


@given(_TEXT, st.lists(_TEXT, min_size=1, max_size=3))
def test_every_measure_equals_its_definition(pred: str, golds: list[str]) -> None:
    assert exact_match(pred, golds) == float(any(_squad(g) == _squad(pred) for g in golds))
    assert cover_match(pred, golds) == float(any(_squad(g) in _squad(pred) for g in golds))
    assert token_f1(pred, golds) == pytest.approx(_hotpot_f1(pred, golds))
    up = _ultra(pred)
    assert exact_match(pred, golds, "ultrarag") == float(any(_ultra(g) == up for g in golds))
    assert cover_match(pred, golds, "ultrarag") == float(
        bool(up) and any(_ultra(g) in up for g in golds)
    )
