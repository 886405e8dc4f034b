"""``answerx serve`` hands its settings to the app factory; the environment is never written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from answerx.service.settings import ServiceSettings
from answerx.testing import FakeProviderServer


def test_applying_the_serve_options_leaves_the_environment_untouched(
    fake_env: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from answerx.cli.serve import serve_settings

    monkeypatch.setenv("ANSWERX_JUDGE_CACHE", "off")
    before = dict(os.environ)
    settings = serve_settings(
        reward={"task": "math", "choices_field": "options", "numbers_field": None},
        judge="openai/judge-model", judge_max_calls=5, judge_max_cost_usd=None,
        judge_concurrency=2, judge_min_confidence=0.7,
    )  # fmt: skip
    assert dict(os.environ) == before
    assert (settings.judge, settings.judge_max_calls, settings.judge_concurrency) == (
        "openai/judge-model", 5, 2,
    )  # fmt: skip
    assert settings.judge_min_confidence == 0.7 and settings.judge_cache == "off"
    assert (settings.reward.task, settings.reward.choices_field) == ("math", "options")


def test_serve_builds_the_app_from_the_settings_it_is_given(
    clean_provider_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    from answerx.service.server import serve

    started: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: started.update(app=app, **options))
    before = dict(os.environ)
    given = ServiceSettings(max_batch=7)
    serve("127.0.0.1", 0, settings=given, allowed_hosts=["api.example.com"])
    assert dict(os.environ) == before
    assert started["factory"] is True
    app = started["app"]()  # what uvicorn calls: the app factory, with these settings
    assert app.state.settings.max_batch == 7
    assert app.state.settings.allowed_hosts == ("api.example.com",)


def test_worker_processes_read_the_same_settings_from_their_variables(tmp_path: Path) -> None:
    from answerx.service.server import settings_environment
    from answerx.service.verify_schemas import RewardSettings

    settings = ServiceSettings(
        api_token="t" * 20, allowed_hosts=("a.example.com", "*.b.example.com"), max_batch=9,
        runs_db=tmp_path / "answerx.db", judge="openai/judge-model", judge_cache="off",
        reward=RewardSettings(task="math", numbers_field="nums"),
    )  # fmt: skip
    variables = {k: v for k, v in settings_environment(settings).items() if v is not None}
    assert ServiceSettings.from_env(variables) == settings


def test_a_bad_option_fails_naming_its_variable(clean_provider_env: None) -> None:
    from answerx.errors import ConfigError

    with pytest.raises(ConfigError, match="ANSWERX_REWARD_TASK"):
        ServiceSettings().reward.updated(task="gsm8k")
    with pytest.raises(ConfigError, match="ANSWERX_MAX_BATCH"):
        ServiceSettings().updated(max_batch=0)
