"""The SQLite results store: runs and items, committed at once, never duplicated, exported."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pyarrow.parquet as pq
import pytest
from store_helpers import DAMAGES, Damage, damage, pad_run

import answerx
from answerx.errors import ConfigError, StoreError
from answerx.experiments.records import CallRecord, ItemRecord, RunRecord, calls_json
from answerx.experiments.store import SCHEMA_VERSION, ResultStore, new_run_id, salvage

HASH = "c0ffee" * 10 + "abcd"


def item(run_id: str, item_id: str = "arith-01", **fields: Any) -> ItemRecord:
    """A realistic finished item; ``fields`` override any field."""
    values: dict[str, Any] = {
        "run_id": run_id,
        "approach": "chain_of_thought",
        "strategy": "structured",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "item_id": item_id,
        "dataset": "arithmetic",
        "task": "numeric",
        "question": "What is 6 * 7?",
        "gold": "42",
        "prompt": json.dumps([{"role": "user", "content": "What is 6 * 7?"}]),
        "raw_output": "6 * 7 = 42. <answer>42</answer>",
        "extracted_answer": "42",
        "method": "answer_block",
        "confidence": 0.95,
        "stage": "structured",
        "mode": "tools",
        "attempts": 1,
        "calls": 1,
        "input_tokens": 120,
        "output_tokens": 30,
        "cost_usd": 0.0000360,
        "latency_s": 0.42,
        "finished_at": datetime(2026, 11, 21, 14, 30, 12, 5, tzinfo=UTC),
    }
    values.update(fields)
    return ItemRecord(**values)


@pytest.fixture
def store(tmp_path: Path) -> Any:
    with ResultStore(tmp_path / "runs" / "answerx.db") as opened:
        yield opened


def test_a_new_store_is_a_wal_database_at_the_current_schema(store: ResultStore) -> None:
    assert store.path.is_file()
    assert store.journal_mode == "wal"
    assert store.schema_version == SCHEMA_VERSION


def test_every_item_field_has_its_column_and_keys_are_unique(store: ResultStore) -> None:
    db = sqlite3.connect(store.path)
    columns = {row[1] for row in db.execute("PRAGMA table_info(items)")}
    assert set(ItemRecord.model_fields) <= columns
    [unique] = [row for row in db.execute("PRAGMA index_list(items)") if row[2] == 1]
    key = [row[2] for row in db.execute(f"PRAGMA index_info({unique[1]})")]
    assert key == ["run_id", "approach", "strategy", "provider", "model", "item_id", "repetition"]
    db.close()


def test_the_browsing_index_holds_browse_columns_and_the_facets_lead_it(
    store: ResultStore,
) -> None:
    from answerx.experiments.store import BROWSE_COLUMNS, FACETS, GROUPS

    db = sqlite3.connect(store.path)
    indexed = [row[2] for row in db.execute("PRAGMA index_info(items_browse)")]
    db.close()
    assert indexed == list(BROWSE_COLUMNS)  # changing the list needs a migration
    # The viewer's facets and a tally's groups read the index in its order, after the run.
    assert BROWSE_COLUMNS[1 : 1 + len(FACETS)] == FACETS
    assert GROUPS[:-1] == BROWSE_COLUMNS[1 : len(GROUPS)] and GROUPS[-1] == "run_id"


@pytest.mark.parametrize("mode", ["existing", "read", "read_only"])
def test_a_command_on_existing_runs_never_creates_a_store(tmp_path: Path, mode: str) -> None:
    from answerx.experiments.store import OpenMode

    missing = tmp_path / "nowhere" / "answerx.db"
    with pytest.raises(StoreError):
        ResultStore.open(missing, cast(OpenMode, mode))
    assert not missing.parent.exists()


def test_open_for_writing_creates_the_store_and_the_other_modes_read_what_it_wrote(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs" / "answerx.db"
    with ResultStore.open(path, "write") as created:
        run = created.start_run("demo", {}, HASH)
        created.add_item(item(run.run_id))
    for mode in ("existing", "read", "read_only"):
        with ResultStore.open(path, mode) as opened:  # type: ignore[arg-type]
            assert [i.item_id for i in opened.items(run.run_id)] == ["arith-01"]
            assert opened.read_only == (mode == "read_only")


def test_run_ids_are_short_and_sort_by_time() -> None:
    early = new_run_id(datetime(2026, 11, 21, 14, 30, 12, tzinfo=UTC))
    late = new_run_id(datetime(2026, 11, 21, 14, 30, 13, tzinfo=UTC))
    assert early.startswith("20261121-143012-") and len(early) == len("20261121-143012-ab12")
    assert early < late


def test_a_run_is_stored_with_its_config_and_the_answerx_version(store: ResultStore) -> None:
    run = store.start_run("demo", {"approaches": ["none"], "seed": 0}, HASH)
    again = store.get_run(run.run_id)
    assert again == run
    assert again.answerx_version == answerx.__version__ and again.status == "running"
    assert again.config == {"approaches": ["none"], "seed": 0}
    assert store.find_runs(HASH) == [run] and store.find_runs("other") == []


def test_runs_are_listed_newest_first_and_found_by_a_unique_prefix(store: ResultStore) -> None:
    first = store.create_run(
        RunRecord(
            run_id="20261120-090000-aaaa",
            name="a",
            config={},
            config_hash=HASH,
            answerx_version="0.1.0",
            started_at=datetime(2026, 11, 20, 9, tzinfo=UTC),
        )
    )
    second = store.start_run("b", {}, HASH)
    assert [r.run_id for r in store.list_runs()] == [second.run_id, first.run_id]
    assert store.latest_run() == second
    assert store.get_run("20261120") == first


def test_an_unknown_run_is_a_clear_error(store: ResultStore) -> None:
    with pytest.raises(ConfigError, match=r"no run 'nope' in .*answerx.db; `answerx runs list`"):
        store.get_run("nope")
    with pytest.raises(ConfigError, match="no run 'nope'"):
        store.add_item(item("nope"))
    with pytest.raises(ConfigError, match="no run 'nope'"):
        store.finish_run("nope")


def test_finishing_and_resuming_a_run_records_status_and_end(store: ResultStore) -> None:
    run = store.start_run("demo", {}, HASH)
    ended = store.finish_run(run.run_id, "interrupted")
    assert ended.status == "interrupted" and ended.finished_at is not None
    resumed = store.resume_run(run.run_id)
    assert resumed.status == "running" and resumed.finished_at is None


def test_items_survive_reopening_exactly(tmp_path: Path) -> None:
    path = tmp_path / "answerx.db"
    with ResultStore(path) as store:
        run = store.start_run("demo", {}, HASH)
        stored = [
            item(run.run_id, "arith-01"),
            item(
                run.run_id,
                "mc-01",
                task="multiple_choice",
                choices=["Trout", "Whale"],
                gold="B",
                cost_usd=None,
                cached=True,
            ),
            item(run.run_id, "g24-01", numbers=[4, 7, 8, 8], repetition=2, finished_at=None),
        ]
        for record in stored:
            assert store.add_item(record) is True
    with ResultStore(path) as reopened:
        assert list(reopened.items(run.run_id)) == stored
        assert reopened.count_items(run.run_id) == 3


def test_adding_a_finished_item_again_never_duplicates_it(store: ResultStore) -> None:
    run = store.start_run("demo", {}, HASH)
    first = item(run.run_id)
    assert store.add_item(first) is True
    assert store.add_item(item(run.run_id, extracted_answer="41")) is False  # ignored
    assert store.add_items([item(run.run_id), item(run.run_id, "arith-02")]) == 1
    assert [i.extracted_answer for i in store.items(run.run_id)] == ["42", "42"]
    assert store.done_keys(run.run_id) == {first.key, item(run.run_id, "arith-02").key}


def test_an_errored_item_is_not_done_and_its_retry_replaces_it(store: ResultStore) -> None:
    run = store.start_run("demo", {}, HASH)
    failed = item(run.run_id, error="ProviderTimeout: no answer in 60 s", extracted_answer=None)
    store.add_item(failed)
    assert store.done_keys(run.run_id) == set()  # a resume retries it
    assert store.add_item(item(run.run_id)) is True
    [kept] = store.items(run.run_id)
    assert kept.error is None and kept.extracted_answer == "42"
    assert store.done_keys(run.run_id) == {failed.key}


def test_error_texts_are_redacted_before_they_are_written(store: ResultStore) -> None:
    run = store.start_run("demo", {}, HASH)
    store.add_item(item(run.run_id, error="401: Incorrect API key provided: sk-proj-fakefake0000"))
    [stored] = store.items(run.run_id)
    assert stored.error is not None and "fakefake0000" not in stored.error
    wal = Path(f"{store.path}-wal")
    raw = store.path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert b"fakefake0000" not in raw


def test_items_filter_by_any_field(store: ResultStore) -> None:
    run = store.start_run("demo", {}, HASH)
    store.add_items(
        [
            item(run.run_id, "1", provider="openai"),
            item(run.run_id, "2", provider="anthropic", model="claude-haiku-4-5"),
            item(run.run_id, "3", provider="local", model="SmolLM2-135M-Instruct", approach="none"),
        ]
    )
    assert [i.item_id for i in store.items(run.run_id, approach="none")] == ["3"]
    assert [i.item_id for i in store.items(run.run_id, provider=["openai", "local"])] == ["1", "3"]
    assert store.count_items(run.run_id, correct=None) == 3
    with pytest.raises(ConfigError, match="cannot filter items by 'colour'"):
        list(store.items(run.run_id, colour="red"))


def test_items_are_read_in_pages_in_the_order_stored(store: ResultStore) -> None:
    run = store.start_run("big", {}, HASH)
    store.add_items(item(run.run_id, f"q{n:04d}") for n in range(1234))
    ids = [i.item_id for i in store.items(run.run_id)]
    assert ids == [f"q{n:04d}" for n in range(1234)]


def test_verdicts_are_written_by_key_in_grading_s_own_words(store: ResultStore) -> None:
    run = store.start_run("demo", {}, HASH)
    right, wrong = item(run.run_id, "1"), item(run.run_id, "2", extracted_answer="41")
    store.add_items([right, wrong])
    ghost = item(run.run_id, "not-in-run")
    judged = {"correct": True, "reason": "equivalent", "how": "fraction"}
    detail = {"correct": False, "reason": "different", "how": "fraction"}
    updated = store.update_verdicts(
        run.run_id,
        [
            right.model_copy(update=judged),
            wrong.model_copy(update={**detail, "verdict_detail": {"f1": 0.5, "alias": "x"}}),
            ghost.model_copy(update=judged),
        ],
    )
    assert updated == 2
    assert [(i.correct, i.reason, i.how, i.verdict_detail) for i in store.items(run.run_id)] == [
        (True, "equivalent", "fraction", None),
        (False, "different", "fraction", {"f1": 0.5, "alias": "x"}),
    ]
    assert store.count_items(run.run_id, correct=True) == 1
    assert [i.item_id for i in store.items(run.run_id, reason="different", how="fraction")] == ["2"]


def test_deleting_a_run_deletes_its_items_only(store: ResultStore) -> None:
    keep, drop = store.start_run("keep", {}, HASH), store.start_run("drop", {}, HASH)
    store.add_items([item(keep.run_id), item(drop.run_id), item(drop.run_id, "2")])
    assert store.delete_run(drop.run_id) == 2
    assert [r.run_id for r in store.list_runs()] == [keep.run_id]
    assert store.count_items(keep.run_id) == 1
    with pytest.raises(ConfigError):
        store.get_run(drop.run_id)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_an_export_reads_back_as_the_same_items(
    store: ResultStore, tmp_path: Path, suffix: str
) -> None:
    run = store.start_run("demo", {}, HASH)
    stored = [
        item(run.run_id, "1", correct=True, reason="equivalent", how="exact"),
        item(run.run_id, "4", valid=False, problem="not a number", unfinished=True),
        item(run.run_id, "5", reason="different", verdict_detail={"judge": {"calls": 1}}),
        item(run.run_id, "2", choices=["a, with comma", 'b "quoted"'], cost_usd=None),
        item(run.run_id, "3", numbers=[1, 2, 3, 4], raw_output="line one\nline two", error="x"),
        item(run.run_id, "6", candidate="42", span=(27, 29), conversation=CONVERSATION),
        item(
            run.run_id, "7", extraction={"answer": "42", "method": "answer_block", "span": [27, 29]}
        ),
    ]
    store.add_items(stored)
    path = tmp_path / "out" / f"items{suffix}"
    assert store.export(run.run_id, path) == 7
    assert read_export(path) == stored


CONVERSATION = calls_json(
    [
        CallRecord(
            kind="text",
            messages=[{"role": "user", "content": "What is 6 * 7?"}],
            reply="6 * 7 = 42. <answer>42</answer>",
        )
    ]
)


def read_export(path: Path) -> list[ItemRecord]:
    """Read an export back with nothing but csv / json / pyarrow."""
    if path.suffix == ".jsonl":
        return [ItemRecord.model_validate_json(line) for line in path.read_text().splitlines()]
    if path.suffix == ".parquet":
        rows = pq.read_table(path).to_pylist()
        for row in rows:  # free-form JSON is a text column in Parquet
            for name in ("verdict_detail", "extraction"):
                row[name] = row[name] and json.loads(row[name])
        return [ItemRecord.model_validate(row) for row in rows]
    records = []
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            values: dict[str, Any] = {k: v for k, v in row.items() if v != ""}
            for name in ("choices", "numbers", "verdict_detail", "span", "extraction"):
                if name in values:
                    values[name] = json.loads(values[name])
            for name in ("cached", "correct", "valid", "unfinished"):
                if name in values:
                    values[name] = values[name] == "true"
            records.append(ItemRecord.model_validate(values))
    return records


def test_export_format_comes_from_the_suffix_or_is_given(
    store: ResultStore, tmp_path: Path
) -> None:
    run = store.start_run("demo", {}, HASH)
    with pytest.raises(ConfigError, match=r"cannot tell the export format of .*items\.txt"):
        store.export(run.run_id, tmp_path / "items.txt")
    assert store.export(run.run_id, tmp_path / "items.txt", "jsonl") == 0
    assert store.export(run.run_id, tmp_path / "empty.parquet") == 0
    assert pq.read_table(tmp_path / "empty.parquet").num_rows == 0


def test_a_store_from_a_newer_answerx_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer than this answerx") as caught:
        ResultStore(path)
    assert caught.value.path == str(path)


def test_a_file_that_is_not_a_database_is_a_store_error_saying_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match=r"not a SQLite database .*pass the right --db"):
        ResultStore(path)
    assert path.read_text().startswith("these are my notes")  # left as it was


@pytest.fixture
def padded(tmp_path: Path) -> tuple[Path, str]:
    """A closed store holding one run of 300 items (about 200 pages), and the run's id."""
    path = tmp_path / "runs" / "answerx.db"
    with ResultStore(path) as store:
        run_id = store.start_run("padded", {}, HASH).run_id
    pad_run(path, run_id)
    return path, run_id


