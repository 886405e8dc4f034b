"""math-verify's equivalence (symbolic and numeric), bounded in time on any thread.

:func:`compare` sends the comparison to a worker process of
:mod:`answerx.grading.pool`; inside that worker, :func:`math_equal` runs
math-verify with its ``signal.alarm`` timers off, and the pool enforces the time
limit from outside.

A missing, too old or broken math-verify never aborts a caller's run: it is named once,
with the version found, when this module is imported, and every comparison that needs it
comes back ``unavailable`` (graded as a ``timeout`` whose ``how`` is
``math_verify_unavailable``: the rules could not tell) instead of raising.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import threading
import warnings
from functools import lru_cache
from importlib import metadata
from typing import Any, Literal, get_args

from answerx.grading.pool import shared_pool

__all__ = [
    "MIN_MATH_VERIFY",
    "MathResult",
    "compare",
    "compare_with_rung",
    "comparisons_elsewhere",
    "guarded_math_equal",
    "math_equal",
    "math_verify_problem",
]

log = logging.getLogger(__name__)

#: ``unreadable_gold``: math-verify could not read the gold answer at all;
#: ``unavailable``: math-verify is missing, too old or broken here (nothing was compared).
MathResult = Literal["equal", "different", "unreadable_gold", "timeout", "unavailable"]
_RESULTS: tuple[str, ...] = get_args(MathResult)

# True inside a worker process: math-verify is called right here.
_IN_WORKER = False

#: The oldest math-verify answerx can call: 0.8.0 brought ``parse(raise_on_error=)``,
#: ``math_verify.errors`` and timers that can be turned off (None), all three used here.
MIN_MATH_VERIFY = (0, 8, 0)


def _release(version: str) -> tuple[int, ...]:
    # The release numbers of a version ("0.8.0rc1" -> (0, 8, 0)); pre-release tags and
    # local parts do not move a release across the minimum.
    return tuple(int(m.group()) if (m := re.match(r"\d+", part)) else 0
                 for part in version.split(".")[:3])  # fmt: skip


@lru_cache(maxsize=1)
def math_verify_problem() -> str | None:
    """Why math-verify cannot be used here (missing or older than :data:`MIN_MATH_VERIFY`),
    or None. Read from the installed package's metadata: nothing is imported."""
    needed = ".".join(map(str, MIN_MATH_VERIFY))
    fix = f"pip install 'math-verify[antlr4_13_2]>={needed}'"
    try:
        version = metadata.version("math-verify")
    except metadata.PackageNotFoundError:
        if importlib.util.find_spec("math_verify") is not None:
            return None  # importable without metadata (vendored): the import itself will tell
        return f"math-verify is not installed ({fix})"
    if _release(version) < MIN_MATH_VERIFY:
        return f"math-verify {version} is installed; answerx needs {needed} or later ({fix})"
    return None


def _warn_once_at_import() -> None:
    problem = math_verify_problem()
    if problem is not None:
        warnings.warn(
            f"{problem}: answers only math-verify can compare (matrices, identities, "
            "equations to solve) are graded reason 'timeout', how "
            "'math_verify_unavailable' instead of compared",
            RuntimeWarning,
            stacklevel=2,
        )


_warn_once_at_import()


def enter_worker() -> None:
    """Mark this process as a grading worker (called by the worker's main loop only)."""
    global _IN_WORKER
    _IN_WORKER = True
    # math-verify warns once that its timers are off: here the pool's limit applies.
    logging.getLogger("math_verify").setLevel(logging.ERROR)


def _latex(answer: str) -> str:
    # math-verify reads "6√2" as 6 (it drops the sign): spell the root in LaTeX.
    answer = answer.replace("√", "\\sqrt")
    # math-verify looks for LaTeX between delimiters; a bare "\frac{3}{4}" or "x^2+1" is
    # found only inside "$...$". Answers that carry their own delimiters go in as they are.
    return answer if "$" in answer or "\\boxed" in answer else f"${answer}$"


_CACHED_CHARS = 512  # longer texts are parsed afresh: the cache must stay small


def _parse(answer: str, limit: int | None) -> tuple[Any, ...]:
    return (
        _parse_cached(answer, limit) if len(answer) <= _CACHED_CHARS else _parse_now(answer, limit)
    )


