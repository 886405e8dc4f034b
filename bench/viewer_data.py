"""A synthetic run for the run viewer's bench: many items that look like reasoning output.

``synthetic_run(path, items)`` fills a results store with one run of ``items`` items:
questions x four approaches, each item with a ~2.5 KB raw output (a ``<think>`` section,
then the answer), its conversation (one call: the messages and the reply) and a verdict,
in deterministic proportions (every third item wrong, one in twenty cut off, ...).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from answerx.experiments.records import CallRecord, ItemRecord, calls_json
from answerx.experiments.store import ResultStore

APPROACHES = ("none", "chain_of_thought", "tree_of_thought", "reflection")
_PARAGRAPH = (
    "Let me work through this carefully. First I restate the problem, then I check each "
    "quantity against the question, and finally I compute the result step by step. "
)


def _item(run_id: str, number: int) -> ItemRecord:
    question, approach = divmod(number, len(APPROACHES))
    answer = str(question % 997)
    wrong = number % 3 == 0
    unfinished = number % 20 == 7
    said = str(int(answer) + 1) if wrong else answer
    think = f"<think>\n{_PARAGRAPH * 12}Wait, {question} needs care.\n</think>\n"
    raw = think if unfinished else f"{think}So the answer is \\boxed{{{said}}}."
    start = raw.find("{" + said + "}") + 1
    prompt = [{"role": "user", "content": f"Question {question}: what is {question} mod 997?"}]
    reason = "unfinished" if unfinished else ("different" if wrong else "equivalent")
    return ItemRecord(
        run_id=run_id,
        approach=APPROACHES[approach],
        strategy="two_stage",
        provider="openai",
        model="gpt-bench",
        item_id=f"bench/{question:06d}",
        dataset="bench",
        task="numeric",
        question=prompt[0]["content"],
        gold=answer,
        prompt=json.dumps(prompt),
        raw_output=raw,
        extracted_answer=None if unfinished else said,
        candidate=None if unfinished else said,
        span=None if unfinished else (start, start + len(said)),
        conversation=calls_json([CallRecord(kind="text", messages=prompt, reply=raw)]),
        method="none" if unfinished else "boxed",
        confidence=0.0 if unfinished else 0.95,
        valid=None if unfinished else True,
        unfinished=unfinished,
        stage="deterministic",
        calls=1,
        input_tokens=40 + question % 50,
        output_tokens=600 + number % 400,
        cost_usd=0.0001,
        latency_s=1.0 + (number % 97) / 10,
        termination="answer not found" if unfinished else "answer",
        finish_reason="length" if unfinished else "stop",
        correct=not (wrong or unfinished),
        reason=reason,
        how="numeric" if not unfinished else "none",
        finished_at=datetime(2026, 11, 21, tzinfo=UTC),
    )


def _items(run_id: str, count: int) -> Iterator[list[ItemRecord]]:
    batch: list[ItemRecord] = []
    for number in range(count):
        batch.append(_item(run_id, number))
        if len(batch) == 2000:
            yield batch
            batch = []
    if batch:
        yield batch


def synthetic_run(path: Path | str, items: int) -> str:
    """Store one finished run of ``items`` items at ``path`` (a file, or a server's URL);
    returns its run id."""
    with ResultStore.open(path, "write") as store:
        run = store.start_run("bench-viewer", {"approaches": list(APPROACHES)}, "0" * 64)
        for batch in _items(run.run_id, items):
            store.add_items(batch)
        store.finish_run(run.run_id)
    return run.run_id


def timed(action: Callable[[], object], requests: int) -> tuple[float, float]:
    """(median, best) milliseconds of ``requests`` calls after one warm-up call."""
    action()
    seen = []
    for _ in range(requests):
        started = time.perf_counter()
        action()
        seen.append((time.perf_counter() - started) * 1000)
    return statistics.median(seen), min(seen)


def items_pages(run_id: str, row: int) -> dict[str, str]:
    """The viewer's filtered items pages (issue 28's target), the item page of ``row`` in a
    filter and the run page, as both viewer benches (SQLite, PostgreSQL) time them."""
    base = f"/runs/{run_id}"
    return {
        "items, no filter, page 1": f"{base}/items",
        "items, tree_of_thought wrong, page 1": f"{base}/items?approach=tree_of_thought"
        "&correct=false",
        "items, reason different by latency desc, page 100": f"{base}/items?"
        "reason=different&sort=latency_s&desc=1&page=100",
        "items, reflection unfinished, 100 a page, page 2": f"{base}/items?"
        "approach=reflection&unfinished=true&page=2&size=100",
        "items, tree wrong where none was right (paired)": f"{base}/items?"
        "approach=tree_of_thought&correct=false&pair=none/two_stage&pair_correct=true",
        "item page, next/previous in a filter": f"{base}/items/{row}?correct=false",
        "run page (accuracy, comparisons, breakdowns)": base,
    }
