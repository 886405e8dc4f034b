"""Every reading math-verify can take of an answer, from its own extraction step.

math-verify does not parse an answer whole: its extraction step (``math_verify.parser``)
first finds candidate strings with regular expressions (``$...$`` pieces, numbers, simple
expressions, in an order fixed by priority and by where each ends) and hands them, one by
one, to latex2sympy until one reads; the first that reads is its answer. That step is
cheap and deterministic; the expensive part is latex2sympy's grammar over a sentence. So
this module runs math-verify's *own* patterns (imported, not copied) to list the
candidates in its order, and walks them:

- a candidate the fast rung's grammar reads (a number, ``\\frac{1}{2}``, ``[1, 2, 3]``) is
  read as math-verify reads it, and ends the walk;
- a candidate it does not read (prose: ``the values are x = [1, 2, 3]``) may read in
  latex2sympy or fail there, which this module cannot tell; so both are followed: its
  reading, where the marks make it sure that it is no gold of plain numbers (a part of
  letters is a product of symbols; an equation is compared by its right side), and the
  next candidate, where its failure would lead.

When every reading math-verify could end with gives the same verdict on the gold (a
plain number, a list, a set or an interval of plain numbers), that verdict is certain
without the grammar; otherwise nothing is decided (math-verify decides). math-verify's
other comparison, of the answer's first candidate as a string with the gold's, is made
too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Final

from answerx.grading.mathverify import (  # _latex: what answerx hands math-verify's parse
    _latex,
    comparisons_elsewhere,
)
from answerx.grading.models import How
from answerx.grading.symbolic.compare import compare_shapes
from answerx.grading.symbolic.equality import same_value
from answerx.grading.symbolic.parser import Node
from answerx.grading.symbolic.prose import applied, letters_product, math_verify_words, wrapped
from answerx.grading.symbolic.shapes import Shape, has_number_word, plain_number

__all__ = ["ReadingsElsewhere", "load_extraction", "read_as_math_verify"]

#: A reader of whole texts: the shape the fast rung's grammar reads, or None.
Reader = Callable[[str], "Shape | None"]

#: How many candidates are followed before giving up (the walk almost always ends at the
#: first or second: a number reads whenever it is reached).
_MAX_WALK: Final = 6


class ReadingsElsewhere(Exception):
    """The walk needs math-verify's patterns, which this process has not loaded and its
    grading workers have (:func:`answerx.grading.mathverify.comparisons_elsewhere`): the
    rung and math-verify are then asked of a worker together
    (:func:`answerx.grading.mathverify.compare_with_rung`), and no batch worker pays the
    parser's import. About one row in six hundred of the corpus walks."""


@dataclass(frozen=True)
class _Extraction:
    """math-verify's extraction step, as imported from it."""

    patterns: list[tuple[int, re.Pattern[str], Any]]  # (priority, pattern, target), sorted
    normalize: Callable[[str, bool], str]  # latex2sympy's normalisation, math-verify's way
    latex_type: type


@lru_cache(maxsize=1)
def load_extraction() -> _Extraction | None:
    """math-verify's own extraction patterns and normalisation (imported once: half a
    second, which :func:`answerx.grading.symbolic.prepare` spends at start-up); None where
    math-verify cannot be imported (then nothing is decided here)."""
    try:
        from math_verify.parser import (  # its normalisation: latex2sympy's, as it calls it
            ExprExtractionConfig,
            LatexExtractionConfig,
            get_extraction_regexes,
            normalize_latex,
        )
    except Exception:  # missing or broken: the comparison itself reports it, per item
        return None
    latex = LatexExtractionConfig()
    patterns = [
        (priority, pattern, target)
        for found, target in get_extraction_regexes([latex, ExprExtractionConfig()])
        for pattern, priority in found
    ]
    patterns.sort(key=lambda row: row[0])  # math-verify's order: by priority, stable

    def normalize(text: str, boxed: bool) -> str:
        # math-verify reads a plain \boxed{...} match with boxed="last"
        config = replace(latex.normalization_config, boxed="last") if boxed else None
        return str(normalize_latex(text, config=config or latex.normalization_config))

    return _Extraction(patterns, normalize, LatexExtractionConfig)


def _extraction() -> _Extraction | None:
    """:func:`load_extraction`, unless this process leaves it to its grading workers."""
    if load_extraction.cache_info().currsize == 0 and comparisons_elsewhere():
        raise ReadingsElsewhere
    return load_extraction()


