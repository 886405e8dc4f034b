"""The ``math`` fallback: the last complete mathematical expression, not the last number.

A math output that states its answer without any marker ends with the answer as
a formula: a bare ``\\dfrac{3}{7}`` or ``$(2,5]$``, or a last sentence such as
"so $m = \\frac{7}{4}$.". The last *number* of those is a fragment (``7``, ``5``,
``4``); this rule returns the whole expression:

* an output that is itself one expression (a fraction, ``\\sqrt3``, an interval, a
  tuple, a matrix, ``x = 5``) is the answer;
* otherwise the last complete ``$…$``, ``$$…$$``, ``\\(…\\)`` or ``\\[…\\]`` span, or a
  plain-text ``x = …`` at the end of the text; for an equation, its right-hand side.

Units written in ``\\text{}`` after a value are dropped (``5\\text{ cm}`` → ``5``). The
rule competes with the last number by position (whichever ends later wins), so a
number stated after the last formula still wins.
"""

from __future__ import annotations

import re

from answerx.extraction.tasks import Acceptor

__all__ = ["last_expression", "right_hand_side"]

_SCAN = 8000  # chars before the end in which spans are paired
_MAX_BARE = 240  # a longer output is a solution, not one expression
_MATH_SPAN = re.compile(
    r"\$\$(?P<dd>.+?)\$\$|\\\[(?P<br>.+?)\\\]|\\\((?P<pa>.+?)\\\)|(?<!\\)\$(?P<d>[^$]+?)(?<!\\)\$",
    re.DOTALL,
)
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\{[a-z*]+\}")
_TEXT_ARG = re.compile(r"\\(?:text|mbox|mathrm|textbf|operatorname)\s*\{[^{}]*\}")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_WORDS = re.compile(r"[A-Za-z]{2,}")
_UNIT = re.compile(r"(?<=[\d}])\s*\\(?:text|mbox|mathrm)\s*\{\s*[A-Za-z][A-Za-z .]*\}\s*$")
_RELATION = re.compile(r"\\approx|\\sim|\\quad|\\qquad|\\text\{\s*or\s*\}|,\s*\\text")
# A name, not a value: "$x$", "$\\theta$", "$a_1$", "$f(x)$".
_VARIABLE = re.compile(r"\s*(?:(?:[A-Za-z]|\\[A-Za-z]+)(?:_\{?\w+\}?)?|[A-Za-z]\([A-Za-z]\))\s*")
_PROSE_WORDS_MAX = 1
_CONDITION = re.compile(r"[<>]|\\[lg]eq?\b|\\neq?\b")


def right_hand_side(expr: str) -> str:
    """The right-hand side of the last top-level ``=`` of ``expr`` (``expr`` when none),
    cut before an ``\\approx`` (a rounded value is not the stated one)."""
    depth, last_eq = 0, -1
    for i, c in enumerate(expr):
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        elif c == "=" and depth == 0 and expr[i - 1 : i] not in ("<", ">", "!", "\\"):
            last_eq = i
    rhs = expr[last_eq + 1 :] if last_eq != -1 else expr
    cut = _RELATION.search(rhs)
    if cut is not None and rhs[: cut.start()].strip():
        rhs = rhs[: cut.start()]
    return rhs.strip()


def _drop_units(expr: str) -> str:
    return _UNIT.sub("", expr).strip() if "\\" in expr else expr


def _is_one_expression(text: str) -> bool:
    """``text`` is a formula, not prose: at most one word outside commands and ``\\text{}``."""
    if len(text) > _MAX_BARE or "\n\n" in text:
        return False
    bare = _COMMAND.sub(" ", _TEXT_ARG.sub(" ", _ENVIRONMENT.sub(" ", text)))
    return len(_WORDS.findall(bare)) <= _PROSE_WORDS_MAX


def _unwrapped(whole: str) -> str | None:
    """The formula an output consists of: itself, or the inside of the one ``$…$``,
    ``\\[…\\]`` or ``\\(…\\)`` that wraps it all; None when delimiters sit inside."""
    for left, right in (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")):
        if whole.startswith(left) and whole.endswith(right) and len(whole) > len(left + right):
            inner = whole[len(left) : len(whole) - len(right)]
            return None if left in inner or "$" in inner else inner.strip()
    if "$" in whole or "\\[" in whole or "\\(" in whole:
        return None
    return whole


def _is_variable(expr: str) -> bool:
    return _VARIABLE.fullmatch(expr) is not None


def last_expression(
    text: str, lower: str, lo: int, hi: int, accept: Acceptor
) -> tuple[str, str, str | None, int, int, int, int] | None:
    """(answer, task, problem, start, end, marker start, marker end) of the last complete
    expression in ``text[lo:hi]``, or None."""
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    while lo < hi and text[lo].isspace():
        lo += 1
    if hi <= lo:
        return None
    if hi - lo <= _MAX_BARE and _is_one_expression(text[lo:hi]):
        inner = _unwrapped(text[lo:hi])
        got = accept(_drop_units(right_hand_side(inner))) if inner else None
        if got:
            return got.answer, got.task, got.problem, lo, hi, lo, hi
    start = max(lo, hi - _SCAN)
    para = text.rfind("\n\n", lo, start)  # pair "$" from a paragraph start
    start = para + 2 if para != -1 else lo
    spans = list(_MATH_SPAN.finditer(text, start, hi))
    last_span_end = spans[-1].end() if spans else lo
    for m in reversed(spans[-8:]):
        group = m.lastgroup or "d"
        c0, c1 = m.start(group), m.end(group)
        expr = right_hand_side(text[c0:c1])
        if not expr or _is_variable(expr) or not _is_one_expression(expr):
            continue
        if len(spans) > 1 and _CONDITION.search(expr):
            continue  # "check: $x > 0$" is a condition, not the answer
        got = accept(_drop_units(expr))
        if got:
            return got.answer, got.task, got.problem, c0, c1, m.start(), m.end()
    # Plain text after the last formula: "Solving, we find x = 3."
    eq = text.rfind("=", last_span_end, hi)
    if eq != -1:
        end = _sentence_end(text, eq + 1, hi)
        expr = text[eq + 1 : end].strip()
        if expr and len(expr) <= 40 and _is_one_expression(expr) and any(c.isdigit() for c in expr):
            got = accept(expr)
            if got:
                c0 = text.index(expr, eq + 1)
                return got.answer, got.task, got.problem, c0, c0 + len(expr), c0, c0 + len(expr)
    return None


_SENTENCE_STOP = re.compile(r"[.;!?](?:\s|$)|,\s|\n|\s(?:and|so|which|where|because)\s")


def _sentence_end(text: str, pos: int, hi: int) -> int:
    m = _SENTENCE_STOP.search(text, pos, min(hi, pos + 80))
    return m.start() if m else min(hi, pos + 80)
