"""What an experiment tracker is given of a run: the :class:`RunLog` (parameters,
metrics, the item table, the report) and the :class:`TrackerRun` each tracker implements.

Plain data built from the store's records; the trackers themselves
(:mod:`answerx.integrations.mlflow`, :mod:`answerx.integrations.wandb`) only send it,
and :mod:`answerx.integrations.trackers` chooses them and logs a run live.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from answerx.experiments.progress import ExperimentProgress
from answerx.experiments.records import ItemRecord, RunRecord, RunStatus
from answerx.experiments.report import Report, build_report
from answerx.redactor import redact_keys, redact_keys_deep

__all__ = [
    "ITEM_COLUMNS",
    "RunLog",
    "TrackerRun",
    "item_row",
    "metric_name",
    "progress_metrics",
    "report_metrics",
    "run_log",
]

#: The columns of the item table, in order.
ITEM_COLUMNS: tuple[str, ...] = (
    "item_id", "dataset", "repetition", "target", "approach", "strategy", "question", "answer",
    "gold", "verdict", "reason", "how", "confidence", "method", "termination", "output",
    "span_start", "span_end", "answer_in_output",
)  # fmt: skip

# MLflow refuses a parameter value longer than 500 characters on older servers; the whole
# config is logged as config.json beside the parameters, so a cut value loses nothing.
_PARAM_LIMIT = 500
# Metric names: MLflow accepts letters, digits and "_-./ " (a model name may hold ":").
_NAME_UNSAFE = re.compile(r"[^\w.\-/ ]")


@dataclass(frozen=True)
class RunLog:
    """Everything a tracker is given about a run (:mod:`answerx.integrations.trackers`)."""

    run: RunRecord
    params: dict[str, str]
    config: dict[str, Any]
    metrics: dict[str, float]
    rows: list[dict[str, Any]]
    report: Report


def run_log(run: RunRecord, items: Sequence[ItemRecord]) -> RunLog:
    """What the trackers are given about ``run`` and its stored ``items``."""
    report = build_report(run, items)
    config = redact_keys_deep(run.config)
    params = {
        "answerx.run_id": run.run_id,
        "answerx.version": run.answerx_version,
        "answerx.config_hash": run.config_hash,
        **_flatten(config),
    }
    return RunLog(
        run=run,
        params={k: v[:_PARAM_LIMIT] for k, v in params.items()},
        config=config,
        metrics=report_metrics(report),
        rows=[item_row(item) for item in items],
        report=report,
    )


def _flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested keys dotted (``budget.max_calls``); lists and scalars as JSON text."""
    flat: dict[str, str] = {}
    for key, inner in value.items():
        name = f"{prefix}{key}"
        if isinstance(inner, Mapping) and inner:
            flat.update(_flatten(inner, f"{name}."))
        else:
            flat[name] = inner if isinstance(inner, str) else json.dumps(inner, ensure_ascii=False)
    return flat


def metric_name(*parts: str) -> str:
    """A metric name every tracker accepts: ``parts`` joined by ``/``, odd characters ``_``."""
    return "/".join(_NAME_UNSAFE.sub("_", part) for part in parts)


def report_metrics(report: Report) -> dict[str, float]:
    """The run's totals and, per arm (``target/approach/strategy``), accuracy with its
    interval, usage, and the counts of each termination and extraction method."""
    metrics: dict[str, float] = {}
    for totals in report.runs[:1]:
        metrics["run/items"] = totals.items
        metrics["run/errors"] = totals.errors
        metrics["run/input_tokens"] = totals.input_tokens
        metrics["run/output_tokens"] = totals.output_tokens
        if totals.cost_usd is not None:  # unknown is left out, never logged as $0
            metrics["run/cost_usd"] = totals.cost_usd
    for group in report.groups:
        arm = (group.provider, group.model, group.approach, group.strategy)
        values: dict[str, float | None] = {
            "accuracy": group.accuracy,
            "accuracy_ci_low": group.ci_low,
            "accuracy_ci_high": group.ci_high,
            "items": group.n,
            "scored": group.scored,
            "correct": group.correct,
            "errors": group.errors,
            "input_tokens": group.input_tokens,
            "output_tokens": group.output_tokens,
            "cost_usd": group.cost_usd,
            "latency_p50_s": group.latency_p50_s,
            "latency_p95_s": group.latency_p95_s,
        }
        for name, value in values.items():
            if value is not None:
                metrics[metric_name(name, *arm)] = float(value)
        for termination, count in group.terminations.items():
            metrics[metric_name("termination", *arm, termination)] = count
        for method, count in group.methods.items():
            metrics[metric_name("method", *arm, method)] = count
    return metrics


def item_row(item: ItemRecord) -> dict[str, Any]:
    """One row of the item table (:data:`ITEM_COLUMNS`), its text redacted."""
    verdict = "unscored" if item.correct is None else ("correct" if item.correct else "wrong")
    start, end = item.span if item.span is not None else (None, None)
    output = redact_keys(item.raw_output)
    found = item.raw_output[start:end] if start is not None else None
    return {
        "item_id": item.item_id,
        "dataset": item.dataset,
        "repetition": item.repetition,
        "target": f"{item.provider}/{item.model}",
        "approach": item.approach,
        "strategy": item.strategy,
        "question": redact_keys(item.question),
        "answer": None if item.extracted_answer is None else redact_keys(item.extracted_answer),
        "gold": None if item.gold is None else redact_keys(item.gold),
        "verdict": verdict,
        "reason": item.reason,
        "how": item.how,
        "confidence": item.confidence,
        "method": item.method,
        "termination": str(item.termination),
        "output": output,
        "span_start": start,
        "span_end": end,
        "answer_in_output": None if found is None else redact_keys(found),
    }


def progress_metrics(progress: ExperimentProgress, scored: int, correct: int) -> dict[str, float]:
    """A running run's counts so far (logged after items, at step = answers stored)."""
    metrics: dict[str, float] = {
        "progress/stored": progress.finished,
        "progress/total": progress.total,
        "progress/errors": progress.errors,
        "progress/input_tokens": progress.input_tokens,
        "progress/output_tokens": progress.output_tokens,
    }
    if scored:
        metrics["progress/accuracy"] = correct / scored
    if progress.cost_usd is not None:
        metrics["progress/cost_usd"] = progress.cost_usd
    return metrics


class TrackerRun(Protocol):
    """One answerx run in one tracker."""

    @property
    def where(self) -> str:
        """Where to find it (MLflow's run id and tracking URI, W&B's run directory or URL)."""

    def log_progress(self, metrics: Mapping[str, float], step: int) -> None:
        """Log the running counts at ``step``."""

    def log_run(self, log: RunLog, files: Sequence[Path]) -> None:
        """Log the run's metrics, item table and report ``files`` (plots, report.md/json)."""

    def end(self, status: RunStatus) -> None:
        """Close the tracker's run with the answerx run's status."""
