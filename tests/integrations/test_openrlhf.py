"""OpenRLHF: the file-mode reward function and the prompt stripping of its queries."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from answerx.integrations.openrlhf import reward_file, reward_func, rewards, strip_prompt

PROMPT = "<|im_start|>user\nWhat is 6 * 7?<|im_end|>\n<|im_start|>assistant\n"
QUERIES = [
    PROMPT + "<think>6 * 7 = 42</think> The answer is \\boxed{42}.<|im_end|><|endoftext|>",
    PROMPT + "It is 41.<|im_end|>",
]


@pytest.mark.parametrize(
    ("query", "prompt", "response"),
    [
        (QUERIES[0], PROMPT, "<think>6 * 7 = 42</think> The answer is \\boxed{42}."),
        ("<s>[INST] 2+2? [/INST] It is 4.</s>", "<s>[INST] 2+2? [/INST]", "It is 4."),
        ("<｜User｜>2+2?<｜Assistant｜>4<｜end▁of▁sentence｜>", "<｜User｜>2+2?", "4"),
        ("no prompt here: 4", "", "no prompt here: 4"),
    ],
)
def test_the_prompt_and_special_tokens_are_stripped_from_a_query(
    query: str, prompt: str, response: str
) -> None:
    assert strip_prompt(query, prompt) == response


def test_rewards_scores_and_extra_logs_come_back_per_query() -> None:
    result = rewards(QUERIES, [PROMPT, PROMPT], ["42", "42"])
    assert result["rewards"] == result["scores"] == [1.0, 0.0]
    assert result["extra_logs"]["answerx_extraction_rate"] == 1.0
    assert result["extra_logs"]["answerx_different"] == 0.5


def test_the_written_file_is_what_openrlhfs_file_mode_loads(tmp_path: Path) -> None:
    path = tmp_path / "reward_func.py"
    path.write_text(reward_file("reward_func.py", task="numeric"), encoding="utf-8")
    # OpenRLHF: importlib.util.spec_from_file_location, then module.reward_func(queries,
    # prompts, labels).
    spec = importlib.util.spec_from_file_location("reward_func", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.reward_func(QUERIES, [PROMPT, PROMPT], ["42", "42"])
    assert [float(r) for r in result["rewards"]] == [1.0, 0.0]
    assert module.TASK == "numeric"


def test_the_file_mode_function_takes_extra_keyword_arguments() -> None:
    result = reward_func(QUERIES[:1], [PROMPT], ["42"], step=3)
    assert [float(r) for r in result["rewards"]] == [1.0]