def _read_everything(path: Path, run_id: str, tmp_path: Path) -> None:
    with ResultStore(path) as store:
        store.get_run(run_id)
        store.done_keys(run_id)
        list(store.items(run_id))
        store.export(run_id, tmp_path / "out.jsonl")


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_store_raises_a_store_error_naming_the_file_never_sqlite3s(
    padded: tuple[Path, str], tmp_path: Path, how: Damage
) -> None:
    path, run_id = padded
    damage(path, how)
    with pytest.raises(StoreError) as caught:
        _read_everything(path, run_id, tmp_path)
    message = str(caught.value)
    assert str(path) in message and caught.value.path == str(path)
    if how == "replaced":
        assert "not a SQLite database" in message
    else:
        assert "malformed" in message and f"sqlite3 {path} .recover | sqlite3" in message
    assert not (tmp_path / "out.jsonl").exists()


def test_an_export_that_fails_half_way_leaves_no_half_file_and_keeps_the_old_one(
    padded: tuple[Path, str], tmp_path: Path
) -> None:
    path, run_id = padded
    out = tmp_path / "items.jsonl"
    with ResultStore(path) as store:
        assert store.export(run_id, out) == 300
    before = out.read_bytes()
    damage(path, "pages")
    with ResultStore(path) as store, pytest.raises(StoreError):
        store.export(run_id, out)
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []


