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
from answerx.structured.providers import get_provider, load_providers, provider_environment
from answerx.testing import FakeProviderServer

#: A dummy key shaped like a real one, so that leaks are easy to spot.
DUMMY_API_KEY = "sk-test-0123456789abcdef"

#: Provider keys, base URLs and provider config of a developer's shell, as the provider
#: specs and SDK adapters name them, and the prompt override.
PROVIDER_ENV = (*sorted(provider_environment()), "ANSWERX_PROMPT_DIR")

#: Every provider of config/providers.yaml that a test can point at the fake server (all
#: but those that serve the bundled local model themselves: tests/local covers those).
FAKEABLE_PROVIDERS = tuple(name for name, spec in load_providers().items() if not spec.autostart)

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
