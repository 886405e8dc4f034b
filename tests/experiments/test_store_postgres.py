"""The results store on a real PostgreSQL server answers as the SQLite file does.

Each test here runs on both backends (``backend``: a SQLite file, or a fresh database
on the session's PostgreSQL server, skipped saying why where none can be had): the
same writes, the same records read back, the same browse queries with the same answers,
the same migrations, and the same refusals. The server's credentials never reach a
message.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_store_browse import _item

from answerx.errors import StoreError
from answerx.experiments.records import ItemRecord
from answerx.experiments.store import MIGRATIONS, SCHEMA_VERSION, ResultStore
from answerx.experiments.store.browse import Arm, ItemQuery, Pairing
from answerx.extraction import extract

HASH = "0" * 64


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store lives: a SQLite file's path, or a PostgreSQL database's URL."""
    if request.param == "sqlite":
        return str(tmp_path / "answerx.db")
    return str(request.getfixturevalue("postgres_url"))


def _fill(store: ResultStore) -> str:
    """The browse tests' run: six questions x two approaches, some wrong, one cut off,
    one failed."""
    run = store.start_run("browse", {"approaches": ["none"]}, HASH)
    wrong = {"correct": False, "reason": "different"}
    items = []
    for n in range(1, 7):
        items.append(_item(run.run_id, n, "none", **(wrong if n in (1, 4) else {})))
        items.append(_item(run.run_id, n, "chain_of_thought", **(wrong if n == 4 else {})))
    items[9] = _item(
        run.run_id, 5, "chain_of_thought", unfinished=True, extracted_answer=None,
        method="none", correct=False, reason="unfinished", how="none",
        raw_output="Thinking 50% of the_way and then",
    )  # fmt: skip
    items[10] = _item(
        run.run_id, 6, "none", error="ProviderError: down", correct=False,
        reason="no_answer", extracted_answer=None, cost_usd=None,
    )  # fmt: skip
    assert store.add_items(items) == 12
    return run.run_id


@pytest.fixture
def filled(backend: str) -> Iterator[tuple[ResultStore, str]]:
    with ResultStore.open(backend, "write") as store:
        yield store, _fill(store)


def test_a_new_store_is_at_the_current_schema_on_either_backend(backend: str) -> None:
    with ResultStore.open(backend, "write") as store:
        assert store.schema_version == SCHEMA_VERSION
    with ResultStore.open(backend, "existing") as again:  # now it is a store
        assert again.list_runs() == []


def test_items_read_back_exactly_with_their_whole_extraction(backend: str) -> None:
    found = extract("6 * 7 = 42, so the answer is 42.", "numeric")
    with ResultStore.open(backend, "write") as store:
        run = store.start_run("exact", {"nested": {"k": [1, 2]}}, HASH)
        stored = _item(
            run.run_id, 1, "none", extraction=found.model_dump(mode="json"), span=(30, 32),
            choices=["a", "b"], numbers=[1, 2], verdict_detail={"doubt": "x"}, cost_usd=0.000123,
        )  # fmt: skip
        assert store.add_item(stored)
        assert not store.add_item(stored)  # finished: never duplicated
        [back] = list(store.items(run.run_id))
        assert store.get_run(run.run_id[:10]).config == {"nested": {"k": [1, 2]}}
    assert back == stored
    assert type(found).model_validate(back.extraction) == found


def test_an_errored_item_is_retried_in_its_place_and_verdicts_update_by_key(
    backend: str,
) -> None:
    with ResultStore.open(backend, "write") as store:
        run = store.start_run("retry", {}, HASH)
        store.add_item(_item(run.run_id, 1, "none", error="timeout", correct=None, reason=None))
        assert store.done_keys(run.run_id) == set()
        assert store.add_item(_item(run.run_id, 1, "none"))
        assert len(store.done_keys(run.run_id)) == 1
        fixed = _item(run.run_id, 1, "none", correct=False, reason="different", how="exact")
        assert store.update_verdicts(run.run_id, [fixed]) == 1
        [item] = list(store.items(run.run_id, correct=False))
        assert (item.reason, store.count_items(run.run_id)) == ("different", 1)
        assert store.item_counts() == {run.run_id: 1}
        assert store.delete_run(run.run_id) == 1