def _parse_now(answer: str, limit: int | None) -> tuple[Any, ...]:
    from math_verify import parse

    try:
        return tuple(parse(_latex(answer), parsing_timeout=limit, raise_on_error=True))
    except Exception:  # math-verify's own default: an unreadable answer parses to nothing
        return ()


# An RL run grades many outputs against the same gold answer: parse it once.
_parse_cached = lru_cache(maxsize=4096)(_parse_now)


def math_equal(answer: str, gold: str, limit: int | None = None) -> MathResult:
    """math-verify's verdict on ``answer`` against ``gold``, in this process.

    ``limit`` is math-verify's own per-step timer (``signal.alarm``: main thread
    only); None, as in the worker, turns it off.
    """
    from math_verify import verify
    from math_verify.errors import TimeoutException

    try:
        gold_parsed = _parse(gold, limit)
        answer_parsed = _parse(answer, limit) if gold_parsed else ()
    except TimeoutException:  # a BaseException: the parse overran math-verify's own timer
        return "timeout"
    if not gold_parsed:
        return "unreadable_gold"
    if not answer_parsed:
        return "different"
    try:
        same = verify(list(gold_parsed), list(answer_parsed), timeout_seconds=limit)
    except Exception:
        log.debug("math-verify comparison failed", exc_info=True)
        same = False
    return "equal" if same else "different"


def compare(answer: str, gold: str, limit_s: float) -> MathResult:
    """math-verify's verdict, within ``limit_s`` seconds, from any thread; ``unavailable``
    where math-verify cannot be used (see :func:`math_verify_problem`)."""
    if math_verify_problem() is not None:
        return "unavailable"
    if _IN_WORKER:
        return guarded_math_equal(answer, gold)
    pool = shared_pool()
    if pool.available:
        try:
            (reply,) = pool.run([["math", answer, gold]], limit_s)
        except RuntimeError:
            reply = _in_process(answer, gold, limit_s)
        return reply if reply in _RESULTS else "timeout"
    return _in_process(answer, gold, limit_s)


def comparisons_elsewhere() -> bool:
    """Whether this process's math-verify comparisons are made by grading workers copied
    from a run's template (a file run's batch worker,
    :func:`answerx.grading.pool.join_template`): those have math-verify's parser loaded,
    and this process never needs to load it (half a second of CPU per batch worker)."""
    return not _IN_WORKER and shared_pool().joined and math_verify_problem() is None


def compare_with_rung(
    answer: str, gold: str, limit_s: float
) -> tuple[bool, str] | MathResult | None:
    """The fast rung's ``(same, how)``, else math-verify's verdict, both made by a grading
    worker (a ``rung`` request, see :mod:`answerx.grading._worker`), within ``limit_s``
    seconds: for a process whose rung would need math-verify's parser, which only its
    workers have (:func:`comparisons_elsewhere`). None where no worker can be started
    (the caller then makes both here)."""
    try:
        (reply,) = shared_pool().run([["rung", answer, gold]], limit_s)
    except RuntimeError:
        return None
    if isinstance(reply, list) and len(reply) == 2 and isinstance(reply[0], bool):
        return reply[0], str(reply[1])
    return reply if reply in _RESULTS else "timeout"


def _in_process(answer: str, gold: str, limit_s: float) -> MathResult:
    # No worker process can be started here (a sandbox without subprocesses): on the main
    # thread math-verify's own timers still bound each step; elsewhere nothing can.
    on_main = threading.current_thread() is threading.main_thread() and os.name == "posix"
    return guarded_math_equal(answer, gold, max(1, round(limit_s)) if on_main else None)


def guarded_math_equal(answer: str, gold: str, limit: int | None = None) -> MathResult:
    """:func:`math_equal`, or ``unavailable`` when math-verify cannot be imported (a
    broken install, a missing compiled dependency: the version alone did not tell)."""
    try:
        return math_equal(answer, gold, limit)
    except ImportError as exc:
        _log_broken(f"{type(exc).__name__}: {exc}")
        return "unavailable"


@lru_cache(maxsize=1)
def _log_broken(error: str) -> None:
    # Once per process: every math comparison after this one meets the same error.
    log.warning("math-verify cannot be imported (%s): math comparisons are unavailable", error)
