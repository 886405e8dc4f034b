"""answerx inside inspect-ai: ``answerx_scorer`` on hand-built states, in an eval, and in
``inspect score`` (found by name through answerx's ``inspect_ai`` entry point)."""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")
pytest.importorskip("answerx.grading")

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import CORRECT, INCORRECT, Target, answer
from inspect_ai.solver import TaskState, generate

from answerx.integrations.inspect_ai import answerx_scorer
from documentation import documentation_text

MODEL = "mockllm/model"


def state(
    completion: str, *, choices: list[str] | None = None, stop_reason: str = "stop"
) -> TaskState:
    return TaskState(
        model=MODEL,  # type: ignore[arg-type]
        sample_id=1,
        epoch=0,
        input="question",
        messages=[],
        choices=choices,
        output=ModelOutput.from_content(MODEL, completion, stop_reason=stop_reason),  # type: ignore[arg-type]
    )


def score(completion: str, target: str | list[str], **options: Any) -> Any:
    task = options.pop("task", "auto")
    return asyncio.run(answerx_scorer(task=task)(state(completion, **options), Target(target)))


def test_a_restated_number_with_currency_is_correct() -> None:
    result = score("Two shirts cost 2 x $14.50 = $29.00 in total.", "29", task="numeric")
    assert (result.value, result.answer) == (CORRECT, "29")
    assert result.metadata["reason"] == "equivalent"
    assert result.metadata["method"] == "last_number"
    assert result.reason is None


def test_math_answers_are_graded_by_equivalence() -> None:
    result = score("So $x = \\boxed{\\dfrac{1}{2}}$.", "0.5", task="math")
    assert (result.value, result.metadata["method"]) == (CORRECT, "boxed")
    assert "0.5" in result.explanation


def test_a_wrong_answer_is_incorrect_with_reason_different() -> None:
    result = score("The answer is 30.", "29", task="numeric")
    assert (result.value, result.answer, result.metadata["reason"]) == (
        INCORRECT,
        "30",
        "different",
    )
    assert result.reason is None


def test_no_answer_is_told_apart_from_a_wrong_one() -> None:
    empty, vague = score("", "4", task="numeric"), score("I am not sure.", "4", task="numeric")
    assert empty.value == vague.value == INCORRECT
    assert empty.metadata["reason"] == vague.metadata["reason"] == "no_answer"
    assert (empty.reason, vague.reason) == ("no_response", "invalid_response_format")
    assert empty.answer is None and "no answer" in empty.explanation


def test_a_cut_off_output_is_unfinished_not_a_wrong_answer() -> None:
    result = score(
        "<think>First, 7 * 8 = 56, and then", "56", task="numeric", stop_reason="max_tokens"
    )
    assert (result.value, result.answer) == (INCORRECT, None)
    assert result.metadata["reason"] == result.reason == "unfinished"
    assert "cut off" in result.explanation


def test_choices_come_from_the_state() -> None:
    options = ["Paris", "Rome", "Oslo", "Bern"]
    by_letter = score("Thinking it over, the answer is (C).", "C", choices=options)
    by_text = score("It has to be Oslo, so the answer is Oslo.", "C", choices=options)
    assert by_letter.value == by_text.value == CORRECT
    assert by_letter.metadata["task"] == "multiple_choice"


def test_shuffled_choices_are_graded_against_the_letter_the_model_saw() -> None:
    sample_state = state("The answer is (A).", choices=["Paris", "Rome", "Oslo"])
    sample_state.choices.shuffle(__import__("random").Random(3))
    seen = [choice.value for choice in sample_state.choices]
    # The target names Oslo by its place in the sample (C); the model answered Oslo's new letter.
    sample_state.output = ModelOutput.from_content(
        MODEL, f"The answer is ({'ABC'[seen.index('Oslo')]})."
    )
    result = asyncio.run(answerx_scorer()(sample_state, Target("C")))
    assert seen != ["Paris", "Rome", "Oslo"]
    assert result.value == CORRECT


def test_any_of_several_targets_counts() -> None:
    assert score("The answer is 12.", ["10", "12"], task="numeric").value == CORRECT


def test_an_unreadable_target_is_left_unscored() -> None:
    result = score("The answer is 12.", "", task="numeric")
    assert result.metadata["reason"] == "unreadable_gold"
    assert result.reason == "scoring_failed"


def test_an_unknown_task_is_an_error() -> None:
    with pytest.raises(ValueError, match="valid tasks"):
        answerx_scorer(task="gsm8k")


REPLIES = [
    "2 x $14.50 = $29.00, so they cost $29.00.",
    "<think>12 x 3 = 36</think> Sam reads **36** pages.",
    "I cannot help with that.",
]
TARGETS = ["29", "36", "56"]


def reply(text: str) -> ModelOutput:
    output = ModelOutput.from_content(MODEL, text)
    # With usage given, mockllm does not count tokens with tiktoken (which downloads its
    # encoding on first use: no network in tests).
    output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return output


def run_eval(log_dir: Path, scorer: Any = None) -> Any:
    model = get_model(MODEL, custom_outputs=[reply(text) for text in REPLIES])
    task = Task(
        dataset=[Sample(input=f"question {i}", target=t) for i, t in enumerate(TARGETS)],
        solver=generate(),
        scorer=scorer or answerx_scorer(task="numeric"),
    )
    (log,) = eval(task, model=model, log_dir=str(log_dir), display="none", max_samples=1)
    return log


