"""Experiment runs: datasets x approaches x providers, stored, scored and reported.

>>> from answerx.experiments import run_experiment                     # doctest: +SKIP
>>> summary = run_experiment("config/experiments/demo.yaml")          # doctest: +SKIP

Modules: ``config`` (the YAML run description), ``datasets`` (JSONL/CSV/Parquet,
bundled samples, cached Hugging Face sets), ``runner`` (concurrent, resumable),
``eventloop`` (the loop a run uses), ``calls`` and ``cache`` (the manager runs use:
response cache, per-provider limits), ``store`` (SQLite), ``prices``, ``scoring``,
``stats``, ``report`` (reports as data), ``render`` (as tables/Markdown), ``plots``
and ``report_files`` (written to a directory).
"""

from answerx.experiments.config import (
    ExperimentConfig,
    OutputConfig,
    RateLimit,
    TargetSpec,
    apply_overrides,
    config_from_dict,
    config_hash,
    load_config,
)
from answerx.experiments.datasets import (
    DatasetItem,
    DatasetSpec,
    FieldMap,
    list_samples,
    load_dataset,
    load_datasets,
)
from answerx.experiments.eventloop import new_event_loop
from answerx.experiments.prices import Price, cost, load_prices, price_of
from answerx.experiments.records import ItemKey, ItemRecord, RunRecord
from answerx.experiments.render import render_markdown, render_terminal
from answerx.experiments.report import Report, build_report, report_from_store
from answerx.experiments.report_files import write_report
from answerx.experiments.runner import RunSummary, arun_experiment, run_experiment
from answerx.experiments.scoring import ScoreResult, check_game24, score, score_items, score_run
from answerx.experiments.stats import mcnemar, percentile, wilson_interval
from answerx.experiments.store import ResultStore, new_run_id

__all__ = [
    "DatasetItem",
    "DatasetSpec",
    "ExperimentConfig",
    "FieldMap",
    "ItemKey",
    "ItemRecord",
    "OutputConfig",
    "Price",
    "RateLimit",
    "Report",
    "ResultStore",
    "RunRecord",
    "RunSummary",
    "ScoreResult",
    "TargetSpec",
    "apply_overrides",
    "arun_experiment",
    "build_report",
    "check_game24",
    "config_from_dict",
    "config_hash",
    "cost",
    "list_samples",
    "load_config",
    "load_dataset",
    "load_datasets",
    "load_prices",
    "mcnemar",
    "new_event_loop",
    "new_run_id",
    "percentile",
    "price_of",
    "render_markdown",
    "render_terminal",
    "report_from_store",
    "run_experiment",
    "score",
    "score_items",
    "score_run",
    "wilson_interval",
    "write_report",
]
