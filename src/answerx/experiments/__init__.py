"""Experiment runs: datasets x approaches x providers, stored, scored and reported.

>>> from answerx.experiments import run_experiment                     # doctest: +SKIP
>>> summary = run_experiment("config/experiments/demo.yaml")          # doctest: +SKIP

The package exports what a user calls: load a config, run it, open the store,
re-score a run, build and write its report. Everything else is imported from its
module: ``config`` (the YAML run description), ``datasets`` (JSONL/CSV/Parquet,
bundled samples, cached Hugging Face sets), ``runner`` (concurrent, resumable),
``eventloop`` (the loop a run uses), ``calls`` and ``cache`` (the manager runs use:
response cache, per-provider limits), ``store`` (SQLite), ``records`` (what the
store holds), ``prices``, ``scoring``, ``stats``, ``report`` (reports as data),
``render`` (as tables/Markdown), ``plots`` and ``report_files`` (written to a
directory).
"""

from answerx.experiments.config import ExperimentConfig, load_config
from answerx.experiments.render import render_markdown
from answerx.experiments.report import Report, report_from_store
from answerx.experiments.report_files import write_report
from answerx.experiments.runner import RunSummary, arun_experiment, run_experiment
from answerx.experiments.scoring import score_run
from answerx.experiments.store import ResultStore

__all__ = [
    "ExperimentConfig",
    "Report",
    "ResultStore",
    "RunSummary",
    "arun_experiment",
    "load_config",
    "render_markdown",
    "report_from_store",
    "run_experiment",
    "score_run",
    "write_report",
]
