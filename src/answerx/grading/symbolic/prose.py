"""What math-verify can make of an answer the grammar does not read: prose around values.

The grammar (:mod:`.parser`) leaves alone an answer with prose in it ("the eigenvalues of
matrix A are 3, 4, and 2", "N4", "there are two positive real zeros of f(x)"). math-verify
reads such a text anyway: letters as a product of symbols, "and" and "or" as commas, the
last number where its LaTeX reading fails. How it reads the words is its own; but three
things about what it can make of them are sure from the marks in the text alone:

- **several values** need a mark that separates them (a comma, a semicolon, "and", "or",
  ``\\pm``, ``\\cup``, a matrix, ...): without one, math-verify reads one value at most,
  and one value never equals several distinct values (math-verify compares a list
  element by element and a set by its members: one member is never two);
- **a range of reals** needs interval notation (a bracket, ``\\infty``, ``\\mathbb{R}``,
  ``\\cup``, a relation, ...): without it, math-verify reads finitely many values, and
  those never equal an interval with a closed end (math-verify compares such an interval
  with another interval or as a set, never with a list of values);
- **a part of letters is never a number**: in a text with no brackets (but one pair around
  it all), relations or commands, math-verify's LaTeX reading is the list of its parts
  (split where it splits: commas, semicolons, "and", "or"), and a part written as letters
  and nonzero numbers alone ("the generators of Z are 1") is a product of real symbols,
  which equals no number; a list holding one never equals values, and a list of more
  distinct numbers than the gold has values never equals it either. Where that reading
  fails (a bracket left open), math-verify takes one number, never several distinct values.
  A zero among the part's numbers may make it 0: still none of a gold without 0. Letters
  right before a bracket (``the list [4, 5, 7]``) are a function applied to what it holds
  (or a reading that fails); an equation, a subscript or a brace group in one part leaves a
  part of letters beside it one element; names given plain numbers in prose (``the values
  are a = 1, b = 2``) are compared by those numbers, a difference only being sure.

Where the text could be read either way (a ``$`` or ``\\boxed`` in it: math-verify then looks
for LaTeX inside and may join several pieces), nothing is decided.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Final

from answerx.grading.models import How
from answerx.grading.symbolic.compare import compare_shapes
from answerx.grading.symbolic.lexer import ends_in_unit
from answerx.grading.symbolic.parser import parse
from answerx.grading.symbolic.shapes import Shape, plain_number, shape_of

__all__ = [
    "applied",
    "letters_product",
    "math_verify_words",
    "named_in_prose",
    "several_against_one",
    "wrapped",
]

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
    values = _values_gold(shape)
    if values is not None and _never_values(answer, values[0], values[2]):
        return False, values[1]
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


# --- parts of letters -----------------------------------------------------------------------

# latex2sympy's normalisation (math-verify's reading): "and" and "or" as whole words, in
# lower case only, become commas; commas and semicolons separate the values of a list.
_MV_AND_OR: Final = re.compile(r"(?<![a-zA-Z])(,?\s*(?:and|or))(?![a-zA-Z])")
_MV_SEPARATOR: Final = re.compile(r"[,;]")

# The text is a flat list of products, sums and quotients: no brackets, braces, relations,
# commands, bars, powers or anything outside ASCII that could group parts or join them.
_FLAT: Final = re.compile(r"[A-Za-z0-9\s.,;:'\"+\-*/]*")

# Letter runs that math-verify's normalisation or grammar reads as something else than a
# product of symbols: infinity, roots, percent, and functions it knows by their bare name.
_NOT_LETTERS: Final = re.compile(
    r"inf|sqrt|percent|pct|gcd|lcm|floor|ceil|ar(?:c)?(?:sinh|cosh|tanh)|eye|zeros|ones|cols"
    r"|rows|diag|norm|rank|rref|[hv]stack|nullspace|matrix|trace|eigen|svd|orthogonal|diagonal",
    re.IGNORECASE,
)

# A product of letters and numbers, nothing else (a leading sign at most): no sum or
# quotient in which letters could cancel. (Each repeat starts at a point, never inside a
# run: the match is linear in the text.)
_PRODUCT: Final = re.compile(r"\s*-?[A-Za-z0-9\s]*(?:\d\.\d[A-Za-z0-9\s]*)*")
_NUMBER: Final = re.compile(r"\d+(?:\.\d+)?")
# Letters that are no free symbol: e (Euler's number), I and i (the imaginary unit).
_SYMBOL_LETTER: Final = re.compile(r"[A-DF-HJ-Za-df-hj-z]")
_PLAIN: Final = re.compile(r"\s*(-?)\s*(\d+(?:\.\d+)?)\s*")

# A flat list with brackets of flat contents in it (no brace: latex2sympy reads a brace
# group as its contents, "is {0}" as i*s*0).
_FLAT_CHARS: Final = r"[A-Za-z0-9\s.,;:'\"+\-*/]"
# Equations, subscripts and brace groups with no separator in them, in a flat list.
_LOOSE: Final = re.compile(r"(?:[A-Za-z0-9\s.,;:'\"+\-*/=_]|\{[A-Za-z0-9\s.'\"+\-*/=_]*\})*")
# Names given values in prose: a flat text with equals signs and subscripts (V_A = 5).
_NAMED: Final = re.compile(r"[A-Za-z0-9\s.,;:'\"+\-*/=_]*=[A-Za-z0-9\s.,;:'\"+\-*/=_]*")
_BRACKET: Final = re.compile(r"[()\[\]]")
_GROUPED: Final = re.compile(rf"(?:{_FLAT_CHARS}|[(\[]{_FLAT_CHARS}*[)\]])*")
# Letters, then a bracket (after a colon, a quotient by it; with one value in it, maybe a
# product by it), then letters and numbers at most, and a full stop. The letter before the
# bracket is no i or I (the imaginary unit) and no d (a differential); e is Euler's number,
# which latex2sympy cannot apply: it fails to read the whole text, as it does a quotient by
# a list.
_APPLIED: Final = re.compile(
    r"(?P<head>[^()\[\]:]*[A-HJ-Zabcefghj-z])\s*:?\s*[(\[]"
    r"(?:[^()\[\]]*[,;][^()\[\]]*|(?P<single>[^()\[\],;]*))[)\]]"
    r"(?P<tail>[A-Za-z0-9\s]*)\.?\s*"
)


def _never_values(answer: str, size: int, zero_free: bool) -> bool:
    """Whether math-verify surely reads ``answer`` as no list of ``size`` plain numbers, one
    number at least never being one: a flat list with a part of letters (a product of
    symbols, never a number), or with more than ``size`` distinct plain numbers, or of plain
    numbers alone, neither ``size`` of them (a tuple keeps them all) nor ``size`` distinct
    ones (a set). Where its LaTeX reading fails (a bracket left open), it takes one number."""
    inner = answer.strip()
    if _NOT_LETTERS.search(inner):
        return False
    if wrapped(inner) and _BRACKET.search(inner[1:-1]):
        inner = inner[1:-1]  # [f(1), f(2)]: an interval or a tuple of what it holds
    if _BRACKET.search(inner[1:]) and inner[:1] not in "([" and _GROUPED.fullmatch(inner):
        # "the list [4, 5, 7, 11]": a bracket right after letters is a function's arguments
        parts = _top_level_parts(inner)
        if any(applied(part, zero_free) for part in parts):
            return True
        # each part one value (a bracket only as arguments): fewer parts than the gold's values
        one = all(not _BRACKET.search(p) or _APPLIED.fullmatch(p) for p in parts)
        return one and len(parts) < size
    if not _FLAT.fullmatch(inner) and _LOOSE.fullmatch(inner):
        # "the kernel of f, K_f, is {0}": an equation, a subscript or a brace group in a part
        # keeps it one element of the list (a comma binds looser), and a part of letters
        # beside it is still no number
        parts = _top_level_parts(inner)
        kept = parts[: -1 if ends_in_unit(inner) else None]
        return any(letters_product(part, zero_free) for part in kept)
    # [a, b] is an interval (its ends are compared), [a, b, c] a tuple: the parts are still
    # what is compared; with a bracket left open, one number
    inner = inner[1:] if inner[:1] in "([" else inner
    inner = inner[:-1] if inner[-1:] in ")]" else inner
    if not _FLAT.fullmatch(inner):
        return False
    parts = _MV_SEPARATOR.split(_MV_AND_OR.sub(",", inner))
    whole = not ends_in_unit(inner)
    if not whole:
        parts = parts[:-1]  # math-verify strips a unit off the end: "5 cm" is 5
    plain = []
    for part in parts:
        number = _PLAIN.fullmatch(part)
        if number is not None:
            plain.append(Fraction(number[1] + number[2]))
        elif letters_product(part, zero_free):
            return True
    distinct = len(set(plain))
    if whole and len(plain) == len(parts):
        return size not in (len(parts), distinct)
    return distinct > size


def named_in_prose(answer: str, shape: Shape) -> tuple[bool, How] | None:
    """``(False, how)`` when ``answer`` gives plain numbers to names in prose (``the values
    are a = 1, b = 0``) and they are not the gold's values (plain numbers, ``shape``);
    None otherwise. math-verify compares each equation's last value as it compares named
    values; where its reading fails it takes one number, never the gold's several values.
    A match is left to it (its reading might have failed)."""
    if _values_gold(shape) is None or not _NAMED.fullmatch(answer) or _NOT_LETTERS.search(answer):
        return None
    values: list[Shape] = []
    for part in _MV_SEPARATOR.split(_MV_AND_OR.sub(",", answer)):
        if "=" not in part:
            return None  # "x = 1, 2": which side the 2 joins is latex2sympy's
        value = _PLAIN.fullmatch(part.rsplit("=", 1)[1])
        node = None if value is None else parse(value[0])
        if node is None or shape_of(node) is None:
            return None
        values.append(("scalar", node))
    numbers = [plain_number(v[1]) for v in values]
    if None in numbers or len(set(numbers)) < len(numbers):
        return None  # a = 1, b = 1 are two equations but one value: math-verify counts them
    decided = compare_shapes(("coll", False, values), shape)
    return decided if decided is not None and not decided[0] else None


def wrapped(text: str) -> bool:
    """Whether the bracket ``text`` opens with closes at its end (``[f(1), f(2)]``)."""
    if text[:1] not in "([" or text[-1:] not in ")]":
        return False
    depth = 0
    for i, char in enumerate(text):
        depth += 1 if char in "([" else -1 if char in ")]" else 0
        if depth == 0:
            return i == len(text) - 1
    return False


def _top_level_parts(text: str) -> list[str]:
    """``text`` split where math-verify splits a list, outside brackets and braces."""
    parts, depth, start = [], 0, 0
    text = _MV_AND_OR.sub(",", text)
    for i, char in enumerate(text):
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if depth == 0 and char in ",;":
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def applied(part: str, zero_free: bool) -> bool:
    """A product of letters and nonzero numbers ending in a letter that is a symbol, right
    before a bracket of several arguments (``the list [4, 5, 7]``, ``t (1, 2) here``):
    latex2sympy reads the letter as a function applied to them, a value that is no number,
    or fails to read it at all (``the roots: [1, 2]``) and math-verify takes one number."""
    m = _APPLIED.fullmatch(part)
    if m is None or not letters_product(m["head"], zero_free):
        return False
    if m["single"] is not None and not letters_product(f"x{m['single']}", zero_free):
        return False  # "x (1 - 1)" may be the product x * 0
    return zero_free or _no_zero(m["tail"])


def letters_product(part: str, zero_free: bool = False) -> bool:
    """A product of letters and nonzero numbers with a symbol among its letters (``the 40 psi
    tire``, ``N3``): math-verify's reading of it has a free symbol, so it is no number. With
    a zero among its numbers (``the element 0``) it may be 0: still none of the gold's
    values when they are ``zero_free``."""
    return (
        _PRODUCT.fullmatch(part) is not None
        and _SYMBOL_LETTER.search(part) is not None
        and (zero_free or _no_zero(part))
    )


def _values_gold(shape: Shape) -> tuple[int, How, bool] | None:
    """How many values math-verify compares a gold of plain numbers by, when one number
    never equals it: a tuple keeps its length (three or more), a set counts its distinct
    members (two or more), a pair or an interval is two different numbers; and whether none
    of them is 0. None for any other gold."""
    if shape[0] == "pair":
        a, b = plain_number(shape[1]), plain_number(shape[2])
        if a is None or b is None or a == b:
            return None
        return 2, "symbolic_tuple", 0 not in (a, b)
    if shape[0] == "intervals" and shape[1] is None and len(shape[2]) == 1:
        low, _, high, _ = shape[2][0]  # an interval is compared by its two ends
        a, b = plain_number(low), plain_number(high)
        if a is None or b is None or not a < b:
            return None
        return 2, "symbolic_interval", 0 not in (a, b)
    if shape[0] != "coll" or not all(e[0] == "scalar" for e in shape[2]):
        return None
    values = [plain_number(e[1]) for e in shape[2]]
    if any(v is None for v in values):
        return None
    if shape[1]:
        return (len(values), "symbolic_tuple", 0 not in values) if len(values) >= 3 else None
    distinct = len(set(values))
    return (distinct, "symbolic_set", 0 not in values) if distinct >= 2 else None


def math_verify_words(text: str) -> bool:
    """Whether ``text`` has a word math-verify reads as something else than a product of
    symbols (``inf``, ``sqrt``, ``gcd``, ``zeros``, ...)."""
    return _NOT_LETTERS.search(text) is not None


def _no_zero(text: str) -> bool:
    """Whether none of the numbers written in ``text`` is 0 (a product with one may be 0)."""
    return all(Fraction(n) != 0 for n in _NUMBER.findall(text))
