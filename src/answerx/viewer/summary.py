"""What the runs and run pages show, computed from the store's tallies (SQL counts):
accuracy with Wilson intervals per approach × strategy × model, breakdowns, paired
comparisons. Plain data; the templates draw it, and every figure knows its items' filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from answerx.experiments.records import RunRecord
from answerx.experiments.report import BASELINE_APPROACH, Comparison, compared_arms
from answerx.experiments.stats import mcnemar, wilson_interval
from answerx.experiments.store import ResultStore
from answerx.experiments.store.browse import Arm, Tally

__all__ = [
    "ARM_COLUMNS",
    "BREAKDOWNS",
    "Breakdown",
    "GroupFigures",
    "RunOverview",
    "RunRow",
    "arm_of",
    "compare_runs",
    "run_overview",
    "run_rows",
]

#: The columns that make one arm of a run (a row of the accuracy table).
ARM_COLUMNS: tuple[str, ...] = ("provider", "model", "approach", "strategy")
# The arm's columns in the browsing index's order: grouped so, a count reads it unsorted.
_ARM_ORDER = ("approach", "strategy", "provider", "model")
_BREAKDOWN_ORDER = (*_ARM_ORDER, "correct", "reason", "how", "method", "termination")
#: The breakdowns of a run page: title, the column counted.
BREAKDOWNS: tuple[tuple[str, str], ...] = (
    ("Verdicts by reason", "reason"),
    ("How the answer was found (extraction method)", "method"),
    ("Why the approach stopped (termination)", "termination"),
)


class GroupFigures(BaseModel):
    """One arm (or a whole run): its tally with the accuracy's Wilson 95% interval."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    group: dict[str, Any]
    tally: Tally
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None

    @classmethod
    def of(cls, run_id: str, tally: Tally) -> GroupFigures:
        low, high = wilson_interval(tally.correct, tally.scored) if tally.scored else (None, None)
        return cls(
            run_id=run_id,
            group=tally.group,
            tally=tally,
            accuracy=tally.correct / tally.scored if tally.scored else None,
            ci_low=low,
            ci_high=high,
        )


class RunRow(BaseModel):
    """One run on the runs page."""

    model_config = ConfigDict(frozen=True)

    run: RunRecord
    figures: GroupFigures
    models: list[str]
    approaches: list[str]
    strategies: list[str]


class Breakdown(BaseModel):
    """Counts of one column's values per arm (rows: arms, columns: values)."""

    model_config = ConfigDict(frozen=True)

    title: str
    column: str
    values: list[Any]
    counts: dict[tuple[str, ...], dict[Any, int]]


class RunOverview(BaseModel):
    """Everything the run page shows."""

    model_config = ConfigDict(frozen=True)

    run: RunRecord
    total: GroupFigures | None
    groups: list[GroupFigures]
    breakdowns: list[Breakdown]
    comparisons: list[Comparison]


def _arm_order(group: dict[str, Any]) -> tuple[Any, ...]:
    # As reports order them: by model, the baseline first, then by approach and strategy.
    return (
        group["provider"],
        group["model"],
        group["approach"] != BASELINE_APPROACH,
        group["approach"],
        group["strategy"],
    )


def arm_of(figures: GroupFigures) -> tuple[str, ...]:
    """The arm's key: (provider, model, approach, strategy)."""
    return tuple(str(figures.group[c]) for c in ARM_COLUMNS)


def _total(run_id: str, arms: Sequence[Tally]) -> GroupFigures:
    """The whole run's figures, summed from its arms' tallies."""
    n = sum(t.n for t in arms)
    costs = [t.cost_usd for t in arms]
    return GroupFigures.of(
        run_id,
        Tally(
            group={},
            n=n,
            scored=sum(t.scored for t in arms),
            correct=sum(t.correct for t in arms),
            errors=sum(t.errors for t in arms),
            unfinished=sum(t.unfinished for t in arms),
            cached=sum(t.cached for t in arms),
            input_tokens=sum(t.input_tokens for t in arms),
            output_tokens=sum(t.output_tokens for t in arms),
            cost_usd=None if None in costs else sum(c for c in costs if c is not None),
            latency_s=sum(t.latency_s * t.n for t in arms) / n if n else 0.0,
        ),
    )


