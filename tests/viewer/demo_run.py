"""A small demo run for the viewer's tests, made by the real runner against the fake provider.

Ten questions (six arithmetic, four multiple choice) × three approaches (``none``,
``chain_of_thought``, multi-call ``reflection``), two-stage: each reply thinks in a
``<think>`` section, then states ``\\boxed{ANSWER}``. Known in advance:

- ``arith-02`` and ``mc-03`` are answered wrong by the first reply of a conversation, so
  ``none`` and ``chain_of_thought`` get them wrong and ``reflection``'s revision right;
- every reply to ``arith-05`` is cut off inside its ``<think>`` (finish reason
  ``length``), the forced answer after it too: it is ``unfinished`` everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from answerx.experiments.config import load_config
from answerx.experiments.datasets import DatasetItem, load_dataset
from answerx.experiments.runner import run_experiment
from answerx.testing import FakeProviderServer, RecordedRequest, Reply

WRONG_FIRST = frozenset({"arith-02", "mc-03"})
CUT_OFF = "arith-05"
APPROACHES = ("none", "chain_of_thought", "reflection")


@dataclass
class DemoModel:
    """Thinks, then answers in ``\\boxed{}``; see the module docstring for its mistakes."""

    items: list[DatasetItem] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.items = load_dataset("arithmetic")[:6] + load_dataset("multiple_choice")[:4]

    def __call__(self, request: RecordedRequest) -> Reply:
        text = request.text
        item = next((i for i in self.items if i.question in text), None)
        if item is None:
            return Reply.text("I cannot tell.")
        gold = item.gold or ""
        first = not any(
            isinstance(m, dict) and m.get("role") == "assistant" for m in request.messages
        )
        if item.id == CUT_OFF:
            return Reply.text(
                "<think>\nLet me add these up one at a time, carefully, and", usage=(60, 400),
                truncated=True,
            )  # fmt: skip
        answer = gold
        if item.id in WRONG_FIRST and first:
            answer = "113" if item.choices is None else "B"
        thinking = (
            f"<think>\nThe question: {item.question}\nI work it out step by step.\n</think>\n"
        )
        verdict = "\n<verdict>revise</verdict>" if "critique" in text.lower() else ""
        return Reply.text(
            f"{thinking}So the answer is \\boxed{{{answer}}}.{verdict}", usage=(60, 40)
        )


def demo_run(folder: Path, fake_provider: FakeProviderServer) -> tuple[Path, str]:
    """Run the demo into ``folder/runs/answerx.db``; returns the store's path and the run id."""
    fake_provider.set_default(DemoModel())
    config: dict[str, Any] = {
        "name": "viewer-demo",
        "datasets": [
            {"sample": "arithmetic", "limit": 6},
            {"sample": "multiple_choice", "limit": 4},
        ],
        "approaches": list(APPROACHES),
        "strategies": ["two_stage"],
        "targets": [
            {"provider": "openai", "model": "gpt-demo", "base_url": fake_provider.openai_base_url}
        ],
        "approach_settings": {"reflection": {"multi_call": True, "rounds": 1}},
        "concurrency": 4,
        "cache": False,
        "output": {
            "db": str(folder / "runs" / "answerx.db"),
            "report_dir": str(folder / "reports"),
        },
    }
    path = folder / "demo.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    summary = run_experiment(load_config(path))
    return folder / "runs" / "answerx.db", summary.run_id
