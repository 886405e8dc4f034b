"""The main loop of a grading worker process (see :mod:`answerx.grading.pool`)."""

from __future__ import annotations

import json
import sys
from typing import Any

from answerx.grading.pool import REPLY

__all__ = ["serve", "template"]

# Comparisons that load sympy's lazily imported parts (sets, intervals, equations,
# matrices, roots) at startup: a fresh worker's first items would otherwise pay a
# second or more for them, against their time limit.
_WARM_UP = (
    ("1", "1"),
    (r"\frac{\sqrt{2}}{2}", r"\sqrt{2}/2"),
    ("(x+1)^2", "x^2+2x+1"),
    ("x=2", "2"),
    (r"\{1, 2\}", r"\{2,1\}"),
    ("(0,1]", "[0,1)"),
    ("3,2", "2,3"),
    ("50\\%", "0.5"),
    (r"\begin{pmatrix}1\\2\end{pmatrix}", r"\begin{pmatrix}1\\2\end{pmatrix}"),
    ("x < 3", "(-\\infty, 3)"),
)


def _answer(request: list[Any]) -> Any:
    from answerx.grading.core import symbolic_then_math, verify
    from answerx.grading.mathverify import compare

    op = request[0]
    if op == "math":
        return compare(request[1], request[2], 0)  # in a worker: no timer, the pool's limit
    if op == "rung":  # a batch worker's, which has not math-verify's patterns
        return symbolic_then_math(request[1], request[2], 0)
    if op == "verify":
        return verify(**request[1]).model_dump(mode="json")
    raise ValueError(f"unknown request {op!r}")


def serve(*, warm: bool = True) -> None:
    """Answer one JSON request per stdin line with one JSON reply per stdout line.

    ``warm=False``: a worker forked from a process that ran the warm-up already.
    """
    from answerx.grading.mathverify import compare, enter_worker

    enter_worker()
    for answer, gold in _WARM_UP if warm else ():  # startup is no part of any item's limit
        # compare: a missing or broken math-verify answers "unavailable" instead of ending
        # the worker before it is ready (the caller's run would then stop on it)
        compare(answer, gold, 0)
    out = sys.stdout
    out.write(REPLY + json.dumps("ready") + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            reply = _answer(json.loads(line))
        except Exception as exc:  # one bad request must not end the worker
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(REPLY + json.dumps(reply, ensure_ascii=False) + "\n")
        out.flush()


def template(channel: int) -> None:
    """A warm worker that forks the others (see :class:`answerx.grading.pool.WorkerPool`).

    It imports and warms math-verify once, then for each request on ``channel`` (a Unix
    socket from the pool) takes the two pipe ends sent with it, forks a worker that
    serves on them, and replies with the worker's pid: N workers cost one start.
    """
    import gc
    import os
    import signal
    import socket

    from answerx.grading.mathverify import compare, enter_worker
    from answerx.grading.pool import serve_copy

    enter_worker()
    for answer, gold in _WARM_UP:  # compare: a broken math-verify warms to "unavailable"
        compare(answer, gold, 0)
    # Reaped here, not left to the kernel: their CPU is then counted in this process's
    # children, as a started worker's is in its caller's.
    signal.signal(signal.SIGCHLD, lambda *_: _reap(block=False))
    gc.freeze()  # what the workers share is never collected (and so never copied)
    pool = socket.socket(fileno=channel)
    pool.sendall(b"ready\n")
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(pool, 16, 2)
        except OSError:
            fds = []
        if len(fds) != 2:  # the pool closed its end: no more workers to make
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _reap(block=True)
            return
        pid = os.fork()
        if pid == 0:
            pool.close()
            serve_copy(fds[0], fds[1], warm=False)
        for fd in fds:
            os.close(fd)
        pool.sendall(b"%d\n" % pid)


def _reap(*, block: bool) -> None:
    """Collect the template's ended workers (all of them, waiting, with ``block``)."""
    import os

    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
