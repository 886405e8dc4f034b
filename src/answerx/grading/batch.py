"""``verify_batch``: many outputs at once, in this process or across worker processes."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from answerx.errors import InputError
from answerx.extraction import extract
from answerx.extraction.models import Task
from answerx.extraction.tasks import check_task
from answerx.grading.core import (
    DEFAULT_TIME_LIMIT_S,
    DEFAULT_TOLERANCE,
    _item,
    _verdict,
    decide,
    verify,
)
from answerx.grading.golds import check_finite_gold, clean_golds
from answerx.grading.judgement import Judge
from answerx.grading.models import Verdict
from answerx.grading.pool import CHUNK_BYTES, shared_pool
from answerx.grading.residue import consult
from answerx.grading.symbolic import prepare as prepare_fast_rung

__all__ = ["verify_batch", "warm_up"]

_CHUNK_ITEMS = 64  # requests per round trip to a worker: amortises the pipe's latency
# Extraction and JSON of a large output, on top of the comparison's own limit.
_SLACK_S = 2.0
#: Judge calls in flight at once in :func:`verify_batch` (a provider's rate limits
#: and a laptop's sockets both favour a handful).
DEFAULT_JUDGE_CONCURRENCY = 4


def verify_batch(
    outputs: Any,
    golds: Any,
    *,
    task: Task | str | Sequence[Task | str] = "auto",
    choices: Sequence[str] | Sequence[Sequence[str] | None] | None = None,
    numbers: Sequence[int | float] | Sequence[Sequence[int | float] | None] | None = None,
    finish_reasons: Sequence[str | None] | None = None,
    workers: int | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    time_limit_s: float = DEFAULT_TIME_LIMIT_S,
    questions: Sequence[str | None] | None = None,
    judge: Judge | None = None,
    judge_concurrency: int = DEFAULT_JUDGE_CONCURRENCY,
) -> list[Verdict]:
    """:func:`~answerx.grading.verify` for every output, in order, one verdict each.

    ``outputs`` and ``golds`` are lists (or pyarrow arrays) of the same length; a
    gold may itself be a list of accepted answers (any one matching is right);
    ``task``, ``choices`` and ``numbers`` are one value for all items or one per
    item, ``questions`` one per item. An item that cannot be read (an output that
    is None or not text) gets its verdict (``no_answer``), never an exception; one
    that overruns its time limit gets ``timeout``. ``workers=N`` spreads the items
    over N worker processes (each item bounded by ``time_limit_s`` there); ``None``
    works in this process. Raises InputError when the lengths differ or a gold is NaN
    or ±Infinity (``golds[i]`` named), and ConfigError for an unknown task name.

    ``judge`` is asked, in this process, about the items whose rules were unsure
    (``Verdict.doubt``), at most ``judge_concurrency`` at a time; the others never
    reach it.

    >>> [v.correct for v in verify_batch(["It is 4.", "It is 5."], ["4", "4"])]
    [True, False]
    """
    outs, refs = _as_list(outputs), _as_list(golds)
    n = len(outs)
    if len(refs) != n:
        raise InputError(f"{n} outputs but {len(refs)} gold answers: one each is needed")
    tasks = _per_item(task, n, "task", lambda v: isinstance(v, str))
    for t in set(tasks):
        check_task(t)
    for i, gold in enumerate(refs):  # here, before any item goes to a worker process
        check_finite_gold(gold, f"golds[{i}]", tasks[i])
    item_choices = _per_item(choices, n, "choices", _one_list_of(str))
    item_numbers = _per_item(numbers, n, "numbers", _one_list_of(int, float))
    finishes = _per_item(finish_reasons, n, "finish_reasons", lambda v: v is None)
    asked = _per_item(questions, n, "questions", lambda v: v is None)
    items = [
        {
            "raw_output": outs[i],
            "gold": refs[i],
            "task": tasks[i],
            "choices": item_choices[i],
            "numbers": item_numbers[i],
            "finish_reason": finishes[i],
            "tolerance": tolerance,
            "time_limit_s": time_limit_s,
            "question": asked[i],
        }
        for i in range(n)
    ]
    if judge is not None and judge_concurrency < 1:
        raise InputError(f"judge_concurrency must be at least 1, not {judge_concurrency}")
    if workers is None or n == 0:
        verdicts = [_verify_here(item) for item in items]
    elif workers < 1:
        raise InputError(f"workers must be at least 1, not {workers}")
    else:
        verdicts = _verify_in_workers(items, workers, time_limit_s + _SLACK_S)
    if judge is None:
        return verdicts
    return _consult_all(verdicts, items, judge, judge_concurrency)


def _consult_all(
    verdicts: list[Verdict], items: list[dict[str, Any]], judge: Judge, concurrency: int
) -> list[Verdict]:
    """The residue of ``verdicts`` put to ``judge``, ``concurrency`` calls at a time."""
    residue = [i for i, v in enumerate(verdicts) if v.doubt is not None]
    if not residue:
        return verdicts

    def ask(i: int) -> Verdict:
        item = items[i]
        return consult(
            verdicts[i], judge, golds=clean_golds(item["gold"]), question=item["question"],
            choices=item["choices"],
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=min(concurrency, len(residue))) as threads:
        for i, ruled in zip(residue, threads.map(ask, residue), strict=True):
            verdicts[i] = ruled
    return verdicts


def warm_up(workers: int = 1) -> None:
    """Start ``workers`` grading worker processes now (a server at boot, a benchmark), so
    that no item pays for importing sympy and math-verify (a second or more), and load
    the fast symbolic rung's 50-digit arithmetic (mpmath) and unit pattern in this process."""
    prepare_fast_rung()
    shared_pool().warm(workers)