def run_rows(store: ResultStore, runs: Sequence[RunRecord]) -> list[RunRow]:
    """The runs page: each run with its accuracy, models, approaches, tokens and cost."""
    rows = []
    for run in runs:
        tallies = store.tally(run.run_id, _ARM_ORDER)
        arms = [t.group for t in tallies]
        rows.append(
            RunRow(
                run=run,
                figures=_total(run.run_id, tallies),
                models=sorted({f"{g['provider']}/{g['model']}" for g in arms}),
                approaches=sorted({str(g["approach"]) for g in arms}),
                strategies=sorted({str(g["strategy"]) for g in arms}),
            )
        )
    return rows


def _groups(store: ResultStore, run_id: str) -> list[GroupFigures]:
    figures = [GroupFigures.of(run_id, t) for t in store.tally(run_id, _ARM_ORDER)]
    return sorted(figures, key=lambda f: _arm_order(f.group))


def _comparison(
    store: ResultStore, kind: str, a: GroupFigures, b: GroupFigures
) -> Comparison | None:
    arm_a, arm_b = (
        Arm(run_id=f.run_id, **{c: str(f.group[c]) for c in ARM_COLUMNS}) for f in (a, b)
    )
    counts = store.paired_counts(arm_a, arm_b)
    if not counts.pairs:
        return None
    return Comparison(
        kind="run" if kind == "run" else "approach",
        provider=arm_a.provider,
        model=arm_a.model,
        a_run_id=arm_a.run_id,
        a=f"{arm_a.approach}/{arm_a.strategy}",
        b_run_id=arm_b.run_id,
        b=f"{arm_b.approach}/{arm_b.strategy}",
        pairs=counts.pairs,
        a_correct=counts.a_correct,
        b_correct=counts.b_correct,
        only_a=counts.only_a,
        only_b=counts.only_b,
        p_value=mcnemar(counts.only_a, counts.only_b),
    )


def run_overview(store: ResultStore, run: RunRecord) -> RunOverview:
    """The run page: accuracy per arm, the breakdowns, the paired comparisons the run's
    report makes (:func:`~answerx.experiments.report.compared_arms`)."""
    groups = _groups(store, run.run_id)
    # Every breakdown from one count, grouped in the browsing index's order (unsorted).
    combinations = store.value_counts(run.run_id, _BREAKDOWN_ORDER)
    breakdowns = []
    for title, column in BREAKDOWNS:
        counts: dict[tuple[str, ...], dict[Any, int]] = {}
        seen: dict[Any, int] = {}
        for group, n in combinations:
            value = group[column]
            arm = counts.setdefault(tuple(str(group[c]) for c in ARM_COLUMNS), {})
            arm[value] = arm.get(value, 0) + n
            seen[value] = seen.get(value, 0) + n
        values = sorted(seen, key=lambda v: (-seen[v], str(v)))
        breakdowns.append(Breakdown(title=title, column=column, values=values, counts=counts))
    comparisons: list[Comparison | None] = []
    by_model: dict[tuple[str, str], list[GroupFigures]] = {}
    for figures in groups:
        by_model.setdefault((figures.group["provider"], figures.group["model"]), []).append(figures)
    for cell in by_model.values():
        pairs = compared_arms([(str(f.group["approach"]), str(f.group["strategy"])) for f in cell])
        comparisons += [_comparison(store, "approach", cell[a], cell[b]) for a, b in pairs]
    return RunOverview(
        run=run,
        total=_total(run.run_id, [g.tally for g in groups]) if groups else None,
        groups=groups,
        breakdowns=breakdowns,
        comparisons=[c for c in comparisons if c is not None],
    )


def compare_runs(
    store: ResultStore, first: RunRecord, second: RunRecord
) -> tuple[list[tuple[GroupFigures | None, GroupFigures | None]], list[Comparison]]:
    """Two runs arm by arm (each arm's figures in both, None where a run lacks it) and the
    same arm's paired comparison where both have it (the second run against the first)."""
    mine = {arm_of(f): f for f in _groups(store, first.run_id)}
    theirs = {arm_of(f): f for f in _groups(store, second.run_id)}
    arms = sorted(
        mine.keys() | theirs.keys(),
        key=lambda k: _arm_order(dict(zip(ARM_COLUMNS, k, strict=True))),
    )
    rows = [(mine.get(k), theirs.get(k)) for k in arms]
    comparisons = [
        _comparison(store, "run", mine[k], theirs[k]) for k in arms if k in mine and k in theirs
    ]
    return rows, [c for c in comparisons if c is not None]
