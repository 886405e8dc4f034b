"""How `make test` spreads the suite over pytest-xdist's workers (``--dist loadgroup``).

Kept apart from ``conftest.py``: several ``conftest`` modules sit on the path, and a test
that imports ``conftest`` by name may get another one.
"""

from __future__ import annotations

from pathlib import Path

_TESTS = Path(__file__).parent

#: Files whose tests never run beside one another on pytest-xdist's workers (``make test``
#: runs ``--dist loadgroup``), by the prefix of their path relative to ``tests/``, each with
#: why. Every other file is a group of its own: its module fixtures start once.
SERIAL_GROUPS: dict[str, str] = {
    "reasoning/test_sandbox": "isolated runs make, join and remove cgroups and namespaces: "
    "a run's cgroup was once gone when a sandbox test on the other worker ran beside it",
}


def xdist_group(path: Path) -> str:
    """The pytest-xdist group of the test file at ``path``: a prefix of
    :data:`SERIAL_GROUPS`, or the file itself."""
    try:
        name = path.relative_to(_TESTS).as_posix()
    except ValueError:
        return str(path)
    return next((prefix for prefix in SERIAL_GROUPS if name.startswith(prefix)), name)
