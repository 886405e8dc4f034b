"""A run's progress: the runner reports plain data through ``on_progress``; ``answerx run``
draws the bar from it (done/total, rate, tokens and cost so far, unknown cost as unknown)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from runner_helpers import GoldModel, write_config

from answerx.cli.run_display import ExperimentBar
from answerx.experiments.config import load_config
from answerx.experiments.progress import ExperimentProgress
from answerx.experiments.runner import run_experiment
from answerx.testing import FakeProviderServer


def at(done: int, *, total: int = 10, skipped: int = 0, **fields: object) -> ExperimentProgress:
    values: dict[str, object] = {
        "run_id": "20261121-143012-ab12",
        "total": total,
        "skipped": skipped,
        "done": done,
        "errors": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
        "elapsed_s": 0.5 * done,
    }
    values.update(fields)
    return ExperimentProgress(**values)  # type: ignore[arg-type]


def _bar_after(*steps: ExperimentProgress, enabled: bool = True) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=False, color_system=None)
    with ExperimentBar(console, name="demo", db="runs/answerx.db", enabled=enabled) as bar:
        for step in steps:
            bar(step)
    return out.getvalue()


def test_the_bar_shows_done_of_total_tokens_and_cost() -> None:
    text = _bar_after(
        at(0, skipped=2),
        at(3, skipped=2, input_tokens=1200, output_tokens=300, cost_usd=0.0123),
    )
    assert "run 20261121-143012-ab12 (demo): 10 answers to get, 2 already stored" in text
    assert "runs/answerx.db" in text
    assert "5/10" in text  # two already stored, three answered now
    assert "tokens 1,200 in / 300 out" in text
    assert "cost $0.0123" in text
    assert "errors" not in text


def test_an_unpriced_model_shows_unknown_cost_never_zero() -> None:
    text = _bar_after(at(0, cost_usd=None), at(2, cost_usd=None, input_tokens=80, errors=1))
    assert "cost unknown" in text and "$0" not in text
    assert "errors 1" in text


def test_a_free_model_shows_zero_cost() -> None:
    assert "cost $0.0000" in _bar_after(at(0), at(1))


def test_a_disabled_bar_prints_nothing() -> None:
    assert _bar_after(at(0), at(1), enabled=False) == ""


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-progress-key")


def test_the_runner_reports_progress_before_the_first_answer_and_after_each(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    fake_provider.set_default(GoldModel(usage=(40, 10)))
    config = load_config(write_config(tmp_path / "run.yaml", fake_provider.openai_base_url))
    seen: list[ExperimentProgress] = []

    summary = run_experiment(config, on_progress=seen.append)

    assert [p.done for p in seen] == list(range(summary.total + 1))
    assert {p.run_id for p in seen} == {summary.run_id}
    assert all(p.total == summary.total == 8 and p.skipped == 0 for p in seen)
    assert (seen[-1].input_tokens, seen[-1].errors) == (summary.input_tokens, 0)
    assert seen[-1].input_tokens == 40 * summary.total
    assert [p.elapsed_s for p in seen] == sorted(p.elapsed_s for p in seen)
