"""Golds a dataset really holds: None, NaN, an answer object without aliases, an alias list
answered in a sentence. None of them may score a wrong answer right or blame the output."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from answerx.extraction import TASKS
from answerx.integrations.lighteval import AnswerxMatch
from answerx.integrations.lm_eval import answerx_verify, process_results
from answerx.integrations.openrlhf import reward_file


def test_lm_eval_a_missing_gold_is_never_the_text_none() -> None:
    # lm-eval calls a generation metric with one reference and one prediction
    assert answerx_verify([None], ["None"]) == 0.0
    assert answerx_verify([{"normalized_value": "x"}], ["None"]) == 0.0
    assert answerx_verify([{"aliases": ["The Beatles", "Fab Four"]}], ["Fab Four"]) == 1.0
    assert answerx_verify([{"value": "Paris"}], ["Paris"]) == 1.0


def test_lm_eval_alias_qa_reads_a_sentence_answer_with_the_short_answer_task() -> None:
    doc = {"question": "Which band was known as the Fab Four?",
           "answer": {"aliases": ["The Beatles", "Fab Four"]}}  # fmt: skip
    assert process_results(doc, ["It was the Fab Four."]) == {"answerx_verify": 1.0}
    assert answerx_verify([["The Beatles", "Fab Four"]], ["Fab Four"], task="short_answer") == 1.0


@dataclass
class Doc:
    """The parts of lighteval's ``Doc`` the metric reads (lighteval itself lives in its own
    environment: tests/integrations/test_lighteval.py runs there)."""

    golds: list[Any]
    query: str = "How many?"
    choices: list[str] = field(default_factory=list)
    specific: dict[str, Any] | None = None

    def get_golds(self) -> list[Any]:
        return self.golds


@dataclass
class Response:
    final_text: list[str]


@pytest.mark.parametrize("missing", [None, math.nan])
def test_lighteval_a_missing_gold_scores_zero_without_blaming_the_output(missing: Any) -> None:
    doc = Doc(golds=[missing])
    assert AnswerxMatch("numeric").compute(doc, Response(["The answer is 4."])) == 0.0
    assert doc.specific is not None and doc.specific["extracted_predictions"] == ["4"]
    assert AnswerxMatch().compute(Doc(golds=[4]), Response(["The answer is 4."])) == 1.0


def test_openrlhf_reward_file_lists_every_task_and_runs_short_answers(tmp_path: Path) -> None:
    text = reward_file(task="short_answer")
    assert all(task in text for task in TASKS)
    path = tmp_path / "reward_func.py"
    path.write_text(text)
    namespace: dict[str, Any] = {}
    exec(compile(text, str(path), "exec"), namespace)  # as OpenRLHF loads the file
    got = namespace["reward_func"](
        ["Who wrote Hamlet? It was Shakespeare."], ["Who wrote Hamlet?"],
        [["William Shakespeare", "Shakespeare"]],
    )  # fmt: skip
    assert list(got["rewards"]) == [1.0]
