"""What the sandboxed program sees of the files: a view built from nothing.

:func:`host_view` plans, once per process, the filesystem that
:mod:`answerx.reasoning.sandbox` builds for a program: an empty root into which
exactly these host paths are mounted read-only, at the paths they have here,

- the interpreter: ``sys.prefix`` and ``sys.base_prefix`` (and the exec prefixes:
  the venv and the Python it was made from), wherever they live;
- the directories holding the shared libraries that the interpreter and its
  standard extension modules load (:func:`shared_libraries`), and the dynamic
  loader's cache ``/etc/ld.so.cache``;
- the symbolic links on the way to them (``/lib -> usr/lib``, a venv's
  ``bin/python`` pointing into ``/root/.pyenv``), recreated as links;

and nothing else: the directories between ``/`` and those paths are created
empty and can be passed through but not listed. The sandbox adds a minimal
``/dev``, the ``/proc`` of the program's PID namespace and its private work
directory (:attr:`View.work`).

A view that would show a home directory (one of those directories being ``/``,
or holding ``$HOME``, ``/root`` or ``/home``) is refused with :class:`ViewError`.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["DEVICES", "View", "ViewError", "host_view", "plan_view", "shared_libraries"]

#: Device nodes of the host shown in the program's ``/dev``.
DEVICES: Final = ("null", "zero", "full", "random", "urandom")
#: The loader's index of library directories (no secret; libraries outside the
#: default directories are found through it).
LOADER_CACHE: Final = "/etc/ld.so.cache"
# Where ldd is not installed: the directories the loader searches by default.
_DEFAULT_LIBRARY_DIRS: Final = ("/lib", "/lib64", "/usr/lib", "/usr/lib64")
_WORK: Final = "/sandbox"
_MAX_LINKS: Final = 40  # as the kernel's own limit on links followed in one lookup


class ViewError(Exception):
    """The view cannot be built without showing what it must hide."""


@dataclass(frozen=True)
class View:
    """The host paths shown to the program (read-only, at the same paths)."""

    dirs: tuple[str, ...]
    files: tuple[str, ...]
    links: tuple[tuple[str, str], ...]
    work: str

    def plan(self) -> dict[str, Any]:
        """The view as the sandbox's init reads it (JSON-ready)."""
        return {"dirs": self.dirs, "files": self.files, "links": self.links, "work": self.work}


