"""Fixtures for the InstructorClientManager tests (``test_manager_*.py``).

Every manager test goes through the real SDKs (openai, anthropic, cohere) and
Instructor over real HTTP to the loopback fake provider server of
``answerx.testing`` (the ``fake_provider`` fixture of its pytest plugin).
Nothing leaves 127.0.0.1, and no provider key from the environment is used.
"""

from __future__ import annotations

import pytest

from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer
from fake_managers import (
    DUMMY_API_KEY,
    FAKEABLE_PROVIDERS,
    MakeManager,
    clear_provider_env,
    manager_factory,
)


@pytest.fixture(params=FAKEABLE_PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    """Each provider in turn."""
    return str(request.param)


@pytest.fixture
def api_key() -> str:
    """The dummy key the managers are built with."""
    return DUMMY_API_KEY


@pytest.fixture
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No provider keys, base URLs or provider config from the developer's environment."""
    clear_provider_env(monkeypatch)


@pytest.fixture
def make_manager(fake_provider: FakeProviderServer, clean_provider_env: None) -> MakeManager:
    """Build a manager for a provider, pointed at the fake server, with fast retries.

    Options override the defaults (``api_key``, ``base_url``, ``timeout``, ...).
    """

    return manager_factory(
        fake_provider, backoff_initial=0.01, backoff_max=1.0, transient_retries=2, timeout=5.0
    )


@pytest.fixture
def manager(make_manager: MakeManager, provider: str) -> InstructorClientManager:
    """A manager for ``provider`` with the default chain and fast retries."""
    return make_manager(provider)
