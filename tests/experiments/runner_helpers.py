"""A "model" for the fake provider server that knows the gold answers of the sample datasets.

It finds the sample question in the request and answers with its gold answer
(or a wrong one, for the items listed in ``wrong``): as a tool call to
structured requests, as reasoning text ending in ``<answer>…</answer>`` to text
requests. So a run's accuracy is known in advance.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from answerx.experiments.datasets import DatasetItem, load_dataset
from answerx.testing import RecordedRequest, Reply


def request_text(request: RecordedRequest) -> str:
    parts: list[str] = []
    for message in request.messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(b.get("text", "")) for b in content if isinstance(b, dict)]
    return "\n".join(parts)


@dataclass
class GoldModel:
    """Answers each sample question with its gold answer (``wrong``: item ids to get wrong)."""

    samples: tuple[str, ...] = ("arithmetic", "multiple_choice")
    wrong: frozenset[str] = frozenset()
    delay: float = 0.0
    usage: tuple[int, int] = (40, 10)
    items: list[DatasetItem] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        for name in self.samples:
            self.items += load_dataset(name)

    def answer_for(self, text: str) -> str:
        for item in self.items:
            if item.question in text:
                gold = item.gold or ""
                if item.id in self.wrong:
                    return "B" if gold == "A" else ("A" if item.choices else gold + "1")
                return gold
        return "unknown"

    def __call__(self, request: RecordedRequest) -> Reply:
        answer = self.answer_for(request_text(request))
        if request.has_tools or request.response_format is not None:
            args = {
                "full_reasoning_text": "Worked it out.",
                "answer_value": answer,
                "confidence": 0.9,
            }
            return Reply.tool_call(args, usage=self.usage, delay=self.delay or None)
        text = f"Let me think step by step.\n<answer>{answer}</answer>"
        return Reply.text(text, usage=self.usage, delay=self.delay or None)


def write_config(path: Path, fake_url: str, **overrides: Any) -> Path:
    """A small experiment config against the fake server's OpenAI endpoint."""
    config: dict[str, Any] = {
        "name": "test-run",
        "datasets": [{"sample": "arithmetic", "limit": 4}],
        "approaches": ["none", "chain_of_thought"],
        "strategies": ["structured"],
        "targets": [{"provider": "openai", "model": "gpt-test", "base_url": fake_url}],
        "concurrency": 4,
        "output": {
            "db": str(path.parent / "runs" / "answerx.db"),
            "report_dir": str(path.parent / "reports"),
        },
    }
    config.update(overrides)
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path
