"""Issue 18's call, and every approach's response model, give a valid object from the
bundled model ten times in a row at temperature 0.7.

Marker ``local_model`` (starts llama.cpp on 127.0.0.1). Before the fix this call raised
``StructuredOutputError`` in every mode: raw control characters in tool arguments,
``confidence`` 1.5 and 3. The check is validity, not correctness: a 135M model's
answer may be wrong. Short inputs and a small ``max_tokens`` keep a call near a second
on an idle machine; the grammar caps keep a whole object within it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("llama_cpp", reason="the 'local' extra (llama-cpp-python) is not installed")

from answerx.local import LocalModelServer
from answerx.structured import REASONING_EXTRACTION_MODELS, InstructorClientManager

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

ISSUE_CALL = [
    {"role": "user",
     "content": "Extract the final answer: 17 + 25 = 42. Therefore, the answer is 42."},
]  # fmt: skip
RUNS = 10


@pytest.fixture(scope="module")
def manager() -> Iterator[InstructorClientManager]:
    with LocalModelServer() as server:
        # The provider's own chain: tools, JSON with the schema, Markdown JSON.
        yield InstructorClientManager("local", base_url=server.base_url, max_tokens=128)


def _ten_in_a_row(manager: InstructorClientManager, approach: str) -> None:
    model = REASONING_EXTRACTION_MODELS[approach]
    for run in range(RUNS):
        result, info = manager.create(ISSUE_CALL, model, temperature=0.7, seed=run)
        assert isinstance(result, model) and result.answer_value, (run, info)
        assert result.confidence is None or 0.0 <= result.confidence <= 1.0
        assert info.mode in ("tools", "json_with_schema", "md_json")


def test_the_issue_call_gives_a_valid_object_ten_times_in_a_row(
    manager: InstructorClientManager,
) -> None:
    _ten_in_a_row(manager, "chain_of_thought")


@pytest.mark.slow
@pytest.mark.parametrize(
    "approach", [a for a in REASONING_EXTRACTION_MODELS if a != "chain_of_thought"]
)
def test_every_other_approach_model_gives_a_valid_object_ten_times_in_a_row(
    manager: InstructorClientManager, approach: str
) -> None:
    _ten_in_a_row(manager, approach)
