"""The residue: the records the rules were unsure of, and asking an LLM about them.

A table's verdicts (:func:`~answerx.batch.verify_table` with a judge) or a file run's
jobs (:mod:`answerx.batch.settle`) name each such record as a :class:`Residue`; the
judge (verify) or the LLM extractor (extract) is asked about them here, a bounded
number at a time, in the calling process: the LLM's budget, cache and clients are one
per run, not one per worker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from answerx.extraction import Extraction
    from answerx.grading import Verdict
    from answerx.grading.judgement import Judge
    from answerx.judge import LLMExtraction, LLMExtractor

__all__ = ["Residue", "extract_residue", "judge_residue"]

_T = TypeVar("_T")
_R = TypeVar("_R")


@dataclass(frozen=True, slots=True)
class Residue:
    """One record the rules were unsure of, as its job hands it over.

    ``index`` is its row in the job's output (the input row for a job that returns only
    the added columns); ``verdict`` (verify) or ``extraction`` (extract) is the rules'.
    """

    index: int
    verdict: Verdict | None = None
    extraction: Extraction | None = None
    gold: Any = None
    question: str | None = None
    choices: Sequence[str] | None = None
    numbers: Sequence[int | float] | None = None


def _ask_all(
    ask: Callable[[_T], _R],
    items: Sequence[_T],
    concurrency: int,
    stop: Callable[[], bool] | None = None,
) -> list[_R] | None:
    """``ask`` on every item, ``concurrency`` at a time, in order; None when ``stop()`` turned
    true first (the calls in flight finish, the rest are never made)."""
    if not items:
        return []
    results: dict[int, _R] = {}
    with ThreadPoolExecutor(max_workers=min(concurrency, len(items))) as threads:
        pending: dict[Future[_R], int] = {}
        queue = iter(enumerate(items))
        while True:
            while len(pending) < concurrency and not (stop is not None and stop()):
                nxt = next(queue, None)
                if nxt is None:
                    break
                pending[threads.submit(ask, nxt[1])] = nxt[0]
            if not pending:
                break
            finished, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                results[pending.pop(future)] = future.result()
    if len(results) < len(items):
        return None
    return [results[i] for i in range(len(items))]


def judge_residue(
    items: Sequence[Residue],
    judge: Judge,
    concurrency: int,
    stop: Callable[[], bool] | None = None,
) -> list[Verdict] | None:
    """Each item's verdict after asking ``judge`` about it (see
    :func:`answerx.grading.residue.consult`); None when stopped first."""
    from answerx.grading.golds import clean_golds
    from answerx.grading.residue import consult

    def ask(item: Residue) -> Verdict:
        assert item.verdict is not None
        return consult(
            item.verdict, judge, golds=clean_golds(item.gold), question=item.question,
            choices=item.choices,
        )  # fmt: skip

    return _ask_all(ask, items, concurrency, stop)


def extract_residue(
    items: Sequence[Residue],
    extractor: LLMExtractor,
    concurrency: int,
    stop: Callable[[], bool] | None = None,
) -> list[LLMExtraction] | None:
    """Each item's LLM extraction; None when stopped first."""

    def ask(item: Residue) -> LLMExtraction:
        assert item.extraction is not None
        return extractor.extract(
            item.extraction, question=item.question, choices=item.choices, numbers=item.numbers
        )

    return _ask_all(ask, items, concurrency, stop)
