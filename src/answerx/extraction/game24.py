"""Game of 24: read a stated expression, and judge whether it solves the game.

Two readers, because extraction reports what the model *stated* (even a wrong
answer) while the marker-less bottom-up scan needs a shape to recognise:

* :func:`stated_expression` takes whatever an explicit marker (``Answer:``,
  ``Output:``, ``<answer>``) says, with a trailing ``= <number>`` stripped;
* :func:`as_expression` accepts only an arithmetic expression that uses the given
  numbers exactly once (it steers the scan, and scoring uses it);
* :func:`expression_problem` says what is wrong with a stated expression
  ("uses 4 twice", "evaluates to 28"), or None when it solves the game.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

__all__ = ["UnarySign", "as_expression", "evaluate", "expression_problem", "stated_expression"]

_ALLOWED = re.compile(r"^[\d\s()+\-*/]+$")
_STATED_ALLOWED = re.compile(r"^[\d\s()+\-*/.]+$")  # a stated answer may use decimals
_TOKEN = re.compile(r"\d+(?:\.\d+)?")
_PREFIX = re.compile(r"^\s*(?:output|answer|final answer)\s*:\s*", re.IGNORECASE)
_TARGET = re.compile(r"\s*=\s*24(?:\.0+)?\s*\.?\s*$")
# A stated result of any value: "(11 - 4) * (6 - 2) = 28".
_ANY_RESULT = re.compile(r"\s*=\s*-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?\s*\.?\s*$")
_LATEX_OPS = (("\\times", "*"), ("\\cdot", "*"), ("\\div", "/"), ("\\left", ""), ("\\right", ""))
_MAX_STATED_CHARS = 200
_MAX_EVAL_CHARS = 120  # a longer "expression" is not a Game-of-24 answer; never evaluate it


def _normalise(line: str) -> str:
    for latex, op in _LATEX_OPS:
        if latex in line:
            line = line.replace(latex, op)
    return _PREFIX.sub("", line)


def as_expression(line: str, numbers: Sequence[int | float] | None) -> str | None:
    """``line`` as a Game-of-24 expression, or None.

    Strips an ``Output:``/``Answer:`` prefix and a trailing ``= 24``; the rest
    must contain only digits, spaces, parentheses and ``+ - * /``, and (when
    ``numbers`` is given) use each given number exactly once as a standalone
    token. Lines with ``=`` chains or other characters are rejected.
    """
    expr = _TARGET.sub("", _PREFIX.sub("", line.replace("×", "*").replace("÷", "/"))).strip()
    if not expr or not _ALLOWED.match(expr) or not any(op in expr for op in "+-*/"):
        return None
    tokens = _TOKEN.findall(expr)
    if numbers is not None and Counter(map(_num, tokens)) != Counter(map(_num, numbers)):
        return None
    return expr


def stated_expression(line: str) -> str | None:
    """What an explicit marker states as the answer, ``= <number>`` stripped, or None
    when it states nothing like an answer (no digit, and more than a few words)."""
    text = _normalise(line).strip()
    if not text or len(text) > _MAX_STATED_CHARS:
        return None
    if any(c in text for c in "×÷−"):
        text = text.translate({ord("×"): "*", ord("÷"): "/", ord("−"): "-"})
    stripped = _ANY_RESULT.sub("", text).strip()
    text = stripped or text
    if not any(c.isdigit() for c in text) and len(text.split()) > 5:
        return None  # prose, not a statement of an answer
    return text


def expression_problem(expr: str, numbers: Sequence[int | float] | None) -> str | None:
    """What keeps ``expr`` from solving the Game of 24 with ``numbers``; None when it does."""
    if not _STATED_ALLOWED.match(expr) or not any(op in expr for op in "+-*/"):
        return "not an arithmetic expression"
    problems = []
    if numbers is not None:
        used, given = Counter(map(_num, _TOKEN.findall(expr))), Counter(map(_num, numbers))
        for n in sorted(used | given):
            if used[n] > given[n]:
                if given[n] == 0:
                    problems.append(f"uses {_show(n)}, which is not given")
                else:
                    problems.append(f"uses {_show(n)} {_times(used[n])}")
            elif used[n] < given[n]:
                problems.append(
                    f"does not use {_show(n)}"
                    if used[n] == 0
                    else f"uses {_show(n)} {_times(used[n])}, not {_times(given[n])}"
                )
    try:
        value = _evaluate(expr)
    except UnarySign:
        problems.append("negates a number (every operation joins two numbers)")
    else:
        if value is None:
            problems.append("cannot be evaluated")
        elif value != 24:
            problems.append(f"evaluates to {_show(value)}")
    return "; ".join(problems) or None


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _num(value: str | int | float) -> Fraction:
    return Fraction(str(value))


def _show(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def _evaluate(expr: str) -> Fraction | None:
    """The exact value of ``expr`` (:func:`evaluate`), or None when it has none; raises
    :class:`UnarySign` for a sign on its own."""
    if len(expr) > _MAX_EVAL_CHARS:
        return None
    try:
        return evaluate(expr)
    except UnarySign:
        raise  # a rule broken, which the caller names
    except (ZeroDivisionError, ValueError, SyntaxError, RecursionError, MemoryError):
        return None


class UnarySign(ValueError):
    """A sign on its own (``-2``, ``+3``): an operation on one number, not between two."""


def evaluate(expr: str) -> Fraction:
    """The exact value of a Game-of-24 expression: number literals joined by ``+ - * /``
    in parentheses, the one evaluator extraction and grading share.

    Hand-written over :mod:`ast` rather than ``eval``: model output is untrusted, and
    exact fractions make ``8 / (3 - 8 / 3)`` exactly 24. Every operation joins two
    numbers, as the game's rules say (LeetCode 679, Rosetta Code's "24 game": unary
    operations are not allowed), so a sign on its own (``(4 - -2) * 4``) raises
    :class:`UnarySign`; anything else that is not arithmetic raises ValueError (or
    SyntaxError), a division by zero ZeroDivisionError.

    >>> evaluate("8 / (3 - 8 / 3)")
    Fraction(24, 1)
    """
    return _value(ast.parse(expr, mode="eval").body)


def _value(node: ast.expr) -> Fraction:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        raise UnarySign("a sign on its own: every operation joins two numbers")
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            return left / right
    raise ValueError(f"not allowed in a Game of 24 expression: {type(node).__name__}")
