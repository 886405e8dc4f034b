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

from answerx.extraction.latex import skip_back, skip_forward
from answerx.extraction.numbers import read_european
from answerx.extraction.tasks import Accepted, Acceptor
from answerx.extraction.values import value_list

__all__ = ["bare_expression", "last_expression", "right_hand_side"]

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


def bare_expression(text: str, lo: int, hi: int, accept: Acceptor) -> Accepted | None:
    """What ``accept`` makes of ``text[lo:hi]`` (no surrounding space) when it is itself one
    expression: for an equation its right-hand side (``x = 5`` gives ``5``), for a list
    of values the whole list (``x = 1, x = 2`` gives ``1, 2``); None otherwise."""
    if hi - lo > _MAX_BARE or not _is_one_expression(text[lo:hi]):
        return None
    inner = _unwrapped(text[lo:hi])
    if not inner:
        return None
    european = read_european(inner) if "," in inner or " " in inner or "\\" in inner else None
    if european is not None:
        return accept(european)  # "2,74", "-2,5", "1 000,5": one number, European style
    if "," in inner or " and " in inner or " or " in inner:
        listed = value_list(inner)
        if listed is not None:
            return accept(listed)
    return accept(_drop_units(right_hand_side(inner)))


def last_expression(
    text: str, lower: str, lo: int, hi: int, accept: Acceptor
) -> tuple[str, str, str | None, int, int, int, int] | None:
    """(answer, task, problem, start, end, marker start, marker end) of the last complete
    expression in ``text[lo:hi]``, or None."""
    hi = skip_back(text, lo, hi)
    lo = skip_forward(text, lo, hi)
    if hi <= lo:
        return None
    got = bare_expression(text, lo, hi, accept)
    if got:
        return got.answer, got.task, got.problem, lo, hi, lo, hi
    start = max(lo, hi - _SCAN)
    if start > lo:  # pair "$" from a paragraph start (within one more window)
        para = text.rfind("\n\n", max(lo, start - _SCAN), start)
        start = para + 2 if para != -1 else start
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
            listed = _span_list(text, spans, spans.index(m), accept)
            if listed is not None:
                return listed
            return got.answer, got.task, got.problem, c0, c1, m.start(), m.end()
    # Plain text after the last formula: "Solving, we find x = 3."
    eq = text.rfind("=", last_span_end, hi)
    if eq != -1:
        end = _sentence_end(text, eq + 1, hi)
        expr = text[eq + 1 : end].strip()
        if expr and len(expr) <= 40 and _is_one_expression(expr) and any(c.isdigit() for c in expr):
            c0 = text.index(expr, eq + 1)
            c1 = c0 + len(expr)
            # "x = -1, x = 2, and x = -2": the whole list of values.
            equations = _EQUATION_LIST.search(text, max(last_span_end, c1 - _LIST_WINDOW), c1)
            if equations is not None:
                e0 = equations.start()
                got = accept(text[e0:c1])
                if got:
                    return got.answer, got.task, got.problem, e0, c1, e0, c1
            got = accept(expr)
            if got:
                return got.answer, got.task, got.problem, c0, c1, c0, c1
    return None


# Formulas joined into one list: "$x = -1$, $x = 2$, and $x = -2$", "$1$ or $2$".
_SPAN_JOIN = re.compile(r"\s*(?:,\s*(?:(?:and|or)\s+)?|;\s*|(?:and|or)\s+)")
# The same in plain text, ending where the last equation's value ends.
_EQUATION_LIST = re.compile(
    r"(?<![\w\\])(?:[A-Za-z]\s*=\s*[-−]?[\w./\\{}^]+\s*(?:,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+))+"
    r"[A-Za-z]\s*=\s*[-−]?[\w./\\{}^]+$"
)
_LIST_WINDOW = 200


def _span_list(
    text: str, spans: list[re.Match[str]], i: int, accept: Acceptor
) -> tuple[str, str, str | None, int, int, int, int] | None:
    """The formulas before ``spans[i]`` joined to it by commas, "and" or "or", read as one
    list with it; None when none is joined to it or the list is not one of values."""
    j = i
    while j > 0 and j > i - 20 and _SPAN_JOIN.fullmatch(text, spans[j - 1].end(), spans[j].start()):
        j -= 1
    if j == i:
        return None
    start, end = spans[j].start(), spans[i].end()
    got = accept(text[start:end])
    if got is None or got.answer == text[start:end].strip():
        return None  # not read as a list of values: the last formula alone answers
    return got.answer, got.task, got.problem, start, end, start, end


_SENTENCE_STOP = re.compile(r"[.;!?](?:\s|$)|,\s|\n|\s(?:and|so|which|where|because)\s")


def _sentence_end(text: str, pos: int, hi: int) -> int:
    m = _SENTENCE_STOP.search(text, pos, min(hi, pos + 80))
    return m.start() if m else min(hi, pos + 80)