@dataclass(frozen=True)
class _Candidate:
    """One match math-verify would try: ``kind`` ``latex`` (its pieces, each normalised),
    ``number`` (its digits) or ``expr``; ``texts``: what math-verify keeps of it as text
    (one of these, as its pieces read or not)."""

    kind: str
    pieces: tuple[str, ...]
    percent: bool
    texts: tuple[str, ...]


def _candidates(text: str, mv: _Extraction) -> list[_Candidate]:
    """The matches math-verify tries on ``text``, in its order: by priority, then within
    one priority the match ending last first, then the one starting first. It takes the
    first that reads."""
    out: list[_Candidate] = []
    priorities = sorted({priority for priority, _, _ in mv.patterns})
    for level in priorities:
        matches = [
            (m, target)
            for priority, pattern, target in mv.patterns
            if priority == level
            for m in pattern.finditer(text)
        ]
        matches.sort(key=lambda mt: (mt[0].end(), -mt[0].start()), reverse=True)
        out.extend(_candidate(m, target, mv) for m, target in matches)
    return out


def _candidate(match: re.Match[str], target: Any, mv: _Extraction) -> _Candidate:
    groups = {k: v for k, v in match.groupdict().items() if v}
    if isinstance(target, mv.latex_type):
        pieces, percent = [], False
        for prefix in ("first", *(f"next{i}" for i in range(1, 6))):
            found = [(k, v) for k, v in groups.items() if k.startswith(f"{prefix}_latex")]
            if found:
                name, value = found[0]
                pieces.append(mv.normalize(value, name.endswith("latexBoxed")))
                percent |= f"{prefix}_percent" in groups
        texts = (pieces[0], " and ".join(pieces)) if pieces else ()
        return _Candidate("latex", tuple(pieces), percent, texts)
    integer = next((v for k, v in groups.items() if k.startswith("integer")), "")
    decimal = next((v for k, v in groups.items() if k.startswith("decimal")), "")
    if integer or decimal:  # math-verify's own spelling of the number
        digits = integer.translate(str.maketrans("", "", ", ")).lstrip("0") or "0"
        digits += decimal.replace(",", ".")
        return _Candidate("number", (digits,), "percent" in groups, (digits,))
    expr = groups.get("expr", "")
    return _Candidate("expr", (expr,), False, (expr,) if expr else ())


# --- what a candidate can read as ---------------------------------------------------------

# An expression math-verify hands to sympy's parse_expr (Python's syntax once "^" is "**"):
# digits and operators, no product written by juxtaposition ("2(3)" or "1 2" fail there).
_PLAIN_EXPR: Final = re.compile(r"[\d.+\-*/^() ]+")
# ... and one that ends in an operator or an opening bracket is a syntax error there.
_DANGLING: Final = re.compile(r"[-+*/^×÷(]\s*$")
_JUXTAPOSED: Final = re.compile(r"[\d)]\s*\(|\)\s*[\d(]|\d\s+[\d.]|\.\s*\D|\.$")

# Marks of a relation other than one equals sign (an inequality, a membership, a mapping).
_RELATION_MARK: Final = re.compile(
    r"[<>≤≥≠∈!:]|\\(?:le|leq|ge|geq|lt|gt|ne|neq|in|approx|equiv|sim|to|mapsto)(?![A-Za-z])"
)
# The left side of "names = value": names, words (hyphenated too), subscripts.
_NAME_SIDE: Final = re.compile(r"[A-Za-z0-9 _'.{}-]*[A-Za-z][A-Za-z0-9 _'.{}-]*")


class _Unsure(Exception):
    """A candidate whose reading is not sure from its marks."""


@dataclass(frozen=True)
class _Reading:
    """A candidate's verdict on the gold where it reads (None: it surely does not read);
    ``sure``: it surely reads (the walk ends there), else it may also fail, and math-verify
    goes on to the next candidate."""

    verdict: bool | None
    sure: bool


_TOP_SEPARATOR: Final = re.compile(r"[,;]")

# Inequalities: a text of them reads as relations (or fails), never as a value or a set.
_INEQUALITIES = r"le|leq|ge|geq|lt|gt|leqslant|geqslant"
_INEQUALITY: Final = re.compile(rf"[<>≤≥]|\\(?:{_INEQUALITIES})(?![A-Za-z])")
# Marks that may make a relation something else: an equation (compared by its right side),
# a membership or inclusion (read as the set), a LaTeX command of another kind.
_NOT_INEQUALITY: Final = re.compile(rf"[=∈⊂⊆]|\\(?!(?:{_INEQUALITIES})(?![A-Za-z]))")
_SYMBOL: Final = re.compile(r"[A-DF-HJ-Za-df-hj-z]")


