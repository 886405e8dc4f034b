"""A real answerx service on a free 127.0.0.1 port, for tests that talk HTTP to it.

``start_service(**settings)`` runs ``create_app(ServiceSettings(**settings))`` on
uvicorn in a background thread of the test process and returns its base URL;
every server started in a test is stopped after it. Being in-process, the
server sees the test's environment: with ``fake_provider_env`` its provider
SDKs talk to the fake provider server, never to the network.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from answerx.service import ServiceSettings, create_app

#: The provider key the tests set in the server's environment: shaped like a real
#: one, so that a leak into a response or a log line is easy to find.
SECRET_KEY = "sk-test-0123456789abcdef"

#: Environment variables that would point the server's providers away from the fake.
_PROVIDER_ENV = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "CO_API_KEY",
    "COHERE_API_KEY",
    "LOCAL_OPENAI_API_KEY",
    "ANSWERX_LOCAL_BASE_URL",
    "ANSWERX_LOCAL_URL",
    "ANSWERX_PROVIDERS",
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "CO_API_URL",
    "ANSWERX_API_TOKEN",
)

StartService = Callable[..., str]


class ServiceThread:
    """uvicorn serving an app on 127.0.0.1 from a daemon thread."""

    def __init__(self, app: Any) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        config = uvicorn.Config(
            app,
            log_config=None,  # leave logging to pytest (caplog sees every record)
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test service did not start")
            time.sleep(0.005)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()


@pytest.fixture
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No provider keys, base URLs, provider config or token from the developer's shell."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def start_service(clean_provider_env: None) -> Iterator[StartService]:
    """Start a service with these settings (``ServiceSettings`` fields); returns its URL."""
    running: list[ServiceThread] = []

    def start(**settings: Any) -> str:
        server = ServiceThread(create_app(ServiceSettings(**settings)))
        server.start()
        running.append(server)
        return server.url

    yield start
    for server in running:
        server.stop()


@pytest.fixture
def service(start_service: StartService) -> str:
    """The URL of a service with the default settings (no token)."""
    return start_service()


@pytest.fixture
def http(service: str) -> Iterator[httpx.Client]:
    """An httpx client of ``service``."""
    with httpx.Client(base_url=service, timeout=10) as client:
        yield client
