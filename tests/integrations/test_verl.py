"""answerx's verl reward function, called the way verl's reward managers call it."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from answerx.errors import InputError
from answerx.integrations.verl import compute_score, compute_score_batch, task_for
from documentation import documentation_text

GSM8K = "Natalia sold 48 / 2 = 24 clips in May.\nIn all 48 + 24 = 72.\n#### 72"


def load_pkg(path: str, name: str) -> object:
    # verl's load_extern_type for "pkg://module.path": import the module, take the name.
    module = importlib.import_module(path.removeprefix("pkg://"))
    return getattr(module, name)


def test_verl_finds_compute_score_by_its_pkg_path() -> None:
    assert load_pkg("pkg://answerx.integrations.verl", "compute_score") is compute_score


def test_a_row_scores_one_with_the_verdict_fields_beside_the_score() -> None:
    # NaiveRewardManager: compute_score(data_source=..., solution_str=..., ground_truth=...,
    # extra_info=...) and "score" is the reward, the other keys reward_extra_info.
    result = compute_score(
        data_source="openai/gsm8k", solution_str=GSM8K, ground_truth="72", extra_info={"index": 0}
    )
    assert result == {
        "score": 1.0, "acc": True, "reason": "equivalent", "how": "exact", "answer": "72",
        "matched_gold": "72", "method": "final_answer_phrase",
    }  # fmt: skip


def test_every_row_has_the_same_keys_and_types_for_verls_arrays() -> None:
    rows = [
        compute_score("openai/gsm8k", GSM8K, "71"),
        compute_score("openai/gsm8k", "I cannot say.", "72"),
        compute_score("lighteval/MATH", r"So $\boxed{\frac{1}{2}}$.", r"\dfrac{1}{2}"),
    ]
    assert [r["score"] for r in rows] == [0.0, 0.0, 1.0]
    assert {tuple(sorted(r)) for r in rows} == {tuple(sorted(rows[0]))}
    assert [type(r["answer"]) for r in rows] == [str, str, str]


def test_the_task_comes_from_extra_info_then_the_data_source() -> None:
    assert task_for("openai/gsm8k") == "numeric"
    assert task_for("DigitalLearningGmbH/MATH-lighteval") == "math"
    assert task_for("openai/gsm8k", {"task": "text"}) == "text"
    assert task_for("my/own-data") == "auto"


def test_a_ground_truth_inside_the_reward_model_dict_is_read() -> None:
    assert compute_score("openai/gsm8k", GSM8K, {"ground_truth": "72"})["score"] == 1.0


def test_the_batch_manager_gets_one_dict_per_response() -> None:
    # BatchRewardManager: compute_score(data_sources=, solution_strs=, ground_truths=,
    # extra_infos=) returns a list.
    results = compute_score_batch(
        data_sources=["openai/gsm8k"] * 2,
        solution_strs=[GSM8K, GSM8K.replace("72", "70")],
        ground_truths=["72", "72"],
        extra_infos=[None, {"index": 1}],
    )
    assert [r["score"] for r in results] == [1.0, 0.0]


def verl_batch(np: Any, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The keyword arguments verl's BatchRewardManager passes for ``rows``: the non-tensor
    batch (data_source, extra_info) as numpy object arrays, ground truths read out of each
    row's reward_model dict into a list, responses decoded into a list of strings."""
    return {
        "data_sources": np.array([r["data_source"] for r in rows], dtype=object),
        "solution_strs": [r["response"] for r in rows],
        "ground_truths": [r["reward_model"].get("ground_truth") for r in rows],
        "extra_infos": np.array([r.get("extra_info") for r in rows], dtype=object),
    }


def test_the_batch_manager_passes_numpy_object_arrays_with_numpy_scalars_inside() -> None:
    np = pytest.importorskip("numpy")
    rows = [
        {"data_source": "openai/gsm8k", "response": GSM8K,
         "reward_model": {"ground_truth": "72", "style": "rule"},
         "extra_info": {"index": np.int64(0), "split": np.str_("test")}},
        {"data_source": "lighteval/MATH", "response": r"So $\boxed{\frac{1}{2}}$.",
         "reward_model": {"ground_truth": r"\dfrac{1}{2}"}, "extra_info": None},
        {"data_source": "my/quiz", "response": "Comparing both, the answer is Venus.",
         "reward_model": {"ground_truth": np.str_("B")},
         "extra_info": {"task": np.str_("multiple_choice"),
                        "choices": np.array(["Mars", "Venus"], dtype=object)}},
        {"data_source": "my/numbers", "response": "So the total is 71.",
         "reward_model": {"ground_truth": np.int64(72)}, "extra_info": {"index": np.int64(3)}},
    ]  # fmt: skip
    results = compute_score_batch(**verl_batch(np, rows))
    assert [r["score"] for r in results] == [1.0, 1.0, 1.0, 0.0]
    assert [r["acc"] for r in results] == [True, True, True, False]
    assert results[2]["how"] == "letter"


