"""Scoring: grading's own verdict per answer (reason and how, never a translation), the same
on any thread, never a crash."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from answerx.errors import ConfigError
from answerx.experiments.records import VERDICT_FIELDS, ItemRecord, RunRecord
from answerx.experiments.scoring import (
    item_spec,
    rules_verdict,
    score_items,
    score_run,
)
from answerx.experiments.store import ResultStore
from answerx.extraction import extract
from answerx.grading import (
    JudgeRequest,
    JudgeRuling,
    Verdict,
    check_game24,
    infer_task,
    normalize_text,
    verify,
)
from answerx.grading import grade as _grade

CHOICES = ["Mercury", "Venus", "Earth", "Mars"]


def score(
    answer: str | None,
    gold: str | list[str] | None,
    task: str = "auto",
    *,
    valid: bool | None = None,
    unfinished: bool = False,
    time_limit_s: float = 5.0,
    question: str = "?",
    **fields: object,
) -> Verdict:
    """The rules' verdict on a run's item whose output was read as ``answer`` (the whole
    output), with what extraction found about it (``valid``, ``unfinished``)."""
    golds = {"gold": None, "answers": gold} if isinstance(gold, list) else {"gold": gold}
    found = {
        "task": task, "raw_output": answer or "", "extracted_answer": answer,
        "method": "answer_block", "confidence": 0.95, "valid": valid, "unfinished": unfinished,
    }  # fmt: skip
    # Updated, not validated: an unknown task reaches scoring as a stored row would bring it.
    record = ItemRecord(
        run_id="run-1", approach="none", strategy="two_stage", provider="openai",
        model="gpt-test", item_id="q", question=question,
    ).model_copy(update=found | golds | fields)  # fmt: skip
    return rules_verdict(record, time_limit_s=time_limit_s)


def verdict(correct: bool | None, reason: str, how: str | None = None) -> tuple[object, ...]:
    """What a test expects of a Verdict: (correct, reason[, how])."""
    return (correct, reason) if how is None else (correct, reason, how)


def said(result: Verdict, *, how: bool = False) -> tuple[object, ...]:
    return (result.correct, result.reason, *((result.how,) if how else ()))


def reason_of(correct: bool) -> str:
    return "equivalent" if correct else "different"


MATH = [
    # (predicted, gold, correct)
    (r"\frac{1}{2}", "0.5", True),
    ("0.5", r"\frac{1}{2}", True),
    (r"\dfrac{3}{4}", "0.75", True),
    ("x=2", "2", True),
    ("x = 2", "2", True),
    (r"\boxed{2}", "2", True),
    ("The answer is $2$.", "2", True),
    (r"\{2, 1\}", r"\{1,2\}", True),
    ("3,2", "2,3", True),  # an unordered answer list is a set
    ("(0, 1]", "(0,1]", True),
    ("(0,1]", "[0,1)", False),
    (r"\frac{\sqrt2}{2}", r"\sqrt{2}/2", True),
    ("(x+1)^2", "x^2+2x+1", True),
    ("3.14159265358979", r"\pi", True),
    ("50%", r"\frac{1}{2}", True),
    ("3", "4", False),
    ("x=3", "2", False),
    ("1000", "1,000", True),
]


@pytest.mark.parametrize(("predicted", "gold", "correct"), MATH)
def test_math_answers_are_judged_equivalent_or_different(
    predicted: str, gold: str, correct: bool
) -> None:
    assert said(score(predicted, gold, "math")) == verdict(correct, reason_of(correct))


def test_a_math_verdict_names_the_predicate_that_decided() -> None:
    # The store keeps grading's own `how`: not one name for every math check.
    assert score(r"\frac{1}{2}", "0.5", "math").how == "fraction"
    assert score("(x+1)^2", "x^2+2x+1", "math").how == "symbolic_fast"
    assert score(r"\tan^2 y + 1", r"\sec^2 y", "math").how == "math_verify"
    assert score("x^2", "x^2", "math").how == "exact"


def test_math_gold_that_math_verify_cannot_read_is_compared_as_text() -> None:
    assert score("Paris", "Paris", "math").correct is True
    assert said(score("", "", "math")) == verdict(None, "unreadable_gold")


NUMERIC = [
    ("26", "26", True),
    ("$1,234.50", "1234.5", True),
    ("1234.5", "$1,234.50", True),
    ("12 dollars", "12", True),
    ("50%", "50", True),
    ("1/2", "0.5", True),
    (r"\frac{3}{4}", "0.75", True),
    ("-3", "−3", True),
    ("6.0", "6", True),
    ("x = 7", "7", True),
    ("0.3333333", "1/3", True),  # within the default 1e-6 tolerance
    ("0.33", "1/3", False),
    ("1000001", "1000000", True),  # relative: 1e-6 of a million is 1
    ("1000002", "1000000", False),
    ("25", "26", False),
    ("twenty-six", "26", True),  # a number in words is a number (issue 23 §4)
    ("twenty-six", "62", False),
    ("1/0", "1", False),
]


@pytest.mark.parametrize(("predicted", "gold", "correct"), NUMERIC)
def test_numbers_match_within_tolerance(predicted: str, gold: str, correct: bool) -> None:
    assert said(score(predicted, gold, "numeric")) == verdict(correct, reason_of(correct))


def test_a_wider_tolerance_accepts_a_rounded_answer() -> None:
    assert _grade("0.33", "1/3", "numeric", tolerance=0.01).correct is True  # grading's option


CHOICE = [
    ("B", "B", True, "letter"),
    ("(B)", "B", True, "letter"),
    ("B.", "B", True, "letter"),
    ("b", "B", True, "letter"),
    ("(B) Venus", "B", True, "letter"),
    ("Option B", "B", True, "letter"),
    ("C", "B", False, "letter"),
    ("Venus", "B", True, "option_text"),
    ("venus", "B", True, "option_text"),
    ("Earth", "B", False, "option_text"),
    ("B", "Venus", True, "letter"),  # a gold answer given as the option's text
    ("A bit of both", "A", False, "letter"),  # prose, not the letter A
    ("Pluto", "B", False, "letter"),
]


@pytest.mark.parametrize(("predicted", "gold", "correct", "how"), CHOICE)
def test_choices_match_by_letter_or_option_text(
    predicted: str, gold: str, correct: bool, how: str
) -> None:
    result = score(predicted, gold, "multiple_choice", choices=CHOICES)
    assert said(result, how=True) == verdict(correct, reason_of(correct), how)


BOOLEAN = [
    ("yes", "yes", True),
    ("Yes, because the sum is even.", "yes", True),
    ("True", "yes", True),
    ("no", "False", True),
    ("incorrect", "no", True),
    ("no", "yes", False),
    ("maybe", "yes", False),
    ("nothing", "no", False),
]


@pytest.mark.parametrize(("predicted", "gold", "correct"), BOOLEAN)
def test_booleans_match_in_any_spelling(predicted: str, gold: str, correct: bool) -> None:
    expected = verdict(correct, reason_of(correct), "boolean")
    assert said(score(predicted, gold, "boolean"), how=True) == expected


TEXT = [
    ("Paris", "paris", True),
    ("The Eiffel Tower!", "eiffel tower", True),
    ("  an   apple ", "Apple", True),
    ("The answer is Paris.", "Paris", True),
    ("Lyon", "Paris", False),
    ("Paris, France", "Paris", False),
]


@pytest.mark.parametrize(("predicted", "gold", "correct"), TEXT)
def test_text_matches_after_squad_normalisation(predicted: str, gold: str, correct: bool) -> None:
    expected = verdict(correct, reason_of(correct), "normalised_text")
    assert said(score(predicted, gold, "text"), how=True) == expected


def test_normalize_text_drops_case_punctuation_articles_and_extra_spaces() -> None:
    assert normalize_text("  The  Quick, brown FOX! ") == "quick brown fox"


GAME24 = [
    ("(7 - 8 / 8) * 4", [4, 7, 8, 8], True),
    ("4 * (7 - 8 / 8) = 24", [4, 7, 8, 8], True),
    ("8 / (3 - 8 / 3)", [3, 3, 8, 8], True),  # needs exact fractions: 8 / (1/3)
    ("12 / (3 - 5 / 2)", [2, 3, 5, 12], True),
    ("(4 × 6) × (1 ÷ 1)", [1, 1, 4, 6], True),
    ("1 * 2 * 3 * 4", [1, 2, 3, 4], True),
    ("1 + 2 + 3 + 4", [1, 2, 3, 4], False),  # 10, not 24
    ("(7 - 8 / 8) * 4", [4, 7, 8, 9], False),  # wrong numbers
    ("4 * 6", [4, 6, 6, 1], False),  # numbers left out
    ("6 * 4 * 1 * 1 * 1", [1, 1, 4, 6], False),  # a number used twice
    ("24", [1, 2, 3, 4], False),
    ("8 / (3 - 3) + 8", [3, 3, 8, 8], False),  # division by zero
    ("2 ** 4 + 8", [2, 4, 8], False),  # powers are not allowed
    ("-(1 - 5) * 6 * 1", [1, 5, 6, 1], False),
    ("__import__('os').system('true')", [1, 2, 3, 4], False),
    ("().__class__.__bases__[0]", [1, 2, 3, 4], False),
    ("(" * 5000 + "1" + ")" * 5000, [1], False),
    ("1 + " * 10_000 + "1", [1] * 10_001, False),
    ("", [1, 2, 3, 4], False),
]


@pytest.mark.parametrize(("expression", "numbers", "valid"), GAME24)
def test_game24_uses_each_number_once_and_makes_24(
    expression: str, numbers: list[int], valid: bool
) -> None:
    assert check_game24(expression, numbers) is valid
    result = score(expression, None, "game24", numbers=numbers)
    assert result.correct is (valid if expression else False)


def test_game24_takes_the_numbers_from_a_reference_solution_when_none_are_given() -> None:
    assert score("4 * (7 - 8 / 8)", "(7 - 8 / 8) * 4", "game24").correct is True
    assert score("4 * 6 * 1 * 1", "(7 - 8 / 8) * 4", "game24").correct is False
    assert said(score("4 * 6", None, "game24")) == verdict(None, "unreadable_gold")


def test_a_game24_expression_that_reuses_a_number_is_malformed_not_just_wrong() -> None:
    result = score("6 * 4 * 1 * 1 * 1", None, "game24", numbers=[1, 1, 4, 6])
    assert said(result, how=True) == verdict(False, "malformed_answer", "game24")


def test_a_missing_answer_is_wrong_and_a_missing_gold_cannot_be_judged() -> None:
    assert said(score(None, "4", "numeric"), how=True) == verdict(False, "no_answer", "none")
    assert said(score("  ", "4", "math")) == verdict(False, "no_answer")
    assert said(score("4", None, "numeric")) == verdict(None, "unreadable_gold")
    assert said(score(None, None, "game24", numbers=[1, 2, 3, 4])) == verdict(False, "no_answer")


def test_what_extraction_found_makes_the_verdict_malformed_or_unfinished() -> None:
    # A run's answer may come from a model's structured reply: extraction's findings
    # are passed in, and the verdict says them as `answerx verify` would.
    letter = score("K", "B", "multiple_choice", choices=CHOICES, valid=False)
    assert said(letter, how=True) == verdict(False, "malformed_answer", "letter")
    assert score("B", "B", "multiple_choice", choices=CHOICES, valid=False).correct is True
    assert said(score(None, "4", "numeric", unfinished=True)) == verdict(False, "unfinished")
    assert said(score(None, None, "numeric", unfinished=True)) == verdict(None, "unreadable_gold")


VERIFIED = [
    ("The answer is K.", "B", "multiple_choice", {"choices": CHOICES}),
    ("So the answer is (C).", "B", "multiple_choice", {"choices": CHOICES}),
    ("<think>2 + 2 is", "4", "numeric", {}),
    ("Thus 6 * 4 * 1 * 1 * 1 = 24", None, "game24", {"numbers": [1, 1, 4, 6]}),
    (r"so \boxed{\frac{1}{2}}", "0.5", "math", {}),
    ("The answer is: yes", "no", "boolean", {}),
    ("I cannot tell.", "Paris", "text", {}),
]


@pytest.mark.parametrize(("raw", "gold", "task", "options"), VERIFIED)
def test_judging_an_extraction_says_what_verify_says_of_its_output(
    raw: str, gold: str | None, task: str, options: dict[str, object]
) -> None:
    # scoring and `answerx verify` speak one vocabulary: this pins them together.
    found = extract(raw, task, **options)  # type: ignore[arg-type]
    judged = score(
        found.answer, gold, task, valid=found.valid, unfinished=found.unfinished, **options
    )
    verified = verify(raw, gold, task, **options)  # type: ignore[arg-type]
    assert said(judged, how=True) == said(verified, how=True)


def test_an_unknown_task_is_a_config_error_naming_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="numeric"):
        score("4", "4", "arithmetic")


@pytest.mark.parametrize(
    ("gold", "choices", "numbers", "task"),
    [
        ("B", CHOICES, None, "multiple_choice"),
        ("(C)", None, None, "multiple_choice"),
        (None, None, [1, 2, 3, 4], "game24"),
        ("Yes", None, None, "boolean"),
        ("$1,234", None, None, "numeric"),
        ("3/4", None, None, "numeric"),
        (r"\frac{3}{4}", None, None, "math"),
        ("x^2 + 1", None, None, "math"),
        ("Paris", None, None, "text"),
    ],
)
def test_auto_infers_the_task_from_gold_choices_and_numbers(
    gold: str | None, choices: list[str] | None, numbers: list[int] | None, task: str
) -> None:
    assert infer_task(gold, choices, numbers) == task


def test_auto_scores_with_the_inferred_task() -> None:
    assert said(score("$1,234.00", "1234", "auto")) == verdict(True, "equivalent")
    expected = verdict(True, "equivalent", "option_text")
    assert said(score("Venus", "B", "auto", choices=CHOICES), how=True) == expected
    auto = score(r"\frac{1}{2}", r"\dfrac{2}{4}", "auto")
    assert said(auto, how=True) == said(_grade(r"\frac{1}{2}", r"\dfrac{2}{4}"), how=True)


def all_tables() -> list[tuple[str | None, str | None, str, dict[str, object]]]:
    cases: list[tuple[str | None, str | None, str, dict[str, object]]] = []
    cases += [(p, g, "math", {}) for p, g, _ in MATH]
    cases += [(p, g, "numeric", {}) for p, g, _ in NUMERIC]
    cases += [(p, g, "multiple_choice", {"choices": CHOICES}) for p, g, _, _ in CHOICE]
    cases += [(e, None, "game24", {"numbers": n}) for e, n, _ in GAME24[:8]]
    return cases


def test_scoring_from_worker_threads_gives_the_main_thread_verdicts() -> None:
    cases = all_tables()
    on_main = [said(score(p, g, t, **kw), how=True) for p, g, t, kw in cases]  # type: ignore[arg-type]
    with ThreadPoolExecutor(max_workers=4) as pool:
        off_main = list(pool.map(lambda c: said(score(c[0], c[1], c[2], **c[3]), how=True), cases))  # type: ignore[arg-type]
    assert off_main == on_main


def test_a_comparison_that_runs_too_long_is_scored_as_a_timeout() -> None:
    # 9^(9^9) has 370 million digits; grading's worker pool cuts it off (tests/grading).
    result = score("9^{9^{9}}", "2", "math", time_limit_s=1)
    assert said(result, how=True) == verdict(False, "timeout", "math_verify")


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(max_size=60),
    gold=st.sampled_from(["4", "B", "yes", "Paris", r"\frac{1}{2}", "(7 - 8 / 8) * 4"]),
    task=st.sampled_from(["auto", "numeric", "multiple_choice", "boolean", "text", "game24"]),
)
def test_scoring_never_crashes_on_any_text(text: str, gold: str, task: str) -> None:
    result = score(text, gold, task, choices=CHOICES if task == "multiple_choice" else None)
    assert result.correct in (True, False, None)
    assert said(score(text, gold, task), how=True) == said(score(text, gold, task), how=True)


@settings(max_examples=40, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("0123456789x+-*/^{}()[]\\frac=.,$ "), max_size=40))
def test_math_scoring_never_crashes_on_formula_like_text(text: str) -> None:
    assert score(text, r"\frac{1}{2}", "math", time_limit_s=2).correct in (True, False)


def item(item_id: str, extracted: str | None, gold: str | None, **fields: object) -> ItemRecord:
    return ItemRecord(
        run_id="run-1",
        approach="none",
        strategy="two_stage",
        provider="openai",
        model="gpt-test",
        item_id=item_id,
        question="?",
        extracted_answer=extracted,
        gold=gold,
        **fields,  # type: ignore[arg-type]
    )


def test_score_items_returns_new_records_with_verdicts() -> None:
    items = [
        item("q1", "26", "26", task="numeric"),
        item("q2", "C", "B", task="multiple_choice", choices=CHOICES),
        item("q3", None, "yes", task="boolean"),
        item("q4", "4 * 6", None, task="game24", numbers=[4, 6]),
    ]
    scored = score_items(items)
    assert [(i.correct, i.reason, i.how) for i in scored] == [
        (True, "equivalent", "exact"),
        (False, "different", "letter"),
        (False, "no_answer", "none"),
        (True, "equivalent", "game24"),
    ]
    assert items[0].correct is None and items[0].reason is None  # the inputs are unchanged
    assert scored[0].model_dump(exclude=set(VERDICT_FIELDS)) == items[0].model_dump(
        exclude=set(VERDICT_FIELDS)
    )


def test_score_items_judges_a_malformed_or_unfinished_item_by_what_extraction_found() -> None:
    items = [
        item("q1", "K", "B", task="multiple_choice", choices=CHOICES, valid=False),
        item("q2", None, "4", task="numeric", unfinished=True),
    ]
    assert [(i.correct, i.reason) for i in score_items(items)] == [
        (False, "malformed_answer"),
        (False, "unfinished"),
    ]


def test_score_run_rescores_a_stored_run_without_any_model(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "runs.db") as store:
        store.create_run(
            RunRecord(
                run_id="run-1",
                name="demo",
                config={},
                config_hash="0" * 64,
                answerx_version="test",
                started_at=datetime(2025, 1, 1, tzinfo=UTC),
            )
        )
        store.add_items(
            [
                item("q1", r"\frac{1}{2}", "0.5", task="math"),
                item("q2", "Venus", "B", task="auto", choices=CHOICES),
                item("q3", "41", "42", task="numeric"),
            ]
        )
        score_run(store, "run-1")
        stored = {i.item_id: (i.correct, i.reason, i.how) for i in store.items("run-1")}
    assert stored == {
        "q1": (True, "equivalent", "fraction"),
        "q2": (True, "equivalent", "option_text"),
        "q3": (False, "different", "numeric_tolerance"),
    }


# --- short answers, measures and the residue ----------------------------------------------


@pytest.mark.parametrize(
    ("task", "gold", "scored_as"),
    [
        ("auto", "Paris", "short_answer"),  # a short text: an open-domain answer
        ("auto", ["Paris", "City of Light"], "short_answer"),
        ("auto", ["1989", "89"], "short_answer"),  # aliases, even of numbers
        ("auto", "72", "numeric"),  # one number keeps its numeric rules
        ("auto", "$1,234", "numeric"),
        ("auto", "June 28, 1919", "short_answer"),  # digits, but a date
        ("auto", "330 m", "short_answer"),
        ("auto", r"\frac{1}{2}", "math"),
        ("auto", "B", "multiple_choice"),
        ("text", "Paris", "text"),  # asked for SQuAD exact match: kept
        ("numeric", ["3", "three"], "numeric"),
    ],
)
def test_auto_items_with_short_text_answers_are_scored_as_short_answers(
    task: str, gold: str | list[str], scored_as: str
) -> None:
    golds = {"gold": None, "answers": gold} if isinstance(gold, list) else {"gold": gold}
    assert item_spec(item("q", None, **golds, task=task)).task == scored_as  # type: ignore[arg-type]


def test_a_short_answer_item_is_judged_against_every_alias_with_the_question() -> None:
    verdict = score("Curie.", ["Marie Curie", "Maria Skłodowska-Curie"],
                    question="Who discovered radium?")  # fmt: skip
    assert (verdict.correct, verdict.how, verdict.matched_gold) == (True, "surname_match",
                                                                    "Marie Curie")  # fmt: skip
    # Right by the question (a person), though no accepted answer is in the reply.
    assert verdict.scores is not None and verdict.scores.cover == 0.0


def test_a_text_item_keeps_exact_match_as_its_verdict_and_gets_the_three_measures() -> None:
    verdict = score("Paris, France", "Paris", "text")
    assert (verdict.correct, verdict.how) == (False, "normalised_text")
    assert verdict.scores is not None
    assert (verdict.scores.em, verdict.scores.cover) == (0.0, 1.0)
    assert verdict.scores.f1 == pytest.approx(2 / 3)


def test_score_items_stores_the_measures_and_the_matched_alias_of_each_item() -> None:
    items = [
        item("q1", "the Fab Four", "The Beatles", answers=["The Beatles", "Fab Four"]),
        item("q2", "Lyon", "Paris"),
        item("q3", "26", "26", task="numeric"),
    ]
    first, second, third = score_items(items)
    assert (first.correct, first.how, first.em, first.cover) == (True, "exact_match", 1.0, 1.0)
    assert first.verdict_detail == {"matched_gold": "Fab Four"}
    assert (second.correct, second.how, second.em, second.f1, second.cover) == (
        False, "no_match", 0.0, 0.0, 0.0
    )  # fmt: skip
    assert (third.em, third.f1, third.cover, third.verdict_detail) == (None, None, None, None)


@pytest.mark.parametrize(
    ("fields", "doubt"),
    [
        ({"raw_output": "I thought about it at length."}, "nothing_extracted"),
        ({"raw_output": "Thinking of the capitals of Europe.\nParis", "extracted_answer": "Paris",
          "method": "bottom_scan", "confidence": 0.2}, "low_confidence_guess"),
        ({"raw_output": "Lyon", "extracted_answer": "Lyon", "method": "bottom_scan",
          "confidence": 0.2}, None),  # the output is the answer: nothing else to read
        ({"raw_output": '{"answer_value": "Lyon"}', "extracted_answer": "Lyon",
          "method": "structured_llm", "confidence": 0.1}, None),  # the model's own word
        ({"raw_output": "Let me think", "unfinished": True}, None),  # cut off: nothing more
        ({"raw_output": "", "error": "ProviderError: down"}, None),
        ({"raw_output": "It was not Paris.", "extracted_answer": "It was not Paris.",
          "method": "answer_block", "confidence": 0.95}, "guard_fired"),
    ],
)  # fmt: skip
def test_the_rules_are_unsure_of_what_a_judge_could_read_better(
    fields: dict[str, object], doubt: str | None
) -> None:
    rest = {k: v for k, v in fields.items() if k != "extracted_answer"}
    record = item("q", fields.get("extracted_answer"), "Paris", **rest)  # type: ignore[arg-type]
    assert rules_verdict(record).doubt == doubt


class Labels:
    """A judge from a table of labels: correct for the hedged reply, counting its questions."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def judge(self, request: JudgeRequest) -> JudgeRuling:
        self.asked.append(request.raw_output)
        return JudgeRuling(verdict="correct", reason="labelled right", judge="labels")


def test_a_rescore_reapplies_a_stored_ruling_and_asks_a_judge_only_about_the_rest() -> None:
    hedged = item("q1", "Perhaps Paris?", "Paris", raw_output="<answer>Perhaps Paris?</answer>",
                  method="answer_block", confidence=0.95)  # fmt: skip
    other = item("q2", "Either Paris or Lyon", "Paris", raw_output="Either Paris or Lyon",
                 method="answer_block", confidence=0.95)  # fmt: skip
    labels = Labels()
    judged = score_items([hedged], judge=labels)
    assert (judged[0].how, judged[0].correct) == ("llm_judge", True)
    assert labels.asked == ["<answer>Perhaps Paris?</answer>"]  # the whole output

    again = score_items([judged[0], other])
    assert (again[0].how, again[0].verdict_detail) == ("llm_judge", judged[0].verdict_detail)
    assert (again[1].how, again[1].correct) == ("several_candidates", False)

    score_items([judged[0], other], judge=labels)
    assert labels.asked[1:] == ["Either Paris or Lyon"]  # the judged one is not asked again