QUERIES = [
    ItemQuery(),
    ItemQuery(equals={"correct": (False,), "approach": ("none",)}),
    ItemQuery(equals={"extracted_answer": (None,)}),
    ItemQuery(equals={"reason": ()}),
    ItemQuery(at_least={"latency_s": 2}, at_most={"output_tokens": 50}),
    ItemQuery(search="50%"),
    ItemQuery(search="THE_WAY"),
    ItemQuery(has_error=True),
    ItemQuery(paired=Pairing(approach="chain_of_thought", strategy="two_stage", correct=True)),
    ItemQuery(sort="latency_s", descending=True),
    ItemQuery(sort="cost_usd"),
]


def _answers(store: ResultStore, run_id: str) -> list[Any]:
    """Everything the browse queries say of the run, in a form two backends can compare."""
    said: list[Any] = []
    for query in QUERIES:
        page = store.item_page(run_id, query, offset=1, limit=4)
        rows = [(r.approach, r.item_id) for r in page.rows]
        row = page.rows[0].row if page.rows else None
        place = store.neighbours(run_id, row, query) if row is not None else None
        said.append((rows, page.total, store.count_rows(run_id, query), place and place.position))
    said.append(store.tally(run_id, ("approach", "correct")))
    said.append(store.value_counts(run_id, ("approach", "reason")))
    arm = {"run_id": run_id, "strategy": "two_stage", "provider": "openai", "model": "gpt-test"}
    said.append(
        store.paired_counts(Arm(approach="none", **arm), Arm(approach="chain_of_thought", **arm))
    )
    return said


def test_the_browse_queries_answer_alike_on_both_backends(
    tmp_path: Path, postgres_url: str
) -> None:
    with ResultStore.open(tmp_path / "answerx.db") as lite, ResultStore.open(postgres_url) as pg:
        assert _answers(pg, _fill(pg)) == _answers(lite, _fill(lite))


def test_the_browse_queries_find_what_they_ask_for(filled: tuple[ResultStore, str]) -> None:
    store, run_id = filled
    wrong = store.item_page(run_id, QUERIES[1])
    assert [r.item_id for r in wrong.rows] == ["q1", "q4", "q6"] and wrong.total == 3
    assert [r.item_id for r in store.item_page(run_id, QUERIES[5]).rows] == ["q5"]  # a literal %
    assert [r.item_id for r in store.item_page(run_id, QUERIES[6]).rows] == ["q5"]  # any case
    assert store.item_page(run_id, QUERIES[3]).total == 0
    [none] = [t for t in store.tally(run_id, ("approach",)) if t.group["approach"] == "none"]
    assert (none.n, none.correct, none.errors, none.cost_usd) == (6, 3, 1, None)
    # Grouped by the verdict too, each group counts its own right answers.
    tallies = store.tally(run_id, ("approach", "correct"))
    by_verdict = {(t.group["approach"], t.group["correct"]): t.correct for t in tallies}
    assert by_verdict == {
        ("none", True): 3,
        ("none", False): 0,
        ("chain_of_thought", True): 4,
        ("chain_of_thought", False): 0,
    }


def test_a_command_on_runs_refuses_a_database_that_holds_no_store(postgres_url: str) -> None:
    for mode in ("existing", "read", "read_only"):
        with pytest.raises(StoreError, match="holds no answerx results store"):
            ResultStore.open(postgres_url, mode)  # type: ignore[arg-type]


def test_a_read_only_store_on_the_server_writes_nothing(postgres_url: str) -> None:
    with ResultStore.open(postgres_url, "write") as store:
        run = store.start_run("kept", {}, HASH)
    with ResultStore.open(postgres_url, "read_only") as reading:
        assert reading.get_run(run.run_id).name == "kept"
        with pytest.raises(StoreError):
            reading.delete_run(run.run_id)
    with ResultStore.open(postgres_url, "read") as again:
        assert [r.run_id for r in again.list_runs()] == [run.run_id]


def test_a_wrong_password_is_a_store_error_that_never_shows_a_password(
    postgres_url: str,
) -> None:
    wrong = postgres_url.replace("@127.0.0.1", "-wrong@127.0.0.1")
    password = wrong.split(":")[2].split("@")[0]
    with pytest.raises(StoreError) as raised:
        ResultStore.open(wrong, "write")
    assert password not in str(raised.value)
    assert "127.0.0.1" in str(raised.value)