def test_eval_with_the_answerx_scorer(tmp_path: Path) -> None:
    log = run_eval(tmp_path)
    assert log.status == "success"
    scores = {s.target: s.scores["answerx_scorer"] for s in log.samples}
    assert {t: (s.value, s.answer) for t, s in scores.items()} == {
        "29": (CORRECT, "29"),
        "36": (CORRECT, "36"),
        "56": (INCORRECT, None),
    }
    assert scores["56"].metadata["reason"] == "no_answer"
    (metrics,) = log.results.scores
    assert metrics.metrics["accuracy"].value == pytest.approx(2 / 3)


def _entry_point_installed() -> bool:
    return any(ep.name == "answerx" for ep in importlib.metadata.entry_points(group="inspect_ai"))


@pytest.mark.slow
@pytest.mark.skipif(
    not _entry_point_installed(), reason="answerx is not installed (no inspect_ai entry point)"
)
def test_inspect_score_finds_the_scorer_by_name(tmp_path: Path) -> None:
    log = run_eval(tmp_path / "logs", scorer=answer("line"))
    assert [s.scores["answer"].value for s in log.samples] != [CORRECT, CORRECT, INCORRECT]
    rescored = tmp_path / "rescored.eval"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    inspect = Path(sys.executable).with_name("inspect")
    command = [
        str(inspect), "score", log.location, "--scorer", "answerx/answerx_scorer",
        "-S", "task=numeric", "--action", "overwrite", "--output-file", str(rescored),
        "--display", "none",
    ]  # fmt: skip
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    scored = read_eval_log(str(rescored))
    scores = {s.target: s.scores["answerx_scorer"] for s in scored.samples}
    assert {t: (s.value, s.answer) for t, s in scores.items()} == {
        "29": (CORRECT, "29"),
        "36": (CORRECT, "36"),
        "56": (INCORRECT, None),
    }
    # The log was scored by inspect's answer() before: these scores are answerx's.
    assert "answer" not in {name for s in scored.samples for name in s.scores}
    assert scores["29"].metadata["how"] in {"exact", "fraction"}


@pytest.mark.slow
@pytest.mark.skipif(
    not _entry_point_installed(), reason="answerx is not installed (no inspect_ai entry point)"
)
def test_the_readmes_inspect_score_line_runs_without_a_terminal(tmp_path: Path) -> None:
    # Without --action and --overwrite, inspect asks on a terminal and, with none, "Aborted!".
    import re
    import shlex

    readme = documentation_text()
    (line,) = re.findall(r"(?m)^inspect score logs/<log>\.eval --scorer answerx/\S+.*$", readme)
    log = run_eval(tmp_path / "logs", scorer=answer("line"))
    argv = shlex.split(line, comments=True)
    argv[2] = log.location
    argv = [str(Path(sys.executable).with_name("inspect")), *argv[1:], "--display", "none"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    run = subprocess.run(
        argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    scored = read_eval_log(log.location)  # appended in place, beside answer()'s scores
    assert {"answer", "answerx_scorer"} <= {name for s in scored.samples for name in s.scores}


# --- the public route end to end: `inspect eval answerx/answerx_local`, and in Python ----


def scripted(request: Any) -> Any:
    from scripted import reply_to

    from answerx.testing import Reply

    return Reply.text(reply_to(request.text))


def scores_of(log: Any, name: str) -> dict[str, Any]:
    return {str(s.id): s.scores[name].value for s in log.samples}


@pytest.mark.slow
def test_inspect_eval_runs_the_local_task_by_its_registered_name(tmp_path: Path) -> None:
    from scripted import EXPECTED, record

    from answerx.testing import FakeProviderServer

    if not _entry_point_installed():
        pytest.skip("answerx is not installed (no inspect_ai entry point)")
    inspect = Path(sys.executable).with_name("inspect")
    # inspect-ai's OpenAI provider wants openai >= 3.4, which answerx's instructor cannot
    # share an environment with (jiter): the fake server speaks Anthropic's wire too.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
           "ANTHROPIC_API_KEY": "sk-fake-not-a-key"}  # fmt: skip
    with FakeProviderServer(default=scripted) as fake:
        command = [
            str(inspect), "eval", "answerx/answerx_local", "--model", "anthropic/claude-fake",
            "--model-base-url", fake.anthropic_base_url, "--log-dir", str(tmp_path / "cli"),
            "--display", "none", "--max-connections", "1", "--max-tokens", "512",
        ]  # fmt: skip
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
        # The same items in Python: the task object, and inspect's built-in match() beside it.
        from inspect_ai.scorer import match

        from answerx.integrations.inspect_ai import answerx_local, local_samples

        model = get_model("anthropic/claude-fake", base_url=fake.anthropic_base_url,
                          api_key="sk-fake-not-a-key")  # fmt: skip
        options = {"display": "none", "max_connections": 1, "max_tokens": 512}
        (ours,) = eval(answerx_local(), model=model, log_dir=str(tmp_path / "py"), **options)
        builtin_task = Task(dataset=local_samples(), solver=generate(), scorer=match())
        (builtin,) = eval(builtin_task, model=model, log_dir=str(tmp_path / "builtin"), **options)
    (cli_log_file,) = (tmp_path / "cli").glob("*.eval")
    cli = read_eval_log(str(cli_log_file))
    assert scores_of(cli, "answerx_scorer") == scores_of(ours, "answerx_scorer")
    answerx_accuracy = ours.results.scores[0].metrics["accuracy"].value
    assert answerx_accuracy == pytest.approx(EXPECTED)
    right = {i for i, v in scores_of(ours, "answerx_scorer").items() if v == CORRECT}
    assert right == {"gsm-1", "gsm-2", "math-1", "math-2", "mc-1", "mc-2"}
    builtin_accuracy = builtin.results.scores[0].metrics["accuracy"].value
    record("inspect-ai (CLI and Python)", answerx_accuracy, builtin_accuracy, "match()")
