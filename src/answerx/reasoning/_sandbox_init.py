"""The sandbox namespace's init (PID 1): builds the program's view, then runs it.

Run by :mod:`answerx.reasoning.sandbox` under ``unshare`` (new mount, PID and network
namespaces; a new user namespace too unless answerx runs as root) as::

    python -I _sandbox_init.py PLAN STATUS_FD WALL_S -- BOOTSTRAP-COMMAND...

``PLAN`` is JSON: the :class:`~answerx.reasoning.sandbox_view.View` (``dirs``,
``files``, ``links``, ``work``) plus ``root`` (an empty host directory to build the
new root on), ``program`` (the host file holding the code), ``uid`` (the uid the
program runs as, or -1 to keep this one), ``pid_max`` (whether to bound the pids),
``pivot_root`` (the syscall's number on this machine; glibc has no wrapper) and
``cgroup`` (the run cgroup's ``cgroup.procs`` to join first, or null).

It joins the run's cgroup, if any; mounts an empty tmpfs as the new root; binds the
plan's directories and files into it read-only; recreates its links; adds a ``/dev``
of a few device nodes, a ``/proc`` of this PID namespace that shows the program its
own processes only, and a private tmpfs work directory holding the program; moves
into it with ``pivot_root`` and detaches the old root, so nothing else of the
machine is left in the namespace. Then it forks the program: the child becomes the
unprivileged ``uid`` (as root), enters a nested user namespace (no capability over
these mounts), sets ``no_new_privs`` and execs the bootstrap.

It reports the program's end on STATUS_FD ("exit N", "signal N", "timeout",
"setup: why") and exits; the kernel then kills whatever is left in the namespace.
Written with ctypes because no maintained library wraps mount, pivot_root and
mount_setattr for Python 3.11. Imports nothing of answerx: it runs before the
view exists and must not depend on the package's own import path.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
from types import FrameType
from typing import Any

SETUP_FAILED = 125
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_BIND, _MS_REC = 0x1000, 0x4000
_MOUNT_ATTR_RDONLY, _MOUNT_ATTR_NOSUID, _MOUNT_ATTR_NODEV = 0x1, 0x2, 0x4
_AT_FDCWD, _AT_RECURSIVE, _MNT_DETACH = -100, 0x8000, 2
_SYS_MOUNT_SETATTR = 442  # one number on every architecture (added after the unification)
_CLONE_NEWUSER, _PR_SET_NO_NEW_PRIVS = 0x10000000, 38
_PASS_THROUGH = 0o111  # the directories on the way to a shown path: enter, never list
_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
          ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"))  # fmt: skip

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]  # fmt: skip


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        libc.mount(
            source.encode() if source else None, target.encode(),
            fstype.encode() if fstype else None, ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )  # fmt: skip


def _set_attributes(path: str, on: int, off: int, *, recursive: bool) -> None:
    attr = _MountAttr(on, off, 0, 0)
    _check(
        libc.syscall(
            ctypes.c_long(_SYS_MOUNT_SETATTR), ctypes.c_int(_AT_FDCWD), path.encode(),
            ctypes.c_uint(_AT_RECURSIVE if recursive else 0), ctypes.byref(attr),
            ctypes.c_size_t(ctypes.sizeof(attr)),
        ),
        f"mount_setattr {path}",
    )  # fmt: skip


class _Root:
    """The new root being built, on a tmpfs mounted at ``base``."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.made: list[str] = []  # directories created on the way, locked at the end
        self.mount_points: set[str] = set()  # never chmod'ed: that would change the host's
        _mount("tmpfs", self.base, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,mode=0755")

    def at(self, path: str) -> str:
        return self.base + path

    def makedirs(self, path: str) -> None:
        current = ""
        for part in path.strip("/").split("/"):
            current += "/" + part
            if not os.path.lexists(self.at(current)):
                os.mkdir(self.at(current), 0o755)
                self.made.append(current)

    def bind(self, source: str, path: str, *, directory: bool) -> None:
        if directory:
            self.makedirs(path)
        else:
            self.makedirs(os.path.dirname(path))
            with open(self.at(path), "w"):
                pass
        self.mount(source, path, None, _MS_BIND | _MS_REC)

    def mount(
        self, source: str | None, path: str, fstype: str | None, flags: int, data: str = ""
    ) -> None:
        self.mount_points.add(path)
        _mount(source, self.at(path), fstype, flags, data)

    def link(self, path: str, target: str) -> None:
        self.makedirs(os.path.dirname(path))
        os.symlink(target, self.at(path))

    def lock(self) -> None:
        """Make the directories created on the way enterable only (not listable)."""
        for path in self.made:
            if path not in self.mount_points:
                os.chmod(self.at(path), _PASS_THROUGH)


def join_cgroup(procs: str | None) -> None:
    """Move this init into the run's cgroup (``procs``: its ``cgroup.procs``), so that
    the program and every process it starts are born in it and bounded together."""
    if procs is None:
        return
    with open(procs, "w") as f:
        f.write("0")  # 0: the writer itself


def mount_proc(root: _Root) -> None:
    """A ``/proc`` of this PID namespace in which the program sees its own processes
    only: ``hidepid=invisible`` hides every process it may not ptrace, and it may not
    ptrace this init (another user namespace, or another uid as root), so the init's
    command line, which names host paths, is out of sight. A kernel without per-mount
    ``hidepid`` (before Linux 5.8) gets an empty, read-only ``/proc`` instead."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    for options in ("hidepid=invisible", "hidepid=2"):
        try:
            root.mount("proc", "/proc", "proc", flags, options)
            return
        except OSError:
            continue
    root.mount("tmpfs", "/proc", "tmpfs", flags | _MS_RDONLY, "size=4k,mode=0555")


def build(plan: dict[str, Any]) -> str:
    """Build the view, pivot into it; returns the work directory."""
    join_cgroup(plan.get("cgroup"))
    with open(plan["program"], "rb") as f:
        code = f.read()
    root = _Root(plan["root"])
    for path, target in plan["links"]:
        root.link(path, target)
    for path in plan["dirs"]:
        root.bind(path, path, directory=True)
    for path in plan["files"]:
        root.bind(path, path, directory=False)
    root.makedirs("/dev")
    root.mount("tmpfs", "/dev", "tmpfs", _MS_NOSUID, "size=64k,mode=0755")
    for name in plan["devices"]:
        root.bind(f"/dev/{name}", f"/dev/{name}", directory=False)
    for name, target in _LINKS:
        os.symlink(target, root.at(f"/dev/{name}"))
    root.makedirs("/proc")
    mount_proc(root)
    work, uid = plan["work"], plan["uid"]
    root.makedirs(work)
    owner = f",uid={uid},gid={uid}" if uid >= 0 else ""
    size = plan["work_bytes"]
    root.mount("tmpfs", work, "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={size},mode=0700{owner}")
    program = root.at(f"{work}/{plan['program_name']}")
    with open(program, "wb") as f:
        f.write(code)
    if uid >= 0:
        os.chown(program, uid, uid)
    if plan["pid_max"]:
        try:  # per-namespace pid_max: Linux >= 6.14; the kernel's minimum is 301
            with open("/proc/sys/kernel/pid_max", "w") as f:
                f.write("301")
        except OSError:
            pass
    root.lock()
    os.chdir(root.base)
    _check(libc.syscall(ctypes.c_long(plan["pivot_root"]), b".", b"."), "pivot_root")
    _check(libc.umount2(b".", _MNT_DETACH), "umount the old root")
    os.chdir("/")
    _set_attributes("/", _MOUNT_ATTR_RDONLY | _MOUNT_ATTR_NOSUID, 0, recursive=True)
    _set_attributes(work, _MOUNT_ATTR_NODEV, _MOUNT_ATTR_RDONLY, recursive=False)
    return str(work)


def run_program(work: str, uid: int, command: list[str], status_fd: int) -> int:
    """Fork the program in ``work`` as ``uid``; returns the child's pid."""
    pid = os.fork()
    if pid != 0:
        return pid
    try:
        os.close(status_fd)
        if uid >= 0:  # as root: really become someone else, with no capability left
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        _check(libc.unshare(_CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
        _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        os.chdir(work)
        os.execve(command[0], command, {})
    except BaseException as exc:
        os.write(2, f"sandbox: {exc}\n".encode())
    os._exit(SETUP_FAILED)


def main(argv: list[str]) -> int:
    plan, status_fd, wall_s = json.loads(argv[1]), int(argv[2]), float(argv[3])
    command = argv[argv.index("--") + 1 :]

    def report(text: str) -> None:
        os.write(status_fd, text.encode("utf-8", "replace"))

    try:
        work = build(plan)
    except OSError as exc:
        report(f"setup: {exc}")
        return SETUP_FAILED
    pid = run_program(work, plan["uid"], command, status_fd)

    def timeout(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError

    signal.signal(signal.SIGALRM, timeout)
    signal.setitimer(signal.ITIMER_REAL, wall_s)  # a backstop when the parent is gone
    try:
        _, status = os.waitpid(pid, 0)
    except TimeoutError:
        report("timeout")
        return 124
    signal.setitimer(signal.ITIMER_REAL, 0)
    if os.WIFSIGNALED(status):
        report(f"signal {os.WTERMSIG(status)}")
    else:
        report(f"exit {os.waitstatus_to_exitcode(status)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