def test_salvage_saves_every_readable_item_of_a_store_with_damaged_pages(
    padded: tuple[Path, str], tmp_path: Path
) -> None:
    path, run_id = padded
    damage(path, "pages")
    out = tmp_path / "recovered.db"

    saved = salvage(path, out)

    assert saved.runs == 1 and saved.unreadable_runs == 0 and not saved.end_lost
    assert 0 < saved.unreadable_items < 30  # three pages' worth, not the whole table
    assert saved.items + saved.unreadable_items == 300 and not saved.complete
    with ResultStore(out) as store:  # a normal store: every record reads back
        assert store.get_run(run_id).name == "padded"
        ids = [item.item_id for item in store.items(run_id)]
    assert len(ids) == saved.items == len(set(ids))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_salvage_of_a_truncated_store_saves_its_first_half_and_says_the_end_is_lost(
    padded: tuple[Path, str], tmp_path: Path
) -> None:
    path, _ = padded
    damage(path, "truncated")

    saved = salvage(path, tmp_path / "recovered.db")

    assert saved.runs == 1 and saved.end_lost and 100 < saved.items < 300


def test_salvage_of_an_intact_store_copies_everything(
    padded: tuple[Path, str], tmp_path: Path
) -> None:
    path, _ = padded
    saved = salvage(path, tmp_path / "copy.db")
    assert (saved.runs, saved.items, saved.complete) == (1, 300, True)