def _closes_first(text: str) -> bool:
    """Whether a bracket closes in ``text`` before one opens (``a, b] = [1, 2``, a list cut
    at both ends): latex2sympy's grammar pairs every closing bracket with an opening one
    (an interval, a group, a tuple, arguments), so its reading fails with a syntax error.
    Only for a text with no LaTeX command (``\\right)`` closes what ``\\left.`` opened)."""
    if "\\" in text or (text.count("=") > 1 and not _TOP_SEPARATOR.search(text)):
        return False  # (a chain of equations failing whole has its last side read alone)
    depth = 0
    for char in text:
        depth += 1 if char in "([" else -1 if char in ")]" else 0
        if depth < 0:
            return True
    return False


def _inequalities_only(text: str) -> bool:
    """Whether ``text`` is inequalities in unknowns, each part of it (``x > 3``,
    ``0 < x < 1, x > 2``): latex2sympy reads a relation, a chain or a list of them, which
    math-verify never finds equal to a gold of plain numbers (it compares a relation with a
    relation only; sets with relations only when asked to)."""
    if _NOT_INEQUALITY.search(text):
        return False
    parts = _top_level(text)
    return parts is not None and all(
        _INEQUALITY.search(part) and _SYMBOL.search(part) for part in parts
    )


def _top_level(text: str) -> list[str] | None:
    """``text`` split at commas and semicolons outside brackets and braces; None where the
    brackets do not pair up."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += 1 if char in "([{" else -1 if char in ")]}" else 0
        if depth < 0:
            return None
        if depth == 0 and char in ",;":
            parts.append(text[start:i])
            start = i + 1
    return None if depth else [*parts, text[start:]]


# latex2sympy reads a text written as one number with thousands separators as that number.
_THOUSANDS: Final = re.compile(r"\s*-?\d{1,3}(?:,\d{3})+(?:\.\d+)?\s*")


def _none_of_the_values(text: str, values: list[Node], zero_free: bool, read: Reader) -> bool:
    """Whether latex2sympy's reading of the prose ``text``, where it reads, holds an element
    that is none of the gold's plain ``values``, so that it never equals the gold (as a
    value, a list, a set or an interval: math-verify compares them element by element). It
    splits a list where the grammar does (commas and semicolons outside brackets; "and" and
    "or" are commas once normalised), also inside one bracket around it all; an element is
    a part of letters (a product of real symbols), letters applied to a bracket (a
    function's value), or a part the fast rung reads as a value that differs from each."""
    if math_verify_words(text) or _THOUSANDS.fullmatch(text):
        return False
    inner = text.strip()
    if wrapped(inner):
        inner = inner[1:-1]  # [f(1), f(2)]: an interval or a tuple of what it holds
    parts = _top_level(inner)
    return parts is not None and any(
        letters_product(part, zero_free)
        or applied(part.strip(), zero_free)
        or _differs_from_each(read(part.strip()), values)
        for part in parts
    )


def _differs_from_each(shape: Shape | None, values: list[Node]) -> bool:
    if shape is None or shape[0] != "scalar":
        return False
    return all(same_value(shape[1], value) is False for value in values)


def _equation_verdict(
    text: str, gold: Shape, values: list[Node], zero_free: bool, read: Reader
) -> bool | None:
    """``names = value`` (one equals sign, names and words on its left, no separator
    outside brackets): where latex2sympy reads it, an equation, which math-verify compares
    with a gold that is no equation by its right side. That verdict, where the grammar reads
    the right side or one of its elements is surely none of the gold's values; else None."""
    if text.count("=") != 1 or _RELATION_MARK.search(text):
        return None
    left, right = text.split("=")
    parts = _top_level(text)
    if parts is None or len(parts) != 1 or not _NAME_SIDE.fullmatch(left):
        return None
    if not _SYMBOL.search(left):
        return None  # "I = 2": two numbers, an equation sympy may evaluate to true or false
    decided = _compare(read(right.strip()), gold)
    if decided is None and _none_of_the_values(right, values, zero_free, read):
        return False  # "the x-values = [2 V, 3 V]": its ends are products of symbols
    return decided


def _compare(shape: Shape | None, gold: Shape) -> bool | None:
    if shape is None or shape == ("words",):
        return None
    decided = compare_shapes(shape, gold)
    return None if decided is None else decided[0]


def _reading(
    candidate: _Candidate, gold: Shape, values: list[Node], zero_free: bool, read: Reader
) -> _Reading:
    """What ``candidate`` reads as against ``gold``; raises :class:`_Unsure`."""
    if candidate.percent:
        raise _Unsure
    if candidate.kind == "expr":
        expr = candidate.pieces[0]
        if _DANGLING.search(expr):  # "10 + 0.9 *" cut from "10 + 0.9 * V(A)": fails to read
            return _Reading(None, sure=False)
        if not _PLAIN_EXPR.fullmatch(expr) or _JUXTAPOSED.search(expr):
            raise _Unsure
    if candidate.kind in ("number", "expr"):
        verdict = _compare(read(candidate.pieces[0]), gold)
        if verdict is None:
            raise _Unsure
        return _Reading(verdict, sure=True)
    if len(candidate.pieces) > 1:  # several pieces: read together only when all read
        shapes = [read(piece) for piece in candidate.pieces]
        if any(s is None or s[0] != "scalar" for s in shapes):
            raise _Unsure
        verdict = _compare(("coll", False, shapes), gold)
        if verdict is None:
            raise _Unsure
        return _Reading(verdict, sure=True)
    piece = candidate.pieces[0]
    shape = read(piece)
    # An equation is no sure reading: latex2sympy may fail on the words before its name
    # (``the values are x = [1, 2]``), which the grammar reads as the equation's last side.
    verdict = None if shape is None or shape[0] == "eq" else _compare(shape, gold)
    if verdict is not None:
        return _Reading(verdict, sure=True)
    if _closes_first(piece):
        return _Reading(None, sure=False)
    # prose: latex2sympy may read it (as below) or fail (math-verify goes on)
    if _none_of_the_values(piece, values, zero_free, read) or _inequalities_only(piece):
        return _Reading(False, sure=False)
    verdict = _equation_verdict(piece, gold, values, zero_free, read)
    if verdict is None:
        raise _Unsure
    return _Reading(verdict, sure=False)


def _plain_gold(shape: Shape) -> tuple[How, list[Node]] | None:
    """How a gold of plain numbers compares (a number, a list or set, a pair, intervals) and
    its values; None for any other gold."""
    if shape[0] == "scalar":
        values = [shape[1]]
        how: How = "symbolic_fast"
    elif shape[0] == "coll" and all(e[0] == "scalar" for e in shape[2]):
        values = [e[1] for e in shape[2]]
        how = "symbolic_tuple" if shape[1] else "symbolic_set"
    elif shape[0] == "pair":
        values, how = [shape[1], shape[2]], "symbolic_tuple"
    elif shape[0] == "intervals" and shape[1] is None:
        values = [end for part in shape[2] for end in (part[0], part[2])]
        how = "symbolic_interval"
    else:
        return None
    if not values or any(plain_number(v) is None for v in values):
        return None
    return how, values


def _first_texts(candidates: list[_Candidate]) -> set[str]:
    """What math-verify keeps of a text as a string: its first match's text, stripped."""
    texts = {t.strip() for t in next((c.texts for c in candidates if c.texts), ())}
    return texts - {""}


def read_as_math_verify(
    answer: str, gold: str, gold_shape: Shape, read: Reader
) -> tuple[bool, How] | None:
    """``(same, how)`` when every reading math-verify can take of ``answer`` gives the same
    verdict on ``gold`` (plain numbers, read by the fast rung as ``gold_shape``); None
    otherwise, or where math-verify cannot be imported. ``read``: the fast rung's reading
    of a whole text. Raises :class:`ReadingsElsewhere` where the walk is for this
    process's grading workers to make."""
    if has_number_word(answer):
        return None  # "three" against 3: the number-word rule's to read, not math-verify's
    plain = _plain_gold(gold_shape)
    mv = _extraction() if plain is not None else None
    if plain is None or mv is None:
        return None
    how, values = plain
    zero_free = all(plain_number(v) != 0 for v in values)
    gold_candidates = _candidates(_latex(gold), mv)
    if not gold_candidates or len(gold_candidates[0].pieces) != 1:
        return None  # the gold is read whole, as one piece, or this is not sure
    candidates = _candidates(_latex(answer), mv)
    # math-verify also compares the two texts it keeps, as strings: equal, they decide
    texts, gold_texts = _first_texts(candidates), _first_texts(gold_candidates)
    if texts & gold_texts:
        return (True, how) if texts <= gold_texts else None
    verdicts: set[bool] = set()
    for candidate in candidates[:_MAX_WALK]:
        try:
            reading = _reading(candidate, gold_shape, values, zero_free, read)
        except _Unsure:
            return None
        if reading.verdict is not None:
            verdicts.add(reading.verdict)
        if reading.sure:
            break
    else:
        if len(candidates) > _MAX_WALK:
            return None
        verdicts.add(False)  # nothing read: math-verify keeps only the text (compared above)
    return (verdicts.pop(), how) if len(verdicts) == 1 else None
