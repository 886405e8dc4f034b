"""Two arms compared item by item, across runs and models.

An arm is one run × approach × strategy × provider/model
(:class:`~answerx.experiments.store.browse.Arm`). Two arms are paired on the questions both
answered: the same dataset, item id and repetition, whatever their runs or models. So a
run of one model compares with a run of another, which matching arm by arm on one
model (:func:`~answerx.experiments.store.browse.paired_sql`) cannot do.

This module writes the SQL (every value a parameter); the store runs it
(:meth:`~answerx.experiments.store.ResultStore.fetch`), so 100,000 pairs are counted and
paged in SQLite, through the ``items_pair`` index, without reading their texts.
"""

from __future__ import annotations

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
    "count_pairs",
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


def count_pairs(store: _Reads, a: Arm, b: Arm, show: str = "differ") -> int:
    """How many questions both arms answered that ``show`` (of :data:`SHOWS`) picks."""
    sql = f"SELECT count(*) {_JOIN} AND {SHOWS[show][1]}"
    return int(store.fetch(sql, _params(a, b))[0][0])


def pair_page(
    store: _Reads,
    a: Arm,
    b: Arm,
    show: str = "differ",
    *,
    offset: int = 0,
    limit: int = 50,
    total: int | None = None,
) -> PairPage:
    """The questions both arms answered that ``show`` (of :data:`SHOWS`) picks, in arm
    a's stored order: a page of them, and their number (``total``, when the caller
    knows it already: counting reads every pair, a page only its own)."""
    condition = SHOWS[show][1]
    if total is None:
        total = count_pairs(store, a, b, show)
    rows = store.fetch(
        "SELECT a.dataset, a.item_id, a.repetition, a.id, b.id, a.extracted_answer, "
        f"b.extracted_answer, a.correct, b.correct {_JOIN} AND {condition} "
        "ORDER BY a.id LIMIT ? OFFSET ?",
        [*_params(a, b), max(0, limit), max(0, offset)],
    )
    return PairPage(
        rows=[
            QuestionPair(
                dataset=r[0],
                item_id=r[1],
                repetition=r[2],
                a_row=r[3],
                b_row=r[4],
                a_answer=r[5],
                b_answer=r[6],
                a_correct=None if r[7] is None else bool(r[7]),
                b_correct=None if r[8] is None else bool(r[8]),
            )
            for r in rows
        ],
        total=int(total),
    )


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
