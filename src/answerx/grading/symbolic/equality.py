"""Whether two values or expressions are equal: exactly, modulo a prime, or to 50 digits.

Values are compared exactly where both are rationals or surds; otherwise to 50
digits, equal when they agree within 10^-30 of their size and different when they
differ by more than 10^-9 of it (between the two: cannot tell). Rational functions of
variables (``x^2 - 2x + 1``, ``\\frac{\\pi}{6} + k\\pi``, pi or e counting as one more
variable) are compared modulo a prime at fixed random points, else exactly or
numerically at ``POINTS``; other functions of variables are only found different (at a
point) or equal as the same terms reordered. A decimal written alone (``1.414214``) is
compared rounded to 6 places, as math-verify compares it; percentages and degrees too
follow math-verify's reading.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Final

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
from answerx.grading.symbolic.shapes import Shape
from answerx.grading.symbolic.surds import Surd, TooBig

__all__ = [
    "DIFFERENT_BEYOND",
    "EQUAL_WITHIN",
    "as_mpf",
    "is_constant",
    "is_decimal",
    "plain",
    "same_value",
    "value_of",
]

#: Relative to the larger value (at least 1): closer is equal (to 50 digits, 20 to spare).
EQUAL_WITHIN: Final = 1e-30
#: Relative to the larger value (at least 1): further apart is different.
DIFFERENT_BEYOND: Final = 1e-9
_ROUND_PLACES: Final = 6  # math-verify's float_rounding
_POINTS_NEEDED: Final = 6
_MAX_VARIABLES: Final = 4


def is_constant(shape: Shape) -> bool:
    """A value with no variable that can be evaluated: ``\\sqrt{2}``, not ``x`` or ``1/0``."""
    if shape[0] != "scalar" or free_variables(shape[1]):
        return False
    try:
        value_of(plain(shape[1]), {})
    except (TooBig, ZeroDivisionError, OverflowError, RecursionError):
        return False
    return True


def plain(node: Node) -> Node:
    """``node`` without a degree sign around it."""
    # A degree sign is dropped, as math-verify drops it: 30^\circ is 30.
    return node[1] if node[0] == "deg" else node


def is_decimal(node: Node) -> bool:
    """A decimal written alone (``0.5``, ``-1.25``, ``12.5\\%``)."""
    if node[0] in ("neg", "pct", "deg"):
        node = node[1]
    return node[0] == "n" and bool(node[2])


def _is_integer(node: Node) -> bool:
    return node[0] == "n" and not node[2] and node[1].denominator == 1


def same_value(a: Node, b: Node) -> bool | None:
    """``a`` (the answer) against ``b`` (the gold): True, False or None (cannot tell)."""
    a, b = plain(a), plain(b)
    if a[0] == "pct" or b[0] == "pct":
        return _percent(a, b)
    if _INFINITE in (a, b) or _MINUS_INFINITE in (a, b):
        return _infinities(a, b)
    names = free_variables(a) | free_variables(b)
    try:
        if not names and (is_decimal(a) or is_decimal(b)):
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
    return False if is_constant(("scalar", other)) else None


def _percent(a: Node, b: Node) -> bool | None:
    # math-verify: 50% is 0.5 and 1/2, and (both integers) 50 as well; 12.5% is not 12.5.
    if a[0] == "pct" and b[0] == "pct":
        return same_value(a[1], b[1])
    pct, other = (a[1], b) if a[0] == "pct" else (b[1], a)
    if pct[0] != "n" or free_variables(other):
        return None
    if _is_integer(pct) and _is_integer(other) and pct[1] == other[1]:
        return True
    share: Node = ("div", pct, ("n", Fraction(100), False))
    if is_decimal(pct):
        share = ("n", pct[1] / 100, True)
    return same_value(share, other) if pct is a[1] else same_value(other, share)


def value_of(node: Node, env: dict[str, Fraction]) -> Surd | Any:
    """Exactly where it can be, else to 50 digits."""
    try:
        return exact(node, env)
    except TooBig:
        return numeric(node, env, numeric_context())


def _values_equal(a: Node, b: Node, env: dict[str, Fraction]) -> bool | None:
    x, y = value_of(a, env), value_of(b, env)
    if isinstance(x, Surd) and isinstance(y, Surd):
        return x == y
    ctx = numeric_context()
    x, y = (as_mpf(v, ctx) for v in (x, y))
    gap = abs(x - y)
    scale = max(abs(x), abs(y), 1)
    if gap <= scale * EQUAL_WITHIN:
        return True
    if gap > scale * DIFFERENT_BEYOND:
        return False
    return None


def as_mpf(value: Surd | Any, ctx: Any) -> Any:
    """A value as an mpmath number (for ordering and tolerances)."""
    if isinstance(value, Surd):
        q = value.approx(bits=220)
        return ctx.mpf(q.numerator) / q.denominator
    return value


def _rounded(a: Node, b: Node) -> bool | None:
    """Both rounded to 6 places (a decimal alone is compared the way math-verify does)."""
    digits = []
    for node in (a, b):
        value = value_of(node, {})
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
