"""Reports as data: what a run (or several) says about approaches and models.

:func:`build_report` turns run and item records into a :class:`Report` (plain
pydantic data, also written as ``report.json``). This module only computes;
data flows on one way: :mod:`~answerx.experiments.render` formats a report as
tables or Markdown, :mod:`~answerx.experiments.plots` draws it, and
:mod:`~answerx.experiments.report_files` writes the files.

Items are reported as they are stored: score them first (``score_items`` /
``answerx runs score``); an item without a verdict is counted but not in accuracy.
Short-answer and text items add the mean exact match, token F1 and cover match
beside accuracy; what the LLM judge did and cost (the residue it was asked about,
its calls, tokens and cost) is reported apart from the approaches' own usage.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from answerx.experiments.records import ItemRecord, RunRecord, RunStatus
from answerx.experiments.scoring import judge_totals_of, not_asked, stored_ruling
from answerx.experiments.stats import mcnemar, percentile, wilson_interval
from answerx.grading.residue import JudgeTotals

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "BASELINE_APPROACH",
    "UNSCORED",
    "Comparison",
    "GroupStats",
    "Report",
    "RunTotals",
    "build_report",
    "compared_arms",
    "report_from_store",
]

#: The approach every other one is compared with, when a run has it.
BASELINE_APPROACH = "none"
#: The reason reports give an item without a verdict yet.
UNSCORED = "unscored"

_Pairing = tuple[str, str, int]  # (dataset, item_id, repetition): the same question asked again


class RunTotals(BaseModel):
    """One run in a report, with its totals."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    name: str
    status: RunStatus
    started_at: datetime
    finished_at: datetime | None
    items: int
    errors: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = Field(description="None (unknown) when any item has no price.")
    judge: JudgeTotals | None = Field(
        default=None,
        description="The LLM judge's work and cost over the run (apart from the tokens and "
        "cost above); None when the rules were sure of every item.",
    )


class GroupStats(BaseModel):
    """Everything a report says about one approach × strategy × model of one run."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    approach: str
    strategy: str
    provider: str
    model: str
    n: int = Field(description="Items answered (or failed).")
    scored: int = Field(description="Items with a verdict (a gold answer and scoring done).")
    correct: int
    accuracy: float | None = Field(description="correct / scored; None when nothing is scored.")
    ci_low: float | None = Field(description="Wilson 95% interval of the accuracy.")
    ci_high: float | None
    errors: int
    cached: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = Field(description="None (unknown) when any item has no price.")
    latency_p50_s: float | None
    latency_p95_s: float | None
    terminations: dict[str, int]
    methods: dict[str, int] = Field(description="Extraction methods that found the answers.")
    reasons: dict[str, int] = Field(
        default_factory=dict,
        description="Verdicts by reason (answerx.grading.REASONS); 'unscored' for none yet.",
    )
    measured: int = Field(
        default=0, description="Items with exact match, F1 and cover (short-answer and text)."
    )
    em: float | None = Field(default=None, description="Mean exact match over measured items.")
    f1: float | None = Field(default=None, description="Mean token F1 over measured items.")
    cover: float | None = Field(default=None, description="Mean cover match over measured items.")
    judge: JudgeTotals | None = Field(
        default=None,
        description="The LLM judge's work and cost on this group's items (apart from the "
        "usage above); None when the rules were sure of every item.",
    )

    @property
    def arm(self) -> str:
        """``approach/strategy``: what is being compared within a model."""
        return f"{self.approach}/{self.strategy}"

    @property
    def target(self) -> str:
        """``provider/model``."""
        return f"{self.provider}/{self.model}"

    @property
    def cost_per_item_usd(self) -> float | None:
        """Mean cost of one item, None when unknown."""
        return None if self.cost_usd is None or self.n == 0 else self.cost_usd / self.n


class Comparison(BaseModel):
    """Two arms on the same questions (same item, repetition, provider and model): McNemar."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["approach", "run"] = Field(
        description="'approach': within one run against the baseline (or every pair); "
        "'run': the same arm in a compared run against the main run."
    )
    provider: str
    model: str
    a_run_id: str
    a: str = Field(description="The reference arm (approach/strategy).")
    b_run_id: str
    b: str
    pairs: int = Field(description="Questions both arms have a verdict for.")
    a_correct: int
    b_correct: int
    only_a: int = Field(description="Pairs only arm a got right.")
    only_b: int = Field(description="Pairs only arm b got right.")
    p_value: float = Field(description="Exact two-sided McNemar test.")

    @property
    def difference(self) -> float:
        """Accuracy of b minus accuracy of a on the paired questions."""
        return (self.b_correct - self.a_correct) / self.pairs if self.pairs else 0.0


