"""The auto-started local model server lives as long as the process, whichever thread
started it, and is started anew when it died.

Marker ``local_model``: these start the bundled model (llama.cpp) on 127.0.0.1.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("llama_cpp", reason="the 'local' extra (llama-cpp-python) is not installed")

from answerx.local import server_answers, stop_started_servers
from answerx.local.server import _SHARED
from answerx.structured import InstructorClientManager

pytestmark = pytest.mark.local_model

HELLO = [{"role": "user", "content": "Say hi."}]


@pytest.fixture(autouse=True)
def _fresh_servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("ANSWERX_LOCAL_URL", raising=False)
    stop_started_servers()
    yield
    stop_started_servers()


def _in_thread(manager: InstructorClientManager) -> str:
    """One short call made from a thread that ends right after it; the text it got."""
    got: list[str] = []
    worker = threading.Thread(
        target=lambda: got.append(manager.complete_text(HELLO, max_tokens=4, temperature=0)[0])
    )
    worker.start()
    worker.join()
    return got[0]


def _server_pid() -> int:
    (server,) = _SHARED.values()
    assert server.process is not None
    return server.process.pid


def test_a_server_started_from_a_short_lived_thread_outlives_that_thread() -> None:
    manager = InstructorClientManager("local")  # no URL: answerx starts the bundled model
    _in_thread(manager)  # the starting thread has ended now
    pid, url = _server_pid(), manager.base_url
    time.sleep(0.5)  # the parent-death signal, if tied to that thread, has been sent by now

    assert url is not None and server_answers(url)
    _in_thread(manager)  # another thread, the same server
    assert (_server_pid(), manager.base_url) == (pid, url)


def test_a_server_that_died_is_started_again_on_the_next_call() -> None:
    manager = InstructorClientManager("local")
    manager.complete_text(HELLO, max_tokens=4, temperature=0)
    old_pid, old_url = _server_pid(), manager.base_url
    os.kill(old_pid, signal.SIGKILL)
    (server,) = _SHARED.values()
    assert server.process is not None
    server.process.wait(10)

    text, _ = manager.complete_text(HELLO, max_tokens=4, temperature=0)

    assert text and _server_pid() != old_pid
    assert manager.base_url != old_url and manager.base_url is not None
    assert server_answers(manager.base_url)
