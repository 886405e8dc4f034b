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
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from answerx import redactor
from answerx.structured.providers import provider_environment
from answerx.support.home import HOME_ENV
from postgres_server import PostgresServer, start_server, unavailable
from worker_groups import xdist_group

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
    test gave a manager directly is not redacted in the next test's text. Nor does the
    terminal's size reach a test: a command's table is as wide as in a pipe unless the
    test sets ``COLUMNS`` (pytest-xdist's workers load readline, which sets it to 80)."""
    # The process's environment object itself is put back after each test: `datasets`'
    # `map(num_proc=...)` replaces `os.environ` with a deep copy, and rich's consoles keep
    # reading the object they were imported with, so a later test's COLUMNS went unseen.
    monkeypatch.setattr(os, "environ", os.environ)
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "runs"))
    for name in ("COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
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


#: The slow tiers, by folder or file (relative to ``tests/``), each with why: what
#: ``make test-fast`` (``pytest -m "not slow"``) leaves out. A table here rather than a
#: ``pytestmark`` in each module: the tiers are whole files and folders, one place says
#: what the fast tier skips, and no test module has to change when a tier does. A slow
#: test inside a fast file carries ``@pytest.mark.slow`` itself; a test that starts the
#: bundled local model (``local_model``) is slow wherever it is.
SLOW_TIERS: dict[str, str] = {
    "local": "the bundled local model (llama.cpp on the CPU)",
    "property": "hypothesis's hunts, 200 to 400 random examples a test (half the fast tier's time)",
    "docs/test_examples.py": "every example of the README and docs/, answerx commands included",
    "wheel": "builds and installs the wheel in a fresh environment",
    "docs/test_site.py": "builds the documentation site",
    "viewer/test_browser.py": "drives a real browser",
    "viewer/test_screenshots.py": "drives a real browser",
    # Processes started, stopped, killed or interrupted on purpose (each test seconds long).
    "cli/test_cli_subprocess.py": "answerx commands in subprocesses, a reader that stops early",
    "cli/test_cli_interrupt.py": "Ctrl-C sent to a file run in a subprocess",
    "viewer/test_cli_view.py": "answerx runs view started and stopped in subprocesses",
    "service/test_header_limits.py": "servers started to be fed broken headers",
    "batch/test_bounded_lines_and_forked_grading.py": "grading workers that overrun, killed",
    "experiments/test_store_health.py": "stores probed from other processes and users",
    "experiments/test_runner_shared.py": "runs' workers as threads on a PostgreSQL server (2-3 s)",
    "reasoning/test_sandbox_view.py": "the sandbox's filesystem probed in namespaces",
    "batch/test_writer_process.py": "workers forked warm: each test alone in a pytest of its own",
    "batch/test_feed.py": "workers forked warm: each test alone in a pytest of its own",
    # A real PostgreSQL server: initdb and a start (5 s) before the first test.
    "experiments/test_store_postgres.py": "the store on a real PostgreSQL server",
    "cli/test_cli_postgres.py": "the commands on a real PostgreSQL server",
    "integrations/test_trackers.py": "MLflow and W&B imported and logged to (where installed)",
    # Harnesses imported when the module is collected: a fast run does not even import them.
    "integrations/test_inspect_ai.py": "imports inspect-ai (15 s)",
    "integrations/test_dspy.py": "imports DSPy (7 s)",
    "integrations/test_hf_datasets.py": "imports Hugging Face datasets (7 s)",
    "integrations/test_lighteval.py": "imports lighteval",
    "integrations/test_ray.py": "imports and starts Ray",
}
_TESTS = Path(__file__).parent
# -m "not slow" (alone or and-ed with other conditions) leaves out every slow test.
_DESELECTS_SLOW = re.compile(r"^(?!.*\bor\b).*\bnot\s+slow\b")


def slow_tier(path: Path) -> str | None:
    """The slow tier ``path`` belongs to (a key of :data:`SLOW_TIERS`), or None."""
    try:
        parts = path.relative_to(_TESTS).parts
    except ValueError:
        return None
    prefixes = ("/".join(parts[:n]) for n in range(1, len(parts) + 1))
    return next((prefix for prefix in prefixes if prefix in SLOW_TIERS), None)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In a run without the slow tests, a slow tier's modules are not even imported (an
    import of inspect-ai alone takes 15 s); otherwise pytest decides."""
    if _DESELECTS_SLOW.match(config.option.markexpr or "") and slow_tier(collection_path):
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of the slow tiers, and every ``local_model`` test, ``slow``; give
    every test its file's pytest-xdist group (:func:`xdist_group`)."""
    for item in items:
        if slow_tier(item.path) is not None or item.get_closest_marker("local_model"):
            item.add_marker(pytest.mark.slow)
        item.add_marker(pytest.mark.xdist_group(xdist_group(item.path)))