def test_salvage_refuses_another_file_and_an_existing_target_leaving_nothing_behind(
    padded: tuple[Path, str], tmp_path: Path
) -> None:
    path, _ = padded
    out = tmp_path / "recovered.db"
    out.write_text("mine")
    with pytest.raises(ConfigError, match="already exists"):
        salvage(path, out)
    assert out.read_text() == "mine"

    damage(path, "replaced")
    with pytest.raises(StoreError, match="not a SQLite database"):
        salvage(path, tmp_path / "new.db")
    assert not (tmp_path / "new.db").exists()


def test_a_reader_sees_committed_items_while_a_writer_is_writing(tmp_path: Path) -> None:
    path = tmp_path / "answerx.db"
    writer = ResultStore(path)
    run = writer.start_run("live", {}, HASH)
    total = 300
    failures: list[BaseException] = []

    def write() -> None:
        try:
            for n in range(total):
                writer.add_item(item(run.run_id, str(n)))
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    thread = threading.Thread(target=write)
    seen: list[int] = []
    with ResultStore(path) as reader:
        thread.start()
        while thread.is_alive():
            seen.append(reader.count_items(run.run_id))
            list(reader.items(run.run_id, item_id="0"))
        thread.join()
        seen.append(reader.count_items(run.run_id))
    writer.close()
    assert not failures
    assert seen == sorted(seen) and seen[-1] == total  # never a step back, never a lock error
    assert len(set(seen)) > 2  # the reader really read during the writes


