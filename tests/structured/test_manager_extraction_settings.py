"""The extraction call's settings: one object per provider (providers.yaml), overridable by
the manager, an experiment config and each call; answerx's defaults and the ml-agents
Phase-15 spec's values; and the spec's named entry points (primary and fallback mode)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from answerx.errors import ConfigError, StructuredOutputError
from answerx.experiments import run_experiment
from answerx.experiments.config import config_from_dict, config_hash
from answerx.structured.extraction import (
    MARKER_CONFIDENCE,
    ExtractionSettings,
    resolve_extraction,
)
from answerx.structured.providers import get_provider, load_providers
from answerx.testing import FakeProviderServer, RecordedRequest, Reply
from fake_managers import MakeManager

REASONING = "Seven trays of twelve rolls make 84; 84 - 58 = 26. So 26 rolls are left."
GOOD = {"full_reasoning_text": REASONING, "answer_value": "26", "confidence": 0.9}
UNSURE = {**GOOD, "confidence": 0.5}

#: The ml-agents Phase-15 parsing configuration (ParsingConfig).
SPEC_VALUES = {"temperature": 0.1, "max_tokens": 500, "confidence_threshold": 0.7,
               "enable_fallback": True}  # fmt: skip


def test_every_provider_row_holds_answerxs_extraction_defaults() -> None:
    defaults = ExtractionSettings()

    assert (defaults.temperature, defaults.max_tokens) == (0.0, None)
    assert (defaults.min_confidence, defaults.confidence_threshold) == (MARKER_CONFIDENCE, 0.0)
    assert defaults.min_confidence == 0.85 and defaults.enable_fallback is True
    for name in load_providers():
        assert ExtractionSettings().updated(get_provider(name).extraction) == defaults, name


def test_the_ml_agents_preset_has_the_specs_values() -> None:
    spec = ExtractionSettings.from_preset("ml-agents")

    assert spec.model_dump(include=set(SPEC_VALUES)) == SPEC_VALUES
    assert spec.min_confidence == MARKER_CONFIDENCE  # answerx's two-stage threshold, kept


def test_overrides_change_only_the_fields_they_name() -> None:
    base = ExtractionSettings.from_preset("ml-agents")

    assert base.updated({"max_tokens": 800}).model_dump(include=set(SPEC_VALUES)) == {
        **SPEC_VALUES, "max_tokens": 800,
    }  # fmt: skip
    assert base.updated({"preset": "answerx", "temperature": 0.2}) == ExtractionSettings(
        temperature=0.2
    )
    assert resolve_extraction(base, None) is base
    with pytest.raises(ConfigError, match="temperatur"):
        base.updated({"temperatur": 0.2})
    with pytest.raises(ConfigError, match="unknown extraction preset 'spec'"):
        ExtractionSettings.from_preset("spec")


def test_the_extraction_call_runs_at_temperature_zero_and_the_providers_max_tokens(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai", max_tokens=2048)
    fake_provider.enqueue(Reply.tool_call(GOOD))

    extraction, _ = manager.extract_structured(REASONING, "chain_of_thought", task="numeric")

    sent = fake_provider.last_request.json
    assert (sent["temperature"], sent["max_tokens"]) == (0.0, 2048)
    # Sent as 0, as before the setting existed: experiment caches keep their keys.
    assert isinstance(sent["temperature"], int)
    assert extraction.answer_value == "26"


def test_the_specs_settings_per_call_send_its_temperature_and_max_tokens(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai")
    fake_provider.enqueue(Reply.tool_call(GOOD), Reply.tool_call(GOOD))

    manager.extract_structured(REASONING, task="numeric", settings="ml-agents")
    spec_request = fake_provider.last_request.json
    manager.extract_structured(REASONING, task="numeric", settings="ml-agents", temperature=0.4)

    assert (spec_request["temperature"], spec_request["max_tokens"]) == (0.1, 500)
    assert fake_provider.last_request.json["temperature"] == 0.4  # the call's own kw win


def test_the_manager_takes_extraction_settings_over_the_providers(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai", extraction={"temperature": 0.3, "max_tokens": 700})
    fake_provider.enqueue(Reply.tool_call(GOOD))

    manager.extract_structured(REASONING, task="numeric")

    assert manager.extraction.temperature == 0.3
    assert (fake_provider.last_request.json["temperature"], fake_provider.last_request.json[
        "max_tokens"]) == (0.3, 700)  # fmt: skip


def test_an_extraction_below_the_confidence_threshold_is_not_accepted(
    make_manager: MakeManager, fake_provider: FakeProviderServer
) -> None:
    manager = make_manager("openai")
    fake_provider.enqueue(Reply.tool_call(UNSURE), Reply.tool_call(UNSURE))

    accepted, _ = manager.extract_structured(REASONING, task="numeric")  # answerx: threshold 0
    with pytest.raises(StructuredOutputError, match=r"confidence 0.5 is below .* 0.7") as caught:
        manager.extract_structured(REASONING, task="numeric", settings="ml-agents")

    assert accepted.answer_value == "26"
    assert caught.value.call_info is not None and caught.value.call_info.mode == "tools"
    assert caught.value.call_info.usage.total_tokens > 0  # the call was made and paid for


@pytest.mark.parametrize(("enable_fallback", "requests"), [(True, 2), (False, 1)])
def test_the_fallback_switch_keeps_the_call_to_the_first_mode(
    make_manager: MakeManager,
    fake_provider: FakeProviderServer,
    enable_fallback: bool,
    requests: int,
) -> None:
    manager = make_manager("openai")
    fake_provider.enqueue(Reply.reject_tools(), Reply.json(GOOD))
    settings = {"enable_fallback": enable_fallback}

    if enable_fallback:
        _, info = manager.extract_structured(REASONING, task="numeric", settings=settings)
        assert info.mode == "json_schema"
    else:
        with pytest.raises(StructuredOutputError, match="tools"):
            manager.extract_structured(REASONING, task="numeric", settings=settings)

    assert len(fake_provider.chat_requests) == requests


def test_a_providers_file_sets_a_providers_extraction(
    make_manager: MakeManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    custom = tmp_path / "providers.yaml"
    custom.write_text("openai:\n  extraction: ml-agents\ncohere:\n  extraction:\n"
                      "    confidence_threshold: 0.5\n", encoding="utf-8")  # fmt: skip

    openai = make_manager("openai", config_path=str(custom))
    cohere = make_manager("cohere", config_path=str(custom))

    assert openai.extraction == ExtractionSettings.from_preset("ml-agents")
    assert cohere.extraction == ExtractionSettings(confidence_threshold=0.5)


def test_a_misspelt_extraction_setting_in_a_providers_file_names_its_line(
    tmp_path: Path,
) -> None:
    custom = tmp_path / "providers.yaml"
    custom.write_text("openai:\n  extraction:\n    temprature: 0.1\n", encoding="utf-8")

    with pytest.raises(ConfigError, match=r"providers.yaml:3: .*temprature.*temperature"):
        get_provider("openai", custom)


@pytest.mark.parametrize(
    ("provider", "primary", "fallback"),
    [
        # The spec's matrix: Anthropic ANTHROPIC_TOOLS → ANTHROPIC_JSON, OpenRouter and
        # Local-OpenAI TOOLS → JSON, Cohere JSON only. answerx's chains differ for Cohere
        # (tools, then json_schema) and local servers (json_with_schema: JSON mode with
        # the schema as a grammar, then md_json); see docs/SEEDS.md.
        ("anthropic", "tools", "json"),
        ("openrouter", "tools", "json"),
        ("cohere", "tools", "json_schema"),
        ("local-openai", "tools", "json_with_schema"),
        ("openai", "tools", "json_schema"),
    ],
)
def test_the_primary_and_fallback_modes_of_each_provider(
    make_manager: MakeManager, provider: str, primary: str, fallback: str
) -> None:
    manager = make_manager(provider)

    assert (manager.primary_mode, manager.fallback_mode) == (primary, fallback)


def test_a_single_mode_chain_falls_back_to_itself(make_manager: MakeManager) -> None:
    manager = make_manager("cohere", modes=["json_schema"])

    assert manager.primary_mode == manager.fallback_mode == "json_schema"
    assert manager.get_primary_mode() == manager.get_fallback_mode() == "COHERE_JSON_SCHEMA"


def _unsure_model(request: RecordedRequest) -> Reply:
    """Reasoning without a marker (the rules are unsure), then a structured extraction."""
    if request.has_tools or request.response_format is not None:
        return Reply.tool_call(GOOD)
    return Reply.text("Seven trays of twelve make 84, and 84 - 58 leaves twenty-six or so")


def _config(fake: FakeProviderServer, tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "datasets": [{"sample": "arithmetic", "limit": 1}],
        "approaches": ["chain_of_thought"], "strategies": ["two_stage"],
        "targets": [{"provider": "openai", "model": "gpt-test", "base_url": fake.openai_base_url}],
        "output": {"db": str(tmp_path / "runs.db"), "report_dir": str(tmp_path / "reports")},
        "cache": False, **extra,
    }  # fmt: skip


def test_an_experiment_config_overrides_the_extraction_settings(
    fake_provider: FakeProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    fake_provider.set_default(_unsure_model)
    config = config_from_dict(_config(fake_provider, tmp_path, extraction="ml-agents"))

    summary = run_experiment(config)

    extraction_calls = [r for r in fake_provider.chat_requests if r.has_tools]
    assert summary.done == 1 and extraction_calls
    assert all(
        (r.json["temperature"], r.json["max_tokens"]) == (0.1, 500) for r in extraction_calls
    )
    default = config_from_dict(_config(fake_provider, tmp_path))
    assert default.extraction is None
    assert config_hash(default) != config_hash(config)  # the settings decide the results


def test_an_experiment_configs_misspelt_extraction_key_is_reported(
    fake_provider: FakeProviderServer, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=r"extraction\.max_token.*max_tokens"):
        config_from_dict(_config(fake_provider, tmp_path, extraction={"max_token": 200}))
