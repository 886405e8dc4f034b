"""Gold lists and questions in every reward and plug-in, called as each framework calls them.

Unit level (no framework run): each function gets what its framework hands over — TRL's
columns and prompts, verl's ground truth and extra_info, OpenRLHF's labels and prompts,
verifiers' answer and prompt, lm-eval's references and documents, inspect-ai's targets
and input, lighteval's doc, DSPy's example — with a list of accepted answers and a
question. The frameworks' own end-to-end runs are ``make test-integrations``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from answerx.grading.rewards import prompt_question, reward_gold, reward_verdicts
from answerx.integrations import dspy as dspy_plugin
from answerx.integrations import lm_eval, openrlhf, trl, verifiers, verl
from answerx.integrations.lighteval import AnswerxMatch

ALIASES = ["The Beatles", "Fab Four"]
WHO = "Who discovered radium?"
CURIE = ["Marie Curie", "Maria Skłodowska-Curie"]


# --------------------------------------------------------------------------- rewards
def test_reward_gold_keeps_a_list_of_accepted_answers() -> None:
    assert reward_gold(ALIASES) == ALIASES
    assert reward_gold({"ground_truth": ALIASES}) == ALIASES
    assert reward_gold({"answer": {"target": [1989, "1989"]}}) == [1989, "1989"]
    assert reward_gold([]) is None


def test_hf_datasets_map_batches_take_list_golds_and_a_question_column() -> None:
    from answerx.integrations.hf_datasets import verify_batch

    batch = {"raw_output": ["Curie.", "It was the Fab Four."], "gold": [CURIE, ALIASES],
             "q": [WHO, "Which band?"]}  # fmt: skip
    columns = verify_batch(batch, question="q")
    assert columns["correct"] == [True, True]
    assert columns["matched_gold"] == ["Marie Curie", "Fab Four"]


def test_trl_rewards_any_alias_and_reads_the_question_from_the_prompt() -> None:
    reward = trl.make_reward(gold="answers")
    prompts = [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": WHO}]] * 2
    scores = reward(
        ["<answer>the Fab Four</answer>", "Curie."],
        answers=[ALIASES, CURIE],
        prompts=[[{"role": "user", "content": "Which band?"}], prompts[1]],
    )
    assert scores == [1.0, 1.0]  # "Curie" is right only because the prompt asks "who"
    assert reward(["Curie."], answers=[CURIE], prompts=["Name a chemist's surname."]) == [0.0]


def test_verl_takes_a_list_ground_truth_and_the_question_in_extra_info() -> None:
    result = verl.compute_score(
        "nq", "The answer is Fab Four.", ALIASES, {"question": "Which band?"}
    )
    assert (result["score"], result["matched_gold"]) == (1.0, "Fab Four")
    rows = verl.compute_score_batch(
        ["nq", "nq"], ["Curie.", "Curie."], [CURIE, CURIE], [{"question": WHO}, None]
    )
    assert [r["score"] for r in rows] == [1.0, 0.0]
    assert {tuple(r) for r in rows} == {tuple(rows[0])}  # the same keys on every row


def test_openrlhf_labels_may_hold_lists_and_the_prompt_is_the_question() -> None:
    template = "<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n"
    queries = [template.format(q=WHO) + "Curie.<|im_end|>", template.format(q="Band?") + "Fab Four"]
    prompts = [template.format(q=WHO), template.format(q="Band?")]
    result = openrlhf.rewards(queries, prompts, [CURIE, {"answer": ALIASES}])
    assert result["rewards"] == [1.0, 1.0]


def test_the_prompt_question_is_the_last_user_turn() -> None:
    assert prompt_question("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n"
                           f"{WHO}<|im_end|>\n<|im_start|>assistant\n") == WHO  # fmt: skip
    assert prompt_question([{"role": "user", "content": WHO}]) == WHO
    assert prompt_question("") is None


def test_a_label_objects_own_question_wins() -> None:
    (verdict,) = reward_verdicts(["Curie."], None, [{"answer": CURIE, "question": WHO}])
    assert verdict.how == "surname_match"


def test_verifiers_reward_takes_a_list_answer_and_the_rubrics_prompt() -> None:
    state: dict[str, Any] = {}
    score = verifiers.answerx_reward(
        [{"role": "assistant", "content": "Curie."}], CURIE, state=state,
        prompt=[{"role": "user", "content": WHO}],
    )  # fmt: skip
    assert score == 1.0
    assert state["answerx"]["matched_gold"] == "Marie Curie"


# --------------------------------------------------------------------------- harnesses
def test_lm_eval_metric_takes_a_list_reference() -> None:
    assert lm_eval.answerx_verify([ALIASES], ["Fab Four"]) == 1.0
    assert lm_eval.answerx_verify([ALIASES], ["The Rolling Stones"]) == 0.0


def test_lm_eval_process_results_grades_with_the_documents_question() -> None:
    nq = {"question": WHO, "answer": CURIE}
    triviaqa = {"question": "Which band?", "answer": {"aliases": ALIASES, "value": "The Beatles"}}
    assert lm_eval.process_results(nq, ["Curie"]) == {"answerx_verify": 1.0}
    assert lm_eval.process_results(triviaqa, [["Fab Four"]]) == {"answerx_verify": 1.0}
    assert lm_eval.process_results(nq, [lm_eval.NO_ANSWER]) == {"answerx_verify": 0.0}
    scores = lm_eval.process_results_qa(triviaqa, ["Fab Four"])
    assert scores == {"answerx_verify": 1.0, "answerx_em": 1.0, "answerx_f1": 1.0,
                      "answerx_cover": 1.0}  # fmt: skip


def test_lm_eval_process_results_names_the_fields_it_looked_for() -> None:
    with pytest.raises(ValueError, match="gold fields"):
        lm_eval.process_results({"question": WHO}, ["Curie"])


@dataclass
class Doc:
    """lighteval's Doc, as the metric reads it."""

    query: str
    golds: list[str]
    choices: list[str] = field(default_factory=list)
    specific: dict[str, Any] | None = None

    def get_golds(self) -> list[str]:
        return self.golds


