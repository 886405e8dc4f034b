"""A finished answer is not "unfinished": each plug-in passes on how a response ended
wherever its framework knows it, called the way the framework calls it.

"So the total is 42" has no final period: without knowing that the model stopped there,
answerx cannot tell it from a reply cut off mid-sentence.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from answerx.integrations.openrlhf import rewards
from answerx.integrations.trl import finish_reason, make_reward
from answerx.integrations.verifiers import answerx_reward, rollout_finish_reason
from answerx.integrations.verl import compute_score

FINISHED = "So the total is 42"


def trl_call(reward: Any, ids: list[int]) -> list[float | None]:
    # As GRPOTrainer._calculate_rewards: prompts, completions, completion_ids, the columns.
    return reward(  # type: ignore[no-any-return]
        prompts=["Q?"], completions=[FINISHED], completion_ids=[ids], solution=["42"],
        trainer_state=object(),
    )  # fmt: skip


def test_trl_a_completion_shorter_than_the_limit_stopped_so_it_is_graded() -> None:
    reward = make_reward(gold="solution", max_completion_length=512)
    assert trl_call(reward, [1, 2, 3, 4, 5, 0]) == [1.0]


def test_trl_a_completion_that_reached_the_limit_was_cut_off() -> None:
    assert trl_call(make_reward(max_completion_length=6), [1, 2, 3, 4, 5, 9]) == [0.0]


def test_trl_a_completion_ending_on_eos_at_the_limit_stopped() -> None:
    reward = make_reward(max_completion_length=6, eos_token_id=[0, 7])
    assert trl_call(reward, [1, 2, 3, 4, 5, 0]) == [1.0]


def test_trl_without_a_limit_or_eos_nothing_is_assumed() -> None:
    assert finish_reason([1, 2, 0], None) is None
    assert finish_reason(None, 512) is None
    assert finish_reason([1, 2, 0], None, frozenset({0})) == "stop"


def test_trl_the_rewards_name_never_clashes_with_a_logged_column() -> None:
    logged: dict[str, list[Any]] = {}
    reward = make_reward(gold="answer")
    reward(
        prompts=["Q?"], completions=["The answer is 42."], completion_ids=[[1]], answer=["42"],
        log_extra=lambda column, values: logged.setdefault(column, values),
    )  # fmt: skip
    assert reward.__name__ not in logged and "answerx_answer" in logged


def test_dspy_an_output_field_is_complete_so_a_bare_sentence_counts() -> None:
    dspy = pytest.importorskip("dspy")
    from answerx.integrations.dspy import answerx_feedback_metric, answerx_metric

    result = answerx_feedback_metric(
        dspy.Example(answer="4"), dspy.Prediction(answer="She fills 4 boxes")
    )
    assert result.score == 1.0 and "cut off" not in result.feedback
    assert answerx_metric(dspy.Example(answer="4"), dspy.Prediction(answer="She fills 4 boxes"))


def test_verifiers_the_rollout_state_says_how_it_ended() -> None:
    completion = [{"role": "assistant", "content": FINISHED}]

    def rubric(state: dict[str, Any]) -> float:
        return answerx_reward(completion=completion, answer="42", info={}, state=state)

    assert rubric({"is_completed": True, "is_truncated": False}) == 1.0
    assert rubric({"is_completed": True, "is_truncated": True}) == 0.0
    assert rollout_finish_reason({}) is None  # a hand-built state says nothing


def test_verifiers_the_per_row_task_lives_under_info_answerx() -> None:
    # verifiers 0.3 reads info["task"] as a task payload of its own (a JSON object).
    completion = [{"role": "assistant", "content": "The answer is Venus."}]
    info = {"answerx": {"task": "multiple_choice", "choices": ["Mars", "Venus"]}}
    assert answerx_reward(completion=completion, answer="B", info=info, state={}) == 1.0
    payload = {"task": {"env_id": "gsm8k"}, "answerx": {"task": "numeric"}}
    text = [{"role": "assistant", "content": "The answer is 42."}]
    assert answerx_reward(completion=text, answer="42", info=payload, state={}) == 1.0


IM = "<|im_start|>user\nQ?<|im_end|>\n<|im_start|>assistant\n"


# Ends mid-sentence: only an end-of-turn token after it says the model stopped by itself.
RUN_ON = "Adding the boxes: 6 * 7 = 42, so the total is 42 and the"


def test_openrlhf_a_query_ending_on_the_end_of_turn_token_stopped() -> None:
    got = rewards([IM + RUN_ON + "<|im_end|>", IM + RUN_ON], [IM, IM], ["42", "42"])
    assert got["rewards"] == [1.0, 0.0]  # without the token it may have been cut off


def test_openrlhf_a_label_stored_as_json_text_is_read_as_its_object() -> None:
    label = '{"answer": "B", "task": "multiple_choice", "choices": ["3", "42"]}'
    assert rewards(["Q? The answer is 42."], ["Q?"], [label])["rewards"] == [1.0]


def test_verl_extra_info_finish_reason_reaches_grading() -> None:
    assert compute_score("openai/gsm8k", FINISHED, "42", {"finish_reason": "stop"})["acc"]
    cut = compute_score("openai/gsm8k", FINISHED, "42", {"finish_reason": "length"})
    assert cut["reason"] == "unfinished"


def test_verl_a_misspelt_extra_info_key_or_task_is_named_once() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            compute_score("x", "The answer is 42.", "42", {"tsak_x": 1, "task": "numerc"})
            compute_score("x", "The answer is 42.", "42", {"split": "train", "index": 3})
    told = [str(w.message) for w in caught]
    assert len(told) == 2
    assert "extra_info['tsak_x']" in told[0]
    assert "did you mean 'numeric'?" in told[1]
