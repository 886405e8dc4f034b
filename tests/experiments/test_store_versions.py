"""Stores written by an older answerx keep opening: migrated when opened for writing, read as
if migrated when opened read-only (the file untouched), salvaged the same way.

The old stores are built here as the old answerx built them: the migrations of their
schema, run as SQL, and rows inserted with the old columns (schema 2 stored one
translated ``score_method`` per verdict; schema 3 stores grading's own reason and how).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from answerx.experiments.store import MIGRATIONS, SCHEMA_VERSION, ResultStore, salvage

# (item id, correct, score_method as schema 2 stored it) and what it says in grading's
# words: (correct, reason, how). math_verify and numeric covered several predicates.
OLD_VERDICTS = [
    ("frac", 1, "math_verify", (True, "equivalent", None)),
    ("wrong", 0, "numeric", (False, "different", None)),
    ("slow", 0, "math_verify_timeout", (False, "timeout", "math_verify")),
    ("letter", 1, "choice_letter", (True, "equivalent", "letter")),
    ("venus", 0, "choice_text", (False, "different", "option_text")),
    ("yes", 1, "boolean", (True, "equivalent", "boolean")),
    ("paris", 0, "text", (False, "different", "normalised_text")),
    ("24", 0, "game24", (False, "different", "game24")),
    ("blank", 0, "no_answer", (False, "no_answer", "none")),
    ("nogold", None, "no_gold", (None, "unreadable_gold", "none")),
    ("unscored", None, None, (None, None, None)),
]


def old_store(path: Path, version: int = 2) -> Path:
    """A store of schema ``version`` (1, 2 or 3) holding one run and the OLD_VERDICTS items."""
    db = sqlite3.connect(path)
    for _name, sql in MIGRATIONS[:version]:
        for statement in sql.split(";"):
            if statement.strip():
                db.execute(statement)
    db.execute(f"PRAGMA user_version = {version}")
    db.execute(
        "INSERT INTO runs VALUES ('old-run', 'before', '{}', ?, '0.1.0', "
        "'2025-06-01T10:00:00+00:00', '2025-06-01T10:05:00+00:00', 'finished')",
        ("0" * 64,),
    )
    for number, (item_id, correct, method, _) in enumerate(OLD_VERDICTS):
        row: dict[str, Any] = {
            "run_id": "old-run",
            "approach": "none",
            "strategy": "structured",
            "provider": "openai",
            "model": "gpt-test",
            "item_id": item_id,
            "repetition": 0,
            "dataset": "old",
            "task": "auto",
            "question": f"question {number}",
            "gold": None if method == "no_gold" else "1",
            "prompt": "",
            "raw_output": f"<answer>{number}</answer>",
            "extracted_answer": None if method == "no_answer" else str(number),
            "method": "answer_block",
            "confidence": 0.9,
            "attempts": 1,
            "fallbacks": 0,
            "calls": 1,
            "input_tokens": 10,
            "output_tokens": 5,
            "latency_s": 0.1,
            "termination": "answer",
            "cached": 0,
            "correct": correct,
            "score_method": method,
        }
        if version >= 2:
            row["finish_reason"] = "stop"
        db.execute(
            f"INSERT INTO items ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
            list(row.values()),
        )
    db.commit()
    db.close()
    return path


def verdicts(store: ResultStore) -> dict[str, tuple[bool | None, str | None, str | None]]:
    return {i.item_id: (i.correct, i.reason, i.how) for i in store.items("old-run")}


EXPECTED = {item_id: said for item_id, _, _, said in OLD_VERDICTS}


def test_opening_a_schema_2_store_migrates_its_verdicts_to_reason_and_how(tmp_path: Path) -> None:
    path = old_store(tmp_path / "answerx.db")

    with ResultStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert verdicts(store) == EXPECTED
        details = {i.item_id: i.verdict_detail for i in store.items("old-run")}
        assert details["wrong"] == {"score_method": "numeric"}  # the old name is kept
        assert details["unscored"] is None
        assert [i.item_id for i in store.items("old-run", reason="timeout")] == ["slow"]
        assert store.item_counts() == {"old-run": len(OLD_VERDICTS)}


def test_a_migrated_store_keeps_working_for_new_items_and_rescoring(tmp_path: Path) -> None:
    from answerx.experiments.scoring import score_run

    path = old_store(tmp_path / "answerx.db")
    with ResultStore(path) as store:
        rescored = {i.item_id: (i.reason, i.verdict_detail) for i in score_run(store, "old-run")}
    with ResultStore(path) as reopened:
        stored = {i.item_id: (i.reason, i.verdict_detail) for i in reopened.items("old-run")}
    assert stored == rescored
    assert stored["unscored"] == ("different", None)  # "5" is not "1": judged now


def test_a_read_only_open_reads_an_old_store_as_migrated_and_changes_nothing(
    tmp_path: Path,
) -> None:
    path = old_store(tmp_path / "answerx.db")
    before = hashlib.sha256(path.read_bytes()).hexdigest()

    with ResultStore(path, read_only=True) as store:
        assert store.read_only and store.schema_version == 2
        assert verdicts(store) == EXPECTED
        assert store.count_items("old-run", reason=["no_answer", "unreadable_gold"]) == 2
        assert {i.finish_reason for i in store.items("old-run")} == {"stop"}

    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (2,)
    db.close()


def test_a_read_only_open_of_a_schema_1_store_gives_the_columns_it_lacks_their_defaults(
    tmp_path: Path,
) -> None:
    path = old_store(tmp_path / "answerx.db", version=1)
    with ResultStore(path, read_only=True) as store:
        items = list(store.items("old-run"))
    assert {(i.finish_reason, i.valid, i.unfinished) for i in items} == {(None, None, False)}
    assert {i.item_id: (i.correct, i.reason, i.how) for i in items} == EXPECTED


def test_migration_and_read_only_reading_say_the_same_of_every_old_row(tmp_path: Path) -> None:
    read_only, migrated = old_store(tmp_path / "ro.db"), old_store(tmp_path / "rw.db")
    with ResultStore(read_only, read_only=True) as old, ResultStore(migrated) as new:
        seen = [i.model_dump() for i in old.items("old-run")]
        assert seen == [i.model_dump() for i in new.items("old-run")]


def test_salvage_of_an_old_store_saves_its_verdicts_in_the_new_words(tmp_path: Path) -> None:
    path = old_store(tmp_path / "answerx.db")
    saved = salvage(path, tmp_path / "recovered.db")
    assert (saved.runs, saved.items, saved.complete) == (1, len(OLD_VERDICTS), True)
    with ResultStore(tmp_path / "recovered.db") as store:
        assert verdicts(store) == EXPECTED


@pytest.mark.parametrize("read_only", [True, False])
def test_a_schema_3_store_opens_with_no_span_and_no_conversation(
    tmp_path: Path, read_only: bool
) -> None:
    path = old_store(tmp_path / "answerx.db", version=3)
    with ResultStore(path, read_only=read_only) as store:
        items = list(store.items("old-run"))
    assert len(items) == len(OLD_VERDICTS)
    assert {(i.candidate, i.span, i.conversation) for i in items} == {(None, None, "")}


def test_a_schema_3_store_gains_answers_and_the_measures_which_a_rescore_fills(
    tmp_path: Path,
) -> None:
    path = old_store(tmp_path / "answerx.db", version=3)
    db = sqlite3.connect(path)
    db.execute("UPDATE items SET gold = 'Paris', extracted_answer = 'Paris, France' "
               "WHERE item_id = 'paris'")  # fmt: skip
    db.commit()
    db.close()
    with ResultStore(path, read_only=True) as old:
        assert {(i.answers, i.em, i.f1, i.cover) for i in old.items("old-run")} == {
            (None, None, None, None)
        }
    from answerx.experiments.scoring import score_run

    with ResultStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        score_run(store, "old-run")
        paris = next(store.items("old-run", item_id="paris"))
    # "Paris" is an open-domain answer now: right by cover match, with its measures.
    assert (paris.correct, paris.how, paris.em, paris.cover) == (True, "cover_match", 0.0, 1.0)


@pytest.mark.parametrize("read_only", [True, False])
def test_a_schema_5_store_reads_no_extraction_and_gains_the_column_for_new_items(
    tmp_path: Path, read_only: bool
) -> None:
    from answerx.experiments.records import ItemRecord
    from answerx.extraction import extract

    path = old_store(tmp_path / "answerx.db", version=5)
    with ResultStore(path, read_only=read_only) as store:
        assert {i.extraction for i in store.items("old-run")} == {None}  # scoring rebuilds it
    if read_only:
        return
    found = extract("So the answer is 42.", "numeric")
    new = ItemRecord(
        run_id="old-run", approach="none", strategy="structured", provider="openai",
        model="gpt-test", item_id="new", question="?", raw_output=found.raw_output,
        extracted_answer=found.answer, extraction=found.model_dump(mode="json"),
    )  # fmt: skip
    with ResultStore(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        store.add_item(new)
        stored = next(store.items("old-run", item_id="new"))
    assert stored.extraction is not None
    assert type(found).model_validate(stored.extraction) == found  # whole, as extracted


@pytest.mark.parametrize("version", [1, 2, 3, 5])
def test_the_migrations_leave_the_layout_a_new_store_has(tmp_path: Path, version: int) -> None:
    def layout(path: Path) -> list[tuple[str, str]]:
        db = sqlite3.connect(path)
        found = [(r[1], r[2]) for r in db.execute("PRAGMA table_info(items)")]
        db.close()
        return sorted(found)

    with ResultStore(tmp_path / "new.db"):
        pass
    with ResultStore(old_store(tmp_path / "old.db", version)):
        pass
    assert layout(tmp_path / "old.db") == layout(tmp_path / "new.db")
    assert json.dumps(layout(tmp_path / "new.db"))  # plain (name, type) pairs
