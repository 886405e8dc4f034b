"""Tests of workers forked warm from the caller, run where the caller is alone.

Workers fork from the calling process only where it runs no other Python thread
(:func:`answerx.batch.workers.can_fork_here`). In a whole test session earlier tests
leave threads running (the fake provider's server, thread pools), so a test marked
``forks_here`` is run again in a fresh interpreter of its own, as a command-line run
or a script would be, and its outcome there is its outcome here. The first such test
of a module runs all of that module's in one fresh pytest (a pytest's start-up alone
is 4 s of CPU); each then reports its own outcome.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from answerx.batch.workers import can_fork_here

_ALONE = "ANSWERX_TEST_ALONE"  # set in the fresh interpreter: run the test itself there
_ROOT = Path(__file__).resolve().parents[2]

#: nodeid -> (outcome, text) of the tests already run alone, until each reports it.
_RUN_ALONE: dict[str, tuple[str, str]] = {}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "forks_here: needs workers forked from this process (run alone if not)"
    )


def _junit_key(nodeid: str) -> tuple[str, str]:
    """(classname, name) of ``nodeid`` in pytest's JUnit XML."""
    *path, name = nodeid.split("::")
    path[0] = path[0].removesuffix(".py").replace("/", ".")
    return ".".join(path), name


def _outcomes(report: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """(classname, name) -> (outcome, text) of every test case in a JUnit XML report."""
    found = {}
    for case in ET.parse(report).iter("testcase"):
        outcome, text = "passed", ""
        for tag in ("failure", "error", "skipped"):
            element = case.find(tag)
            if element is not None:
                outcome = "skipped" if tag == "skipped" else "failed"
                text = element.get("message", "") + "\n" + (element.text or "")
                break
        found[(case.get("classname", ""), case.get("name", ""))] = (outcome, text)
    return found


def _run_alone(items: list[pytest.Item]) -> None:
    """Run ``items`` in one fresh interpreter; their outcomes go into :data:`_RUN_ALONE`."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.xml"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"--junitxml={report}", *(item.nodeid for item in items)],
            cwd=_ROOT, env={**os.environ, _ALONE: "1"},
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        outcomes = _outcomes(report) if report.is_file() else {}
    # A test with no outcome (the run died before it): the run's own output says why.
    died = ("failed", f"no outcome (exit {done.returncode}):\n{done.stdout[-6000:]}")
    for item in items:
        outcome, text = outcomes.get(_junit_key(item.nodeid), died)
        if outcome == "failed":
            text += done.stderr[-2000:]
        _RUN_ALONE[item.nodeid] = (outcome, text)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if pyfuncitem.get_closest_marker("forks_here") is None:
        return None
    if os.environ.get(_ALONE) or can_fork_here():
        return None  # alone already: pytest runs the test as usual
    if pyfuncitem.nodeid not in _RUN_ALONE:
        _run_alone(
            [
                item
                for item in pyfuncitem.session.items
                if item.path == pyfuncitem.path and item.get_closest_marker("forks_here")
            ]
        )
    outcome, text = _RUN_ALONE.pop(pyfuncitem.nodeid)
    if outcome == "skipped":
        pytest.skip(text)
    if outcome == "failed":
        pytest.fail(f"failed when run alone:\n{text}")
    return True
