"""Scoring: is an extracted answer right? One deterministic check per task, no model call.

:func:`score` compares one predicted answer with its gold answer and says how
it decided (``ScoreResult.method``); :func:`score_items` fills ``correct`` and
``score_method`` of stored items; :func:`score_run` re-scores a stored run.

Math goes through math-verify, whose time limits are ``signal.alarm`` timers
that only work on the main thread. On the main thread we use them as they are;
on any other thread (``asyncio.to_thread``, a web server's pool) the comparison
runs in a child Python process that answers on *its* main thread, so the same
limits apply, and a comparison the limits cannot interrupt (a hang inside C
code) ends with the child being killed. A length cap alone would not do:
``9^{9^{9}}`` is eleven characters and makes sympy work for minutes.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import json
import logging
import operator
import os
import queue
import re
import string
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict

from answerx.errors import ConfigError
from answerx.experiments.records import ItemKey, ItemRecord
from answerx.extraction.cleaning import clean_answer
from answerx.extraction.game24 import as_expression
from answerx.extraction.models import TASKS
from answerx.extraction.numbers import canonical_number
from answerx.extraction.tasks import letter_of

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = [
    "SCORE_METHODS",
    "ScoreMethod",
    "ScoreResult",
    "check_game24",
    "infer_task",
    "normalize_text",
    "score",
    "score_item",
    "score_items",
    "score_run",
]

log = logging.getLogger(__name__)

ScoreMethod = Literal[
    "math_verify",
    "math_verify_timeout",
    "numeric",
    "choice_letter",
    "choice_text",
    "boolean",
    "text",
    "game24",
    "no_answer",
    "no_gold",
]
SCORE_METHODS: tuple[str, ...] = get_args(ScoreMethod)

#: Seconds math-verify may spend on one parse or one comparison (its own default).
MATH_TIMEOUT_S = 5


class ScoreResult(BaseModel):
    """The verdict on one answer: ``correct`` is None when it cannot be judged (no gold)."""

    model_config = ConfigDict(frozen=True)

    correct: bool | None
    method: ScoreMethod


def score(
    predicted: str | None,
    gold: str | None,
    task: str = "auto",
    *,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
    tolerance: float = 1e-6,
    math_timeout_s: int = MATH_TIMEOUT_S,
) -> ScoreResult:
    """Compare ``predicted`` with ``gold`` the way ``task`` says.

    Both answers are cleaned first (``clean_answer``: "The answer is $4$." is
    ``4``). A missing prediction is wrong (``no_answer``); a missing gold
    answer cannot be judged (``correct=None``, ``no_gold``), except for
    ``game24``, which checks the expression against ``numbers``. ``tolerance``
    is relative to the gold value and absolute below 1 (numeric task).
    Raises ConfigError for an unknown task name; never raises for any answer text.

    >>> score("\\\\frac{1}{2}", "0.5", "math")
    ScoreResult(correct=True, method='math_verify')
    >>> score("$1,234.50", "1234.5", "numeric")
    ScoreResult(correct=True, method='numeric')
    """
    if task not in TASKS:
        raise ConfigError(f"unknown task {task!r}; valid tasks: {', '.join(TASKS)}")
    pred = clean_answer(predicted) if predicted else ""
    ref = clean_answer(gold) if gold else ""
    if task == "auto":
        task = infer_task(ref or None, choices, numbers)
    if task == "game24":
        if numbers is None and ref:
            numbers = _numbers_of(ref)  # a reference solution names the numbers
        if numbers is None:
            return ScoreResult(correct=None, method="no_gold")
        if not pred:
            return ScoreResult(correct=False, method="no_answer")
        return ScoreResult(correct=check_game24(pred, numbers), method="game24")
    if not ref:
        return ScoreResult(correct=None, method="no_gold")
    if not pred:
        return ScoreResult(correct=False, method="no_answer")
    return _SCORERS[task](pred, ref, choices, tolerance, math_timeout_s)


def infer_task(
    gold: str | None,
    choices: Sequence[str] | None = None,
    numbers: Sequence[int | float] | None = None,
) -> str:
    """The task an ``auto`` item most likely is, from its gold answer, choices and numbers."""
    if choices:
        return "multiple_choice"
    if numbers:
        return "game24"
    g = (gold or "").strip()
    if _BOOLEAN_WORD.fullmatch(g):
        return "boolean"
    if _PLAIN_NUMBER.fullmatch(g):
        return "numeric"
    if _STRICT_LETTER.fullmatch(g):
        return "multiple_choice"
    if _MATH_HINT.search(g):
        return "math"
    return "text"


def score_item(item: ItemRecord, *, math_timeout_s: int = MATH_TIMEOUT_S) -> ItemRecord:
    """``item`` with ``correct`` and ``score_method`` filled in (a new record)."""
    result = score(
        item.extracted_answer,
        item.gold,
        item.task,
        choices=item.choices,
        numbers=item.numbers,
        math_timeout_s=math_timeout_s,
    )
    return item.model_copy(update={"correct": result.correct, "score_method": result.method})


def score_items(
    items: Iterable[ItemRecord], *, math_timeout_s: int = MATH_TIMEOUT_S
) -> list[ItemRecord]:
    """Every item scored (see :func:`score_item`); calls no model."""
    return [score_item(item, math_timeout_s=math_timeout_s) for item in items]


class ScoreStore(Protocol):
    """The part of the results store that :func:`score_run` needs."""

    def items(self, run_id: str) -> Iterator[ItemRecord]: ...

    def update_scores(self, run_id: str, scores: Sequence[tuple[ItemKey, bool | None, str]]) -> Any:
        """Store ``(key, correct, score_method)`` for items of ``run_id``."""
        ...


def score_run(
    store: ScoreStore, run_id: str, *, math_timeout_s: int = MATH_TIMEOUT_S
) -> list[ItemRecord]:
    """Re-score every item of a stored run and save the verdicts; returns the scored items."""
    scored = score_items(store.items(run_id), math_timeout_s=math_timeout_s)
    store.update_scores(
        run_id, [(item.key, item.correct, item.score_method or "no_gold") for item in scored]
    )
    return scored


# --- numeric ----------------------------------------------------------------------------------

_PLAIN_NUMBER = re.compile(
    r"[-−]?\s*(?:\\?\$|€|£)?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?\s*(?:%|\\%)?"
)
_MATH_HINT = re.compile(r"[\\^_{}=+*/<>()\[\]]|\d")


def _as_fraction(text: str) -> Fraction | None:
    canonical = canonical_number(text)
    if canonical is None:
        return None
    try:
        return Fraction(canonical)
    except (ValueError, ZeroDivisionError):  # "1/0"
        return None


def _score_numeric(
    pred: str, ref: str, choices: Sequence[str] | None, tolerance: float, limit: int
) -> ScoreResult:
    expected = _as_fraction(ref)
    if expected is None:  # a numeric item whose gold is not a number: compare as text
        return _score_text(pred, ref, choices, tolerance, limit)
    got = _as_fraction(pred)
    if got is None:
        return ScoreResult(correct=False, method="numeric")
    # Exact on fractions, then within `tolerance` relative to the gold value (absolute below 1).
    close = got == expected or abs(got - expected) <= tolerance * max(1.0, abs(float(expected)))
    return ScoreResult(correct=bool(close), method="numeric")


# --- multiple choice and boolean --------------------------------------------------------------

_STRICT_LETTER = re.compile(r"\(?[A-J]\)?")
_BARE_LETTER = re.compile(r"[\s(\[]*([A-Ja-j])[\s)\].:]*")


def _choice(answer: str, choices: Sequence[str] | None) -> tuple[str, ScoreMethod] | None:
    """(letter, how) for an answer naming a choice: a letter form, or an option's text."""
    bare = _BARE_LETTER.fullmatch(answer)
    if bare:  # "b", "(B)", "B." — a lone letter is a choice letter whatever its case
        return bare.group(1).upper(), "choice_letter"
    letter = letter_of(answer)
    if letter:
        return letter, "choice_letter"
    letter = letter_of(answer, choices) if choices else None
    return (letter, "choice_text") if letter else None


