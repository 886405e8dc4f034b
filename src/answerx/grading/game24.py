"""Game of 24: does an expression use each given number once and make 24? Never ``eval``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from answerx.extraction.game24 import as_expression, evaluate

__all__ = ["check_game24", "judge_game24", "numbers_of"]

_MAX_CHARS = 200  # four numbers and three operators need far less


def judge_game24(
    expression: str, numbers: Sequence[int | float], target: int = 24
) -> Literal["equivalent", "different", "malformed_answer"]:
    """``equivalent`` when ``expression`` is well formed and makes ``target``; ``different``
    when it is well formed (each number once, only ``+ - * /``) but makes something else;
    ``malformed_answer`` otherwise (wrong or reused numbers, names, powers, calls, a
    sign on its own: every operation joins two numbers)."""
    if len(expression) > _MAX_CHARS:
        return "malformed_answer"
    expr = as_expression(expression, numbers)
    if expr is None:  # wrong numbers, reused numbers, or characters that are not arithmetic
        return "malformed_answer"
    try:
        value = evaluate(expr)  # extraction's evaluator: one rule for both
    except ZeroDivisionError:
        return "different"  # well formed, but it makes no number at all
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "malformed_answer"
    return "equivalent" if value == target else "different"


def check_game24(expression: str, numbers: Sequence[int | float], target: int = 24) -> bool:
    """True when ``expression`` uses each of ``numbers`` exactly once and equals ``target``.

    Only ``+ - * /`` and parentheses on the given numbers; evaluated exactly on
    fractions by walking the syntax tree (never ``eval``), so ``8 / (3 - 8 / 3)``
    is 24 and anything else — names, calls, powers, unary minus — is invalid.

    >>> check_game24("8 / (3 - 8 / 3)", [3, 3, 8, 8])
    True
    """
    return judge_game24(expression, numbers, target) == "equivalent"


def numbers_of(reference: str) -> list[int] | None:
    """The numbers a reference solution uses, when it is an arithmetic expression."""
    expr = as_expression(reference, None)
    if expr is None or len(expr) > _MAX_CHARS:
        return None
    return [int(n) for n in re.findall(r"\d+", expr)]
