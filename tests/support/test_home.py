"""$ANSWERX_HOME: where the default store, its cache and the reports live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from answerx.experiments.config import config_from_dict
from answerx.experiments.store import ResultStore
from answerx.support.home import answerx_home, default_db, default_report_dir

MINIMAL = {"datasets": [{"sample": "arithmetic"}], "approaches": ["none"]}


def test_without_answerx_home_state_lives_in_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSWERX_HOME")

    assert answerx_home() == Path("runs")
    assert default_db() == Path("runs/answerx.db")
    assert default_report_dir() == Path("runs/reports")


def test_a_config_without_output_paths_writes_into_answerx_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANSWERX_HOME", str(tmp_path / "state"))

    config = config_from_dict(MINIMAL)

    assert config.output.db == tmp_path / "state" / "answerx.db"
    assert config.output.report_dir == tmp_path / "state" / "reports"


def test_a_store_opened_without_a_path_is_the_one_in_answerx_home(tmp_path: Path) -> None:
    with ResultStore() as store:
        assert store.path == tmp_path / "runs" / "answerx.db"
    assert store.path.is_file()


def test_tests_never_see_a_provider_key_from_the_environment() -> None:
    # The root conftest clears every key variable the provider specs name.
    assert "OPENAI_API_KEY" not in os.environ and "ANTHROPIC_API_KEY" not in os.environ
