"""Equal, different, or cannot tell: two answers compared by shape, then by value.

The gold decides how several values compare: a tuple in order, anything else as a set
(``-1,0,1`` = ``\\{1, 0, -1\\}``); one value against several is a set of one. Equations
are compared by their value (``y = 2x + 1`` against ``2x + 1``) or, two definitions of one
function, under the gold's variable name (``f(n) = n`` against ``f(z) = z``). Values are
:mod:`.values`' to compare, intervals and inequalities :mod:`.intervals`'.
"""

from __future__ import annotations

from typing import Any, Final

from answerx.grading.models import How
from answerx.grading.symbolic.equality import (
    DIFFERENT_BEYOND,
    as_mpf,
    is_constant,
    is_decimal,
    plain,
    same_value,
    value_of,
)
from answerx.grading.symbolic.evaluate import exact, free_variables, numeric_context
from answerx.grading.symbolic.intervals import same_intervals
from answerx.grading.symbolic.parser import Node
from answerx.grading.symbolic.shapes import Interval, Shape, plain_number, shape_of
from answerx.grading.symbolic.surds import TooBig

__all__ = ["compare_shapes", "several_values"]

_MAX_ELEMENTS: Final = 24

#: (same, how) or None
Outcome = tuple[bool, How] | None


def compare_shapes(answer: Shape, gold: Shape) -> Outcome:
    """Whether ``answer`` states ``gold``, and the shape that decided; None: cannot tell."""
    if answer[0] == "named" or gold[0] == "named":
        return _named_values(answer, gold)
    if answer[0] == "words":  # "No solution" against a number
        if gold[0] == "coll" and len(gold[2]) == 1:  # or against the set of one, [2, 2]
            return compare_shapes(answer, gold[2][0])
        return (False, "symbolic_fast") if is_constant(gold) else None
    if gold[0] == "words":
        return None
    if answer[0] == "eq" or gold[0] == "eq":
        return _equations(answer, gold)
    kinds = (answer[0], gold[0])
    if kinds == ("scalar", "scalar"):
        return _named(same_value(answer[1], gold[1]), "symbolic_fast")
    if kinds == ("coll", "coll"):
        if gold[1]:  # the gold is a tuple: order matters
            repeats = False if answer[1] else _repeats(answer[2])
            if repeats is not False:  # 1, 1, 1 is the set {1}: never a tuple of three
                return None if repeats is None else (False, "symbolic_tuple")
            return _named(_in_order(answer[2], gold[2]), "symbolic_tuple")
        return _named(_tuple_as_set(answer, gold[2]), "symbolic_set")
    if kinds == ("pair", "pair"):
        return _named(_elements_equal(answer, gold), "symbolic_tuple")
    if kinds == ("empty", "empty"):
        return True, "symbolic_set"
    if kinds == ("coll", "pair") and not answer[1]:
        return _named(_set_against_pair(answer, gold), "symbolic_tuple")
    if kinds in (("scalar", "coll"), ("coll", "scalar")) or _point_among_points(answer, gold):
        return _one_against_many(answer, gold)
    if {"pair", "scalar"} == set(kinds):  # a point or an interval is not one number
        return False, "symbolic_tuple"
    if kinds == ("intervals", "pair") and _one_interval(answer) and _descending_pair(gold):
        return _named(_interval_against_pair(answer[2][0], gold), "symbolic_interval")
    if kinds == ("intervals", "coll") and _one_interval(answer) and not gold[1]:
        low, _, high, _ = answer[2][0]
        if len(gold[2]) == 1 and same_value(low, high) is False:
            return False, "symbolic_interval"  # two ends, however read, are never one value
    if "intervals" in kinds and set(kinds) <= {"intervals", "pair"}:
        if _descending_pair(answer) or _descending_pair(gold):
            # (4, 1) or [4, 1] is a pair of values, never a range: not an interval
            return (False, "symbolic_interval") if _ranged(answer, gold) else None
        return _named(same_intervals(answer, gold), "symbolic_interval")
    if set(kinds) == {"scalar", "intervals"} and _ranged(answer, gold):
        return False, "symbolic_interval"  # one number is no range of reals
    if set(kinds) == {"coll", "pair"} and _at_least_three(answer if answer[0] == "coll" else gold):
        return False, "symbolic_tuple"  # three values or more are never the two of a pair
    if set(kinds) == {"coll", "intervals"} and _ranged(answer, gold):
        return False, "symbolic_interval"  # finitely many values are no range of reals
    return None


def several_values(shape: Shape) -> Outcome:
    """``(False, how)`` when ``shape`` is several plain numbers (a pair, a list or tuple of two
    or more) or a range of reals, which no single value states; else None."""
    if shape[0] == "pair" and all(plain_number(n) is not None for n in shape[1:3]):
        return False, "symbolic_tuple"
    if shape[0] == "coll" and len(shape[2]) >= 2:
        values = [e[1] for e in shape[2] if e[0] == "scalar"]
        if len(values) == len(shape[2]) and all(plain_number(v) is not None for v in values):
            return False, "symbolic_tuple" if shape[1] else "symbolic_set"
    if shape[0] == "intervals" and _ranged(shape, shape):
        return False, "symbolic_interval"
    return None


