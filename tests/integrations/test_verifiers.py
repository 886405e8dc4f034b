"""answerx for verifiers: the reward called as a Rubric calls it, and a real Rubric run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from answerx.errors import ConfigError
from answerx.integrations.verifiers import answerx_extracted, answerx_reward

COMPLETION = [{"role": "assistant", "content": "6 * 7 = 42.\n#### 42"}]


def rubric_call(func: Any, **state: Any) -> float:
    # A Rubric passes every score object to a function taking **kwargs: prompt, completion,
    # answer, state, info, task (the verifiers task name) and its class objects (parser).
    objects = {"prompt": [{"role": "user", "content": "6 * 7?"}], "task": "default",
               "info": {}, "parser": None, **state}  # fmt: skip
    objects["state"] = objects
    return float(func(**objects))


def test_the_reward_is_one_for_the_gold_answer_and_keeps_the_verdict_in_the_state() -> None:
    state: dict[str, Any] = {"completion": COMPLETION, "answer": "42"}
    assert rubric_call(answerx_reward, **state) == 1.0
    assert rubric_call(answerx_reward, completion=COMPLETION, answer="41") == 0.0


def test_task_and_choices_come_from_the_rows_info() -> None:
    completion = [{"role": "assistant", "content": "The answer is Venus."}]
    info = {"task": "multiple_choice", "choices": ["Mars", "Venus"]}
    assert rubric_call(answerx_reward, completion=completion, answer="B", info=info) == 1.0


def test_extracted_is_a_metric_of_whether_anything_was_stated() -> None:
    silent = [{"role": "assistant", "content": "Let me think about this."}]
    assert rubric_call(answerx_extracted, completion=COMPLETION, answer="42") == 1.0
    assert (
        rubric_call(answerx_extracted, completion=silent, answer="42", info={"task": "numeric"})
        == 0.0
    )


def test_a_real_rubric_scores_a_rollout_with_answerx() -> None:
    vf = pytest.importorskip("verifiers")
    if not hasattr(vf, "Rubric"):
        pytest.skip("verifiers 0.4+ has only the v1 stack (no Parser/Rubric)")
    from answerx.integrations.verifiers import AnswerxParser

    parser = AnswerxParser(task="numeric")
    assert isinstance(parser, vf.Parser)
    assert parser.parse_answer(COMPLETION) == "42"
    rubric = vf.Rubric(funcs=[answerx_reward], parser=parser)
    rubric.add_metric(answerx_extracted)
    rubric.add_reward_func(parser.get_format_reward_func(), weight=0.0)
    state = {"prompt": [{"role": "user", "content": "6 * 7?"}], "completion": COMPLETION,
             "answer": "42", "task": "default", "info": {}}  # fmt: skip
    asyncio.run(rubric.score_rollout(state))
    assert state["reward"] == 1.0
    assert state["metrics"] == {
        "answerx_reward": 1.0, "answerx_extracted": 1.0, "format_reward_func": 1.0
    }  # fmt: skip
    assert state["answerx"]["reason"] == "equivalent"  # type: ignore[index]


def test_without_verifiers_the_parser_asks_for_it() -> None:
    try:
        import verifiers as vf
    except ImportError:
        vf = None
    if vf is not None and hasattr(vf, "Parser"):
        pytest.skip("verifiers with its Parser API is installed")
    from answerx.integrations import verifiers as integration

    with pytest.raises(ConfigError, match=r"verifiers<0\.4"):
        integration.AnswerxParser  # noqa: B018


class MathParser:
    """Stands in for ``AnswerxParser(task="math")`` where verifiers is not installed: the
    reward asks any parser for its answerx options."""

    def answerx_options(self) -> dict[str, Any]:
        return {"task": "math", "choices": None, "numbers": None}


SQRT = [{"role": "assistant", "content": "The result is $\\sqrt{16}$."}]


def test_the_reward_reads_with_the_rubrics_parser() -> None:
    # auto reads a bare "4" as numeric and takes the 16 under the root; math reads \sqrt{16}.
    assert rubric_call(answerx_reward, completion=SQRT, answer="4") == 0.0
    assert rubric_call(answerx_reward, completion=SQRT, answer="4", parser=MathParser()) == 1.0


def test_the_rows_info_overrides_the_parsers_task_and_options() -> None:
    completion = [{"role": "assistant", "content": "The answer is Venus."}]
    info = {"task": "multiple_choice", "choices": ["Mars", "Venus"]}
    assert (
        rubric_call(answerx_reward, completion=completion, answer="B", info=info,
                    parser=MathParser())
        == 1.0
    )  # fmt: skip


def test_a_real_rubric_uses_the_parser_it_was_given() -> None:
    vf = pytest.importorskip("verifiers")
    if not hasattr(vf, "Rubric"):
        pytest.skip("verifiers 0.4+ has only the v1 stack (no Parser/Rubric)")
    from answerx.integrations.verifiers import AnswerxParser

    rubric = vf.Rubric(funcs=[answerx_reward], parser=AnswerxParser(task="math"))
    states = [
        {"prompt": [{"role": "user", "content": "sqrt(16)?"}], "completion": SQRT,
         "answer": "4", "task": "default", "info": {}},
        {"prompt": [{"role": "user", "content": "Planet?"}],
         "completion": [{"role": "assistant", "content": "The answer is Venus."}],
         "answer": "B", "task": "default",
         "info": {"task": "multiple_choice", "choices": ["Mars", "Venus"]}},
    ]  # fmt: skip
    for state in states:
        asyncio.run(rubric.score_rollout(state))
    assert [state["reward"] for state in states] == [1.0, 1.0]
    assert states[0]["answerx"]["how"] != "none"  # type: ignore[index]


def test_a_rubric_on_the_scripted_replies_beside_verifiers_math_rubric() -> None:
    vf = pytest.importorskip("verifiers")
    if not hasattr(vf, "Rubric"):
        pytest.skip("verifiers 0.4+ has only the v1 stack (no Parser/Rubric)")
    from scripted import EXPECTED, gold, items, prompt_text, record

    from answerx.integrations.verifiers import AnswerxParser

    def states() -> list[dict[str, Any]]:
        return [
            {"prompt": [{"role": "user", "content": prompt_text(r)}],
             "completion": [{"role": "assistant", "content": r["reply"]}],
             "answer": gold(r), "task": "default",
             "info": {"task": r["task"], "choices": r.get("choices")}}
            for r in items()
        ]  # fmt: skip

    def mean_reward(rubric: Any) -> float:
        scored = states()
        for state in scored:
            asyncio.run(rubric.score_rollout(state))
        return sum(float(s["reward"]) for s in scored) / len(scored)

    ours = mean_reward(vf.Rubric(funcs=[answerx_reward], parser=AnswerxParser(task="math")))
    assert ours == EXPECTED
    record("verifiers (Rubric, AnswerxParser)", ours, mean_reward(vf.MathRubric()),
           "vf.MathRubric")  # fmt: skip


@pytest.mark.slow
def test_evaluate_sync_grades_each_rows_own_task_from_info_answerx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A SingleTurnEnv evaluated as its users evaluate it, against the fake provider: the
    per-row task rides in ``info["answerx"]`` (verifiers 0.3 takes ``info["task"]`` for a
    task payload of its own and stops the rollout), and an untruncated reply stopped."""
    vf = pytest.importorskip("verifiers")
    if not hasattr(vf, "SingleTurnEnv"):
        pytest.skip("verifiers 0.4+ has only the v1 stack (no SingleTurnEnv)")
    datasets = pytest.importorskip("datasets")
    from verifiers.legacy.types import ClientConfig

    from answerx.integrations.verifiers import AnswerxParser
    from answerx.testing import FakeProviderServer, RecordedRequest, Reply

    replies = {"red planet": "Iron oxide makes it red. The answer is Mars",
               "6 * 7": "So the total is 42"}  # fmt: skip

    def reply(request: RecordedRequest) -> Reply:
        return Reply.text(next(text for key, text in replies.items() if key in request.text))

    rows = [
        {"question": "Which is the red planet?", "answer": "B",
         "info": {"answerx": {"task": "multiple_choice", "choices": ["Venus", "Mars"]}}},
        {"question": "What is 6 * 7?", "answer": "42", "info": {"answerx": {"task": "numeric"}}},
    ]  # fmt: skip
    parser = AnswerxParser()
    env = vf.SingleTurnEnv(
        eval_dataset=datasets.Dataset.from_list(rows), parser=parser,
        rubric=vf.Rubric(funcs=[answerx_reward], parser=parser),
    )  # fmt: skip
    monkeypatch.setenv("ANSWERX_FAKE_KEY", "sk-fake-not-a-key")
    with FakeProviderServer(default=reply) as fake:
        config = ClientConfig(
            api_key_var="ANSWERX_FAKE_KEY", api_base_url=fake.openai_base_url, max_retries=0
        )
        outputs = env.evaluate_sync(client=config, model="fake-model")["outputs"]
    assert [o["reward"] for o in outputs] == [1.0, 1.0]
    assert [o["is_truncated"] for o in outputs] == [False, False]
