"""Where a search matched: a few words either side of the first match in each listed
item's searched text, the match marked.

Read in SQLite for the rows of one page only (``instr`` on the text lowered as ``LIKE``
lowers it, ASCII letters only, so the place found is the one the search matched), and
only the snippet's characters leave the database: a page of 2 MB outputs sends 50
short lines, not 100 MB.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from markupsafe import Markup, escape

from answerx.experiments.store.browse import SEARCHABLE

__all__ = ["AROUND", "snippets"]

#: Characters shown before and after the match.
AROUND = 70


class _Reads(Protocol):
    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...


def snippets(store: _Reads, rows: Sequence[int], column: str, text: str) -> dict[int, Markup]:
    """Each row's snippet of ``column`` around the first match of ``text`` (escaped, the
    match in ``<mark class="hit">``); a row whose text does not hold it is left out."""
    if not rows or not text or column not in SEARCHABLE:  # the column names SQL: checked
        return {}
    # instr (SQLite) is strpos on a PostgreSQL store (its SQL layer translates the word);
    # CASE, not a scalar max(), which PostgreSQL spells greatest().
    where = f"instr(lower({column}), lower(?))"
    found = store.fetch(
        f"SELECT id, {where}, substr({column}, "
        f"CASE WHEN {where} > {AROUND} THEN {where} - {AROUND} ELSE 1 END, "
        f"? + {2 * AROUND}), length({column}) FROM items "
        f"WHERE id IN ({', '.join('?' * len(rows))})",
        [text, text, text, len(text), *rows],
    )
    shown: dict[int, Markup] = {}
    for row, at, part, length in found:
        if not at or part is None:
            continue
        start = max(1, at - AROUND)
        lo = at - start
        hi = lo + len(text)
        shown[row] = (
            (Markup("…") if start > 1 else Markup(""))
            + escape(part[:lo])
            + Markup('<mark class="hit">{}</mark>').format(part[lo:hi])
            + escape(part[hi:])
            + (Markup("…") if start - 1 + len(part) < length else Markup(""))
        )
    return shown
