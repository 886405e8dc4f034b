"""Fixtures for the agent tests: managers pointed at the fake provider server.

Every test goes through the real SDKs over real HTTP to the loopback server of
``answerx.testing`` (the ``fake_provider`` fixture); no key from the environment
is used and nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from answerx.structured import InstructorClientManager
from answerx.structured.providers import get_provider
from answerx.testing import FakeProviderServer

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
def make_manager(fake_provider: FakeProviderServer, monkeypatch: pytest.MonkeyPatch) -> MakeManager:
    """Build a manager for a provider, pointed at the fake server, with fast retries."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)

    def make(provider: str = "openai", **options: Any) -> InstructorClientManager:
        settings: dict[str, Any] = {
            "model": f"{provider}-test-model",
            "api_key": "sk-test-0123456789abcdef",
            "base_url": fake_provider.base_url(get_provider(provider).sdk),
            "backoff_initial": 0.01,
            "backoff_max": 0.05,
            "transient_retries": 1,
            "timeout": 5.0,
        }
        settings.update(options)
        return InstructorClientManager(provider, **settings)

    return make


@pytest.fixture
def manager(make_manager: MakeManager) -> InstructorClientManager:
    """An OpenAI manager against the fake server."""
    return make_manager("openai")
