"""Browsing a run's items: which items a reader asks for, in which order, a page at a time.

An :class:`ItemQuery` says it as data (any of some values per column, ranges on the
numbers, a text to find, the verdict of the same question under another approach,
an order); :class:`~answerx.experiments.store.ResultStore` answers it in SQL
(``item_page``, ``count_rows``, ``neighbours``, ``tally``: :mod:`.queries`), so a
100,000-item run is filtered, counted and paged without reading its texts into memory. This module
turns a query into SQL; it runs none.

An :class:`ItemRow` is one row of such a page: an item's key, verdict and figures,
without its long texts (raw output, prompt, conversation), which
``ResultStore.item_at`` reads for one item.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from answerx.agent.termination import Termination
from answerx.extraction.models import Method, Task
from answerx.grading.models import Reason
from answerx.reasoning.response import ApproachName, Stage, Strategy

__all__ = [
    "BROWSE_COLUMNS",
    "FACETS",
    "GROUPS",
    "JSON_NUMBERS",
    "RANGED",
    "ROW_COLUMNS",
    "SEARCHABLE",
    "SORTABLE",
    "WHOLE",
    "Arm",
    "BadRow",
    "ItemPage",
    "ItemQuery",
    "ItemRow",
    "Neighbours",
    "PairedCounts",
    "Pairing",
    "Tally",
    "column_sql",
    "compile_query",
    "order_of",
    "paired_sql",
]


class ItemRow(BaseModel):
    """One item as a page of items lists it (``row``: its place in the store)."""

    model_config = ConfigDict(frozen=True)

    row: int
    approach: ApproachName
    strategy: Strategy
    provider: str
    model: str
    item_id: str
    repetition: int
    dataset: str
    task: Task
    question: str
    gold: str | None
    extracted_answer: str | None
    method: Method
    confidence: float
    valid: bool | None
    unfinished: bool
    stage: Stage | None
    termination: Termination
    finish_reason: str | None
    error: str | None
    cached: bool
    correct: bool | None
    reason: Reason | None
    how: str | None
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    latency_s: float


#: The columns an :class:`ItemRow` reads (``row`` is the table's ``id``).
ROW_COLUMNS: tuple[str, ...] = tuple(c for c in ItemRow.model_fields if c != "row")

#: Columns filtered by equality to any of several values (None: no value).
WHOLE: tuple[str, ...] = (
    "approach",
    "strategy",
    "provider",
    "model",
    "dataset",
    "task",
    "item_id",
    "repetition",
    "method",
    "stage",
    "mode",
    "termination",
    "finish_reason",
    "reason",
    "how",
    "correct",
    "valid",
    "unfinished",
    "cached",
    "extracted_answer",
    "gold",
)
#: Numeric columns filtered by range.
RANGED: tuple[str, ...] = (
    "confidence",
    "latency_s",
    "input_tokens",
    "output_tokens",
    "calls",
    "attempts",
    "fallbacks",
    "cost_usd",
    "repetition",
    "judge_confidence",
)
#: Numbers read out of a JSON column, filtered by range as a column is (RANGED): name ->
#: (the column, the path to the number). The judge's confidence lives in its stored
#: ruling, not a column of its own: a migration for one chart's filter is not worth it.
JSON_NUMBERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "judge_confidence": ("verdict_detail", ("judge", "confidence")),
}
#: Text columns a search looks in (case-insensitive for ASCII letters).
SEARCHABLE: tuple[str, ...] = (
    "raw_output",
    "question",
    "extracted_answer",
    "gold",
    "error",
    "problem",
    "conversation",
)
#: Columns an item list may be sorted by (``id``: the order items were stored).
SORTABLE: tuple[str, ...] = ("id", *dict.fromkeys(c for c in ROW_COLUMNS if c != "question"))
#: The columns a reader picks values of first (the viewer's facets), in the browsing
#: index's order, right after the run: counted in one pass over the index, unsorted
#: (half the time of any other order).
FACETS: tuple[str, ...] = (
    "approach",
    "strategy",
    "provider",
    "model",
    "correct",
    "reason",
    "how",
    "method",
    "termination",
    "unfinished",
)
#: The browsing index's columns (``items_browse``): the run first (every query names
#: it), the facets, then every other short column a reader filters, sorts or counts by,
#: so those queries read the index alone, never the rows' long texts. The one list the
#: index, :data:`GROUPS` and the viewer's facets derive from.
BROWSE_COLUMNS: tuple[str, ...] = (
    "run_id",
    *FACETS,
    "valid",
    "stage",
    "mode",
    "finish_reason",
    "cached",
    "dataset",
    "task",
    "item_id",
    "repetition",
    "confidence",
    "latency_s",
    "calls",
    "attempts",
    "fallbacks",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "error",
)
#: Columns a :class:`Tally` may group by: the browsing index's columns in its order up
#: to the item's own key (grouped so, they are counted in one pass over the index,
#: unsorted), then the run.
GROUPS: tuple[str, ...] = (*BROWSE_COLUMNS[1 : BROWSE_COLUMNS.index("item_id")], "run_id")
_BOOLEAN = frozenset({"correct", "valid", "unfinished", "cached"})


class Pairing(BaseModel):
    """Items whose same question (dataset, item, repetition, provider, model) was answered
    by ``approach``/``strategy`` (of run ``run_id``; None: the same run) with the verdict
    ``correct`` (None: any verdict, but one)."""

    model_config = ConfigDict(frozen=True)

    approach: str
    strategy: str
    correct: bool | None = None
    run_id: str | None = None


class Arm(BaseModel):
    """One approach × strategy × model of one run: what a paired comparison compares."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    approach: str
    strategy: str
    provider: str
    model: str