def _ranged(answer: Shape, gold: Shape) -> bool:
    """One side is intervals holding a range of reals (more than finitely many points)."""
    ranged = answer if answer[0] == "intervals" else gold
    return ranged[0] == "intervals" and any(_proper(part) for part in ranged[2])


def _descending_pair(shape: Shape) -> bool:
    if shape[0] != "pair":
        return False
    a, b = plain_number(shape[1]), plain_number(shape[2])
    return a is not None and b is not None and a > b


def _proper(part: Interval) -> bool:
    """An interval that holds more than one point: its ends are infinite, or numbers of which
    the first is surely the smaller (``[1, 1]`` is the point 1, a finite set; math-verify
    reads ``[2, \\sqrt{2}]`` as a pair of values)."""
    low, _, high, _ = part
    if low[0] == "inf" or high[0] == "inf" or (low[0] == "neg" and low[1][0] == "inf"):
        return True
    a, b = plain_number(low), plain_number(high)
    if a is not None and b is not None:
        return a < b
    return _surely_below(low, high)


def _surely_below(low: Node, high: Node) -> bool:
    """Whether the constant ``low`` is less than ``high`` by more than 50-digit arithmetic
    can blur (``\\sqrt{2}`` against ``3``); False where either has a variable."""
    if free_variables(low) or free_variables(high):
        return False
    try:
        ctx = numeric_context()
        a, b = (as_mpf(value_of(end, {}), ctx) for end in (low, high))
        return bool(b - a > max(abs(a), abs(b), 1) * DIFFERENT_BEYOND)
    except (ArithmeticError, ValueError, TypeError, TooBig):
        return False  # not a real number here (a complex value, an overflow)


def _point_among_points(answer: Shape, gold: Shape) -> bool:
    # (1, 3) against (1, 3), (4, 0); not against 1, 3 (math-verify reads that as the pair)
    kinds = {answer[0], gold[0]}
    if kinds != {"pair", "coll"}:
        return False
    many = answer if answer[0] == "coll" else gold
    return all(e[0] == "pair" for e in many[2])


def _one_against_many(answer: Shape, gold: Shape) -> Outcome:
    # 2 against {2}, or against 2, -1: one value is a set of one (the gold decides the order)
    mine = answer[2] if answer[0] == "coll" else [answer]
    theirs = gold[2] if gold[0] == "coll" else [gold]
    if gold[0] == "coll" and gold[1]:
        return _named(_in_order(mine, theirs), "symbolic_tuple")
    if answer[0] == "coll":
        return _named(_tuple_as_set(answer, theirs), "symbolic_set")
    return _named(_as_sets(mine, theirs), "symbolic_set")


def _tuple_as_set(answer: Shape, gold: list[Shape]) -> bool | None:
    # Against a set, math-verify keeps a tuple's length: (1, 1, 2) is not {1, 2} (a set's
    # repeated members are one: 1, 1, 2 is).
    if answer[1]:
        repeats = _repeats(answer[2])
        if repeats is not False:
            return None if repeats is None else False
    return _as_sets(answer[2], gold)


def _repeats(elements: list[Shape]) -> bool | None:
    """Whether some value is there twice; None: cannot tell."""
    distinct = _distinct(elements)
    return None if distinct is None else len(distinct) < len(elements)


def _at_least_three(coll: Shape) -> bool:
    # A tuple keeps its length; a set's repeated members are one (2, 1, 1 is {1, 2})
    if coll[1]:
        return len(coll[2]) >= 3
    distinct = _distinct(coll[2])
    return distinct is not None and len(distinct) >= 3


def _one_interval(shape: Shape) -> bool:
    return shape[1] is None and len(shape[2]) == 1


def _interval_against_pair(part: Interval, gold: Shape) -> bool | None:
    """An interval against a pair of plain numbers written the wrong way round (``[4, 1]``),
    as math-verify reads them: a half-open interval is never that pair; ``[a, b]`` and
    ``(a, b)`` are it when their ends are the pair's, in order (latex2sympy then reads them
    as that pair), and never otherwise."""
    low, low_closed, high, high_closed = part
    if low_closed != high_closed:
        return False
    ends: list[Shape] = [("scalar", low), ("scalar", high)]
    same = _in_order(ends, [("scalar", gold[1]), ("scalar", gold[2])])
    if same and (free_variables(low) or free_variables(high)):
        return None  # equal in value: whether latex2sympy sees the order depends on its form
    return same


