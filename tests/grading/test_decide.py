"""One decision: ``verify``, ``grade`` and a run's scoring all reach their verdict through
``grading.decide``, on one ``AnswerSpec`` resolved by one task inference."""

from __future__ import annotations

import pytest

import answerx
from answerx.errors import UnknownName
from answerx.experiments.records import ItemRecord
from answerx.experiments.scoring import rules_verdict, stored_extraction
from answerx.extraction import extract
from answerx.extraction.spec import DEFAULT_TIME_LIMIT_S, AnswerSpec
from answerx.grading import decide, grade, spec_for, verify
from answerx.grading.golds import clean_golds
from answerx.grading.residue import extraction_in_doubt, output_doubt

CHOICES = ["Mercury", "Venus", "Earth", "Mars"]

ITEMS = [
    # (raw output, gold, task, options)
    ("6 * 7 = 42, so the answer is 42.", 42, "auto", {}),
    ("The answer is (B).", "B", "multiple_choice", {"choices": CHOICES}),
    ("So the answer is (K).", "B", "multiple_choice", {"choices": CHOICES}),
    (r"so \boxed{\frac{1}{2}}", "0.5", "math", {}),
    ("<think>2 + 2 is", "4", "numeric", {}),
    ("I thought about it for a long time.", "Paris", "auto", {}),
    ("blah blah, maybe 41.", "42", "numeric", {}),
    ("It could be Mercury, Venus, or Mars.", ["Mercury"], "auto", {}),
    ("Answer: (4 + 2) * 4", None, "game24", {"numbers": [2, 4, 4]}),
]


def said(verdict: answerx.Verdict) -> tuple[object, ...]:
    return (verdict.correct, verdict.reason, verdict.how, verdict.answer, verdict.doubt)


@pytest.mark.parametrize(("raw", "gold", "task", "options"), ITEMS)
def test_verify_is_decide_on_what_extract_found(
    raw: str, gold: object, task: str, options: dict[str, object]
) -> None:
    refs = clean_golds(gold)
    spec = spec_for(task, gold, refs, **options)  # type: ignore[arg-type]
    found = extract(raw, spec.task, **options)  # type: ignore[arg-type]
    decided = decide(found, refs, spec)
    assert said(decided) == said(verify(raw, gold, task, **options))  # type: ignore[arg-type]


@pytest.mark.parametrize(("raw", "gold", "task", "options"), ITEMS)
def test_grade_is_decide_on_a_bare_answer(
    raw: str, gold: object, task: str, options: dict[str, object]
) -> None:
    answer = extract(raw, task, **options).answer  # type: ignore[arg-type]
    refs = clean_golds(gold)
    spec = spec_for(task, gold, refs, **options)  # type: ignore[arg-type]
    assert said(decide(answer, refs, spec)) == said(grade(answer, gold, task, **options))  # type: ignore[arg-type]
    assert decide(answer, refs, spec).extraction is None


def record(raw: str, found: answerx.Extraction, gold: str, **fields: object) -> ItemRecord:
    return ItemRecord(
        run_id="run-1", approach="none", strategy="two_stage", provider="openai",
        model="gpt-test", item_id="q1", question="?", raw_output=raw, gold=gold,
        extracted_answer=found.answer, candidate=found.candidate, span=found.span,
        method=found.method, confidence=found.confidence, valid=found.valid,
        problem=found.problem, unfinished=found.unfinished, **fields,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "gold", "task"),
    [
        ("blah blah, maybe 41.", "42", "numeric"),  # a guess: in doubt in a run as in verify
        ("So the answer is (K).", "B", "multiple_choice"),
        ("The reasoning goes on and on", "42", "numeric"),  # nothing found
    ],
)
def test_a_run_scores_its_stored_extraction_as_verify_scores_the_output(
    raw: str, gold: str, task: str
) -> None:
    choices = CHOICES if task == "multiple_choice" else None
    found = extract(raw, task, choices=choices)
    run = rules_verdict(record(raw, found, gold, task=task, choices=choices))
    alone = verify(raw, gold, task, choices=choices)
    assert (run.correct, run.reason, run.how, run.doubt) == (
        alone.correct, alone.reason, alone.how, alone.doubt,
    )  # fmt: skip


