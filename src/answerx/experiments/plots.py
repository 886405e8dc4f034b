"""Report plots as PNG files: accuracy by approach × model, and accuracy against cost.

matplotlib is imported inside the functions and used through ``Figure`` and
the Agg canvas only, never ``pyplot``: no display is needed, no global backend
is switched under the caller's feet, and plotting from a worker thread is safe.

A figure is drawn (``accuracy_figure``), rendered (:func:`png`) and written
(``plot_accuracy``) apart: the report writes the PNG bytes into its own folder,
and a file is written without following a symbolic link (:mod:`answerx.support.nofollow`).
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from answerx.experiments.report import GroupStats, Report
from answerx.support.nofollow import write_output

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "accuracy_figure",
    "accuracy_vs_cost_figure",
    "plot_accuracy",
    "plot_accuracy_vs_cost",
    "png",
]

_LOG_X_RATIO = 100  # costs spanning more than this factor get a log axis


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _label(report: Report, group: GroupStats) -> str:
    if not report.multi_run:
        return group.arm
    run = next((r.name or r.run_id for r in report.runs if r.run_id == group.run_id), group.run_id)
    return f"{group.arm} [{run}]"


def _errors(groups: list[GroupStats]) -> list[list[float]]:
    """Asymmetric error bars (below, above) from the Wilson intervals, in percent."""
    below = [100 * ((g.accuracy or 0.0) - (g.ci_low or 0.0)) for g in groups]
    above = [100 * ((g.ci_high or 0.0) - (g.accuracy or 0.0)) for g in groups]
    return [below, above]


def png(figure: Figure) -> bytes:
    """``figure`` rendered as PNG."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def plot_accuracy(report: Report, path: str | Path) -> Path:
    """Write :func:`accuracy_figure` as a PNG file at ``path`` (never through a link)."""
    return write_output(path, png(accuracy_figure(report)))


def plot_accuracy_vs_cost(report: Report, path: str | Path) -> Path:
    """Write :func:`accuracy_vs_cost_figure` as a PNG file at ``path`` (never through a
    link)."""
    return write_output(path, png(accuracy_vs_cost_figure(report)))


def accuracy_figure(report: Report) -> Figure:
    """Grouped bars: one group per model, one bar per approach, Wilson 95% error bars."""
    scored = [g for g in report.groups if g.accuracy is not None]
    targets = list(dict.fromkeys(g.target for g in scored))
    arms = list(dict.fromkeys(_label(report, g) for g in scored))
    figure = _figure(max(6.0, 1.5 + 0.45 * len(targets) * max(1, len(arms))), 5.0)
    axes = figure.add_subplot()
    if not scored:
        axes.text(0.5, 0.5, "no scored items", ha="center", va="center", transform=axes.transAxes)
    width = 0.8 / max(1, len(arms))
    for i, arm in enumerate(arms):
        rows = [(targets.index(g.target), g) for g in scored if _label(report, g) == arm]
        axes.bar(
            [t + (i - (len(arms) - 1) / 2) * width for t, _ in rows],
            [100 * (g.accuracy or 0.0) for _, g in rows],
            width,
            yerr=_errors([g for _, g in rows]),
            capsize=3,
            label=arm,
        )
    axes.set_xticks(range(len(targets)), targets, rotation=15 if len(targets) > 3 else 0)
    axes.set_ylim(0, 105)
    axes.set_ylabel("accuracy (%)")
    axes.set_title("Accuracy by approach and model")
    axes.set_xlabel("error bars: Wilson 95% interval", fontsize="small")
    if arms:
        figure.legend(loc="outside lower center", ncols=min(3, len(arms)), fontsize="small")
    return figure


def accuracy_vs_cost_figure(report: Report) -> Figure:
    """Accuracy against mean cost per item, one point per approach × model.

    Models without a price (cost unknown) are left out and named in the caption;
    the cost axis is logarithmic when the costs span more than a factor of 100.
    When every model shown is free (local models), cost cannot tell approaches
    apart: the x axis is then the mean tokens (in + out) per item, and says so.
    """
    scored = [g for g in report.groups if g.accuracy is not None]
    priced = [g for g in scored if g.cost_per_item_usd is not None]
    unpriced = sorted({g.target for g in scored if g.cost_per_item_usd is None})
    free = bool(priced) and all(g.cost_per_item_usd == 0 for g in priced)
    x_of = _tokens_per_item if free else _cost_per_item
    figure = _figure(7.0, 5.0)
    axes = figure.add_subplot()
    xs = [x_of(g) for g in priced]
    log_x = bool(xs) and min(xs) > 0 and max(xs) / min(xs) > _LOG_X_RATIO
    for target in dict.fromkeys(g.target for g in priced):
        rows = [g for g in priced if g.target == target]
        axes.errorbar(
            [x_of(g) for g in rows],
            [100 * (g.accuracy or 0.0) for g in rows],
            yerr=_errors(rows),
            fmt="o",
            capsize=3,
            label=target,
        )
        for g in rows:
            axes.annotate(
                _label(report, g),
                (x_of(g), 100 * (g.accuracy or 0.0)),
                textcoords="offset points",
                xytext=(5, 5),
                fontsize="small",
            )
    if not priced:
        axes.text(
            0.5,
            0.5,
            "no scored items with a known cost",
            ha="center",
            va="center",
            transform=axes.transAxes,
        )
    if log_x:
        axes.set_xscale("log")
    axes.margins(x=0.25)  # room for the labels of the outermost points
    if not log_x:
        axes.set_xlim(left=0)  # costs and token counts are never negative
    axes.set_ylim(0, 105)
    unit = "mean tokens per item, in + out (every model here is free" if free else (
        "mean cost per item (USD")  # fmt: skip
    axes.set_xlabel(unit + (", log scale)" if log_x else ")"))
    axes.set_ylabel("accuracy (%)")
    axes.set_title("Accuracy against tokens" if free else "Accuracy against cost")
    if priced:
        axes.legend(fontsize="small")
    caption = "Error bars: Wilson 95% interval."
    if unpriced:
        caption += " Not shown (no price, cost unknown): " + ", ".join(unpriced) + "."
    # supxlabel, not a free text: the constrained layout makes room for it.
    figure.supxlabel(textwrap.fill(caption, 100), fontsize="small")
    return figure


def _cost_per_item(group: GroupStats) -> float:
    return group.cost_per_item_usd or 0.0


def _tokens_per_item(group: GroupStats) -> float:
    return (group.input_tokens + group.output_tokens) / group.n if group.n else 0.0
