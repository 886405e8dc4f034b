"""Two arms compared item by item, across runs and models.

An arm is one run × approach × strategy × provider/model
(:class:`~answerx.experiments.store.browse.Arm`). Two arms are paired on the questions both
answered: the same dataset, item id and repetition, whatever their runs or models. So a
run of one model compares with a run of another, which matching arm by arm on one
model (:func:`~answerx.experiments.store.browse.paired_sql`) cannot do.

This module writes the SQL (every value a parameter); the store runs it
(:meth:`~answerx.experiments.store.ResultStore.fetch`): the pairs a list shows are found
in one pass over the ``items_pair`` index (their row ids only, :func:`matching_pairs`),
and a page reads its own rows, so 100,000 pairs are paged without reading their texts.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from answerx.experiments.stats import mcnemar
from answerx.experiments.store.browse import Arm

__all__ = [
    "ARM_SEPARATOR",
    "SHOWS",
    "ArmComparison",
    "PairPage",
    "QuestionPair",
    "Show",
    "arm_text",
    "compare_arms",
    "matching_pairs",
    "pair_page",
    "read_arm",
    "unmatched_pairs",
]

#: What separates an arm's parts in an address (``RUN|approach|strategy|provider|model``):
#: a character no run id, approach or model name holds (a model may hold ``/`` and ``:``).
ARM_SEPARATOR = "|"
_PARTS = ("run_id", "approach", "strategy", "provider", "model")

Show = Literal["all", "differ", "a_only", "b_only", "both_wrong_different", "both_wrong"]
#: Which pairs a list shows: its title, and its condition on the pair (``a``, ``b``).
SHOWS: dict[str, tuple[str, str]] = {
    "differ": (
        "verdicts or answers differ",
        "(a.correct IS DISTINCT FROM b.correct "
        "OR a.extracted_answer IS DISTINCT FROM b.extracted_answer)",
    ),
    "a_only": ("A right, B wrong", "a.correct = 1 AND b.correct = 0"),
    "b_only": ("B right, A wrong", "b.correct = 1 AND a.correct = 0"),
    "both_wrong_different": (
        "both wrong, different answers",
        "a.correct = 0 AND b.correct = 0 "
        "AND a.extracted_answer IS DISTINCT FROM b.extracted_answer",
    ),
    "both_wrong": ("both wrong", "a.correct = 0 AND b.correct = 0"),
    "all": ("every question both answered", "1"),
}


class _Reads(Protocol):
    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...


def arm_text(arm: Arm) -> str:
    """``arm`` as one address value: ``RUN|approach|strategy|provider|model``."""
    return ARM_SEPARATOR.join(str(getattr(arm, part)) for part in _PARTS)


def read_arm(text: str) -> Arm:
    """The arm :func:`arm_text` wrote; ValueError saying what is missing otherwise."""
    parts = text.split(ARM_SEPARATOR)
    if len(parts) != len(_PARTS) or not all(parts):
        raise ValueError(
            f"{text[:80]!r}: give RUN{ARM_SEPARATOR}APPROACH{ARM_SEPARATOR}STRATEGY"
            f"{ARM_SEPARATOR}PROVIDER{ARM_SEPARATOR}MODEL"
        )
    return Arm(**dict(zip(_PARTS, parts, strict=True)))


class ArmComparison(BaseModel):
    """Two arms on the questions both have a verdict for: McNemar's table and exact test."""

    model_config = ConfigDict(frozen=True)

    a: Arm
    b: Arm
    pairs: int
    a_correct: int
    b_correct: int
    only_a: int = Field(description="Pairs only arm a got right.")
    only_b: int = Field(description="Pairs only arm b got right.")
    p_value: float = Field(description="McNemar's exact two-sided p-value (1.0: no pair).")

    @property
    def difference(self) -> float:
        """b's accuracy minus a's on the pairs (0.0 with none)."""
        return (self.b_correct - self.a_correct) / self.pairs if self.pairs else 0.0


class QuestionPair(BaseModel):
    """One question both arms answered: each arm's row, answer and verdict."""

    model_config = ConfigDict(frozen=True)

    dataset: str
    item_id: str
    repetition: int
    a_row: int
    b_row: int
    a_answer: str | None
    b_answer: str | None
    a_correct: bool | None
    b_correct: bool | None


class PairPage(BaseModel):
    """A page of question pairs, and how many pairs the list holds in all."""

    model_config = ConfigDict(frozen=True)

    rows: list[QuestionPair]
    total: int


# Arm b's answer to the question arm a answered, in any run and model: items_pair's
# columns in its order (run, approach, strategy, provider, model, item, repetition).
_JOIN = (
    "FROM items AS a JOIN items AS b ON b.run_id = ? AND b.approach = ? AND b.strategy = ? "
    "AND b.provider = ? AND b.model = ? AND b.item_id = a.item_id "
    "AND b.repetition = a.repetition AND b.dataset = a.dataset "
    "WHERE a.run_id = ? AND a.approach = ? AND a.strategy = ? AND a.provider = ? "
    "AND a.model = ?"
)