def test_the_batch_manager_without_extra_info_gets_scores_all_the_same() -> None:
    np = pytest.importorskip("numpy")
    results = compute_score_batch(
        data_sources=np.array(["openai/gsm8k"] * 2, dtype=object),
        solution_strs=(GSM8K, "I cannot say."),
        ground_truths=np.array(["72", "72"], dtype=object),
    )
    assert [r["score"] for r in results] == [1.0, 0.0]


def test_a_batch_of_the_wrong_length_names_the_argument() -> None:
    with pytest.raises(InputError, match="data_sources: 1 values for 2"):
        compute_score_batch(["openai/gsm8k"], [GSM8K, GSM8K], ["72", "72"])


def test_compute_score_reads_numpy_values_in_its_extra_info() -> None:
    np = pytest.importorskip("numpy")
    result = compute_score(
        "quiz", "The answer is Venus.", np.str_("B"),
        {"task": "multiple_choice", "choices": np.array(["Mars", "Venus"], dtype=object)},
    )  # fmt: skip
    assert result["acc"] is True


def test_the_docstring_names_the_keys_the_result_has() -> None:
    result = compute_score("openai/gsm8k", GSM8K, "72")
    for key in result:
        assert f'"{key}"' in (compute_score.__doc__ or "")


# --- verl's own reward managers on a DataProto (where verl is installed) ----------------


