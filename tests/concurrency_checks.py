"""Structural checks of concurrency and rates (on the test path via ``pythonpath`` in pyproject).

Tests of "these calls overlap" or "this rate holds" must not flake on a loaded machine,
so they never bound elapsed wall-clock time from above:

- :class:`Overlap` is a fake-provider responder that counts the requests it holds at
  once: a test asserts the peak (``== 50`` for 50 concurrent calls, ``== 2`` under a cap
  of 2), never how long the burst took. A slow machine only makes the test slower.
- :func:`record_returns` notes when a limiter lets each call through (its own events),
  :func:`assert_within_bucket` checks those against the token bucket's bound, which holds
  whatever the load, and :func:`assert_each_request_after_its_release` ties them to the
  server's ``received_at`` times (a request arrives after its call was let through).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from answerx.testing import RecordedRequest, Reply

Script = Reply | Callable[[RecordedRequest], Reply]


class Overlap:
    """A fake-provider responder that holds each request until ``together`` are held at once.

    Each request (or each one ``when`` selects; others are answered at once) is held in
    its server thread until ``together`` requests are held at the same moment, then held
    ``hold`` seconds more, then answered with ``reply`` (a :class:`Reply`, or a function of
    the request returning one). :attr:`peak` is the most requests held at once.

    A client that sends its requests one after another never fills the gate: the first
    request gives up after ``timeout`` seconds, the gate then stays open, and the test's
    ``assert overlap.peak == together`` fails with the number it saw instead of hanging.
    ``hold`` keeps requests in flight a while after the gate opens, so a missing cap on
    concurrency shows as a peak above the cap.
    """

    def __init__(
        self,
        reply: Script,
        *,
        together: int,
        hold: float = 0.0,
        timeout: float = 10.0,
        when: Callable[[RecordedRequest], bool] | None = None,
    ) -> None:
        self.reply = reply
        self.together = together
        self.hold = hold
        self.timeout = timeout
        self.when = when
        self.peak = 0
        self.gave_up = False
        self._held = 0
        self._changed = threading.Condition()

    def __call__(self, request: RecordedRequest) -> Reply:
        if self.when is None or self.when(request):
            self._hold_with_the_others()
        return self.reply(request) if callable(self.reply) else self.reply

    def _hold_with_the_others(self) -> None:
        with self._changed:
            self._held += 1
            self.peak = max(self.peak, self._held)
            self._changed.notify_all()
            if not self._changed.wait_for(
                lambda: self.peak >= self.together or self.gave_up, self.timeout
            ):
                self.gave_up = True
                self._changed.notify_all()
        try:
            if self.hold:
                time.sleep(self.hold)
        finally:
            with self._changed:
                self._held -= 1


def record_returns(monkeypatch: pytest.MonkeyPatch, owner: type, method: str) -> list[float]:
    """Patch the coroutine method ``owner.method`` to note ``time.time()`` each time a
    call of it returns; the list it returns fills as the test runs.

    For a rate limiter's acquire (``ProviderLimits.wait_for_rate``), these are the
    moments calls were let through: the limiter's own events, taken in the same step of
    the event loop in which it decided, so load cannot shift them against its accounting.
    """
    original = getattr(owner, method)
    returns: list[float] = []

    @functools.wraps(original)
    async def noted(*args: Any, **kwargs: Any) -> Any:
        result = await original(*args, **kwargs)
        returns.append(time.time())
        return result

    monkeypatch.setattr(owner, method, noted)
    return returns


def assert_within_bucket(times: Iterable[float], *, bucket: float, per_second: float) -> None:
    """Assert that ``times`` (when calls were let through) never outrun a token bucket.

    A bucket of ``bucket`` tokens refilled at ``per_second`` lets at most
    ``bucket + per_second * (b - a)`` calls through in any interval ``[a, b]``, whatever
    the load (a stalled loop lets through at most the bucket's refill at once).
    Unlimited calls started together break it at once.
    """
    ordered = sorted(times)
    for i, first in enumerate(ordered):
        for j in range(i, len(ordered)):
            allowed = bucket + per_second * (ordered[j] - first)
            assert j - i + 1 <= allowed + 0.05, (
                f"{j - i + 1} calls let through in {ordered[j] - first:.3f} s; "
                f"a bucket of {bucket:g} at {per_second:g}/s allows {allowed:.2f}"
            )


def assert_each_request_after_its_release(
    received_at: Iterable[float], released_at: Iterable[float]
) -> None:
    """Assert that no request reached the server before a call was let through for it:
    the k-th request to arrive came after the k-th release (a request is sent after its
    call is let through, and received after it is sent)."""
    received, released = sorted(received_at), sorted(released_at)
    assert len(received) == len(released)
    slack = 0.005  # the two lists are noted in different threads of this process
    for k, (arrived, let_through) in enumerate(zip(received, released, strict=True), start=1):
        assert arrived >= let_through - slack, f"request {k} arrived before its release"
