"""Fixtures for the reasoning tests: managers against the fake provider server, and a
scripted "model" that answers each step of an approach by what its prompt asks.

Every test goes through the real SDKs and Instructor over real HTTP to the
loopback fake provider server (``answerx.testing``); nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from reasoning_script import ScriptedModel

from answerx.structured import InstructorClientManager
from answerx.structured.providers import get_provider
from answerx.testing import FakeProviderServer

#: A dummy key shaped like a real one, so that leaks are easy to spot.
DUMMY_API_KEY = "sk-test-0123456789abcdef"

_PROVIDER_ENV = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "CO_API_KEY",
    "COHERE_API_KEY",
    "LOCAL_OPENAI_API_KEY",
    "ANSWERX_LOCAL_BASE_URL",
    "ANSWERX_PROVIDERS",
    "ANSWERX_PROMPT_DIR",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "CO_API_URL",
)

MakeManager = Callable[..., InstructorClientManager]


@pytest.fixture
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No provider keys, base URLs, provider config or prompt overrides from the environment."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def make_manager(fake_provider: FakeProviderServer, clean_provider_env: None) -> MakeManager:
    """Build a manager for a provider (default ``openai``) pointed at the fake server."""

    def make(provider: str = "openai", **options: Any) -> InstructorClientManager:
        spec = get_provider(provider)
        settings: dict[str, Any] = {
            "model": f"{provider}-test-model",
            "api_key": DUMMY_API_KEY,
            "base_url": fake_provider.base_url(spec.sdk),
            "backoff_initial": 0.01,
            "backoff_max": 0.5,
            "transient_retries": 1,
            "max_retries": 0,
            "timeout": 10.0,
        }
        settings.update(options)
        return InstructorClientManager(provider, **settings)

    return make


@pytest.fixture
def manager(make_manager: MakeManager) -> InstructorClientManager:
    """An ``openai`` manager (tools → JSON schema → JSON) against the fake server."""
    return make_manager()


@pytest.fixture
def model(fake_provider: FakeProviderServer) -> ScriptedModel:
    """A scripted model answering every request of the fake server (see reasoning_script)."""
    scripted = ScriptedModel()
    fake_provider.set_default(scripted)
    return scripted
