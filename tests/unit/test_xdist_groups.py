"""How `make test` spreads the suite over pytest-xdist's workers (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

from worker_groups import SERIAL_GROUPS, xdist_group

TESTS = Path(__file__).resolve().parents[1]


def test_a_file_is_a_group_of_its_own() -> None:
    assert xdist_group(TESTS / "wheel" / "test_wheel.py") == "wheel/test_wheel.py"
    assert xdist_group(TESTS / "cli" / "test_cli_demo.py") == "cli/test_cli_demo.py"


def test_the_sandbox_files_share_one_group_so_they_never_run_side_by_side() -> None:
    groups = {xdist_group(path) for path in (TESTS / "reasoning").glob("test_sandbox*.py")}
    assert groups == {"reasoning/test_sandbox"} and "reasoning/test_sandbox" in SERIAL_GROUPS
    assert xdist_group(TESTS / "reasoning" / "test_agent_loop.py") == "reasoning/test_agent_loop.py"
