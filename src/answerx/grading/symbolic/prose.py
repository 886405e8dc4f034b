"""What math-verify can make of an answer the grammar does not read: prose around values.

The grammar (:mod:`.parser`) leaves alone an answer with prose in it ("the eigenvalues of
matrix A are 3, 4, and 2", "N4", "there are two positive real zeros of f(x)"). math-verify
reads such a text anyway: letters as a product of symbols, "and" and "or" as commas, the
last number where its LaTeX reading fails. How it reads the words is its own; but two things
about what it can make of them are sure from the marks in the text alone:

- **several values** need a mark that separates them (a comma, a semicolon, "and", "or",
  ``\\pm``, ``\\cup``, a matrix, ...): without one, math-verify reads one value at most,
  and one value never equals several distinct values (math-verify compares a list
  element by element and a set by its members: one member is never two);
- **a range of reals** needs interval notation (a bracket, ``\\infty``, ``\\mathbb{R}``,
  ``\\cup``, a relation, ...): without it, math-verify reads finitely many values, and
  those never equal an interval with a closed end (math-verify compares such an interval
  with another interval or as a set, never with a list of values).

Where the text could be read either way (a ``$`` or ``\\boxed`` in it: math-verify then looks
for LaTeX inside and may join several pieces), nothing is decided.
"""

from __future__ import annotations

import re
from typing import Final

from answerx.grading.models import How
from answerx.grading.symbolic.shapes import Shape, plain_number

__all__ = ["several_against_one"]

# Where math-verify's LaTeX search starts somewhere else than the whole text.
_OWN_DELIMITERS: Final = re.compile(r"\$|\\boxed|\\fbox|\\\(|\\\[")

# Separators: latex2sympy's normalisation turns "and" and "or" into commas. Each one may
# start one more value, so a text with k of them holds k + 1 values at most.
_SEPARATOR: Final = re.compile(r"[,;]|(?<![A-Za-z])(?:and|or)(?![A-Za-z])", re.IGNORECASE)

# Marks from which math-verify can build values of a number no count of separators bounds:
# sets, matrices and tables, ± and unions, lines, ellipses.
_UNBOUNDED: Final = re.compile(
    r"[&\n±∓∪∩∅ℝ…]|\\\\|\.\.\."
    r"|\\(?:pm|mp|cup|cap|setminus|begin|mathbb|emptyset|varnothing|quad|qquad|\{|lbrace"
    r"|land|lor|wedge|vee|ldots|cdots|dots)(?![A-Za-z])"
)

# Marks from which math-verify can build a range of reals (or a relation, read as one):
# infinity, the reals, unions, relations, membership, set-builder bars; brackets too, but
# only with a separator between their ends ("[]" or "f(x)" is no interval).
_RANGE: Final = re.compile(
    r"[<>≤≥≠∞∈∪ℝ|]|\boo\b"
    r"|\\(?:infty|mathbb|cup|le|leq|ge|geq|lt|gt|ne|neq|in|mid|\{|lbrace|approx|sim"
    r"|setminus|subset|subseteq|supset|supseteq|R|Reals)(?![A-Za-z])"
)
_BRACKETED_PAIR: Final = re.compile(
    r"(?:[(\[]|\\(?:left|lbrack)(?![A-Za-z])).*?(?:" + _SEPARATOR.pattern + r").*?"
    r"(?:[)\]]|\\(?:right|rbrack)(?![A-Za-z]))",
    re.IGNORECASE | re.DOTALL,
)

# A gold that is a relation or a membership ("x \\in [1, 2]", "y = 1, 2"): math-verify
# compares relations by rules of their own, left to it.
_RELATION: Final = re.compile(r"[=<>≤≥∈]|\\(?:in|le|leq|ge|geq|lt|gt)(?![A-Za-z])")


def several_against_one(answer: str, gold: str, shape: Shape) -> tuple[bool, How] | None:
    """``(False, how)`` when ``answer`` (a text the grammar does not read) cannot state
    ``gold`` (of ``shape``): the gold is several distinct plain numbers and the answer holds
    one value at most, or the gold is a range of reals with a closed end and the answer
    holds no interval; None when that is not sure (math-verify decides)."""
    if _OWN_DELIMITERS.search(answer) or _OWN_DELIMITERS.search(gold) or _RELATION.search(gold):
        return None
    several = _several_distinct(shape)
    if several is not None and several[0] > _most_values(answer):
        return False, several[1]
    if _closed_range(shape) and not _may_be_range(answer):
        return False, "symbolic_interval"
    return None


def _most_values(answer: str) -> float:
    """How many values math-verify can read in ``answer`` at most: one more than its
    separators (its LaTeX reading splits there; where that reading fails, it takes one
    number), unbounded where the text has a set, matrix, ± or ellipsis."""
    if _UNBOUNDED.search(answer):
        return float("inf")
    return 1 + len(_SEPARATOR.findall(answer))


def _may_be_range(answer: str) -> bool:
    """Whether math-verify may read ``answer`` as a range of reals: it has interval
    notation, or brackets with a separator between (``(a, b)``, ``[a and b]``)."""
    if _RANGE.search(answer) or _BRACKETED_PAIR.search(answer):
        return True
    # "1, 2]" or "[1, 2": what math-verify makes of a bracket left open is not sure
    opened = sum(answer.count(c) for c in "([")
    return opened != sum(answer.count(c) for c in ")]") and bool(_SEPARATOR.search(answer))


def _several_distinct(shape: Shape) -> tuple[int, How] | None:
    """How many values a gold of two or more distinct plain numbers holds (a pair, a tuple,
    a set) and how it compares; None for any other gold. Distinct: ``\\{2, 2\\}`` is the
    set ``\\{2\\}``, one value."""
    if shape[0] == "pair":
        values = [plain_number(shape[1]), plain_number(shape[2])]
        how: How = "symbolic_tuple"
    elif shape[0] == "coll" and all(e[0] == "scalar" for e in shape[2]):
        values = [plain_number(e[1]) for e in shape[2]]
        how = "symbolic_tuple" if shape[1] else "symbolic_set"
    else:
        return None
    if len(values) < 2 or any(v is None for v in values) or len(set(values)) < len(values):
        return None
    return len(values), how


def _closed_range(shape: Shape) -> bool:
    """Intervals of plain numbers written in brackets (no variable, no relation), each a
    range of reals with at least one closed end: ``[3, 5]``, ``[0, 1)``."""
    if shape[0] != "intervals" or shape[1] is not None or not shape[2]:
        return False
    for low, low_closed, high, high_closed in shape[2]:
        a, b = plain_number(low), plain_number(high)
        if a is None or b is None or not a < b or not (low_closed or high_closed):
            return False
    return True
