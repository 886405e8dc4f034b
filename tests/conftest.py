"""Shared test configuration.

Hypothesis profiles: ``answerx`` (the default for local runs) keeps the whole suite
fast and draws new random examples each run, so a developer's run can find a new bug;
``ci`` (loaded when the ``CI`` environment variable is set, as ``.ci/run`` does) draws
the same examples every run (``derandomize=True``, no example database), so a random
find can never block a landing; ``thorough`` is for a longer hunt
(``HYPOTHESIS_PROFILE=thorough pytest tests/property``). ``HYPOTHESIS_PROFILE`` wins
over ``CI``. Tests that pin their own ``@settings`` keep those values and inherit the
rest (``derandomize`` included) from the loaded profile.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from answerx import redactor
from answerx.home import HOME_ENV
from answerx.structured.providers import provider_environment
from postgres_server import PostgresServer, start_server, unavailable

settings.register_profile(
    "answerx",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "ci",
    parent=settings.get_profile("answerx"),
    derandomize=True,
    database=None,
)
_IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if _IN_CI else "answerx"))


@cache
def provider_env_vars() -> frozenset[str]:
    """The environment variables a provider reads its key or base URL from, as the
    provider specs and the SDK adapters name them (``provider_environment`` of
    :mod:`answerx.structured.providers`): never a hand-written list, so a provider or
    an SDK added there is isolated here too."""
    return provider_environment()


@pytest.fixture(autouse=True)
def _isolated_user_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test reads or writes the developer's state: ``$ANSWERX_HOME`` (the default
    store, cache and reports) is the test's own folder, and no provider key or base URL
    of the environment reaches a test (a test that needs one sets a dummy), and a key a
    test gave a manager directly is not redacted in the next test's text."""
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "runs"))
    for name in ("ANSWERX_DB", "PGPASSWORD", "PGUSER", "PGHOST", "PGDATABASE", "PGPORT"):
        monkeypatch.delenv(name, raising=False)  # the store a test names is its own
    for name in provider_env_vars():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(redactor, "_registered", {})
    yield


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL server for the session (:mod:`postgres_server`); the tests
    that need it are skipped, saying why, where it cannot be had."""
    why = unavailable()
    if why is not None:
        pytest.skip(f"PostgreSQL cannot be had here: {why}")
    server = start_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a new, empty database on the session's server (one per test)."""
    import secrets

    import psycopg

    name = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return postgres_server.url(name)
