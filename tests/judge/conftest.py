"""Fixtures of the LLM judge tests: managers pointed at the loopback fake provider server."""

from __future__ import annotations

import pytest

from answerx.testing import FakeProviderServer
from fake_managers import MakeManager, clear_provider_env, manager_factory


@pytest.fixture
def make_manager(fake_provider: FakeProviderServer, monkeypatch: pytest.MonkeyPatch) -> MakeManager:
    """A manager for a provider, pointed at the fake server, with fast retries."""
    clear_provider_env(monkeypatch)
    return manager_factory(
        fake_provider, backoff_initial=0.01, backoff_max=0.05, transient_retries=1, timeout=5.0
    )
