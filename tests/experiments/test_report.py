"""Reports from synthetic items: the numbers, the tables, the files and the plots."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import matplotlib.image
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from rich.console import Console

from answerx.cli.run_display import print_report
from answerx.experiments import plots
from answerx.experiments.records import ItemRecord, RunRecord
from answerx.experiments.render import render_markdown
from answerx.experiments.report import Report, build_report, report_from_store
from answerx.experiments.report_files import write_report
from answerx.experiments.store import ResultStore

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUESTIONS = [f"q{i}" for i in range(10)]
# Which questions each approach gets right: "none" 6/10, chain_of_thought 8/10;
# only "none" is right on q4, q5 (2), only chain_of_thought on q6-q9 (4).
RIGHT = {
    "none": {"q0", "q1", "q2", "q3", "q4", "q5"},
    "chain_of_thought": {"q0", "q1", "q2", "q3", "q6", "q7", "q8", "q9"},
    "reflection": {"q0", "q1", "q2"},
}


def run_record(run_id: str = "run-1", name: str = "demo") -> RunRecord:
    return RunRecord(
        run_id=run_id,
        name=name,
        config={},
        config_hash="0" * 64,
        answerx_version="test",
        started_at=datetime(2025, 1, 2, 3, 4, tzinfo=UTC),
        status="finished",
    )


def answers(
    approach: str,
    *,
    run_id: str = "run-1",
    provider: str = "openai",
    model: str = "gpt-test",
    strategy: str = "two_stage",
    cost: float | None = 0.001,
) -> list[ItemRecord]:
    return [
        ItemRecord(
            run_id=run_id,
            approach=approach,
            strategy=strategy,
            provider=provider,
            model=model,
            item_id=qid,
            dataset="arithmetic",
            task="numeric",
            question=f"question {qid}",
            gold="1",
            extracted_answer="1" if qid in RIGHT[approach] else "2",
            method="boxed" if i % 2 else "last_number",
            input_tokens=100,
            output_tokens=20 if approach == "none" else 200,
            cost_usd=cost,
            latency_s=(i + 1) / 10,  # 0.1 ... 1.0 s
            termination="timeout" if qid == "q9" else "answer",
            correct=qid in RIGHT[approach],
            reason="equivalent" if qid in RIGHT[approach] else "different",
            how="fraction",
        )
        for i, qid in enumerate(QUESTIONS)
    ]


@pytest.fixture
def report() -> Report:
    items = (
        answers("none")
        + answers("chain_of_thought")
        + answers("none", provider="local", model="smol", cost=None)
        + answers("chain_of_thought", provider="local", model="smol", cost=None)
    )
    return build_report(run_record(), items)


def test_accuracy_per_approach_and_model_has_a_wilson_interval(report: Report) -> None:
    cot = next(
        g for g in report.groups if g.approach == "chain_of_thought" and g.model == "gpt-test"
    )
    assert (cot.n, cot.scored, cot.correct, cot.accuracy) == (10, 10, 8, 0.8)
    assert (cot.ci_low, cot.ci_high) == pytest.approx((0.4902, 0.9433), abs=5e-5)
    # The baseline comes first within each model.
    assert [(g.model, g.approach) for g in report.groups] == [
        ("smol", "none"),
        ("smol", "chain_of_thought"),
        ("gpt-test", "none"),
        ("gpt-test", "chain_of_thought"),
    ]


def test_each_approach_is_compared_with_none_on_the_same_questions(report: Report) -> None:
    assert len(report.comparisons) == 2  # one per model
    c = next(c for c in report.comparisons if c.model == "gpt-test")
    assert (c.kind, c.a, c.b) == ("approach", "none/two_stage", "chain_of_thought/two_stage")
    assert (c.pairs, c.a_correct, c.b_correct, c.only_a, c.only_b) == (10, 6, 8, 2, 4)
    assert c.p_value == pytest.approx(44 / 64)  # 2 * (C(6,0) + C(6,1) + C(6,2)) / 2^6
    assert c.difference == pytest.approx(0.2)


def test_without_a_none_baseline_every_pair_of_approaches_is_compared() -> None:
    items = answers("chain_of_thought") + answers("reflection")
    (c,) = build_report(run_record(), items).comparisons
    assert (c.a, c.b, c.only_a, c.only_b) == (
        "chain_of_thought/two_stage",
        "reflection/two_stage",
        5,
        0,
    )


def test_an_approach_is_compared_with_the_baseline_of_its_own_strategy() -> None:
    items = (
        answers("none", strategy="structured")
        + answers("none", strategy="two_stage")
        + answers("chain_of_thought", strategy="structured")
    )
    pairs = {(c.a, c.b) for c in build_report(run_record(), items).comparisons}
    assert pairs == {
        ("none/structured", "chain_of_thought/structured"),
        ("none/structured", "none/two_stage"),
    }


def test_only_questions_with_a_verdict_on_both_sides_are_paired() -> None:
    none = answers("none")
    cot = [
        i.model_copy(update={"correct": None}) if i.item_id in ("q6", "q7") else i
        for i in answers("chain_of_thought")
    ]
    (c,) = build_report(run_record(), none + cot).comparisons
    assert (c.pairs, c.only_a, c.only_b) == (8, 2, 2)


def test_compared_runs_are_paired_arm_by_arm_with_the_main_run() -> None:
    other = run_record("run-2", "prompt-v2")
    report = build_report(
        run_record(),
        answers("none") + answers("chain_of_thought"),
        compare=[(other, answers("none", run_id="run-2") + answers("reflection", run_id="run-2"))],
    )
    runs = [c for c in report.comparisons if c.kind == "run"]
    assert [(c.a_run_id, c.b_run_id, c.a, c.b) for c in runs] == [
        ("run-1", "run-2", "none/two_stage", "none/two_stage")
    ]
    assert runs[0].p_value == 1.0  # identical answers: no discordant pair
    assert report.multi_run
    assert "prompt-v2" in render_markdown(report)


def test_breakdowns_usage_and_latency_percentiles(report: Report) -> None:
    group = next(g for g in report.groups if g.model == "gpt-test" and g.approach == "none")
    assert group.terminations == {"answer": 9, "timeout": 1}
    assert group.methods == {"last_number": 5, "boxed": 5}
    assert (group.input_tokens, group.output_tokens) == (1000, 200)
    assert group.cost_usd == pytest.approx(0.01)
    assert group.latency_p50_s == pytest.approx(0.55)
    assert group.latency_p95_s == pytest.approx(0.955)
    assert group.errors == 0


def test_errors_are_counted_and_failed_items_count_as_wrong() -> None:
    items = answers("none")
    items[0] = items[0].model_copy(
        update={"error": "provider failed", "extracted_answer": None, "correct": False}
    )
    (group,) = build_report(run_record(), items).groups
    assert (group.errors, group.correct, group.scored) == (1, 5, 10)
    assert build_report(run_record(), items).runs[0].errors == 1


def test_a_model_without_a_price_shows_unknown_cost_never_zero(report: Report) -> None:
    smol = [g for g in report.groups if g.model == "smol"]
    assert all(g.cost_usd is None and g.cost_per_item_usd is None for g in smol)
    assert report.runs[0].cost_usd is None  # one unpriced item makes the run total unknown
    assert any("local/smol" in note for note in report.notes)

    markdown = render_markdown(report)
    usage = markdown.split("## Usage")[1].split("##")[0]
    smol_usage = [line for line in usage.splitlines() if line.startswith("| local/smol |")]
    assert len(smol_usage) == 2
    assert all("| unknown | unknown |" in line for line in smol_usage)
    assert "$0.0000" not in markdown

    console = Console(record=True, width=220)
    print_report(report, console)
    text = console.export_text()
    assert "unknown" in text and "$0.0100" in text


def test_a_free_model_costs_zero_not_unknown() -> None:
    (group,) = build_report(run_record(), answers("none", cost=0.0)).groups
    assert group.cost_usd == 0.0
    assert "| $0.0000 |" in render_markdown(build_report(run_record(), answers("none", cost=0.0)))


@pytest.mark.parametrize(("model", "shown"), [("gpt-test", "unknown"), ("gpt-4o-mini", "$0.0000")])
def test_a_run_with_nothing_answered_costs_unknown_unless_every_model_has_a_price(
    model: str, shown: str
) -> None:
    record = run_record().model_copy(
        update={"config": {"targets": [{"provider": "openai", "model": model}]}}
    )
    empty = build_report(record, [])

    assert empty.runs[0].cost_usd == (None if shown == "unknown" else 0.0)
    runs_table = render_markdown(empty).split("## Usage")[0]
    assert f"| {shown} |" in runs_table


def test_unscored_items_are_counted_but_not_in_accuracy() -> None:
    items = [
        i.model_copy(update={"correct": None, "reason": None, "how": None}) for i in answers("none")
    ]
    report = build_report(run_record(), items)
    (group,) = report.groups
    assert (group.n, group.scored, group.accuracy, group.ci_low) == (10, 0, None, None)
    assert any("answerx runs score" in note for note in report.notes)
    assert "| 0/0 | – | – |" in render_markdown(report)


def test_items_of_another_run_are_refused() -> None:
    with pytest.raises(ValueError, match="run-2"):
        build_report(run_record(), answers("none", run_id="run-2"))


def test_markdown_has_a_table_per_section(report: Report) -> None:
    markdown = render_markdown(report)
    for title in (
        "## Runs",
        "## Accuracy (Wilson 95% interval)",
        "## Paired comparisons",
        "## Usage",
        "## Verdict reason",
        "## Termination",
        "## Extraction method",
    ):
        assert title in markdown
    assert "| model | approach | strategy | n | correct | accuracy | 95% CI |" in markdown
    assert "| openai/gpt-test | chain_of_thought | two_stage | 10 | 8/10 | 80.0% |" in markdown
    assert "| openai/gpt-test | none/two_stage | chain_of_thought/two_stage | 10 |" in markdown
    assert "0.688" in markdown  # the McNemar p-value


def test_terminal_tables_show_the_same_numbers(report: Report) -> None:
    console = Console(record=True, width=220)
    print_report(report, console)
    text = console.export_text()
    assert "Accuracy (Wilson 95% interval)" in text
    assert "80.0%" in text and "49.0% – 94.3%" in text
    assert "0.688" in text


def test_write_report_writes_markdown_json_and_valid_pngs(report: Report, tmp_path: Path) -> None:
    paths = write_report(report, tmp_path / "out")
    assert sorted(p.name for p in paths) == [
        "accuracy.png",
        "accuracy_vs_cost.png",
        "report.json",
        "report.md",
    ]
    for png in (p for p in paths if p.suffix == ".png"):
        assert png.read_bytes()[:8] == PNG_MAGIC
        pixels = matplotlib.image.imread(png)
        assert pixels.shape[0] > 100 and pixels.shape[1] > 100
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "![Accuracy by approach and model](accuracy.png)" in markdown
    assert Report.model_validate_json((tmp_path / "out" / "report.json").read_text()) == report


def test_plots_are_written_even_when_nothing_is_scored_or_priced(tmp_path: Path) -> None:
    items = [
        i.model_copy(update={"correct": None, "cost_usd": None})
        for i in answers("none") + answers("chain_of_thought")
    ]
    for png in write_report(build_report(run_record(), items), tmp_path)[2:]:
        assert png.read_bytes()[:8] == PNG_MAGIC


def test_report_from_store_reads_the_stored_runs(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "runs.db") as store:
        store.create_run(run_record())
        store.create_run(run_record("run-2", "again"))
        store.add_items(answers("none") + answers("chain_of_thought"))
        store.add_items(answers("none", run_id="run-2"))
        report = report_from_store(store, "run-1", compare=["run-2"])
    assert [r.run_id for r in report.runs] == ["run-1", "run-2"]
    assert [g.accuracy for g in report.groups] == [0.6, 0.8, 0.6]
    assert {c.kind for c in report.comparisons} == {"approach", "run"}


def _drawn_axes(monkeypatch: pytest.MonkeyPatch, report: Report, tmp_path: Path) -> Axes:
    """The axes of the accuracy-against-cost plot of ``report``, as drawn."""
    figures: list[Figure] = []
    make = plots._figure

    def keep(width: float, height: float) -> Figure:
        figures.append(make(width, height))
        return figures[-1]

    monkeypatch.setattr(plots, "_figure", keep)
    plots.plot_accuracy_vs_cost(report, tmp_path / "plot.png")
    (axes,) = figures[0].axes
    return axes


def test_accuracy_is_plotted_against_cost_per_item(
    report: Report, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    axes = _drawn_axes(monkeypatch, report, tmp_path)
    assert axes.get_title() == "Accuracy against cost"
    assert axes.get_xlabel() == "mean cost per item (USD)"
    assert axes.get_xlim()[0] == 0  # never a negative cost on the axis
    assert _xs(axes) == pytest.approx([0.001, 0.001])  # only the priced model: smol has no price


def test_when_every_model_is_free_accuracy_is_plotted_against_tokens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    items = answers("none", cost=0.0) + answers("chain_of_thought", cost=0.0)
    axes = _drawn_axes(monkeypatch, build_report(run_record(), items), tmp_path)
    assert axes.get_title() == "Accuracy against tokens"
    assert axes.get_xlabel().startswith("mean tokens per item, in + out")
    assert sorted(_xs(axes)) == [120, 300]  # none: 100 + 20, chain_of_thought: 100 + 200


def _xs(axes: Axes) -> list[float]:
    """The x values of every point plotted (with error bars) on ``axes``."""
    return [float(x) for c in axes.containers for x in c.lines[0].get_xdata()]