class Report(BaseModel):
    """A report on one run, and optionally others compared with it (the first is the main run)."""

    model_config = ConfigDict(frozen=True)

    runs: list[RunTotals]
    groups: list[GroupStats]
    comparisons: list[Comparison]
    notes: list[str] = Field(default_factory=list, description="Caveats a reader must see.")

    @property
    def multi_run(self) -> bool:
        """True when more than one run is reported (tables then name the run)."""
        return len(self.runs) > 1


def build_report(
    run: RunRecord,
    items: Sequence[ItemRecord],
    *,
    compare: Sequence[tuple[RunRecord, Sequence[ItemRecord]]] = (),
) -> Report:
    """Accuracy with Wilson 95% intervals, paired McNemar comparisons, breakdowns and usage.

    Comparisons: within each run and model, every approach against ``none``
    when the run has it (else every pair of approaches); with ``compare``, each
    arm of a compared run against the same arm of ``run``. Pairs are the same
    (dataset, item id, repetition) with a verdict on both sides.
    """
    runs = [(run, list(items)), *((r, list(i)) for r, i in compare)]
    by_group: dict[tuple[str, str, str, str, str], list[ItemRecord]] = defaultdict(list)
    for order, (record, run_items) in enumerate(runs):
        for item in run_items:
            if item.run_id != record.run_id:
                raise ValueError(
                    f"item {item.key} belongs to run {item.run_id}, not {record.run_id}"
                )
            by_group[(str(order), item.provider, item.model, item.approach, item.strategy)].append(
                item
            )
    ordered = sorted(
        by_group.items(),
        key=lambda kv: (
            int(kv[0][0]),
            kv[0][1],
            kv[0][2],
            kv[0][3] != BASELINE_APPROACH,
            kv[0][3:],
        ),
    )
    groups = [_group_stats(group_items) for _, group_items in ordered]
    comparisons = _approach_comparisons(ordered) + _run_comparisons(ordered)
    return Report(
        runs=[_run_totals(record, run_items) for record, run_items in runs],
        groups=groups,
        comparisons=comparisons,
        notes=_notes(groups) + _judge_notes(runs),
    )


class ReportStore(Protocol):
    """The part of the results store that :func:`report_from_store` needs."""

    def get_run(self, run_id: str) -> RunRecord: ...

    def items(self, run_id: str) -> Iterator[ItemRecord]: ...


def report_from_store(store: ReportStore, run_id: str, *, compare: Sequence[str] = ()) -> Report:
    """:func:`build_report` for stored runs (``compare``: ids of runs to compare with it)."""
    run = store.get_run(run_id)
    others = [store.get_run(other) for other in compare]
    return build_report(
        run,
        list(store.items(run.run_id)),
        compare=[(other, list(store.items(other.run_id))) for other in others],
    )


def _cost(items: Iterable[ItemRecord]) -> float | None:
    total = 0.0
    for item in items:
        if item.cost_usd is None:
            return None  # one unpriced item makes the sum unknown, never an undercount
        total += item.cost_usd
    return total


def _run_totals(record: RunRecord, items: Sequence[ItemRecord]) -> RunTotals:
    usage = _usage(items)
    if not items and not _all_priced(record):
        usage["cost_usd"] = None  # nothing answered by a model without a price: unknown, not $0
    return RunTotals(
        run_id=record.run_id,
        name=record.name,
        status=record.status,
        started_at=record.started_at,
        finished_at=record.finished_at,
        items=len(items),
        **usage,
        judge=_judge(items),
    )