_WRITER = textwrap.dedent(
    """
    import sys
    from answerx.experiments.records import ItemRecord
    from answerx.experiments.store import ResultStore

    store = ResultStore(sys.argv[1])
    run_id = sys.argv[2]
    for n in range(100_000):
        store.add_item(ItemRecord(run_id=run_id, approach="none", strategy="structured",
                                  provider="local", model="m", item_id=str(n), question="q"))
        print(n + 1, flush=True)
    """
)


@pytest.mark.slow
def test_every_item_committed_before_a_kill_9_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "answerx.db"
    with ResultStore(path) as store:
        run_id = store.start_run("killed", {}, HASH).run_id
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    process = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), run_id],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    reported = 0
    for line in process.stdout:
        reported = int(line)
        if reported >= 200:
            break
    process.send_signal(signal.SIGKILL)
    process.wait()
    with ResultStore(path) as store:
        assert store.count_items(run_id) >= reported  # printed only after the commit
        assert len(store.done_keys(run_id)) == store.count_items(run_id)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()


def test_a_store_of_schema_1_gains_the_finish_reason_column_and_keeps_its_items(
    tmp_path: Path,
) -> None:
    from answerx.experiments import store as store_module

    path = tmp_path / "answerx.db"
    db = sqlite3.connect(path)
    for statement in store_module.MIGRATIONS[0][1].split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with ResultStore(path) as old:  # opening migrates it
        assert old.schema_version == SCHEMA_VERSION
        run = old.start_run("demo", {}, HASH)
        old.add_item(item(run.run_id, "cut-01", finish_reason="length"))
        old.add_item(item(run.run_id, "plain-01"))
    with ResultStore(path) as reopened:
        reasons = {r.item_id: r.finish_reason for r in reopened.items(run.run_id)}
    assert reasons == {"cut-01": "length", "plain-01": None}
