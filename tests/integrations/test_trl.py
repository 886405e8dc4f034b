"""answerx's TRL reward functions, called the way GRPOTrainer._calculate_rewards calls them."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from answerx.errors import InputError
from answerx.integrations.trl import answerx_reward, make_reward

PROMPTS = ["What is 6 * 7?", "What is 6 * 7?", "What is 6 * 7?", "Half of 1?"]
COMPLETIONS = [
    "6 * 7 = 42. The answer is \\boxed{42}.",
    "6 * 7 = 43, so the answer is 43.",
    "<think>6 * 7 is 4",  # cut off inside its reasoning
    "The answer is $\\frac{1}{2}$.",
]


class Trainer:
    """What GRPOTrainer passes besides the columns: its loggers collect what they get."""

    def __init__(self) -> None:
        self.extra: dict[str, list[Any]] = defaultdict(list)
        self.metrics: dict[str, list[float]] = defaultdict(list)

    def log_extra(self, column: str, values: list[Any]) -> None:
        self.extra[column].extend(values)

    def log_metric(self, name: str, value: float) -> None:
        self.metrics[name].append(value)

    def call(self, reward_func: Any, completions: list[Any], **columns: list[Any]) -> list[Any]:
        # As TRL: prompts, completions and completion_ids by keyword, then every dataset
        # column but "prompt", then trainer_state, log_extra and log_metric.
        return reward_func(  # type: ignore[no-any-return]
            prompts=PROMPTS[: len(completions)],
            completions=completions,
            completion_ids=[[1, 2, 3]] * len(completions),
            **columns,
            trainer_state=object(),
            log_extra=self.log_extra,
            log_metric=self.log_metric,
        )


def test_plain_completions_get_one_and_zero_by_the_solution_column() -> None:
    trainer = Trainer()
    rewards = trainer.call(answerx_reward, COMPLETIONS, solution=["42", "42", "42", "0.5"])
    assert rewards == [1.0, 0.0, 0.0, 1.0]
    assert trainer.extra["answerx_answer"][:2] == ["42", "43"]


def test_conversational_completions_are_read_from_the_assistant_messages() -> None:
    conversation = [[{"role": "assistant", "content": text}] for text in COMPLETIONS]
    assert Trainer().call(answerx_reward, conversation, solution=["42"] * 3 + ["1/2"]) == [
        1.0, 0.0, 0.0, 1.0
    ]  # fmt: skip


def test_the_reason_and_rates_go_to_trls_loggers() -> None:
    trainer = Trainer()
    trainer.call(answerx_reward, COMPLETIONS, solution=["42", "42", "42", "0.5"])
    assert trainer.extra["answerx_reason"] == [
        "equivalent",
        "different",
        "unfinished",
        "equivalent",
    ]
    assert trainer.metrics["answerx/extraction_rate"] == [0.75]
    assert trainer.metrics["answerx/equivalent"] == [0.5]


def test_a_factory_reads_another_column_and_skips_rows_without_a_gold() -> None:
    gsm8k = make_reward(gold="answer", task="numeric")
    assert gsm8k.__name__ == "answerx_answer"  # the name TRL logs the reward under
    rewards = Trainer().call(gsm8k, COMPLETIONS[:2], answer=["42", None])
    assert rewards == [1.0, None]  # None: TRL leaves the row out of this reward


def test_a_missing_gold_column_names_the_columns_there_are() -> None:
    with pytest.raises(InputError, match=r"'answer'.*\['solution'\]"):
        Trainer().call(make_reward(gold="answer"), COMPLETIONS[:1], solution=["42"])


def test_choices_and_numbers_columns_are_used_per_row() -> None:
    reward = make_reward(gold="answer")
    rewards = Trainer().call(
        reward,
        ["The answer is Venus.", "Answer: (7 - 8 / 8) * 4"],
        answer=["B", None],
        choices=[["Mercury", "Venus"], None],
        numbers=[None, [4, 7, 8, 8]],
    )
    assert rewards == [1.0, 1.0]
