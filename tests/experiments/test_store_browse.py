"""Browsing a run's items in the store: filters, ranges, search, pairs, order, pages,
neighbours and tallies, all answered by SQLite (what ``answerx runs view`` reads)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from answerx.errors import ConfigError
from answerx.experiments.records import ItemRecord
from answerx.experiments.store import ResultStore
from answerx.experiments.store.browse import ItemQuery, Pairing

HASH = "0" * 64


def _item(run_id: str, number: int, approach: str, **fields: Any) -> ItemRecord:
    values: dict[str, Any] = {
        "run_id": run_id,
        "approach": approach,
        "strategy": "two_stage",
        "provider": "openai",
        "model": "gpt-test",
        "item_id": f"q{number}",
        "dataset": "d",
        "task": "numeric",
        "question": f"What is {number} + 1?",
        "gold": str(number + 1),
        "raw_output": f"Thinking about {number}. <answer>{number + 1}</answer>",
        "extracted_answer": str(number + 1),
        "method": "answer_block",
        "confidence": 0.9,
        "latency_s": float(number),
        "output_tokens": 10 * number,
        "cost_usd": 0.001,
        "correct": True,
        "reason": "equivalent",
        "how": "exact",
    }
    values.update(fields)
    return ItemRecord(**values)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[ResultStore, str]]:
    """Six questions x two approaches: ``none`` gets q1 and q4 wrong, ``chain_of_thought``
    q4 only; q5 of chain_of_thought was cut off and q6 of none failed."""
    with ResultStore(tmp_path / "answerx.db") as store:
        run = store.start_run("browse", {}, HASH)
        wrong = {"correct": False, "reason": "different"}
        items = []
        for n in range(1, 7):
            items.append(_item(run.run_id, n, "none", **(wrong if n in (1, 4) else {})))
            items.append(_item(run.run_id, n, "chain_of_thought", **(wrong if n == 4 else {})))
        items[9] = _item(
            run.run_id,
            5,
            "chain_of_thought",
            unfinished=True,
            extracted_answer=None,
            method="none",
            correct=False,
            reason="unfinished",
            how="none",
            raw_output="Thinking 50% of the_way and then",
        )
        items[10] = _item(
            run.run_id,
            6,
            "none",
            error="ProviderError: down",
            correct=False,
            reason="no_answer",
            extracted_answer=None,
            cost_usd=None,
        )
        store.add_items(items)
        yield store, run.run_id


def _ids(store: ResultStore, run_id: str, query: ItemQuery, **page: int) -> list[str]:
    return [f"{r.approach}:{r.item_id}" for r in store.item_page(run_id, query, **page).rows]


def test_wrong_items_of_one_approach_are_found_with_their_count(
    store: tuple[ResultStore, str],
) -> None:
    db, run_id = store
    query = ItemQuery(equals={"correct": (False,), "approach": ("none",)})
    page = db.item_page(run_id, query)
    assert [r.item_id for r in page.rows] == ["q1", "q4", "q6"]
    assert page.total == 3 == db.count_rows(run_id, query)


def test_a_filter_takes_several_values_and_none_for_a_missing_one(
    store: tuple[ResultStore, str],
) -> None:
    db, run_id = store
    either = ItemQuery(equals={"reason": ("unfinished", "no_answer")})
    assert _ids(db, run_id, either) == ["chain_of_thought:q5", "none:q6"]
    unanswered = ItemQuery(equals={"extracted_answer": (None,)})
    assert db.count_rows(run_id, unanswered) == 2


def test_ranges_and_failures_narrow_the_items(store: tuple[ResultStore, str]) -> None:
    db, run_id = store
    slow = ItemQuery(at_least={"latency_s": 5.0}, at_most={"output_tokens": 55})
    assert _ids(db, run_id, slow) == ["none:q5", "chain_of_thought:q5"]
    assert _ids(db, run_id, ItemQuery(has_error=True)) == ["none:q6"]
    assert db.count_rows(run_id, ItemQuery(has_error=False)) == 11


def test_search_finds_text_literally_whatever_the_case_of_ascii_letters(
    store: tuple[ResultStore, str],
) -> None:
    db, run_id = store
    assert _ids(db, run_id, ItemQuery(search="50% OF THE_WAY")) == ["chain_of_thought:q5"]
    assert db.count_rows(run_id, ItemQuery(search="5_%")) == 0  # no wildcards
    assert db.count_rows(run_id, ItemQuery(search="what is 3", search_in="question")) == 2


def test_paired_items_are_those_whose_question_the_other_approach_got_right(
    store: tuple[ResultStore, str],
) -> None:
    db, run_id = store
    # none wrong where chain_of_thought was right: the items behind McNemar's "only b".
    query = ItemQuery(
        equals={"approach": ("none",), "correct": (False,)},
        paired=Pairing(approach="chain_of_thought", strategy="two_stage", correct=True),
    )
    assert _ids(db, run_id, query) == ["none:q1", "none:q6"]


def test_items_sort_by_any_column_and_page_in_that_order(store: tuple[ResultStore, str]) -> None:
    db, run_id = store
    slowest = ItemQuery(equals={"approach": ("none",)}, sort="latency_s", descending=True)
    assert _ids(db, run_id, slowest, limit=2) == ["none:q6", "none:q5"]
    assert _ids(db, run_id, slowest, offset=4, limit=5) == ["none:q2", "none:q1"]
    assert db.item_page(run_id, slowest, offset=4, limit=5).total == 6


def test_neighbours_walk_the_items_of_a_query_in_its_order(
    store: tuple[ResultStore, str],
) -> None:
    db, run_id = store
    wrong = ItemQuery(equals={"correct": (False,)})
    rows = [r.row for r in db.item_page(run_id, wrong).rows]
    assert len(rows) == 5
    middle = db.neighbours(run_id, rows[2], wrong)
    assert middle is not None
    assert (middle.position, middle.total, middle.previous, middle.next) == (
        3,
        5,
        rows[1],
        rows[3],
    )
    first = db.neighbours(run_id, rows[0], wrong)
    assert first is not None and first.previous is None
    right = db.item_page(run_id, ItemQuery(equals={"correct": (True,)})).rows[0].row
    assert db.neighbours(run_id, right, wrong) is None  # not among them


def test_item_at_reads_one_whole_item_of_the_run(store: tuple[ResultStore, str]) -> None:
    db, run_id = store
    row = db.item_page(run_id, ItemQuery(equals={"item_id": ("q5",)})).rows[0]
    item = db.item_at(run_id, row.row)
    assert item is not None and item.raw_output.startswith("Thinking about 5")
    assert db.item_at("another-run", row.row) is None
    assert db.item_at(run_id, 10_000) is None


def test_tallies_count_verdicts_tokens_and_cost_per_group(
    store: tuple[ResultStore, str],
) -> None:
    db, run_id = store
    by_approach = {t.group["approach"]: t for t in db.tally(run_id, ("approach",))}
    none, cot = by_approach["none"], by_approach["chain_of_thought"]
    assert (none.n, none.scored, none.correct, none.errors) == (6, 6, 3, 1)
    assert none.cost_usd is None  # one item has no price: unknown, never an undercount
    assert (cot.correct, cot.unfinished) == (4, 1)
    assert cot.cost_usd == pytest.approx(0.006)
    [everything] = db.tally(run_id)
    assert everything.n == 12 and everything.group == {}
    reasons = {t.group["reason"]: t.n for t in db.tally(run_id, ("reason",))}
    assert reasons == {"different": 3, "equivalent": 7, "no_answer": 1, "unfinished": 1}


@pytest.mark.parametrize(
    "query",
    [
        {"equals": {"raw_output": ("x",)}},
        {"sort": "raw_output; DROP TABLE items"},
        {"search_in": "prompt"},
        {"at_least": {"approach": 1}},
    ],
)
def test_a_query_names_only_known_columns(query: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="cannot"):
        ItemQuery.model_validate(query)


def test_a_tally_groups_only_by_known_columns(store: tuple[ResultStore, str]) -> None:
    db, run_id = store
    with pytest.raises(ConfigError, match="cannot group items by 'question'"):
        db.tally(run_id, ("question",))


def test_filters_on_the_verdict_read_the_browsing_index_not_the_rows(
    store: tuple[ResultStore, str],
) -> None:
    db, run_id = store
    from answerx.experiments.store.browse import compile_query, order_of

    query = ItemQuery(equals={"reason": ("different",)}, sort="latency_s")
    where, params = compile_query(run_id, query)
    plain = sqlite3.connect(db.path)
    plan = plain.execute(
        f"EXPLAIN QUERY PLAN SELECT id FROM items WHERE {where} ORDER BY {order_of(query)}",
        params,
    ).fetchall()
    plain.close()
    assert any("COVERING INDEX items_browse" in str(step) for step in plan), plan


def test_a_read_only_old_store_is_browsed_too(tmp_path: Path) -> None:
    from test_store_versions import old_store

    path = old_store(tmp_path / "old.db", version=2)
    with ResultStore(path, read_only=True) as db:
        wrong = ItemQuery(equals={"correct": (False,)})
        page = db.item_page("old-run", wrong)
        assert page.total == len(page.rows) == 6
        assert db.neighbours("old-run", page.rows[1].row, wrong) is not None
        assert sum(t.n for t in db.tally("old-run", ("reason",))) == 11


def test_paired_counts_give_mcnemars_table_for_two_arms(store: tuple[ResultStore, str]) -> None:
    from answerx.experiments.store.browse import Arm

    db, run_id = store
    arm = {"run_id": run_id, "strategy": "two_stage", "provider": "openai", "model": "gpt-test"}
    counts = db.paired_counts(Arm(approach="none", **arm), Arm(approach="chain_of_thought", **arm))
    # none right on q2 q3 q5, cot right on q1 q2 q3 q6; q4 wrong on both.
    assert (counts.pairs, counts.a_correct, counts.b_correct) == (6, 3, 4)
    assert (counts.only_a, counts.only_b) == (1, 2)
    only_b = ItemQuery(
        equals={"approach": ("chain_of_thought",), "correct": (True,)},
        paired=Pairing(approach="none", strategy="two_stage", correct=False),
    )
    assert db.count_rows(run_id, only_b) == counts.only_b  # the items behind the figure


def test_value_counts_count_each_combination_of_values(store: tuple[ResultStore, str]) -> None:
    db, run_id = store
    counts = dict(
        ((group["approach"], group["correct"]), n)
        for group, n in db.value_counts(run_id, ("approach", "correct"))
    )
    assert counts == {
        ("chain_of_thought", False): 2,
        ("chain_of_thought", True): 4,
        ("none", False): 3,
        ("none", True): 3,
    }
    with pytest.raises(ConfigError, match="cannot group items by 'raw_output'"):
        db.value_counts(run_id, ("raw_output",))


@pytest.mark.parametrize("sort", ["id", "latency_s", "reason", "extracted_answer"])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("search", ["", "thinking"])
def test_neighbours_agree_with_the_pages_order_in_every_order(
    store: tuple[ResultStore, str], sort: str, descending: bool, search: str
) -> None:
    db, run_id = store
    # reason and extracted_answer have no value on some items: None sorts first ascending.
    query = ItemQuery(equals={"approach": ("none", "chain_of_thought")}, sort=sort,
                      descending=descending, search=search)  # fmt: skip
    rows = [r.row for r in db.item_page(run_id, query, limit=100).rows]
    assert rows
    for place, row in enumerate(rows):
        found = db.neighbours(run_id, row, query)
        assert found is not None
        assert found.position == place + 1 and found.total == len(rows)
        assert found.previous == (rows[place - 1] if place else None)
        assert found.next == (rows[place + 1] if place + 1 < len(rows) else None)
