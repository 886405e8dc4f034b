"""Shared by the test folders that build managers against the fake provider server.

The environment variables that would point a manager (or a service) away from the
fake server or give it a real key, the dummy key the tests use, and a factory of
managers pointed at a fake server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from answerx.structured import InstructorClientManager
from answerx.structured.providers import get_provider
from answerx.testing import FakeProviderServer

#: A dummy key shaped like a real one, so that leaks are easy to spot.
DUMMY_API_KEY = "sk-test-0123456789abcdef"

#: Provider keys, base URLs, provider config and prompt overrides of a developer's shell.
PROVIDER_ENV = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "CO_API_KEY",
    "COHERE_API_KEY",
    "LOCAL_OPENAI_API_KEY",
    "ANSWERX_LOCAL_BASE_URL",
    "ANSWERX_LOCAL_URL",
    "ANSWERX_PROVIDERS",
    "ANSWERX_PROMPT_DIR",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "CO_API_URL",
)

MakeManager = Callable[..., InstructorClientManager]


def clear_provider_env(monkeypatch: pytest.MonkeyPatch, extra: tuple[str, ...] = ()) -> None:
    """Unset :data:`PROVIDER_ENV` (and ``extra``) for one test."""
    for name in (*PROVIDER_ENV, *extra):
        monkeypatch.delenv(name, raising=False)


def manager_factory(fake: FakeProviderServer, **defaults: Any) -> MakeManager:
    """``make(provider="openai", **options)``: a manager pointed at ``fake`` with the
    dummy key and ``defaults`` (fast retries, short timeouts), ``options`` winning."""

    def make(provider: str = "openai", **options: Any) -> InstructorClientManager:
        settings: dict[str, Any] = {
            "model": f"{provider}-test-model",
            "api_key": DUMMY_API_KEY,
            "base_url": fake.base_url(get_provider(provider).sdk),
            **defaults,
            **options,
        }
        return InstructorClientManager(provider, **settings)

    return make
