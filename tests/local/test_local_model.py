"""The bundled local model (SmolLM2-135M-Instruct via llama.cpp) through the real manager.

Marker ``local_model``: these start a real llama.cpp server on 127.0.0.1. They
check that the reply is a valid object and that CallInfo is real, never that a
135M model's answer is right (deterministic extraction and the fake server
cover correctness). Skipped when the ``local`` extra is not installed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from fractions import Fraction

import pytest

pytest.importorskip("llama_cpp", reason="the 'local' extra (llama-cpp-python) is not installed")

from answerx.local import LocalModelServer, server_answers, stop_started_servers
from answerx.structured import InstructorClientManager

pytestmark = pytest.mark.local_model

RAW = "Let me compute. 12 * 4 = 48, then 48 - 6 = 42. So the answer is 42."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it has stopped running, which is what matters.
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"


def _wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture(scope="module")
def server() -> Iterator[LocalModelServer]:
    with LocalModelServer() as running:
        yield running


@pytest.fixture(autouse=True)
def _no_configured_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSWERX_LOCAL_URL", raising=False)


@pytest.mark.parametrize("mode", ["tools", "json_with_schema"])
def test_the_local_model_returns_a_valid_object_in_tools_and_json_schema_modes(
    server: LocalModelServer, mode: str
) -> None:
    manager = InstructorClientManager("local", base_url=server.base_url, modes=[mode])
    extraction, info = manager.extract_structured(RAW, "none", task="numeric", temperature=0)
    float(extraction.answer_value)  # the numeric task bound into the model: a number
    assert 0.0 <= extraction.confidence <= 1.0
    assert info.mode == mode and info.modes_tried[-1].ok
    assert info.usage.input_tokens > 0 and info.usage.output_tokens > 0
    assert info.attempts >= 1 and info.latency_s > 0


@pytest.mark.parametrize(
    ("task", "choices", "allowed"),
    [
        ("boolean", None, {"yes", "no"}),
        ("multiple_choice", ["London", "Paris", "Rome"], set("ABC")),
    ],
)
def test_closed_answer_sets_are_enforced_by_the_schema_grammar(
    server: LocalModelServer, task: str, choices: list[str] | None, allowed: set[str]
) -> None:
    manager = InstructorClientManager("local", base_url=server.base_url, modes=["json_with_schema"])
    raw = "Paris is the capital of France, so the answer is (B)." if choices else "91 = 7 * 13. No."
    extraction, _ = manager.extract_structured(
        raw, "none", task=task, choices=choices, temperature=0
    )
    assert extraction.answer_value in allowed


def test_markdown_json_mode_is_constrained_by_a_grammar_and_gives_a_valid_object(
    server: LocalModelServer,
) -> None:
    # Without the grammar a 135M model copies the schema from the prompt back.
    manager = InstructorClientManager("local", base_url=server.base_url, modes=["md_json"])
    extraction, info = manager.extract_structured(RAW, "none", task="numeric", temperature=0)
    Fraction(extraction.answer_value)  # a number, as the schema's pattern allows: 42, -3.5, 1/2
    assert info.mode == "md_json" and info.usage.output_tokens > 0


def test_the_full_chain_of_the_local_provider_gives_a_valid_object(
    server: LocalModelServer,
) -> None:
    manager = InstructorClientManager("local", base_url=server.base_url)
    extraction, info = manager.extract_structured(
        RAW, "chain_of_thought", task="numeric", temperature=0
    )
    assert extraction.answer_value and info.mode in ("tools", "json_with_schema", "md_json")
    assert info.usage.total_tokens > 0


def test_complete_text_generates_with_real_usage(server: LocalModelServer) -> None:
    manager = InstructorClientManager("local", base_url=server.base_url)
    text, info = manager.complete_text(
        [{"role": "user", "content": "Say hello in one word."}], max_tokens=8, temperature=0
    )
    assert text.strip() and info.usage.output_tokens > 0


def test_the_local_provider_starts_its_server_when_nothing_answers_and_stops_it() -> None:
    manager = InstructorClientManager("local")  # no URL: answerx starts the bundled model
    _, info = manager.extract_structured(RAW, "none", temperature=0)
    assert manager.base_url is not None and server_answers(manager.base_url)
    assert info.usage.total_tokens > 0
    stop_started_servers()
    assert not server_answers(manager.base_url, timeout=0.5)


def test_a_server_is_stopped_when_the_block_using_it_raises() -> None:
    pid = None
    with pytest.raises(RuntimeError, match="boom"), LocalModelServer() as running:
        assert running.process is not None
        pid = running.process.pid
        raise RuntimeError("boom")
    assert pid is not None and _wait_gone(pid, 2.0)


_CHILD = """
import sys, time
from answerx.local import LocalModelServer
server = LocalModelServer().start()
print(server.process.pid, flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="parent-death signal is Linux-only")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_no_orphan_server_when_the_process_that_started_it_dies(sig: signal.Signals) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD],
        stdout=subprocess.PIPE,
        text=True,
        # SIGINT as a terminal gives it: a suite run in the background passes it on ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert child.stdout is not None
        server_pid = int(child.stdout.readline())
        assert _alive(server_pid)
        child.send_signal(sig)
        child.wait(30)
        assert _wait_gone(server_pid), f"server {server_pid} outlived its parent ({sig.name})"
    finally:
        if child.poll() is None:
            child.kill()
