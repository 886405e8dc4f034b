"""The run cgroup's plumbing (issue 35 §3): the namespace's init moves itself into the
run's cgroup before the program starts, so the program and its children are born in it;
the OOM killer's count is read from ``memory.events``; the cgroup is gone afterwards.

A cgroup with the memory controller cannot be made on every machine (this one may be a
cgroup v1 host), so the plumbing is checked with a bare cgroup v2 directory wherever
one can be made, and the accounting on a stand-in folder."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import pytest

from answerx.reasoning import sandbox
from answerx.reasoning.sandbox import isolation_problem, run_python
from answerx.reasoning.sandbox_cgroup import RunCgroup, _cgroup2_mount, _own_cgroup

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="cgroups are Linux's")


def bare_cgroup() -> RunCgroup | None:
    """A fresh cgroup v2 directory below this process's own, or None where none can be
    made (not root, no cgroup v2, no delegation)."""
    mount, own = _cgroup2_mount(), _own_cgroup()
    if mount is None or own is None:
        return None
    path = mount / own.lstrip("/") / f"answerx-test-{secrets.token_hex(4)}"
    try:
        path.mkdir()
    except OSError:
        return None
    return RunCgroup(path)


@pytest.mark.skipif(isolation_problem() is not None, reason="no isolated sandbox here")
def test_the_program_and_its_children_are_born_in_the_run_s_cgroup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    group = bare_cgroup()
    if group is None:
        pytest.skip("no cgroup v2 directory can be made here")
    monkeypatch.setattr(sandbox, "make_run_cgroup", lambda memory, processes: group)
    code = (
        "import subprocess, sys\n"
        "print(open('/proc/self/cgroup').read().splitlines()[-1])\n"
        "child = 'print(open(\"/proc/self/cgroup\").read().splitlines()[-1])'\n"
        "subprocess.run([sys.executable, '-c', child])\n"
    )

    result = run_python(code)

    assert result.termination == "ok", result.message
    inside = f"0::/{group.path.relative_to(_cgroup2_mount() or Path('/')).as_posix()}"
    assert result.stdout.splitlines() == [inside, inside]
    assert not group.path.exists()  # removed with the run


def test_an_oom_kill_is_read_from_memory_events(tmp_path: Path) -> None:
    group = RunCgroup(tmp_path)
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\n")
    assert not group.oom_killed()

    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n")
    assert group.oom_killed()


def test_without_memory_events_nothing_was_killed(tmp_path: Path) -> None:
    assert not RunCgroup(tmp_path / "gone").oom_killed()
