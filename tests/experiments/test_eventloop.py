"""The run's event loop: a request body leaves with its headers, on every supported Python.

aiohttp writes a request body in a task of its own, started eagerly only on Python
3.12+; ``new_event_loop`` gives it the same start on 3.11, so a busy loop cannot hold
a sent request back (see ``answerx.experiments.eventloop``).
"""

from __future__ import annotations

import asyncio
import contextvars
import socket
import threading
import time
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import aiohttp
import pytest

from answerx.experiments.eventloop import _eager_body_writes, _start_now, new_event_loop

BUSY_LIMIT_S = 10.0
T = TypeVar("T")


def run_on_new_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the loop runs use."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        return runner.run(main)


@pytest.fixture
def body_server() -> Iterator[tuple[str, list[float]]]:
    """A bare keep-alive HTTP server on 127.0.0.1 that notes when each request's body
    has arrived (time.monotonic) and answers 200 at once."""
    arrivals: list[float] = []
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                while len(data) < length:
                    data += conn.recv(65536)
                data = data[length:]
                arrivals.append(time.monotonic())
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1/chat", arrivals
    listener.close()
    thread.join(timeout=5)


def test_a_request_body_is_on_the_wire_before_the_loop_runs_anything_else(
    body_server: tuple[str, list[float]],
) -> None:
    url, arrivals = body_server
    body = b'{"question": "What is 2+2?"}' * 50

    arrived_while_busy: list[bool] = []

    async def main() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.post(url, data=body) as reply:  # the connection, kept alive
                assert reply.status == 200
            go = asyncio.Event()

            async def post() -> None:
                await go.wait()
                async with session.post(url, data=body) as reply:
                    assert reply.status == 200

            def busy() -> None:
                # Another item's processing, ready at the same time: it holds the loop
                # until the body has reached the server (or BUSY_LIMIT_S, which only a
                # body queued behind it reaches: a check of order, not of speed).
                deadline = time.monotonic() + BUSY_LIMIT_S
                while len(arrivals) < 2 and time.monotonic() < deadline:
                    time.sleep(0.01)
                arrived_while_busy.append(len(arrivals) == 2)

            sender = asyncio.create_task(post())
            await asyncio.sleep(0)
            go.set()  # the sender's next step sends its request ...
            asyncio.get_running_loop().call_soon(busy)  # ... and then the loop is busy
            await sender

    run_on_new_loop(main())
    assert arrived_while_busy == [True] and len(arrivals) == 2


def test_a_first_step_that_finishes_gives_a_finished_future_run_in_the_given_context() -> None:
    seen = contextvars.ContextVar("seen", default="outside")

    async def write() -> str:
        seen.set("inside")
        return "written"

    async def main() -> None:
        context = contextvars.copy_context()
        future = _start_now(asyncio.get_running_loop(), write(), context)
        assert future.done() and future.result() == "written"
        assert context[seen] == "inside" and seen.get() == "outside"

    run_on_new_loop(main())


def test_a_first_step_that_waits_goes_on_in_a_task() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        gate: asyncio.Future[str] = loop.create_future()
        steps: list[str] = []

        async def write() -> str:
            steps.append("started")
            value = await gate
            steps.append(value)
            await asyncio.sleep(0)
            return value.upper()

        task = _start_now(loop, write(), contextvars.copy_context())
        assert steps == ["started"] and not task.done()  # the first step ran at once
        gate.set_result("drained")
        assert await task == "DRAINED"
        assert steps == ["started", "drained"]

    run_on_new_loop(main())


def test_cancelling_the_rest_reaches_the_coroutine() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        cleaned: list[str] = []

        async def write() -> None:
            try:
                await loop.create_future()  # never done
            finally:
                cleaned.append("connection closed")

        task = _start_now(loop, write(), contextvars.copy_context())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert cleaned == ["connection closed"]

    run_on_new_loop(main())


def test_a_cancel_before_the_task_first_runs_still_reaches_the_coroutine() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        waiting_on: asyncio.Future[None] = loop.create_future()
        cleaned: list[str] = []

        async def write() -> None:
            try:
                await waiting_on
            except asyncio.CancelledError:
                cleaned.append("connection closed")
                raise

        task = _start_now(loop, write(), contextvars.copy_context())
        task.cancel()  # in the same turn: the task has not run a step yet
        with pytest.raises(asyncio.CancelledError):
            await task
        assert cleaned == ["connection closed"]
        assert waiting_on.cancelled()  # no longer waited on, as with Task.cancel

    run_on_new_loop(main())


def test_a_keyboard_interrupt_in_the_first_step_is_raised_on() -> None:
    async def write() -> None:
        raise KeyboardInterrupt

    async def main() -> None:
        with pytest.raises(KeyboardInterrupt):
            _start_now(asyncio.get_running_loop(), write(), contextvars.copy_context())

    run_on_new_loop(main())


def test_an_exception_caught_by_the_coroutine_after_a_wait_lets_it_finish() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()

        async def write() -> str:
            try:
                await loop.create_future()
            except asyncio.CancelledError:
                return "closed cleanly"
            return "unreachable"

        task = _start_now(loop, write(), contextvars.copy_context())
        await asyncio.sleep(0)
        task.cancel()
        assert await task == "closed cleanly"

    run_on_new_loop(main())


def test_a_first_step_that_raises_gives_a_failed_future() -> None:
    async def write() -> None:
        raise ConnectionResetError("peer went away")

    async def main() -> None:
        future = _start_now(asyncio.get_running_loop(), write(), contextvars.copy_context())
        assert isinstance(future.exception(), ConnectionResetError)

    run_on_new_loop(main())


def test_every_other_coroutine_becomes_an_ordinary_task() -> None:
    async def main() -> None:
        started: list[str] = []

        async def job() -> str:
            started.append("job")
            return "done"

        task = _eager_body_writes(asyncio.get_running_loop(), job())
        assert isinstance(task, asyncio.Task) and started == []  # queued, not started
        assert await task == "done"

    run_on_new_loop(main())


def test_a_body_too_large_for_the_socket_buffer_is_written_to_the_end(
    body_server: tuple[str, list[float]],
) -> None:
    """The write cannot finish in its first step: the rest goes on in a task."""
    url, arrivals = body_server
    body = bytes(range(256)) * (64 * 1024)  # 16 MiB

    async def main() -> int:
        async with aiohttp.ClientSession() as session, session.post(url, data=body) as reply:
            return reply.status

    assert run_on_new_loop(main()) == 200
    assert len(arrivals) == 1
