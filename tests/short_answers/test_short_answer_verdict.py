"""The short_answer verdict: cover match with guards against its false accepts, and the
spelling variants exact match misses; each decision names its rule."""

from __future__ import annotations

import pytest

from answerx import grade, verify
from answerx.grading.short_answer import decide_short_answer, looks_like_person_name
from answerx.grading.variants import variant_tokens

WHO = "Who discovered radium?"


@pytest.mark.parametrize(
    ("reply", "golds", "question", "how"),
    [
        ("Paris", ["Paris"], None, "exact_match"),
        ("The capital is Paris.", ["Paris"], None, "cover_match"),
        ("No, it is Paris.", ["Paris"], None, "cover_match"),  # "no" is not next to it
        ("Not London but Paris", ["Paris"], None, "cover_match"),
        ("It is Lyon", ["Paris", "Lyon"], None, "cover_match"),
        ("AC/DC recorded it", ["AC/DC"], None, "cover_match"),  # the slash is the name's
        ("Simon & Garfunkel recorded it in 1970", ["Simon & Garfunkel"], None, "cover_match"),
        ("1,500 metres", ["1500 meters"], None, "variant_match"),
        ("Rock and roll", ["Rock & Roll"], None, "variant_match"),
        ("Sao Paulo", ["São Paulo"], None, "variant_match"),
        ("twenty-one", ["21"], None, "variant_match"),
        ("3 March 1921", ["March 3, 1921"], None, "variant_match"),
        ("1921-03-03", ["March 3, 1921"], None, "variant_match"),
        ("He was born on the 3rd of March, 1921.", ["March 3, 1921"], None, "cover_match"),
        ("In March 1921", ["1921"], None, "cover_match"),
        ("On May 4", ["4 May"], None, "cover_match"),
        ("Spain and France", ["France and Spain"], None, "item_set"),
        ("Curie", ["Marie Curie"], WHO, "surname_match"),
        ("Madame Curie", ["Marie Curie"], WHO, "surname_match"),
        ("Marie Sklodowska Curie", ["Marie Curie"], None, "name_match"),
        ("the third", ["3rd"], None, "variant_match"),
    ],
)  # fmt: skip
def test_the_same_answer_in_another_spelling_or_place_is_accepted(
    reply: str, golds: list[str], question: str | None, how: str
) -> None:
    decision = decide_short_answer(reply, golds, question)
    assert (decision.reason, decision.how) == ("equivalent", how)
    assert decision.matched in golds


@pytest.mark.parametrize(
    ("reply", "golds", "reason", "how"),
    [
        ("not Paris", ["Paris"], "different", "alias_negated"),
        ("It is definitely not Paris.", ["Paris"], "different", "alias_negated"),
        ("Neither Paris nor Lyon", ["Paris"], "different", "alias_negated"),
        ("either Paris or Lyon", ["Paris"], "different", "several_candidates"),
        ("Paris or Marseille", ["Paris"], "different", "several_candidates"),
        ("Paris, Lyon, Marseille, Nice, Toulouse", ["Paris"], "different", "several_candidates"),
        ("I'm not sure, perhaps Paris", ["Paris"], "different", "hedged_answer"),
        ("Maybe Paris?", ["Paris"], "different", "hedged_answer"),
        ("The question seems to be missing information, but if you mean France, it is Paris.",
         ["Paris"], "different", "hedged_answer"),
        ("I don't know.", ["Paris"], "no_answer", "refusal"),
        ("The context does not provide enough information; it cannot be determined.",
         ["Paris"], "no_answer", "refusal"),
        ("comparison", ["Paris"], "different", "no_match"),  # inside another word
        ("13", ["3"], "different", "no_match"),
        ("Pierre Curie", ["Marie Curie"], "different", "no_match"),
        ("Lyon", ["Paris", "City of Light"], "different", "no_match"),
    ],
)  # fmt: skip
def test_cover_matches_no_reader_would_accept_are_refused(
    reply: str, golds: list[str], reason: str, how: str
) -> None:
    decision = decide_short_answer(reply, golds)
    assert (decision.reason, decision.how, decision.matched) == (reason, how, None)


