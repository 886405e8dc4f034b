"""Run model-written Python in a separate, limited process (``program_of_thought``).

:func:`run_python` (and the async :func:`arun_python`) start ``sys.executable -I``
(isolated mode: no ``PYTHON*`` variables, no user site-packages, no script
directory on ``sys.path``) in a fresh temporary directory with an **empty
environment**, so no API key of the parent process reaches the code. Before the
code runs, a short bootstrap in the child sets resource limits (address space,
CPU seconds as a backstop to the wall clock, file size, no core files) and
clears the two variables Python itself adds (``LC_CTYPE`` locale coercion).
The whole process group is killed at the wall-clock limit, and always once the
program has ended, so background children do not outlive it. Only the last
:data:`MAX_OUTPUT_BYTES` of stdout and of stderr are kept (answers and
tracebacks come last).

How a run ends (``SandboxResult.termination``):

================  ==============================================================
``ok``            exit status 0; ``stdout`` holds what the program printed
``timeout``       the wall-clock limit (process group killed) or the CPU limit
``memory_limit``  a ``MemoryError`` (or "Cannot allocate memory") under the
                  address-space limit
``error``         any other failure: ``message`` is the traceback's last line
================  ==============================================================

.. warning::
   This contains *accidents* (an endless loop, a memory bomb, code that reads
   the environment or litters the working directory); it is **not** a security
   boundary against a hostile model. The code runs as the same user, can read
   the user's files and open network connections. Run untrusted code in a
   container or VM.

POSIX only, and tested on Linux: macOS ignores ``RLIMIT_AS`` (no memory limit
there); Windows has neither ``resource`` nor process groups (a :class:`ConfigError`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, ConfigDict, Field

from answerx.errors import ConfigError

__all__ = ["MAX_OUTPUT_BYTES", "SandboxResult", "SandboxTermination", "arun_python", "run_python"]

SandboxTermination = Literal["ok", "timeout", "memory_limit", "error"]

#: Bytes of stdout (and, separately, of stderr) kept from the end of the output.
MAX_OUTPUT_BYTES = 64 * 1024
#: Largest file the program may write in its directory.
MAX_FILE_BYTES = 64 * 1024 * 1024
_PROGRAM = "program.py"
# Seconds to wait for the output pipes to close after the process group is gone.
_DRAIN_S = 1.0

# Runs in the child (python -I -c BOOTSTRAP AS_BYTES CPU_S FSIZE_BYTES) before the
# program. Setting the limits here rather than in a preexec_fn: preexec_fn is not
# safe when the parent has threads (the fake provider server, SDK pools, asyncio),
# and hard limits equal to soft ones cannot be raised back by the program.
_BOOTSTRAP = f"""\
import os, resource, runpy, signal, sys
_as, _cpu, _fsize = (int(a) for a in sys.argv[1:4])
for _kind, _value in ((resource.RLIMIT_AS, _as), (resource.RLIMIT_FSIZE, _fsize),
                      (resource.RLIMIT_CORE, 0)):
    resource.setrlimit(_kind, (_value, _value))