def data_proto(verl: Any, tokenizer: Any, rows: list[dict[str, Any]]) -> Any:
    """The DataProto verl's trainer hands its reward manager: prompt and response token ids
    (right-padded responses, the attention mask over both), and the non-tensor batch."""
    import numpy as np
    import torch

    prompts = [tokenizer(r["prompt"])["input_ids"] for r in rows]
    responses = [tokenizer(r["response"])["input_ids"] for r in rows]
    p_len, r_len = max(map(len, prompts)), max(map(len, responses))
    pad = tokenizer.pad_token_id

    def padded(ids: list[int], size: int, left: bool) -> list[int]:
        return [pad] * (size - len(ids)) + ids if left else ids + [pad] * (size - len(ids))

    mask = [
        [0] * (p_len - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (r_len - len(r))
        for p, r in zip(prompts, responses, strict=True)
    ]
    return verl.DataProto.from_dict(
        tensors={
            "prompts": torch.tensor([padded(p, p_len, True) for p in prompts]),
            "responses": torch.tensor([padded(r, r_len, False) for r in responses]),
            "attention_mask": torch.tensor(mask),
        },
        non_tensors={
            "data_source": np.array([r["data_source"] for r in rows], dtype=object),
            "reward_model": np.array(
                [{"ground_truth": r["gold"], "style": "rule"} for r in rows], dtype=object
            ),
            "extra_info": np.array([r["extra_info"] for r in rows], dtype=object),
        },
    )


@pytest.mark.slow
def test_verls_reward_managers_score_the_scripted_replies_with_answerx() -> None:
    np = pytest.importorskip("numpy")
    pytest.importorskip("torch")
    verl = pytest.importorskip("verl")
    from scripted import EXPECTED, REPLIES, gold, items, prompt_text, record
    from tiny_model import tiny_tokenizer
    from verl.utils.reward_score import default_compute_score
    from verl.workers.reward_manager import BatchRewardManager, NaiveRewardManager

    sources = {"gsm8k": "openai/gsm8k", "math": "HuggingFaceH4/MATH-500",
               "multiple_choice": "answerx/multiple_choice"}  # fmt: skip
    rows = [
        {"prompt": prompt_text(r), "response": r["reply"], "gold": gold(r),
         "data_source": sources[r["set"]],
         "extra_info": {"index": np.int64(i), "split": "test",
                        **({"choices": np.array(r["choices"], dtype=object)}
                           if r.get("choices") else {})}}
        for i, r in enumerate(items())
    ]  # fmt: skip
    tokenizer = tiny_tokenizer([r["prompt"] for r in rows] + list(REPLIES.values()))
    batch = BatchRewardManager(tokenizer, num_examine=0, compute_score=compute_score_batch)
    naive = NaiveRewardManager(tokenizer, num_examine=0, compute_score=compute_score)
    for manager in (batch, naive):
        out = manager(data_proto(verl, tokenizer, rows), return_dict=True)
        scores = out["reward_tensor"].sum(dim=-1).tolist()
        assert sum(scores) / len(rows) == EXPECTED
        assert [bool(a) for a in out["reward_extra_info"]["acc"]] == [s == 1.0 for s in scores]
    # verl's own scorers, where it has one (GSM8K and MATH; none for multiple choice).
    scored = [r for r in rows if r["data_source"] != sources["multiple_choice"]]
    theirs = [default_compute_score(r["data_source"], r["response"], r["gold"]) for r in scored]
    builtin = sum(float(s["score"] if isinstance(s, dict) else s) for s in theirs) / len(scored)
    record("verl (Batch/Naive managers)", EXPECTED, builtin,
           "default_compute_score, gsm8k + MATH")  # fmt: skip


# --- verl 0.9's reward loop, loaded from a composed ppo_trainer config -------------------


def ppo_config(*overrides: str) -> Any:
    """verl's own trainer config (``ppo_trainer.yaml``) with ``overrides``, composed as
    ``python -m verl.trainer.main_ppo`` composes it."""
    pytest.importorskip("torch")
    verl = pytest.importorskip("verl")
    hydra = pytest.importorskip("hydra")
    from pathlib import Path

    config_dir = str(Path(verl.__file__).parent / "trainer" / "config")
    with hydra.initialize_config_dir(config_dir=config_dir, version_base=None):
        return hydra.compose("ppo_trainer", overrides=list(overrides))


NAIVE = ("reward.custom_reward_function.path=pkg://answerx.integrations.verl",
         "reward.custom_reward_function.name=compute_score")  # fmt: skip
ANSWERX_MANAGER = (
    "reward.reward_manager.source=importlib",
    "reward.reward_manager.name=AnswerxRewardManager",
    "reward.reward_manager.module.path=pkg://answerx.integrations.verl_manager",
)


def score_with(config: Any, response: str, gold: str = "42") -> dict[str, Any]:
    import verl
    from tiny_model import tiny_tokenizer
    from verl.trainer.ppo.reward import load_reward_manager

    tokenizer = tiny_tokenizer(["What is 6 * 7?", response])
    manager = load_reward_manager(config, tokenizer)
    rows = [{"prompt": "What is 6 * 7?", "response": response, "gold": gold,
             "data_source": "openai/gsm8k",
             "extra_info": {"index": 0, "split": "train"}}]  # fmt: skip
    result = manager.loop.run_until_complete(manager.run_single(data_proto(verl, tokenizer, rows)))
    return result  # type: ignore[no-any-return]


@pytest.mark.slow
def test_verl_09_naive_manager_with_compute_score_from_the_trainer_config() -> None:
    out = score_with(ppo_config(*NAIVE), "6 * 7 = 42. The answer is 42.")
    assert out["reward_score"] == 1.0
    assert out["reward_extra_info"]["reason"] == "equivalent"


@pytest.mark.slow
def test_verl_09_answerx_manager_knows_a_response_that_stopped_short_finished() -> None:
    # The response ends without a period after a worked sum: verl's naive manager passes no
    # finish reason, so it reads as cut off; answerx's own sees the response end well before
    # response_length. (A bare "So the total is 42" is finished either way: a short final
    # sentence stating a number is not unfinished when nothing else suggests it.)
    response = "Adding the boxes gives 40 + 2 = 42, so the total is 42"
    config = ppo_config(*ANSWERX_MANAGER, "actor_rollout_ref.rollout.response_length=64")
    assert score_with(config, response)["reward_score"] == 1.0
    assert score_with(ppo_config(*NAIVE), response)["reward_score"] == 0.0


@pytest.mark.slow
def test_verl_09_answerx_manager_grades_a_response_at_the_limit_as_cut_off() -> None:
    response = "So the total is 42"
    ppo_config(*ANSWERX_MANAGER)  # skips where verl, hydra or torch is missing
    from tiny_model import tiny_tokenizer

    width = len(tiny_tokenizer(["What is 6 * 7?", response])(response)["input_ids"])
    config = ppo_config(*ANSWERX_MANAGER, f"actor_rollout_ref.rollout.response_length={width}")
    out = score_with(config, response)
    assert (out["reward_score"], out["reward_extra_info"]["reason"]) == (0.0, "unfinished")


def test_the_readme_names_every_key_compute_score_returns() -> None:
    import re

    readme = documentation_text()
    (listed,) = re.findall(r"Each returns (\w+) keys per response, `\{([^`]*)\}`", readme)
    count, keys = listed
    names = re.findall(r'"(\w+)"', keys)
    result = compute_score("openai/gsm8k", "The answer is 42.", "42")
    assert names == list(result) and count == "seven" and len(result) == 7
