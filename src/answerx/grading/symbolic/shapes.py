"""What kind of answer a parse is: a value, a collection, a pair, intervals, an equation.

``shape_of`` turns a parse tree into one of these tuples (or None, outside what the
fast rung compares):

- ``("scalar", node)``;
- ``("coll", ordered, elements)``: ``1, 2`` and ``\\{1, 2\\}`` (unordered), ``(1, 2, 3)``
  (ordered); ``x = -1, x = 2`` is the values of ``x``; ``1 \\pm \\sqrt{2}`` two values;
- ``("pair", a, b)``: ``(a, b)``, a point or an open interval, as the other side says;
- ``("intervals", variable, parts)``: ``[a, b)``, unions, ``x \\in [a, b]`` and
  inequalities in one variable (``k < -5``, ``\\frac12 \\le x \\le 8``), each part
  ``(low, low_closed, high, high_closed)``;
- ``("eq", "assign", name, None, value)`` (``y = 2x + 1``),
  ``("eq", "func", name, variable, value)`` (``f(n) = n``) and
  ``("eq", "other", None, None, value)`` (``(25^2 + 12^2) = 625 + 144 = 769``: its last side);
- ``("named", elements)``: ``x = 1, y = -2, z = 3``, distinct plain numbers given to
  distinct names, compared as values with a gold of values only;
- ``("empty",)``;
- ``("words",)``: prose without a number in it (``No solution``), from :func:`words_only`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Final

from answerx.grading.symbolic.parser import Node

__all__ = ["Interval", "Shape", "has_number_word", "plain_number", "shape_of", "words_only"]

Shape = tuple[Any, ...]
Interval = tuple[Node, bool, Node, bool]

_INEQUALITIES: Final = frozenset({"<", "<=", ">", ">="})
_FLIP: Final = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NEG_INF: Final = ("neg", ("inf",))


# Letters and the punctuation of prose; "_" too, for a placeholder name a model left as
# its answer ("b_solution", "final_answer"): math-verify reads a product of symbols there.
_PROSE = re.compile(r"[A-Za-z][A-Za-z_'’ ,.;:()/-]*")
_LONG_WORD = re.compile(r"[A-Za-z]{4,}")
# Number words are left alone: "three" against 3 is the number-word rule's to decide.
_NUMBER_WORDS: Final = frozenset(
    [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
        "hundred",
        "thousand",
        "million",
        "billion",
        "half",
        "halves",
        "third",
        "thirds",
        "quarter",
        "quarters",
        "dozen",
        "once",
        "twice",
    ]
)


def words_only(text: str) -> bool:
    """Prose with no number and no mathematics in it: ``No solution``, ``Cannot be
    determined``, ``infinitely many``, a placeholder such as ``b_solution``."""
    return bool(_PROSE.fullmatch(text) and _LONG_WORD.search(text)) and not has_number_word(text)


def has_number_word(text: str) -> bool:
    """``three``, ``a dozen``: a number spelled out, which the fast rung leaves alone."""
    return any(w.lower() in _NUMBER_WORDS for w in re.findall(r"[A-Za-z]+", text))


def shape_of(node: Node) -> Shape | None:
    """The shape of a whole answer."""
    kind = node[0]
    if kind == "list":
        return _collection(node[1], ordered=False)
    if kind == "set":
        return ("empty",) if not node[1] else _collection(node[1], ordered=False)
    if kind == "tuple":
        return _collection(node[1], ordered=True)
    if kind == "bracket":
        return _bracket(node)
    if kind == "union":
        return _union(node[1])
    if kind == "rel":
        return _relation(node[1], node[2])
    if kind == "in":
        if node[1][0] != "v":
            return None
        target = shape_of(node[2])
        if target is not None and target[0] == "pair":  # x \in (a, b): an open interval
            return ("intervals", None, [(target[1], False, target[2], False)])
        return target if target is not None and target[0] in ("coll", "intervals") else None
    if kind == "empty":
        return ("empty",)
    if kind == "pm":
        return ("coll", False, [("scalar", ("add", node[1], node[2])),
                                ("scalar", ("sub", node[1], node[2]))])  # fmt: skip
    return ("scalar", node)


def _collection(items: list[Node], *, ordered: bool) -> Shape | None:
    if not ordered:  # 1 \pm \sqrt{5}, -2: three values
        items = [part for item in items for part in _both_signs(item)]
    elements = [_element(item) for item in items]
    if any(e is None for e in elements):
        return None
    # x = -1, x = 2: the values of x (not when the names differ: a = 7, b = 3 is a tuple)
    names = {e[2] for e in elements if e is not None and e[0] == "eq"}
    if names:
        if not all(e is not None and e[0] == "eq" for e in elements):
            return None
        if len(names) > 1:
            return _named(elements)
        elements = [shape_of(e[4]) for e in elements if e is not None]
        if any(e is None or e[0] not in ("scalar", "pair") for e in elements):
            return None
    return ("coll", ordered, elements)


def _named(elements: list[Shape | None]) -> Shape | None:
    """``x = 1, y = -2, z = 3``: one distinct plain number for each of distinct names
    (math-verify reads the list of equations, which it compares value by value with a
    gold of values); anything else is left to math-verify."""
    if len({e[2] for e in elements if e is not None}) < len(elements):
        return None  # x = 1, y = 2, x = 3
    values = [e[4] for e in elements if e is not None and e[1] == "assign"]
    numbers = [plain_number(v) for v in values]
    if len(values) < len(elements) or None in numbers or len(set(numbers)) < len(numbers):
        return None
    return ("named", [("scalar", v) for v in values])


def _both_signs(item: Node) -> list[Node]:
    if item[0] == "pm":
        return [("add", item[1], item[2]), ("sub", item[1], item[2])]
    return [item]


def _element(item: Node) -> Shape | None:
    shape = shape_of(item)
    if shape is None or shape[0] == "scalar" or shape[0] == "pair":
        return shape
    if shape[0] == "coll" and shape[1]:  # a tuple inside a list: (1, 2, 3), (4, 5, 6)
        return shape
    if shape[0] == "eq" and shape[1] == "assign":
        return shape
    return None


def _bracket(node: Node) -> Shape:
    _, opening, closing, low, high = node
    if opening == "(" and closing == ")":
        return ("pair", low, high)
    if opening == "[" and closing == "]" and _descending(low, high):
        # [8, 4] is no interval: math-verify reads it as the pair (8, 4), as it reads (8, 4).
        return ("pair", low, high)
    if opening == "[" and closing == "]" and low == high and plain_number(low) is not None:
        # [1, 1] (both ends written alike) is the point 1: math-verify reads the set {1}, as
        # it reads \{1\} ([1/2, 0.5] it keeps an interval: the ends are not written alike).
        return ("coll", False, [("scalar", low)])
    return ("intervals", None, [(low, opening == "[", high, closing == "]")])


def _descending(low: Node, high: Node) -> bool:
    """Both ends are plain numbers and the first is the larger."""
    a, b = plain_number(low), plain_number(high)
    return a is not None and b is not None and a > b


def plain_number(node: Node) -> Fraction | None:
    """The value of a number written plainly (``4``, ``-0.5``, ``1/4``); None otherwise."""
    if node[0] == "n":
        return node[1]  # type: ignore[no-any-return]
    if node[0] == "neg":
        inner = plain_number(node[1])
        return None if inner is None else -inner
    if node[0] == "div" and node[1][0] == "n" and node[2][0] == "n" and node[2][1]:
        return node[1][1] / node[2][1]  # type: ignore[no-any-return]
    return None


def _union(parts: list[Node]) -> Shape | None:
    intervals: list[Interval] = []
    for part in parts:
        kind = part[0]
        if kind == "bracket":
            _, opening, closing, low, high = part
            intervals.append((low, opening == "[", high, closing == "]"))
        elif kind == "set" and part[1]:  # {-1} ∪ [0, 7): points are closed intervals
            intervals.extend((p, True, p, True) for p in part[1])
        else:
            return None
    return ("intervals", None, intervals)


def _relation(items: list[Node], ops: list[str]) -> Shape | None:
    if all(op == "=" for op in ops):
        return _equation(items[0], items[-1])
    if not all(op in _INEQUALITIES for op in ops):
        return None
    if len(items) == 2:
        left, op, right = items[0], ops[0], items[1]
        if right[0] == "v" and left[0] != "v":  # 5 > x is x < 5
            left, op, right = right, _FLIP[op], left
        if left[0] != "v":
            return None
        if op in ("<", "<="):
            return ("intervals", left[1], [(_NEG_INF, False, right, op == "<=")])
        return ("intervals", left[1], [(right, op == ">=", ("inf",), False)])
    if len(items) == 3 and items[1][0] == "v":
        low, var, high = items
        first, second = ops
        if first in (">", ">=") and second in (">", ">="):
            low, high = high, low
            first, second = _FLIP[second], _FLIP[first]
        if first in ("<", "<=") and second in ("<", "<="):
            return ("intervals", var[1], [(low, first == "<=", high, second == "<=")])
    return None


def _equation(left: Node, value: Node) -> Shape | None:
    if left[0] == "v":
        return ("eq", "assign", left[1], None, value)
    if left[0] == "call" and len(left[2]) == 1 and left[2][0][0] == "v":
        return ("eq", "func", left[1], left[2][0][1], value)
    return ("eq", "other", None, None, value)
