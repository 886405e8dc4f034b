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

# Marks from which math-verify can build more than one value: separators (latex2sympy's
# normalisation turns "and" and "or" into commas), sets and matrices, ± and unions, lines.
_SEVERAL: Final = re.compile(
    r"[,;&\n±∓∪∩∅ℝ]|\\\\|(?<![A-Za-z])(?:and|or)(?![A-Za-z])"
    r"|\\(?:pm|mp|cup|cap|setminus|begin|mathbb|emptyset|varnothing|quad|qquad|\{|lbrace"
    r"|land|lor|wedge|vee)(?![A-Za-z])",
    re.IGNORECASE,
)

# Marks from which math-verify can build a range of reals (or a relation, read as one):
# brackets, infinity, the reals, unions, relations, membership, set-builder bars.
_RANGE: Final = re.compile(
    r"[\[\]<>≤≥≠∞∈∪ℝ|]|\boo\b"
    r"|\\(?:infty|mathbb|cup|le|leq|ge|geq|lt|gt|ne|neq|in|mid|lbrack|rbrack|\{|lbrace"
    r"|setminus|R|Reals)(?![A-Za-z])"
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
    how = _several_distinct(shape)
    if how is not None and not _SEVERAL.search(answer):
        return False, how
    if _closed_range(shape) and not _RANGE.search(answer) and not _paired(answer):
        return False, "symbolic_interval"
    return None


def _several_distinct(shape: Shape) -> How | None:
    """How a gold of two or more distinct plain numbers compares (a pair, a tuple, a set);
    None for any other gold. Distinct: ``\\{2, 2\\}`` is the set ``\\{2\\}``, one value."""
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
    return how


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


def _paired(answer: str) -> bool:
    # "(a, b)" is an open interval to math-verify: a comma and a parenthesis, not sure.
    return "(" in answer and "," in answer
