"""answerx's TRL reward functions, called the way GRPOTrainer._calculate_rewards calls them."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from answerx.errors import ConfigError, InputError
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
    # the name TRL logs the reward under: not "answerx_answer", the extracted-answer column
    assert gsm8k.__name__ == "answerx_answer_reward"
    assert make_reward(gold="label").__name__ == "answerx_label"
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


CLIPPED = [
    # clipped where a sentence happened to end: it reads as finished
    "Let me see. 6 * 7 = 42. Then 42 - 1 = 41. Then 41 + 17 = 58.",
    "The answer is \\boxed{42}.",  # finished within the limit
    "6 * 7 = 42. The answer is \\boxed{42}. Let me double-check: 6 * 7 = 4",  # marked, then cut
]


def test_a_completion_that_reached_the_token_limit_is_graded_as_cut_off() -> None:
    trainer = Trainer()
    reward = make_reward(max_completion_length=8)
    rewards = reward(
        completions=CLIPPED,
        completion_ids=[[7] * 8, [7] * 5, [7] * 8],
        solution=["58", "42", "42"],
        log_extra=trainer.log_extra,
        log_metric=trainer.log_metric,
    )
    # Without the limit the clipped first one scores 1.0 on the number it stopped at.
    assert answerx_reward(completions=CLIPPED[:1], solution=["58"]) == [1.0]
    assert rewards == [0.0, 1.0, 1.0]  # the answer marked before the cut still counts
    assert trainer.extra["answerx_reason"][0] == "unfinished"
    assert trainer.metrics["answerx/unfinished_rate"] == [pytest.approx(2 / 3)]
    assert trainer.metrics["answerx/unfinished"] == [pytest.approx(1 / 3)]  # the reason


def test_the_limit_is_read_from_what_the_trainer_passes_when_it_holds_it() -> None:
    class State:
        max_completion_length = 8

    rewards = answerx_reward(
        completions=CLIPPED[:1], completion_ids=[[7] * 8], solution=["58"], trainer_state=State()
    )
    assert rewards == [0.0]


def test_a_limit_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ConfigError, match="max_completion_length"):
        make_reward(max_completion_length=0)


def test_a_dataset_without_a_solution_column_is_told_how_to_name_its_gold() -> None:
    with pytest.raises(InputError, match=r"columns: \['answer', 'question'\].*make_reward\(gold="):
        Trainer().call(answerx_reward, COMPLETIONS[:1], answer=["42"], question=["6 * 7?"])


# --- a real GRPOTrainer: two steps on a tiny model built from a config --------------------


@pytest.mark.slow
def test_two_grpo_steps_with_answerx_reward_on_a_config_built_model(tmp_path: Any) -> None:
    pytest.importorskip("torch")
    trl = pytest.importorskip("trl")
    datasets = pytest.importorskip("datasets")
    from scripted import REPLIES, gold, items, prompt_text
    from tiny_model import tiny_model, tiny_tokenizer

    rows = [r for r in items() if r["set"] != "multiple_choice"][:4]
    tokenizer = tiny_tokenizer([prompt_text(r) for r in rows] + list(REPLIES.values()))
    dataset = datasets.Dataset.from_list(
        [{"prompt": prompt_text(r), "solution": gold(r)} for r in rows]
    )
    limit = 6
    config = trl.GRPOConfig(
        output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=4,
        num_generations=4, max_completion_length=limit, learning_rate=1e-3,
        logging_steps=1, report_to="none", use_cpu=True, seed=0, save_strategy="no",
        log_completions=False,
    )  # fmt: skip
    calls: list[list[float | None]] = []
    clipped: list[float] = []
    reward = make_reward(max_completion_length=config.max_completion_length)

    def answerx_reward_spy(completions: Any, **kwargs: Any) -> list[float | None]:
        calls.append(reward(completions, **kwargs))
        cut = [len(ids) >= limit for ids in kwargs["completion_ids"]]
        clipped.append(sum(cut) / len(cut))
        # No answer is taken from a clipped completion's gibberish.
        assert all(r == 0.0 for r, c in zip(calls[-1], cut, strict=True) if c)
        return calls[-1]

    trainer = trl.GRPOTrainer(
        model=tiny_model(tokenizer), reward_funcs=[answerx_reward_spy], args=config,
        train_dataset=dataset, processing_class=tokenizer,
    )  # fmt: skip
    trainer.train()
    assert trainer.state.global_step == 2
    assert len(calls) == 2 and all(len(c) == 4 for c in calls)
    logged = [entry for entry in trainer.state.log_history if "answerx/unfinished_rate" in entry]
    assert len(logged) == 2
    # A random tiny model rarely stops within 6 tokens: the share it clipped is logged.
    assert [entry["answerx/unfinished_rate"] for entry in logged] == pytest.approx(clipped)
    assert max(clipped) > 0.0


def test_trl_reward_on_the_scripted_replies_beside_trls_accuracy_reward() -> None:
    from scripted import EXPECTED, gold, items, record

    rows = items()
    columns = {
        "solution": [gold(r) for r in rows],
        "choices": [r.get("choices") for r in rows],
    }
    completions = [[{"role": "assistant", "content": r["reply"]}] for r in rows]
    ours = Trainer().call(answerx_reward, completions, **columns)
    score = sum(r or 0.0 for r in ours) / len(rows)
    assert score == EXPECTED
    try:
        from trl.rewards import accuracy_reward
    except ImportError:
        builtin = None
    else:
        theirs = accuracy_reward(completions, solution=columns["solution"])
        builtin = sum(r or 0.0 for r in theirs) / len(rows)
    record("TRL (GRPOTrainer reward)", score, builtin, "trl.rewards.accuracy_reward")
