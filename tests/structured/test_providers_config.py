"""``providers.yaml`` mistakes are reported like experiment-config ones: file:line, the key
path, and the likely key or adapter; a file of your own is merged over the bundled rows."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from answerx.errors import ConfigError, UnknownName
from answerx.structured import providers
from answerx.structured.providers import get_provider, load_providers

GOOD_ROW = """\
my-gateway:
  sdk: openai
  api_key_env: MY_GATEWAY_KEY
  base_url: https://gateway.example/v1
  default_model: small
  modes: [tools, json]
"""


@pytest.fixture(autouse=True)
def _forget_loaded_files() -> Iterator[None]:
    yield
    providers._load.cache_clear()  # load_providers caches per path


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "providers.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_providers(path)
    return str(caught.value)


def test_a_provider_on_an_existing_sdk_is_one_row(tmp_path: Path) -> None:
    spec = load_providers(write(tmp_path, GOOD_ROW))["my-gateway"]

    assert (spec.sdk, spec.adapter.name, spec.modes) == ("openai", "openai", ("tools", "json"))
    assert spec.adapter is get_provider("openai").adapter
    assert "openai" in load_providers(tmp_path / "providers.yaml")  # the bundled rows stay


def test_a_misspelt_key_names_its_line_and_the_likely_key(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_ROW.replace("  modes:", "  modse:"))

    message = error_of(path)

    assert f"{path}:6: my-gateway.modse: unknown key (did you mean 'modes'?)" in message
    assert f"{path}:1: my-gateway.modes: required key is missing" in message


def test_an_unknown_sdk_names_its_line_the_likely_adapter_and_every_adapter(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, GOOD_ROW.replace("sdk: openai", "sdk: opnai"))

    message = error_of(path)

    assert f"{path}:2: my-gateway.sdk: unknown SDK adapter 'opnai' (did you mean 'openai'?)" in (
        message
    )
    assert "valid SDK adapters: anthropic, cohere, openai" in message


def test_a_value_of_the_wrong_type_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_ROW + "  timeout: soon\n")

    assert f"{path}:7: my-gateway.timeout: Input should be a valid number" in error_of(path)


def test_modes_the_adapter_does_not_accept_are_reported_at_the_provider(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_ROW.replace("sdk: openai", "sdk: anthropic").replace(
        "[tools, json]", "[tools, md_json]"
    ))  # fmt: skip

    message = error_of(path)

    assert f"{path}:1: my-gateway: modes ['md_json'] are not available with the anthropic SDK" in (
        message
    )


def test_a_grammar_needs_an_sdk_that_can_send_one(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_ROW.replace("sdk: openai", "sdk: cohere").replace(
        "[tools, json]", "[tools]"
    ) + "  grammar_field: true\n")  # fmt: skip

    assert "the cohere SDK cannot send a grammar" in error_of(path)


def test_a_row_that_is_not_a_mapping_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_ROW + "broken: [not, a, mapping]\n")

    assert f"{path}:7: broken: expected the provider's settings" in error_of(path)


def test_an_override_of_a_bundled_row_is_reported_in_the_override_file(tmp_path: Path) -> None:
    path = write(tmp_path, "openai:\n  timout: 5\n")

    assert f"{path}:2: openai.timout: unknown key (did you mean 'timeout'?)" in error_of(path)


def test_an_unknown_provider_name_suggests_the_likely_one() -> None:
    with pytest.raises(UnknownName) as caught:
        get_provider("opnerouter")

    assert caught.value.suggestion == "openrouter"
    assert "valid providers: " in str(caught.value)
