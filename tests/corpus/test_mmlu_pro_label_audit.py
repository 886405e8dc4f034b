"""The committed audit of MMLU-Pro labels (bench/mmlu_pro_label_audit.jsonl) checked
against the corpus: every row quotes its output, every label MMLU-Pro's regex took from
a fallback is audited, and the audit excludes only labels no text states."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from corpus import CorpusItem, audited_label, corpus_dir, label_audit, load, mmlu_pro_label_source

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(corpus_dir() is None, reason="../shared/data/corpus not present"),
]

_STATED = re.compile(r"(?i)answer(?: is|:)\s*[*_(\[ ]*(?:option\s*)?([A-J])\b")


@pytest.fixture(scope="module")
def labelled() -> dict[str, CorpusItem]:
    items = load("multiple_choice_mmlupro")
    return {it.id: it for it in items if it.model_answer is not None}


@pytest.mark.parametrize(
    "text",
    [
        "x Answer: B and answer: C\nAnswer: D",
        "Answer:\n\nB\nanswer: C",
        "The answer is (E). Answer: F",
        "So F = ma, and I think H(Y) is it.",
        "No letter here at all.",
    ],
)
def test_label_source_scans_equal_mmlu_pros_own_patterns(text: str) -> None:
    # MMLU-Pro's patterns as written (quadratic on long outputs, fine on these).
    first = re.search(r"answer is \(?([A-J])\)?", text)
    again = re.search(r".*[aA]nswer:\s*([A-J])", text)
    final = re.search(r"\b[A-J]\b(?!.*\b[A-J]\b)", text, re.DOTALL)
    stated = first or again
    expected = stated.group(1) if stated else final.group(0) if final else None
    assert mmlu_pro_label_source(text)[0] == expected


def test_mmlu_pro_regex_reproduces_every_label(labelled: dict[str, CorpusItem]) -> None:
    for it in labelled.values():
        letter, step = mmlu_pro_label_source(it.raw_output)
        assert letter == it.model_answer or step == "random_fill", it.id


def test_every_audit_row_quotes_its_output_and_label(labelled: dict[str, CorpusItem]) -> None:
    for row in label_audit().values():
        item = labelled[row.id]
        assert row.label == item.model_answer, row.id
        assert row.evidence in item.raw_output, row.id
        assert row.verdict in ("excluded", "kept"), row.id
        assert row.text_states and row.why, row.id


def test_audit_covers_every_fallback_label_and_every_overruled_first_statement(
    labelled: dict[str, CorpusItem],
) -> None:
    expected = set()
    for it in labelled.values():
        _, step = mmlu_pro_label_source(it.raw_output)
        stated = [m.upper() for m in _STATED.findall(it.raw_output)]
        if step != "first_match" or (stated and stated[-1] != it.model_answer):
            expected.add(it.id)
    assert set(label_audit()) == expected


def test_audit_sources_match_how_the_labels_were_made(labelled: dict[str, CorpusItem]) -> None:
    for row in label_audit().values():
        _, step = mmlu_pro_label_source(labelled[row.id].raw_output)
        assert row.source == (step if step != "first_match" else "first_of_several"), row.id


def test_random_fills_are_excluded_and_state_no_such_letter(
    labelled: dict[str, CorpusItem],
) -> None:
    fills = [row for row in label_audit().values() if row.source == "random_fill"]
    assert len(fills) == 10
    for row in fills:
        assert row.verdict == "excluded"
        assert not re.search(rf"\b{row.label}\b", labelled[row.id].raw_output), row.id
        assert not audited_label(labelled[row.id])


def test_the_audit_excludes_only_what_it_lists(labelled: dict[str, CorpusItem]) -> None:
    audit = label_audit()
    excluded = {i for i, it in labelled.items() if not audited_label(it, audit)}
    assert excluded == {row.id for row in audit.values() if row.verdict == "excluded"}
    assert len(excluded) == 23
