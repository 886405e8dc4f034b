"""Reports as text: the tables of a :class:`~answerx.experiments.report.Report` as cells
(:func:`report_tables`, which the command line draws on a terminal) or as Markdown.
Formatting only: the numbers come computed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from answerx.experiments.report import GroupStats, Report

__all__ = ["ReportTable", "render_markdown", "report_tables"]


class ReportTable(BaseModel):
    """One table of a report, its cells formatted as text."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    right: set[int] = Field(default_factory=set, description="Right-aligned (numeric) columns.")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _money(value: float | None) -> str:
    if value is None:
        return "unknown"
    return f"${value:.4f}" if value < 100 else f"${value:,.2f}"


def _seconds(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f} s"


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _run_name(report: Report, run_id: str) -> str:
    return next((r.name or r.run_id for r in report.runs if r.run_id == run_id), run_id)


def report_tables(report: Report) -> list[ReportTable]:
    """The report's tables, in reading order: runs, accuracy, comparisons, usage, breakdowns."""
    multi = report.multi_run
    lead = ["run"] if multi else []

    def head(g: GroupStats) -> list[str]:
        return [*([_run_name(report, g.run_id)] if multi else []), g.target, g.approach, g.strategy]

    tables = [
        ReportTable(
            title="Runs",
            columns=[
                "run",
                "name",
                "status",
                "started",
                "items",
                "errors",
                "tokens in/out",
                "cost",
            ],
            rows=[
                [
                    r.run_id,
                    r.name,
                    r.status,
                    r.started_at.strftime("%Y-%m-%d %H:%M"),
                    str(r.items),
                    str(r.errors),
                    f"{r.input_tokens:,} / {r.output_tokens:,}",
                    _money(r.cost_usd),
                ]
                for r in report.runs
            ],
            right={4, 5, 6, 7},
        )
    ]
    base = len(lead) + 3
    # Open-domain QA's three measures beside accuracy, when some group has them.
    measured = any(g.measured for g in report.groups)
    tables.append(
        ReportTable(
            title="Accuracy (Wilson 95% interval)"
            + ("; exact match, token F1, cover match" if measured else ""),
            columns=[
                *(*lead, "model", "approach", "strategy", "n", "correct", "accuracy", "95% CI"),
                *(("EM", "F1", "cover") if measured else ()),
            ],
            rows=[
                [
                    *head(g),
                    str(g.n),
                    f"{g.correct}/{g.scored}",
                    _pct(g.accuracy),
                    "–" if g.ci_low is None else f"{_pct(g.ci_low)} – {_pct(g.ci_high)}",
                    *((_pct(g.em), _pct(g.f1), _pct(g.cover)) if measured else ()),
                ]
                for g in report.groups
            ],
            right=set(range(base, base + (7 if measured else 4))),
        )
    )
    if report.comparisons:
        tables.append(
            ReportTable(
                title="Paired comparisons (same questions; exact McNemar test)",
                columns=[
                    *("model", "a", "b", "pairs", "acc a", "acc b", "b − a"),
                    *("only a", "only b", "p-value"),
                ],
                rows=[
                    [
                        f"{c.provider}/{c.model}",
                        _arm(report, c.a_run_id, c.a),
                        _arm(report, c.b_run_id, c.b),
                        str(c.pairs),
                        _pct(c.a_correct / c.pairs),
                        _pct(c.b_correct / c.pairs),
                        f"{100 * c.difference:+.1f} pts",
                        str(c.only_a),
                        str(c.only_b),
                        _p(c.p_value),
                    ]
                    for c in report.comparisons
                ],
                right=set(range(3, 10)),
            )
        )
    tables.append(
        ReportTable(
            title="Usage",
            columns=[
                *(*lead, "model", "approach", "strategy", "tokens in", "tokens out", "cost"),
                *("cost/item", "latency p50", "latency p95", "errors", "cached"),
            ],
            rows=[
                [
                    *head(g),
                    f"{g.input_tokens:,}",
                    f"{g.output_tokens:,}",
                    _money(g.cost_usd),
                    _money(g.cost_per_item_usd),
                    _seconds(g.latency_p50_s),
                    _seconds(g.latency_p95_s),
                    str(g.errors),
                    str(g.cached),
                ]
                for g in report.groups
            ],
            right=set(range(base, base + 8)),
        )
    )
    # Only where a judge was asked: a residue nobody judged is a note, not a table of zeros.
    if any(g.judge is not None and g.judge.asked for g in report.groups):
        tables.append(_judge_table(report, lead, head))
    breakdowns = (
        ("Verdict reason", "reasons"),
        ("Termination", "terminations"),
        ("Extraction method", "methods"),
    )
    for title, field in breakdowns:
        names = list(dict.fromkeys(k for g in report.groups for k in getattr(g, field)))
        tables.append(
            ReportTable(
                title=title,
                columns=[*lead, "model", "approach", "strategy", *names],
                rows=[
                    [*head(g), *(str(getattr(g, field).get(k, 0)) for k in names)]
                    for g in report.groups
                ],
                right=set(range(base, base + len(names))),
            )
        )
    return tables


def _judge_table(
    report: Report, lead: list[str], head: Callable[[GroupStats], list[str]]
) -> ReportTable:
    """What the LLM judge did per group: the items the rules were unsure of (residue), those
    it was asked about and ruled on, the verdicts it changed, and its own usage."""
    base = len(lead) + 3
    rows = []
    for g in report.groups:
        j = g.judge
        if j is None:
            rows.append([*head(g), "0", *("–" * 8)])
            continue
        rows.append(
            [
                *head(g),
                *(str(v) for v in (j.doubtful, j.asked, j.judged, j.overturned, j.not_judged)),
                *(str(j.cached), str(j.calls), f"{j.input_tokens:,} / {j.output_tokens:,}"),
                _money(j.cost_usd),
            ]
        )
    return ReportTable(
        title="LLM judge (the items the rules were unsure of; its usage is not in Usage)",
        columns=[
            *(*lead, "model", "approach", "strategy", "unsure", "asked", "judged"),
            *("overturned", "not judged", "cached", "calls", "tokens in/out", "cost"),
        ],
        rows=rows,
        right=set(range(base, base + 9)),
    )


def _arm(report: Report, run_id: str, arm: str) -> str:
    return f"{arm} [{_run_name(report, run_id)}]" if report.multi_run else arm


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Report, *, images: Sequence[tuple[str, str]] = ()) -> str:
    """The report as Markdown tables; ``images`` are (caption, relative path) to embed."""
    title = " vs ".join(r.name or r.run_id for r in report.runs)
    lines = [f"# Report: {title}", ""]
    lines += [f"> **Note:** {note}\n" for note in report.notes]
    for spec in report_tables(report):
        lines += [f"## {spec.title}", ""]
        lines.append("| " + " | ".join(_cell(c) for c in spec.columns) + " |")
        lines.append(
            "|"
            + "|".join("---:" if i in spec.right else "---" for i in range(len(spec.columns)))
            + "|"
        )
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in spec.rows]
        lines.append("")
    for caption, path in images:
        lines += [f"## {caption}", "", f"![{caption}]({path})", ""]
    return "\n".join(lines)