class PairedCounts(BaseModel):
    """Two arms on the questions both have a verdict for (McNemar's table)."""

    model_config = ConfigDict(frozen=True)

    pairs: int
    a_correct: int
    b_correct: int
    only_a: int = Field(description="Pairs only arm a got right.")
    only_b: int = Field(description="Pairs only arm b got right.")


class ItemQuery(BaseModel):
    """Which items of a run, in which order (every condition must hold).

    >>> ItemQuery(equals={"correct": [False], "approach": ["tree_of_thought"]},
    ...           search="wait").search
    'wait'
    """

    model_config = ConfigDict(frozen=True)

    equals: dict[str, tuple[Any, ...]] = Field(
        default_factory=dict,
        description="Column (of WHOLE) -> any of these values; None matches no value.",
    )
    at_least: dict[str, float] = Field(default_factory=dict, description="Column -> minimum.")
    at_most: dict[str, float] = Field(default_factory=dict, description="Column -> maximum.")
    search: str = Field(
        default="",
        description="Text the searched column holds (ASCII letters in either case). A "
        "search reads every text of the run: about a second per 100,000 outputs of 2.5 KB.",
    )
    search_in: str = Field(default="raw_output", description="The column searched (SEARCHABLE).")
    has_error: bool | None = Field(default=None, description="Failed items only, or none.")
    paired: Pairing | None = None
    sort: str = Field(default="id", description="The column to sort by (SORTABLE).")
    descending: bool = False

    @model_validator(mode="after")
    def _known_columns(self) -> ItemQuery:
        checks = (
            ("filter by", self.equals, WHOLE),
            ("set a range on", {**self.at_least, **self.at_most}, RANGED),
            ("search", {self.search_in: None}, SEARCHABLE),
            ("sort by", {self.sort: None}, SORTABLE),
        )
        for verb, given, allowed in checks:
            unknown = sorted(set(given) - set(allowed))
            if unknown:
                raise ValueError(
                    f"cannot {verb} {unknown[0]!r}; the columns are: {', '.join(allowed)}"
                )
        return self

    @property
    def plain(self) -> bool:
        """No condition at all: every item of the run."""
        return not (
            self.equals
            or self.at_least
            or self.at_most
            or self.search
            or self.has_error is not None
            or self.paired
        )


class BadRow(BaseModel):
    """A stored row a page lists but cannot read as an :class:`ItemRow` (a value answerx
    does not allow, written by another program or version): shown as such, so one bad
    row does not take the rest of the page with it."""

    model_config = ConfigDict(frozen=True)

    row: int
    item_id: str
    problem: str = Field(description="Which value, and why it is not allowed.")


class ItemPage(BaseModel):
    """One page of a query's items, and how many items match it in all."""

    model_config = ConfigDict(frozen=True)

    rows: list[ItemRow | BadRow]
    total: int


class Neighbours(BaseModel):
    """Where one item stands among the items of a query: its place and the rows around it."""

    model_config = ConfigDict(frozen=True)

    position: int = Field(description="1-based place of the item in the query's order.")
    total: int
    previous: int | None = Field(description="The row before it; None for the first.")
    next: int | None = Field(description="The row after it; None for the last.")


class Tally(BaseModel):
    """The items of one group (the values of the grouped columns in ``group``)."""

    model_config = ConfigDict(frozen=True)

    group: dict[str, Any]
    n: int
    scored: int = Field(description="Items with a verdict.")
    correct: int
    errors: int
    unfinished: int
    cached: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = Field(description="None (unknown) when any item has no price.")
    latency_s: float = Field(description="Mean seconds per item.")