resource.setrlimit(resource.RLIMIT_CPU, (_cpu, _cpu + 1))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large file: OSError, not a kill
os.environ.clear()  # Python's own LC_CTYPE coercion (PEP 538) would show up here
sys.argv = [{_PROGRAM!r}]
runpy.run_path({_PROGRAM!r}, run_name="__main__")
"""

_MEMORY_MARKERS = ("MemoryError", "Cannot allocate memory", "out of memory")


class SandboxResult(BaseModel):
    """How one sandboxed run ended, and what it printed."""

    model_config = ConfigDict(frozen=True)

    stdout: str = Field(description="What the program printed (the last 64 KB at most).")
    stderr: str = Field(description="Its error output (the last 64 KB at most).")
    returncode: int | None = Field(
        description="Exit status; negative: killed by that signal; None: never started."
    )
    termination: SandboxTermination
    message: str = Field(description="Why it ended, in one line ('' when ok).")
    elapsed_s: float = Field(default=0.0, description="Wall-clock seconds the run took.")
    truncated: bool = Field(default=False, description="Output was cut to its last 64 KB.")

    @property
    def ok(self) -> bool:
        """True when the program finished with exit status 0."""
        return self.termination == "ok"


def run_python(
    code: str, *, time_limit_s: float = 5.0, memory_limit_mb: int = 256
) -> SandboxResult:
    """Run ``code`` in a separate, limited Python process and report how it ended.

    >>> run_python("print(6 * 7)").stdout                   # doctest: +SKIP
    '42\\n'
    >>> run_python("while True: pass", time_limit_s=1).termination  # doctest: +SKIP
    'timeout'
    """
    _check_limits(time_limit_s, memory_limit_mb)
    started = time.monotonic()
    with _workdir(code) as cwd:
        try:
            proc = subprocess.Popen(
                _command(time_limit_s, memory_limit_mb), cwd=cwd, env={},
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group, killed as a whole
            )  # fmt: skip
        except OSError as exc:
            return _not_started(exc, started)
        assert proc.stdout is not None and proc.stderr is not None
        out, err = _Tail(), _Tail()
        readers = [_reader(proc.stdout, out), _reader(proc.stderr, err)]
        timed_out = False
        try:
            proc.wait(timeout=time_limit_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc.pid)
            returncode = proc.wait()
        for thread in readers:
            thread.join(_DRAIN_S)
    return _result(out, err, returncode, timed_out, time_limit_s, memory_limit_mb, started)


async def arun_python(
    code: str, *, time_limit_s: float = 5.0, memory_limit_mb: int = 256
) -> SandboxResult:
    """Async :func:`run_python` (an asyncio subprocess; the event loop is never blocked
    except for writing the program to its temporary directory)."""
    _check_limits(time_limit_s, memory_limit_mb)
    started = time.monotonic()
    with _workdir(code) as cwd:
        try:
            proc = await asyncio.create_subprocess_exec(
                *_command(time_limit_s, memory_limit_mb), cwd=cwd, env={},
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            return _not_started(exc, started)
        assert proc.stdout is not None and proc.stderr is not None
        out, err = _Tail(), _Tail()
        readers = [
            asyncio.create_task(_aread(proc.stdout, out)),
            asyncio.create_task(_aread(proc.stderr, err)),
        ]
        try:
            timed_out = not await _exited(proc, time_limit_s)
        finally:
            _kill_group(proc.pid)
            await _exited(proc, _DRAIN_S)
            _, pending = await asyncio.wait(readers, timeout=_DRAIN_S)
            for task in pending:  # a grandchild that left the group still holds a pipe
                task.cancel()
        returncode = proc.returncode if proc.returncode is not None else -signal.SIGKILL
    return _result(out, err, returncode, timed_out, time_limit_s, memory_limit_mb, started)


# --------------------------------------------------------------------------- helpers
def _check_limits(time_limit_s: float, memory_limit_mb: int) -> None:
    if not hasattr(os, "killpg"):
        raise ConfigError("code execution needs a POSIX system (Linux); not available here")
    if not time_limit_s > 0:
        raise ConfigError(f"time_limit_s must be > 0, not {time_limit_s!r}")
    if memory_limit_mb < 32:  # the interpreter alone needs about 20 MB of address space
        raise ConfigError(f"memory_limit_mb must be >= 32, not {memory_limit_mb!r}")


def _cpu_seconds(time_limit_s: float) -> int:
    # A backstop for when the parent dies before its wall clock fires; generous, so
    # that a program using several threads is not cut before its wall-clock limit.
    return math.ceil(2 * time_limit_s) + 1


def _command(time_limit_s: float, memory_limit_mb: int) -> list[str]:
    return [
        sys.executable, "-I", "-X", "utf8", "-c", _BOOTSTRAP,
        str(memory_limit_mb * 1024 * 1024), str(_cpu_seconds(time_limit_s)), str(MAX_FILE_BYTES),
    ]  # fmt: skip


@contextlib.contextmanager
def _workdir(code: str) -> Iterator[str]:
    """A fresh temporary directory holding the program; removed afterwards, whatever
    the program left in it (errors in removal are ignored: the program may have
    made files read-only)."""
    with tempfile.TemporaryDirectory(prefix="answerx-sandbox-", ignore_cleanup_errors=True) as cwd:
        Path(cwd, _PROGRAM).write_text(code, encoding="utf-8")
        yield cwd


async def _exited(proc: asyncio.subprocess.Process, timeout: float) -> bool:
    """Whether ``proc`` ended within ``timeout`` seconds.

    Polls ``returncode`` because asyncio's ``Process.wait()`` also waits for the
    output pipes to close, which a background child of the program may keep open.
    """
    loop = asyncio.get_running_loop()
    deadline, delay = loop.time() + timeout, 0.002
    while proc.returncode is None:
        left = deadline - loop.time()
        if left <= 0:
            return False
        await asyncio.sleep(min(delay, left))
        delay = min(2 * delay, 0.05)
    return True


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


@dataclass
class _Tail:
    """The last :data:`MAX_OUTPUT_BYTES` of a stream, read as it comes (a program that
    prints without end must neither block on a full pipe nor fill the parent's memory)."""

    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * MAX_OUTPUT_BYTES:  # trim in batches: amortised O(1)
            del self.data[:-MAX_OUTPUT_BYTES]
            self.truncated = True

    def text(self) -> str:
        if len(self.data) > MAX_OUTPUT_BYTES:
            del self.data[:-MAX_OUTPUT_BYTES]
            self.truncated = True
        return self.data.decode("utf-8", errors="replace")


def _reader(stream: IO[bytes], tail: _Tail) -> threading.Thread:
    def pump() -> None:
        with stream:
            while chunk := stream.read1(65536):  # type: ignore[attr-defined]
                tail.add(chunk)

    thread = threading.Thread(target=pump, name="answerx-sandbox-reader", daemon=True)
    thread.start()
    return thread


async def _aread(stream: asyncio.StreamReader, tail: _Tail) -> None:
    while chunk := await stream.read(65536):
        tail.add(chunk)


def _not_started(exc: OSError, started: float) -> SandboxResult:
    return SandboxResult(
        stdout="", stderr="", returncode=None, termination="error",
        message=f"could not start the interpreter: {exc}",
        elapsed_s=time.monotonic() - started,
    )  # fmt: skip


def _result(
    out: _Tail,
    err: _Tail,
    returncode: int,
    timed_out: bool,
    time_limit_s: float,
    memory_limit_mb: int,
    started: float,
) -> SandboxResult:
    stdout, stderr = out.text(), err.text()
    last_line = next((ln.strip() for ln in reversed(stderr.splitlines()) if ln.strip()), "")
    termination: SandboxTermination
    if timed_out:
        termination, message = "timeout", f"no result within {time_limit_s:g} s (wall clock)"
    elif returncode == -signal.SIGXCPU:  # the CPU backstop: SIGXCPU at the soft limit
        termination, message = "timeout", f"CPU time limit ({_cpu_seconds(time_limit_s)} s) reached"
    elif returncode != 0 and any(marker in stderr for marker in _MEMORY_MARKERS):
        termination = "memory_limit"
        message = f"memory limit of {memory_limit_mb} MB reached" + (
            f": {last_line}" if last_line else ""
        )
    elif returncode == 0:
        termination, message = "ok", ""
    else:
        termination, message = "error", last_line or _exit_text(returncode)
    return SandboxResult(
        stdout=stdout, stderr=stderr, returncode=returncode, termination=termination,
        message=message, elapsed_s=time.monotonic() - started,
        truncated=out.truncated or err.truncated,
    )  # fmt: skip


def _exit_text(returncode: int) -> str:
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-returncode).name}"
    return f"exit status {returncode}"
