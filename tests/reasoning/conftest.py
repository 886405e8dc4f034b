"""Fixtures for the reasoning tests: managers against the fake provider server, and a
scripted "model" that answers each step of an approach by what its prompt asks.

Every test goes through the real SDKs and Instructor over real HTTP to the
loopback fake provider server (``answerx.testing``); nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import pytest
from reasoning_script import ScriptedModel

from answerx.structured import InstructorClientManager
from answerx.testing import FakeProviderServer
from fake_managers import MakeManager, clear_provider_env, manager_factory


@pytest.fixture
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No provider keys, base URLs, provider config or prompt overrides from the environment."""
    clear_provider_env(monkeypatch)


@pytest.fixture
def make_manager(fake_provider: FakeProviderServer, clean_provider_env: None) -> MakeManager:
    """Build a manager for a provider (default ``openai``) pointed at the fake server."""
    return manager_factory(
        fake_provider, backoff_initial=0.01, backoff_max=0.5, transient_retries=1,
        max_retries=0, timeout=10.0,
    )  # fmt: skip


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
