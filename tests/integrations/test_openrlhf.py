"""OpenRLHF: the file-mode reward function and the prompt stripping of its queries."""

from __future__ import annotations

import asyncio
import importlib.util
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from answerx.integrations.openrlhf import reward_file, reward_func, rewards, strip_prompt
from documentation import documentation_text

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


def test_a_label_object_gives_its_row_a_task_options_and_numbers() -> None:
    result = rewards(
        ["The answer is Venus.", "The result is $\\sqrt{16}$.", "Answer: (10 - 7) * (4 + 4)"],
        None,
        [{"answer": "B", "task": "multiple_choice", "choices": ["Mars", "Venus"]},
         {"answer": "4", "task": "math"},
         {"answer": None, "task": "game24", "numbers": [4, 4, 7, 10]}],
    )  # fmt: skip
    assert result["rewards"] == [1.0, 1.0, 1.0]


def test_metas_carry_a_rows_task_when_the_label_is_a_bare_answer() -> None:
    result = reward_func(["The result is $\\sqrt{16}$."], [""], ["4"], metas=[{"task": "math"}])
    assert [float(r) for r in result["rewards"]] == [1.0]
    assert [float(r) for r in reward_func(["The result is $\\sqrt{16}$."], [""], ["4"])[
        "rewards"]] == [0.0]  # fmt: skip


# --- remote mode: `answerx serve --reward-task`, POSTed to as OpenRLHF posts --------------


@pytest.fixture
def reward_server() -> Iterator[Callable[..., str]]:
    """Start ``answerx serve`` with the given options; its /v1/reward URL."""
    started: list[subprocess.Popen[str]] = []

    def start(*options: str) -> str:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        process = subprocess.Popen(
            [sys.executable, "-m", "answerx", "serve", "--port", str(port), *options],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        started.append(process)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(url + "/healthz", timeout=1)
                return url + "/v1/reward"
            except httpx.TransportError:
                assert process.poll() is None, "answerx serve exited early"
                assert time.monotonic() < deadline, "answerx serve did not answer"
                time.sleep(0.2)

    yield start
    for process in started:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


SQRT = "The result is $\\sqrt{16}$.<|im_end|>"


@pytest.mark.slow
def test_the_server_grades_with_the_reward_task_it_was_started_with(
    reward_server: Callable[..., str],
) -> None:
    payload = {"query": [PROMPT + SQRT], "prompts": [PROMPT], "labels": ["4"]}
    default = reward_server()
    math = reward_server("--reward-task", "math")
    assert httpx.post(default, json=payload).json()["rewards"] == [0.0]  # auto: 16 is read
    assert httpx.post(math, json=payload).json()["rewards"] == [1.0]
    # A request may name its own task, and a label object its row's.
    assert httpx.post(default, json={**payload, "task": "math"}).json()["rewards"] == [1.0]
    labelled = {**payload, "labels": [{"answer": "4", "task": "math"}]}
    assert httpx.post(default, json=labelled).json()["rewards"] == [1.0]


@pytest.mark.slow
def test_openrlhfs_own_executor_in_remote_and_file_modes(
    reward_server: Callable[..., str], tmp_path: Path
) -> None:
    """OpenRLHF's SingleTurnAgentExecutor (where OpenRLHF is installed) fetches the rewards
    of the scripted replies from ``answerx serve`` and from the written reward file."""
    agent = pytest.importorskip("openrlhf.utils.agent")
    from scripted import EXPECTED, gold, items, prompt_text, record

    rows = items()
    prompts = [f"<|im_start|>user\n{prompt_text(r)}<|im_end|>\n<|im_start|>assistant\n"
               for r in rows]  # fmt: skip
    queries = [p + r["reply"] + "<|im_end|>" for p, r in zip(prompts, rows, strict=True)]
    labels = [{"answer": gold(r), "task": r["task"], "choices": r.get("choices")} for r in rows]
    path = tmp_path / "reward_func.py"
    path.write_text(reward_file(path.name), encoding="utf-8")
    remote = agent.SingleTurnAgentExecutor(remote_rm_url=reward_server())
    local = agent.SingleTurnAgentExecutor(remote_rm_url=str(path))
    (over_http,) = asyncio.run(remote._fetch_rewards_via_http(queries, prompts, labels))
    by_file = asyncio.run(local._fetch_rewards_via_func(queries, prompts, labels))
    http_score = sum(over_http["rewards"]) / len(rows)
    file_score = sum(float(r["rewards"][0]) for r in by_file) / len(rows)
    assert http_score == file_score == EXPECTED
    assert over_http["extra_logs"]["answerx_extraction_rate"] == pytest.approx(11 / 12)
    # OpenRLHF's own math grading (\boxed{} answers, sympy) on the same replies.
    from openrlhf.utils.math_utils import extract_boxed_answer, grade_answer

    theirs = [grade_answer(extract_boxed_answer(r["reply"]) or "", gold(r)) for r in rows]
    record("OpenRLHF (remote and file)", http_score, sum(theirs) / len(rows),
           "openrlhf.utils.math_utils boxed grading")  # fmt: skip


def test_serve_help_names_the_reward_endpoint_and_its_task_option() -> None:
    from typer.testing import CliRunner

    from answerx.cli import app

    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for text in ("/v1/reward", "--remote_rm_url", "--reward-task", "--reward-choices-field"):
        assert text in result.output


def test_reward_settings_come_from_the_environment_and_a_bad_task_is_named() -> None:
    from answerx.errors import ConfigError
    from answerx.service.verify_schemas import RewardSettings

    settings = RewardSettings.from_env(
        {"ANSWERX_REWARD_TASK": "math", "ANSWERX_REWARD_CHOICES_FIELD": "options"}
    )
    assert (settings.task, settings.fields.choices) == ("math", "options")
    with pytest.raises(ConfigError, match="ANSWERX_REWARD_TASK"):
        RewardSettings.from_env({"ANSWERX_REWARD_TASK": "gsm8k"})


def test_the_endpoint_reads_options_under_the_configured_field_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fastapi.testclient import TestClient

    from answerx.service.app import create_app

    monkeypatch.setenv("ANSWERX_REWARD_CHOICES_FIELD", "options")
    client = TestClient(
        create_app(), "http://localhost"
    )  # a loopback Host, as a local trainer sends
    body = {"query": ["The answer is Venus."],
            "labels": [{"answer": "B", "options": ["Mars", "Venus"]}]}  # fmt: skip
    assert client.post("/v1/reward", json=body).json()["rewards"] == [1.0]
    bad = {**body, "labels": [{"answer": "B", "task": "gsm8k"}]}
    assert client.post("/v1/reward", json=bad).status_code in {400, 422}


def test_the_readmes_remote_reward_server_line_uses_options_serve_has() -> None:
    # A reward server on another node: beyond loopback, answering the trainer's host name.
    import re
    import shlex

    import typer

    from answerx.cli import app

    readme = documentation_text()
    (line,) = re.findall(r"`(answerx serve --host 0\.0\.0\.0 --allowed-host [^`]+)`", readme)
    options = [arg for arg in shlex.split(line) if arg.startswith("--")]
    assert {"--allowed-host", "--host"} <= set(options)
    assert "--allow-unauthenticated" in readme[readme.index(line) : readme.index(line) + 200]
    # Read from the command itself: the rendered --help wraps and elides to the width of
    # whatever console an earlier test left behind.
    serve = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    shown = {opt for p in serve.params if not p.hidden for opt in p.opts}
    for option in [*options, "--allow-unauthenticated"]:
        assert option in shown
