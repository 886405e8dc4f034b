"""Run model-written Python in an isolated, limited process (``program_of_thought``).

:func:`run_python` (and the async :func:`arun_python`) run ``code`` with
``sys.executable -I`` (isolated mode) and an **empty environment**. With
``sandbox="isolated"`` (the default) the program runs inside Linux namespaces made
by ``unshare`` (util-linux), in a filesystem built from nothing.

**What the program sees** (:mod:`answerx.reasoning.sandbox_view` plans it,
:mod:`answerx.reasoning._sandbox_init` builds it), all read-only but its directory:

- ``/`` an empty tmpfs holding only what follows; the directories between ``/`` and
  the paths below exist, empty, and can be entered but not listed (``/root`` when
  Python lives under ``/root/.pyenv``);
- the interpreter: ``sys.prefix`` and ``sys.base_prefix`` (the venv and the Python
  it was made from) at their own paths, with the symbolic links on the way to them;
- the directories of the shared libraries the interpreter and its standard
  extension modules load (``/usr/lib/x86_64-linux-gnu``, say), the links to them
  (``/lib``, ``/lib64``), and ``/etc/ld.so.cache``: nothing else of ``/etc``;
- ``/dev`` with ``null``, ``zero``, ``full``, ``random``, ``urandom`` and the
  ``fd``/``stdin``/``stdout``/``stderr`` links;
- ``/proc`` of its own PID namespace, showing only the processes it started
  (``hidepid=invisible``: not the namespace's init, whose command line names host
  paths); before Linux 5.8, an empty ``/proc``;
- ``/sandbox`` (its working directory): a private tmpfs of at most
  :data:`MAX_FILE_BYTES`, writable by the program alone, holding ``program.py``;
  gone when the run ends.

No ``/home``, ``/root``, ``/tmp``, project folder, other sandbox's directory or
``/etc`` secrets, wherever the venv or Python is installed. A view that would have
to show a home directory (a Python installed in one, or at ``/``) is refused.

**Who it runs as.** When answerx runs as root, the program runs as uid and gid
:data:`SANDBOX_UID` (65534, "nobody") with no supplementary groups: a root-owned
``0600`` file would stay unreadable even if it were shown. A non-root user can
map only its own uid into a user namespace, so there the program keeps that uid
and the empty view is what protects. Either way the program enters a nested user
namespace of its own: it holds no capability over the mounts or namespaces set up
for it, and its process count is its own.

**The namespaces and limits:**

- a **PID namespace** with its own ``/proc``: the program sees only the processes it
  started; when the init ends the kernel kills every process left (``setsid`` does
  not escape);
- a **network namespace** with no interface up: no network at all, loopback included;
- a **mount namespace** holding only the view above (``pivot_root`` into it; the
  old root is detached, so nothing is hidden *under* it to uncover);
- **memory bounded in total**: ``memory_limit_mb`` is what all the program's
  processes hold together. Where a cgroup v2 can be made
  (:mod:`answerx.reasoning.sandbox_cgroup`: as root, or with the memory and pids
  controllers delegated), the run gets one: ``memory.max`` (no swap) and
  ``pids.max`` of :data:`MAX_PROCESSES`, each process's address space limited to
  the budget too. Elsewhere the program may have only :func:`fallback_processes`
  processes, threads included (1 to :data:`MAX_FALLBACK_PROCESSES`: one per
  :data:`MIN_PROCESS_MB` of the budget), each with an equal share of the budget as
  its address space (``RLIMIT_NPROC``, counted per user namespace, and
  ``RLIMIT_AS``); :func:`bounded_in_total` says which applies here;
- a **process-count limit**: the above, and the namespace's ``pid_max`` (Linux >=
  6.14);
- CPU seconds (a backstop to the wall clock), file size, no core files;
  ``no_new_privs`` (no setuid gain).

Whether isolation works is found out once per process by running a probe program
(:func:`isolation_problem`). Where it does not (no ``unshare``, user namespaces
disabled, a view that cannot be built), ``sandbox="isolated"`` raises
:class:`ConfigError` naming what to install or enable; ``sandbox="unsafe-local"``
runs the program without namespaces, in a fresh temporary directory (only the
limits, the empty environment and the process-group kill: *no* protection against
code written to do harm).

How a run ends (``SandboxResult.termination``):

================  ==============================================================
``ok``            exit status 0; ``stdout`` holds what the program printed
``timeout``       the wall-clock limit (every process killed) or the CPU limit
``memory_limit``  a ``MemoryError`` (or "Cannot allocate memory") under the
                  address-space limit, or the cgroup's OOM killer ended a process
``error``         any other failure: ``message`` is the traceback's last line
================  ==============================================================

Only the last :data:`MAX_OUTPUT_BYTES` of stdout and of stderr are kept (answers
and tracebacks come last).

What the isolation does **not** do: it shares the kernel (a kernel exploit escapes
any namespace); the program can read the files of the interpreter's prefixes and
library directories (a venv holding secrets would show them); it can use its share
of CPU. Without a cgroup a program that starts threads or processes (OpenBLAS's
thread pool, ``multiprocessing``) meets the small process count: a
``BlockingIOError`` or "can't start new thread". ``sandbox="unsafe-local"`` bounds
each process only (``RLIMIT_NPROC`` would count all of the user's). Run hostile
code in a VM.

POSIX only, and isolation needs Linux; macOS ignores ``RLIMIT_AS`` (no memory limit
there); Windows has neither ``resource`` nor process groups (a :class:`ConfigError`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from answerx.errors import ConfigError
from answerx.reasoning.sandbox_cgroup import RunCgroup, cgroup_base, make_run_cgroup
from answerx.reasoning.sandbox_view import DEVICES, ViewError, host_view

__all__ = [
    "MAX_FALLBACK_PROCESSES",
    "MAX_OUTPUT_BYTES",
    "MAX_PROCESSES",
    "MIN_PROCESS_MB",
    "SANDBOX_MODES",
    "SandboxMode",
    "SandboxResult",
    "SandboxTermination",
    "arun_python",
    "bounded_in_total",
    "check_sandbox",
    "fallback_processes",
    "isolation_problem",
    "run_python",
]

SandboxTermination = Literal["ok", "timeout", "memory_limit", "error"]
#: ``isolated``: namespaces (refused where unavailable); ``unsafe-local``: limits only.
SandboxMode = Literal["isolated", "unsafe-local"]
SANDBOX_MODES: Final[tuple[str, ...]] = get_args(SandboxMode)

#: Bytes of stdout (and, separately, of stderr) kept from the end of the output.
MAX_OUTPUT_BYTES = 64 * 1024
#: Largest file the program may write (and, isolated, all its files together).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Processes an isolated program may have at once (its own included), about: the
#: kernel's smallest namespace ``pid_max`` is 301 (pids 1-300, the init among them).
MAX_PROCESSES = 300
#: Without a cgroup: the most processes an isolated program may have, and the least
#: address space each gets (the interpreter with the usual math libraries).
MAX_FALLBACK_PROCESSES = 4
MIN_PROCESS_MB = 128
_PROGRAM = "program.py"
# The empty directory (in the parent's temporary directory) the new root is built on.
_NEW_ROOT = "root"
# Seconds to wait for the output pipes to close after the process group is gone.
_DRAIN_S = 1.0
# Exit status of the namespace's init when setting the namespace up failed.
_SETUP_FAILED = 125

# Runs in the child (python -I -c BOOTSTRAP AS_BYTES CPU_S FSIZE_BYTES NPROC ONE_THREAD)
# before the program. Setting the limits here rather than in a preexec_fn: preexec_fn is not
# safe when the parent has threads (the fake provider server, SDK pools, asyncio),
# and hard limits equal to soft ones cannot be raised back by the program.
_BOOTSTRAP = f"""\
import os, resource, runpy, signal, sys
_as, _cpu, _fsize, _nproc = (int(a) for a in sys.argv[1:5])
_one_thread = [name for name in sys.argv[5].split(",") if name]
for _kind, _value in ((resource.RLIMIT_AS, _as), (resource.RLIMIT_FSIZE, _fsize),
                      (resource.RLIMIT_CORE, 0)):
    resource.setrlimit(_kind, (_value, _value))
