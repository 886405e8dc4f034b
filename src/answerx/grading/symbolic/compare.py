"""Equal, different, or cannot tell: two answers compared by shape, then by value.

Values are compared exactly where both are rationals or surds; otherwise to 50
digits, equal when they agree within 10^-30 of their size and different when they
differ by more than 10^-9 of it (between the two: cannot tell). Rational functions of
variables (``x^2 - 2x + 1``, ``\\frac{\\pi}{6} + k\\pi``, pi or e counting as one more
variable) are compared modulo a prime at fixed random points, else exactly or
numerically at ``POINTS``; other functions of variables are only found different (at a
point) or equal as the same terms reordered. A decimal written alone (``1.414214``) is
compared rounded to 6 places, as math-verify compares it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

from answerx.grading.models import How
from answerx.grading.symbolic.evaluate import (
    MODULAR_POINTS,
    POINTS,
    exact,
    free_variables,
    modular,
    numeric,
    numeric_context,
    rational_in_variables,
)
from answerx.grading.symbolic.parser import Node
from answerx.grading.symbolic.shapes import Interval, Shape, shape_of
from answerx.grading.symbolic.surds import Surd, TooBig

__all__ = ["DIFFERENT_BEYOND", "EQUAL_WITHIN", "compare_shapes"]

#: Relative to the larger value (at least 1): closer is equal (to 50 digits, 20 to spare).
EQUAL_WITHIN: Final = 1e-30
#: Relative to the larger value (at least 1): further apart is different.
DIFFERENT_BEYOND: Final = 1e-9
_ROUND_PLACES: Final = 6  # math-verify's float_rounding
_POINTS_NEEDED: Final = 6
_MAX_VARIABLES: Final = 4
_MAX_ELEMENTS: Final = 24

#: (same, how) or None
Outcome = tuple[bool, How] | None


def compare_shapes(answer: Shape, gold: Shape) -> Outcome:
    """Whether ``answer`` states ``gold``, and the shape that decided; None: cannot tell."""
    if answer[0] == "words":  # "No solution" against a number
        return (False, "symbolic_fast") if _constant(gold) else None
    if gold[0] == "words":
        return None
    if answer[0] == "eq" or gold[0] == "eq":
        return _equations(answer, gold)
    kinds = (answer[0], gold[0])
    if kinds == ("scalar", "scalar"):
        return _named(_scalars(answer[1], gold[1]), "symbolic_fast")
    if kinds == ("coll", "coll"):
        if gold[1]:  # the gold is a tuple: order matters
            return _named(_in_order(answer[2], gold[2]), "symbolic_tuple")
        return _named(_as_sets(answer[2], gold[2]), "symbolic_set")
    if kinds == ("pair", "pair"):
        return _named(_elements_equal(answer, gold), "symbolic_tuple")
    if kinds == ("empty", "empty"):
        return True, "symbolic_set"
    if kinds in (("scalar", "coll"), ("coll", "scalar")) or _point_among_points(answer, gold):
        return _one_against_many(answer, gold)
    if {"pair", "scalar"} == set(kinds):  # a point or an interval is not one number
        return False, "symbolic_tuple"
    if "intervals" in kinds and set(kinds) <= {"intervals", "pair"}:
        return _named(_interval_sets(_intervals(answer), _intervals(gold), answer, gold),
                      "symbolic_interval")  # fmt: skip
    return None


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
    return _named(_as_sets(mine, theirs), "symbolic_set")


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


def _constant(shape: Shape) -> bool:
    if shape[0] != "scalar" or free_variables(shape[1]):
        return False
    try:
        _value(_plain(shape[1]), {})
    except (TooBig, ZeroDivisionError, OverflowError, RecursionError):
        return False
    return True


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
        return _scalars(a[1], b[1])
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
        if nodes is None or any(_is_decimal(n) or free_variables(n) for n in nodes):
            return None
        try:
            keys.append(tuple(exact(_plain(n), {}) for n in nodes))
        except (TooBig, ZeroDivisionError):
            return None
    return frozenset(keys)


# --- scalars ------------------------------------------------------------------------------


def _plain(node: Node) -> Node:
    # A degree sign is dropped, as math-verify drops it: 30^\circ is 30.
    return node[1] if node[0] == "deg" else node


def _is_decimal(node: Node) -> bool:
    if node[0] in ("neg", "pct", "deg"):
        node = node[1]
    return node[0] == "n" and bool(node[2])


def _is_integer(node: Node) -> bool:
    return node[0] == "n" and not node[2] and node[1].denominator == 1


def _scalars(a: Node, b: Node) -> bool | None:
    """``a`` (the answer) against ``b`` (the gold): True, False or None (cannot tell)."""
    a, b = _plain(a), _plain(b)
    if a[0] == "pct" or b[0] == "pct":
        return _percent(a, b)
    if _INFINITE in (a, b) or _MINUS_INFINITE in (a, b):
        return _infinities(a, b)
    names = free_variables(a) | free_variables(b)
    try:
        if not names and (_is_decimal(a) or _is_decimal(b)):
            return _rounded(a, b)
        exact_in_constant = _constant_as_variable(a, b, names)
        if exact_in_constant is not None:
            return exact_in_constant
        if names:
            return _at_points(a, b, sorted(names))
        return _values_equal(a, b, {})
    except (TooBig, ZeroDivisionError, OverflowError, RecursionError):
        return None


_TRANSCENDENTAL: Final = {"pi": "\\pi", "e": "\\e"}
_LONG_DECIMAL: Final = 10  # significant digits: past them math-verify's 15-digit chop matters


def _constant_as_variable(a: Node, b: Node, names: set[str]) -> bool | None:
    """``3\\pi`` against ``\\frac{6\\pi}{2}``, ``\\frac{\\pi}{6} + k\\pi``: pi (or e) is
    transcendental, so rational functions of it and of the variables are equal exactly when
    they are equal with pi as one more variable, which the modular test decides exactly."""
    constants = {c for node in (a, b) for c in _constants(node)}
    if len(constants) != 1 or _has_long_decimal(a) or _has_long_decimal(b):
        return None  # none, or both pi and e (whether they are independent is not known)
    name = _TRANSCENDENTAL[constants.pop()]
    x, y = _as_variable(a, name), _as_variable(b, name)
    if len(names) >= _MAX_VARIABLES or not (rational_in_variables(x) and rational_in_variables(y)):
        return None
    try:
        return _modular_points(x, y, sorted(names | {name}))
    except TooBig:
        return None


def _constants(node: Node) -> set[str]:
    if node[0] == "c":
        return {node[1]}
    found: set[str] = set()
    for child in node[1:]:
        if isinstance(child, tuple):
            found |= _constants(child)
    return found


def _has_long_decimal(node: Node) -> bool:
    if node[0] == "n":
        return bool(node[2]) and len(str(node[1].numerator).lstrip("-")) > _LONG_DECIMAL
    return any(_has_long_decimal(c) for c in node[1:] if isinstance(c, tuple))


def _as_variable(node: Node, name: str) -> Node:
    if node[0] == "c":
        return ("v", name)
    return tuple(_as_variable(c, name) if isinstance(c, tuple) else c for c in node)


_INFINITE: Final = ("inf",)
_MINUS_INFINITE: Final = ("neg", ("inf",))


def _infinities(a: Node, b: Node) -> bool | None:
    # \infty against 64: different; against \infty: the same; against x: cannot tell
    if a in (_INFINITE, _MINUS_INFINITE) and b in (_INFINITE, _MINUS_INFINITE):
        return a == b
    other = b if a in (_INFINITE, _MINUS_INFINITE) else a
    return False if _constant(("scalar", other)) else None


def _percent(a: Node, b: Node) -> bool | None:
    # math-verify: 50% is 0.5 and 1/2, and (both integers) 50 as well; 12.5% is not 12.5.
    if a[0] == "pct" and b[0] == "pct":
        return _scalars(a[1], b[1])
    pct, other = (a[1], b) if a[0] == "pct" else (b[1], a)
    if pct[0] != "n" or free_variables(other):
        return None
    if _is_integer(pct) and _is_integer(other) and pct[1] == other[1]:
        return True
    share: Node = ("div", pct, ("n", Fraction(100), False))
    if _is_decimal(pct):
        share = ("n", pct[1] / 100, True)
    return _scalars(share, other) if pct is a[1] else _scalars(other, share)


def _value(node: Node, env: dict[str, Fraction]) -> Surd | Any:
    try:
        return exact(node, env)
    except TooBig:
        return numeric(node, env, numeric_context())


def _values_equal(a: Node, b: Node, env: dict[str, Fraction]) -> bool | None:
    x, y = _value(a, env), _value(b, env)
    if isinstance(x, Surd) and isinstance(y, Surd):
        return x == y
    ctx = numeric_context()
    x, y = (_as_mpf(v, ctx) for v in (x, y))
    gap = abs(x - y)
    scale = max(abs(x), abs(y), 1)
    if gap <= scale * EQUAL_WITHIN:
        return True
    if gap > scale * DIFFERENT_BEYOND:
        return False
    return None


def _as_mpf(value: Surd | Any, ctx: Any) -> Any:
    if isinstance(value, Surd):
        q = value.approx(bits=220)
        return ctx.mpf(q.numerator) / q.denominator
    return value


def _rounded(a: Node, b: Node) -> bool | None:
    """Both rounded to 6 places (a decimal alone is compared the way math-verify does)."""
    digits = []
    for node in (a, b):
        value = _value(node, {})
        scaled = (
            value.approx(bits=220)
            if isinstance(value, Surd)
            else Fraction(str(numeric_context().nstr(value, 45, strip_zeros=False)))
        ) * 10**_ROUND_PLACES
        fraction = scaled - (scaled.numerator // scaled.denominator)
        if abs(fraction - Fraction(1, 2)) < Fraction(1, 10**9):
            return None  # on a rounding boundary: floating-point detail decides
        digits.append(round(scaled))
    return digits[0] == digits[1]


def _at_points(a: Node, b: Node, names: list[str]) -> bool | None:
    if len(names) > _MAX_VARIABLES:
        return None
    if not (rational_in_variables(a) and rational_in_variables(b)):
        if _sorted_tree(a) == _sorted_tree(b):  # the same terms and factors, reordered
            return True
        return _differ_somewhere(a, b, names)
    try:
        return _modular_points(a, b, names)
    except TooBig:  # surds, pi, functions of constants: exactly or numerically, point by point
        pass
    agreed = 0
    for point in POINTS:
        env = dict(zip(names, point, strict=False))
        try:
            same = _values_equal(a, b, env)
        except ZeroDivisionError:
            continue  # a pole of one side: another point
        if same is False:
            return False
        if same is None:
            return None
        agreed += 1
        if agreed >= _POINTS_NEEDED:
            return True
    return None


def _differ_somewhere(a: Node, b: Node, names: list[str]) -> bool | None:
    """For functions of variables (``4\\cos^2 w``): different where they differ at a point
    where both are defined, else cannot tell (identities such as ``\\sqrt{x^2} = |x|``
    hold at real points only: whether they count is math-verify's call)."""
    ctx = numeric_context()
    for point in POINTS:
        env = dict(zip(names, point, strict=False))
        try:
            x, y = numeric(a, env, ctx), numeric(b, env, ctx)
        except (TooBig, ZeroDivisionError):
            continue
        if abs(x - y) > max(abs(x), abs(y), 1) * DIFFERENT_BEYOND:
            return False
    return None


def _sorted_tree(node: Node) -> Any:
    """``node`` with sums and products flattened and sorted: ``2\\cos x \\sin x`` and
    ``2\\sin x \\cos x`` are the same tree (the same expression, whatever x is)."""
    kind = node[0]
    if kind in ("add", "sub", "neg"):
        return ("+", tuple(sorted(_terms(node, 1))))
    if kind == "mul":
        return ("*", tuple(sorted(_factors(node))))
    return (kind, *(_sorted_tree(c) if isinstance(c, tuple) else repr(c) for c in node[1:]))


def _terms(node: Node, sign: int) -> list[str]:
    if node[0] == "add":
        return _terms(node[1], sign) + _terms(node[2], sign)
    if node[0] == "sub":
        return _terms(node[1], sign) + _terms(node[2], -sign)
    if node[0] == "neg":
        return _terms(node[1], -sign)
    return [f"{sign:+d}{_sorted_tree(node)!r}"]


def _factors(node: Node) -> list[str]:
    if node[0] == "mul":
        return _factors(node[1]) + _factors(node[2])
    return [repr(_sorted_tree(node))]


def _modular_points(a: Node, b: Node, names: list[str]) -> bool | None:
    agreed = 0
    for point in MODULAR_POINTS:
        env = dict(zip(names, point, strict=False))
        try:
            same = modular(a, env) == modular(b, env)
        except ZeroDivisionError:
            continue
        if not same:
            return False
        agreed += 1
        if agreed >= _POINTS_NEEDED:
            return True
    return None


# --- intervals ----------------------------------------------------------------------------


def _intervals(shape: Shape) -> list[Interval]:
    if shape[0] == "pair":
        return [(shape[1], False, shape[2], False)]
    return list(shape[2])


def _interval_sets(
    answer: list[Interval], gold: list[Interval], a_shape: Shape, g_shape: Shape
) -> bool | None:
    a_var = a_shape[1] if a_shape[0] == "intervals" else None
    g_var = g_shape[1] if g_shape[0] == "intervals" else None
    if a_var is not None and g_var is not None and a_var != g_var:
        return None  # k < -5 against x < -5
    try:
        mine, theirs = _canonical(answer), _canonical(gold)
    except (TooBig, ZeroDivisionError, OverflowError, RecursionError):
        return None
    if mine is None or theirs is None:
        return None
    if len(mine) != len(theirs):
        return False
    undecided = False
    for (a_lo, a_lc, a_hi, a_hc), (b_lo, b_lc, b_hi, b_hc) in zip(mine, theirs, strict=True):
        if a_lc != b_lc or a_hc != b_hc:
            return False
        for x, y in ((a_lo, b_lo), (a_hi, b_hi)):
            same = _endpoints_equal(x, y)
            if same is False:
                return False
            undecided |= same is None
    return None if undecided else True


_Endpoint = tuple[Node, Any]  # the node and its value (mpf), or ("inf", ±1)


def _canonical(parts: list[Interval]) -> list[tuple[_Endpoint, bool, _Endpoint, bool]] | None:
    """Sorted, overlapping parts merged, infinite ends open; None for an empty part or
    a union with decimal ends (math-verify compares those exactly, not rounded)."""
    ctx = numeric_context()
    valued = []
    for low, low_closed, high, high_closed in parts:
        lo, hi = _end(low, ctx), _end(high, ctx)
        if lo[1] is None or hi[1] is None:
            return None
        low_closed &= abs(lo[1]) != ctx.inf
        high_closed &= abs(hi[1]) != ctx.inf
        if lo[1] > hi[1] or (lo[1] == hi[1] and not (low_closed and high_closed)):
            return None
        valued.append((lo, low_closed, hi, high_closed))
    if len(valued) > 1 and any(_is_decimal(end) for part in parts for end in (part[0], part[2])):
        return None
    valued.sort(key=lambda p: (p[0][1], not p[1]))
    merged = [valued[0]]
    for lo, lc, hi, hc in valued[1:]:
        m_lo, m_lc, m_hi, m_hc = merged[-1]
        if lo[1] < m_hi[1] or (lo[1] == m_hi[1] and (lc or m_hc)):
            if hi[1] > m_hi[1] or (hi[1] == m_hi[1] and hc):
                merged[-1] = (m_lo, m_lc, hi, hc or (hi[1] == m_hi[1] and m_hc))
        else:
            merged.append((lo, lc, hi, hc))
    return merged


def _end(node: Node, ctx: Any) -> _Endpoint:
    if node == ("inf",):
        return node, ctx.inf
    if node == ("neg", ("inf",)):
        return node, -ctx.inf
    if free_variables(node):
        return node, None
    return _plain(node), _as_mpf(_value(_plain(node), {}), ctx)


def _endpoints_equal(x: _Endpoint, y: _Endpoint) -> bool | None:
    if x[0] in (("inf",), ("neg", ("inf",))) or y[0] in (("inf",), ("neg", ("inf",))):
        return x[0] == y[0]
    return _scalars(x[0], y[0])
