"""A real answerx service on a free 127.0.0.1 port, for tests that talk HTTP to it.

``start_service(**settings)`` runs ``create_app(ServiceSettings(**settings))`` on
uvicorn in a background thread of the test process and returns its base URL;
every server started in a test is stopped after it. Being in-process, the
server sees the test's environment: with ``fake_env`` its provider SDKs talk to
the fake provider server, never to the network. :class:`ServeProcess` runs
``answerx serve`` itself, as a child process.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx
import pytest
import uvicorn

import fake_managers
from answerx.service import ServiceSettings, create_app
from answerx.service.server import uvicorn_options
from answerx.testing import FakeProviderServer

#: The provider key the tests set in the server's environment: shaped like a real
#: one, so that a leak into a response or a log line is easy to find.
SECRET_KEY = "sk-test-0123456789abcdef"

#: Environment variables that would point the server's providers away from the fake.
PROVIDER_ENV = (*fake_managers.PROVIDER_ENV, "ANSWERX_API_TOKEN")

StartService = Callable[..., str]


def samples(text: str, name: str) -> dict[str, float]:
    """``{labels: value}`` of one metric in the Prometheus text format."""
    found = {}
    for line in text.splitlines():
        if line.startswith(name + "{"):
            labels, value = line[len(name) :].rsplit(" ", 1)
            found[labels] = float(value)
    return found


def free_port() -> int:
    """A 127.0.0.1 port nobody listens on (for a moment)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServeProcess:
    """``python -m answerx serve --port P`` as a child process, its output collected.

    ``stop()`` sends SIGTERM (what a process manager sends) and returns the exit
    status; :attr:`output` then holds everything the server wrote.
    """

    def __init__(self, env: Mapping[str, str], *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.output = ""
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "answerx", "serve", "--port", str(self.port), *args],
            env=dict(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def wait_until_up(self, timeout: float = 60) -> httpx.Response:
        """The first answer of ``/healthz``."""
        deadline = time.monotonic() + timeout
        while True:
            if self._proc.poll() is not None:
                self.stop()
                raise AssertionError(f"answerx serve exited early:\n{self.output}")
            try:
                return httpx.get(self.url + "/healthz", timeout=1)
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"answerx serve did not answer:\n{self.output}") from None
                time.sleep(0.1)

    def stop(self) -> int:
        """SIGTERM, then the exit status (killed after 30 s: a test failure, not a hang)."""
        if self._proc.stdout is None or self._proc.stdout.closed:  # stopped already
            return self._proc.returncode
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
        try:
            out, _ = self._proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            out, _ = self._proc.communicate()
        self.output += out or ""
        return self._proc.returncode


@pytest.fixture
def serve_process() -> Iterator[Callable[..., ServeProcess]]:
    """Start ``answerx serve`` children (``env``, extra options); all stopped afterwards."""
    started: list[ServeProcess] = []

    def start(env: Mapping[str, str], *args: str) -> ServeProcess:
        process = ServeProcess(env, *args)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()


class ServiceThread:
    """uvicorn serving an app on 127.0.0.1 from a daemon thread."""

    def __init__(self, app: Any, settings: ServiceSettings | None = None) -> None:
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
            # The connection limits `answerx serve` sets (header deadline, cap, keep-alive).
            **uvicorn_options(settings or ServiceSettings(), in_process=True),
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
    for name in PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_env(
    clean_provider_env: None, fake_provider: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> FakeProviderServer:
    """The fake provider, with the SDKs' URL and key (:data:`SECRET_KEY`) variables
    pointing at it: a server started now uses it with that key."""
    for name, value in fake_provider.env(api_key=SECRET_KEY).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ANSWERX_PROMPT_DIR", raising=False)
    return fake_provider


@pytest.fixture
def start_service(clean_provider_env: None) -> Iterator[StartService]:
    """Start a service with these settings (``ServiceSettings`` fields); returns its URL."""
    running: list[ServiceThread] = []

    def start(**settings: Any) -> str:
        service_settings = ServiceSettings(**settings)
        server = ServiceThread(create_app(service_settings), service_settings)
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