if _nproc > 0:
    resource.setrlimit(resource.RLIMIT_NPROC, (_nproc, _nproc))
resource.setrlimit(resource.RLIMIT_CPU, (_cpu, _cpu + 1))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large file: OSError, not a kill
os.environ.clear()  # Python's own LC_CTYPE coercion (PEP 538) would show up here
os.environ.update(dict.fromkeys(_one_thread, "1"))
sys.argv = [{_PROGRAM!r}]
runpy.run_path({_PROGRAM!r}, run_name="__main__")
"""

# The namespace's init (PID 1): a script of its own, run by path (see its docstring).
_INIT_SCRIPT: Final = str(Path(__file__).with_name("_sandbox_init.py"))

# Namespaces for everyone: mount, PID (with its own /proc), network; --kill-child: unshare
# killed (the wall clock) -> the init killed -> every process in the namespace.
_NAMESPACES: Final = ("--pid", "--fork", "--net", "--mount", "--mount-proc", "--kill-child")
# Not root: a user namespace of our own too (it gives the init the right to mount);
# only our own uid can be mapped in it, so the view is what protects.
_USER_NAMESPACE: Final = ("--user", "--map-root-user")
#: The uid an isolated program runs as when answerx runs as root (the kernel's
#: overflow uid, "nobody": it owns nothing shown to the program).
SANDBOX_UID: Final = 65534
# pivot_root(2) has no glibc wrapper: its syscall number per machine.
_PIVOT_ROOT: Final = {
    "x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "loongarch64": 41,
    "ppc64le": 203, "ppc64": 203, "s390x": 217, "i686": 217, "i386": 217, "armv7l": 218,
}  # fmt: skip

_MEMORY_MARKERS = ("MemoryError", "Cannot allocate memory", "out of memory")
# Under the fallback's small process count the native thread pools must not start
# threads: OpenBLAS raises SIGINT when it cannot (numpy's import would fail). Their
# documented variables, set to 1, are the only environment the program then sees.
_THREAD_POOLS: Final = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

_INSTALL_HINT = (
    "code execution needs an isolated sandbox: install util-linux's `unshare` "
    "(Debian/Ubuntu: apt-get install util-linux) on Linux >= 5.12 and allow unprivileged "
    "user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu >= 23.10 "
    "kernel.apparmor_restrict_unprivileged_userns=0), or run answerx in a container or VM "
    'and set sandbox="unsafe-local" to run the code without isolation'
)


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
    code: str,
    *,
    time_limit_s: float = 5.0,
    memory_limit_mb: int = 256,
    sandbox: SandboxMode = "isolated",
) -> SandboxResult:
    """Run ``code`` in a separate, limited (and by default isolated) Python process
    and report how it ended.

    >>> run_python("print(6 * 7)").stdout                   # doctest: +SKIP
    '42\\n'
    >>> run_python("while True: pass", time_limit_s=1).termination  # doctest: +SKIP
    'timeout'

    ``memory_limit_mb`` is what all the program's processes may hold together (see the
    module docstring for how: a cgroup, else a smaller process count); with
    ``sandbox="unsafe-local"`` it bounds each process only.

    Raises :class:`ConfigError` for impossible limits, and for ``sandbox="isolated"``
    where this system cannot isolate (the message says what to install).
    """
    _check_limits(time_limit_s, memory_limit_mb)
    check_sandbox(sandbox)
    started = time.monotonic()
    with (
        _workdir(code, sandbox) as cwd,
        _status_pipe(sandbox) as status,
        _bounds(memory_limit_mb, sandbox) as bounds,
    ):
        try:
            proc = subprocess.Popen(
                _command(cwd, status, time_limit_s, bounds, sandbox), cwd=cwd,
                env={}, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, pass_fds=status.pass_fds,
                start_new_session=True,  # its own process group, killed as a whole
            )  # fmt: skip
        except OSError as exc:
            return _not_started(exc, started)
        status.started()
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
        returncode, setup_error = status.outcome(returncode)
        oom_killed = bounds.oom_killed()
    return _result(
        out, err, returncode, timed_out, time_limit_s, memory_limit_mb, started, setup_error,
        oom_killed,
    )  # fmt: skip


async def arun_python(
    code: str,
    *,
    time_limit_s: float = 5.0,
    memory_limit_mb: int = 256,
    sandbox: SandboxMode = "isolated",
) -> SandboxResult:
    """Async :func:`run_python` (an asyncio subprocess; the event loop is never blocked
    except for writing the program to its temporary directory and, once per process,
    the isolation probe)."""
    _check_limits(time_limit_s, memory_limit_mb)
    check_sandbox(sandbox)
    started = time.monotonic()
    with (
        _workdir(code, sandbox) as cwd,
        _status_pipe(sandbox) as status,
        _bounds(memory_limit_mb, sandbox) as bounds,
    ):
        try:
            proc = await asyncio.create_subprocess_exec(
                *_command(cwd, status, time_limit_s, bounds, sandbox), cwd=cwd,
                env={}, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, pass_fds=status.pass_fds, start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            return _not_started(exc, started)
        status.started()
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
        returncode, setup_error = status.outcome(returncode)
        oom_killed = bounds.oom_killed()
    return _result(
        out, err, returncode, timed_out, time_limit_s, memory_limit_mb, started, setup_error,
        oom_killed,
    )  # fmt: skip


def check_sandbox(sandbox: str) -> None:
    """Raise :class:`ConfigError` unless ``sandbox`` can run here: an unknown mode, or
    ``isolated`` where the namespaces are unavailable (naming what to install)."""
    if sandbox not in SANDBOX_MODES:
        raise ConfigError(
            f"unknown sandbox {sandbox!r}; valid sandboxes: {', '.join(SANDBOX_MODES)}"
        )
    if sandbox == "isolated":
        problem = isolation_problem()
        if problem is not None:
            raise ConfigError(f"{_INSTALL_HINT} ({problem})")


@functools.cache
def isolation_problem() -> str | None:
    """Why this system cannot run the isolated sandbox, or None when it can.

    Found out once per process by running a small probe program in it (a few tens of
    milliseconds), so a kernel that forbids user namespaces, a missing ``unshare``
    or a failed mount all show up here with the reason.
    """
    if not sys.platform.startswith("linux"):
        return f"namespaces need Linux, not {sys.platform}"
    if shutil.which("unshare") is None:
        return "no `unshare` on PATH"
    if platform.machine() not in _PIVOT_ROOT:
        return f"pivot_root's number on {platform.machine()} is not known"
    try:
        host_view()
    except (ViewError, OSError) as exc:
        return f"the program's view of the files cannot be built: {exc}"
    probe = "import os\nprint(os.getpid(), os.getppid(), sorted(os.listdir('/proc'))[:0])"
    try:
        result = _run_isolated_probe(probe)
    except OSError as exc:  # pragma: no cover - unshare vanished between the checks
        return f"could not start unshare: {exc}"
    if result.termination != "ok" or not result.stdout.startswith("2 1 "):
        return result.message or result.stderr.strip()[-200:] or "the probe program failed"
    return None


def _run_isolated_probe(code: str) -> SandboxResult:
    # run_python without check_sandbox (which calls this); a short, generous limit.
    started = time.monotonic()
    with (
        _workdir(code, "isolated") as cwd,
        _status_pipe("isolated") as status,
        _bounds(256, "isolated") as bounds,
    ):
        proc = subprocess.Popen(
            _command(cwd, status, 10.0, bounds, "isolated"), cwd=cwd, env={},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            pass_fds=status.pass_fds, start_new_session=True,
        )  # fmt: skip
        status.started()
        timed_out = False
        try:
            stdout, stderr = proc.communicate(timeout=10.0)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            stdout, stderr = proc.communicate()
        _kill_group(proc.pid)
        returncode, setup_error = status.outcome(proc.returncode)
    out, err = _Tail(), _Tail()
    out.add(stdout)
    err.add(stderr)
    return _result(out, err, returncode, timed_out, 10.0, 256, started, setup_error)


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


@dataclass(frozen=True)
class _Bounds:
    """How one run's memory budget is kept: a cgroup holding all its processes, or
    (without one) a process count small enough that count x per-process limit fits."""

    process_bytes: int  # RLIMIT_AS of each process
    processes: int  # RLIMIT_NPROC (threads count too); 0: not set (unsafe-local)
    cgroup: RunCgroup | None = None

    def oom_killed(self) -> bool:
        return self.cgroup is not None and self.cgroup.oom_killed()


def fallback_processes(memory_limit_mb: int) -> int:
    """Processes (threads included) an isolated program may have where no cgroup can
    bound them together: as many as fit :data:`MIN_PROCESS_MB` each in the budget, at
    most :data:`MAX_FALLBACK_PROCESSES`, at least one. Each then gets an equal share
    of ``memory_limit_mb`` as its address-space limit, so all of them together stay
    within it."""
    return max(1, min(MAX_FALLBACK_PROCESSES, memory_limit_mb // MIN_PROCESS_MB))


@contextlib.contextmanager
def _bounds(memory_limit_mb: int, sandbox: str) -> Iterator[_Bounds]:
    budget = memory_limit_mb * 1024 * 1024
    if sandbox != "isolated":  # no namespace: RLIMIT_NPROC would count all the user's
        yield _Bounds(budget, 0)
        return
    cgroup = make_run_cgroup(budget, MAX_PROCESSES)
    if cgroup is None:
        processes = fallback_processes(memory_limit_mb)
        yield _Bounds(budget // processes, processes)
        return
    try:
        yield _Bounds(budget, MAX_PROCESSES, cgroup)
    finally:
        cgroup.remove()


def bounded_in_total() -> bool:
    """Whether an isolated program's memory is bounded by a cgroup here (else by the
    smaller process count of :func:`fallback_processes`)."""
    return cgroup_base() is not None


def _command(
    cwd: str, status: _Status, time_limit_s: float, bounds: _Bounds, sandbox: str
) -> list[str]:
    isolated = sandbox == "isolated"
    bootstrap = [
        sys.executable, "-I", "-X", "utf8", "-c", _BOOTSTRAP,
        str(bounds.process_bytes), str(_cpu_seconds(time_limit_s)),
        str(MAX_FILE_BYTES), str(bounds.processes),
        ",".join(_THREAD_POOLS) if bounds.cgroup is None and bounds.processes else "",
    ]  # fmt: skip
    if not isolated:
        return bootstrap
    unshare = shutil.which("unshare") or "unshare"
    as_root = os.geteuid() == 0
    init_wall_s = 2 * time_limit_s + 2  # the parent's wall clock fires first
    return [
        unshare, *(() if as_root else _USER_NAMESPACE), *_NAMESPACES,
        sys.executable, "-I", _INIT_SCRIPT, _plan(cwd, as_root, bounds.cgroup),
        str(status.child_fd), str(init_wall_s), "--", *bootstrap,
    ]  # fmt: skip


def _plan(cwd: str, as_root: bool, cgroup: RunCgroup | None) -> str:
    """What the init builds (:mod:`answerx.reasoning._sandbox_init`), as JSON."""
    return json.dumps(
        {
            **host_view().plan(),
            "root": str(Path(cwd, _NEW_ROOT)),
            "program": str(Path(cwd, _PROGRAM)),
            "program_name": _PROGRAM,
            "devices": DEVICES,
            "uid": SANDBOX_UID if as_root else -1,
            # As root (no user namespace), pid_max is the machine's before Linux 6.14.
            "pid_max": not as_root or _kernel_at_least(6, 14),
            "pivot_root": _PIVOT_ROOT[platform.machine()],
            "work_bytes": MAX_FILE_BYTES,
            "cgroup": cgroup.procs if cgroup is not None else None,
        }
    )


def _kernel_at_least(major: int, minor: int) -> bool:
    numbers = re.match(r"(\d+)\.(\d+)", platform.release())
    return numbers is not None and (int(numbers[1]), int(numbers[2])) >= (major, minor)


@contextlib.contextmanager
def _workdir(code: str, sandbox: str) -> Iterator[str]:
    """A fresh temporary directory holding the program (and, isolated, the empty
    directory the new root is built on); removed afterwards, whatever the program
    left in it (errors in removal are ignored: it may have made files read-only)."""
    with tempfile.TemporaryDirectory(prefix="answerx-sandbox-", ignore_cleanup_errors=True) as cwd:
        Path(cwd, _PROGRAM).write_text(code, encoding="utf-8")
        if sandbox == "isolated":
            Path(cwd, _NEW_ROOT).mkdir()
        yield cwd


class _Status:
    """The pipe on which the namespace's init reports how the program ended (its own
    exit status is not the program's: an init cannot die of a signal it sends itself)."""

    def __init__(self, isolated: bool) -> None:
        self.read_fd, self.child_fd = os.pipe() if isolated else (-1, -1)

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self.child_fd,) if self.child_fd >= 0 else ()

    def started(self) -> None:
        """Close the parent's copy of the write end (EOF once the init is gone)."""
        if self.child_fd >= 0:
            os.close(self.child_fd)
            self.child_fd = -1

    def outcome(self, returncode: int) -> tuple[int, str | None]:
        """The program's return code (negative: its signal) and a setup error, if any."""
        if self.read_fd < 0:
            return returncode, None
        self.started()
        os.set_blocking(self.read_fd, False)
        try:
            text = os.read(self.read_fd, 4096).decode("utf-8", "replace")
        except BlockingIOError:  # pragma: no cover - the init was killed mid-write
            text = ""
        kind, _, value = text.partition(" ")
        if kind == "exit" and value.lstrip("-").isdigit():
            return int(value), None
        if kind == "signal" and value.isdigit():
            return -int(value), None
        if kind == "setup:":
            return _SETUP_FAILED, f"setting up the sandbox failed: {value}"
        return returncode, None

    def close(self) -> None:
        self.started()
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1


@contextlib.contextmanager
def _status_pipe(sandbox: str) -> Iterator[_Status]:
    status = _Status(sandbox == "isolated")
    try:
        yield status
    finally:
        status.close()


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
    setup_error: str | None = None,
    oom_killed: bool = False,
) -> SandboxResult:
    stdout, stderr = out.text(), err.text()
    last_line = next((ln.strip() for ln in reversed(stderr.splitlines()) if ln.strip()), "")
    termination: SandboxTermination
    if timed_out:
        termination, message = "timeout", f"no result within {time_limit_s:g} s (wall clock)"
    elif setup_error is not None:
        termination, message = "error", setup_error
    elif returncode == -signal.SIGXCPU:  # the CPU backstop: SIGXCPU at the soft limit
        termination, message = "timeout", f"CPU time limit ({_cpu_seconds(time_limit_s)} s) reached"
    elif oom_killed or (returncode != 0 and any(m in stderr for m in _MEMORY_MARKERS)):
        # The cgroup's OOM kill may hit a child while the program goes on: the budget
        # was still reached, whatever the program made of it.
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
