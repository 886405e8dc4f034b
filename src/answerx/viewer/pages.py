"""The viewer's pages: runs, one run, its items, one item, two runs compared.

Server-rendered HTML (Jinja2 templates in ``templates/``); every view's state is in its
address (:mod:`answerx.viewer.urls`), so a link shows the same thing to anyone with the
same store. Each request opens the store read-only and closes it after the page: the
viewer writes nothing, sees what a running experiment has committed so far, and holds no
connection between pages.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import BaseModel, ConfigDict

from answerx.errors import ConfigError, RunNotFound, StoreError
from answerx.experiments.records import RunRecord, calls_of
from answerx.experiments.report import Comparison
from answerx.experiments.store import ResultStore
from answerx.experiments.store.browse import (
    FACETS,
    SEARCHABLE,
    SORTABLE,
    ItemQuery,
    ItemRow,
    Pairing,
)
from answerx.viewer.outputs import message_text, pretty_json, render_output
from answerx.viewer.summary import (
    ARM_COLUMNS,
    BREAKDOWNS,
    compare_runs,
    run_overview,
    run_rows,
)
from answerx.viewer.urls import (
    NULL,
    PAGE_SIZES,
    BadQuery,
    Paging,
    canonical,
    href,
    query_params,
    read_query,
    with_params,
)

__all__ = ["ViewerSettings", "install_problem_pages", "item_href", "viewer_router"]

_HERE = Path(__file__).parent
T = TypeVar("T")
#: The columns of the items table: (title, sort column).
TABLE: tuple[tuple[str, str], ...] = (
    ("item", "item_id"),
    ("approach", "approach"),
    ("model", "model"),
    ("question", ""),
    ("gold", "gold"),
    ("answer", "extracted_answer"),
    ("verdict", "correct"),
    ("reason", "reason"),
    ("method", "method"),
    ("conf.", "confidence"),
    ("calls", "calls"),
    ("tokens", "output_tokens"),
    ("latency", "latency_s"),
)


class ViewerSettings(BaseModel):
    """Which store the viewer reads, and which of its runs it shows (None: every run)."""

    model_config = ConfigDict(frozen=True)

    db: Path | str  # a SQLite file, or a PostgreSQL server's URL
    run_ids: tuple[str, ...] | None = None


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _number(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}"


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _when(value: datetime | None) -> str:
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


_TEMPLATES = Environment(
    loader=FileSystemLoader(_HERE / "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    extensions=["jinja2.ext.do"],
    trim_blocks=True,
    lstrip_blocks=True,
)
_TEMPLATES.filters.update(percent=_percent, number=_number, money=_money, when=_when)
_TEMPLATES.globals.update(
    href=href,
    with_params=with_params,
    query_params=query_params,
    NULL=NULL,
    PAGE_SIZES=PAGE_SIZES,
    ARM_COLUMNS=ARM_COLUMNS,
    TABLE=TABLE,
    SEARCHABLE=SEARCHABLE,
    SORTABLE=SORTABLE,
    message_text=message_text,
    pretty_json=pretty_json,
    render_output=render_output,
)


def _page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    base = request.scope.get("root_path", "").rstrip("/")
    html = _TEMPLATES.get_template(template).render(base=base, request=request, **context)
    return HTMLResponse(html, status_code=status, headers=_HEADERS)


# Every asset comes from this server: the page works offline, and nothing else may run.
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class _Problem(Exception):
    """A page that cannot be shown: its status and what to say."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _settings(request: Request) -> ViewerSettings:
    settings = request.app.state.viewer
    assert isinstance(settings, ViewerSettings)
    return settings


def _store(request: Request) -> Iterator[ResultStore]:
    """The store, opened read-only for one request."""
    settings = _settings(request)
    if isinstance(settings.db, Path) and not settings.db.is_file():
        raise _Problem(404, f"no results store at {settings.db}: run an experiment first")
    opened = ResultStore.open(settings.db, "read_only")
    try:
        yield opened
    finally:
        opened.close()


Store = Annotated[ResultStore, Depends(_store)]


def _shown(request: Request, db: ResultStore, run_id: str) -> RunRecord:
    """The run ``run_id`` (or the one its prefix names), when the viewer shows it."""
    run = db.get_run(run_id)
    allowed = _settings(request).run_ids
    if allowed is not None and run.run_id not in allowed:
        raise RunNotFound(f"run {run_id!r} is not one of the runs shown here", run_id=run_id)
    return run