def test_a_surname_alone_needs_a_question_that_asks_for_a_person() -> None:
    assert decide_short_answer("Curie", ["Marie Curie"], WHO).how == "surname_match"
    assert decide_short_answer("Curie", ["Marie Curie"], "What element?").reason == "different"
    assert decide_short_answer("Curie", ["Marie Curie"]).reason == "different"
    # a place is no person, whatever the question
    assert decide_short_answer("York", ["New York"], "Who founded it?").reason == "different"


def test_a_guard_that_fires_leaves_the_item_in_doubt() -> None:
    assert decide_short_answer("either Paris or Lyon", ["Paris"]).doubt == "guard_fired"
    assert decide_short_answer("Paris", ["Paris"]).doubt is None
    assert decide_short_answer("I don't know", ["Paris"]).doubt is None  # a refusal is sure


def test_cover_and_f1_disagreeing_leaves_the_item_in_doubt() -> None:
    # shares most words without containing the answer
    assert decide_short_answer("New York", ["New York City"]).doubt == "cover_f1_disagree"
    # contains the answer deep inside a long reply, not in its main claim
    long_reply = (
        "The first modern games followed a long debate among the delegates of many "
        "nations about a suitable venue and about the sports to hold. Several cities "
        "offered, and in the end the games were held in Athens"
    )
    decision = decide_short_answer(long_reply, ["Athens"])
    assert (decision.reason, decision.doubt) == ("equivalent", "cover_f1_disagree")
    # the same answer in the sentence that answers is sure
    answering = long_reply.replace(
        "The first modern games followed", "Athens hosted the games after"
    )
    assert decide_short_answer(answering, ["Athens"]).doubt is None
    # plainly wrong: no doubt
    assert decide_short_answer("Berlin", ["Paris"]).doubt is None


def test_the_verdict_carries_em_f1_and_cover() -> None:
    verdict = grade("It was not Paris.", ["Paris"], "short_answer")
    assert verdict.correct is False and verdict.how == "alias_negated"
    assert verdict.scores is not None
    assert (verdict.scores.em, verdict.scores.cover) == (0.0, 1.0)
    assert verdict.scores.f1 == pytest.approx(0.4)


def test_a_list_of_short_texts_is_a_short_answer_item() -> None:
    verdict = verify("<answer>the Fab Four</answer>", ["The Beatles", "Fab Four"])
    assert verdict.extraction is not None and verdict.extraction.task == "short_answer"
    assert (verdict.correct, verdict.how, verdict.matched_gold) == (True, "exact_match", "Fab Four")


def test_a_single_text_gold_keeps_todays_text_task() -> None:
    verdict = verify("The answer is Paris, France.", "Paris")
    assert (verdict.correct, verdict.how, verdict.scores) == (False, "normalised_text", None)


def test_short_answer_can_be_asked_for_with_one_gold() -> None:
    verdict = verify("The answer is Paris, France.", "Paris", "short_answer")
    assert (verdict.correct, verdict.how) == (True, "cover_match")


@pytest.mark.parametrize(
    ("name", "is_person"),
    [("Marie Curie", True), ("J. R. R. Tolkien", True), ("Vincent van Gogh", True),
     ("New York City", False), ("University of Oxford", False), ("Paris", False),
     ("the Beatles", False), ("Mount Everest", False)],
)  # fmt: skip
def test_person_names_are_told_from_places_and_single_words(name: str, is_person: bool) -> None:
    assert looks_like_person_name(name) is is_person


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("March 3, 1921", "3 March 1921"),
        ("Mar. 3rd 1921", "1921-03-03"),
        ("one hundred and five", "105"),
        ("nineteen eighty-nine", "1989"),
        ("twenty-one", "21"),
        ("2.5 million", "2,500,000"),
        ("centre", "center"),
        ("Organisation", "organization"),
        ("50 per cent", "50%"),
        ("St. Louis", "Saint Louis"),
        ("Zürich", "Zurich"),
    ],
)
def test_spellings_of_one_answer_meet(a: str, b: str) -> None:
    assert variant_tokens(a) == variant_tokens(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("March 3, 1921", "March 4, 1921"), ("21", "twenty"), ("Paris", "Parish"), ("3rd", "3")],
)
def test_different_answers_stay_apart(a: str, b: str) -> None:
    assert variant_tokens(a) != variant_tokens(b)