@dataclass
class Response:
    final_text: list[str]


def test_lighteval_metric_grades_several_golds_together_with_the_query() -> None:
    doc = Doc(query=f"Question: {WHO}\nAnswer:", golds=CURIE)
    assert AnswerxMatch().compute(doc, Response(["The answer is Curie."])) == 1.0
    assert doc.specific is not None
    assert doc.specific["answerx_matched_golds"] == ["Marie Curie"]


@pytest.mark.slow  # imports inspect-ai (15 s)
def test_inspect_scorer_takes_several_targets_and_the_input_as_question() -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import CORRECT, Target
    from inspect_ai.solver import TaskState

    from answerx.integrations.inspect_ai import answerx_scorer

    state = TaskState(model="mockllm/model", sample_id=1, epoch=1, input=WHO, messages=[])
    state.output = ModelOutput.from_content("mockllm/model", "Curie.")
    score = asyncio.run(answerx_scorer()(state, Target(CURIE)))
    assert score.value == CORRECT
    assert score.metadata is not None
    assert (score.metadata["how"], score.metadata["matched_gold"]) == (
        "surname_match", "Marie Curie"
    )  # fmt: skip


def test_dspy_metric_takes_a_list_gold_and_the_examples_question() -> None:
    example = {"question": WHO, "answer": CURIE}
    assert dspy_plugin.answerx_metric(example, {"answer": "Curie"}) == 1.0
    assert dspy_plugin.answerx_metric({"answer": CURIE}, {"answer": "Curie"}) == 0.0
    assert dspy_plugin.answerx_metric({"answer": ALIASES}, {"answer": "Fab Four"}) == 1.0
