"""Prices: cost per call from config/prices.yaml; an unknown model costs None, never zero."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from answerx.errors import ConfigError
from answerx.structured.prices import PRICES_ENV, Price, cost, load_prices, price_of
from answerx.structured.providers import load_providers


@pytest.fixture(autouse=True)
def _bundled_prices_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PRICES_ENV, raising=False)


def test_a_known_model_costs_its_list_price_per_million_tokens() -> None:
    price = price_of("openai", "gpt-4o-mini")
    assert price is not None
    expected = (2_000 * price.input + 500 * price.output) / 1_000_000
    assert cost("openai", "gpt-4o-mini", 2_000, 500) == pytest.approx(expected)
    assert cost("openai", "gpt-4o-mini", 2_000, 500) > 0


def test_a_dated_snapshot_is_priced_as_its_model() -> None:
    assert price_of("openai", "gpt-4o-mini-2024-07-18") == price_of("openai", "gpt-4o-mini")
    assert price_of("anthropic", "claude-haiku-4-5-20251001") == price_of(
        "anthropic", "claude-haiku-4-5"
    )


def test_local_models_are_free_on_purpose_not_unknown() -> None:
    assert cost("local", "SmolLM2-135M-Instruct", 10_000, 10_000) == 0.0
    assert cost("local-openai", "qwen2.5-7b-instruct", 10_000, 10_000) == 0.0


def test_an_unknown_model_or_provider_has_no_cost_rather_than_zero() -> None:
    assert cost("openai", "gpt-99-ultra", 1_000, 1_000) is None
    assert cost("mystery", "model", 1_000, 1_000) is None


def test_every_providers_default_model_has_a_price() -> None:
    # A run that names no model must never report an "unknown" cost.
    for name, spec in load_providers().items():
        assert price_of(name, spec.default_model) is not None, name


def test_a_user_price_file_is_merged_over_the_bundled_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "prices.yaml"
    mine.write_text(
        textwrap.dedent(
            """
            openai:
              gpt-4o-mini: {input: 1.0, output: 2.0}
            my-gateway:
              house-model: {input: 0.5, output: 0.5}
            """
        ),
        encoding="utf-8",
    )
    bundled_gpt4o = price_of("openai", "gpt-4o")
    monkeypatch.setenv(PRICES_ENV, str(mine))
    assert price_of("openai", "gpt-4o-mini") == Price(input=1.0, output=2.0)
    assert price_of("openai", "gpt-4o") == bundled_gpt4o  # the rest of openai's rows stay
    assert cost("my-gateway", "house-model", 1_000_000, 1_000_000) == 1.0


def test_a_price_table_passed_in_is_used_instead_of_the_files() -> None:
    table = {"openai": {"gpt-4o-mini": Price(input=10.0, output=20.0)}}
    assert cost("openai", "gpt-4o-mini", 100_000, 0, prices=table) == 1.0
    assert cost("openai", "gpt-4o", 100_000, 0, prices=table) is None


def test_a_bad_price_file_names_the_key_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad-prices.yaml"
    bad.write_text(
        "openai:\n  gpt-4o:\n    inptu: 2.5\n    output: 10\n"
        "  gpt-4o-mini: {input: -1, output: 1}\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        load_prices(bad)
    message = str(caught.value)
    assert "bad-prices.yaml:3: openai.gpt-4o.inptu: unknown key (did you mean 'input'?)" in message
    assert "bad-prices.yaml:5: openai.gpt-4o-mini.input: Input should be greater than" in message
