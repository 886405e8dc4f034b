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
from array import array
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from itertools import combinations
from pathlib import Path
from typing import Annotated, Any, TypeVar, cast

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict

from answerx.errors import ConfigError, RunNotFound, StoreError
from answerx.experiments.compare import (
    SHOWS,
    arm_text,
    compare_arms,
    matching_pairs,
    pair_page,
    read_arm,
    unmatched_pairs,
)
from answerx.experiments.records import ItemRecord, RunRecord, calls_of
from answerx.experiments.report import Comparison
from answerx.experiments.store import ResultStore
from answerx.experiments.store.browse import (
    FACETS,
    SEARCHABLE,
    SORTABLE,
    Arm,
    BadRow,
    ItemQuery,
    ItemRow,
    Pairing,
)
from answerx.viewer.bad_rows import BadItem, read_bad_item
from answerx.viewer.chart_data import (
    DISTRIBUTIONS,
    accuracy_bars,
    arm_points,
    breakdown_bars,
    calibration,
    distribution,
    judge_ruled,
)
from answerx.viewer.charts import bars, histogram, scatter
from answerx.viewer.export import EXPORTS, stream_items
from answerx.viewer.model_outputs import (
    FOLD_AT,
    message_text,
    pretty_json,
    render_output,
    span_fits,
)
from answerx.viewer.reading import read_store
from answerx.viewer.snippets import snippets
from answerx.viewer.summary import (
    ARM_COLUMNS,
    BREAKDOWNS,
    GroupFigures,
    RunOverview,
    RunRow,
    compare_runs,
    run_overview,
    run_rows,
)
from answerx.viewer.urls import (
    COLUMNS,
    MAX_PAGE,
    NULL,
    PAGE_SIZES,
    BadQuery,
    Paging,
    canonical,
    href,
    query_params,
    read_query,
    view_params,
    whole_number,
    with_params,
)
from answerx.viewer.worddiff import word_diff

__all__ = [
    "ViewerSettings",
    "install_problem_pages",
    "item_href",
    "p_value",
    "viewer_router",
]

_HERE = Path(__file__).parent
T = TypeVar("T")
#: The items table's columns (:data:`~answerx.viewer.urls.COLUMNS`): title, sort column.
TABLE: dict[str, tuple[str, str]] = {
    "item": ("item", "item_id"),
    "approach": ("approach", "approach"),
    "model": ("model", "model"),
    "question": ("question", ""),
    "gold": ("gold", "gold"),
    "answer": ("answer", "extracted_answer"),
    "verdict": ("verdict", "correct"),
    "reason": ("reason", "reason"),
    "method": ("method", "method"),
    "confidence": ("conf.", "confidence"),
    "calls": ("calls", "calls"),
    "tokens": ("tokens", "output_tokens"),
    "latency": ("latency", "latency_s"),
}


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