def _schema_5_on(backend: str) -> None:
    """A store of schema 5, built as answerx before the extraction column built it."""
    from answerx.experiments.store.postgres import postgres_ddl

    statements = [s for _n, sql in MIGRATIONS[:5] for s in sql.split(";") if s.strip()]
    row = _item("old", 1, "none").model_dump(mode="json", exclude={"extraction"})
    for name in ("choices", "numbers", "span", "verdict_detail", "answers"):
        row[name] = None
    row = {k: (int(v) if isinstance(v, bool) else v) for k, v in row.items()}
    insert_run = (
        "INSERT INTO runs VALUES ('old', 'before', '{}', 'h', '0.1.0', "
        "'2025-06-01T10:00:00+00:00', NULL, 'finished')"
    )
    insert = f"INSERT INTO items ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})"
    if backend.startswith("postgresql"):
        import psycopg

        with psycopg.connect(backend, autocommit=True) as db:
            for statement in statements:
                if any(
                    not line.strip().startswith("--")
                    for line in statement.splitlines()
                    if line.strip()
                ):
                    db.execute(postgres_ddl(statement))
            db.execute("CREATE TABLE answerx_schema (version INTEGER)")
            db.execute("INSERT INTO answerx_schema VALUES (5)")
            db.execute(insert_run)
            db.execute(insert.replace("?", "%s"), list(row.values()))
        return
    db = sqlite3.connect(backend)
    for statement in statements:
        db.execute(statement)
    db.execute("PRAGMA user_version = 5")
    db.execute(insert_run)
    db.execute(insert, list(row.values()))
    db.commit()
    db.close()


def test_a_schema_5_store_migrates_on_either_backend_and_keeps_its_items(backend: str) -> None:
    _schema_5_on(backend)
    with ResultStore.open(backend, "write") as store:
        assert store.schema_version == SCHEMA_VERSION
        [old] = list(store.items("old"))
        assert (old.item_id, old.extraction) == ("q1", None)  # scoring rebuilds it
        found = extract("The answer is 7.", "numeric")
        store.add_item(_item("old", 2, "none", extraction=found.model_dump(mode="json")))
        assert next(store.items("old", item_id="q2")).extraction == found.model_dump(mode="json")
    with ResultStore.open(backend, "write") as again:  # migrated once
        assert again.count_items("old") == 2


def test_records_cross_backends_unchanged(tmp_path: Path, postgres_url: str) -> None:
    with ResultStore.open(postgres_url) as pg:
        run_id = _fill(pg)
        items: list[ItemRecord] = list(pg.items(run_id))
        run = pg.get_run(run_id)
    with ResultStore.open(tmp_path / "copy.db") as lite:
        lite.create_run(run)
        lite.add_items(items)
        assert list(lite.items(run_id)) == items and lite.get_run(run_id) == run


KEY = ("none", "structured", "openai", "gpt-test", "q1", 0)
OTHER = ("none", "structured", "openai", "gpt-test", "q2", 0)


def test_an_item_is_held_by_one_worker_until_its_lease_runs_out(backend: str) -> None:
    with ResultStore.open(backend, "write") as store:
        run_id = store.start_run("claims", {}, HASH).run_id
        assert store.claim(run_id, KEY, "worker-a", 60)
        assert not store.claim(run_id, KEY, "worker-b", 60)  # held: never both
        assert store.claim(run_id, OTHER, "worker-b", 0.05)
        time.sleep(0.1)  # worker-b died: its lease ran out
        assert store.claim(run_id, OTHER, "worker-a", 60)
        store.finish_claim(run_id, KEY, "worker-a")
        assert store.finished_claims(run_id) == {KEY}
        store.renew_claims(run_id, "worker-a", 0.05)  # renews OTHER, never a finished one
        time.sleep(0.1)
        assert not store.claim(run_id, KEY, "worker-b", 60)  # finished: asked no more
        assert store.claim(run_id, OTHER, "worker-b", 60)


def test_workers_joining_a_configuration_share_its_unfinished_run(backend: str) -> None:
    with ResultStore.open(backend, "write") as one, ResultStore.open(backend, "write") as two:
        first = one.join_run("shared", {}, HASH)
        assert two.join_run("shared", {}, HASH).run_id == first.run_id
        two.claim(first.run_id, KEY, "worker-b", 60)
        one.finish_run(first.run_id, "interrupted")  # everyone stopped: claims mean nothing
        again = one.join_run("shared", {}, HASH)
        assert (again.run_id, again.status) == (first.run_id, "running")
        assert one.claim(first.run_id, KEY, "worker-a", 60)
        one.finish_run(first.run_id, "finished")
        assert two.join_run("shared", {}, HASH).run_id != first.run_id  # a new run