def test_a_stored_extraction_column_is_read_whole_and_old_rows_are_rebuilt() -> None:
    found = extract("Let me think. The answer is 42.", "numeric")
    old = record(found.raw_output, found, "42", task="numeric")
    rebuilt = stored_extraction(old)
    assert (rebuilt.answer, rebuilt.method, rebuilt.candidate) == (
        found.answer, found.method, found.candidate,
    )  # fmt: skip
    # A row of a newer store brings the whole extraction as JSON (value_count included).
    stored = found.model_copy(update={"value_count": 3})
    new = old.model_copy(update={"extraction": stored.model_dump(mode="json")})
    assert stored_extraction(new).value_count == 3


@pytest.mark.parametrize(
    "call",
    [
        lambda: verify("42", "42", "mathh"),
        lambda: grade("42", "42", "mathh"),
        lambda: extract("42", "mathh"),
        lambda: answerx.verify_batch(["42"], ["42"], task="mathh"),
        lambda: AnswerSpec.of("mathh"),
    ],
)
def test_a_mistyped_task_suggests_the_task_meant_wherever_it_is_named(call: object) -> None:
    with pytest.raises(UnknownName, match="did you mean 'math'"):
        call()  # type: ignore[operator]


@pytest.mark.parametrize(
    ("task", "gold", "options", "resolved"),
    [
        ("auto", "72", {}, "numeric"),
        ("auto", r"\frac{3}{4}", {}, "math"),
        ("auto", "(C)", {}, "multiple_choice"),
        ("auto", "Paris", {}, "text"),
        ("auto", ["Paris", "City of Light"], {}, "short_answer"),
        ("auto", "Paris", {"choices": CHOICES}, "multiple_choice"),
        ("auto", None, {"numbers": [1, 2, 3, 4]}, "game24"),
        ("numeric", ["3", "three"], {}, "numeric"),  # a task given is kept
    ],
)
def test_the_spec_resolves_auto_from_the_item_and_its_golds(
    task: str, gold: object, options: dict[str, object], resolved: str
) -> None:
    spec = spec_for(task, gold, clean_golds(gold), **options)  # type: ignore[arg-type]
    assert spec.task == resolved
    assert verify(str(gold), gold, task, **options).extraction.task == resolved  # type: ignore[arg-type, union-attr]


def test_a_run_reads_one_short_text_as_an_open_domain_answer() -> None:
    assert spec_for("auto", "Paris", ("Paris",), open_domain=True).task == "short_answer"
    assert spec_for("auto", "72", ("72",), open_domain=True).task == "numeric"


def test_the_spec_carries_the_tolerance_and_the_time_limit() -> None:
    exact, loose = AnswerSpec.of("numeric"), AnswerSpec.of("numeric", tolerance=0.01)
    assert exact.time_limit_s == DEFAULT_TIME_LIMIT_S
    assert decide("0.33", ("1/3",), exact).correct is False
    assert decide("0.33", ("1/3",), loose).correct is True
    spec = spec_for("auto", "0.5", ("0.5",), time_limit_s=2.0)
    assert (spec.task, spec.time_limit_s) == ("numeric", 2.0)


def test_decide_resolves_a_spec_left_at_auto_from_the_golds() -> None:
    assert decide("1/2", ("0.5",), AnswerSpec.of("auto")).how == "fraction"


# --- the residue's one guess rule ------------------------------------------------------------


def test_an_empty_output_holds_nothing_for_a_judge_to_read() -> None:
    assert output_doubt(extract(""), "no_answer") is None
    assert output_doubt(extract("I thought about it."), "no_answer") == "nothing_extracted"
    assert verify("", "42").doubt is None


def test_a_structured_reply_is_no_guess_whatever_its_confidence() -> None:
    guess = extract("blah blah, maybe 41.", "numeric")
    assert output_doubt(guess, "different") == "low_confidence_guess"
    structured = guess.model_copy(update={"method": "structured_llm"})
    assert output_doubt(structured, "different") is None


def test_an_llm_reads_again_what_the_rules_guessed_and_never_an_answer_alone() -> None:
    assert extraction_in_doubt(extract("blah blah, maybe 41.", "numeric"), 0.85)
    assert not extraction_in_doubt(extract("41", "numeric"), 0.85)
    assert not extraction_in_doubt(extract("<think>so maybe 41", "numeric"), 0.85)  # cut off