def _set_against_pair(answer: Shape, gold: Shape) -> bool | None:
    """A set of values against a pair of two different plain numbers (``(1, 4)``, ``[4, 1]``),
    as math-verify compares them: the set's members as written, in order, with the pair's
    two; a set not written with two members is never a pair (math-verify counts its distinct
    members, then pairs the written ones off)."""
    ends = plain_number(gold[1]), plain_number(gold[2])
    if None in ends or ends[0] == ends[1] or any(e[0] != "scalar" for e in answer[2]):
        return None  # [2, 2] is the set {2}
    if len(answer[2]) != 2:
        return False
    return _in_order(answer[2], [("scalar", gold[1]), ("scalar", gold[2])])


def _named_values(answer: Shape, gold: Shape) -> Outcome:
    # x = 1, y = -2, z = 3 against [-1, 3, 1]: math-verify compares the value of each
    # equation with the gold's values (in order against a tuple), as for a list of values.
    # Against equations (a = 7, b = 3) it compares names too: left to it.
    if answer[0] != "named" or gold[0] not in ("scalar", "coll", "pair", "intervals"):
        return None
    return compare_shapes(("coll", False, answer[1]), gold)


def _named(same: bool | None, how: How) -> Outcome:
    return None if same is None else (same, how)


# --- equations ----------------------------------------------------------------------------


def _equations(answer: Shape, gold: Shape) -> Outcome:
    if gold[0] == "eq" and gold[1] == "other":
        return None  # 2x + z = 1 against 1: math-verify solves equations
    if answer[0] == "eq" and gold[0] == "eq":
        if answer[1] != gold[1] or answer[2] != gold[2]:
            return None  # x = 2 against y = 2, f against g: left to math-verify
        value = answer[4]
        if answer[1] == "func" and answer[3] != gold[3]:  # f(n) = n against f(z) = z
            value = _renamed(value, answer[3], gold[3])
        inner = compare_shapes(("scalar", value), ("scalar", gold[4]))
    else:
        # y = 2x + 1 against 2x + 1: the value of the equation is what is compared
        left = shape_of(answer[4]) if answer[0] == "eq" else answer
        right = shape_of(gold[4]) if gold[0] == "eq" else gold
        if left is None or right is None or left[0] == "eq" or right[0] == "eq":
            return None
        inner = compare_shapes(left, right)
    return None if inner is None else (inner[0], "symbolic_equation")


def _renamed(node: Node, old: str, new: str) -> Node:
    if node[0] == "v":
        return ("v", new) if node[1] == old else node
    return tuple(
        _renamed(c, old, new) if isinstance(c, tuple)
        else [_renamed(i, old, new) for i in c] if isinstance(c, list) else c
        for c in node
    )  # fmt: skip


# --- collections --------------------------------------------------------------------------


def _elements_equal(a: Shape, b: Shape) -> bool | None:
    if a[0] == "scalar" and b[0] == "scalar":
        return same_value(a[1], b[1])
    if a[0] == "pair" and b[0] == "pair":
        return _in_order([("scalar", a[1]), ("scalar", a[2])], [("scalar", b[1]), ("scalar", b[2])])
    if a[0] == "coll" and b[0] == "coll" and a[1] and b[1]:
        return _in_order(a[2], b[2])
    if {a[0], b[0]} == {"pair", "coll"}:  # a point against a triple
        return False if (a[0] == "coll" and a[1]) or (b[0] == "coll" and b[1]) else None
    return None


def _in_order(answer: list[Shape], gold: list[Shape]) -> bool | None:
    if len(answer) != len(gold):
        return False
    undecided = False
    for a, b in zip(answer, gold, strict=True):
        same = _elements_equal(a, b)
        if same is False:
            return False
        undecided |= same is None
    return None if undecided else True


def _distinct(elements: list[Shape]) -> list[Shape] | None:
    kept: list[Shape] = []
    for e in elements:
        seen = [_elements_equal(e, k) for k in kept]
        if None in seen:
            return None
        if True not in seen:
            kept.append(e)
    return kept


def _as_sets(answer: list[Shape], gold: list[Shape]) -> bool | None:
    if max(len(answer), len(gold)) > _MAX_ELEMENTS:
        return None
    fast = _exact_keys(answer), _exact_keys(gold)
    if fast[0] is not None and fast[1] is not None:
        return fast[0] == fast[1]
    mine, theirs = _distinct(answer), _distinct(gold)
    if mine is None or theirs is None:
        return None
    if len(mine) != len(theirs):
        return False
    unmatched = list(mine)
    for g in theirs:
        found = undecided = False
        for i, a in enumerate(unmatched):
            same = _elements_equal(a, g)
            if same:
                del unmatched[i]
                found = True
                break
            undecided |= same is None
        if not found:
            return None if undecided else False
    return True


def _exact_keys(elements: list[Shape]) -> frozenset[Any] | None:
    """Each element's exact value (a pair: both), when every element has one."""
    keys = []
    for e in elements:
        nodes = [e[1]] if e[0] == "scalar" else [e[1], e[2]] if e[0] == "pair" else None
        if nodes is None or any(is_decimal(n) or free_variables(n) for n in nodes):
            return None
        try:
            keys.append(tuple(exact(plain(n), {}) for n in nodes))
        except (TooBig, ZeroDivisionError):
            return None
    return frozenset(keys)
