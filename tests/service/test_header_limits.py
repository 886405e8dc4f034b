"""Request heads are bounded: too many bytes or header fields get 431 and a closed
connection, counted before the parser buffers them; the run viewer has the same
limits, header deadline and connection cap as the service.

Issue 35's second point: a 30 MB header was answered 200, and 100 connections each
holding 5 MB of unfinished headers added ~500 MB to the server.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from answerx.experiments.store import ResultStore
from answerx.service import ServiceSettings, create_app
from answerx.service.protocol import GuardedH11Protocol
from answerx.service.server import uvicorn_options
from conftest import StartService, free_port

HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def _reply(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (a reset after its reply included)."""
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk


def _send_head(url: str, head: bytes) -> bytes:
    with _connect(url) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(head)  # refused part-way or not: the reply was sent before
        return _reply(sock)


def _status(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1])


def test_the_defaults_are_64_kib_and_100_fields() -> None:
    settings = ServiceSettings()
    assert (settings.max_header_bytes, settings.max_headers) == (65_536, 100)


def test_a_head_past_the_byte_limit_is_answered_431_with_the_services_error(
    start_service: StartService,
) -> None:
    url = start_service(max_header_bytes=4096)
    reply = _send_head(url, HEAD + b"X-Big: " + b"a" * 5000 + b"\r\n\r\n")

    assert _status(reply) == 431
    body = json.loads(reply.split(b"\r\n\r\n", 1)[1])
    assert body["error"]["type"] == "request_header_fields_too_large"
    assert "4096 bytes" in body["error"]["message"]


def test_a_head_within_the_limits_is_answered(start_service: StartService) -> None:
    url = start_service(max_header_bytes=4096, max_headers=10)
    headers = b"".join(b"X-H%d: v\r\n" % i for i in range(8))  # Host, 8, Connection: 10
    reply = _send_head(url, HEAD + headers + b"Connection: close\r\n\r\n")

    assert _status(reply) == 200


def test_one_header_field_too_many_is_answered_431(start_service: StartService) -> None:
    url = start_service(max_headers=10)
    headers = b"".join(b"X-H%d: v\r\n" % i for i in range(10))  # Host and 10 more: 11

    assert _status(_send_head(url, HEAD + headers + b"\r\n")) == 431


def test_megabytes_of_headers_sent_slowly_are_cut_at_the_limit(
    start_service: StartService,
) -> None:
    url = start_service(header_timeout_s=30)  # the limit, not the deadline, must cut it
    sent, reply = 0, b""
    with _connect(url) as sock:
        sock.sendall(HEAD + b"X-Slow: ")
        while sent < 5_000_000 and not reply:  # 5 MB of one header, in 16 KB pieces
            readable, _, _ = select.select([sock], [], [], 0.002)
            if readable:
                reply = _reply(sock)
                break
            try:
                sock.sendall(b"a" * 16_384)
            except (BrokenPipeError, ConnectionResetError):
                reply = _reply(sock)
                break
            sent += 16_384

    assert _status(reply) == 431
    assert sent < 1_000_000  # answered at 64 KiB (and what the sockets' buffers held)


def test_a_request_with_a_body_bigger_than_the_head_limit_is_served(
    start_service: StartService,
) -> None:
    url = start_service(max_header_bytes=2048, max_body_bytes=200_000)
    output = "x " * 50_000 + "\nThe answer is 5."  # the body follows the head in the same reads

    response = httpx.post(url + "/v1/extract", json={"raw_output": output}, timeout=30)

    assert response.json()["answer"] == "5"


def test_keep_alive_requests_each_get_the_whole_limit(start_service: StartService) -> None:
    url = start_service(max_header_bytes=4096)
    with httpx.Client(base_url=url, headers={"X-Pad": "p" * 3000}, timeout=10) as http:
        statuses = [http.get("/healthz").status_code for _ in range(5)]  # 15 KB over one socket

    assert statuses == [200] * 5


@pytest.fixture
def h11_service() -> Iterator[str]:
    """The service on uvicorn's h11 protocol (where httptools is not installed), with
    a 4 KiB and 10-field head limit."""
    settings = ServiceSettings(max_header_bytes=4096, max_headers=10)
    options = uvicorn_options(settings, in_process=True)
    limits = {"max_header_bytes": 4096, "max_headers": 10}
    options["http"] = type("H11", (GuardedH11Protocol,), limits)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        create_app(settings), lifespan="off", log_config=None, timeout_graceful_shutdown=1,
        **options,
    )  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(10)
    sock.close()


def test_the_h11_protocol_has_the_same_limits(h11_service: str) -> None:
    fields = b"".join(b"X-H%d: v\r\n" % i for i in range(10))

    assert _status(_send_head(h11_service, HEAD + b"X-Big: " + b"a" * 5000 + b"\r\n\r\n")) == 431
    assert _status(_send_head(h11_service, HEAD + fields + b"\r\n")) == 431
    assert _status(_send_head(h11_service, HEAD + b"Connection: close\r\n\r\n")) == 200


# --------------------------------------------------------------------------- the viewer


@pytest.fixture
def viewer(tmp_path: Path) -> Iterator[str]:
    """``answerx runs view`` as a child process with a 0.5 s header deadline."""
    db = tmp_path / "runs.db"
    with ResultStore(db):
        pass
    port = free_port()
    env = {**os.environ, "ANSWERX_HEADER_TIMEOUT_S": "0.5", "ANSWERX_MAX_HEADER_BYTES": "4096"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "answerx", "runs", "view", "--db", str(db), "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(url + "/runs/", timeout=1)
            break
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                errors = proc.stderr.read() if proc.stderr else b""
                raise AssertionError(f"the viewer did not start: {errors!r}") from None
            time.sleep(0.1)
    try:
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_the_viewer_closes_connections_that_stop_mid_headers(viewer: str) -> None:
    with _connect(viewer) as sock:
        sock.sendall(b"GET /runs/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half")
        started = time.monotonic()
        assert _reply(sock) == b""  # closed, without an answer

    assert time.monotonic() - started < 5  # the 0.5 s deadline, not never


def test_the_viewer_answers_an_oversized_head_431_and_serves_the_rest(viewer: str) -> None:
    reply = _send_head(viewer, b"GET /runs/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                       + b"a" * 5000 + b"\r\n\r\n")  # fmt: skip

    assert _status(reply) == 431
    assert httpx.get(viewer + "/runs/", timeout=10).status_code == 200
