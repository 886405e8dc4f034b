"""The progress bar of a run: done/total, rate, tokens and cost so far, unknown cost as unknown."""

from __future__ import annotations

import io
from dataclasses import dataclass

from rich.console import Console

from answerx.experiments.progress import RunProgress


@dataclass
class Totals:
    done: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = 0.0


def _bar_after(totals: Totals, *, total: int = 10, skipped: int = 0) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=False, color_system=None)
    with RunProgress(total=total, skipped=skipped, enabled=True, console=console) as bar:
        for _ in range(totals.done):
            bar.advance(totals)
    return out.getvalue()


def test_the_bar_shows_done_of_total_tokens_and_cost() -> None:
    text = _bar_after(Totals(done=3, input_tokens=1200, output_tokens=300, cost=0.0123), skipped=2)
    assert "5/10" in text  # two already stored, three answered now
    assert "tokens 1,200 in / 300 out" in text
    assert "cost $0.0123" in text
    assert "errors" not in text


def test_an_unpriced_model_shows_unknown_cost_never_zero() -> None:
    text = _bar_after(Totals(done=2, input_tokens=80, output_tokens=20, cost=None, errors=1))
    assert "cost unknown" in text and "$0" not in text
    assert "errors 1" in text


def test_a_free_model_shows_zero_cost() -> None:
    assert "cost $0.0000" in _bar_after(Totals(done=1, cost=0.0))


def test_a_disabled_bar_prints_nothing() -> None:
    out = io.StringIO()
    console = Console(file=out)
    with RunProgress(total=3, skipped=0, enabled=False, console=console) as bar:
        bar.advance(Totals(done=1))
    assert out.getvalue() == ""
