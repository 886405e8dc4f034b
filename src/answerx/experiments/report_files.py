"""Reports as files: ``report.md``, ``report.json`` and the PNG plots, in one directory.

The directory and its files are created without following a symbolic link
(:mod:`answerx.support.nofollow`): a link planted at ``OUT_DIR/<run id>`` or at
``report.md`` is refused, never written through.
"""

from __future__ import annotations

import json
from pathlib import Path

from answerx.experiments.plots import accuracy_figure, accuracy_vs_cost_figure, png
from answerx.experiments.render import render_markdown
from answerx.experiments.report import Report
from answerx.redactor import redact_keys, redact_keys_deep
from answerx.support.nofollow import output_dir

__all__ = ["write_report"]


def write_report(report: Report, out_dir: str | Path) -> list[Path]:
    """Write ``report.md``, ``report.json``, ``accuracy.png`` and ``accuracy_vs_cost.png``.

    Returns the paths written. The directory is created if needed; a symbolic link at
    it (its last component) or at any of the files raises
    :class:`~answerx.errors.SymlinkRefused` before anything is written through it.
    """
    accuracy, versus_cost = "accuracy.png", "accuracy_vs_cost.png"
    markdown = redact_keys(
        render_markdown(
            report,
            images=[
                ("Accuracy by approach and model", accuracy),
                ("Accuracy against cost", versus_cost),
            ],
        )
    )
    document = redact_keys_deep(json.loads(report.model_dump_json()))  # string by string
    with output_dir(out_dir) as out:
        return [
            out.write("report.md", markdown),
            out.write("report.json", json.dumps(document, indent=2, ensure_ascii=False)),
            out.write(accuracy, png(accuracy_figure(report))),
            out.write(versus_cost, png(accuracy_vs_cost_figure(report))),
        ]
