"""A cgroup v2 for one sandboxed run: its memory and its processes bounded in total.

``RLIMIT_AS`` bounds each process of a program, not the program: six children of
200 MB each fit under a 256 MB per-process limit. A cgroup bounds them together
(``memory.max``, no swap, ``pids.max``), and its ``memory.events`` say whether the
kernel's OOM killer acted, so the run can be reported as ``memory_limit``.

A cgroup can be made where this process may write to its own cgroup v2 directory
with the ``memory`` and ``pids`` controllers enabled below it: as root on a host or
in a container that delegates its cgroup, or under a systemd delegated unit.
Elsewhere (cgroup v1, a read-only ``/sys/fs/cgroup``, controllers not delegated)
:func:`make_run_cgroup` returns None, and :mod:`answerx.reasoning.sandbox` falls
back to a process count small enough that count x per-process limit stays within
the budget. The namespace's init moves itself into the cgroup before it starts the
program (:mod:`answerx.reasoning._sandbox_init`), so every process of the program
is born in it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["RunCgroup", "cgroup_base", "make_run_cgroup"]

_CONTROLLERS: Final = ("memory", "pids")
_PREFIX: Final = "answerx-sandbox-"
# Seconds to wait for the killed processes to leave before removing the directory.
_REMOVE_S: Final = 2.0


@dataclass(frozen=True)
class RunCgroup:
    """One run's cgroup directory (``path``), made by :func:`make_run_cgroup`."""

    path: Path

    @property
    def procs(self) -> str:
        """The file a process writes ``0`` to, to move itself in."""
        return str(self.path / "cgroup.procs")

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the run for exceeding ``memory.max``."""
        try:
            events = (self.path / "memory.events").read_text()
        except OSError:
            return False
        counts = dict(line.split() for line in events.splitlines() if line.count(" ") == 1)
        return int(counts.get("oom_kill", "0")) > 0 or int(counts.get("oom_group_kill", "0")) > 0

    def remove(self) -> None:
        """Kill whatever is left in it and remove it (errors ignored: best effort, as a
        temporary directory's removal is)."""
        with contextlib.suppress(OSError):
            (self.path / "cgroup.kill").write_text("1")  # Linux >= 5.14
        deadline = time.monotonic() + _REMOVE_S
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:  # EBUSY while the killed processes are still leaving
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)


def make_run_cgroup(memory_bytes: int, max_processes: int) -> RunCgroup | None:
    """A fresh cgroup whose processes together hold at most ``memory_bytes`` (no swap)
    and number at most ``max_processes``; None where none can be made here."""
    base = cgroup_base()
    if base is None:
        return None
    path = base / f"{_PREFIX}{secrets.token_hex(6)}"
    try:
        path.mkdir()
    except OSError:
        return None
    group = RunCgroup(path)
    try:
        (path / "memory.max").write_text(str(memory_bytes))
        with contextlib.suppress(FileNotFoundError):  # no swap accounting: no swap to use
            (path / "memory.swap.max").write_text("0")
        (path / "pids.max").write_text(str(max_processes))
    except OSError:
        group.remove()
        return None
    return group


@functools.cache
def cgroup_base() -> Path | None:
    """The cgroup v2 directory run cgroups are made in (this process's own, with the
    memory and pids controllers enabled for its children), or None. Found once."""
    mount = _cgroup2_mount()
    own = _own_cgroup()
    if mount is None or own is None:
        return None
    base = mount / own.lstrip("/")
    control = base / "cgroup.subtree_control"
    try:
        enabled = control.read_text().split()
        if not all(c in enabled for c in _CONTROLLERS):
            # Refused where this cgroup holds processes and is not the root (cgroup v2's
            # "no internal processes" rule), or where it is not ours to change.
            control.write_text(" ".join(f"+{c}" for c in _CONTROLLERS))
        if not os.access(base, os.W_OK):
            return None
    except OSError:
        return None
    return base


def _cgroup2_mount() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (``/sys/fs/cgroup``, or
    ``/sys/fs/cgroup/unified`` on a hybrid system), from ``/proc/self/mountinfo``."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        # ID PARENT DEV ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
        if "-" in fields and fields[fields.index("-") + 1] == "cgroup2" and fields[3] == "/":
            return Path(fields[4].replace("\\040", " "))
    return None


def _own_cgroup() -> str | None:
    """This process's cgroup v2 path (the ``0::`` line of ``/proc/self/cgroup``)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    return next((line[3:] for line in lines if line.startswith("0::")), None)