def _score_choice(
    pred: str, ref: str, choices: Sequence[str] | None, tolerance: float, limit: int
) -> ScoreResult:
    expected = _choice(ref, choices)
    if expected is None:  # gold is neither a letter nor an option: compare as text
        return _score_text(pred, ref, choices, tolerance, limit)
    got = _choice(pred, choices)
    if got is None:
        return ScoreResult(correct=False, method="choice_letter")
    return ScoreResult(correct=got[0] == expected[0], method=got[1])


_BOOLEAN_WORD = re.compile(r"(?i:yes|no|true|false)")
_BOOLEAN = re.compile(r"(?i:(yes|true|correct)|(no|false|incorrect))\b")


def _boolean(answer: str) -> bool | None:
    m = _BOOLEAN.match(answer)
    return None if m is None else m.group(1) is not None


def _score_boolean(
    pred: str, ref: str, choices: Sequence[str] | None, tolerance: float, limit: int
) -> ScoreResult:
    expected = _boolean(ref)
    if expected is None:
        return _score_text(pred, ref, choices, tolerance, limit)
    got = _boolean(pred)
    return ScoreResult(correct=got is not None and got == expected, method="boolean")


# --- text -------------------------------------------------------------------------------------

_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_text(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def _score_text(
    pred: str, ref: str, choices: Sequence[str] | None, tolerance: float, limit: int
) -> ScoreResult:
    return ScoreResult(correct=normalize_text(pred) == normalize_text(ref), method="text")


# --- Game of 24 -------------------------------------------------------------------------------

_MAX_GAME24_CHARS = 200  # four numbers and three operators need far less
_OPERATORS: dict[type[ast.operator], Callable[[Fraction, Fraction], Fraction]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def check_game24(expression: str, numbers: Sequence[int | float], target: int = 24) -> bool:
    """True when ``expression`` uses each of ``numbers`` exactly once and equals ``target``.

    Only ``+ - * /`` and parentheses on the given numbers; evaluated exactly on
    fractions by walking the syntax tree (never ``eval``), so ``8 / (3 - 8 / 3)``
    is 24 and anything else — names, calls, powers, unary minus — is invalid.
    """
    if len(expression) > _MAX_GAME24_CHARS:
        return False
    expr = as_expression(expression, numbers)
    if expr is None:  # wrong numbers, reused numbers, or characters that are not arithmetic
        return False
    try:
        tree = ast.parse(expr, mode="eval")
        return _evaluate(tree.body) == target
    except (SyntaxError, ValueError, ZeroDivisionError, RecursionError, MemoryError):
        return False


def _evaluate(node: ast.expr) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return Fraction(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    raise ValueError(f"not allowed in a Game of 24 expression: {type(node).__name__}")


def _numbers_of(reference: str) -> list[int] | None:
    """The numbers a reference solution uses, when it is an arithmetic expression."""
    expr = as_expression(reference, None)
    if expr is None or len(expr) > _MAX_GAME24_CHARS:
        return None
    return [int(n) for n in re.findall(r"\d+", expr)]


# --- math (math-verify) -----------------------------------------------------------------------


def _score_math(
    pred: str, ref: str, choices: Sequence[str] | None, tolerance: float, limit: int
) -> ScoreResult:
    if threading.current_thread() is threading.main_thread() and os.name == "posix":
        verdict = _math_equal(pred, ref, limit)
    else:
        verdict = _WORKER.check(pred, ref, limit)
    if verdict == "no_gold":  # math-verify could not read the gold answer at all
        return _score_text(pred, ref, choices, tolerance, limit)
    if verdict == "timeout":
        return ScoreResult(correct=False, method="math_verify_timeout")
    return ScoreResult(correct=verdict == "equal", method="math_verify")


_MathVerdict = Literal["equal", "different", "timeout", "no_gold"]
_VERDICTS: tuple[str, ...] = get_args(_MathVerdict)


def _latex(answer: str) -> str:
    # math-verify looks for LaTeX between delimiters; a bare "\frac{3}{4}" or "x^2+1" is
    # found only inside "$...$". Answers that carry their own delimiters go in as they are.
    return answer if "$" in answer or "\\boxed" in answer else f"${answer}$"


def _math_equal(pred: str, gold: str, limit: int | None) -> _MathVerdict:
    """math-verify's verdict; ``limit`` seconds per step (signal timers: main thread only).

    Pairs are compared one by one (as ``verify`` does) so that a timeout can be
    told from "not equal", which ``verify`` itself reports the same way.
    """
    from math_verify import parse, verify
    from math_verify.errors import TimeoutException

    parsed: list[list[Any]] = []
    for answer in (gold, pred):
        try:
            parsed.append(parse(_latex(answer), parsing_timeout=limit, raise_on_error=True))
        except TimeoutException:
            return "timeout"
        except Exception:  # math-verify's own default: an unreadable answer parses to nothing
            parsed.append([])
    gold_parsed, pred_parsed = parsed
    if not gold_parsed:
        return "no_gold"
    timed_out = False
    for g, p in product(gold_parsed, pred_parsed):
        try:
            if verify(g, p, timeout_seconds=limit, raise_on_error=True):
                return "equal"
        except TimeoutException:
            timed_out = True
        except Exception:
            log.debug("math-verify comparison failed", exc_info=True)
    return "timeout" if timed_out else "different"


_RESPONSE = "answerx-math:"
_STARTUP_S = 120.0  # importing sympy and math-verify in a fresh process, on a slow machine
# math-verify limits each parse and each comparison, not the whole call: two parses
# and up to four comparisons. The child is killed only past all of them plus slack.
_BACKSTOP_STEPS = 8
_CHILD = "from answerx.experiments.scoring import _serve_math; _serve_math()"


def _serve_math() -> None:
    """The child process's loop: one JSON request per stdin line, one verdict per stdout line."""
    _math_equal("1", "1", MATH_TIMEOUT_S)  # import and warm up first: startup is no timeout
    print(_RESPONSE + "ready", flush=True)
    for line in sys.stdin:
        pred, gold, limit = json.loads(line)
        print(_RESPONSE + _math_equal(pred, gold, limit), flush=True)


class _MathWorker:
    """One child process that runs math-verify on its main thread, killed when it overruns.

    ``argv`` and ``backstop_s`` exist for tests (a child that never answers).
    """

    def __init__(self, argv: Sequence[str] | None = None, backstop_s: float | None = None) -> None:
        self._argv = list(argv) if argv else [sys.executable, "-c", _CHILD]
        self._backstop_s = backstop_s
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._failed = False

    def check(self, pred: str, gold: str, limit: int) -> _MathVerdict:
        with self._lock:
            proc = self._ensure()
            if proc is None or proc.stdin is None:
                # No child process can be started here: compare untimed rather than not at all.
                return _math_equal(pred, gold, None)
            try:
                proc.stdin.write(json.dumps([pred, gold, limit]) + "\n")
                proc.stdin.flush()
                reply = self._read(self._backstop_s or limit * _BACKSTOP_STEPS + 5)
            except OSError:
                reply = None
            if reply not in _VERDICTS:
                self.stop()  # overran (or died): a fresh child serves the next call
                return "timeout"
            return reply  # type: ignore[return-value]

    def _ensure(self) -> subprocess.Popen[str] | None:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        if self._failed or not self._argv[0]:
            return None
        src = str(Path(__file__).resolve().parents[2])  # answerx importable even when not installed
        path = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
        try:
            proc = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                env={**os.environ, "PYTHONPATH": path},
            )
        except OSError:
            log.warning("cannot start the math-verify process; comparing without a time limit")
            self._failed = True
            return None
        self._proc, self._lines = proc, queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, self._lines), daemon=True).start()
        if self._read(_STARTUP_S) != "ready":
            log.warning("the math-verify process did not start; comparing without a time limit")
            self.stop()
            self._failed = True
            return None
        return proc

    def forget(self) -> None:
        """After ``fork``: the child process belongs to the parent; start a new one when needed."""
        self._lock = threading.Lock()
        self._proc = None
        self._lines = queue.Queue()

    def _read(self, timeout: float) -> str | None:
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def stop(self) -> None:
        """End the child process (it is started again on the next call)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            with contextlib.suppress(OSError):  # the child may be gone already
                proc.stdin.close()
        proc.kill()
        proc.wait()


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    # A reader thread, so the caller can wait on a queue with a timeout (portable, unlike select).
    with stream:
        for line in stream:
            if line.startswith(_RESPONSE):
                lines.put(line[len(_RESPONSE) :].strip())
    lines.put(None)


_WORKER = _MathWorker()
atexit.register(_WORKER.stop)
if hasattr(os, "register_at_fork"):  # a forked pool worker must not share the parent's pipes
    os.register_at_fork(after_in_child=_WORKER.forget)

_Scorer = Callable[[str, str, Sequence[str] | None, float, int], ScoreResult]
_SCORERS: dict[str, _Scorer] = {
    "math": _score_math,
    "numeric": _score_numeric,
    "multiple_choice": _score_choice,
    "boolean": _score_boolean,
    "text": _score_text,
}
