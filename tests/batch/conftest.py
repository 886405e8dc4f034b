"""Tests of workers forked warm from the caller, run where the caller is alone.

Workers fork from the calling process only where it runs no other Python thread
(:func:`answerx.batch.workers.can_fork_here`). In a whole test session earlier tests
leave threads running (the fake provider's server, thread pools), so a test marked
``forks_here`` is run again in a fresh interpreter of its own, as a command-line run
or a script would be, and its outcome there is its outcome here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from answerx.batch.workers import can_fork_here

_ALONE = "ANSWERX_TEST_ALONE"  # set in the fresh interpreter: run the test itself there
_ROOT = Path(__file__).resolve().parents[2]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "forks_here: needs workers forked from this process (run alone if not)"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if pyfuncitem.get_closest_marker("forks_here") is None:
        return None
    if os.environ.get(_ALONE) or can_fork_here():
        return None  # alone already: pytest runs the test as usual
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", pyfuncitem.nodeid],
        cwd=_ROOT,
        env={**os.environ, _ALONE: "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        pytest.fail(f"failed when run alone:\n{done.stdout[-6000:]}{done.stderr[-2000:]}")
    return True
