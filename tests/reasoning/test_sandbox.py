"""The program_of_thought sandbox: model-written Python in an isolated, limited process.

The first half checks containment of accidents (endless loops, memory bombs,
environment reads, littered working directories); the second, containment of code
written to escape (another process's environment, /proc, the network, files outside
its directory, a setsid'd survivor, a fork loop), each with how the run ended.
Limits are kept short so the file runs in a few seconds. Where this system cannot
isolate (no user namespaces), the isolated tests skip and the refusal is tested.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from answerx.errors import ConfigError
from answerx.reasoning import get_approach, sandbox
from answerx.reasoning.sandbox import (
    MAX_OUTPUT_BYTES,
    MAX_PROCESSES,
    SandboxResult,
    arun_python,
    bounded_in_total,
    fallback_processes,
    isolation_problem,
    run_python,
)

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the sandbox's limits need Linux")
needs_isolation = pytest.mark.skipif(
    isolation_problem() is not None, reason=f"no isolated sandbox here: {isolation_problem()}"
)

FAKE_KEY = "sk-parent-0123456789abcdef"
# A child of the program: the sandbox shows no /bin, only the interpreter.
SLEEP_30 = "import time; time.sleep(30)"
SPAWN = f"import subprocess, sys\nchild = [sys.executable, '-c', {SLEEP_30!r}]\n"
# The environment an isolated program sees: empty, but for the native thread pools
# told to keep to one thread where the process count is small (no cgroup here).
THREAD_POOLS = (
    {}
    if bounded_in_total()
    else {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
)


@needs_isolation
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


@needs_isolation
def test_an_endless_loop_is_stopped_at_the_time_limit() -> None:
    started = time.monotonic()

    result = run_python("while True:\n    pass", time_limit_s=1.0)

    # Generous: an unstopped loop never returns; a slow start on a busy machine is no fault.
    assert time.monotonic() - started < 1.0 + 10
    assert result.termination == "timeout"
    assert "1 s" in result.message
    assert not result.ok


@needs_isolation
def test_a_sleeping_program_is_stopped_at_the_time_limit_too() -> None:
    result = run_python("import time\nprint('started', flush=True)\ntime.sleep(60)", time_limit_s=1)

    assert (result.termination, result.stdout) == ("timeout", "started\n")


@needs_isolation
def test_a_huge_allocation_hits_the_memory_limit() -> None:
    result = run_python("x = bytearray(2**34)\nprint('allocated')", memory_limit_mb=128)

    assert result.termination == "memory_limit"
    assert "MemoryError" in result.message and "128 MB" in result.message
    assert result.stdout == ""


@needs_isolation
def test_a_growing_list_hits_the_memory_limit() -> None:
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(10**6))"

    result = run_python(code, time_limit_s=5, memory_limit_mb=128)

    assert result.termination == "memory_limit"


@needs_isolation
def test_the_program_sees_an_empty_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)

    result = run_python("import os\nprint(dict(os.environ))\nprint(os.environ.get('HOME'))")

    assert result.termination == "ok"
    assert result.stdout == f"{THREAD_POOLS}\nNone\n"
    assert FAKE_KEY not in result.stdout + result.stderr


@needs_isolation
def test_the_program_runs_in_isolated_mode() -> None:
    result = run_python("import sys\nprint(sys.flags.isolated, sys.flags.ignore_environment)")

    assert result.stdout == "1 1\n"


@needs_isolation
def test_the_program_runs_in_a_private_directory_emptied_afterwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the parent's files go
    code = (
        "import os\n"
        "print(sorted(os.listdir('.')))\n"
        "open('scratch.txt', 'w').write('left behind')\n"
        "print(os.getcwd())\n"
    )

    first = run_python(code)
    second = run_python(code)

    assert first.stdout == second.stdout == "['program.py']\n/sandbox\n"  # nothing left over
    assert list(tmp_path.iterdir()) == []  # the parent's temporary directory is gone too


def test_an_unsafe_local_program_runs_in_a_fresh_directory_removed_afterwards() -> None:
    code = "import os\nopen('scratch.txt', 'w').write('x')\nprint(os.getcwd())"

    first = run_python(code, sandbox="unsafe-local")
    second = run_python(code, sandbox="unsafe-local")

    assert Path(first.stdout.strip()) != Path.cwd()
    assert not Path(first.stdout.strip()).exists()
    assert second.stdout != first.stdout


@needs_isolation
def test_a_syntax_error_is_an_error_with_the_exception_as_message() -> None:
    result = run_python("print('unclosed'")

    assert result.termination == "error"
    assert result.message.startswith("SyntaxError")
    assert result.returncode == 1


@needs_isolation
def test_an_exception_gives_the_last_traceback_line() -> None:
    result = run_python("print('partial')\nraise ValueError('no solution')")

    assert (result.termination, result.message) == ("error", "ValueError: no solution")
    assert result.stdout == "partial\n"
    assert "Traceback" in result.stderr


@needs_isolation
def test_a_nonzero_exit_status_without_a_traceback() -> None:
    result = run_python("import sys\nsys.exit(3)")

    assert (result.termination, result.returncode, result.message) == ("error", 3, "exit status 3")


@needs_isolation
def test_reading_stdin_does_not_hang() -> None:
    result = run_python("print(input())", time_limit_s=2)

    assert result.termination == "error"
    assert result.message.startswith("EOFError")


@needs_isolation
def test_endless_output_is_capped_to_its_last_part() -> None:
    result = run_python("while True:\n    print('spam' * 100)", time_limit_s=1)

    assert result.termination == "timeout"
    assert result.truncated
    assert 0 < len(result.stdout.encode()) <= MAX_OUTPUT_BYTES


@needs_isolation
def test_the_cpu_limit_is_a_timeout_too() -> None:
    # The program lowers its own CPU limit to one second, well inside the wall clock.
    code = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (1, resource.getrlimit(resource.RLIMIT_CPU)[1]))\n"
        "while True:\n    pass"
    )

    result = run_python(code, time_limit_s=10)

    assert result.termination == "timeout"
    assert "CPU time limit" in result.message  # not the 10 s wall clock (whatever the load)


@needs_isolation
def test_a_background_child_does_not_hold_up_the_result() -> None:
    code = f"{SPAWN}subprocess.Popen(child)\nprint('done')"
    started = time.monotonic()

    result = run_python(code, time_limit_s=5)

    assert (result.termination, result.stdout) == ("ok", "done\n")
    assert time.monotonic() - started < 20  # did not wait for the 30 s child


@needs_isolation
def test_the_async_sandbox_contains_the_same_accidents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)

    async def run_all() -> list[SandboxResult]:
        return list(
            await asyncio.gather(
                arun_python("print(sum(range(10)))"),
                arun_python("while True:\n    pass", time_limit_s=1),
                arun_python("x = bytearray(2**34)"),
                arun_python("import os\nprint(dict(os.environ))"),
                arun_python(f"{SPAWN}subprocess.Popen(child)\nprint('ok')"),
            )
        )

    started = time.monotonic()
    printed, looped, bomb, environment, background = asyncio.run(run_all())

    assert time.monotonic() - started < 20  # none waited for the 30 s background child
    assert (printed.termination, printed.stdout) == ("ok", "45\n")
    assert looped.termination == "timeout"
    assert bomb.termination == "memory_limit"
    assert environment.stdout == f"{THREAD_POOLS}\n"
    assert (background.termination, background.stdout) == ("ok", "ok\n")


@needs_isolation
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


# ------------------------------------------------------------------ hostile code


def _processes_with(marker: str) -> list[int]:
    """Pids of this machine's processes whose command line (or name) holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes() + (entry / "comm").read_bytes()
            except OSError:  # gone meanwhile, or not ours to read
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    """A unique argument for the program's background processes; none may survive it."""
    unique = f"{time.time_ns() % 10**6 + 100_000}.{uuid.uuid4().int % 10**6}"
    yield unique
    assert _processes_with(unique) == []


