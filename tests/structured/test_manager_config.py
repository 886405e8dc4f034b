"""Building a manager: clear ConfigErrors for bad names, keys and modes; the key never shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from answerx.errors import ConfigError
from answerx.structured import InstructorClientManager
from answerx.structured.models import ReasoningExtraction
from answerx.structured.providers import load_providers
from answerx.testing import FakeProviderServer, Reply

FAKE_KEY = "sk-test-0123456789abcdef"  # never a real key: tests run offline

GOOD = {"full_reasoning_text": "2 + 2 = 4", "answer_value": "4", "confidence": 0.9}
MESSAGES = [{"role": "user", "content": "What is 2 + 2?"}]

#: The key variable of each provider that needs a key, as config/providers.yaml names it.
KEY_ENV = {
    name: spec.api_key_env for name, spec in load_providers().items() if not spec.api_key_optional
}


def test_an_unknown_provider_is_a_config_error_listing_the_valid_ones(
    clean_provider_env: None,
) -> None:
    with pytest.raises(ConfigError) as caught:
        InstructorClientManager("open-ai", "gpt-test", api_key=FAKE_KEY)

    message = str(caught.value)
    assert "unknown provider 'open-ai'" in message
    for name in ("anthropic", "openai", "openrouter", "cohere", "local-openai"):
        assert name in message


@pytest.mark.parametrize(("provider", "env_var"), KEY_ENV.items())
def test_a_missing_api_key_is_a_config_error_naming_the_env_var(
    clean_provider_env: None, monkeypatch: pytest.MonkeyPatch, provider: str, env_var: str
) -> None:
    monkeypatch.delenv(env_var, raising=False)

    with pytest.raises(ConfigError) as caught:
        InstructorClientManager(provider, "some-model")

    assert env_var in str(caught.value)
    assert repr(provider) in str(caught.value)


@pytest.mark.parametrize(("provider", "env_var"), KEY_ENV.items())
def test_the_api_key_is_read_from_the_env_var_and_never_shown(
    fake_provider: FakeProviderServer,
    clean_provider_env: None,
    monkeypatch: pytest.MonkeyPatch,
    provider: str,
    env_var: str,
) -> None:
    key = "sk-from-env-abcdef0123456789"
    monkeypatch.setenv(env_var, key)
    manager = InstructorClientManager(
        provider,
        "some-model",
        base_url=fake_provider.base_url(load_providers()[provider].sdk),  # type: ignore[arg-type]
    )
    fake_provider.enqueue(Reply.tool_call(GOOD))

    result, _ = manager.create(MESSAGES, ReasoningExtraction)

    assert result.answer_value == "4"
    assert fake_provider.last_request.api_key_sent
    assert key not in repr(manager) and key not in str(manager)


def test_local_openai_needs_no_key_and_reads_its_url_from_the_environment(
    fake_provider: FakeProviderServer, clean_provider_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANSWERX_LOCAL_BASE_URL", fake_provider.openai_base_url)
    manager = InstructorClientManager("local-openai", "qwen2.5-7b-instruct")
    fake_provider.enqueue(Reply.tool_call(GOOD))

    result, info = manager.create(MESSAGES, ReasoningExtraction)

    assert (result.answer_value, info.mode) == ("4", "tools")
    assert manager.base_url == fake_provider.openai_base_url
    assert fake_provider.last_request.model == "qwen2.5-7b-instruct"


def test_repr_names_provider_model_and_modes_but_never_the_key(
    make_manager: Any, provider: str, api_key: str
) -> None:
    manager = make_manager(provider)

    shown = repr(manager)

    assert api_key not in shown and api_key not in str(manager)
    assert provider in shown and f"{provider}-test-model" in shown
    assert all(mode in shown for mode in manager.modes)


UNSUPPORTED_MODES = [
    pytest.param("cohere", ["json"], id="cohere-json"),
    pytest.param("cohere", ["tools", "md_json"], id="cohere-md_json"),
    pytest.param("anthropic", ["json_schema"], id="anthropic-json_schema"),
    pytest.param("openai", ["tools", "xml"], id="openai-unknown-mode"),
]


@pytest.mark.parametrize(("provider", "modes"), UNSUPPORTED_MODES)
def test_a_mode_override_the_sdk_does_not_support_is_a_config_error(
    clean_provider_env: None, provider: str, modes: list[str]
) -> None:
    with pytest.raises(ConfigError) as caught:
        InstructorClientManager(
            provider,
            "m",
            api_key=FAKE_KEY,
            modes=modes,  # type: ignore[arg-type]
        )

    assert modes[-1] in str(caught.value)


def test_anthropic_with_markdown_json_is_refused_when_the_manager_is_built(
    clean_provider_env: None,
) -> None:
    with pytest.raises(ConfigError, match="md_json"):
        InstructorClientManager("anthropic", "m", api_key=FAKE_KEY, modes=["tools", "md_json"])


@pytest.mark.parametrize("option", ["max_retries", "transient_retries"])
def test_negative_retry_counts_are_config_errors(clean_provider_env: None, option: str) -> None:
    options: dict[str, Any] = {option: -1}

    with pytest.raises(ConfigError, match=option):
        InstructorClientManager("openai", "m", api_key=FAKE_KEY, **options)


def test_a_provider_config_file_can_name_another_gguf_for_the_local_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from answerx.local import bundled_model_path
    from answerx.structured import get_provider

    gguf = tmp_path / "other.gguf"
    gguf.write_bytes(b"GGUF")
    config = tmp_path / "providers.yaml"
    config.write_text(f"local:\n  gguf: {gguf}\n")
    monkeypatch.delenv("ANSWERX_LOCAL_GGUF", raising=False)
    spec = get_provider("local", config)
    assert spec.gguf == str(gguf) and spec.autostart
    assert bundled_model_path(spec.gguf) == gguf
    monkeypatch.setenv("ANSWERX_LOCAL_GGUF", str(tmp_path / "missing.gguf"))
    with pytest.raises(ConfigError, match=r"missing\.gguf"):
        bundled_model_path(spec.gguf)  # the environment variable wins, and must exist
