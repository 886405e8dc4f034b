"""The survey writer on the bundled local model over the bundled corpus (marker
``local_model``): a 135M model rarely writes valid actions, so this checks that the
machine runs through the real stack to a termination within a few steps."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="the 'local' extra (llama-cpp-python) is not installed")

from answerx.agent import Termination
from answerx.agent.survey import write_survey
from answerx.local import LocalModelServer
from answerx.retrieval import bundled_index
from answerx.structured import InstructorClientManager

pytestmark = [pytest.mark.local_model]


def test_the_survey_writer_runs_to_a_termination_on_the_local_model(tmp_path: Path) -> None:
    index = bundled_index(tmp_path / "bundled.db")
    with LocalModelServer() as server:
        manager = InstructorClientManager("local", base_url=server.base_url, max_retries=1)
        result = write_survey(
            "A short survey of the companies of Ostrand", manager, index,
            max_step=2, top_k=2, hard_mode=False, max_tokens=48, temperature=0,
        )  # fmt: skip

    assert result.termination in {str(t) for t in Termination}
    assert result.steps == len(result.trace) and 1 <= result.steps <= 2
    assert result.usage.output_tokens > 0
    assert result.markdown
