"""The main loop of a grading worker process (see :mod:`answerx.grading.pool`)."""

from __future__ import annotations

import json
import sys
from typing import Any

from answerx.grading.pool import REPLY

__all__ = ["serve"]

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
    from answerx.grading.core import verify
    from answerx.grading.mathverify import compare

    op = request[0]
    if op == "math":
        return compare(request[1], request[2], 0)  # in a worker: no timer, the pool's limit
    if op == "verify":
        return verify(**request[1]).model_dump(mode="json")
    raise ValueError(f"unknown request {op!r}")


def serve() -> None:
    """Answer one JSON request per stdin line with one JSON reply per stdout line."""
    from answerx.grading.mathverify import compare, enter_worker

    enter_worker()
    for answer, gold in _WARM_UP:  # startup is no part of any item's time limit
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
