"""The main loop of a grading worker process (see :mod:`answerx.grading.pool`)."""

from __future__ import annotations

import json
import sys
from typing import Any

from answerx.grading.pool import REPLY

__all__ = ["serve"]


def _answer(request: list[Any]) -> Any:
    from answerx.grading.core import verify
    from answerx.grading.mathverify import math_equal

    op = request[0]
    if op == "math":
        return math_equal(request[1], request[2])
    if op == "verify":
        return verify(**request[1]).model_dump(mode="json")
    raise ValueError(f"unknown request {op!r}")


def serve() -> None:
    """Answer one JSON request per stdin line with one JSON reply per stdout line."""
    from answerx.grading.mathverify import enter_worker, math_equal

    enter_worker()
    math_equal("1", "1")  # import and warm math-verify and sympy: startup is no timeout
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