def _judge(items: Sequence[ItemRecord]) -> JudgeTotals | None:
    totals = judge_totals_of(items)
    return totals if totals.doubtful or totals.asked else None


def _measures(items: Sequence[ItemRecord]) -> dict[str, Any]:
    """Mean exact match, F1 and cover over the items that have them."""
    measured = [item for item in items if item.em is not None]
    n = len(measured)

    def mean(name: str) -> float | None:
        values = [getattr(item, name) for item in measured]
        return sum(v for v in values if v is not None) / n if n else None

    return {"measured": n, "em": mean("em"), "f1": mean("f1"), "cover": mean("cover")}


def _all_priced(record: RunRecord) -> bool:
    """Every target of the run's stored config has a price (so no items cost $0 for sure).

    The stored config holds validated targets: ``{"provider": ..., "model": ...}``."""
    # Imported here: prices reads its table through the config module, which a report
    # needs only for a run without items.
    from answerx.structured.prices import price_of

    targets = record.config.get("targets") or []
    return bool(targets) and all(
        isinstance(t, dict) and price_of(str(t.get("provider")), str(t.get("model"))) is not None
        for t in targets
    )


def _usage(items: Sequence[ItemRecord]) -> dict[str, Any]:
    """Errors, tokens and cost of ``items``: the totals runs and groups both report."""
    return {
        "errors": sum(item.error is not None for item in items),
        "input_tokens": sum(item.input_tokens for item in items),
        "output_tokens": sum(item.output_tokens for item in items),
        "cost_usd": _cost(items),
    }


def _group_stats(items: Sequence[ItemRecord]) -> GroupStats:
    first = items[0]
    verdicts = [item.correct for item in items if item.correct is not None]
    correct = sum(verdicts)
    low, high = wilson_interval(correct, len(verdicts)) if verdicts else (None, None)
    latencies = [item.latency_s for item in items]
    return GroupStats(
        run_id=first.run_id,
        approach=first.approach,
        strategy=first.strategy,
        provider=first.provider,
        model=first.model,
        n=len(items),
        scored=len(verdicts),
        correct=correct,
        accuracy=correct / len(verdicts) if verdicts else None,
        ci_low=low,
        ci_high=high,
        cached=sum(item.cached for item in items),
        **_usage(items),
        latency_p50_s=percentile(latencies, 50),
        latency_p95_s=percentile(latencies, 95),
        terminations=dict(Counter(item.termination for item in items).most_common()),
        methods=dict(Counter(item.method for item in items).most_common()),
        reasons=dict(Counter(item.reason or UNSCORED for item in items).most_common()),
        **_measures(items),
        judge=_judge(items),
    )


_Group = tuple[tuple[str, str, str, str, str], list[ItemRecord]]


def _verdicts(items: Iterable[ItemRecord]) -> dict[_Pairing, bool]:
    return {
        (item.dataset, item.item_id, item.repetition): item.correct
        for item in items
        if item.correct is not None
    }


def _compare(
    kind: Literal["approach", "run"], a: list[ItemRecord], b: list[ItemRecord]
) -> Comparison | None:
    va, vb = _verdicts(a), _verdicts(b)
    shared = va.keys() & vb.keys()
    if not shared:
        return None
    only_a = sum(va[k] and not vb[k] for k in shared)
    only_b = sum(vb[k] and not va[k] for k in shared)
    return Comparison(
        kind=kind,
        provider=a[0].provider,
        model=a[0].model,
        a_run_id=a[0].run_id,
        a=f"{a[0].approach}/{a[0].strategy}",
        b_run_id=b[0].run_id,
        b=f"{b[0].approach}/{b[0].strategy}",
        pairs=len(shared),
        a_correct=sum(va[k] for k in shared),
        b_correct=sum(vb[k] for k in shared),
        only_a=only_a,
        only_b=only_b,
        p_value=mcnemar(only_a, only_b),
    )


