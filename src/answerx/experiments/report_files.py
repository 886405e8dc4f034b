"""Reports as files: ``report.md``, ``report.json`` and the PNG plots, in one directory."""

from __future__ import annotations

import json
from pathlib import Path

from answerx.experiments.plots import plot_accuracy, plot_accuracy_vs_cost
from answerx.experiments.render import render_markdown
from answerx.experiments.report import Report
from answerx.redactor import redact_keys, redact_keys_deep

__all__ = ["write_report"]


def write_report(report: Report, out_dir: str | Path) -> list[Path]:
    """Write ``report.md``, ``report.json``, ``accuracy.png`` and ``accuracy_vs_cost.png``.

    Returns the paths written (the directory is created if needed).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    accuracy = plot_accuracy(report, out / "accuracy.png")
    versus_cost = plot_accuracy_vs_cost(report, out / "accuracy_vs_cost.png")
    markdown = out / "report.md"
    markdown.write_text(
        redact_keys(
            render_markdown(
                report,
                images=[
                    ("Accuracy by approach and model", accuracy.name),
                    ("Accuracy against cost", versus_cost.name),
                ],
            )
        ),
        encoding="utf-8",
    )
    data = out / "report.json"
    document = redact_keys_deep(json.loads(report.model_dump_json()))  # string by string
    data.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    return [markdown, data, accuracy, versus_cost]