def p_value(value: float) -> str:
    """A p-value as a reader wants it: three significant digits, and "< 0.001" below
    that (an exact test's tail underflows to 0.0 on large counts; it is never 0)."""
    return "< 0.001" if value < 0.001 else f"{value:.3g}"


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
_TEMPLATES.filters.update(
    percent=_percent, number=_number, money=_money, when=_when, p_value=p_value
)
_TEMPLATES.globals.update(
    href=href,
    with_params=with_params,
    query_params=query_params,
    view_params=view_params,
    NULL=NULL,
    PAGE_SIZES=PAGE_SIZES,
    ARM_COLUMNS=ARM_COLUMNS,
    TABLE=TABLE,
    COLUMNS=COLUMNS,
    SEARCHABLE=SEARCHABLE,
    SORTABLE=SORTABLE,
    message_text=message_text,
    pretty_json=pretty_json,
    render_output=render_output,
    span_fits=span_fits,
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
    """The store, opened read-only for one request (:func:`~answerx.viewer.reading.read_store`:
    checked as ``runs list`` checks it, leaving nothing beside the file)."""
    settings = _settings(request)
    if isinstance(settings.db, Path) and not settings.db.exists():
        raise _Problem(404, f"no results store at {settings.db}: run an experiment first")
    with read_store(settings.db) as opened:
        yield opened


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
        rows = _cached(request, db, ("runs", ""), lambda: _checked(db, runs))
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
        arms_of = [[_arm(f) for f in side if f is not None] for side in zip(*rows, strict=True)]
        lonely = unmatched_pairs(*arms_of) if len(arms_of) == 2 else []
        across = [compare_arms(db, a, b) for a, b in lonely[:MAX_ACROSS]]
        return _page(
            request,
            "compare.html",
            first=first,
            second=second,
            rows=rows,
            comparisons=comparisons,
            across=[c for c in across if c.pairs],
            arm_of=_arm,
        )

    @router.get("/arms", response_class=HTMLResponse, name="arms")
    def arms_page(request: Request, db: Store) -> Response:
        arms, show, at = _picked_arms(request, db)
        a, b = arms[0], arms[1]
        paging = Paging(page=at, size=PAGE_SIZES[1])
        matched = _matched_pairs(request, db, arms, show)
        listed = pair_page(db, a, b, show, offset=paging.offset, limit=paging.size, matched=matched)
        tests = _cached(
            request,
            db,
            ("tests", "\n".join(arm_text(x) for x in arms)),
            lambda: [compare_arms(db, x, y) for x, y in combinations(arms, 2)],
        )
        return _page(
            request,
            "arms.html",
            arms=arms,
            show=show,
            paging=paging,
            listed=listed,
            pages=max(1, -(-listed.total // paging.size)),
            tests=tests,
        )

    @router.get("/arms/question", response_class=HTMLResponse, name="arms-question")
    def pair_question_page(request: Request, db: Store) -> Response:
        arms, show, at = _picked_arms(request, db, position="at")
        a, b = arms[0], arms[1]
        matched = _matched_pairs(request, db, arms, show)
        found = pair_page(db, a, b, show, offset=at - 1, limit=1, matched=matched)
        if not found.rows:
            raise _Problem(404, f"the list holds {found.total} questions, not {at}")
        pair = found.rows[0]
        first, second = (
            _item_or_bad(db, a.run_id, pair.a_row),
            _item_or_bad(db, b.run_id, pair.b_row),
        )
        for arm, bad in ((a, first), (b, second)):
            if isinstance(bad, BadItem):  # shown as the bad row it is, as its item page does
                return _page(request, "bad_item.html", run=db.get_run(arm.run_id), bad=bad)
        if not isinstance(first, ItemRecord) or not isinstance(second, ItemRecord):
            raise _Problem(404, "the question's items are no longer in the store")
        diff, cut = word_diff(first.raw_output, second.raw_output)
        return _page(
            request,
            "arms_question.html",
            arms=arms,
            show=show,
            at=at,
            total=found.total,
            pair=pair,
            first=first,
            second=second,
            diff=diff,
            cut=cut,
            fold_at=FOLD_AT,
        )

    @router.get("/{run_id}", response_class=HTMLResponse, name="run")
    def run_page(request: Request, run_id: str, db: Store) -> Response:
        run = _shown(request, db, run_id)
        if run.run_id != run_id:
            return _redirect(request, f"/{run.run_id}")
        overview = _cached(request, db, ("run", run.run_id), lambda: _checked_run(db, run))
        return _page(request, "run.html", run=run, overview=overview, breakdowns=BREAKDOWNS)

    @router.get("/{run_id}/charts", response_class=HTMLResponse, name="charts")
    def charts_page(request: Request, run_id: str, db: Store) -> Response:
        run = _shown(request, db, run_id)
        if run.run_id != run_id:
            return _redirect(request, f"/{run.run_id}/charts")
        base = request.scope.get("root_path", "").rstrip("/")
        # The run page's figures, counted once for both pages (about half a first count).
        overview = _cached(request, db, ("run", run.run_id), lambda: _checked_run(db, run))
        drawn = _cached(
            request, db, ("charts", run.run_id), lambda: _charts(db, base, run, overview)
        )
        return _page(request, "charts.html", run=run, charts=drawn)

    @router.get("/{run_id}/items", response_class=HTMLResponse, name="items")
    def items_page(request: Request, run_id: str, db: Store) -> Response:
        run = _shown(request, db, run_id)
        given = list(request.query_params.multi_items())
        query, paging = read_query(given)
        if run.run_id != run_id or canonical(given) != given:
            return _redirect(request, f"/{run.run_id}/items", query_params(query, paging))
        page = db.item_page(run.run_id, query, offset=paging.offset, limit=paging.size)
        hits = snippets(db, [r.row for r in page.rows], query.search_in, query.search)
        return _page(
            request,
            "items.html",
            hits=hits,
            run=run,
            query=query,
            paging=paging,
            page=page,
            facets=_cached(request, db, ("facets", run.run_id), lambda: _facets(db, run.run_id)),
            pages=max(1, -(-page.total // paging.size)),
        )

    @router.get("/{run_id}/items.{kind}", name="export")
    def export_list(request: Request, run_id: str, kind: str, db: Store) -> Response:
        if kind not in EXPORTS:
            raise _Problem(404, f"no export as {kind[:20]!r}: give one of {', '.join(EXPORTS)}")
        run = _shown(request, db, run_id)
        query, _ = read_query(request.query_params.multi_items())  # the filter, any page
        if run.run_id != run_id:
            return _redirect(request, f"/{run.run_id}/items.{kind}", query_params(query))
        name = f"{run.run_id}-items.{kind}"
        return StreamingResponse(
            stream_items(_settings(request).db, run.run_id, query, kind),
            media_type=EXPORTS[kind],
            headers={**_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'},
        )

    @router.get("/{run_id}/items/{number}", response_class=HTMLResponse, name="item")
    def item_page(request: Request, run_id: str, number: str, db: Store) -> Response:
        run = _shown(request, db, run_id)
        # Read here, not by FastAPI: a row that is not a number is a 400 page naming it.
        row = whole_number("row", number, 1)
        params = [(k, v) for k, v in request.query_params.multi_items() if k not in _ITEM_ONLY]
        query, paging = read_query(params)
        vs = request.query_params.get("vs", "").strip()
        other_row = whole_number("vs", vs, 1) if vs else None
        full = request.query_params.get("full", "").strip()
        every_character = bool(whole_number("full", full, 0, 1)) if full else False
        show_all = href(
            f"{request.scope.get('root_path', '').rstrip('/')}/{run.run_id}/items/{row}",
            [
                *((k, v) for k, v in request.query_params.multi_items() if k != "full"),
                ("full", "1"),
            ],
        )
        item = _item_or_bad(db, run.run_id, row)
        if isinstance(item, BadItem):
            return _page(request, "bad_item.html", run=run, bad=item)
        if item is None:
            raise _Problem(404, f"run {run.run_id} has no item {row}")
        if run.run_id != run_id:
            return _redirect(request, f"/{run.run_id}/items/{row}", query_params(query))
        other = db.item_at(run.run_id, other_row) if other_row is not None else None
        place = db.neighbours(run.run_id, row, query)
        if place is not None:
            paging = paging.model_copy(update={"page": (place.position - 1) // paging.size + 1})
        # The same question in every arm: each arm named (from the run's filter choices),
        # so the store's key index finds them at once (item ids hold their dataset).
        facets = _cached(request, db, ("facets", run.run_id), lambda: _facets(db, run.run_id))
        arms = {c: tuple(v for v, _ in facets[c]) for c in ARM_COLUMNS}
        same_question = ItemQuery(
            equals={**arms, "item_id": (item.item_id,), "repetition": (item.repetition,)}
        )
        siblings = [
            r
            for r in db.item_page(run.run_id, same_question, limit=200).rows
            if isinstance(r, ItemRow)
        ]
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
            fold_at=None if every_character else FOLD_AT,
            show_all=f"{show_all}#raw-output",
        )

    return router


#: How many pairs of arms without a twin in the other run a comparison of two runs tests.
MAX_ACROSS = 24


def _arm(figures: GroupFigures) -> Arm:
    """The arm whose figures these are."""
    return Arm(run_id=figures.run_id, **{c: str(figures.group[c]) for c in ARM_COLUMNS})


def comparison_arms(comparison: Comparison) -> list[Arm]:
    """The two arms of a paired comparison of one model's arms (a run's report's)."""
    arms = []
    for run_id, arm in ((comparison.a_run_id, comparison.a), (comparison.b_run_id, comparison.b)):
        approach, _, strategy = arm.partition("/")
        arms.append(
            Arm(
                run_id=run_id,
                approach=approach,
                strategy=strategy,
                provider=comparison.provider,
                model=comparison.model,
            )
        )
    return arms


#: How many arms one comparison page takes at most (their pairs' tests: 15).
MAX_ARMS = 6


def _picked_arms(
    request: Request, db: ResultStore, position: str = "page"
) -> tuple[list[Arm], str, int]:
    """The arms an address picks (``arm=RUN|approach|strategy|provider|model``, two to
    :data:`MAX_ARMS`), which pairs it lists (``show=``) and the page or position."""
    known = {"arm", "show", position}
    for name in request.query_params:
        if name not in known:
            raise BadQuery(f"unknown parameter {name!r}; this page reads {', '.join(known)}")
    texts = list(dict.fromkeys(request.query_params.getlist("arm")))
    if not 2 <= len(texts) <= MAX_ARMS:
        raise BadQuery(f"arm: pick two to {MAX_ARMS} arms to compare (got {len(texts)})")
    arms = []
    for text in texts:
        try:
            arm = read_arm(text)
        except ValueError as exc:
            raise BadQuery(f"arm={exc}") from None
        run = _shown(request, db, arm.run_id)
        arms.append(arm.model_copy(update={"run_id": run.run_id}))
    show = request.query_params.get("show", "differ").strip() or "differ"
    if show not in SHOWS:
        raise BadQuery(f"show={show[:40]!r}: give one of {', '.join(SHOWS)}")
    given = request.query_params.get(position, "").strip()
    at = whole_number(position, given, 1, MAX_PAGE) if given else 1
    return arms, show, at


def _matched_pairs(request: Request, db: ResultStore, arms: list[Arm], show: str) -> array[int]:
    """The row ids of the questions arms A and B answered that ``show`` picks: read once
    while the store is unchanged (it reads every pair); each page of the list, and each
    question walked, then reads only its own rows."""
    key = ("pairs", f"{arm_text(arms[0])}\n{arm_text(arms[1])}\n{show}")
    return _cached(request, db, key, lambda: matching_pairs(db, arms[0], arms[1], show))


def arms_href(base: str, arms: list[Arm], show: str = "differ", **more: int) -> str:
    """The address comparing ``arms`` item by item (``more``: ``page=`` or ``at=``)."""
    params = [("arm", arm_text(a)) for a in arms] + [("show", show)]
    params += [(k, str(v)) for k, v in more.items()]
    return href(f"{base}/arms" + ("/question" if "at" in more else ""), params)


def _charts(
    db: ResultStore, base: str, run: RunRecord, overview: RunOverview
) -> list[tuple[str, str, Markup]]:
    """The run's charts: (id, title, SVG) each, every bar and point a link to its items;
    ``overview``: the run page's figures, which the accuracy charts draw."""
    groups = overview.groups

    def arm(group: Mapping[str, Any]) -> str:
        return items_link(base, run.run_id, group)

    drawn = [
        ("accuracy", "Accuracy per arm, with 95% intervals",
         bars(accuracy_bars(base, groups, arm), "accuracy per arm")),
        ("accuracy-tokens", "Accuracy against mean output tokens",
         scatter(arm_points(groups, arm, "tokens"), "accuracy against tokens",
                 "output tokens per item", "accuracy")),
    ]  # fmt: skip
    priced = arm_points(groups, arm, "cost")
    if priced:
        drawn.append(
            ("accuracy-cost", "Accuracy against cost (arms with a price)",
             scatter(priced, "accuracy against cost", "dollars per item", "accuracy"))
        )  # fmt: skip
    drawn.append(
        ("calibration", "Calibration: extraction confidence against the share right",
         bars(calibration(db, base, run.run_id), "calibration"))
    )  # fmt: skip
    # Only where the run has a judge (its config, or a verdict it decided).
    ruled = bool(run.config.get("judge")) or judge_ruled(db, run.run_id)
    judged = calibration(db, base, run.run_id, "judge_confidence") if ruled else []
    if judged:
        drawn.append(
            ("calibration-judge", "Calibration: the judge's confidence against the share right",
             bars(judged, "calibration of the judge"))
        )  # fmt: skip
    for breakdown in overview.breakdowns:
        if breakdown.column not in _CHARTED_BREAKDOWNS:
            continue
        counts: dict[Any, int] = {}
        for by_value in breakdown.counts.values():
            for value, n in by_value.items():
                counts[value] = counts.get(value, 0) + n
        drawn.append(
            (f"breakdown-{breakdown.column}", breakdown.title,
             bars(breakdown_bars(base, run.run_id, counts, breakdown.column), breakdown.title))
        )  # fmt: skip
    for column, title, unit, whole in DISTRIBUTIONS:
        counted = distribution(db, base, run.run_id, column, whole)
        drawn.append((f"dist-{column}", title, histogram(counted, title, unit)))
    return drawn


def _item_or_bad(db: ResultStore, run_id: str, row: int) -> ItemRecord | BadItem | None:
    """The item in ``row``; the row as a :class:`BadItem` when one of its values is one
    answerx does not allow (not a damaged store: any other fault of the store stands);
    None when the run has no such row."""
    try:
        return db.item_at(run_id, row)
    except StoreError:
        bad = read_bad_item(db, run_id, row)
        if bad is None:
            raise
        return bad


# The run page's breakdowns drawn as charts too (share of items per value).
_CHARTED_BREAKDOWNS = ("method", "termination")


def _checked(db: ResultStore, runs: list[RunRecord]) -> list[RunRow]:
    """The runs page's rows, once the store has counted every run's items from the rows
    themselves as ``runs list`` does (:meth:`ResultStore.item_counts`): a store with
    damaged item pages is a 503 here too, never figures over items no one can read."""
    db.item_counts([r.run_id for r in runs])
    return run_rows(db, runs)


def _checked_run(db: ResultStore, run: RunRecord) -> RunOverview:
    """The run page's figures, after the same check of the run's items as :func:`_checked`."""
    db.item_counts([run.run_id])
    return run_overview(db, run)


# An item page's own parameters, beside its list's: the arm beside it, every character.
_ITEM_ONLY = frozenset({"vs", "full"})


def _redirect(request: Request, path: str, params: list[tuple[str, str]] | None = None) -> Response:
    base = request.scope.get("root_path", "").rstrip("/")
    return RedirectResponse(href(base + path, params or []), status_code=303)


def _signature(db: Path) -> tuple[int, ...]:
    """What changes whenever the store does: the file's and its WAL's size and time (a
    commit appends to the WAL; a checkpoint writes the file). An empty WAL holds no
    commit: it counts as none, since each page's reader makes one and removes it
    (:mod:`~answerx.viewer.reading`), and a figure must not be counted again for that."""
    found = []
    for path in (db, Path(f"{db}-wal")):
        try:
            stat = path.stat()
        except FileNotFoundError:
            found += [0, 0]
        else:
            found += [stat.st_mtime_ns, stat.st_size] if stat.st_size else [0, 0]
    return tuple(found)


_CACHED = 64  # figures of this many (kind, run) kept at most


def _cached(request: Request, db: ResultStore, key: tuple[str, str], compute: Callable[[], T]) -> T:
    """``compute()``, kept until the store changes: a run's figures (counted over all its
    items) are counted again only when an item is added or scored. A file tells by its
    size and time; a server by :meth:`ResultStore.change_stamp`."""
    settings = _settings(request)
    stamp: Any = _signature(settings.db) if isinstance(settings.db, Path) else db.change_stamp()
    if stamp is None:
        return compute()
    cache: dict[tuple[Any, ...], Any] = request.app.state.figures
    lock: threading.Lock = request.app.state.figures_lock
    signed = (*key, stamp)
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
        if isinstance(exc, RequestValidationError):
            where = "; ".join(
                f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors()
            )
            return problem_page(request, 400, f"cannot read this address: {where}")
        return problem_page(request, 503, str(exc))

    for kind in (_Problem, BadQuery, ConfigError, StoreError, RequestValidationError):
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


def item_href(
    base: str, run_id: str, row: ItemRow | BadRow, query: ItemQuery, paging: Paging
) -> str:
    """The item page of ``row``, keeping the list's filter (and page size) for next/previous."""
    params = query_params(query, paging.model_copy(update={"page": 1}))
    return href(f"{base}/{run_id}/items/{row.row}", params)


_TEMPLATES.globals.update(
    item_href=item_href,
    items_link=items_link,
    comparison_links=comparison_links,
    arms_href=arms_href,
    arm_text=arm_text,
    comparison_arms=comparison_arms,
    SHOWS=SHOWS,
    EXPORTS=EXPORTS,
)
