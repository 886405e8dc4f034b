"""Each search loop end to end on the bundled local model over the bundled corpus.

Marker ``local_model``: a real llama.cpp server on 127.0.0.1 (SmolLM2-135M). A
135M model is not expected to be right, nor to follow the tag conventions; these
check that each loop runs through the real stack (stop sequences included) to a
termination, with real usage. Kept short: one turn (and the final attempt), short
replies.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="the 'local' extra (llama-cpp-python) is not installed")

from answerx.agent import Termination
from answerx.local import LocalModelServer
from answerx.reasoning import SEARCH_APPROACHES, get_approach
from answerx.retrieval import Index, bundled_index, bundled_questions
from answerx.structured import InstructorClientManager

pytestmark = pytest.mark.local_model


@pytest.fixture(scope="module")
def manager() -> Iterator[InstructorClientManager]:
    with LocalModelServer() as server:
        yield InstructorClientManager("local", base_url=server.base_url, max_retries=1)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    path: Path = tmp_path_factory.mktemp("index") / "bundled.db"
    with bundled_index(path) as built:
        yield built


@pytest.mark.parametrize("approach", list(SEARCH_APPROACHES))
def test_each_search_loop_runs_to_a_termination_on_the_local_model(
    manager: InstructorClientManager, index: Index, approach: str
) -> None:
    settings = {"max_steps": 1} if approach == "ircot" else {"rounds": 1} if (
        approach == "iter_retgen") else {"max_turns": 1}  # fmt: skip
    response = get_approach(
        approach, manager, retriever=index, task="text", result_mode=True,
        max_tokens=16, temperature=0, min_confidence=0.0, top_k=1, **settings,
    ).execute(bundled_questions()[0].question)  # fmt: skip

    assert response.metadata.termination in {str(t) for t in Termination}
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    steps = response.metadata.search["steps"]  # type: ignore[attr-defined]
    if approach in ("ircot", "iter_retgen"):
        assert steps  # these retrieve before the model writes; the others only when asked
