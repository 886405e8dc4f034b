"""A stored row the item page cannot read as an item: what of it is readable, and which
of its values answerx does not allow, and why.

The store reads a whole item or raises (:meth:`~answerx.experiments.store.ResultStore.item_at`
says the row is unreadable, as it must for a command that would act on it). A reader
who opens that row from the items list, where it is already listed as a bad row
(:class:`~answerx.experiments.store.browse.BadRow`), wants to see it, not a page
calling the whole store damaged: so the row is read again as plain values and each
value checked on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from answerx.experiments.records import ItemRecord
from answerx.experiments.store.schema import ITEM_COLUMNS, from_sql

__all__ = ["BadItem", "BrokenValue", "read_bad_item"]

_SHOWN = 300  # characters of a value shown; a long text is cut there


class BrokenValue(BaseModel):
    """One value answerx does not allow: its column, what is stored (cut) and why."""

    model_config = ConfigDict(frozen=True)

    column: str
    stored: str
    why: str


class BadItem(BaseModel):
    """A row of a run that is not a valid item: its readable values and its broken ones."""

    model_config = ConfigDict(frozen=True)

    row: int
    item_id: str
    readable: list[tuple[str, str]] = Field(description="(column, value cut) of each good value.")
    broken: list[BrokenValue]


class _Reads(Protocol):
    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...


def _shown(value: Any) -> str:
    text = "NULL" if value is None else str(value)
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}… ({len(text):,} characters)"


def read_bad_item(store: _Reads, run_id: str, row: int) -> BadItem | None:
    """Row ``row`` of run ``run_id`` as a :class:`BadItem`; None when the row is not the
    run's or every value of it is allowed (then what failed was not the row's values,
    and the store's own error stands)."""
    found = store.fetch("SELECT * FROM items WHERE id = ? AND run_id = ?", [row, run_id])
    if not found:
        return None
    # keys(): a database row iterates over its values, not its names.
    stored = {column: found[0][column] for column in found[0].keys()}  # noqa: SIM118
    values: dict[str, Any] = {}
    broken: dict[str, str] = {}
    for column in ITEM_COLUMNS:
        if column not in stored:
            continue  # an older schema's row: the record's default
        try:
            values[column] = from_sql(column, stored[column])
        except ValueError as exc:  # JSON or a time that does not parse
            broken[column] = f"not readable as stored: {exc}"
    try:
        ItemRecord.model_validate(values)
    except ValidationError as exc:
        for error in exc.errors():
            column = str(error["loc"][0]) if error["loc"] else "(the row)"
            broken.setdefault(column, error["msg"])
    if not broken:
        return None
    return BadItem(
        row=row,
        item_id=str(stored.get("item_id")),
        readable=[(c, _shown(stored[c])) for c in ITEM_COLUMNS if c in stored and c not in broken],
        broken=[
            BrokenValue(column=c, stored=_shown(stored.get(c)), why=w) for c, w in broken.items()
        ],
    )
