"""The program_of_thought sandbox: model-written Python in a separate, limited process.

These check containment of accidents (endless loops, memory bombs, environment
reads, littered working directories), the sandbox's whole promise; it is not a
security boundary. Limits are kept short so the file runs in a few seconds.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from answerx.errors import ConfigError
from answerx.reasoning.sandbox import MAX_OUTPUT_BYTES, SandboxResult, arun_python, run_python

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox's limits need Linux")

FAKE_KEY = "sk-parent-0123456789abcdef"


def test_what_the_program_prints_is_its_output() -> None:
    result = run_python("x = 6 * 7\nprint(f'The answer is {x}')")

    assert result == SandboxResult(
        stdout="The answer is 42\n",
        stderr="",
        returncode=0,
        termination="ok",
        message="",
        elapsed_s=result.elapsed_s,
    )
    assert result.ok


def test_an_endless_loop_is_stopped_at_the_time_limit() -> None:
    started = time.monotonic()

    result = run_python("while True:\n    pass", time_limit_s=1.0)

    assert time.monotonic() - started < 3.0
    assert result.termination == "timeout"
    assert "1 s" in result.message
    assert not result.ok


def test_a_sleeping_program_is_stopped_at_the_time_limit_too() -> None:
    result = run_python("import time\nprint('started', flush=True)\ntime.sleep(60)", time_limit_s=1)

    assert (result.termination, result.stdout) == ("timeout", "started\n")


def test_a_huge_allocation_hits_the_memory_limit() -> None:
    result = run_python("x = bytearray(2**34)\nprint('allocated')", memory_limit_mb=128)

    assert result.termination == "memory_limit"
    assert "MemoryError" in result.message and "128 MB" in result.message
    assert result.stdout == ""


def test_a_growing_list_hits_the_memory_limit() -> None:
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(10**6))"

    result = run_python(code, time_limit_s=5, memory_limit_mb=128)

    assert result.termination == "memory_limit"


def test_the_program_sees_an_empty_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)

    result = run_python("import os\nprint(dict(os.environ))\nprint(os.environ.get('HOME'))")

    assert result.termination == "ok"
    assert result.stdout == "{}\nNone\n"
    assert FAKE_KEY not in result.stdout + result.stderr


def test_the_program_runs_in_isolated_mode() -> None:
    result = run_python("import sys\nprint(sys.flags.isolated, sys.flags.ignore_environment)")

    assert result.stdout == "1 1\n"


def test_the_program_runs_in_a_fresh_directory_removed_afterwards() -> None:
    code = (
        "import os\n"
        "open('scratch.txt', 'w').write('left behind')\n"
        "print(os.getcwd())\n"
        "print(sorted(os.listdir('.')))"
    )

    first = run_python(code)
    second = run_python(code)

    cwd, listing = first.stdout.splitlines()
    assert listing == "['program.py', 'scratch.txt']"  # nothing from earlier runs
    assert Path(cwd) != Path.cwd()
    assert not Path(cwd).exists()
    assert second.stdout.splitlines()[0] != cwd


def test_a_syntax_error_is_an_error_with_the_exception_as_message() -> None:
    result = run_python("print('unclosed'")

    assert result.termination == "error"
    assert result.message.startswith("SyntaxError")
    assert result.returncode == 1


def test_an_exception_gives_the_last_traceback_line() -> None:
    result = run_python("print('partial')\nraise ValueError('no solution')")

    assert (result.termination, result.message) == ("error", "ValueError: no solution")
    assert result.stdout == "partial\n"
    assert "Traceback" in result.stderr


def test_a_nonzero_exit_status_without_a_traceback() -> None:
    result = run_python("import sys\nsys.exit(3)")

    assert (result.termination, result.returncode, result.message) == ("error", 3, "exit status 3")


def test_reading_stdin_does_not_hang() -> None:
    result = run_python("print(input())", time_limit_s=2)

    assert result.termination == "error"
    assert result.message.startswith("EOFError")


def test_endless_output_is_capped_to_its_last_part() -> None:
    result = run_python("while True:\n    print('spam' * 100)", time_limit_s=1)

    assert result.termination == "timeout"
    assert result.truncated
    assert 0 < len(result.stdout.encode()) <= MAX_OUTPUT_BYTES


def test_the_cpu_limit_is_a_timeout_too() -> None:
    # The program lowers its own CPU limit to one second, well inside the wall clock.
    code = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (1, resource.getrlimit(resource.RLIMIT_CPU)[1]))\n"
        "while True:\n    pass"
    )

    result = run_python(code, time_limit_s=10)

    assert result.termination == "timeout"
    assert "CPU time limit" in result.message
    assert result.elapsed_s < 5


def test_a_background_child_does_not_hold_up_the_result() -> None:
    code = "import subprocess\nsubprocess.Popen(['sleep', '30'])\nprint('done')"
    started = time.monotonic()

    result = run_python(code, time_limit_s=5)

    assert (result.termination, result.stdout) == ("ok", "done\n")
    assert time.monotonic() - started < 4


def test_the_async_sandbox_contains_the_same_accidents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)

    async def run_all() -> list[SandboxResult]:
        return list(
            await asyncio.gather(
                arun_python("print(sum(range(10)))"),
                arun_python("while True:\n    pass", time_limit_s=1),
                arun_python("x = bytearray(2**34)"),
                arun_python("import os\nprint(dict(os.environ))"),
                arun_python("import subprocess\nsubprocess.Popen(['sleep', '30'])\nprint('ok')"),
            )
        )

    started = time.monotonic()
    printed, looped, bomb, environment, background = asyncio.run(run_all())

    assert time.monotonic() - started < 4  # run side by side, none waits for another
    assert (printed.termination, printed.stdout) == ("ok", "45\n")
    assert looped.termination == "timeout"
    assert bomb.termination == "memory_limit"
    assert environment.stdout == "{}\n"
    assert (background.termination, background.stdout) == ("ok", "ok\n")


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"time_limit_s": 0}, "time_limit_s"),
        ({"memory_limit_mb": 8}, "memory_limit_mb"),
    ],
)
def test_impossible_limits_are_config_errors(limits: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        run_python("print(1)", **limits)  # type: ignore[arg-type]