def compared_arms(arms: Sequence[tuple[str, str]]) -> list[tuple[int, int]]:
    """Which arms (approach, strategy) of one run and model a report compares, as pairs
    of indexes into ``arms`` (reference first): each approach against the baseline
    (:data:`BASELINE_APPROACH`) of the same strategy, or the first baseline, and the
    baselines of several strategies with each other; without a baseline, every pair.

    >>> compared_arms([("none", "two_stage"), ("chain_of_thought", "two_stage")])
    [(0, 1)]
    """
    baselines = [i for i, (approach, _) in enumerate(arms) if approach == BASELINE_APPROACH]
    if not baselines:
        return [(i, j) for i in range(len(arms)) for j in range(i + 1, len(arms))]
    pairs = []
    for j, (approach, strategy) in enumerate(arms):
        if approach == BASELINE_APPROACH:
            continue
        # The baseline with the same strategy, so only the approach differs.
        same = [i for i in baselines if arms[i][1] == strategy]
        pairs.append(((same or baselines)[0], j))
    # Several baselines (one per strategy): the strategies themselves are compared.
    pairs += [(x, y) for n, x in enumerate(baselines) for y in baselines[n + 1 :]]
    return pairs


def _approach_comparisons(groups: list[_Group]) -> list[Comparison]:
    cells: dict[tuple[str, str, str], list[_Group]] = defaultdict(list)
    for group in groups:
        run, provider, model = group[0][:3]
        cells[(run, provider, model)].append(group)
    found: list[Comparison | None] = []
    for cell in cells.values():
        pairs = compared_arms([(key[3], key[4]) for key, _ in cell])
        found += [_compare("approach", cell[a][1], cell[b][1]) for a, b in pairs]
    return [c for c in found if c is not None]


def _run_comparisons(groups: list[_Group]) -> list[Comparison]:
    main = {key[1:]: group_items for key, group_items in groups if key[0] == "0"}
    found = [
        _compare("run", main[key[1:]], group_items)
        for key, group_items in groups
        if key[0] != "0" and key[1:] in main
    ]
    return [c for c in found if c is not None]


def _judge_notes(runs: Sequence[tuple[RunRecord, Sequence[ItemRecord]]]) -> list[str]:
    """What a reader must know about the judge: items it was not asked about (its budget
    ran out, or the run had none), and that its cost is not in the approaches' usage."""
    notes = []
    for record, items in runs:
        totals = judge_totals_of(items)
        rulings = (stored_ruling(item) for item in items)
        unasked = [r for r in rulings if r is not None and not_asked(r)]
        never = totals.doubtful - totals.asked
        if unasked:
            notes.append(
                f"Run {record.run_id}: the LLM judge was not asked about {len(unasked)} "
                f"item(s) the rules were unsure of ({unasked[0].reason.removeprefix('not asked: ')}"
                "); the rules' verdict stands for them: `answerx runs score RUN_ID --judge "
                "PROVIDER/MODEL` asks about them."
            )
        elif never and not totals.asked:
            notes.append(
                f"Run {record.run_id}: the rules were unsure of {never} item(s) and no LLM "
                "judge was asked (add judge: to the config, or `answerx runs score RUN_ID "
                "--judge PROVIDER/MODEL`); their verdicts are the rules'."
            )
        if totals.calls:
            cost = "unknown" if totals.cost_usd is None else f"${totals.cost_usd:.4f}"
            notes.append(
                f"Run {record.run_id}: the LLM judge made {totals.calls} call(s) "
                f"({totals.input_tokens:,} tokens in, {totals.output_tokens:,} out, cost {cost}),"
                " not counted in the approaches' usage."
            )
    return notes


def _notes(groups: Sequence[GroupStats]) -> list[str]:
    notes = [] if groups else ["No items to report yet."]
    unscored = sum(g.n - g.scored for g in groups)
    if unscored:
        notes.append(
            f"{unscored} item(s) have no verdict (no gold answer, or the run is not scored yet: "
            "`answerx runs score RUN_ID`); accuracy counts only items with a verdict."
        )
    unpriced = sorted({g.target for g in groups if g.cost_usd is None})
    if unpriced:
        notes.append(
            "Cost is unknown for models without a price in config/prices.yaml: "
            + ", ".join(unpriced)
            + "."
        )
    return notes
