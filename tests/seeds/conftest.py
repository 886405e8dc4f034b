"""Fixtures for the seed conformance tests (docs/SEEDS.md): managers pointed at the fake
provider server over real HTTP, as in tests/agent; nothing leaves 127.0.0.1."""

from __future__ import annotations

import pytest

from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer
from fake_managers import MakeManager, clear_provider_env, manager_factory


@pytest.fixture
def make_manager(fake_provider: FakeProviderServer, monkeypatch: pytest.MonkeyPatch) -> MakeManager:
    """Build a manager for a provider, pointed at the fake server, with fast retries."""
    clear_provider_env(monkeypatch)
    return manager_factory(
        fake_provider, backoff_initial=0.01, backoff_max=0.05, transient_retries=1, timeout=5.0
    )


@pytest.fixture
def manager(make_manager: MakeManager) -> InstructorClientManager:
    """An OpenAI manager against the fake server."""
    return make_manager("openai")
