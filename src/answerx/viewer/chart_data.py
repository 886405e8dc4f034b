"""What the run's charts draw (:mod:`answerx.viewer.charts`), counted in SQLite, each bar
or point with the address of exactly the items it counts.

- accuracy per arm with its Wilson interval, and against mean output tokens and cost;
- calibration: extraction confidence, and the judge's where it ruled, in tenths against
  the share right;
- the share of items per extraction method and per termination;
- distributions of output tokens, latency and calls, in about a dozen bins.

A whole-number column is binned in whole numbers, each bin ``min_COL=a&max_COL=b`` with
both ends in it; latency's bins end just below the next one's start, so a bin's items
are the items its link lists.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

from answerx.experiments.stats import wilson_interval
from answerx.experiments.store.browse import ItemQuery, column_sql
from answerx.viewer.charts import Bar, Point
from answerx.viewer.summary import GroupFigures
from answerx.viewer.urls import href, query_params

__all__ = [
    "BINS",
    "CONFIDENCES",
    "DISTRIBUTIONS",
    "accuracy_bars",
    "arm_points",
    "breakdown_bars",
    "calibration",
    "distribution",
    "judge_ruled",
]

#: Bins of a distribution, at most.
BINS = 12
#: The distributions drawn: column, title, unit, whether it holds whole numbers.
DISTRIBUTIONS: tuple[tuple[str, str, str, bool], ...] = (
    ("output_tokens", "Output tokens per item", "tokens", True),
    ("latency_s", "Latency per item", "s", False),
    ("calls", "Calls per item", "calls", True),
)
#: The confidences a calibration chart may bin: column (of RANGED), what it is called.
CONFIDENCES: dict[str, str] = {
    "confidence": "confidence",
    "judge_confidence": "judge's confidence",
}
# Just below a bin's end: its link's maximum, so the next bin's first value is not in it.
_BELOW = 1e-9


class _Reads(Protocol):
    def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...


def _link(
    base: str,
    run_id: str,
    scored: bool = False,
    equals: dict[str, tuple[Any, ...]] | None = None,
    **ranges: float,
) -> str:
    at_least = {k[4:]: v for k, v in ranges.items() if k.startswith("min_")}
    at_most = {k[4:]: v for k, v in ranges.items() if k.startswith("max_")}
    # scored: right or wrong, the items with a verdict (what calibration counts).
    equals = {**(equals or {}), **({"correct": (True, False)} if scored else {})}
    query = ItemQuery(equals=equals, at_least=at_least, at_most=at_most)
    return href(f"{base}/{run_id}/items", query_params(query))


def _arm_label(f: GroupFigures) -> str:
    g = f.group
    return f"{g['approach']}/{g['strategy']} · {g['model']}"


def accuracy_bars(base: str, groups: Sequence[GroupFigures], link: Any) -> list[Bar]:
    """Each arm's accuracy with its interval; ``link(group)``: the arm's items."""
    return [
        Bar(
            label=_arm_label(f),
            value=f.accuracy,
            low=f.ci_low,
            high=f.ci_high,
            href=link(f.group),
            note=f"{_arm_label(f)}: {f.tally.correct:,} of {f.tally.scored:,} right",
        )
        for f in groups
        if f.accuracy is not None
    ]


def arm_points(groups: Sequence[GroupFigures], link: Any, by: str) -> list[Point]:
    """Each arm's accuracy against its mean output tokens (``by="tokens"``) or its cost
    per item in dollars (``by="cost"``; arms without a price are left out)."""
    points = []
    for f in groups:
        if f.accuracy is None or not f.tally.n:
            continue
        x = f.tally.output_tokens / f.tally.n if by == "tokens" else f.tally.cost_usd
        if x is None:
            continue
        x = x if by == "tokens" else x / f.tally.n
        unit = "output tokens" if by == "tokens" else "dollars"
        points.append(
            Point(
                x=x,
                y=f.accuracy,
                label=_arm_label(f),
                href=link(f.group),
                note=f"{_arm_label(f)}: {100 * f.accuracy:.1f}% right, {x:,.4g} {unit} per item",
            )
        )
    return points


def calibration(store: _Reads, base: str, run_id: str, column: str = "confidence") -> list[Bar]:
    """Items with a verdict, by ``column`` (of :data:`CONFIDENCES`: the extraction's
    confidence, or the judge's, which only the items it ruled on have) in tenths: the
    share right."""
    if column not in CONFIDENCES:  # the name goes into SQL: checked
        raise ValueError(f"no calibration by {column!r}")
    # The value once per row (the judge's is read out of JSON), then binned outside.
    rows = store.fetch(
        f"SELECT {_bin_of('value', 10)} AS tenth, count(*), sum(correct) FROM "
        f"(SELECT {column_sql(column)} AS value, correct FROM items "
        "WHERE run_id = ? AND correct IS NOT NULL) AS scored "
        "WHERE value IS NOT NULL GROUP BY tenth ORDER BY tenth",
        [*(k / 10 for k in range(9, 0, -1)), run_id],
    )
    said = CONFIDENCES[column]
    bars = []
    for tenth, n, right in rows:
        low, high = tenth / 10, (tenth + 1) / 10
        ci = wilson_interval(int(right), int(n))
        top = high if tenth == 9 else high - _BELOW
        ranges = {f"min_{column}": low, f"max_{column}": top}
        bars.append(
            Bar(
                label=f"{said} {low:.1f}–{high:.1f} ({n:,})",
                value=right / n,
                low=ci[0],
                high=ci[1],
                href=_link(base, run_id, True, **ranges),
                note=f"{right:,} of {n:,} right with {said} {low:.1f} to {high:.1f}",
            )
        )
    return bars


def judge_ruled(store: _Reads, run_id: str) -> bool:
    """Whether the LLM judge decided any of the run's items (``how = 'llm_judge'``, in the
    browsing index): asked first, so a run without a judge never reads every row's
    ``verdict_detail`` for a chart it would not draw."""
    return bool(
        store.fetch("SELECT 1 FROM items WHERE run_id = ? AND how = 'llm_judge' LIMIT 1", [run_id])
    )


def breakdown_bars(base: str, run_id: str, counts: dict[Any, int], column: str) -> list[Bar]:
    """The share of the run's items with each value of ``column`` (``counts``: value ->
    items, most first), each bar a link to those items."""
    total = sum(counts.values())
    return [
        Bar(
            label=f"{value} ({n:,})",
            value=n / total,
            href=_link(base, run_id, equals={column: (value,)}),
            note=f"{n:,} items ({100 * n / total:.1f}%) with {column} {value}",
        )
        for value, n in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
        if n
    ]


def distribution(
    store: _Reads, base: str, run_id: str, column: str, whole: bool
) -> list[tuple[float, float, int, str]]:
    """The run's items in about :data:`BINS` bins of ``column`` (a column of
    :data:`DISTRIBUTIONS`): (low, high, count, the bin's items' address) each."""
    if column not in {c for c, *_ in DISTRIBUTIONS}:  # the name goes into SQL: checked
        raise ValueError(f"no distribution of {column!r}")
    low, high = store.fetch(
        f"SELECT min({column}), max({column}) FROM items WHERE run_id = ?", [run_id]
    )[0]
    if low is None:
        return []
    span = high - low
    width: float = max(1, math.ceil((span + 1) / BINS)) if whole else (span / BINS or 1.0)
    rows = store.fetch(
        f"SELECT {_bin_of(column, BINS)} AS bin, count(*) FROM items "
        f"WHERE run_id = ? AND {column} IS NOT NULL GROUP BY bin ORDER BY bin",
        [*(low + k * width for k in range(BINS - 1, 0, -1)), run_id],
    )
    found = dict(rows)
    bins = []
    for k in range(max(found) + 1):
        start = low + k * width
        end = start + width - 1 if whole else start + width
        last = k == max(found)
        top = high if last else (end if whole else end - _BELOW)
        link = _link(base, run_id, **{f"min_{column}": start, f"max_{column}": top})
        bins.append((start, top if whole else end, int(found.get(k, 0)), link))
    return bins


def _bin_of(column: str, bins: int) -> str:
    """SQL for the bin of ``column`` among ``bins``, each bin's lower edge a parameter,
    highest first: comparisons, not ``CAST(… AS INTEGER)``, which truncates in SQLite
    and rounds in PostgreSQL, so a bin is the same on both stores (and its edges are the
    ones its link filters by)."""
    steps = " ".join(f"WHEN {column} >= ? THEN {k}" for k in range(bins - 1, 0, -1))
    return f"CASE {steps} ELSE 0 END"
