"""The viewer's query strings: an :class:`~answerx.experiments.store.browse.ItemQuery` and a page,
read from a URL and written back into links, so that every view has one stable address.

Parameters (each may repeat where a column takes several values):

- ``COLUMN=VALUE`` for any column of :data:`~answerx.experiments.store.browse.WHOLE`
  (``approach=tree_of_thought&correct=false&unfinished=true``); ``null`` is "no value";
- ``min_COLUMN`` / ``max_COLUMN`` for the numbers of
  :data:`~answerx.experiments.store.browse.RANGED` (``min_latency_s=30``);
- ``error=true|false``: failed items only, or none;
- ``q=TEXT`` searches the raw outputs, ``in=COLUMN`` another text column;
- ``pair=APPROACH/STRATEGY`` with ``pair_correct=true|false`` (and ``pair_run=RUN``): items
  whose same question that arm got right or wrong;
- ``sort=COLUMN``, ``desc=1``, ``page=N``, ``size=N``;
- ``fcol=COLUMN&fval=VALUE``: a filter on a column picked in a form, rewritten into
  ``COLUMN=VALUE`` (:func:`canonical`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from answerx.experiments.store.browse import RANGED, SEARCHABLE, SORTABLE, WHOLE, ItemQuery, Pairing

__all__ = [
    "NULL",
    "PAGE_SIZES",
    "BadQuery",
    "Paging",
    "canonical",
    "href",
    "query_params",
    "read_query",
    "with_params",
]

#: The value that stands for "no value" in a filter.
NULL = "null"
#: Page sizes a list offers; any size from 1 to the largest is accepted.
PAGE_SIZES: tuple[int, ...] = (25, 50, 100, 200, 500)

_BOOLEAN = frozenset({"correct", "valid", "unfinished", "cached"})
_INTEGER = frozenset({"repetition"})
_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})
_KNOWN = frozenset(
    {"error", "q", "in", "pair", "pair_correct", "pair_run", "sort", "desc", "page", "size"}
    | {"fcol", "fval", "vs"}
)


class BadQuery(ValueError):
    """A query string the viewer cannot read (its message says which parameter and why)."""


class Paging(BaseModel):
    """Which page of a list: 1-based ``page`` of ``size`` rows."""

    model_config = ConfigDict(frozen=True)

    page: int = Field(default=1, ge=1)
    size: int = Field(default=50, ge=1, le=PAGE_SIZES[-1])

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size


def _boolean(name: str, value: str) -> bool | None:
    folded = value.strip().lower()
    if folded == NULL:
        return None
    if folded in _TRUE:
        return True
    if folded in _FALSE:
        return False
    raise BadQuery(f"{name}={value!r}: give true, false or {NULL}")


def _value(column: str, value: str) -> Any:
    if column in _BOOLEAN:
        return _boolean(column, value)
    if value == NULL:
        return None
    if column in _INTEGER:
        try:
            return int(value)
        except ValueError:
            raise BadQuery(f"{column}={value!r}: give a whole number") from None
    return value


def _number(name: str, value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise BadQuery(f"{name}={value!r}: give a number") from None


def read_query(params: Iterable[tuple[str, str]]) -> tuple[ItemQuery, Paging]:
    """The item query and the page a URL's parameters ask for; :class:`BadQuery` says
    what is wrong with one it cannot read. Empty values are ignored (an unset form field).
    """
    equals: dict[str, list[Any]] = {}
    at_least: dict[str, float] = {}
    at_most: dict[str, float] = {}
    single: dict[str, str] = {}
    for name, raw in params:
        value = raw.strip()
        if not value:
            continue
        if name in WHOLE:
            equals.setdefault(name, []).append(_value(name, value))
        elif name.startswith(("min_", "max_")) and name[4:] in RANGED:
            (at_least if name.startswith("min_") else at_most)[name[4:]] = _number(name, value)
        elif name in _KNOWN:
            single[name] = value
        else:
            raise BadQuery(f"unknown parameter {name!r}")
    if "fcol" in single and "fval" in single:
        column = single["fcol"]
        if column not in WHOLE:
            raise BadQuery(f"cannot filter by {column!r}; the columns are: {', '.join(WHOLE)}")
        equals.setdefault(column, []).append(_value(column, single["fval"]))
    paired = None
    if "pair" in single:
        approach, _, strategy = single["pair"].partition("/")
        if not approach or not strategy:
            raise BadQuery(f"pair={single['pair']!r}: give APPROACH/STRATEGY")
        correct = _boolean("pair_correct", single.get("pair_correct", NULL))
        paired = Pairing(
            approach=approach, strategy=strategy, correct=correct, run_id=single.get("pair_run")
        )
    try:
        query = ItemQuery(
            equals={c: tuple(dict.fromkeys(v)) for c, v in equals.items()},
            at_least=at_least,
            at_most=at_most,
            search=single.get("q", ""),
            search_in=single.get("in", "raw_output"),
            has_error=_boolean("error", single["error"]) if "error" in single else None,
            paired=paired,
            sort=single.get("sort", "id"),
            descending=single.get("desc", "0").lower() in _TRUE,
        )
        paging = Paging(
            page=int(single.get("page", "1")), size=int(single.get("size", str(PAGE_SIZES[1])))
        )
    except ValidationError as exc:
        raise BadQuery("; ".join(str(e["msg"]) for e in exc.errors())) from None
    except ValueError:
        raise BadQuery("page and size must be whole numbers") from None
    return query, paging


def _text(value: Any) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _number_text(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def query_params(query: ItemQuery, paging: Paging | None = None) -> list[tuple[str, str]]:
    """``query`` (and ``paging`` when not the first default page) as URL parameters, in
    one canonical order: the same view always has the same address."""
    params = [(c, _text(v)) for c in WHOLE for v in query.equals.get(c, ())]
    params += [(f"min_{c}", _number_text(query.at_least[c])) for c in RANGED if c in query.at_least]
    params += [(f"max_{c}", _number_text(query.at_most[c])) for c in RANGED if c in query.at_most]
    if query.has_error is not None:
        params.append(("error", _text(query.has_error)))
    if query.search:
        params.append(("q", query.search))
        if query.search_in != SEARCHABLE[0]:
            params.append(("in", query.search_in))
    if query.paired is not None:
        pair = query.paired
        params.append(("pair", f"{pair.approach}/{pair.strategy}"))
        if pair.correct is not None:
            params.append(("pair_correct", _text(pair.correct)))
        if pair.run_id is not None:
            params.append(("pair_run", pair.run_id))
    if query.sort != SORTABLE[0]:
        params.append(("sort", query.sort))
    if query.descending:
        params.append(("desc", "1"))
    if paging is not None:
        if paging.page != 1:
            params.append(("page", str(paging.page)))
        if paging.size != PAGE_SIZES[1]:
            params.append(("size", str(paging.size)))
    return params


def canonical(params: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The canonical form of a list's parameters (what :func:`query_params` writes)."""
    query, paging = read_query(params)
    return query_params(query, paging)


def href(path: str, params: Sequence[tuple[str, str]] = ()) -> str:
    """``path`` with ``params`` as its query string."""
    return f"{path}?{urlencode(params)}" if params else path


def with_params(
    query: ItemQuery, paging: Paging | None = None, **changes: Any
) -> list[tuple[str, str]]:
    """The parameters of ``query`` with some fields changed (``sort=``, ``equals=`` …):
    the links of a list (sort by a column, the next page, one more filter)."""
    return query_params(query.model_copy(update=changes), paging)
