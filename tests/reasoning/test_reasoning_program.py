"""program_of_thought: the model's program, run in the sandbox only with execute_code=True."""

from __future__ import annotations

import asyncio

import pytest
from reasoning_script import ScriptedModel

from answerx.reasoning import get_approach
from answerx.reasoning.sandbox import isolation_problem
from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer

# execute_code=True is refused where the sandbox cannot isolate (tests/reasoning/test_sandbox.py).
needs_isolation = pytest.mark.skipif(
    isolation_problem() is not None, reason=f"no isolated sandbox here: {isolation_problem()}"
)


def _program(code: str, stated: str = "400") -> str:
    return f"I will multiply.\n```python\n{code}\n```\n<answer>{stated}</answer>"


def test_the_program_is_not_run_by_default(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    model.default = _program("print(17 * 23)")

    response = get_approach("program_of_thought", manager, strategy="two_stage").execute(
        "What is 17 * 23?"
    )

    assert (response.extracted_answer, response.metadata.stage) == ("400", "deterministic")
    assert "sandbox_termination" not in response.metadata.model_dump()


@pytest.mark.parametrize("run", ["execute", "aexecute"])
@needs_isolation
def test_with_execute_code_the_printed_line_is_the_answer(
    manager: InstructorClientManager, model: ScriptedModel, run: str
) -> None:
    model.default = _program("for n in (17, 23):\n    print('factor', n)\nprint(17 * 23)")
    approach = get_approach(
        "program_of_thought", manager, strategy="two_stage", task="numeric", execute_code=True
    )

    if run == "execute":
        response = approach.execute("What is 17 * 23?")
    else:
        response = asyncio.run(approach.aexecute("What is 17 * 23?"))

    assert (response.extracted_answer, response.metadata.stage) == ("391", "code_execution")
    extraction = response.extraction
    assert (extraction.method, extraction.candidate) == ("output_line", "391")
    assert extraction.raw_output == "factor 17\nfactor 23\n391\n"
    assert extraction.span is not None
    assert extraction.raw_output[slice(*extraction.span)] == "391"
    meta = response.metadata.model_dump()
    assert (meta["sandbox_termination"], meta["sandbox_message"]) == ("ok", "")
    assert meta["stated_answer"] == "400"  # what the model claimed, for comparison
    assert meta["calls"] == 1  # running the program is not an LLM call


@needs_isolation
def test_the_structured_strategy_runs_the_code_field(
    manager: InstructorClientManager, fake_provider: FakeProviderServer, model: ScriptedModel
) -> None:
    model.structured = {
        "full_reasoning_text": "Multiply.", "code": "```python\nprint(6 * 7)\n```",
        "answer_value": "41", "confidence": 0.5,
    }  # fmt: skip

    response = get_approach("program_of_thought", manager, execute_code=True).execute("6 * 7?")

    assert (response.extracted_answer, response.metadata.stage) == ("42", "code_execution")
    assert fake_provider.chat_requests[0].tool_names == ["ProgramOfThoughtExtraction"]


@pytest.mark.parametrize(
    ("code", "termination", "message"),
    [
        ("while True:\n    pass", "timeout", "no result within 0.5 s"),
        ("x = bytearray(2**34)\nprint(x[0])", "memory_limit", "memory limit of 128 MB"),
        ("import os\nprint(os.environ['OPENAI_API_KEY'])", "error", "KeyError: 'OPENAI_API_KEY'"),
        ("raise ValueError('boom')", "error", "ValueError: boom"),
        ("print('many')", "ok", "which is not a single number"),
        ("x = 1", "ok", "the program printed nothing"),
    ],
)
@needs_isolation
def test_a_failed_run_falls_back_to_the_stated_answer_and_says_why(
    manager: InstructorClientManager,
    model: ScriptedModel,
    monkeypatch: pytest.MonkeyPatch,
    code: str,
    termination: str,
    message: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-should-never-leak-0123456789")
    model.default = _program(code, stated="391")
    approach = get_approach(
        "program_of_thought", manager, strategy="two_stage", task="numeric",
        execute_code=True, code_time_limit_s=0.5, code_memory_limit_mb=128,
    )  # fmt: skip

    response = approach.execute("What is 17 * 23?")

    assert (response.extracted_answer, response.metadata.stage) == ("391", "deterministic")
    meta = response.metadata.model_dump()
    assert meta["sandbox_termination"] == termination
    assert message in meta["sandbox_message"]
    assert "sk-live" not in response.model_dump_json()


@needs_isolation
def test_the_program_sees_no_api_key_of_the_environment(
    manager: InstructorClientManager, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-should-never-leak-0123456789")
    # Only the native thread pools' *_NUM_THREADS=1 may be set (the sandbox's fallback).
    model.default = _program(
        "import os\nprint(os.environ.get('OPENAI_API_KEY', 'no key'), "
        "len([k for k in os.environ if not k.endswith('_NUM_THREADS')]))"
    )

    response = get_approach(
        "program_of_thought", manager, strategy="two_stage", task="text", execute_code=True
    ).execute("Which key do you see?")

    assert response.extracted_answer == "no key 0"
    assert "sk-live" not in response.model_dump_json()


@needs_isolation
def test_a_reply_without_a_program_keeps_the_stated_answer(
    manager: InstructorClientManager, model: ScriptedModel
) -> None:
    model.default = "It is 391.\n<answer>391</answer>"

    response = get_approach(
        "program_of_thought", manager, strategy="two_stage", execute_code=True
    ).execute("What is 17 * 23?")

    assert response.extracted_answer == "391"
    assert response.metadata.model_dump()["sandbox_message"] == "the reply holds no program to run"