@needs_isolation
def test_the_parent_environment_is_out_of_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    code = (
        "import os\n"
        f"for pid in (os.getppid(), {os.getpid()}):\n"
        "    try:\n"
        "        print(pid, repr(open(f'/proc/{pid}/environ').read()))\n"
        "    except OSError as exc:\n"
        "        print(pid, type(exc).__name__)\n"
    )

    result = run_python(code)

    assert FAKE_KEY not in result.stdout + result.stderr
    assert result.termination == "ok"
    init, answerx = result.stdout.splitlines()
    assert init == "1 FileNotFoundError"  # its parent, the namespace's init, is out of sight
    assert answerx in (f"{os.getpid()} FileNotFoundError", f"{os.getpid()} PermissionError")


@needs_isolation
def test_proc_lists_only_the_programs_own_processes() -> None:
    code = "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"

    result = run_python(code)

    assert (result.termination, result.stdout) == ("ok", "[2]\n")  # itself, not the init


@needs_isolation
def test_the_network_is_unreachable_even_on_loopback() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]

        result = run_python(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), 2)")

        assert result.termination == "error"
        assert result.message == "OSError: [Errno 101] Network is unreachable"
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody came


@needs_isolation
@pytest.mark.parametrize(
    "target", [Path.home() / "answerx-sandbox-escape.txt", Path.cwd() / "escape.txt"]
)
def test_nothing_is_written_outside_the_work_directory(target: Path) -> None:
    result = run_python(f"open({str(target)!r}, 'w').write('escaped')")

    assert result.termination == "error"
    # absent from the program's view, or a read-only directory on the way to the interpreter
    assert any(
        why in result.message for why in ("No such file", "Read-only file system", "Permission")
    )
    assert not target.exists()


