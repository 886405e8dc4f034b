"""Structural checks of concurrency and rates (on the test path via ``pythonpath`` in pyproject).

Tests of "these calls overlap" or "this rate holds" must not flake on a loaded machine,
so they never bound elapsed wall-clock time from above:

- :class:`Overlap` is a fake-provider responder that counts the requests it holds at
  once: a test asserts the peak (``== 50`` for 50 concurrent calls, ``== 2`` under a cap
  of 2), never how long the burst took. A slow machine only makes the test slower.
- :func:`assert_no_request_before_its_token` checks a token-bucket rate against the
  server's ``received_at`` times in the one direction load cannot break: a request is
  received after it was sent, so the k-th request can never arrive before the bucket
  would have let it go.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

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


def assert_no_request_before_its_token(
    received_at: Iterable[float], *, started: float, bucket: float, per_second: float
) -> None:
    """Assert that no request arrived earlier than a token bucket would have sent it.

    ``started`` is ``time.time()`` taken before the first request could be sent (the
    bucket full, nothing sent yet). A bucket of ``bucket`` requests refilled at
    ``per_second`` sends at most ``bucket + per_second * t`` requests in the first ``t``
    seconds, so the k-th request (1-based) is sent, and therefore received, no earlier
    than ``(k - bucket) / per_second`` seconds after ``started``. Load only delays
    requests, so this never fails on a slow machine; unlimited requests break it at once.
    """
    slack = 0.02  # the limiter reads a monotonic clock, the fake server wall-clock time
    for k, at in enumerate(sorted(received_at), start=1):
        earliest = (k - bucket) / per_second
        assert at - started >= earliest - slack, (
            f"request {k} arrived {at - started:.3f} s after the start, "
            f"before the bucket allowed it ({earliest:.3f} s)"
        )
