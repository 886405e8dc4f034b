"""Providers as data: one :class:`ProviderSpec` row per provider, from ``config/providers.yaml``.

A row names its SDK adapter (``sdk:``, one module of :mod:`answerx.structured.adapters`),
the environment variable of its key, its base URL, timeout, the chain of
structured-output modes to try and how its extraction call runs (``extraction:``,
:mod:`answerx.structured.extraction`). Adding a provider on an SDK that has an adapter is
one YAML row; adding an SDK is one adapter module. Everything SDK-specific (clients,
Instructor wrapper, reading replies, capabilities) is the adapter's.

A bad row is reported like an experiment config: ``providers.yaml:12: openrouter.modse:
unknown key (did you mean 'modes'?)``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from answerx.errors import ConfigError, CredentialsMissing, UnknownName, UnsupportedProvider
from answerx.structured.adapters import MODES, SdkAdapter, adapter_names, all_adapters, get_adapter
from answerx.structured.extraction import ExtractionOverride
from answerx.support.resources import data_file
from answerx.support.yamlerrors import YamlPath, format_validation_error, line_of, read_yaml

__all__ = [
    "MODES",
    "PROVIDERS_ENV",
    "ModeName",
    "ProviderSpec",
    "UnsupportedProvider",
    "get_provider",
    "load_providers",
    "provider_environment",
]

ModeName = Literal["tools", "json_schema", "json", "json_with_schema", "md_json"]
#: The variable naming a providers file merged over the bundled one.
PROVIDERS_ENV = "ANSWERX_PROVIDERS"


class ProviderSpec(BaseModel):
    """How to reach one provider and which structured-output modes to try, in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    sdk: str = Field(
        description="The SDK adapter: the name of a module of answerx.structured.adapters."
    )
    api_key_env: str = Field(description="Environment variable holding the API key.")
    api_key_optional: bool = Field(
        default=False, description="Local servers need no key; a placeholder is sent."
    )
    base_url: str | None = None
    base_url_env: str | None = Field(
        default=None, description="Environment variable that overrides base_url."
    )
    autostart: bool = Field(
        default=False,
        description="With no URL configured, start the bundled local model server (answerx.local).",
    )
    gguf: str | None = Field(
        default=None,
        description="With autostart: the GGUF model file to serve instead of the bundled one "
        "($ANSWERX_LOCAL_GGUF wins over it).",
    )
    grammar_field: bool = Field(
        default=False,
        description="The server accepts a GBNF `grammar` in chat completions (llama.cpp): "
        "Markdown JSON is then constrained to a fenced object of the schema.",
    )
    default_model: str
    modes: tuple[ModeName, ...] = Field(min_length=1)
    timeout: float = Field(default=60.0, gt=0)
    max_tokens: int = Field(default=1024, gt=0)
    extraction: ExtractionOverride = Field(
        default_factory=ExtractionOverride,
        description="How the extraction call runs for this provider (temperature, "
        "max_tokens, min_confidence, confidence_threshold, enable_fallback, or a preset "
        "name): see answerx.structured.extraction.",
    )

    @field_validator("sdk")
    @classmethod
    def _known_adapter(cls, sdk: str) -> str:
        if sdk not in adapter_names():
            raise ValueError(str(UnknownName("SDK adapter", sdk, adapter_names())))
        return sdk

    @model_validator(mode="after")
    def _fits_adapter(self) -> ProviderSpec:
        adapter = get_adapter(self.sdk)
        bad = [m for m in self.modes if m not in adapter.modes]
        if bad:
            raise ValueError(
                f"modes {bad} are not available with the {self.sdk} SDK; "
                f"use some of {sorted(adapter.modes)}"
            )
        if self.grammar_field and not adapter.takes_grammar:
            raise ValueError(f"grammar_field: the {self.sdk} SDK cannot send a grammar")
        return self

    @property
    def adapter(self) -> SdkAdapter:
        """The adapter of this provider's SDK."""
        return get_adapter(self.sdk)

    def resolve_base_url(self, override: str | None = None) -> str | None:
        """The explicit override, else the environment variable, else the configured URL."""
        if override:
            return override
        if self.base_url_env and os.environ.get(self.base_url_env):
            return os.environ[self.base_url_env]
        return self.base_url

    def resolve_api_key(self, override: str | None = None) -> str:
        """The explicit key, else the environment variable's. Never logged or stored."""
        key = override or os.environ.get(self.api_key_env)
        if key:
            return key
        if self.api_key_optional:
            return "not-needed"
        raise CredentialsMissing(
            f"no API key for provider {self.name!r}: set the {self.api_key_env} "
            "environment variable (or pass api_key=...)"
        )


@lru_cache(maxsize=8)
def _load(path: Path, overrides: Path | None) -> Mapping[str, ProviderSpec]:
    rows, lines = _read_rows(path)
    source = {name: (path, lines) for name in rows}
    if overrides is not None:
        extra, extra_lines = _read_rows(overrides)
        for name, row in extra.items():
            rows[name] = {**rows.get(name, {}), **row}
            source[name] = (overrides, extra_lines)
    specs: dict[str, ProviderSpec] = {}
    for name, row in rows.items():
        try:
            specs[name] = ProviderSpec.model_validate({"name": name, **row})
        except ValidationError as exc:
            file, file_lines = source[name]
            detail = format_validation_error(
                exc, source=str(file), lines=file_lines, model=ProviderSpec, prefix=(name,)
            )
            raise ConfigError(f"invalid provider {name!r}:\n{detail}") from None
    return MappingProxyType(specs)


def _read_rows(path: Path) -> tuple[dict[str, dict[str, Any]], dict[YamlPath, int]]:
    """The rows of a providers file and the line of every key in it. The file is read
    within the limits of :mod:`answerx.support.yamlsafe`: it may come from $ANSWERX_PROVIDERS."""
    data, lines = read_yaml(path)
    data = data or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: expected a mapping of provider name -> settings")
    for name, row in data.items():
        if not isinstance(row, dict):
            line = line_of((str(name),), lines)
            raise ConfigError(
                f"{path}:{line}: {name}: expected the provider's settings "
                "(a mapping with sdk, api_key_env, default_model, modes ...)"
            )
    return {str(name): row for name, row in data.items()}, lines


def load_providers(path: str | Path | None = None) -> Mapping[str, ProviderSpec]:
    """Every provider spec: the bundled defaults, with ``path`` (or ``$ANSWERX_PROVIDERS``)
    merged over them entry by entry."""
    override = path or os.environ.get(PROVIDERS_ENV)
    return _load(data_file("config/providers.yaml"), Path(override) if override else None)


def get_provider(name: str, path: str | Path | None = None) -> ProviderSpec:
    """The spec of provider ``name``; an unknown name raises :class:`UnknownName`
    (a ConfigError) with the closest valid one and the list."""
    specs = load_providers(path)
    if name not in specs:
        raise UnknownName("provider", name, specs)
    return specs[name]


def provider_environment(path: str | Path | None = None) -> frozenset[str]:
    """Every environment variable that can give a provider a key or point it elsewhere:
    each provider's ``api_key_env`` and ``base_url_env``, the variables each SDK reads by
    itself (its adapter's), and ``$ANSWERX_PROVIDERS``. What a test, or a sandbox,
    clears to be sure no real provider is reached."""
    names = {PROVIDERS_ENV}
    for adapter in all_adapters():
        names.update(adapter.key_env_vars)
        names.update(adapter.base_url_env_vars)
    for spec in load_providers(path).values():
        names.add(spec.api_key_env)
        if spec.base_url_env:
            names.add(spec.base_url_env)
    return frozenset(names)