def _sql_value(column: str, value: Any) -> Any:
    if column in _BOOLEAN and value is not None:
        return int(bool(value))
    return value


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def column_sql(column: str, table: str = "items") -> str:
    """SQL for a ranged value (of :data:`RANGED`): ``table.column``, or for a number of
    :data:`JSON_NUMBERS`, that number, NULL where the text is not JSON or holds no number
    there. Written in SQLite's JSON functions; a PostgreSQL store translates this exact
    shape (``_postgres_sql`` in :mod:`~answerx.experiments.store.postgres`)."""
    if column not in JSON_NUMBERS:
        return f"{table}.{column}"
    source, path = JSON_NUMBERS[column]
    text, where = f"{table}.{source}", "$." + ".".join(path)
    # Nested CASE, not AND: json_type on text that is not JSON raises, and SQLite does
    # not promise to test json_valid first inside one condition.
    return (
        f"CASE WHEN json_valid({text}) THEN CASE WHEN json_type({text}, '{where}') "
        f"IN ('integer', 'real') THEN json_extract({text}, '{where}') END END"
    )


def compile_query(run_id: str, query: ItemQuery, *, table: str = "items") -> tuple[str, list[Any]]:
    """``query`` as a SQL condition on ``table`` (the run's items) and its parameters.

    Every column name comes from the fixed lists above (the query checks them), every
    value travels as a parameter: nothing a reader types becomes SQL.
    """
    clauses: list[str] = [f"{table}.run_id = ?"]
    params: list[Any] = [run_id]
    for column, values in query.equals.items():
        given = [v for v in values if v is not None]
        either = []
        if given:
            either.append(f"{table}.{column} IN ({', '.join('?' * len(given))})")
            params += [_sql_value(column, v) for v in given]
        if len(given) < len(values):
            either.append(f"{table}.{column} IS NULL")
        clauses.append(f"({' OR '.join(either)})" if either else "1 = 0")
    for column, low in query.at_least.items():
        clauses.append(f"{column_sql(column, table)} >= ?")
        params.append(low)
    for column, high in query.at_most.items():
        clauses.append(f"{column_sql(column, table)} <= ?")
        params.append(high)
    if query.has_error is not None:
        clauses.append(f"{table}.error IS {'NOT ' if query.has_error else ''}NULL")
    if query.search:
        # LIKE ignores the case of ASCII letters (only), and reads the texts without
        # copying them (instr(lower(...)) took 1.7x as long); the text's own % and _
        # are escaped, so it is found literally.
        clauses.append(f"{table}.{query.search_in} LIKE ? ESCAPE '\\'")
        params.append(f"%{_escape_like(query.search)}%")
    if query.paired is not None:
        pair = query.paired
        verdict = "IS NOT NULL" if pair.correct is None else f"= {int(pair.correct)}"
        clauses.append(
            f"EXISTS (SELECT 1 FROM items AS p WHERE {_SAME_QUESTION.format(a=table, b='p')} "
            f"AND p.correct {verdict})"
        )
        params += [pair.run_id or run_id, pair.approach, pair.strategy]
    return " AND ".join(clauses), params


# Arm b's answer to the question arm a answered (its run, approach, strategy as
# parameters): found through items_key, whose columns come first in this order.
_SAME_QUESTION = (
    "{b}.run_id = ? AND {b}.approach = ? AND {b}.strategy = ? AND {b}.provider = {a}.provider "
    "AND {b}.model = {a}.model AND {b}.item_id = {a}.item_id "
    "AND {b}.repetition = {a}.repetition AND {b}.dataset = {a}.dataset"
)


def paired_sql(a: Arm, b: Arm) -> tuple[str, list[Any]]:
    """The SQL that counts :class:`PairedCounts` for arms ``a`` and ``b`` in one pass."""
    sql = (
        "SELECT count(*), coalesce(sum(a.correct), 0), coalesce(sum(b.correct), 0), "
        "coalesce(sum(a.correct * (1 - b.correct)), 0), "
        "coalesce(sum(b.correct * (1 - a.correct)), 0) "
        f"FROM items AS a JOIN items AS b ON {_SAME_QUESTION.format(a='a', b='b')} "
        "WHERE a.run_id = ? AND a.approach = ? AND a.strategy = ? AND a.provider = ? "
        "AND a.model = ? AND a.correct IS NOT NULL AND b.correct IS NOT NULL"
    )
    return sql, [
        b.run_id,
        b.approach,
        b.strategy,
        a.run_id,
        a.approach,
        a.strategy,
        a.provider,
        a.model,
    ]


def order_of(query: ItemQuery, *, table: str = "items") -> str:
    """The query's ORDER BY terms: its column, then the stored order, so it is total."""
    direction = "DESC" if query.descending else "ASC"
    if query.sort == "id":
        return f"{table}.id {direction}"
    # NULLs where SQLite puts them (first going up), said aloud for PostgreSQL (last).
    nulls = "NULLS LAST" if query.descending else "NULLS FIRST"
    return f"{table}.{query.sort} {direction} {nulls}, {table}.id {direction}"
