"""The browse queries: pages, counts, neighbours and tallies of a run's items, run in SQL.

:class:`BrowseQueries` is the part of :class:`~answerx.experiments.store.ResultStore`
that answers an :class:`~answerx.experiments.store.browse.ItemQuery` (the viewer's,
``answerx runs view``): the query becomes SQL in :mod:`.browse`, is run here over the
browsing index, and only a page's rows are read, so a 100,000-item run is filtered,
counted and paged without reading its texts into memory.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerx.errors import ConfigError, StoreError
from answerx.experiments.records import ItemRecord
from answerx.experiments.store.browse import (
    GROUPS,
    ROW_COLUMNS,
    Arm,
    ItemPage,
    ItemQuery,
    ItemRow,
    Neighbours,
    PairedCounts,
    Tally,
    compile_query,
    order_of,
    paired_sql,
)
from answerx.experiments.store.schema import from_sql

__all__ = ["BrowseQueries"]


class BrowseQueries:
    """Browse queries over the store's connection (a mixin of
    :class:`~answerx.experiments.store.ResultStore`, which opens and guards it)."""

    path: Path
    _db: sqlite3.Connection

    if TYPE_CHECKING:  # the store's own, which this mixin runs its queries through

        def _guard(self) -> AbstractContextManager[sqlite3.Connection]: ...

        def _reading(self) -> AbstractContextManager[None]: ...

        def _item_from_row(self, row: sqlite3.Row) -> ItemRecord: ...

        def _error(self, exc: Exception) -> StoreError: ...

    def item_page(
        self, run_id: str, query: ItemQuery | None = None, *, offset: int = 0, limit: int = 50
    ) -> ItemPage:
        """A page of the run's items matching ``query``, in its order, without their long
        texts (:class:`~answerx.experiments.store.browse.ItemRow`), and how many match in all.

        The rows are chosen over the columns of the browsing index, then only the page's
        rows are read: a page of a 100,000-item run reads 50 rows, not all. A search,
        which must read every text, reads them once for both the page and the count.
        """
        query = query or ItemQuery()
        where, params = compile_query(run_id, query)
        select = f"SELECT id FROM items WHERE {where} ORDER BY {order_of(query)}"
        offset, limit = max(0, offset), max(0, limit)
        with self._guard(), self._reading():
            if query.search:
                every = [row[0] for row in self._db.execute(select, params)]
                total, ids = len(every), every[offset : offset + limit]
            else:
                found = self._db.execute(f"SELECT count(*) FROM items WHERE {where}", params)
                total = int(found.fetchone()[0])
                paged = self._db.execute(f"{select} LIMIT ? OFFSET ?", [*params, limit, offset])
                ids = [row[0] for row in paged]
            columns = ", ".join(ROW_COLUMNS)
            rows = {
                row["id"]: row
                for row in self._db.execute(
                    f"SELECT id, {columns} FROM items WHERE id IN ({', '.join('?' * len(ids))})",
                    ids,
                )
            } if ids else {}  # fmt: skip
        return ItemPage(rows=[self._rowfrom_sql(rows[i]) for i in ids if i in rows], total=total)

    def count_rows(self, run_id: str, query: ItemQuery | None = None) -> int:
        """How many of the run's items match ``query``."""
        where, params = compile_query(run_id, query or ItemQuery())
        with self._guard():
            found = self._db.execute(f"SELECT count(*) FROM items WHERE {where}", params)
            return int(found.fetchone()[0])

    def item_at(self, run_id: str, row: int) -> ItemRecord | None:
        """The whole item stored in ``row`` (:attr:`ItemRow.row`) of run ``run_id``; None
        when that row holds no item of the run."""
        with self._guard():
            found = self._db.execute(
                "SELECT * FROM items WHERE id = ? AND run_id = ?", (row, run_id)
            ).fetchone()
        return None if found is None else self._item_from_row(found)

    def neighbours(
        self, run_id: str, row: int, query: ItemQuery | None = None
    ) -> Neighbours | None:
        """Where ``row`` stands among the run's items matching ``query`` (its place, the
        rows before and after it); None when it does not match the query."""
        query = query or ItemQuery()
        where, params = compile_query(run_id, query)
        if query.sort == "id" and not query.search:
            return self._neighbours_in_stored_order(where, params, row, query.descending)
        with self._guard():
            found = self._db.execute(
                "SELECT place, previous, following, total FROM ("
                "SELECT id, row_number() OVER w AS place, lag(id) OVER w AS previous, "
                "lead(id) OVER w AS following, count(*) OVER () AS total "
                f"FROM items WHERE {where} WINDOW w AS (ORDER BY {order_of(query)})"
                ") AS ranked WHERE id = ?",
                [*params, row],
            ).fetchone()
        if found is None:
            return None
        place, previous, following, total = found
        return Neighbours(position=place, total=total, previous=previous, next=following)

    def _neighbours_in_stored_order(
        self, where: str, params: list[Any], row: int, descending: bool
    ) -> Neighbours | None:
        """:meth:`neighbours` in the stored order, in one pass over the browsing index
        (half the time of the window functions, which sort every match first)."""
        before, after = ("<", ">") if not descending else (">", "<")
        first, last = ("max", "min") if not descending else ("min", "max")
        with self._guard():
            total, place, previous, following, there = self._db.execute(
                f"SELECT count(*), coalesce(sum(CASE WHEN id {before} ? THEN 1 ELSE 0 END), 0), "
                f"{first}(CASE WHEN id {before} ? THEN id END), "
                f"{last}(CASE WHEN id {after} ? THEN id END), "
                "coalesce(sum(CASE WHEN id = ? THEN 1 ELSE 0 END), 0) "
                f"FROM items WHERE {where}",
                [row, row, row, row, *params],
            ).fetchone()
        if not there:
            return None
        return Neighbours(position=place + 1, total=total, previous=previous, next=following)

    def tally(
        self, run_id: str, by: tuple[str, ...] = (), query: ItemQuery | None = None
    ) -> list[Tally]:
        """The run's items matching ``query``, counted per group of the ``by`` columns
        (of :data:`~answerx.experiments.store.browse.GROUPS`): verdicts, failures, tokens,
        cost and mean latency, in SQL (nothing but the counts is read into memory)."""
        unknown = sorted(set(by) - set(GROUPS))
        if unknown:
            raise ConfigError(
                f"cannot group items by {unknown[0]!r}; group by: {', '.join(GROUPS)}"
            )
        where, params = compile_query(run_id, query or ItemQuery())
        # The figures are named apart from every column (t_*): a group's column of the same
        # name (correct, cached) would otherwise be read in their place, by SQLite's row,
        # and be ambiguous in PostgreSQL's ORDER BY.
        keys = ", ".join(by)
        sql = (
            f"SELECT {keys + ', ' if by else ''}count(*) AS t_n, count(correct) AS t_scored, "
            "coalesce(sum(correct), 0) AS t_correct, count(error) AS t_errors, "
            "coalesce(sum(unfinished), 0) AS t_unfinished, coalesce(sum(cached), 0) AS t_cached, "
            "coalesce(sum(input_tokens), 0) AS t_input_tokens, "
            "coalesce(sum(output_tokens), 0) AS t_output_tokens, "
            "sum(cost_usd) AS t_cost, count(cost_usd) AS t_priced, "
            "coalesce(avg(latency_s), 0) AS t_latency_s "
            f"FROM items WHERE {where}" + (f" GROUP BY {keys} ORDER BY {keys}" if by else "")
        )
        with self._guard():
            rows = self._db.execute(sql, params).fetchall()
        return [
            Tally(
                group={c: from_sql(c, row[i]) for i, c in enumerate(by)},
                n=row["t_n"],
                scored=row["t_scored"],
                correct=row["t_correct"],
                errors=row["t_errors"],
                unfinished=row["t_unfinished"],
                cached=row["t_cached"],
                input_tokens=row["t_input_tokens"],
                output_tokens=row["t_output_tokens"],
                # One unpriced item makes the sum unknown, never an undercount.
                cost_usd=(row["t_cost"] or 0.0) if row["t_priced"] == row["t_n"] else None,
                latency_s=row["t_latency_s"],
            )
            for row in rows
            if row["t_n"]
        ]

    def value_counts(
        self, run_id: str, by: tuple[str, ...], query: ItemQuery | None = None
    ) -> list[tuple[dict[str, Any], int]]:
        """How many of the run's items matching ``query`` have each combination of values
        of the ``by`` columns (of :data:`~answerx.experiments.store.browse.GROUPS`): a lighter
        :meth:`tally` that counts only (grouped in the browsing index's column order, it
        reads the index once without sorting)."""
        unknown = sorted(set(by) - set(GROUPS)) or ([] if by else ["(none)"])
        if unknown:
            raise ConfigError(
                f"cannot group items by {unknown[0]!r}; group by: {', '.join(GROUPS)}"
            )
        where, params = compile_query(run_id, query or ItemQuery())
        keys = ", ".join(by)
        sql = f"SELECT {keys}, count(*) FROM items WHERE {where} GROUP BY {keys} ORDER BY {keys}"
        with self._guard():
            rows = self._db.execute(sql, params).fetchall()
        return [({c: from_sql(c, row[c]) for c in by}, row[len(by)]) for row in rows]

    def paired_counts(self, a: Arm, b: Arm) -> PairedCounts:
        """Arms ``a`` and ``b`` (of one run or two) on the same questions (dataset, item,
        repetition) that both have a verdict for: what McNemar's test needs."""
        sql, params = paired_sql(a, b)
        with self._guard():
            pairs, a_correct, b_correct, only_a, only_b = self._db.execute(sql, params).fetchone()
        return PairedCounts(
            pairs=pairs, a_correct=a_correct, b_correct=b_correct, only_a=only_a, only_b=only_b
        )

    def _rowfrom_sql(self, row: sqlite3.Row) -> ItemRow:
        try:
            return ItemRow.model_validate(
                {"row": row["id"], **{c: from_sql(c, row[c]) for c in ROW_COLUMNS}}
            )
        except ValueError:  # bytes overwritten inside a page SQLite still reads
            damaged = ValueError(f"the stored item in row {row['id']} is unreadable")
            raise self._error(damaged) from None
