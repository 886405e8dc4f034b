"""Providers as data: one :class:`ProviderSpec` row per provider, from ``config/providers.yaml``.

A spec says how to build the provider's sync and async SDK client (key from its
environment variable, base URL, timeout) and which chain of structured-output
modes to try. Adding an OpenAI-compatible provider is one YAML entry; a new SDK
is one more factory in :func:`make_sdk_client`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from answerx.errors import ConfigError
from answerx.resources import data_file
from answerx.yamlsafe import read_yaml_file

__all__ = [
    "MODES",
    "SDK_MODES",
    "ModeName",
    "ProviderSpec",
    "SdkName",
    "get_provider",
    "load_providers",
    "make_sdk_client",
]

ModeName = Literal["tools", "json_schema", "json", "json_with_schema", "md_json"]
SdkName = Literal["openai", "anthropic", "cohere"]
MODES: tuple[str, ...] = ("tools", "json_schema", "json", "json_with_schema", "md_json")

#: The modes each SDK's Instructor wrapper accepts (1.17: from_cohere rejects plain JSON,
#: from_anthropic rejects Markdown JSON).
SDK_MODES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "openai": frozenset(MODES),
        "anthropic": frozenset({"tools", "json"}),  # from_anthropic rejects MD_JSON
        "cohere": frozenset({"tools", "json_schema"}),
    }
)


class ProviderSpec(BaseModel):
    """How to reach one provider and which structured-output modes to try, in order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    sdk: SdkName
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

    @model_validator(mode="after")
    def _modes_fit_sdk(self) -> ProviderSpec:
        bad = [m for m in self.modes if m not in SDK_MODES[self.sdk]]
        if bad:
            raise ValueError(
                f"modes {bad} are not available with the {self.sdk} SDK; "
                f"use some of {sorted(SDK_MODES[self.sdk])}"
            )
        return self

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
        raise ConfigError(
            f"no API key for provider {self.name!r}: set the {self.api_key_env} "
            "environment variable (or pass api_key=...)"
        )


@lru_cache(maxsize=8)
def _load(path: Path, overrides: Path | None) -> Mapping[str, ProviderSpec]:
    rows = _read_yaml(path)
    if overrides is not None:
        for name, row in _read_yaml(overrides).items():
            rows[name] = {**rows.get(name, {}), **row}
    specs: dict[str, ProviderSpec] = {}
    for name, row in rows.items():
        try:
            specs[name] = ProviderSpec.model_validate({"name": name, **row})
        except ValidationError as exc:
            raise ConfigError(f"{overrides or path}: provider {name!r}: {exc}") from None
    return MappingProxyType(specs)


def _read_yaml(path: Path) -> dict[str, dict[str, Any]]:
    # Size, alias and nesting limits: a providers file may come from $ANSWERX_PROVIDERS.
    try:
        data = read_yaml_file(path)[0] or {}
    except ConfigError as exc:
        raise ConfigError(f"provider config: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigError(f"{path}: expected a mapping of provider name -> settings")
    return data


def load_providers(path: str | Path | None = None) -> Mapping[str, ProviderSpec]:
    """Every provider spec: the bundled defaults, with ``path`` (or ``$ANSWERX_PROVIDERS``)
    merged over them entry by entry."""
    override = path or os.environ.get("ANSWERX_PROVIDERS")
    return _load(data_file("config/providers.yaml"), Path(override) if override else None)


def get_provider(name: str, path: str | Path | None = None) -> ProviderSpec:
    """The spec of provider ``name``; an unknown name raises ConfigError listing the valid ones."""
    specs = load_providers(path)
    if name not in specs:
        raise ConfigError(f"unknown provider {name!r}; valid providers: {', '.join(specs)}")
    return specs[name]


def make_sdk_client(
    spec: ProviderSpec,
    *,
    api_key: str,
    base_url: str | None,
    timeout: float,
    is_async: bool,
    aiohttp: bool = False,
) -> Any:
    """Build the official SDK client for ``spec`` with the SDK's own retries off
    (answerx retries with backoff itself, so that it can count and report them).

    ``aiohttp`` (async only): the SDK's own aiohttp transport for OpenAI and
    Anthropic clients, when aiohttp is installed; Cohere has none and keeps httpx.
    """
    if spec.sdk == "openai":
        import openai

        if is_async:
            http = _aiohttp_client(openai, timeout) if aiohttp else None
            return openai.AsyncOpenAI(
                api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0,
                **({"http_client": http} if http is not None else {}),
            )  # fmt: skip
        return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)
    if spec.sdk == "anthropic":
        import anthropic

        if is_async:
            http = _aiohttp_client(anthropic, timeout) if aiohttp else None
            return anthropic.AsyncAnthropic(
                api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0,
                **({"http_client": http} if http is not None else {}),
            )  # fmt: skip
        return anthropic.Anthropic(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )
    import cohere

    cls_c = cohere.AsyncClientV2 if is_async else cohere.ClientV2
    kwargs: dict[str, Any] = {
        "api_key": api_key,
        "timeout": timeout,
        "max_retries": 0,
        # Instructor's JSON_SCHEMA mode uses response_format.schema, which the SDK
        # would otherwise announce as "experimental" on every call.
        "log_warning_experimental_features": False,
    }
    if base_url:
        kwargs["base_url"] = base_url
    return cls_c(**kwargs)


#: Sampling options some SDK versions no longer accept.
SAMPLING_OPTIONS = ("temperature", "top_p", "top_k")


@cache
def unsupported_options(sdk: str) -> frozenset[str]:
    """Sampling options that the installed SDK's create method does not take.

    anthropic 2.x removed ``temperature``, ``top_p`` and ``top_k`` from
    ``Messages.create`` (the API answers 400 to them on current models), so
    passing one raises ``TypeError`` before any request. Read from the installed
    signature rather than a version table, so an SDK that brings them back works.
    """
    if sdk != "anthropic":
        return frozenset()
    import inspect

    from anthropic.resources.messages import Messages

    accepted = inspect.signature(Messages.create).parameters
    return frozenset(name for name in SAMPLING_OPTIONS if name not in accepted)


def _aiohttp_client(sdk_module: Any, timeout: float) -> Any | None:
    """The SDK's ``DefaultAioHttpClient`` (its vendored httpx-over-aiohttp transport),
    or None when aiohttp is not installed (the SDK then raises on construction)."""
    factory = getattr(sdk_module, "DefaultAioHttpClient", None)
    if factory is None:
        return None
    try:
        return factory(timeout=timeout)
    except RuntimeError:  # "To use the aiohttp client you must have installed ... aiohttp"
        return None