def viewer_router() -> APIRouter:
    """The pages (mount them under ``/runs``); the app's ``state.viewer`` holds the
    :class:`ViewerSettings` they read."""
    router = APIRouter()

    @router.get("/", response_class=HTMLResponse, name="runs")
    def runs_page(request: Request, db: Store) -> Response:
        settings = _settings(request)
        runs = db.list_runs()
        if settings.run_ids is not None:
            runs = [r for r in runs if r.run_id in settings.run_ids]
        rows = _cached(request, ("runs", ""), lambda: run_rows(db, runs))
        return _page(request, "runs.html", rows=rows, db_path=settings.db)

    @router.get("/compare", response_class=HTMLResponse, name="compare")
    def compare_page(
        request: Request, db: Store, run: Annotated[list[str] | None, Query()] = None
    ) -> Response:
        picked = list(dict.fromkeys(run or []))
        if len(picked) != 2:
            raise _Problem(400, f"pick two runs to compare (got {len(picked)})")
        first, second = (_shown(request, db, r) for r in picked)
        if [first.run_id, second.run_id] != picked:
            return _redirect(request, "/compare", [("run", first.run_id), ("run", second.run_id)])
        rows, comparisons = compare_runs(db, first, second)
        return _page(
            request,
            "compare.html",
            first=first,
            second=second,
            rows=rows,
            comparisons=comparisons,
        )

    @router.get("/{run_id}", response_class=HTMLResponse, name="run")
    def run_page(request: Request, run_id: str, db: Store) -> Response:
        run = _shown(request, db, run_id)
        if run.run_id != run_id:
            return _redirect(request, f"/{run.run_id}")
        overview = _cached(request, ("run", run.run_id), lambda: run_overview(db, run))
        return _page(request, "run.html", run=run, overview=overview, breakdowns=BREAKDOWNS)

    @router.get("/{run_id}/items", response_class=HTMLResponse, name="items")
    def items_page(request: Request, run_id: str, db: Store) -> Response:
        run = _shown(request, db, run_id)
        given = list(request.query_params.multi_items())
        query, paging = read_query(given)
        if run.run_id != run_id or canonical(given) != given:
            return _redirect(request, f"/{run.run_id}/items", query_params(query, paging))
        page = db.item_page(run.run_id, query, offset=paging.offset, limit=paging.size)
        return _page(
            request,
            "items.html",
            run=run,
            query=query,
            paging=paging,
            page=page,
            facets=_cached(request, ("facets", run.run_id), lambda: _facets(db, run.run_id)),
            pages=max(1, -(-page.total // paging.size)),
        )

    @router.get("/{run_id}/items/{row}", response_class=HTMLResponse, name="item")
    def item_page(request: Request, run_id: str, row: int, db: Store) -> Response:
        run = _shown(request, db, run_id)
        params = [(k, v) for k, v in request.query_params.multi_items() if k != "vs"]
        query, paging = read_query(params)
        item = db.item_at(run.run_id, row)
        if item is None:
            raise _Problem(404, f"run {run.run_id} has no item {row}")
        if run.run_id != run_id:
            return _redirect(request, f"/{run.run_id}/items/{row}", query_params(query))
        vs = request.query_params.get("vs")
        other = db.item_at(run.run_id, int(vs)) if vs and vs.isdigit() else None
        place = db.neighbours(run.run_id, row, query)
        if place is not None:
            paging = Paging(page=(place.position - 1) // paging.size + 1, size=paging.size)
        # The same question in every arm: each arm named (from the run's filter choices),
        # so the store's key index finds them at once (item ids hold their dataset).
        facets = _cached(request, ("facets", run.run_id), lambda: _facets(db, run.run_id))
        arms = {c: tuple(v for v, _ in facets[c]) for c in ARM_COLUMNS}
        same_question = ItemQuery(
            equals={**arms, "item_id": (item.item_id,), "repetition": (item.repetition,)}
        )
        siblings = [r for r in db.item_page(run.run_id, same_question, limit=200).rows]
        return _page(
            request,
            "item.html",
            run=run,
            row=row,
            item=item,
            other=other,
            query=query,
            paging=paging,
            place=place,
            siblings=siblings,
            calls=calls_of(item.conversation),
            other_calls=calls_of(other.conversation) if other else None,
            prompt=_prompt(item.prompt),
        )

    return router


def _redirect(request: Request, path: str, params: list[tuple[str, str]] | None = None) -> Response:
    base = request.scope.get("root_path", "").rstrip("/")
    return RedirectResponse(href(base + path, params or []), status_code=303)


def _signature(db: Path) -> tuple[int, ...]:
    """What changes whenever the store does: the file's and its WAL's size and time (a
    commit appends to the WAL; a checkpoint writes the file)."""
    found = []
    for path in (db, Path(f"{db}-wal")):
        try:
            stat = path.stat()
        except FileNotFoundError:
            found += [0, 0]
        else:
            found += [stat.st_mtime_ns, stat.st_size]
    return tuple(found)


_CACHED = 64  # figures of this many (kind, run) kept at most


def _cached(request: Request, key: tuple[str, str], compute: Callable[[], T]) -> T:
    """``compute()``, kept until the store changes: a run's figures (counted over all its
    items) are counted again only when an item is added or scored."""
    settings = _settings(request)
    if not isinstance(settings.db, Path):  # a server's store: no file tells when it changed
        return compute()
    cache: dict[tuple[Any, ...], Any] = request.app.state.figures
    lock: threading.Lock = request.app.state.figures_lock
    signed = (*key, _signature(settings.db))
    with lock:
        if signed in cache:
            return cast(T, cache[signed])
    value = compute()
    with lock:
        for stale in [k for k in cache if k[:2] == key]:
            del cache[stale]
        while len(cache) >= _CACHED:
            del cache[next(iter(cache))]
        cache[signed] = value
    return value


def _facets(db: ResultStore, run_id: str) -> dict[str, list[tuple[Any, int]]]:
    """Each facet column's values in the run, with how many items have each (one pass
    over the browsing index)."""
    found: dict[str, dict[Any, int]] = {c: {} for c in FACETS}
    for group, count in db.value_counts(run_id, FACETS):
        for column in FACETS:
            value = group[column]
            found[column][value] = found[column].get(value, 0) + count
    return {c: sorted(v.items(), key=lambda kv: (-kv[1], str(kv[0]))) for c, v in found.items()}


def _prompt(prompt: str) -> list[dict[str, Any]] | None:
    """The first request's messages (stored before every call was): JSON, or None."""
    try:
        messages = json.loads(prompt) if prompt else None
    except ValueError:
        return None
    if not isinstance(messages, list):
        return None
    return [m for m in messages if isinstance(m, dict)]


def problem_page(request: Request, status: int, message: str) -> HTMLResponse:
    """The page said instead of the one asked for: what went wrong, in words."""
    return _page(request, "problem.html", status, code=status, message=message)


def install_problem_pages(app: FastAPI) -> None:
    """Answer the viewer's own failures with a page that says what went wrong: a run that
    is not there (404), an address it cannot read or an ambiguous run id (400), a store
    it cannot read (503)."""

    async def problem(request: Request, exc: Exception) -> HTMLResponse:
        if isinstance(exc, _Problem):
            return problem_page(request, exc.status, str(exc))
        if isinstance(exc, RunNotFound):
            return problem_page(request, 404, str(exc))
        if isinstance(exc, BadQuery):
            return problem_page(request, 400, f"cannot read this address: {exc}")
        if isinstance(exc, ConfigError):
            return problem_page(request, 400, str(exc))
        return problem_page(request, 503, str(exc))

    for kind in (_Problem, BadQuery, ConfigError, StoreError):
        app.add_exception_handler(kind, problem)


def items_link(
    base: str,
    run_id: str,
    group: Mapping[str, Any] | None = None,
    paired: Pairing | None = None,
    **equals: Any,
) -> str:
    """The items behind a figure: run ``run_id``'s items of arm ``group`` (its columns of
    :data:`ARM_COLUMNS`) with the columns of ``equals`` (and ``paired``)."""
    values = {**({c: group[c] for c in ARM_COLUMNS} if group else {}), **equals}
    query = ItemQuery(equals={c: (v,) for c, v in values.items()}, paired=paired)
    return href(f"{base}/{run_id}/items", query_params(query))


def comparison_links(base: str, comparison: Comparison) -> dict[str, str]:
    """The items behind a paired comparison's figures: each arm's items, and the pairs
    only arm a (``only_a``) or only arm b (``only_b``) got right."""
    arms = {}
    for side, run_id, arm in (
        ("a", comparison.a_run_id, comparison.a),
        ("b", comparison.b_run_id, comparison.b),
    ):
        approach, _, strategy = arm.partition("/")
        arms[side] = (
            run_id,
            {
                "approach": approach,
                "strategy": strategy,
                "provider": comparison.provider,
                "model": comparison.model,
            },
        )
    links = {side: items_link(base, run_id, group) for side, (run_id, group) in arms.items()}
    for side, other in (("a", "b"), ("b", "a")):
        run_id, group = arms[side]
        other_run, other_group = arms[other]
        pairing = Pairing(
            approach=other_group["approach"],
            strategy=other_group["strategy"],
            correct=False,
            run_id=None if other_run == run_id else other_run,
        )
        links[f"only_{side}"] = items_link(base, run_id, group, pairing, correct=True)
    return links


def item_href(base: str, run_id: str, row: ItemRow, query: ItemQuery, paging: Paging) -> str:
    """The item page of ``row``, keeping the list's filter (and page size) for next/previous."""
    params = query_params(query, Paging(size=paging.size))
    return href(f"{base}/{run_id}/items/{row.row}", params)


_TEMPLATES.globals.update(
    item_href=item_href, items_link=items_link, comparison_links=comparison_links
)