@needs_isolation
def test_the_programs_capabilities_do_not_reach_its_mounts() -> None:
    # Root of its own user namespace, the code could otherwise remount / read-write.
    code = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "MS_REMOUNT, MS_BIND = 32, 4096\n"
        "print(libc.mount(None, b'/', None, MS_REMOUNT | MS_BIND, None), ctypes.get_errno())\n"
        "print(libc.umount2(b'/proc', 2), ctypes.get_errno())\n"
    )

    result = run_python(code)

    assert (result.termination, result.stdout) == ("ok", "-1 1\n-1 1\n")  # EPERM twice


@needs_isolation
def test_a_setsid_child_dies_at_the_time_limit(marker: str) -> None:
    code = (
        f"{SPAWN}import time\n"
        f"subprocess.Popen([*child, '{marker}'], start_new_session=True)\n"
        "print('detached', flush=True)\n"
        "time.sleep(60)\n"
    )

    result = run_python(code, time_limit_s=1)

    assert (result.termination, result.stdout) == ("timeout", "detached\n")
    # the marker fixture asserts that no `sleep` survives


@needs_isolation
def test_a_setsid_child_dies_when_the_program_ends(marker: str) -> None:
    code = f"{SPAWN}subprocess.Popen([*child, '{marker}'], start_new_session=True)\nprint('done')\n"

    result = run_python(code, time_limit_s=5)

    assert (result.termination, result.stdout) == ("ok", "done\n")


@needs_isolation
def test_a_fork_loop_is_stopped_by_the_process_limit(marker: str) -> None:
    # The children are forks of the program (cheap: their memory is shared), named
    # after the marker so that a survivor would be found.
    code = (
        "import ctypes, os, time\n"
        "libc = ctypes.CDLL(None)\n"
        "started = 0\n"
        "try:\n"
        "    for _ in range(2000):\n"
        "        if os.fork() == 0:\n"
        f"            libc.prctl(15, b'{marker}', 0, 0, 0)  # PR_SET_NAME\n"
        "            time.sleep(60)\n"
        "            os._exit(0)\n"
        "        started += 1\n"
        "finally:\n"
        "    print(started, flush=True)\n"
    )

    result = run_python(code, time_limit_s=20)

    assert result.termination == "error"
    assert result.message.startswith("BlockingIOError")  # EAGAIN from fork
    limit = MAX_PROCESSES if bounded_in_total() else fallback_processes(256)
    assert 0 < int(result.stdout) < limit


def test_without_isolation_execute_code_is_refused_naming_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandbox, "isolation_problem", lambda: "user namespaces are disabled")

    with pytest.raises(ConfigError, match="install util-linux's `unshare`") as refused:
        run_python("print(1)")
    with pytest.raises(ConfigError, match='sandbox="unsafe-local"'):
        get_approach("program_of_thought", object(), execute_code=True)  # type: ignore[arg-type]

    assert "user namespaces are disabled" in str(refused.value)
    get_approach("program_of_thought", object(), execute_code=False)  # type: ignore[arg-type]


def test_unsafe_local_runs_without_isolation_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandbox, "isolation_problem", lambda: "user namespaces are disabled")
    code = f"import os\nprint(os.path.exists('/proc/{os.getpid()}'))"

    result = run_python(code, sandbox="unsafe-local")

    assert (result.termination, result.stdout) == ("ok", "True\n")  # it sees this process


def test_an_unknown_sandbox_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="valid sandboxes: isolated, unsafe-local"):
        run_python("print(1)", sandbox="docker")  # type: ignore[arg-type]