@functools.cache
def host_view() -> View:
    """The view for this interpreter (found once per process)."""
    prefixes = (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    modules = sysconfig.get_config_var("DESTSHARED") or ""
    extensions = sorted(str(p) for p in Path(modules).glob("*.so")) if modules else []
    libraries = shared_libraries(os.path.realpath(sys.executable), extensions)
    homes = [str(Path.home()), "/root", "/home"]
    return plan_view(sys.executable, prefixes, libraries, homes=homes)


def plan_view(
    executable: str,
    prefixes: Sequence[str],
    libraries: Sequence[str],
    *,
    homes: Sequence[str] = (),
) -> View:
    """The view showing ``prefixes``, the directories of ``libraries`` (files, or
    directories shown whole) and the loader's cache, with the links on the way to
    them and to ``executable``.

    Raises :class:`ViewError` when one of those directories is ``/`` or holds one of
    ``homes``.
    """
    homes = [os.path.realpath(h) for h in homes if h]
    dirs = _outermost([*map(os.path.realpath, prefixes), *map(_library_dir, libraries)])
    for directory in dirs:
        _refuse_if_revealing(directory, homes)
    files: list[str] = []
    links: dict[str, str] = {}
    wanted = [executable, *prefixes, *libraries]
    if os.path.isfile(LOADER_CACHE):
        wanted.append(LOADER_CACHE)
    for path in wanted:
        real = _walk(path, dirs, links)
        if not _inside(real, dirs) and os.path.isfile(real) and real not in files:
            files.append(real)  # the interpreter outside its prefix, the loader's cache
    occupied = [*dirs, *files, *links]
    return View(tuple(dirs), tuple(files), tuple(links.items()), _free_name(_WORK, occupied))


def shared_libraries(executable: str, extensions: Sequence[str] = ()) -> list[str]:
    """The shared libraries the interpreter ``executable`` and its ``extensions`` load.

    The interpreter's as ``ldd`` prints them (links unresolved: the loader's own
    path, ``/lib64/ld-linux-x86-64.so.2``, is a link the view must recreate). The
    extensions' by loading them all in one child interpreter (``dlopen``, without
    running their module code) and reading its memory map: ``ldd`` would take one
    loader run per module, seconds for the seventy of the standard library. Where
    ``ldd`` is missing, the default library directories (shown whole).
    """
    ldd = shutil.which("ldd")
    if ldd is None:
        return [d for d in _DEFAULT_LIBRARY_DIRS if os.path.isdir(d)]
    found: dict[str, None] = {}
    listing = _output([ldd, executable])
    for line in listing.splitlines():
        # "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)", "/lib64/ld-linux... (0x...)"
        words = line.split()
        path = words[2] if len(words) > 2 and words[1] == "=>" else words[0] if words else ""
        if path.startswith("/") and os.path.exists(path):
            found[path] = None
    if extensions:
        maps = _output([executable, "-I", "-c", _LOAD_AND_MAP, *extensions])
        for line in maps.splitlines():
            fields = line.split(maxsplit=5)  # address perms offset dev inode [path]
            path = fields[5] if len(fields) == 6 else ""
            if path.startswith("/") and ".so" in os.path.basename(path):
                found[path] = None
    return list(found)


# Run by shared_libraries in a child interpreter: load each extension module's file
# (its dependencies with it) and print the memory map.
_LOAD_AND_MAP: Final = """\
import ctypes, os, sys
for path in sys.argv[1:]:
    try:
        ctypes.CDLL(path, mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    except OSError:
        pass  # a module whose library is missing here cannot be imported anyway
with open("/proc/self/maps") as maps:
    sys.stdout.write(maps.read())
"""


def _output(command: list[str]) -> str:
    done = subprocess.run(
        command, capture_output=True, text=True, env={"LC_ALL": "C"}, check=False, timeout=60
    )
    return done.stdout


def _library_dir(path: str) -> str:
    real = os.path.realpath(path)
    return real if os.path.isdir(real) else os.path.dirname(real)


def _refuse_if_revealing(directory: str, homes: Sequence[str]) -> None:
    if directory == "/":
        raise ViewError("the interpreter needs / itself: the sandbox would show every file")
    for home in homes:
        if home == directory or Path(directory) in Path(home).parents:
            raise ViewError(
                f"the interpreter needs {directory}, which holds the home directory {home}: "
                "the sandbox would show it (use a Python installed elsewhere, or a venv)"
            )


def _outermost(paths: Iterable[str]) -> list[str]:
    """The directories among ``paths``, each once, none inside another."""
    kept: list[str] = []
    for path in sorted({p for p in paths if os.path.isdir(p)}):
        if not _inside(path, kept):
            kept.append(path)
    return kept


def _inside(path: str, dirs: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def _walk(path: str, dirs: Sequence[str], links: dict[str, str]) -> str:
    """Resolve ``path`` as the kernel would, one component at a time, noting in
    ``links`` every symbolic link met outside ``dirs`` (those come with their
    directory); returns the real path."""
    pending = list(Path(path).parts[1:])
    current, followed = "/", 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        if not os.path.islink(candidate):
            current = candidate
            continue
        followed += 1
        if followed > _MAX_LINKS:
            raise ViewError(f"too many symbolic links under {path}")
        target = os.readlink(candidate)
        if not _inside(candidate, dirs):
            links[candidate] = target
        pending[:0] = Path(target).parts[1:] if target.startswith("/") else Path(target).parts
        current = "/" if target.startswith("/") else current
    return current


def _free_name(name: str, occupied: Sequence[str]) -> str:
    """``name``, or ``name-2``, ``name-3`` ... whichever no shown path is on or under."""
    candidate, n = name, 1
    while any(_inside(p, [candidate]) or _inside(candidate, [p]) for p in occupied):
        n += 1
        candidate = f"{name}-{n}"
    return candidate
