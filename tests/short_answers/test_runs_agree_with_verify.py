"""A run grades a reply as ``verify`` does: the same gold list gives the same task and
verdict, and an LLM extractor's answer does not hide the raw reply's hedge (issue 38)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerx import verify
from answerx.experiments.datasets import load_dataset
from answerx.experiments.records import ItemRecord
from answerx.experiments.scoring import item_spec, rules_verdict


def record(
    raw: str, extracted: str | None, golds: list[str], method: str, question: str = "When?"
) -> ItemRecord:
    return ItemRecord(
        run_id="run-1", approach="none", strategy="two_stage", provider="openai",
        model="gpt-test", item_id="q1", question=question,
        raw_output=raw, extracted_answer=extracted, gold=golds[0], answers=golds,
        method=method, confidence=0.9,
    )  # fmt: skip


def test_a_one_element_gold_list_is_a_short_answer_in_a_run_as_in_verify(tmp_path: Path) -> None:
    data = tmp_path / "war.jsonl"
    data.write_text(json.dumps({"question": "When did the war end?", "gold": ["1945"]}) + "\n")
    (loaded,) = load_dataset(str(data))
    assert loaded.golds == ["1945"]
    reply = "The war ended in 1945."
    stored = record(reply, reply, ["1945"], "whole_output", "When did the war end?")
    assert item_spec(stored).task == "short_answer"
    run = rules_verdict(stored)
    alone = verify(reply, ["1945"], question="When did the war end?")
    assert (run.correct, run.how) == (alone.correct, alone.how) == (True, "cover_match")


@pytest.mark.parametrize(
    ("raw", "guard"),
    [
        ("It could be Mercury, Venus, or Mars.", "several_candidates"),
        ("I am not sure; perhaps Mercury.", "hedged_answer"),
        ("Certainly not Mercury.", "alias_negated"),
    ],
)
def test_an_llm_extractor_does_not_strip_the_raw_replys_guards(raw: str, guard: str) -> None:
    item = record(raw, "Mercury", ["Mercury"], "structured_llm", question="Which planet?")
    verdict = rules_verdict(item)
    assert (verdict.correct, verdict.how, verdict.doubt) == (False, guard, "guard_fired")
    assert verify(raw, ["Mercury"], question="Which planet?").how == guard


def test_an_llm_extractors_answer_to_a_plain_reply_stands() -> None:
    raw = "After a long look at the orbits, the closest planet to the Sun is Mercury."
    verdict = rules_verdict(record(raw, "Mercury", ["Mercury"], "structured_llm"))
    assert (verdict.correct, verdict.doubt) == (True, None)


CUT = (
    "The Treaty of Westphalia was signed in 1648. It ended the Thirty Years' War and laid "
    "down principles of state sovereignty that historians still discuss at great length, "
    "especially the idea that"
)


def test_a_reply_cut_after_a_finished_first_sentence_keeps_its_answer() -> None:
    alone = verify(CUT, ["1648"], question="When was the treaty signed?")
    assert (alone.correct, alone.how, alone.answer) == (
        True, "cover_match", "The Treaty of Westphalia was signed in 1648."
    )  # fmt: skip
    item = record(CUT, None, ["1648"], "none", "When was the treaty signed?")
    run = rules_verdict(item.model_copy(update={"unfinished": True, "confidence": 0.0}))
    assert (run.correct, run.how) == (True, "cover_match")


def test_a_reply_cut_inside_its_first_sentence_stays_unfinished() -> None:
    cut = "The Treaty of Westphalia, which ended the Thirty Years' War and laid down the"
    assert verify(cut, ["1648"], question="When was the treaty signed?").reason == "unfinished"
