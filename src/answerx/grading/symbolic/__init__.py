"""The fast rung of the math ladder: symbolic answers decided without math-verify.

:func:`decide` reads both answers with a small grammar of its own
(:mod:`.parser`), finds their shape (:mod:`.shapes`: a value, a set or list, a tuple,
intervals and one-variable inequalities, an equation) and compares them
(:mod:`.compare`): exactly where the values are rationals or surds (:mod:`.surds`),
else numerically to 50 digits, and expressions in variables at fixed random points
(:mod:`.evaluate`). An answer the grammar does not read (prose around values) is decided
from what math-verify's reading of it is sure to be: from its marks (:mod:`.prose`), or
from every candidate math-verify's own extraction patterns would hand to its parser
(:mod:`.readings`, which imports those patterns, not the parser). It answers equal,
different or None (cannot tell: math-verify decides). No signals, no shared mutable
state: thread-safe; every input and every intermediate value is bounded in size, so each
call is bounded in time.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from answerx.grading.models import How
from answerx.grading.symbolic.compare import compare_shapes, several_values
from answerx.grading.symbolic.evaluate import numeric_context
from answerx.grading.symbolic.lexer import MAX_CHARS, ends_in_unit
from answerx.grading.symbolic.parser import parse
from answerx.grading.symbolic.prose import named_in_prose, several_against_one
from answerx.grading.symbolic.readings import (
    ReadingsElsewhere,
    load_extraction,
    read_as_math_verify,
)
from answerx.grading.symbolic.shapes import Shape, has_number_word, shape_of, words_only

__all__ = ["ReadingsElsewhere", "decide", "prepare"]

_ONE_WORD = re.compile(r"\s*[A-Za-z]+\s*")
_COMMAND = re.compile(r"\\[A-Za-z]+|(?<![A-Za-z])(?:sqrt|pi)(?![A-Za-z])")  # and plain spellings
_NUMBER_LETTER = re.compile(r"[IE]")
_CALL = re.compile(r"[A-Za-z]\s*\([^A-Za-z()]*\)")


def prepare(*, readings: bool = True) -> None:
    """Load now what the rung loads on its first use (this thread's 50-digit arithmetic,
    math-verify's pattern of units, and, with ``readings``, its extraction patterns: half
    a second to import, not for a process whose grading workers walk for it, see
    :class:`ReadingsElsewhere`), which no item should pay."""
    numeric_context()
    ends_in_unit("")
    if readings:
        load_extraction()


@lru_cache(maxsize=4096)  # an RL batch grades many answers against one gold
def _shape(text: str) -> Shape | None:
    if words_only(text):
        return ("words",)
    if has_number_word(text):  # "three" against 3: for a rule that reads number words
        return None
    bare = _COMMAND.sub("#", text)  # a mark: "x \in (a, b)" keeps x off the bracket
    if _NUMBER_LETTER.search(bare) or _CALL.search(bare):
        # math-verify reads I as the imaginary unit and E as e, and x(2) as a function x
        # applied to 2: not variables, not a product
        return None
    node = parse(_bare_set(text))
    return None if node is None else shape_of(node)


# "{1, 4}" or "K_f={1,4}": braces around it all (or all after a name and "="), nothing else.
_BRACED: Final = re.compile(
    r"(?P<head>\s*[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?\s*=)?\s*\{(?P<body>.*)\}\s*", re.DOTALL
)


def _bare_set(text: str) -> str:
    """``text`` with a brace group that holds all of it (or all after ``name =``) written as a
    set: math-verify reads ``{1, 4}`` and ``{5}`` as ``\\{1, 4\\}`` and ``\\{5\\}``."""
    m = _BRACED.fullmatch(text)
    if m is None:
        return text
    depth = 0
    for char in m["body"]:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return text  # "{1}, {2}": two groups, not one
    if depth or m["body"].endswith("\\"):
        return text
    return f"{m['head'] or ''}\\{{{m['body']}\\}}"


def decide(answer: str, gold: str) -> tuple[bool, How] | None:
    """``(same, how)`` when the fast rung can tell whether ``answer`` states ``gold``;
    None when it cannot (math-verify decides). Raises :class:`ReadingsElsewhere` where
    telling needs math-verify's patterns and this process leaves them to its grading workers.

    >>> decide(r"2\\sqrt{5}", r"\\sqrt{20}")
    (True, 'symbolic_fast')
    >>> decide("k < -5", r"(-\\infty, -5)")
    (True, 'symbolic_interval')
    """
    if len(answer) > MAX_CHARS or len(gold) > MAX_CHARS:
        return None  # not an answer-sized text (and not one for the cache to keep)
    return _decide(answer, gold)


@lru_cache(maxsize=8192)  # rollouts of one prompt state the same answers again and again
def _decide(answer: str, gold: str) -> tuple[bool, How] | None:
    mine, theirs = _shape(answer), _shape(gold)
    if (mine is None or mine == ("words",)) and theirs is not None:
        # Prose the grammar does not read ("N4", "the eigenvalues are 3, 4, and 2") against
        # several values or a range: what math-verify can make of it is sure from its marks.
        decided = several_against_one(answer, gold, theirs) or named_in_prose(answer, theirs)
        if decided is None and _ONE_WORD.fullmatch(answer) and has_number_word(answer):
            # "two" against [8, 4] or x > 1: one number, however it is read, is never several
            # values (math-verify reads the word as a product of letters).
            decided = several_values(theirs)
        if decided is None and mine is None:
            # Where no rule of the marks is sure: every reading math-verify's own extraction
            # can end with, followed (its candidates, in its order)
            decided = read_as_math_verify(answer, gold, theirs, _shape)
        if decided is not None or mine is None:
            return decided
    if mine is None or theirs is None:
        return None
    try:
        return compare_shapes(mine, theirs)
    except (ArithmeticError, ValueError, RecursionError):
        return None