def _as_list(values: Any) -> list[Any]:
    if hasattr(values, "to_pylist"):  # pyarrow Array / ChunkedArray
        return list(values.to_pylist())
    if isinstance(values, str):
        raise InputError("expected a list of texts, not one string")
    return list(values)


def _one_list_of(*kinds: type) -> Callable[[Any], bool]:
    def is_one(value: Any) -> bool:
        if value is None:
            return True
        seq = _as_list(value)
        return not seq or all(isinstance(v, kinds) and not isinstance(v, bool) for v in seq)

    return is_one


def _per_item(value: Any, n: int, name: str, is_one: Callable[[Any], bool]) -> list[Any]:
    if is_one(value):
        return [value] * n
    each = _as_list(value)
    if len(each) != n:
        raise InputError(f"{name}: one value for all items or one per item ({n}), not {len(each)}")
    return each


def _verify_here(item: dict[str, Any]) -> Verdict:
    if not isinstance(item["raw_output"], str):
        return _unreadable_output(item)
    return verify(**item)


def _unreadable_output(item: dict[str, Any]) -> Verdict:
    # No text to read: the model stated nothing (a failed generation, a null cell).
    started = time.perf_counter()
    spec, refs = _item(item["gold"], item["task"], item["choices"], item["numbers"],
                       item["tolerance"], item["time_limit_s"])  # fmt: skip
    return decide(None, refs, spec, started=started)


def _timed_out(item: dict[str, Any], waited_s: float) -> Verdict:
    # The worker was killed on this item: read the answer here (extraction is linear
    # and bounded) so the verdict still says what was stated.
    spec, refs = _item(item["gold"], item["task"], item["choices"], item["numbers"],
                       item["tolerance"], item["time_limit_s"])  # fmt: skip
    extraction = extract(
        item["raw_output"], spec.task, choices=item["choices"], numbers=item["numbers"],
        finish_reason=item["finish_reason"],
    )  # fmt: skip
    verdict = _verdict(
        "timeout", "math_verify", extraction.answer, refs, extraction, 0.0,
        doubt="comparison_timeout",
    )  # fmt: skip
    return verdict.model_copy(update={"elapsed_s": waited_s})


def _verify_in_workers(items: list[dict[str, Any]], workers: int, limit_s: float) -> list[Verdict]:
    pool = shared_pool()
    pool.grow(workers)
    results: list[Verdict | None] = [None] * len(items)
    pending: queue.Queue[list[int]] = queue.Queue()
    # Chunks small enough that every worker gets several (they finish at different times).
    per_chunk = max(1, min(_CHUNK_ITEMS, -(-len(items) // (workers * 4))))
    chunk: list[int] = []
    size = 0
    for i, item in enumerate(items):
        if not isinstance(item["raw_output"], str):
            results[i] = _unreadable_output(item)
            continue
        cost = len(item["raw_output"]) + 64
        if chunk and (len(chunk) >= per_chunk or size + cost > CHUNK_BYTES):
            pending.put(chunk)
            chunk, size = [], 0
        chunk.append(i)
        size += cost
    if chunk:
        pending.put(chunk)
    lock = threading.Lock()

    def drain() -> None:
        while True:
            try:
                indices = pending.get_nowait()
            except queue.Empty:
                return
            sent = time.perf_counter()
            try:
                replies = pool.run([["verify", items[i]] for i in indices], limit_s)
            except RuntimeError:  # no worker process can start here: verify in this thread
                replies = [json.loads(_verify_here(items[i]).model_dump_json()) for i in indices]
            for k, (i, reply) in enumerate(zip(indices, replies, strict=True)):
                if reply is None:
                    results[i] = _timed_out(items[i], time.perf_counter() - sent)
                    rest = indices[k + 1 :]
                    if rest:  # not tried yet: back in the queue for the next free worker
                        with lock:
                            pending.put(rest)
                    break
                if "error" in reply:  # the worker met a bug on this item: show it here
                    results[i] = _verify_here(items[i])
                else:
                    results[i] = Verdict.model_validate(reply)

    with ThreadPoolExecutor(max_workers=workers) as threads:
        for future in [threads.submit(drain) for _ in range(workers)]:
            future.result()
    # A requeued remainder may arrive after a thread found the queue empty.
    drain()
    return [r if r is not None else _verify_here(items[i]) for i, r in enumerate(results)]
