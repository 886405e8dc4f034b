"""``open_judge(JudgeSpec)``: one factory, one cache rule, one price table for every caller."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from answerx.errors import ConfigError, CredentialsMissing
from answerx.judge import JudgeSpec, LLMJudge, MemoryJudgeCache, cache_location, open_judge
from answerx.structured.prices import Price
from fake_managers import clear_provider_env

KEY = "sk-test-open-judge-0123456789"


@pytest.fixture
def openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_provider_env(monkeypatch, extra=("ANSWERX_JUDGE_CACHE",))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_the_shorthand_names_provider_and_model() -> None:
    assert JudgeSpec.model_validate("openrouter/openai/gpt-4o-mini").model == "openai/gpt-4o-mini"
    assert JudgeSpec.model_validate("openai").model is None
    with pytest.raises(ConfigError, match="names no provider"):
        JudgeSpec.named("/gpt-4o-mini")


def test_the_spec_gives_the_judge_its_budget_floor_price_and_cache(openai_key: None) -> None:
    spec = JudgeSpec.named("openai/judge-model", max_calls=7, max_cost_usd=0.5, min_confidence=0.8)
    cache = MemoryJudgeCache()
    prices = {"openai": {"judge-model": Price(input=1.0, output=2.0)}}
    judge = open_judge(spec, cache=cache, prices=prices)
    assert isinstance(judge, LLMJudge) and judge.name == "openai/judge-model"
    assert (judge.budget.max_calls, judge.budget.max_cost_usd) == (7, 0.5)
    assert judge.budget.price == Price(input=1.0, output=2.0)
    assert judge.min_confidence == 0.8 and judge.cache is cache


def test_a_cost_cap_without_a_price_is_refused_in_the_callers_words(openai_key: None) -> None:
    spec = JudgeSpec.named("openai/unpriced-model", max_cost_usd=1.0)
    with pytest.raises(ConfigError, match="--judge-max-cost needs the price of openai/unpriced"):
        open_judge(spec, prices={}, cost_cap="--judge-max-cost")


def test_a_judge_that_cannot_work_opens_no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_provider_env(monkeypatch)
    opened: list[JudgeSpec] = []

    def open_cache(spec: JudgeSpec) -> MemoryJudgeCache:
        opened.append(spec)
        return MemoryJudgeCache()

    with pytest.raises(CredentialsMissing):
        open_judge(JudgeSpec.named("openai/judge-model"), open_cache=open_cache)
    assert opened == []


def test_the_key_may_come_from_a_variable_the_spec_names(
    openai_key: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = JudgeSpec.named("openai/judge-model", api_key_env="JUDGE_ONLY_KEY")
    with pytest.raises(CredentialsMissing, match="JUDGE_ONLY_KEY") as missing:
        open_judge(spec)
    assert missing.value.variable == "JUDGE_ONLY_KEY"
    monkeypatch.setenv("JUDGE_ONLY_KEY", "sk-test-judge-only-0123456789")
    assert open_judge(spec).manager._api_key == "sk-test-judge-only-0123456789"


# --------------------------------------------------------------------------- the cache rule


def test_the_cache_sits_beside_the_results_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANSWERX_JUDGE_CACHE", raising=False)
    monkeypatch.setenv("ANSWERX_HOME", str(tmp_path / "home"))
    assert cache_location(store=tmp_path / "runs" / "answerx.db") == tmp_path / "runs" / "cache.db"
    assert cache_location() == tmp_path / "home" / "cache.db"  # beside the default store


def test_one_override_names_another_file_or_turns_the_cache_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANSWERX_JUDGE_CACHE", str(tmp_path / "judge.db"))
    assert cache_location(store=tmp_path / "answerx.db") == tmp_path / "judge.db"
    monkeypatch.setenv("ANSWERX_JUDGE_CACHE", "off")
    assert cache_location() is None
    assert cache_location("elsewhere.db") == Path("elsewhere.db")  # a caller's own setting


# --------------------------------------------------------------------------- every caller


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[JudgeSpec]:
    """The specs ``open_judge`` was called with, whichever module called it."""
    import answerx.experiments.judging
    import answerx.judge
    import answerx.service.judge

    specs: list[JudgeSpec] = []

    def spy(spec: JudgeSpec, **options: Any) -> LLMJudge:
        specs.append(spec)
        return open_judge(spec, **options)

    for module in (answerx.judge, answerx.experiments.judging, answerx.service.judge):
        monkeypatch.setattr(module, "open_judge", spy)
    return specs


def test_the_command_line_builds_its_judge_with_open_judge(
    openai_key: None, built: list[JudgeSpec], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from answerx.cli.asking import judge_from_flags

    monkeypatch.setenv("ANSWERX_HOME", str(tmp_path))
    with ExitStack() as stack:
        judge = judge_from_flags(
            "openai/judge-model", max_calls=3, max_cost=None, cache=True, stack=stack
        )
        assert judge.cache is not None and (tmp_path / "cache.db").exists()
    assert [(s.label, s.max_calls) for s in built] == [("openai/judge-model", 3)]


def test_runs_score_builds_its_judge_with_open_judge(
    openai_key: None, built: list[JudgeSpec], tmp_path: Path
) -> None:
    from answerx.experiments.config import JudgeConfig
    from answerx.experiments.judging import judge_cache, judge_for_scoring, judge_spec

    config = JudgeConfig.model_validate({"provider": "openai", "model": "judge-model"})
    spec = judge_spec(config, results_db=tmp_path / "answerx.db", cache=None)
    cache = judge_cache(spec)
    assert cache is not None and cache.path == tmp_path / "cache.db"
    try:
        judge = judge_for_scoring(config, cache=cache)
    finally:
        cache.close()
    assert judge.min_confidence == config.min_confidence
    assert [s.label for s in built] == ["openai/judge-model"]


def test_the_service_builds_its_judge_with_open_judge(
    openai_key: None, built: list[JudgeSpec]
) -> None:
    from answerx.service.judge import server_judge
    from answerx.service.metrics import ServiceMetrics
    from answerx.service.settings import ServiceSettings

    settings = ServiceSettings(judge="openai/judge-model", judge_cache="off", judge_max_calls=2)
    judge = server_judge(settings, ServiceMetrics())
    assert judge is not None and judge.llm.cache is None
    assert [(s.label, s.max_calls, s.cache) for s in built] == [("openai/judge-model", 2, "off")]


def test_a_run_builds_its_judge_with_open_judge_through_its_own_manager(
    openai_key: None, built: list[JudgeSpec], tmp_path: Path
) -> None:
    from answerx.experiments.cache import ResponseCache
    from answerx.experiments.calls import ProviderLimits, RunClientManager
    from answerx.experiments.config import JudgeConfig
    from answerx.experiments.judging import judge_for_run

    config = JudgeConfig.model_validate({"provider": "openai", "model": "judge-model"})
    cache = ResponseCache(tmp_path / "cache.db")  # the run's own response cache
    try:
        judge = judge_for_run(
            config, cache=cache, prices={}, limits=ProviderLimits(concurrency=2),
            prompt_dir=None,
        )  # fmt: skip
    finally:
        cache.close()
    assert isinstance(judge.manager, RunClientManager) and judge.cache is cache
    assert [s.label for s in built] == ["openai/judge-model"]
