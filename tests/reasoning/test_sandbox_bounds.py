"""The sandbox's memory is bounded in total, and its ``/proc`` shows nothing of the host
(issue 35 §3, §9): six children of 200 MB each ran under ``memory_limit_mb=256`` and the
run ended ``ok`` (the limit was per process), and the program could read the init's
command line (the venv, the source path, the temporary directory) in ``/proc/1/cmdline``.

The hog below forks children that each touch ``MB`` megabytes and report it on a pipe,
as many as it can up to ``N``, prints what is held so far, and fails with a
MemoryError when it could not hold all of it. Whatever bounds the total here (a cgroup
or the fallback's process count), what is held never exceeds the budget.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

import pytest

import answerx
from answerx.reasoning.sandbox import (
    MAX_FALLBACK_PROCESSES,
    MIN_PROCESS_MB,
    fallback_processes,
    isolation_problem,
    run_python,
)

pytestmark = [
    pytest.mark.skipif(sys.platform != "linux", reason="the sandbox's limits need Linux"),
    pytest.mark.skipif(
        isolation_problem() is not None, reason=f"no isolated sandbox here: {isolation_problem()}"
    ),
]

BUDGET_MB = 256
HOG = """
import os, time
held = 0
for _ in range({n}):
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        break  # no more processes allowed
    if pid == 0:
        os.close(r)
        try:
            block = bytearray({mb} * 2**20)  # zero-filled: every page is really held
            os.write(w, b"1")
            time.sleep(30)
        finally:
            os._exit(0)
    os.close(w)
    if os.read(r, 1) == b"1":  # b"": the child died (MemoryError, or killed)
        held += {mb}
        print("held", held, flush=True)
    os.close(r)
if held < {n} * {mb}:
    raise MemoryError(f"held {{held}} MB of {n} x {mb}")
"""


def most_held(stdout: str) -> int:
    return max((int(n) for n in re.findall(r"held (\d+)", stdout)), default=0)


@pytest.mark.parametrize(
    ("children", "mb"),
    [(300, 200), (6, 100)],  # the fork storm; children each well within the budget
    ids=["300x200MB", "6x100MB"],
)
def test_forked_children_together_stay_within_the_memory_budget(children: int, mb: int) -> None:
    started = time.monotonic()

    result = run_python(HOG.format(n=children, mb=mb), time_limit_s=20, memory_limit_mb=BUDGET_MB)

    assert result.termination == "memory_limit", (result.message, result.stdout[-300:])
    assert most_held(result.stdout) <= BUDGET_MB
    assert time.monotonic() - started < 30  # ended by the bound, not the wall clock
    assert run_python("print('still here')").stdout == "still here\n"  # the host is fine


def test_children_within_the_budget_together_are_allowed() -> None:
    # One child of 60 MB beside the program fits every bound of a 256 MB budget.
    result = run_python(HOG.format(n=1, mb=60), memory_limit_mb=BUDGET_MB)

    assert (result.termination, result.stdout) == ("ok", "held 60\n")


@pytest.mark.parametrize(
    ("budget_mb", "processes"), [(32, 1), (MIN_PROCESS_MB * 2, 2), (65536, MAX_FALLBACK_PROCESSES)]
)
def test_without_a_cgroup_the_process_count_fits_the_budget(budget_mb: int, processes: int) -> None:
    assert fallback_processes(budget_mb) == processes
    assert fallback_processes(budget_mb) * (budget_mb // processes) <= budget_mb


def test_numpy_still_imports_under_the_process_count() -> None:
    pytest.importorskip("numpy")

    result = run_python("import numpy\nprint(numpy.arange(4).sum())", time_limit_s=20)

    assert (result.termination, result.stdout) == ("ok", "6\n"), result.stderr[-500:]


def test_the_init_s_command_line_is_out_of_sight() -> None:
    code = (
        "import os\n"
        "for path in ('/proc/1/cmdline', '/proc/1/environ', '/proc/1/mountinfo'):\n"
        "    try:\n"
        "        print(path, open(path, 'rb').read())\n"
        "    except OSError as exc:\n"
        "        print(path, type(exc).__name__)\n"
    )

    result = run_python(code)

    assert result.termination == "ok"
    assert result.stdout.splitlines() == [
        "/proc/1/cmdline FileNotFoundError",
        "/proc/1/environ FileNotFoundError",
        "/proc/1/mountinfo FileNotFoundError",
    ]


def test_mountinfo_names_no_host_path_but_the_view_s_own() -> None:
    result = run_python("print(open('/proc/self/mountinfo').read())")

    assert result.termination == "ok"
    lines = [line.split() for line in result.stdout.splitlines() if line.strip()]
    assert lines
    for fields in lines:
        root, mount_point = fields[3], fields[4]
        # A folder shown at its own place, or a file system's own root: never another path.
        assert root in ("/", mount_point) or root == "/" + Path(mount_point).name, fields
    for host_only in (tempfile.gettempdir() + "/", str(Path(answerx.__file__).parent)):
        assert host_only not in result.stdout
