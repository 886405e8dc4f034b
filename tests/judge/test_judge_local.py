"""The judge on the bundled local model (SmolLM2-135M via llama.cpp): a valid verdict
object on every call. Its judgement is not the point: a 135M model is no judge.

Marker ``local_model``: starts a real llama.cpp server on 127.0.0.1. Skipped when the
``local`` extra is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("llama_cpp", reason="the 'local' extra (llama-cpp-python) is not installed")

from answerx import verify
from answerx.grading.judgement import JUDGE_VERDICTS
from answerx.judge import LLMJudge
from answerx.local import LocalModelServer
from answerx.structured import InstructorClientManager

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

CASES = [
    ("I'm not sure, perhaps Paris.", ["Paris"], "What is the capital of France?"),
    ("Either 1921 or 1922.", ["1921"], "When did Einstein win the Nobel Prize?"),
    ("It was not Mozart.", ["Mozart", "Wolfgang Amadeus Mozart"], "Who wrote The Magic Flute?"),
    ("New York.", ["New York City"], "Which city hosts the UN headquarters?"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalModelServer]:
    with LocalModelServer() as running:
        yield running


@pytest.fixture(autouse=True)
def _no_configured_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSWERX_LOCAL_URL", raising=False)


def test_every_call_to_the_local_model_gives_a_valid_verdict_object(
    server: LocalModelServer,
) -> None:
    # No confidence floor: what is checked is that every reply is a valid verdict object.
    judge = LLMJudge(InstructorClientManager("local", base_url=server.base_url), min_confidence=0)
    for output, golds, question in CASES:
        verdict = verify(output, golds, question=question, judge=judge)
        assert verdict.doubt is not None
        ruling = verdict.judge
        assert ruling is not None and ruling.verdict in JUDGE_VERDICTS, ruling
        assert ruling.confidence is not None and 0.0 <= ruling.confidence <= 1.0
        assert ruling.input_tokens > 0 and ruling.output_tokens > 0
        assert verdict.how == "llm_judge"
    summary = judge.summary
    assert (summary.judged, summary.failed) == (len(CASES), 0)