def _params(a: Arm, b: Arm) -> list[Any]:
    return [*(getattr(b, p) for p in _PARTS), *(getattr(a, p) for p in _PARTS)]


def compare_arms(store: _Reads, a: Arm, b: Arm) -> ArmComparison:
    """McNemar's table of arms ``a`` and ``b`` over the questions both have a verdict
    for (any runs, any models), and its exact p-value."""
    sql = (
        "SELECT count(*), coalesce(sum(a.correct), 0), coalesce(sum(b.correct), 0), "
        # CASE, not a sum of booleans: the same SQL must run on a PostgreSQL store.
        "coalesce(sum(CASE WHEN a.correct = 1 AND b.correct = 0 THEN 1 ELSE 0 END), 0), "
        f"coalesce(sum(CASE WHEN b.correct = 1 AND a.correct = 0 THEN 1 ELSE 0 END), 0) {_JOIN} "
        "AND a.correct IS NOT NULL AND b.correct IS NOT NULL"
    )
    pairs, a_correct, b_correct, only_a, only_b = store.fetch(sql, _params(a, b))[0]
    return ArmComparison(
        a=a,
        b=b,
        pairs=pairs,
        a_correct=a_correct,
        b_correct=b_correct,
        only_a=only_a,
        only_b=only_b,
        p_value=mcnemar(only_a, only_b),
    )


def matching_pairs(store: _Reads, a: Arm, b: Arm, show: str = "differ") -> array[int]:
    """The row ids of every question both arms answered that ``show`` (of :data:`SHOWS`)
    picks, in arm a's stored order: a's row and b's row, one after the other.

    One pass over every pair (what counting them costs anyway); a caller that keeps the
    result pages through it reading only a page's rows (:func:`pair_page`), where an
    ``OFFSET`` would join, filter and sort every pair again for each page. Kept as a
    flat array of 8-byte ids: 100,000 pairs hold 1.6 MB.
    """
    ids = array("q")
    for row in store.fetch(
        f"SELECT a.id, b.id {_JOIN} AND {SHOWS[show][1]} ORDER BY a.id", _params(a, b)
    ):
        ids.extend((row[0], row[1]))
    return ids


def pair_page(
    store: _Reads,
    a: Arm,
    b: Arm,
    show: str = "differ",
    *,
    offset: int = 0,
    limit: int = 50,
    matched: array[int] | None = None,
) -> PairPage:
    """The questions both arms answered that ``show`` (of :data:`SHOWS`) picks, in arm
    a's stored order: a page of them, and their number. ``matched``: the pairs'
    :func:`matching_pairs`, when the caller keeps them (else they are read here); only
    the page's rows are then read from the store."""
    if matched is None:
        matched = matching_pairs(store, a, b, show)
    offset, limit = max(0, offset), max(0, limit)
    shown = matched[2 * offset : 2 * (offset + limit)]
    rows = {}
    if shown:
        found = store.fetch(
            "SELECT id, dataset, item_id, repetition, extracted_answer, correct FROM items "
            f"WHERE id IN ({', '.join('?' * len(shown))})",
            list(shown),
        )
        rows = {r[0]: r for r in found}
    pairs = []
    for a_row, b_row in zip(shown[::2], shown[1::2], strict=True):
        if a_row not in rows or b_row not in rows:
            continue  # deleted since the pairs were read
        first, second = rows[a_row], rows[b_row]
        pairs.append(
            QuestionPair(
                dataset=first[1],
                item_id=first[2],
                repetition=first[3],
                a_row=a_row,
                b_row=b_row,
                a_answer=first[4],
                b_answer=second[4],
                a_correct=None if first[5] is None else bool(first[5]),
                b_correct=None if second[5] is None else bool(second[5]),
            )
        )
    return PairPage(rows=pairs, total=len(matched) // 2)


def unmatched_pairs(first: Sequence[Arm], second: Sequence[Arm]) -> list[tuple[Arm, Arm]]:
    """The pairs to compare between two runs' arms that have no twin (the same approach,
    strategy and model) in the other run: each with the other run's arms of the same
    approach and strategy (another model), or, when it has none, with each of them.

    >>> a = Arm(run_id="r1", approach="none", strategy="two_stage", provider="p", model="m1")
    >>> b = Arm(run_id="r2", approach="none", strategy="two_stage", provider="p", model="m2")
    >>> [(x.model, y.model) for x, y in unmatched_pairs([a], [b])]
    [('m1', 'm2')]
    """

    def key(arm: Arm) -> tuple[str, ...]:
        return (arm.approach, arm.strategy, arm.provider, arm.model)

    theirs = {key(b) for b in second}
    mine = {key(a) for a in first}
    lonely_a = [a for a in first if key(a) not in theirs]
    lonely_b = [b for b in second if key(b) not in mine]
    pairs = []
    for a in lonely_a:
        same = [b for b in lonely_b if (b.approach, b.strategy) == (a.approach, a.strategy)]
        pairs += [(a, b) for b in same or lonely_b]
    return pairs
